#include "changes/recipemerge.h"

#include "changes/linepairing.h"
#include "changes/unifieddiff.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace rg {

namespace {

// Comments and blank lines: the author's prose, never a setting.
bool isProse(const std::string& line)
{
    const size_t first = line.find_first_not_of(" \t\r");
    return first == std::string::npos || line[first] == '#';
}

bool allProse(const std::vector<std::string>& lines)
{
    return std::all_of(lines.begin(), lines.end(), isProse);
}

std::string linesJoined(const std::vector<std::string>& lines)
{
    std::string out;
    for (const std::string& line : lines)
        out += line + "\n";
    return out;
}

// A line of settings (not prose, not only brackets) that ours already has elsewhere: the
// canonical recipe has it in another place, and bringing it in again would define it twice.
class MovedLines
{
public:
    explicit MovedLines(const std::vector<std::string>& ours)
    {
        for (const std::string& line : ours)
            if (counts(line))
                m_lines.insert(LinePairing::trimmed(line));
    }
    bool has(const std::string& line) const
    {
        return counts(line) && m_lines.count(LinePairing::trimmed(line));
    }
    std::string fresh(const std::vector<std::string>& lines) const
    {
        std::string out;
        for (const std::string& line : lines)
            if (!has(line))
                out += line + "\n";
        return out;
    }

private:
    static bool counts(const std::string& line)
    {
        return !isProse(line) && std::any_of(line.begin(), line.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) != 0;
        });
    }
    std::set<std::string> m_lines;
};

// One run of lines that differ, where at least one line of ours is named by a finding: line
// by line, a named line gives way to its counterpart, an author's line no counterpart
// replaces stays, and a line of the same shape the author wrote differently is a conflict.
class NamedRun
{
public:
    NamedRun(const std::vector<std::string>& mine, const std::vector<bool>& named,
             const std::vector<std::string>& canonical, const MovedLines& moved)
        : m_mine(mine), m_named(named), m_canonical(canonical), m_moved(moved)
    {}

    // The merged lines; false (with `conflict` set to the offending pair) on a conflict.
    bool merge(std::string* out, MergeConflict* conflict) const
    {
        const std::vector<int> pairs = LinePairing::pair(m_mine, m_canonical);
        size_t next = 0; // next canonical line not yet written
        for (size_t i = 0; i < m_mine.size(); ++i) {
            if (pairs[i] < 0) {
                if (!m_named[i])
                    *out += m_mine[i] + "\n";
                continue;
            }
            const auto counterpart = static_cast<size_t>(pairs[i]);
            for (; next < counterpart; ++next)
                if (!m_moved.has(m_canonical[next]))
                    *out += m_canonical[next] + "\n";
            next = counterpart + 1;
            if (m_named[i] || m_mine[i] == m_canonical[counterpart]) {
                *out += m_canonical[counterpart] + "\n";
            } else if (isProse(m_mine[i])) {
                *out += m_mine[i] + "\n";
            } else {
                conflict->line = static_cast<int>(i);
                conflict->ours = m_mine[i];
                conflict->theirs = m_canonical[counterpart];
                return false;
            }
        }
        for (; next < m_canonical.size(); ++next)
            if (!m_moved.has(m_canonical[next]))
                *out += m_canonical[next] + "\n";
        return true;
    }

private:
    const std::vector<std::string>& m_mine;
    const std::vector<bool>& m_named;
    const std::vector<std::string>& m_canonical;
    const MovedLines& m_moved;
};

} // namespace

std::string MergedRecipe::describeConflicts(size_t atMost) const
{
    std::string out;
    for (size_t i = 0; i < conflicts.size() && i < atMost; ++i) {
        const MergeConflict& c = conflicts[i];
        out += (out.empty() ? "" : "; ") +
               ("line " + std::to_string(c.line) + ": the recipe has `" +
                LinePairing::trimmed(c.ours) + "`, the canonical recipe `" +
                LinePairing::trimmed(c.theirs) + "`");
    }
    if (conflicts.size() > atMost)
        out += "; and " + std::to_string(conflicts.size() - atMost) + " more";
    return out;
}

MergedRecipe RecipeMerge::merge(const std::string& ours, const std::string& theirs,
                                const std::vector<nix::SourceRange>& named)
{
    const std::vector<std::string> oursLines = LinePairing::split(ours);
    const std::vector<std::string> theirsLines = LinePairing::split(theirs);
    const std::vector<bool> isNamed = LinePairing::named(oursLines, named);
    const MovedLines moved(oursLines);
    MergedRecipe out;
    std::string text;
    int oursAt = 0; // next line of ours not yet copied
    for (const LineHunk& hunk : UnifiedDiff::hunksOf(ours, theirs)) {
        text += linesJoined(LinePairing::slice(oursLines, oursAt, hunk.oldStart - oursAt));
        const auto mine = LinePairing::slice(oursLines, hunk.oldStart, hunk.oldLines);
        const auto canonical = LinePairing::slice(theirsLines, hunk.newStart, hunk.newLines);
        const auto named = LinePairing::slice(isNamed, hunk.oldStart, hunk.oldLines);
        oursAt = hunk.oldStart + hunk.oldLines;
        if (mine.empty()) {
            text += moved.fresh(canonical); // what the pattern adds
        } else if (std::find(named.begin(), named.end(), true) != named.end()) {
            MergeConflict conflict;
            if (!NamedRun(mine, named, canonical, moved).merge(&text, &conflict)) {
                conflict.line += hunk.oldStart + 1;
                out.conflicts.push_back(conflict);
            }
        } else if (canonical.empty() || allProse(canonical)) {
            text += linesJoined(mine); // the author's own lines and prose
        } else if (allProse(mine)) {
            text += linesJoined(mine) + moved.fresh(canonical); // the author's prose, the pattern's
        } else {
            out.conflicts.push_back({hunk.oldStart + 1, linesJoined(mine), linesJoined(canonical)});
        }
    }
    text += linesJoined(LinePairing::slice(oursLines, oursAt, int(oursLines.size())));
    // The author's last line keeps its lack of a newline.
    if (!ours.empty() && ours.back() != '\n' && !text.empty() && text.back() == '\n')
        text.pop_back();
    if (out.conflicts.empty())
        out.text = std::move(text);
    return out;
}

} // namespace rg
