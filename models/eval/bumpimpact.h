#pragma once

// What a planned change (a pin bump) does to the recipes it touches, asked of Nix before
// anything is written: each recipe evaluated as it is and as the plan leaves it, in a copy of
// the work tree with the planned files in place. Whether it still evaluates (or Nix's error),
// its key versions before → after, and whether its derivation changes. Blocking.

#include "eval/evalsettings.h"
#include "eval/evaluatedrecipe.h"
#include "eval/nixinstallation.h"

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rg {

struct RecipeImpact
{
    std::string path;
    EvaluatedRecipe before;
    EvaluatedRecipe after;

    bool breaks() const { return before.evaluated && !after.evaluated; }
    bool derivationChanges() const { return before.drvPath != after.drvPath; }
    // "torch 2.9.1 → 2.10.0 · CUDA 12.8 → 12.9": the values that change.
    std::string versionChanges() const;
    nlohmann::json toJson() const;
};

class BumpImpact
{
public:
    // `planned`: path → the text the plan writes (nullopt: the plan deletes it). The recipes
    // judged are the `items` (the plan's recipes); `settings.sources` must resolve both pins.
    // "" in `error` unless the work tree could not be copied.
    static std::vector<RecipeImpact>
    of(const NixInstallation& nix, const EvalSettings& settings, const std::vector<EvalItem>& items,
       const std::map<std::string, std::optional<std::string>>& planned, std::string* error);
};

} // namespace rg
