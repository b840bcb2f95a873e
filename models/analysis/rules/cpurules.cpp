#include "analysis/rules/cpurules.h"

#include "analysis/rules/recipecheck.h"
#include "analysis/ruleset.h"
#include "matrix/cpufeatureset.h"

#include <algorithm>

namespace rg {

using namespace ruletext;

// Judged by the feature set the flags leave enabled, not by their spelling: "-mavx
// -mno-fma -mno-avx2" is a careful AVX build, "-march=x86-64-v3" is AVX2.
void CpuRules::cpu(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    const VariantExpectation* e = c.expected();
    if (!e->isa || !f.compilerFlags)
        return;
    flags(c, *f.compilerFlags);
    for (const CpuFlagsFact& more : f.moreCompilerFlags)
        flags(c, more);
}

void CpuRules::flags(RecipeCheck& c, const CpuFlagsFact& flags)
{
    const RecipeFacts& f = c.facts();
    const VariantExpectation* e = c.expected();
    const CpuIsa* isa = e->isa;
    if (flags.flags.empty())
        return;
    const std::shared_ptr<const CpuFeatureSet> shared = CpuFeatureSet::shared(flags.flags);
    const CpuFeatureSet& features = *shared;
    const IsaVerdict verdict = features.judge(*isa);
    if (verdict.unknownBaseline)
        return; // -march=native: what it enables depends on the building machine
    // Flags read in a builder module have no range in the recipe, only where written.
    std::vector<std::string> parts;
    if (flags.range.length() > 0 || flags.writtenIn.empty())
        parts.push_back(lineOf(f, flags.range));
    if (!flags.sink.empty())
        parts.push_back("reaching " + flags.sink +
                        (flags.via.empty() ? std::string() : " through " + flags.via));
    if (!flags.writtenIn.empty())
        parts.push_back("written in " + flags.writtenIn);
    std::string where = listText(flags.flags) + " (";
    for (size_t i = 0; i < parts.size(); ++i)
        where += (i ? ", " : "") + parts[i];
    where += ")";
    auto names = [](const std::vector<std::string>& items) {
        std::string text;
        for (size_t i = 0; i < items.size(); ++i)
            text += (i ? ", " : "") + items[i];
        return text;
    };
    const bool anotherIsa = std::any_of(
        verdict.forbiddenEnabled.begin(), verdict.forbiddenEnabled.end(),
        [&](const std::string& feature) { return definesAnotherIsa(c.catalog(), *isa, feature); });
    if (verdict.missingRequired.empty() && !verdict.forbiddenEnabled.empty() && !anotherIsa) {
        c.add(rule::cpuFlagsBeyond,
              "compiler flags " + where + " also enable " + names(verdict.forbiddenEnabled) +
                  ", which some machines of " + isa->id +
                  " lack: the build may stop with an illegal instruction there; " + isa->id +
                  "'s flags are " + listText(isa->flags),
              flags.range);
    } else if (!verdict.missingRequired.empty() || !verdict.forbiddenEnabled.empty()) {
        std::string why;
        if (!verdict.missingRequired.empty())
            why =
                "leave out " + names(verdict.missingRequired) + ", which " + isa->id + " requires";
        if (!verdict.forbiddenEnabled.empty())
            why += std::string(why.empty() ? "" : ", and ") + "enable " +
                   names(verdict.forbiddenEnabled) + ", which machines of " + isa->id + " may lack";
        c.addMadeValue(rule::cpuFlagsMismatch,
                       "compiler flags " + where + " " + why + " (" + features.describe() + "); " +
                           isa->id + "'s flags are " + listText(isa->flags),
                       flags.range);
    } else if (!verdict.missingRecommended.empty()) {
        c.add(rule::cpuFlagsWeaker,
              "compiler flags " + where + " build " + isa->id + " without " +
                  names(verdict.missingRecommended) + ", which " + listText(isa->flags) +
                  " enables",
              flags.range);
    }
}

// A feature that another ISA of the family is made of (requires or builds with) and
// `isa` does not require: enabling it builds that ISA's variant (x86-64-v4 in an avx2
// recipe is avx512; -mfma in an avx one is avx2's). Features no ISA is made of (AMX,
// AVX512-FP16) only narrow the machines the build runs on.
bool CpuRules::definesAnotherIsa(const Catalog& catalog, const CpuIsa& isa,
                                 const std::string& feature)
{
    auto in = [&](const std::vector<std::string>& features) {
        return std::ranges::count(features, feature) > 0;
    };
    return !in(isa.requiredFeatures) &&
           std::ranges::any_of(catalog.isas(), [&](const CpuIsa& other) {
               return other.id != isa.id && other.family == isa.family &&
                      (in(other.requiredFeatures) || in(other.recommendedFeatures));
           });
}

} // namespace rg
