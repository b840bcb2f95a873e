#pragma once

// Reads build progress from log lines: ninja's "[n/m] …" (also behind nix's "drv> " prefix)
// and nix's "[n/m built …]". Scans bytes by hand: it sees every line of multi-GB logs.

#include <QStringView>
#include <optional>

namespace rg {

struct BuildProgress
{
    int done = 0;
    int total = 0;
    friend bool operator==(const BuildProgress&, const BuildProgress&) = default;
};

class ProgressParser
{
public:
    // One line without its newline; ANSI escapes are skipped.
    static std::optional<BuildProgress> parseLine(QStringView line);
};

} // namespace rg
