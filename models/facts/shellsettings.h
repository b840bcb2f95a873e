#pragma once

// The `NAME=value` settings (also `-DNAME=value`, quoted or not) inside a file's string
// literals — preConfigure scripts, cmakeFlags — for the names the fact readers look at. The
// strings are scanned once, at each '=', the first time any setting is asked for.

#include "facts/factcontext.h"

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rg {

class ShellSettings
{
public:
    struct Setting
    {
        std::string value;
        nix::SourceRange range;
        SourcedText text; // the value with the source of each byte that has one
    };

    explicit ShellSettings(const FactContext& context);

    const std::vector<Setting>& settings(std::string_view name) const;

private:
    void readSettingsOf(const nix::Node& string) const;
    const nix::Value& runOf(const nix::Node& part) const;
    Setting readShellValue(const nix::Node& string, size_t partIndex, size_t offset) const;
    void appendInterpolated(SourcedText& value, const nix::Node& interpolation) const;

    const FactContext& m_context;
    mutable bool m_read = false;
    mutable std::map<std::string_view, std::vector<Setting>> m_settings;
    mutable std::unordered_map<const nix::Node*, nix::Value> m_runs;
};

} // namespace rg
