#include "changes/linepairing.h"

#include <sstream>

namespace rg {

namespace {

std::vector<std::string> words(const std::string& line)
{
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string word; in >> word;)
        out.push_back(word);
    return out;
}

} // namespace

bool LinePairing::sameShape(const std::string& before, const std::string& after)
{
    const std::vector<std::string> a = words(before), b = words(after);
    if (a.size() != b.size() || a.empty())
        return false;
    size_t differing = 0;
    for (size_t i = 0; i < a.size(); ++i)
        differing += a[i] != b[i];
    // Most words stay: `sha256 = "…";` with a new hash is the same line, `own = true;` and
    // `overlay = 2;` are not.
    return differing <= 2 && differing * 2 < a.size();
}

std::vector<int> LinePairing::pair(const std::vector<std::string>& before,
                                   const std::vector<std::string>& after)
{
    std::vector<int> pairs(before.size(), -1);
    size_t next = 0; // pairs keep their order: search after the last one taken
    for (size_t i = 0; i < before.size(); ++i)
        for (size_t j = next; j < after.size(); ++j)
            if (sameShape(before[i], after[j])) {
                pairs[i] = static_cast<int>(j);
                next = j + 1;
                break;
            }
    return pairs;
}

std::vector<std::string> LinePairing::split(const std::string& text)
{
    std::vector<std::string> lines;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find('\n', at);
        end = end == std::string::npos ? text.size() : end;
        lines.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return lines;
}

std::vector<bool> LinePairing::named(const std::vector<std::string>& lines,
                                     const std::vector<nix::SourceRange>& named)
{
    std::vector<bool> out;
    uint32_t offset = 0;
    for (const std::string& line : lines) {
        const uint32_t end = offset + static_cast<uint32_t>(line.size()) + 1;
        out.push_back(std::any_of(named.begin(), named.end(), [&](nix::SourceRange range) {
            return range.length() > 0 && range.begin < end && offset < range.end;
        }));
        offset = end;
    }
    return out;
}

std::string LinePairing::trimmed(std::string_view line)
{
    const size_t first = line.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos)
        return {};
    return std::string(line.substr(first, line.find_last_not_of(" \t\r\n") - first + 1));
}

} // namespace rg
