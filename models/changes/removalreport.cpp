#include "changes/removalreport.h"

#include "changes/linepairing.h"
#include "changes/unifieddiff.h"

#include <algorithm>

namespace rg {

namespace {

std::vector<uint32_t> lineOffsets(const std::vector<std::string>& lines)
{
    std::vector<uint32_t> offsets{0};
    for (const std::string& line : lines)
        offsets.push_back(offsets.back() + static_cast<uint32_t>(line.size()) + 1);
    return offsets;
}

std::string trimmed(const std::string& line)
{
    const size_t first = line.find_first_not_of(" \t\r");
    const size_t last = line.find_last_not_of(" \t\r");
    return first == std::string::npos ? std::string() : line.substr(first, last - first + 1);
}

template <typename T> std::vector<T> slice(const std::vector<T>& all, int first, int count)
{
    const auto begin = all.begin() + std::min<ptrdiff_t>(first, ptrdiff_t(all.size()));
    const auto end = all.begin() + std::min<ptrdiff_t>(first + count, ptrdiff_t(all.size()));
    return std::vector<T>(begin, end);
}

} // namespace

std::vector<std::string> RemovalReport::outsideFindings(const std::string& before,
                                                        const std::string& after,
                                                        const std::vector<nix::SourceRange>& named)
{
    const std::vector<std::string> old = LinePairing::split(before);
    const std::vector<std::string> now = LinePairing::split(after);
    const std::vector<uint32_t> offsets = lineOffsets(old);
    std::vector<std::string> removed;
    for (const LineHunk& hunk : UnifiedDiff::hunksOf(before, after)) {
        const std::vector<int> pairs = LinePairing::pair(slice(old, hunk.oldStart, hunk.oldLines),
                                                         slice(now, hunk.newStart, hunk.newLines));
        for (size_t i = 0; i < pairs.size(); ++i) {
            const size_t line = static_cast<size_t>(hunk.oldStart) + i;
            const uint32_t begin = offsets[line], end = offsets[line + 1];
            const bool isNamed = std::any_of(named.begin(), named.end(), [&](nix::SourceRange r) {
                return r.length() > 0 && r.begin < end && begin < r.end;
            });
            if (!isNamed && pairs[i] < 0 && !trimmed(old[line]).empty())
                removed.push_back(trimmed(old[line]));
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
