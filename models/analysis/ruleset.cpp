#include "analysis/ruleset.h"

#include "analysis/rules/archrules.h"
#include "analysis/rules/cellcheck.h"
#include "analysis/rules/cellrules.h"
#include "analysis/rules/cpurules.h"
#include "analysis/rules/feasibilityrules.h"
#include "analysis/rules/filerules.h"
#include "analysis/rules/importrules.h"
#include "analysis/rules/namingrules.h"
#include "analysis/rules/patternrules.h"
#include "analysis/rules/pinrules.h"
#include "analysis/rules/platformrules.h"
#include "analysis/rules/recipecheck.h"
#include "analysis/rules/repositorycheck.h"
#include "analysis/rules/speccheck.h"
#include "analysis/rules/specrules.h"

#include <algorithm>

namespace rg {

namespace {

using S = Severity;
using F = FixKind;

const std::vector<RuleInfo> allRules = {
    {rule::unreadableFile, S::Error, F::None, "unreadable",
     "The file could not be read (the operating system's or git's error is given).",
     &FileRules::problem},
    {rule::symlinkOutside, S::Error, F::None, "symlink leaves the repository",
     "A symbolic link that leads outside the repository is never followed.", &FileRules::problem},
    {rule::notUtf8, S::Error, F::None, "not UTF-8", "Nix files must be valid UTF-8 text.",
     &FileRules::problem},
    {rule::oversizedFile, S::Error, F::None, "oversized",
     "The file is larger than the size limit for recipes and was not read.", &FileRules::problem},
    {rule::syntaxError, S::Error, F::None, "syntax error",
     "Nix would reject the file; the message gives line:column and what was expected.",
     &FileRules::problem},
    {rule::nestedTooDeep, S::Warning, F::None, "too deeply nested to check",
     "The file nests expressions deeper than RecipeGrid's parser follows: Nix may accept it, "
     "but RecipeGrid did not read it, so nothing in it was checked.",
     &FileRules::problem},
    {rule::notAVariantName, S::Info, F::Rename, "not a variant name",
     "The file name does not name a variant (package-pythonXYZ-cudaX_Y-smNN-isa).",
     &CellRules::notAVariantName},
    {rule::naming, S::Info, F::Rename, "non-canonical name",
     "The file name uses a legacy form or spelling (py313, no CUDA component, armv8.2).",
     &NamingRules::naming},
    {rule::unknownToCatalog, S::Info, F::None, "unknown to the catalog",
     "The name uses an arch, CUDA or Python version or ISA word the catalog does not know; "
     "the recipe is still placed in the grid and checked.",
     &NamingRules::naming},
    {rule::nonstandardSuffix, S::Warning, F::Rename, "non-standard suffix",
     "The file name carries a suffix after the ISA (-magma, -nightly) that the naming "
     "convention does not have.",
     &NamingRules::naming},
    {rule::duplicateVariant, S::Warning, F::Delete, "duplicate",
     "Another recipe of the same package already builds the same matrix cell.",
     &CellRules::duplicate},
    {rule::publishedAlias, S::Info, F::None, "published under another name",
     "The recipe wraps the recipe of its own cell and publishes that build under another "
     "package name (pytorch291-…): Nix builds it once more, under the new name.",
     &CellRules::publishedAlias},
    {rule::pinNotFull, S::Warning, F::ReplacePin, "pin not a full revision",
     "The nixpkgs pin is not a full 40-hex commit id, so the build is not reproducible.",
     &PinRules::notFull},
    {rule::pinMismatch, S::Error, F::ReplacePin, "pin differs",
     "The nixpkgs pin differs from the spec's pin for the recipe's CUDA version.", &PinRules::pins},
    {rule::pinDiffersFromGroup, S::Warning, F::ReplacePin, "pin differs from the group",
     "Without a spec: the nixpkgs pin differs from the one most recipes of the same package "
     "and CUDA version use, so their dependency closures differ.",
     &PinRules::pins},
    {rule::pinMissing, S::Warning, F::Regenerate, "no pin",
     "The spec's pattern imports a pinned nixpkgs but the recipe pins none.", &PinRules::pins},
    {rule::invalidHash, S::Error, F::NewHash, "hash Nix rejects",
     "A hash Nix refuses to read before fetching anything (a base-32 SHA-256 whose first digit "
     "is not 0 or 1, a letter outside Nix's base-32, a wrong length, an unknown SRI "
     "algorithm): the source needs a new hash, prefetched.",
     &PinRules::invalidHashes},
    {rule::unpinnedNixpkgs, S::Warning, F::EditValue, "unpinned <nixpkgs>",
     "A pinned recipe also imports <nixpkgs> from the search path, whose contents change "
     "with the machine.",
     &PinRules::unpinned},
    {rule::missingOverlay, S::Error, F::Regenerate, "missing overlays",
     "Overlays the spec's pattern requires are absent (CUDA package set, MAGMA patch, torch "
     "upgrade).",
     &PatternRules::pattern},
    {rule::overlayDiffersFromGroup, S::Warning, F::Regenerate, "overlays differ from the group",
     "Without a spec: the recipe lacks overlays that most recipes of its group (package, CUDA "
     "version and pin) carry.",
     &PatternRules::pattern},
    {rule::importedCellMismatch, S::Error, F::EditValue, "builds on another cell",
     "The recipe imports the recipe of another matrix cell (a torchvision importing the avx512 "
     "torch in an avx2 cell), so it builds on a variant other than its name says.",
     &ImportRules::imports},
    {rule::importedFileMissing, S::Error, F::None, "imported file missing",
     "The recipe imports or callPackages a file of the repository that does not exist, so Nix "
     "stops before building anything.",
     &ImportRules::missingFiles},
    {rule::valuesNotRead, S::Info, F::None, "not checked",
     "Neither the GPU arch nor the compiler flags could be read where they reach the build (a "
     "builder function in a module called with arguments, values read from JSON): the recipe "
     "is not checked for them.",
     &ImportRules::unread},
    {rule::cudaVersionMismatch, S::Error, F::EditValue, "CUDA package set differs",
     "The CUDA package set the recipe selects is not the CUDA version its name says.",
     &PatternRules::pattern},
    {rule::deprecatedTorchAttribute, S::Warning, F::EditValue, "deprecated pytorch attribute",
     "python3Packages.pytorch is a deprecated alias; use python3Packages.torch.",
     &PatternRules::deprecatedTorchAttribute},
    {rule::fromScratchPattern, S::Error, F::Regenerate, "from-scratch pattern",
     "The spec's pattern overrides nixpkgs' torch, but the recipe builds torch from scratch "
     "(buildPythonPackage / mkDerivation).",
     &PatternRules::pattern},
    {rule::magmaDisabled, S::Warning, F::Regenerate, "MAGMA disabled",
     "MAGMA is disabled (USE_MAGMA=OFF, filterMagma): the build works, without MAGMA's "
     "linear algebra on the GPU.",
     &PatternRules::magmaDisabled},
    {rule::pnameMismatch, S::Warning, F::EditValue, "pname differs",
     "pname names another variant than the file does.", &NamingRules::pname},
    {rule::pnamePrefix, S::Info, F::EditValue, "pname prefix differs",
     "pname is the file's variant with another package prefix than the spec's or the group's.",
     &NamingRules::pname},
    {rule::gpuArchMismatch, S::Error, F::EditValue, "GPU arch differs",
     "A GPU-arch sink (gpuTargets, cudaCapabilities, TORCH_CUDA_ARCH_LIST, "
     "CMAKE_CUDA_ARCHITECTURES, -DCOMPUTE_CAPABILITY) gets another architecture than the "
     "file's SM.",
     &ArchRules::gpuArch},
    {rule::gpuArchNotation, S::Error, F::EditValue, "arch notation rejected",
     "A GPU-arch sink gets a notation it rejects (e.g. \"sm_86\" in TORCH_CUDA_ARCH_LIST).",
     &ArchRules::gpuArch},
    {rule::gpuArchExtra, S::Warning, F::EditValue, "more archs",
     "A GPU-arch sink also targets architectures beyond the file's SM: a fat build, bigger and "
     "slower than the variant its name says, doing other cells' work.",
     &ArchRules::gpuArch},
    {rule::cpuFlagsMismatch, S::Error, F::EditValue, "ISA features differ",
     "The compiler flags leave out a feature the file's ISA requires, or enable one that "
     "machines of that ISA lack.",
     &CpuRules::cpu},
    {rule::cpuFlagsBeyond, S::Warning, F::EditValue, "ISA features beyond",
     "The compiler flags build the file's ISA but also enable features that some machines of "
     "it lack and that no other ISA of the catalog is made of (e.g. -march=sapphirerapids for "
     "avx512bf16 also enables AMX): it may stop with an illegal instruction there.",
     &CpuRules::cpu},
    {rule::cpuFlagsWeaker, S::Info, F::EditValue, "fewer ISA features",
     "The compiler flags are a valid build of the ISA without some features its usual flag "
     "set enables (e.g. no -mf16c).",
     &CpuRules::cpu},
    {rule::platformsMismatch, S::Error, F::EditValue, "platforms exclude the ISA's",
     "meta.platforms does not contain the platform of the file's CPU ISA, so Nix refuses to "
     "build it there.",
     &PlatformRules::platforms},
    {rule::platformsWider, S::Warning, F::EditValue, "platforms wider than the ISA",
     "meta.platforms lists systems the file's ISA cannot run on.", &PlatformRules::platforms},
    {rule::cpuRecipeEnablesCuda, S::Error, F::Regenerate, "CUDA in a CPU-only recipe",
     "A CPU-only or Darwin recipe enables CUDA, so it builds another variant.",
     &PatternRules::cudaInCpuRecipe},
    {rule::cpuRecipeCudaInputs, S::Warning, F::Regenerate, "CUDA packages in a CPU-only recipe",
     "A CPU-only or Darwin recipe names CUDA packages without enabling CUDA.",
     &PatternRules::cudaInCpuRecipe},
    {rule::pythonVersionMismatch, S::Error, F::EditValue, "Python set differs",
     "The Python package set is not the file's Python version.", &PatternRules::versions},
    {rule::pythonDefaultMismatch, S::Warning, F::None, "unversioned Python set of another version",
     "The recipe selects python3Packages, the pin's default Python, which most recipes on the "
     "same pin that select it are named for another Python version.",
     &PatternRules::versions},
    {rule::torchVersionMismatch, S::Error, F::Regenerate, "torch version differs",
     "The torch version the recipe builds differs from the spec's.", &PatternRules::versions},
    {rule::cudaBelowMinimum, S::Error, F::Delete, "CUDA cannot target the arch",
     "The CUDA version cannot target the GPU architecture (below its minimum or after it "
     "was dropped).",
     &FeasibilityRules::hardware},
    {rule::packageBelowMinimumArch, S::Warning, F::Delete, "package below its minimum arch",
     "The package does not support GPU architectures this old (vLLM needs 7.0 or newer).",
     &FeasibilityRules::packageLimits},
    {rule::impossiblePairing, S::Warning, F::Delete, "impossible hardware",
     "No machine pairs this GPU with this CPU ISA (e.g. an ARM SoC GPU with an x86 ISA); "
     "reported unless the spec asks for the variant.",
     &FeasibilityRules::hardware},
    {rule::missingVariant, S::Warning, F::Create, "missing",
     "The spec expects this variant but no recipe builds it.", &CellRules::missing},
    {rule::gap, S::Info, F::Create, "gap",
     "Without a spec: a cell the recipes around it suggest, which no recipe builds.",
     &CellRules::gap},
    {rule::unexpectedVariant, S::Warning, F::Delete, "not in the spec",
     "The recipe builds a variant the spec does not expect.", &CellRules::unexpected},
    {rule::specInvalid, S::Error, F::None, "invalid spec",
     "The matrix spec file is invalid; the spec was inferred from the recipes instead.",
     &SpecRules::inferred},
    {rule::specInferred, S::Info, F::None, "spec inferred",
     "No matrix spec file; the expected matrix was inferred from the recipes.",
     &SpecRules::inferred},
    {rule::specAsksImpossible, S::Warning, F::None, "spec asks for what cannot work",
     "The spec asks for variants no machine can run (an ARM SoC GPU with an x86 ISA), that "
     "cannot be built (a CUDA version that cannot target the arch) or below their package's "
     "minimum arch; they stay expected, as the spec decides what is.",
     &SpecRules::asksForImpossible},
    {rule::evalError, S::Error, F::None, "does not evaluate",
     "Nix cannot evaluate the recipe against its pin; Nix's message and position are given.",
     NixAnswer{}},
    {rule::evalArchMismatch, S::Error, F::EditValue, "evaluated arch differs",
     "Evaluated with Nix, the torch build does not get the variant's GPU architecture.",
     NixAnswer{}},
    {rule::evalArchExtra, S::Warning, F::EditValue, "evaluated arch list wider",
     "Evaluated with Nix, the torch build also compiles for GPU architectures the variant "
     "does not name.",
     NixAnswer{}},
    {rule::evalCudaMismatch, S::Error, F::Regenerate, "evaluated CUDA differs",
     "Evaluated with Nix, the torch build uses another CUDA version than the variant's.",
     NixAnswer{}},
    {rule::evalCudaInCpuBuild, S::Error, F::Regenerate, "evaluated CPU build uses CUDA",
     "Evaluated with Nix, a CPU-only variant's torch is built with CUDA support.", NixAnswer{}},
    {rule::evalPythonMismatch, S::Error, F::Regenerate, "evaluated Python differs",
     "Evaluated with Nix, the package is built for another Python than the variant's.",
     NixAnswer{}},
    {rule::evalPlatformsMismatch, S::Error, F::EditValue, "evaluated platforms exclude the ISA's",
     "Evaluated with Nix, meta.platforms does not include the system the variant's ISA runs "
     "on.",
     NixAnswer{}},
    {rule::evalIsaMismatch, S::Error, F::EditValue, "evaluated flags miss the ISA",
     "Evaluated with Nix, the compiler flags the build gets do not make the variant's CPU ISA.",
     NixAnswer{}},
    {rule::evalPnameMismatch, S::Warning, F::EditValue, "evaluated pname differs",
     "Evaluated with Nix, the derivation's pname names another variant than the file does.",
     NixAnswer{}},
    {rule::evalOverrulesStatic, S::Info, F::None, "evaluation overrules the static reading",
     "The static reading found a defect that evaluating the recipe with Nix does not confirm; "
     "Nix's answer stands.",
     NixAnswer{}},
};

// The per-recipe checks in the order they run: findings of equal severity and line keep it.
// Those that need no variant hold for shared modules and oddly named files too.
const std::vector<RecipeRule> anyVariant = {
    &PinRules::notFull, &PinRules::invalidHashes, &PinRules::unpinned,
    &PatternRules::deprecatedTorchAttribute, &PatternRules::magmaDisabled};
const std::vector<RecipeRule> ofTheVariant = {&NamingRules::naming,
                                              &PinRules::pins,
                                              &PatternRules::pattern,
                                              &NamingRules::pname,
                                              &PatternRules::versions,
                                              &ArchRules::gpuArch,
                                              &CpuRules::cpu,
                                              &PlatformRules::platforms,
                                              &PatternRules::cudaInCpuRecipe,
                                              &FeasibilityRules::packageLimits,
                                              &FeasibilityRules::hardware,
                                              &ImportRules::imports,
                                              &ImportRules::unread};
// In the order they always ran: findings of equal severity and line keep it.
const std::vector<RepositoryRule> acrossRecipes = {&ImportRules::inherited,
                                                   &ImportRules::missingFiles};
// Each looks at one placement: their order only matters within one.
const std::vector<CellRule> ofCells = {&CellRules::notAVariantName, &CellRules::publishedAlias,
                                       &CellRules::duplicate,       &CellRules::unexpected,
                                       &CellRules::missing,         &CellRules::gap};
const std::vector<SpecRule> ofTheSpec = {&SpecRules::inferred, &SpecRules::asksForImpossible};

} // namespace

const std::vector<RuleInfo>& RuleSet::rules()
{
    return allRules;
}

const RuleInfo* RuleSet::rule(std::string_view id)
{
    for (const RuleInfo& info : allRules)
        if (info.id == id)
            return &info;
    return nullptr;
}

Finding RuleSet::make(std::string_view id, const RecipeFacts& facts, std::string message,
                      nix::SourceRange range)
{
    Finding finding;
    finding.ruleId = std::string(id);
    if (const RuleInfo* info = rule(id)) {
        finding.severity = info->severity;
        finding.fix = info->fix;
    }
    finding.message = std::move(message);
    finding.file = facts.path;
    finding.range = range;
    if (range.end > range.begin || range.begin > 0) {
        const nix::TextPosition position = facts.position(range.begin);
        finding.line = position.line;
        finding.column = position.column;
    }
    return finding;
}

void RuleSet::sort(std::vector<Finding>& findings)
{
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        if (a.severity != b.severity)
            return static_cast<int>(a.severity) < static_cast<int>(b.severity);
        if (a.file != b.file)
            return a.file < b.file;
        return a.line < b.line;
    });
}

