#include "eval/evaluationmerge.h"

#include "eval/deepcheck.h"
#include "recipes/cellassignment.h"

#include <map>

namespace rg {

std::vector<EvalItem> EvaluationMerge::itemsOf(const Analysis& analysis,
                                               const std::vector<CellSelector>& selectors)
{
    std::vector<EvalItem> items;
    for (const MatrixEntry& entry : analysis.entries) {
        if (!entry.recipe || entry.recipe->problem != FileProblem::None)
            continue;
        bool selected = selectors.empty();
        for (const CellSelector& selector : selectors)
            selected = selected || selector.matches(entry);
        if (!selected)
            continue;
        EvalItem item;
        item.path = entry.recipe->path;
        if (!entry.recipe->pins.empty())
            item.pin = entry.recipe->pins.front().revision;
        item.contentKey = entry.contentKey;
        items.push_back(std::move(item));
    }
    return items;
}

void EvaluationMerge::apply(Analysis& analysis, const std::vector<EvaluatedRecipe>& results)
{
    std::map<std::string, const EvaluatedRecipe*> byPath;
    for (const EvaluatedRecipe& result : results)
        byPath[result.path] = &result;
    for (MatrixEntry& entry : analysis.entries) {
        if (!entry.recipe || !entry.expectation)
            continue;
        const auto found = byPath.find(entry.recipe->path);
        if (found == byPath.end())
            continue;
        const DeepCheck check(*found->second, *entry.expectation, *entry.recipe);
        entry.findings = check.overrule(entry.findings);
        for (Finding& finding : check.findings())
            entry.findings.push_back(std::move(finding));
        CellAssignment::refresh(entry);
    }
}

} // namespace rg
