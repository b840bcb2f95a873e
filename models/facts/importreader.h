#pragma once

// Reads what a recipe imports: the builder module it calls, the files it imports (a sibling
// makes it a wrapper of that recipe), paths computed from values, and `<nixpkgs>` imports
// that are evaluated, which leave nixpkgs unpinned.

#include "facts/factcontext.h"

#include <string>
#include <string_view>
#include <vector>

namespace rg {

class ImportReader
{
public:
    explicit ImportReader(FactContext& context);

    // Fills `builderModule`, `importedFiles` and `wrappedFile`.
    void readImports();
    // Fills `unpinnedImports`.
    void readUnpinnedImports(const nix::Node& root);

    // The recipes beside `recipePath` this file imports through a computed path.
    std::vector<Fact<std::string>> computedSiblingImports(const std::string& recipePath) const;

private:
    bool neverEvaluated(const nix::Node& root, const nix::Node& import) const;
    bool unused(std::string_view name, nix::SourceRange definition) const;

    FactContext& m_context;
    RecipeFacts& m_facts;
    const RecipeWalk& m_walk;
};

} // namespace rg
