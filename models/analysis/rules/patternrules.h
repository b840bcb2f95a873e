#pragma once

// Rules about how a recipe builds torch: the pattern the spec or its group follows (overriding
// nixpkgs' torch, the overlays), the Python and torch versions and the accelerator it builds
// for.

namespace rg {

class RecipeCheck;

class PatternRules
{
public:
    // Rules that need no variant.
    static void deprecatedTorchAttribute(RecipeCheck& c);
    static void magmaDisabled(RecipeCheck& c);

    static void pattern(RecipeCheck& c);
    static void versions(RecipeCheck& c);
    static void cudaInCpuRecipe(RecipeCheck& c);
};

} // namespace rg
