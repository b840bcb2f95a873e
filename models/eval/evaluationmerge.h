#pragma once

// Where Nix's answers meet the static analysis: which recipes of an analysis to evaluate, and
// an analysis with the evaluation's findings in each recipe's cell, the static findings Nix
// overrules turned into notes, and the cells' status following.

#include "analysis/analysis.h"
#include "analysis/cellselector.h"
#include "eval/evalsettings.h"
#include "eval/evaluatedrecipe.h"

#include <vector>

namespace rg {

class EvaluationMerge
{
public:
    // The recipes of `analysis` a user's words select (all when `selectors` is empty), keyed by
    // content (Cell::contentKey; RecipeContentKey::keyAll fills it). A recipe the static
    // reading left unread by its own limits is in (Nix's is the only answer for it); one Nix
    // would reject on parsing is left out: its syntax error is already a finding.
    static std::vector<EvalItem> itemsOf(const Analysis& analysis,
                                         const std::vector<CellSelector>& selectors = {});
    // Whether `entry` has a recipe itemsOf would hand to Nix.
    static bool evaluable(const Cell& entry);

    // Each result's findings in its recipe's cell, and its summary as Cell::evaluation.
    static void apply(Analysis& analysis, const std::vector<EvaluatedRecipe>& results);
};

} // namespace rg
