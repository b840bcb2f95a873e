#pragma once

// Rules about the system a recipe builds for: the nixpkgs it imports and meta.platforms,
// against the platform of the file's ISA.

namespace rg {

class RecipeCheck;

class PlatformRules
{
public:
    static void platforms(RecipeCheck& c);
};

} // namespace rg
