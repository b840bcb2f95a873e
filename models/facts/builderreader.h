#pragma once

// Reads a recipe's facts where they are made when the recipe is a thin call of something
// else: a builder module it applies to its values (`import ./lib/mk-torch.nix { … }`), or a
// sibling recipe it derives from by overriding its arguments (`(import ./x.nix { … }).override
// { … }`). Such facts are reported with where they are written; having no range in the
// recipe, they are never edited in place.

#include "facts/factcontext.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rg {

class BuilderReader
{
public:
    explicit BuilderReader(FactContext& context);

    // Fills `derivedFrom`, and notes the calls derived recipes are made by.
    void readDerivedFrom();
    // Fills, from the builder or the derived recipe's builder, what the recipe left unread.
    void readThroughBuilder();

private:
    // A recipe derived from a sibling: the sibling's call (`import ./x.nix { … }`) and the
    // argument of `.override`.
    struct Derivation
    {
        const nix::Node* base = nullptr;
        const nix::Node* overrides = nullptr;
    };

    // Sibling recipes passed as arguments (`torch = callPackage ./pytorch-….nix { };`), by the
    // attribute each is passed as.
    using Passes = std::vector<std::pair<std::string, Fact<std::string>>>;

    struct BuilderCall
    {
        std::string module; // id
        nix::Value arguments;
        Passes passed;
    };

    bool hasAllBuiltFacts() const;
    void readDerived(const Derivation& derivation);
    static Passes keptPasses(Passes passed, const nix::Value& overrides);
    static Passes siblingPasses(const FactContext& context, const nix::Node& argument);
    std::optional<BuilderCall> builderCallOf(const std::string& recipeId,
                                             const nix::Value& argument, int depth) const;
    void readBuilt(const std::string& id, std::vector<nix::Value> arguments, int chain = 0);
    void adoptBuilt(const nix::SyntaxTree& module, const std::string& id, RecipeFacts& built);

    FactContext& m_context;
    RecipeFacts& m_facts;
    const RecipeWalk& m_walk;
    nix::ModuleLoader* m_modules = nullptr;
    std::vector<Derivation> m_derivations;
};

} // namespace rg
