#pragma once

// Rules about whether the recipe's cell can exist at all: the catalog's feasibility of its
// CUDA version, GPU, CPU and package.

namespace rg {

class RecipeCheck;

class FeasibilityRules
{
public:
    static void packageLimits(RecipeCheck& c);
    static void hardware(RecipeCheck& c);
};

} // namespace rg
