#include "recipes/analysis.h"

#include <algorithm>

namespace rg {

std::string_view cellStatusId(CellStatus status)
{
    switch (status) {
    case CellStatus::Ok:
        return "ok";
    case CellStatus::Broken:
        return "broken";
    case CellStatus::Redundant:
        return "redundant";
    case CellStatus::Missing:
        return "missing";
    case CellStatus::Unexpected:
        return "unexpected";
    case CellStatus::Impossible:
        return "impossible";
    case CellStatus::Gap:
        return "gap";
    }
    return "ok";
}

int MatrixEntry::count(Severity severity) const
{
    return static_cast<int>(std::count_if(findings.begin(), findings.end(), [&](const Finding& f) {
        return f.severity == severity;
    }));
}

const Finding* MatrixEntry::firstError() const
{
    const auto it = std::find_if(findings.begin(), findings.end(),
                                 [](const Finding& f) { return f.severity == Severity::Error; });
    return it == findings.end() ? nullptr : &*it;
}

std::vector<nix::SourceRange> MatrixEntry::namedRanges() const
{
    std::vector<nix::SourceRange> ranges;
    for (const Finding& finding : findings)
        if (recipe && finding.file == recipe->path && finding.range.length() > 0)
            ranges.push_back(finding.range);
    return ranges;
}

std::array<int, cellStatusCount> Analysis::counts() const
{
    std::array<int, cellStatusCount> result{};
    for (const MatrixEntry& entry : entries)
        ++result[static_cast<size_t>(entry.status)];
    return result;
}

int Analysis::expectedCount() const
{
    int n = 0;
    for (const MatrixEntry& entry : entries)
        n += entry.expected ? 1 : 0;
    return n;
}

int Analysis::findingCount() const
{
    auto n = static_cast<int>(repositoryFindings.size());
    for (const MatrixEntry& entry : entries)
        n += static_cast<int>(entry.findings.size());
    return n;
}

std::string Analysis::summary() const
{
    std::string text = std::to_string(expectedCount()) + " expected";
    const auto n = counts();
    for (int i = 0; i < cellStatusCount; ++i) {
        if (n[static_cast<size_t>(i)] == 0)
            continue;
        text += " \u00b7 " + std::to_string(n[static_cast<size_t>(i)]) + ' ' +
                std::string(cellStatusId(static_cast<CellStatus>(i)));
    }
    return text;
}

} // namespace rg
