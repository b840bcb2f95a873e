#include "analysis/rules/platformrules.h"

#include "analysis/rules/recipecheck.h"
#include "analysis/ruleset.h"

#include <algorithm>

namespace rg {

using namespace ruletext;

void PlatformRules::platforms(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    const VariantExpectation* e = c.expected();
    const CpuIsa* isa = e->isa;
    // MPS runs on Apple silicon and on Intel Macs alike, as meta.platforms allows too.
    const bool sameFamily = isa && isa->family == CpuFamily::Apple && f.nixpkgsSystem &&
                            f.nixpkgsSystem->value.ends_with("-darwin");
    if (isa && !isa->platform.empty() && f.nixpkgsSystem &&
        f.nixpkgsSystem->value != isa->platform && !sameFamily)
        c.addMadeValue(rule::platformsMismatch,
                       "imports nixpkgs for " + f.nixpkgsSystem->value + " (" +
                           whereIs(f, *f.nixpkgsSystem) + "), so it builds for that system; " +
                           isa->id + " runs on " + isa->platform,
                       f.nixpkgsSystem->range);
    if (!isa || isa->platform.empty() || !f.platformsValue ||
        f.platformsValue->origin != ValueOrigin::Known)
        return;
    const PlatformsFact& fact = *f.platformsValue;
    const auto& list = fact.platforms;
    const std::string written =
        fact.expression.size() <= 80 && fact.in.empty() ? fact.expression : listText(list);
    const std::string where = fact.in.empty() ? lineOf(f, fact.range) : fact.in;
    if (std::find(list.begin(), list.end(), isa->platform) == list.end()) {
        c.addMadeValue(rule::platformsMismatch,
                       "meta.platforms " + written + " (" + where + ") leaves out " +
                           isa->platform + ", where " + isa->id +
                           " runs: Nix refuses to build it there",
                       fact.range);
        return;
    }
    // CPU-only recipes may list both Linux systems (a documented practice of such
    // repositories), and MPS also runs on Intel Macs; a CUDA build runs on exactly its
    // ISA's system.
    if (e->name.accelerator != Accelerator::Cuda || list.size() == 1)
        return;
    std::vector<std::string> others;
    for (const std::string& platform : list)
        if (platform != isa->platform)
            others.push_back(platform);
    if (!others.empty())
        c.add(rule::platformsWider,
              "meta.platforms " + written + " (" + where + ") also offers " + listText(others) +
                  ", where " + isa->id + " code cannot run",
              fact.range);
}

} // namespace rg
