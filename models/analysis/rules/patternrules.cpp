#include "analysis/rules/patternrules.h"

#include "analysis/rules/recipecheck.h"
#include "analysis/ruleset.h"
#include "matrix/versionspelling.h"

#include <algorithm>

namespace rg {

using namespace ruletext;

void PatternRules::deprecatedTorchAttribute(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    if (f.torchAttribute && f.torchAttribute->value == "pytorch")
        c.add(rule::deprecatedTorchAttribute,
              "uses the deprecated " +
                  (f.pythonPackageSet ? f.pythonPackageSet->value + "." : std::string()) +
                  "pytorch (" + lineOf(f, f.torchAttribute->range) + "); use torch",
              f.torchAttribute->range);
}

void PatternRules::magmaDisabled(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    if (!f.magmaDisabled.empty()) {
        std::string evidence;
        for (size_t i = 0; i < f.magmaDisabled.size() && i < 3; ++i)
            evidence += (i ? ", " : "") + f.magmaDisabled[i].value + " (" +
                        lineOf(f, f.magmaDisabled[i].range) + ")";
        c.add(rule::magmaDisabled, "MAGMA is disabled: " + evidence, f.magmaDisabled.front().range);
    }
}

void PatternRules::pattern(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    const VariantExpectation* e = c.expected();
    const Catalog& catalog = c.catalog();
    if (f.pattern == PatternKind::FromScratch && e->fromSpecFile && e->pattern &&
        e->pattern->kind != PatternKind::FromScratch) {
        std::string evidence =
            f.pname ? " (pname " + inQuotes(f.pname->value) + ", " + lineOf(f, f.pname->range) + ")"
                    : std::string();
        c.add(rule::fromScratchPattern,
              "builds torch from scratch with buildPythonPackage/mkDerivation" + evidence +
                  " instead of overriding nixpkgs' torch as " + e->patternSource + " does",
              f.pname ? f.pname->range : nix::SourceRange{});
    }
    if (e->pattern && f.pattern != PatternKind::FromScratch && f.pattern != PatternKind::Wrapper) {
        std::vector<std::string> missing;
        for (OverlayKind kind : e->pattern->overlays)
            if (kind != OverlayKind::Other &&
                std::none_of(f.overlays.begin(), f.overlays.end(),
                             [&](const OverlayFact& o) { return o.kind == kind; }))
                missing.emplace_back(overlayKindId(kind));
        if (!missing.empty()) {
            std::string names;
            for (size_t i = 0; i < missing.size(); ++i)
                names += (i ? ", " : "") + missing[i];
            const size_t present = f.overlays.size();
            const std::string& canonical = e->pattern->canonicalRecipe;
            c.add(e->fromSpecFile ? rule::missingOverlay : rule::overlayDiffersFromGroup,
                  "missing overlay" + std::string(missing.size() > 1 ? "s" : "") + " " + names +
                      " of " + e->patternSource +
                      (canonical.empty() || canonical == f.fileName
                           ? std::string()
                           : " (as in " + canonical + ")") +
                      "; the recipe has " + std::to_string(present) + " overlay" +
                      (present == 1 ? "" : "s"));
        }
    }
    const VariantName& v = e->name;
    if (v.accelerator == Accelerator::Cuda && !v.cuda.empty() && f.cudaPackageSet) {
        const CudaVersion* selected = catalog.cudaByPackageSet(f.cudaPackageSet->value);
        if (selected && compareVersions(selected->dotted, v.cuda) != 0)
            c.addMadeValue(rule::cudaVersionMismatch,
                           f.cudaPackageSet->value + " (" + whereIs(f, *f.cudaPackageSet) +
                               ") is CUDA " + selected->dotted + ", but the file name says CUDA " +
                               v.cuda,
                           f.cudaPackageSet->range);
    }
}

void PatternRules::versions(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    const VariantExpectation* e = c.expected();
    const VariantName& v = e->name;
    if (f.pythonPackageSet && f.pythonPackageSet->value != "python3Packages") {
        const std::string& set = f.pythonPackageSet->value;
        const std::string digits = set.substr(6, set.size() - 14);
        if (digits != v.python)
            c.addMadeValue(rule::pythonVersionMismatch,
                           set + " (" + whereIs(f, *f.pythonPackageSet) + ") is Python " +
                               dottedPython(digits) + ", but the file name says python" + v.python,
                           f.pythonPackageSet->range);
    } else if (f.pythonPackageSet && e->defaultPython) {
        c.add(rule::pythonDefaultMismatch,
              "python3Packages (" + whereIs(f, *f.pythonPackageSet) +
                  ") is the pin's default Python, and " + e->defaultPythonSource +
                  "; the file name says python" + v.python + ": name python" + v.python +
                  "Packages",
              f.pythonPackageSet->range);
    }
    if (e->fromSpecFile && !e->torchVersion.empty() && f.torchVersion &&
        f.torchVersion->value != e->torchVersion)
        c.add(rule::torchVersionMismatch,
              "builds torch " + f.torchVersion->value + " (" + lineOf(f, f.torchVersion->range) +
                  "), the spec says " + e->torchVersion,
              f.torchVersion->range);
}

void PatternRules::cudaInCpuRecipe(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    const VariantExpectation* e = c.expected();
    const VariantName& v = e->name;
    if (v.accelerator == Accelerator::Cuda)
        return;
    std::string evidence;
    nix::SourceRange range;
    if (f.cudaSupport && f.cudaSupport->value) {
        evidence = "enables CUDA (" + lineOf(f, f.cudaSupport->range) + ")";
        range = f.cudaSupport->range;
    }
    if (!f.cudaInputs.empty()) {
        if (evidence.empty())
            range = f.cudaInputs.front().range;
        evidence += std::string(evidence.empty() ? "" : " and ") + "uses " +
                    f.cudaInputs.front().value + " (" + lineOf(f, f.cudaInputs.front().range) + ")";
        if (f.cudaInputs.size() > 1)
            evidence += " and " + std::to_string(f.cudaInputs.size() - 1) + " more CUDA reference" +
                        (f.cudaInputs.size() > 2 ? "s" : "");
    }
    if (evidence.empty())
        return;
    // Enabling CUDA builds another variant; CUDA packages that are only named (taken as
    // inputs, or filtered out of them) are a risk, not a different build.
    std::string message = std::string(v.accelerator == Accelerator::Cpu ? "CPU-only" : "Darwin") +
                          " recipe " + evidence;
    if (f.cudaSupport && f.cudaSupport->value)
        c.addMadeValue(rule::cpuRecipeEnablesCuda, std::move(message), range);
    else
        c.add(rule::cpuRecipeCudaInputs, std::move(message), range);
}

} // namespace rg
