#pragma once

// What a shell script evaluated by Nix sets: `export NAME="value"` and `NAME=value` lines of a
// derivation's preConfigure, in order, with `$NAME` / `${NAME}` read as the value the script
// set before (or nothing, when the builder's own environment would supply it). The static
// reader reads the same settings from Nix source; this reads the text Nix produced.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg {

class ShellScript
{
public:
    // `environment`: what the builder's environment holds before the script runs (the
    // derivation's attributes), for `$NAME` before any assignment.
    explicit ShellScript(std::string_view text,
                         std::map<std::string, std::string> environment = {});

    // The value `name` has at the end of the script; nullopt when the script never sets it.
    std::optional<std::string> valueOf(std::string_view name) const;

    // Whitespace- or semicolon-separated words of a value: "8.6;8.9" → {"8.6", "8.9"}.
    static std::vector<std::string> words(std::string_view value, bool semicolons);

private:
    struct Assignment
    {
        std::string name;
        std::string value; // quotes removed, references left in
    };
    std::string expand(std::string_view value, size_t before) const;

    std::vector<Assignment> m_assignments;
    std::map<std::string, std::string> m_environment;
};

} // namespace rg
