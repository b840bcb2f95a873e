#pragma once

// Rules about what a recipe's build is pinned to: its nixpkgs revision and the hashes of what it
// fetches, which decide whether two machines build the same thing.

namespace rg {

class RecipeCheck;

class PinRules
{
public:
    // Rules that need no variant: they hold for shared modules and oddly named files too.
    static void notFull(RecipeCheck& c);
    static void invalidHashes(RecipeCheck& c);
    static void unpinned(RecipeCheck& c);

    // Against the pin the spec, or the recipe's group, gives its cell.
    static void pins(RecipeCheck& c);
};

} // namespace rg
