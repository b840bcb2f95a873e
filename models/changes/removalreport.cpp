#include "changes/removalreport.h"

#include "changes/linepairing.h"
#include "changes/unifieddiff.h"

namespace rg {

std::vector<std::string> RemovalReport::outsideFindings(const std::string& before,
                                                        const std::string& after,
                                                        const std::vector<nix::SourceRange>& named)
{
    const std::vector<std::string> old = LinePairing::split(before);
    const std::vector<std::string> now = LinePairing::split(after);
    const std::vector<bool> isNamed = LinePairing::named(old, named);
    std::vector<std::string> removed;
    for (const LineHunk& hunk : UnifiedDiff::hunksOf(before, after)) {
        const std::vector<int> pairs =
            LinePairing::pair(LinePairing::slice(old, hunk.oldStart, hunk.oldLines),
                              LinePairing::slice(now, hunk.newStart, hunk.newLines));
        for (size_t i = 0; i < pairs.size(); ++i) {
            const size_t line = static_cast<size_t>(hunk.oldStart) + i;
            const std::string text = LinePairing::trimmed(old[line]);
            if (!isNamed[line] && pairs[i] < 0 && !text.empty())
                removed.push_back(text);
        }
    }
    return removed;
}

std::string RemovalReport::summary(const std::vector<std::string>& lines, size_t shown)
{
    if (lines.empty())
        return {};
    std::string out = "also removes " + std::to_string(lines.size()) +
                      (lines.size() == 1 ? " line: " : " lines: ");
    for (size_t i = 0; i < lines.size() && i < shown; ++i)
        out += (i ? ", " : "") + lines[i];
    if (lines.size() > shown)
        out += ", …";
    return out;
}

} // namespace rg
