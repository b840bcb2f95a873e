#pragma once

// builtins.match's regular expressions. They run std::regex with std::regex::extended, as Nix
// does, but on libstdc++'s breadth-first matcher (regex_constants::__polynomial): its time is
// linear in the string times the automaton and its recursion bounded by the automaton, where
// the default backtracking matcher that Nix uses takes exponential time on `(a|a)*` and
// recurses once per character. Both agree on whether a string matches and on what each
// capture group holds, except for a group inside a repetition (`*`, `+`, `{m,n}`), whose last
// iteration can differ (`(a*)+` on "aaa": Nix's [ "" ], the breadth-first [ "aaa" ]); such
// groups are reported as repeated, for the caller to leave unknown. Nix on macOS uses libc++,
// whose results differ in more cases again.

#include "nix/value.h"

#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace rg::nix {

class NixRegex
{
public:
    // Most string bytes times automaton states one match may cost.
    static constexpr size_t kMaxWork = size_t(1) << 25;

    // Compiled, or refused with why (see cause() and reason()): too large for our limits, an
    // invalid expression, or one we do not understand.
    explicit NixRegex(const std::string& pattern);

    bool compiled() const { return m_regex.has_value(); }
    Value::Cause cause() const { return m_cause; }
    const std::string& reason() const { return m_reason; }

    // An upper estimate of the automaton's size: what a match costs per byte.
    size_t states() const { return m_states; }
    // Whether capture group `group` (from 0, the first parenthesis) is inside a repetition.
    bool repeated(size_t group) const { return m_repeated[group]; }

    // Whether the whole of `text` matches (compiled() only); throws what std::regex_match
    // throws when the matcher gives up.
    bool matches(const std::string& text, std::smatch& groups) const;

private:
    std::optional<std::regex> m_regex; // nullopt: m_cause and m_reason say why
    std::vector<bool> m_repeated;
    size_t m_states = 0;
    Value::Cause m_cause = Value::Cause::None;
    std::string m_reason;
};

} // namespace rg::nix
