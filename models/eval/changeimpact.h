#pragma once

// What a planned change set (a pin bump, a fix) does to the recipes it touches, asked of Nix before
// anything is written: each recipe evaluated as it is and as the plan leaves it, in a copy of
// the work tree with the planned files in place. Whether it still evaluates (or Nix's error),
// its key versions before → after, and whether its derivation changes. Blocking; a cancel
// stops Nix with what it started.

#include "eval/evalsettings.h"
#include "eval/evaluatedrecipe.h"
#include "eval/nixinstallation.h"

#include <atomic>
#include <functional>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rg {

struct RecipeImpact
{
    enum class Verdict {
        Evaluates,   // before and after
        Breaks,      // before, not after: Nix's error in after.error
        Mends,       // after, not before
        FailsOnBoth, // Nix's errors in before.error and after.error
        Unanswered,  // Nix did not answer (timed out, cancelled, no network)
    };

    std::string path;
    EvaluatedRecipe before;
    EvaluatedRecipe after;

    Verdict verdict() const;
    // What `bump-pin --evaluate` refuses to write: evaluated before and not after, an
    // unanswered "after" included (a guard that could not ask lets nothing through).
    bool breaks() const { return before.evaluated && !after.evaluated; }
    bool derivationChanges() const { return before.drvPath != after.drvPath; }
    // "torch 2.9.1 → 2.10.0 · CUDA 12.8 → 12.9": the values that change.
    std::string versionChanges() const;
    nlohmann::json toJson() const;
};

class ChangeImpact
{
public:
    // path → the text the plan writes there; nullopt: the plan deletes it.
    using Planned = std::map<std::string, std::optional<std::string>>;
    // Evaluations done of the 2 × items asked (each recipe before, then after).
    using Progress = std::function<void(int done, int total)>;

    // The recipes judged are the `items` (the plan's recipes); `settings.sources` must
    // resolve both pins. "" in `error` unless the work tree could not be copied. Cancelled:
    // no impacts, and `error` stays "".
    static std::vector<RecipeImpact> of(const NixInstallation& nix, const EvalSettings& settings,
                                        const std::vector<EvalItem>& items, const Planned& planned,
                                        std::string* error, const Progress& progress = {},
                                        const std::atomic<bool>* cancel = nullptr);
};

} // namespace rg
