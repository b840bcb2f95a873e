#pragma once

#include "analysis/analysis.h"
#include "analysis/cellselector.h"
#include "eval/evalsettings.h"
#include "eval/evaluatedrecipe.h"

#include <QStringList>

namespace rg {

class RepositorySource;

// `recipegrid eval REPO [VARIANT…] [--nixpkgs REV=PATH]… [--jobs N] [--format text|json|sarif]`:
// evaluates recipes with the real Nix against their pins and reports what Nix says beside the
// static reading. Exit status: 0 every recipe evaluates and agrees with its variant, 1 findings,
// 2 usage or I/O errors (Nix missing or too old, a pin that cannot be fetched).
class EvalCommand
{
public:
    static int run(const QStringList& arguments);

    // Evaluates the recipes of `analysis` that `selectors` name (all when none) and merges
    // Nix's answers into it; keys the recipes by content first. Results in the items' order.
    // "" in `error` unless Nix cannot be used.
    static std::vector<EvaluatedRecipe>
    evaluateInto(Analysis& analysis, const RepositorySource& source, const EvalSettings& settings,
                 const std::vector<CellSelector>& selectors, std::string* error);
};

} // namespace rg
