#pragma once

// Reads the nixpkgs revision a recipe pins and the hashes it writes: a fetcher's argument
// (a set, a URL, a flake reference), a module the recipe imports its nixpkgs from, or a niv
// sources.json. A pin read from another file says where, since that is what a bump rewrites.

#include "facts/factcontext.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg::nix {
class JsonReader;
}

namespace rg {

class PinReader
{
public:
    explicit PinReader(FactContext& context);

    // Fills `pins`.
    void readPins();
    // Fills `hashes`.
    void readHashes();

    // The pins of a module function where the recipe applies it to `arguments`, read with
    // `context`'s evaluator.
    static std::vector<PinFact> appliedPins(const FactContext& context,
                                            const nix::SyntaxTree& module, const std::string& id,
                                            std::vector<nix::Value> arguments);

private:
    void pinsOfNiv();
    std::optional<PinFact> nivPin(const nix::JsonReader& reader, const std::string& name,
                                  const std::string& file, std::string_view text) const;
    std::vector<std::vector<const nix::Node*>> moduleImports() const;
    std::vector<PinFact> pinsOfModules() const;
    std::optional<PinFact> overriddenPin(const nix::SyntaxTree& module, const PinFact& pin,
                                         const nix::Node* argument) const;
    std::optional<PinFact> pinOf(PinFetcher fetcher, const nix::Node& argumentNode) const;
    std::optional<SourcedText> revisionOfSet(PinFact& pin, const nix::Value& argument,
                                             const nix::Node& argumentNode, bool& nixpkgs) const;
    void placeInAnotherFile(PinFact& pin, const nix::Value& argument) const;

    FactContext& m_context;
    RecipeFacts& m_facts;
    const RecipeWalk& m_walk;
};

} // namespace rg
