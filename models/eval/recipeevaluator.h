#pragma once

// Evaluates recipes against their pins with the real Nix, in the background of whoever calls
// it: cached results first, the rest in batches (recipes on one pin together, so they share
// its import), several Nix processes at once. Blocking and thread-safe towards its callbacks'
// callers only in that callbacks come from worker threads one at a time: a GUI marshals them.
//
//   RecipeEvaluator evaluator(settings);
//   if (!evaluator.nix().usable()) … evaluator.nix().error
//   const std::vector<EvaluatedRecipe> results = evaluator.evaluate(items, progress, cancel);

#include "eval/evalcache.h"
#include "eval/evalsettings.h"
#include "eval/evaluatedrecipe.h"
#include "eval/nixinstallation.h"

#include <atomic>
#include <functional>
#include <vector>

namespace rg {

class RecipeEvaluator
{
public:
    // done of total, and the recipe Nix has just begun ("" when reporting a finished one).
    using Progress = std::function<void(int done, int total, const std::string& current)>;

    // Finds Nix on PATH (a process: not on the GUI thread), or uses the one found already.
    explicit RecipeEvaluator(EvalSettings settings);
    RecipeEvaluator(EvalSettings settings, NixInstallation nix);

    const NixInstallation& nix() const { return m_nix; }
    const EvalSettings& settings() const { return m_settings; }

    // One result per item, in the items' order. Without a usable Nix, every item fails with
    // nix().error.
    std::vector<EvaluatedRecipe> evaluate(const std::vector<EvalItem>& items,
                                          const Progress& progress = {},
                                          const std::atomic<bool>* cancel = nullptr) const;

    // The batches `items` (indices) are split into for `jobs` processes: by pin, in order, so a
    // pin's recipes stay together unless one pin has more than its share.
    static std::vector<std::vector<size_t>> batches(const std::vector<EvalItem>& items,
                                                    const std::vector<size_t>& todo, int jobs);

private:
    EvalSettings m_settings;
    NixInstallation m_nix;
};

} // namespace rg
