#include "analysis/analysis.h"

#include "analysis/matrixcounts.h"

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
    case CellStatus::Unchecked:
        return "unchecked";
    }
    return "ok";
}

std::shared_ptr<const VariantExpectation> Analysis::expectationFor(const VariantName& name,
                                                                   const GroupProfile* group) const
{
    return std::make_shared<const VariantExpectation>(
        VariantExpectation::of(name, spec, catalog, group));
}

int Cell::count(Severity severity) const
{
    return static_cast<int>(std::count_if(findings.begin(), findings.end(), [&](const Finding& f) {
        return f.severity == severity;
    }));
}

const Finding* Cell::firstError() const
{
    const auto it = std::find_if(findings.begin(), findings.end(),
                                 [](const Finding& f) { return f.severity == Severity::Error; });
    return it == findings.end() ? nullptr : &*it;
}

std::vector<nix::SourceRange> Cell::namedRanges() const
{
    std::vector<nix::SourceRange> ranges;
    for (const Finding& finding : findings)
        if (recipe && finding.file == recipe->path && finding.range.length() > 0)
            ranges.push_back(finding.range);
    return ranges;
}

std::array<int, cellStatusCount> Analysis::counts() const
{
    return MatrixCounts::of(*this).byStatus();
}

int Analysis::expectedCount() const
{
    return MatrixCounts::of(*this).expectedTotal();
}

int Analysis::findingCount() const
{
    auto n = static_cast<int>(repositoryFindings.size());
    for (const Cell& entry : cells)
        n += static_cast<int>(entry.findings.size());
    return n;
}

std::string Analysis::summary() const
{
    return MatrixCounts::of(*this).summary();
}

} // namespace rg
