#pragma once

// Reads the platforms a recipe is for: its meta.platforms (lists, `++`, `lib.platforms.X`,
// values taken over from the overridden package) and the system nixpkgs is imported for,
// with the CPU its compiler wrapper targets (`localSystem.gcc.arch`).

#include "facts/factcontext.h"

#include <string>
#include <vector>

namespace rg {

class PlatformReader
{
public:
    explicit PlatformReader(FactContext& context);

    // Fills `platformsValue`.
    void readPlatforms();
    // Fills `nixpkgsSystem`, and `compilerFlags` when no flags were read yet.
    void readNixpkgsSystem();

private:
    PlatformsFact platformsOf(const BindingRecord& binding) const;
    ValueOrigin platformsFrom(const nix::Value& value, const nix::Node& at,
                              std::vector<std::string>& platforms, int depth) const;
    bool fromArgument(const nix::Value& value) const;

    FactContext& m_context;
    RecipeFacts& m_facts;
    const RecipeWalk& m_walk;
};

} // namespace rg
