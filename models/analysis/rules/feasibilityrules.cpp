#include "analysis/rules/feasibilityrules.h"

#include "analysis/rules/recipecheck.h"
#include "analysis/ruleset.h"

namespace rg {

void FeasibilityRules::packageLimits(RecipeCheck& c)
{
    const VariantExpectation* e = c.expected();
    if (!e->feasibility.packageWhy.empty())
        c.add(rule::packageBelowMinimumArch, e->feasibility.packageWhy);
}

void FeasibilityRules::hardware(RecipeCheck& c)
{
    const VariantExpectation* e = c.expected();
    const Feasibility& f = e->feasibility;
    if (!f.cudaWhy.empty())
        c.add(rule::cudaBelowMinimum, f.cudaWhy);
    // A spec that asks for the variant decides; an inferred one only echoes the files.
    if (!f.hardwareWhy.empty() && f.cudaWhy.empty() && !e->askedFor)
        c.add(rule::impossiblePairing,
              f.hardwareWhy + (e->fromSpecFile ? "; the spec does not ask for " + e->name.toString()
                                               : "; there is no spec file to ask for it"));
}

} // namespace rg