const std::vector<RuleCheck>& RuleSet::checks()
{
    static const std::vector<RuleCheck> all = [] {
        std::vector<RuleCheck> checks{&FileRules::problem};
        checks.insert(checks.end(), anyVariant.begin(), anyVariant.end());
        checks.insert(checks.end(), ofTheVariant.begin(), ofTheVariant.end());
        checks.insert(checks.end(), acrossRecipes.begin(), acrossRecipes.end());
        checks.insert(checks.end(), ofCells.begin(), ofCells.end());
        checks.insert(checks.end(), ofTheSpec.begin(), ofTheSpec.end());
        return checks;
    }();
    return all;
}

std::vector<Finding> RuleSet::check(const RecipeFacts& facts, const VariantExpectation* expected,
                                    const Catalog& catalog, const RecipeFacts* builtBy)
{
    RecipeCheck check(facts, expected, catalog, builtBy);
    // A file that cannot be read or parsed has no facts to judge.
    if (facts.problem != FileProblem::None) {
        FileRules::problem(check);
        return check.take();
    }
    for (RecipeRule rule : anyVariant)
        rule(check);
    if (expected)
        for (RecipeRule rule : ofTheVariant)
            rule(check);
    return check.take();
}

void RuleSet::check(RepositoryCheck& context)
{
    for (RepositoryRule rule : acrossRecipes)
        rule(context);
}

void RuleSet::check(CellCheck& context)
{
    for (CellRule rule : ofCells)
        rule(context);
}

void RuleSet::check(SpecCheck& context)
{
    for (SpecRule rule : ofTheSpec)
        rule(context);
}

} // namespace rg
