#include "eval/evaluationmerge.h"

#include "analysis/cellassignment.h"
#include "eval/deepcheck.h"

#include <map>

namespace rg {

namespace {

std::shared_ptr<const EvaluationSummary> summaryOf(const EvaluatedRecipe& result,
                                                   const RecipeFacts& recipe)
{
    auto summary = std::make_shared<EvaluationSummary>();
    summary->evaluated = result.evaluated;
    summary->error = result.error.message;
    if (result.torch)
        summary->torchVersion = result.torch->version;
    summary->cudaVersion = result.cudaVersion;
    summary->pythonVersion = result.pythonVersion;
    summary->archList = result.archList();
    summary->drvPath = result.drvPath;
    summary->system = result.system;
    summary->requiredSystemFeatures = result.requiredSystemFeatures;
    if (!recipe.pins.empty())
        summary->pin = recipe.pins.front().revision;
    summary->nixVersion = result.nixVersion;
    summary->evaluatedAt = result.evaluatedAt;
    summary->fromCache = result.fromCache;
    if (result.output.where != OutputState::Where::Unknown || !result.output.error.empty()) {
        summary->output = result.output.id();
        summary->outputText = result.output.label();
    }
    return summary;
}

// Whether Nix can read the recipe: all that parsed, and what the static reading left unread
// by its own limits (nested deeper than the parser follows, larger than it reads), where Nix's
// answer is the only one there is. Not what no reader gets (an unreadable file, a symlink)
// nor a syntax error, which Nix rejects as the parser did (it is already a finding).
bool nixReads(const RecipeFacts& recipe)
{
    return recipe.problem == FileProblem::None || recipe.problem == FileProblem::TooDeep ||
           recipe.problem == FileProblem::Oversized;
}

} // namespace

bool EvaluationMerge::evaluable(const Cell& entry)
{
    return entry.recipe && nixReads(*entry.recipe);
}

std::vector<EvalItem> EvaluationMerge::itemsOf(const Analysis& analysis,
                                               const std::vector<CellSelector>& selectors)
{
    std::vector<EvalItem> items;
    for (const Cell& entry : analysis.cells) {
        if (!evaluable(entry))
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
    for (Cell& entry : analysis.cells) {
        if (!entry.recipe || !entry.expectation)
            continue;
        const auto found = byPath.find(entry.recipe->path);
        if (found == byPath.end())
            continue;
        const DeepCheck check(*found->second, *entry.expectation, *entry.recipe);
        entry.findings = check.overrule(entry.findings);
        for (Finding& finding : check.findings())
            entry.findings.push_back(std::move(finding));
        entry.evaluation = summaryOf(*found->second, *entry.recipe);
        CellAssignment::refresh(entry);
    }
}

} // namespace rg
