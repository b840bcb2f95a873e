#pragma once

// Evaluation results on disk, keyed by everything the result depends on: the recipe's content
// (the recipe and the repository files it imports, as RecipeContentKey hashes them), the
// local source its pin resolves to, the default nixpkgs, the Nix version and the wrapper. An
// unchanged recipe is not evaluated again; a changed one, or one whose inputs moved, is.
// A source directory is identified by its path and modification times, not its bytes: a
// nixpkgs tree has tens of thousands of files.

#include "eval/evalsettings.h"
#include "eval/evaluatedrecipe.h"

#include <optional>
#include <string>

namespace rg {

class EvalCache
{
public:
    EvalCache(const EvalSettings& settings, std::string nixVersion);

    bool enabled() const { return !m_dir.empty(); }
    // "" when the item cannot be cached (no content key).
    std::string keyOf(const EvalItem& item) const;

    std::optional<EvaluatedRecipe> find(const std::string& key) const;
    // Failures that say nothing about the recipe (EvaluatedRecipe::transient) are not kept.
    void store(const std::string& key, const EvaluatedRecipe& result) const;

private:
    std::string m_dir;
    std::string m_common; // what every key of these settings shares
    const EvalSettings& m_settings;
};

} // namespace rg
