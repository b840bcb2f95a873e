#include "recipes/ruleset.h"

#include "matrix/cpufeatureset.h"
#include "matrix/versionspelling.h"
#include "nix/nixhash.h"
#include "recipes/archnotation.h"

#include <algorithm>
#include <set>

namespace rg {

namespace {

using S = Severity;
using F = FixKind;

const std::vector<RuleInfo> allRules = {
    {rule::unreadableFile, S::Error, F::None, "unreadable",
     "The file could not be read (the operating system's or git's error is given)."},
    {rule::symlinkOutside, S::Error, F::None, "symlink leaves the repository",
     "A symbolic link that leads outside the repository is never followed."},
    {rule::notUtf8, S::Error, F::None, "not UTF-8", "Nix files must be valid UTF-8 text."},
    {rule::oversizedFile, S::Error, F::None, "oversized",
     "The file is larger than the size limit for recipes and was not read."},
    {rule::syntaxError, S::Error, F::None, "syntax error",
     "Nix would reject the file; the message gives line:column and what was expected."},
    {rule::notAVariantName, S::Info, F::Rename, "not a variant name",
     "The file name does not name a variant (package-pythonXYZ-cudaX_Y-smNN-isa)."},
    {rule::naming, S::Info, F::Rename, "non-canonical name",
     "The file name uses a legacy form or spelling (py313, no CUDA component, armv8.2)."},
    {rule::unknownToCatalog, S::Info, F::None, "unknown to the catalog",
     "The name uses an arch, CUDA or Python version or ISA word the catalog does not know; "
     "the recipe is still placed in the grid and checked."},
    {rule::nonstandardSuffix, S::Warning, F::Rename, "non-standard suffix",
     "The file name carries a suffix after the ISA (-magma, -nightly) that the naming "
     "convention does not have."},
    {rule::duplicateVariant, S::Warning, F::Delete, "duplicate",
     "Another recipe of the same package already builds the same matrix cell."},
    {rule::publishedAlias, S::Info, F::None, "published under another name",
     "The recipe wraps the recipe of its own cell and publishes that build under another "
     "package name (pytorch291-…): Nix builds it once more, under the new name."},
    {rule::pinNotFull, S::Warning, F::ReplacePin, "pin not a full revision",
     "The nixpkgs pin is not a full 40-hex commit id, so the build is not reproducible."},
    {rule::pinMismatch, S::Error, F::ReplacePin, "pin differs",
     "The nixpkgs pin differs from the spec's pin for the recipe's CUDA version."},
    {rule::pinDiffersFromGroup, S::Warning, F::ReplacePin, "pin differs from the group",
     "Without a spec: the nixpkgs pin differs from the one most recipes of the same package "
     "and CUDA version use, so their dependency closures differ."},
    {rule::pinMissing, S::Warning, F::Regenerate, "no pin",
     "The spec's pattern imports a pinned nixpkgs but the recipe pins none."},
    {rule::invalidHash, S::Error, F::NewHash, "hash Nix rejects",
     "A hash Nix refuses to read before fetching anything (a base-32 SHA-256 whose first digit "
     "is not 0 or 1, a letter outside Nix's base-32, a wrong length, an unknown SRI "
     "algorithm): the source needs a new hash, prefetched."},
    {rule::unpinnedNixpkgs, S::Warning, F::EditValue, "unpinned <nixpkgs>",
     "A pinned recipe also imports <nixpkgs> from the search path, whose contents change "
     "with the machine."},
    {rule::missingOverlay, S::Error, F::Regenerate, "missing overlays",
     "Overlays the spec's pattern requires are absent (CUDA package set, MAGMA patch, torch "
     "upgrade)."},
    {rule::overlayDiffersFromGroup, S::Warning, F::Regenerate, "overlays differ from the group",
     "Without a spec: the recipe lacks overlays that most recipes of its group (package, CUDA "
     "version and pin) carry."},
    {rule::importedCellMismatch, S::Error, F::EditValue, "builds on another cell",
     "The recipe imports the recipe of another matrix cell (a torchvision importing the avx512 "
     "torch in an avx2 cell), so it builds on a variant other than its name says."},
    {rule::importedFileMissing, S::Error, F::None, "imported file missing",
     "The recipe imports or callPackages a file of the repository that does not exist, so Nix "
     "stops before building anything."},
    {rule::valuesNotRead, S::Info, F::None, "not checked",
     "Neither the GPU arch nor the compiler flags could be read where they reach the build (a "
     "builder function in a module called with arguments, values read from JSON): the recipe "
     "is not checked for them."},
    {rule::cudaVersionMismatch, S::Error, F::EditValue, "CUDA package set differs",
     "The CUDA package set the recipe selects is not the CUDA version its name says."},
    {rule::deprecatedTorchAttribute, S::Warning, F::EditValue, "deprecated pytorch attribute",
     "python3Packages.pytorch is a deprecated alias; use python3Packages.torch."},
    {rule::fromScratchPattern, S::Error, F::Regenerate, "from-scratch pattern",
     "The spec's pattern overrides nixpkgs' torch, but the recipe builds torch from scratch "
     "(buildPythonPackage / mkDerivation)."},
    {rule::magmaDisabled, S::Warning, F::Regenerate, "MAGMA disabled",
     "MAGMA is disabled (USE_MAGMA=OFF, filterMagma): the build works, without MAGMA's "
     "linear algebra on the GPU."},
    {rule::pnameMismatch, S::Warning, F::EditValue, "pname differs",
     "pname names another variant than the file does."},
    {rule::pnamePrefix, S::Info, F::EditValue, "pname prefix differs",
     "pname is the file's variant with another package prefix than the spec's or the group's."},
    {rule::gpuArchMismatch, S::Error, F::EditValue, "GPU arch differs",
     "A GPU-arch sink (gpuTargets, cudaCapabilities, TORCH_CUDA_ARCH_LIST, "
     "CMAKE_CUDA_ARCHITECTURES, -DCOMPUTE_CAPABILITY) gets another architecture than the "
     "file's SM."},
    {rule::gpuArchNotation, S::Error, F::EditValue, "arch notation rejected",
     "A GPU-arch sink gets a notation it rejects (e.g. \"sm_86\" in TORCH_CUDA_ARCH_LIST)."},
    {rule::gpuArchExtra, S::Warning, F::EditValue, "more archs",
     "A GPU-arch sink also targets architectures beyond the file's SM: a fat build, bigger and "
     "slower than the variant its name says, doing other cells' work."},
    {rule::cpuFlagsMismatch, S::Error, F::EditValue, "ISA features differ",
     "The compiler flags leave out a feature the file's ISA requires, or enable one that "
     "machines of that ISA lack."},
    {rule::cpuFlagsBeyond, S::Warning, F::EditValue, "ISA features beyond",
     "The compiler flags build the file's ISA but also enable features that some machines of "
     "it lack and that no other ISA of the catalog is made of (e.g. -march=sapphirerapids for "
     "avx512bf16 also enables AMX): it may stop with an illegal instruction there."},
    {rule::cpuFlagsWeaker, S::Info, F::EditValue, "fewer ISA features",
     "The compiler flags are a valid build of the ISA without some features its usual flag "
     "set enables (e.g. no -mf16c)."},
    {rule::platformsMismatch, S::Error, F::EditValue, "platforms exclude the ISA's",
     "meta.platforms does not contain the platform of the file's CPU ISA, so Nix refuses to "
     "build it there."},
    {rule::platformsWider, S::Warning, F::EditValue, "platforms wider than the ISA",
     "meta.platforms lists systems the file's ISA cannot run on."},
    {rule::cpuRecipeEnablesCuda, S::Error, F::Regenerate, "CUDA in a CPU-only recipe",
     "A CPU-only or Darwin recipe enables CUDA, so it builds another variant."},
    {rule::cpuRecipeCudaInputs, S::Warning, F::Regenerate, "CUDA packages in a CPU-only recipe",
     "A CPU-only or Darwin recipe names CUDA packages without enabling CUDA."},
    {rule::pythonVersionMismatch, S::Error, F::EditValue, "Python set differs",
     "The Python package set is not the file's Python version."},
    {rule::pythonDefaultMismatch, S::Warning, F::None, "unversioned Python set of another version",
     "The recipe selects python3Packages, the pin's default Python, which most recipes on the "
     "same pin that select it are named for another Python version."},
    {rule::torchVersionMismatch, S::Error, F::Regenerate, "torch version differs",
     "The torch version the recipe builds differs from the spec's."},
    {rule::cudaBelowMinimum, S::Error, F::Delete, "CUDA cannot target the arch",
     "The CUDA version cannot target the GPU architecture (below its minimum or after it "
     "was dropped)."},
    {rule::packageBelowMinimumArch, S::Warning, F::Delete, "package below its minimum arch",
     "The package does not support GPU architectures this old (vLLM needs 7.0 or newer)."},
    {rule::impossiblePairing, S::Warning, F::Delete, "impossible hardware",
     "No machine pairs this GPU with this CPU ISA (e.g. an ARM SoC GPU with an x86 ISA); "
     "reported unless the spec asks for the variant."},
    {rule::missingVariant, S::Warning, F::Create, "missing",
     "The spec expects this variant but no recipe builds it."},
    {rule::gap, S::Info, F::Create, "gap",
     "Without a spec: a cell the recipes around it suggest, which no recipe builds."},
    {rule::unexpectedVariant, S::Warning, F::Delete, "not in the spec",
     "The recipe builds a variant the spec does not expect."},
    {rule::specInvalid, S::Error, F::None, "invalid spec",
     "The matrix spec file is invalid; the spec was inferred from the recipes instead."},
    {rule::specInferred, S::Info, F::None, "spec inferred",
     "No matrix spec file; the expected matrix was inferred from the recipes."},
    {rule::evalError, S::Error, F::None, "does not evaluate",
     "Nix cannot evaluate the recipe against its pin; Nix's message and position are given."},
    {rule::evalArchMismatch, S::Error, F::EditValue, "evaluated arch differs",
     "Evaluated with Nix, the torch build does not get the variant's GPU architecture."},
    {rule::evalArchExtra, S::Warning, F::EditValue, "evaluated arch list wider",
     "Evaluated with Nix, the torch build also compiles for GPU architectures the variant "
     "does not name."},
    {rule::evalCudaMismatch, S::Error, F::Regenerate, "evaluated CUDA differs",
     "Evaluated with Nix, the torch build uses another CUDA version than the variant's."},
    {rule::evalCudaInCpuBuild, S::Error, F::Regenerate, "evaluated CPU build uses CUDA",
     "Evaluated with Nix, a CPU-only variant's torch is built with CUDA support."},
    {rule::evalPythonMismatch, S::Error, F::Regenerate, "evaluated Python differs",
     "Evaluated with Nix, the package is built for another Python than the variant's."},
    {rule::evalPlatformsMismatch, S::Error, F::EditValue, "evaluated platforms exclude the ISA's",
     "Evaluated with Nix, meta.platforms does not include the system the variant's ISA runs "
     "on."},
    {rule::evalIsaMismatch, S::Error, F::EditValue, "evaluated flags miss the ISA",
     "Evaluated with Nix, the compiler flags the build gets do not make the variant's CPU ISA."},
    {rule::evalPnameMismatch, S::Warning, F::EditValue, "evaluated pname differs",
     "Evaluated with Nix, the derivation's pname names another variant than the file does."},
    {rule::evalOverrulesStatic, S::Info, F::None, "evaluation overrules the static reading",
     "The static reading found a defect that evaluating the recipe with Nix does not confirm; "
     "Nix's answer stands."},
};

std::string inQuotes(std::string_view text)
{
    return "\"" + std::string(text) + "\"";
}

std::string listText(const std::vector<std::string>& items)
{
    std::string text = "[";
    for (size_t i = 0; i < items.size(); ++i) {
        if (i)
            text += ' ';
        text += inQuotes(items[i]);
    }
    return text + "]";
}

std::string lineOf(const RecipeFacts& facts, nix::SourceRange range)
{
    return "line " + std::to_string(facts.position(range.begin).line);
}

// Where a pin is written: "line 11", or "written in .flox/pkgs/lib/pin.nix:7" for a module's.
std::string whereIs(const RecipeFacts& facts, const PinFact& pin)
{
    return pin.file.empty() ? lineOf(facts, pin.range)
                            : "written in " + pin.file + ":" + std::to_string(pin.line);
}

// Where a fact is: "line 11", or where a builder module makes it.
template <typename T> std::string whereIs(const RecipeFacts& facts, const Fact<T>& fact)
{
    return fact.in.empty() ? lineOf(facts, fact.range) : fact.in;
}

// A finding's range in the recipe: none for a pin written in a module.
nix::SourceRange rangeOf(const PinFact& pin)
{
    return pin.file.empty() ? pin.range : nix::SourceRange{};
}

class Checker
{
public:
    Checker(const RecipeFacts& facts, const VariantExpectation* expected, const Catalog& catalog)
        : f(facts), e(expected), catalog(catalog)
    {}

    std::vector<Finding> run()
    {
        if (fileProblem())
            return std::move(out);
        patternIndependent();
        if (e) {
            naming();
            pins();
            pattern();
            values();
            gpuArch();
            cpu();
            platforms();
            cudaInCpuRecipe();
            packageLimits();
            hardware();
            imports();
            unread();
        }
        RuleSet::sort(out);
        return std::move(out);
    }

private:
    void add(std::string_view id, std::string message, nix::SourceRange range = {})
    {
        // A recipe derived from a sibling with `.override` that states a wrong value nowhere
        // in itself: the value is what its overrides leave to the base.
        static const std::set<std::string_view> madeValues = {
            rule::gpuArchMismatch,     rule::gpuArchNotation,       rule::cpuFlagsMismatch,
            rule::platformsMismatch,   rule::pythonVersionMismatch, rule::cudaVersionMismatch,
            rule::cpuRecipeEnablesCuda};
        if (!f.derivedFrom.empty() && !f.builderModule.empty() && madeValues.count(id) &&
            message.find(f.path) == std::string::npos)
            message += "; this recipe overrides " + f.derivedFrom.front() +
                       " and leaves what makes this value to it";
        out.push_back(RuleSet::make(id, f, std::move(message), range));
    }

    bool fileProblem()
    {
        switch (f.problem) {
        case FileProblem::None:
            return false;
        case FileProblem::Unreadable:
            add(rule::unreadableFile, "cannot read " + f.path + ": " + f.problemDetail);
            return true;
        case FileProblem::Symlink:
            add(rule::symlinkOutside, f.path + ": " + f.problemDetail);
            return true;
        case FileProblem::NotUtf8:
            add(rule::notUtf8, f.path + ": " + f.problemDetail);
            return true;
        case FileProblem::Oversized:
            add(rule::oversizedFile, f.path + ": " + f.problemDetail);
            return true;
        case FileProblem::SyntaxError: {
            Finding finding = RuleSet::make(
                rule::syntaxError, f,
                f.parseError
                    ? "syntax error at " + std::to_string(f.parseError->line) + ":" +
                          std::to_string(f.parseError->column) + ": " + f.parseError->message
                    : "syntax error: " + f.problemDetail);
            if (f.parseError) {
                finding.range = {f.parseError->offset, f.parseError->offset};
                finding.line = f.parseError->line;
                finding.column = f.parseError->column;
            }
            out.push_back(std::move(finding));
            return true;
        }
        }
        return false;
    }

    // Rules that need no variant: they hold for shared modules and oddly named files too.
    void patternIndependent()
    {
        for (const PinFact& pin : f.pins)
            if (!isFullRevision(pin.revision))
                add(rule::pinNotFull,
                    "nixpkgs pin '" + pin.revision + "' is not a full 40-hex commit id (" +
                        whereIs(f, pin) + ")",
                    rangeOf(pin));
        invalidHashes();
        if (!f.pins.empty() && !f.unpinnedImports.empty())
            add(rule::unpinnedNixpkgs,
                "imports " + f.unpinnedImports.front().value + " (" +
                    lineOf(f, f.unpinnedImports.front().range) + ") next to the pinned nixpkgs " +
                    shortRevision(f.pins.front().revision) + " (" + whereIs(f, f.pins.front()) +
                    "): that part follows whatever nixpkgs the building machine has",
                f.unpinnedImports.front().range);
        if (f.torchAttribute && f.torchAttribute->value == "pytorch")
            add(rule::deprecatedTorchAttribute,
                "uses the deprecated " +
                    (f.pythonPackageSet ? f.pythonPackageSet->value + "." : std::string()) +
                    "pytorch (" + lineOf(f, f.torchAttribute->range) + "); use torch",
                f.torchAttribute->range);
        if (!f.magmaDisabled.empty()) {
            std::string evidence;
            for (size_t i = 0; i < f.magmaDisabled.size() && i < 3; ++i)
                evidence += (i ? ", " : "") + f.magmaDisabled[i].value + " (" +
                            lineOf(f, f.magmaDisabled[i].range) + ")";
            add(rule::magmaDisabled, "MAGMA is disabled: " + evidence,
                f.magmaDisabled.front().range);
        }
    }

    void invalidHashes()
    {
        for (const HashFact& hash : f.hashes)
            if (const std::string problem = nix::NixHash::problem(hash.attribute, hash.value);
                !problem.empty())
                add(rule::invalidHash,
                    hash.attribute + " \"" + hash.value + "\" (" + lineOf(f, hash.range) +
                        ") is refused by Nix: " + problem + "; the source needs a new hash",
                    hash.range);
    }

    void naming()
    {
        const VariantName& v = e->name;
        if (!v.isaAsWritten.empty() && v.isaAsWritten != v.isa)
            add(rule::naming, "file name writes the ISA as '" + v.isaAsWritten +
                                  "'; the convention is '" + v.isa + "' (" + v.toString() +
                                  ".nix)");
        else if (v.legacyForm)
            add(rule::naming,
                "legacy name form '" + f.fileName + "'; canonical names spell python" + v.python +
                    (v.accelerator == Accelerator::Cuda ? " and the CUDA version (cudaX_Y)"
                                                        : std::string()));
        std::vector<std::string> unknown;
        if (!v.isa.empty() && !catalog.isa(v.isa))
            unknown.push_back("CPU ISA '" + v.isa + "'");
        if (v.accelerator == Accelerator::Cuda && !catalog.gpuArch(v.gpuArch))
            unknown.push_back("GPU architecture '" + v.gpuArch + "'");
        if (!catalog.python(v.python))
            unknown.push_back("Python version '" + v.python + "'");
        if (v.accelerator == Accelerator::Cuda && !v.cuda.empty() && !catalog.cuda(v.cuda))
            unknown.push_back("CUDA version '" + v.cuda + "'");
        if (!unknown.empty()) {
            std::string text;
            for (size_t i = 0; i < unknown.size(); ++i)
                text += (i ? ", " : "") + unknown[i];
            add(rule::unknownToCatalog,
                "the catalog does not know the " + text +
                    " of this name; the recipe is checked without what the catalog would add "
                    "(a spec can declare it)");
        }
        if (!v.suffixes.empty()) {
            std::string suffix;
            for (const std::string& s : v.suffixes)
                suffix += '-' + s;
            VariantName plain = v;
            plain.suffixes.clear();
            add(rule::nonstandardSuffix, "non-standard suffix '" + suffix +
                                             "' after the ISA; the variant is " + plain.toString());
        }
    }

    void pins()
    {
        if (e->pin)
            for (const PinFact& pin : f.pins) {
                if (!isFullRevision(pin.revision) || pin.revision == *e->pin)
                    continue;
                add(e->fromSpecFile ? rule::pinMismatch : rule::pinDiffersFromGroup,
                    "nixpkgs pin " + pin.revision + " (" + whereIs(f, pin) + ") differs from " +
                        e->pinSource + ", " + *e->pin,
                    rangeOf(pin));
            }
        if (!e->fromSpecFile || !f.pins.empty() || f.pattern == PatternKind::FromScratch ||
            f.pattern == PatternKind::Wrapper || !e->pattern)
            return;
        if (e->pattern->kind == PatternKind::PinnedOverlays ||
            e->pattern->kind == PatternKind::PinnedPlain)
            add(rule::pinMissing, e->patternSource + " imports a pinned nixpkgs" +
                                      (e->pin ? " (" + *e->pin + ")" : std::string()) +
                                      ", but the recipe pins none");
    }

    void pattern()
    {
        if (f.pattern == PatternKind::FromScratch && e->fromSpecFile && e->pattern &&
            e->pattern->kind != PatternKind::FromScratch) {
            std::string evidence = f.pname ? " (pname " + inQuotes(f.pname->value) + ", " +
                                                 lineOf(f, f.pname->range) + ")"
                                           : std::string();
            add(rule::fromScratchPattern,
                "builds torch from scratch with buildPythonPackage/mkDerivation" + evidence +
                    " instead of overriding nixpkgs' torch as " + e->patternSource + " does",
                f.pname ? f.pname->range : nix::SourceRange{});
        }
        if (e->pattern && f.pattern != PatternKind::FromScratch &&
            f.pattern != PatternKind::Wrapper) {
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
                add(e->fromSpecFile ? rule::missingOverlay : rule::overlayDiffersFromGroup,
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
                add(rule::cudaVersionMismatch,
                    f.cudaPackageSet->value + " (" + whereIs(f, *f.cudaPackageSet) + ") is CUDA " +
                        selected->dotted + ", but the file name says CUDA " + v.cuda,
                    f.cudaPackageSet->range);
        }
    }

    void values()
    {
        const VariantName& v = e->name;
        if (f.pname) {
            const std::string stem = f.fileName.size() > 4 && f.fileName.ends_with(".nix")
                                         ? f.fileName.substr(0, f.fileName.size() - 4)
                                         : f.fileName;
            const std::string& pname = f.pname->value;
            if (pname != stem && pname != e->pname) {
                const auto named = VariantName::parse(pname);
                const bool sameCell = named && named->cellKey() == v.cellKey();
                add(sameCell ? rule::pnamePrefix : rule::pnameMismatch,
                    "pname " + inQuotes(pname) + " (" + lineOf(f, f.pname->range) + ") " +
                        (sameCell ? "names this variant with another prefix than "
                                  : "names another variant than ") +
                        "the file " + inQuotes(stem) +
                        (e->pname != stem ? " or " + inQuotes(e->pname) : std::string()),
                    f.pname->range);
            }
        }
        if (f.pythonPackageSet && f.pythonPackageSet->value != "python3Packages") {
            const std::string& set = f.pythonPackageSet->value;
            const std::string digits = set.substr(6, set.size() - 14);
            if (digits != v.python)
                add(rule::pythonVersionMismatch,
                    set + " (" + whereIs(f, *f.pythonPackageSet) + ") is Python " +
                        dottedPython(digits) + ", but the file name says python" + v.python,
                    f.pythonPackageSet->range);
        } else if (f.pythonPackageSet && e->defaultPython) {
            add(rule::pythonDefaultMismatch,
                "python3Packages (" + whereIs(f, *f.pythonPackageSet) +
                    ") is the pin's default Python, and " + e->defaultPythonSource +
                    "; the file name says python" + v.python + ": name python" + v.python +
                    "Packages",
                f.pythonPackageSet->range);
        }
        if (e->fromSpecFile && !e->torchVersion.empty() && f.torchVersion &&
            f.torchVersion->value != e->torchVersion)
            add(rule::torchVersionMismatch,
                "builds torch " + f.torchVersion->value + " (" + lineOf(f, f.torchVersion->range) +
                    "), the spec says " + e->torchVersion,
                f.torchVersion->range);
    }

    // "\"12.0\" (line 48, via gpuArchSM)" — where the entry is written and what it came through.
    std::string origin(const ArchSinkFact& entry) const
    {
        std::vector<std::string> where;
        if (entry.sinkIn.empty())
            where.push_back(lineOf(f, entry.range)); // else no range of it is in the recipe
        if (!entry.via.empty())
            where.push_back("bound to " + entry.via);
        if (!entry.writtenIn.empty())
            where.push_back("written in " + entry.writtenIn);
        std::string text;
        for (const std::string& part : where)
            text += (text.empty() ? "" : ", ") + part;
        return inQuotes(entry.value) + " (" + text + ")";
    }

    std::string sinkAt(const ArchSinkFact& entry) const
    {
        return std::string(archSinkName(entry.sink)) + " (" +
               (entry.sinkIn.empty() ? lineOf(f, entry.sinkRange) : "in " + entry.sinkIn) + ")";
    }

    void gpuArch()
    {
        const VariantName& v = e->name;
        if (v.accelerator != Accelerator::Cuda || e->archNumber.empty())
            return;
        // One finding per written value: a binding that feeds two sinks is one mistake.
        struct Verdict
        {
            std::string_view id;
            std::vector<std::string> sinks;
            std::string text;
            nix::SourceRange range;
        };
        std::vector<Verdict> verdicts;
        auto note = [&](std::string_view id, const ArchSinkFact& entry, std::string text) {
            for (Verdict& verdict : verdicts)
                if (verdict.id == id && verdict.range == entry.range && verdict.text == text) {
                    verdict.sinks.push_back(sinkAt(entry));
                    return;
                }
            verdicts.push_back({id, {sinkAt(entry)}, std::move(text), entry.range});
        };
        for (size_t i = 0; i < f.archSinks.size(); ++i) {
            const ArchSinkFact& entry = f.archSinks[i];
            const ArchReading reading = ArchNotation::read(entry.sink, entry.value);
            // In the sink's notation and the form the group's canonical recipe writes there.
            const auto form = e->archSuffixes.find(std::string(archSinkName(entry.sink)));
            const std::string right =
                ArchNotation::write(entry.sink, e->archNumber) +
                (form == e->archSuffixes.end() ? std::string() : form->second);
            if (!reading.accepted) {
                note(rule::gpuArchNotation, entry,
                     origin(entry) + ", which it rejects: it takes " +
                         std::string(ArchNotation::accepts(entry.sink)) + "; write " +
                         inQuotes(right));
                continue;
            }
            if (reading.denotesAny)
                continue;
            // The sink is right when any of its entries names the variant's arch.
            bool sinkHasArch = false;
            for (const ArchSinkFact& other : f.archSinks)
                if (other.sinkRange == entry.sinkRange && other.sinkIn == entry.sinkIn) {
                    const ArchReading r = ArchNotation::read(other.sink, other.value);
                    sinkHasArch = sinkHasArch || std::find(r.numbers.begin(), r.numbers.end(),
                                                           e->archNumber) != r.numbers.end();
                }
            const bool names = std::find(reading.numbers.begin(), reading.numbers.end(),
                                         e->archNumber) != reading.numbers.end();
            if (names)
                continue;
            const std::string denotes =
                reading.numbers.size() == 1 ? "sm" + reading.numbers.front() : "other archs";
            if (sinkHasArch)
                note(rule::gpuArchExtra, entry,
                     origin(entry) + ": it also builds for " + denotes + ", not only " + v.gpuArch +
                         " (a fat build, where each cell builds its own arch)");
            else
                note(rule::gpuArchMismatch, entry,
                     origin(entry) + ": that is " + denotes + ", but the file builds " + v.gpuArch +
                         "; write " + inQuotes(right));
        }
        for (const Verdict& verdict : verdicts) {
            std::string sinks;
            for (size_t i = 0; i < verdict.sinks.size(); ++i)
                sinks += (i == 0                          ? ""
                          : i + 1 == verdict.sinks.size() ? " and "
                                                          : ", ") +
                         verdict.sinks[i];
            add(verdict.id, sinks + (verdict.sinks.size() > 1 ? " get " : " gets ") + verdict.text,
                verdict.range);
        }
    }

    // Judged by the feature set the flags leave enabled, not by their spelling: "-mavx
    // -mno-fma -mno-avx2" is a careful AVX build, "-march=x86-64-v3" is AVX2.
    void cpu()
    {
        if (!e->isa || !f.compilerFlags)
            return;
        cpuFlags(*f.compilerFlags);
        for (const CpuFlagsFact& more : f.moreCompilerFlags)
            cpuFlags(more);
    }

    void cpuFlags(const CpuFlagsFact& flags)
    {
        const CpuIsa* isa = e->isa;
        if (flags.flags.empty())
            return;
        const CpuFeatureSet features(flags.flags);
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
            [&](const std::string& feature) { return definesAnotherIsa(*isa, feature); });
        if (verdict.missingRequired.empty() && !verdict.forbiddenEnabled.empty() && !anotherIsa) {
            add(rule::cpuFlagsBeyond,
                "compiler flags " + where + " also enable " + names(verdict.forbiddenEnabled) +
                    ", which some machines of " + isa->id +
                    " lack: the build may stop with an illegal instruction there; " + isa->id +
                    "'s flags are " + listText(isa->flags),
                flags.range);
        } else if (!verdict.missingRequired.empty() || !verdict.forbiddenEnabled.empty()) {
            std::string why;
            if (!verdict.missingRequired.empty())
                why = "leave out " + names(verdict.missingRequired) + ", which " + isa->id +
                      " requires";
            if (!verdict.forbiddenEnabled.empty())
                why += std::string(why.empty() ? "" : ", and ") + "enable " +
                       names(verdict.forbiddenEnabled) + ", which machines of " + isa->id +
                       " may lack";
            add(rule::cpuFlagsMismatch,
                "compiler flags " + where + " " + why + " (" + features.describe() + "); " +
                    isa->id + "'s flags are " + listText(isa->flags),
                flags.range);
        } else if (!verdict.missingRecommended.empty()) {
            add(rule::cpuFlagsWeaker,
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
    bool definesAnotherIsa(const CpuIsa& isa, const std::string& feature) const
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

    void platforms()
    {
        const CpuIsa* isa = e->isa;
        // MPS runs on Apple silicon and on Intel Macs alike, as meta.platforms allows too.
        const bool sameFamily = isa && isa->family == CpuFamily::Apple && f.nixpkgsSystem &&
                                f.nixpkgsSystem->value.ends_with("-darwin");
        if (isa && !isa->platform.empty() && f.nixpkgsSystem &&
            f.nixpkgsSystem->value != isa->platform && !sameFamily)
            add(rule::platformsMismatch,
                "imports nixpkgs for " + f.nixpkgsSystem->value + " (" +
                    whereIs(f, *f.nixpkgsSystem) + "), so it builds for that system; " + isa->id +
                    " runs on " + isa->platform,
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
            add(rule::platformsMismatch,
                "meta.platforms " + written + " (" + where + ") leaves out " + isa->platform +
                    ", where " + isa->id + " runs: Nix refuses to build it there",
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
            add(rule::platformsWider,
                "meta.platforms " + written + " (" + where + ") also offers " + listText(others) +
                    ", where " + isa->id + " code cannot run",
                fact.range);
    }

    void cudaInCpuRecipe()
    {
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
                        f.cudaInputs.front().value + " (" + lineOf(f, f.cudaInputs.front().range) +
                        ")";
            if (f.cudaInputs.size() > 1)
                evidence += " and " + std::to_string(f.cudaInputs.size() - 1) +
                            " more CUDA reference" + (f.cudaInputs.size() > 2 ? "s" : "");
        }
        if (evidence.empty())
            return;
        // Enabling CUDA builds another variant; CUDA packages that are only named (taken as
        // inputs, or filtered out of them) are a risk, not a different build.
        add(f.cudaSupport && f.cudaSupport->value ? rule::cpuRecipeEnablesCuda
                                                  : rule::cpuRecipeCudaInputs,
            std::string(v.accelerator == Accelerator::Cpu ? "CPU-only" : "Darwin") + " recipe " +
                evidence,
            range);
    }

    void packageLimits()
    {
        if (!e->feasibility.packageWhy.empty())
            add(rule::packageBelowMinimumArch, e->feasibility.packageWhy);
    }

    void hardware()
    {
        const Feasibility& f = e->feasibility;
        if (!f.cudaWhy.empty())
            add(rule::cudaBelowMinimum, f.cudaWhy);
        // A spec that asks for the variant decides; an inferred one only echoes the files.
        if (!f.hardwareWhy.empty() && f.cudaWhy.empty() && !e->askedFor)
            add(rule::impossiblePairing,
                f.hardwareWhy + (e->fromSpecFile
                                     ? "; the spec does not ask for " + e->name.toString()
                                     : "; there is no spec file to ask for it"));
    }

    // A recipe whose arch and flags cannot be read is not "ok" by evidence: say it was not
    // checked, and where its values come from when a builder module makes them.
    void unread()
    {
        if (f.pattern == PatternKind::Wrapper)
            return; // checked on its base
        // Only with evidence that values exist: a builder called with arguments, or a flag
        // setting whose value is unknown. A recipe that sets no flags at all is judged as it is.
        const std::string& builder = f.builderModule.empty() && !f.derivedFrom.empty()
                                         ? f.derivedFrom.front()
                                         : f.builderModule;
        std::vector<std::string> unread;
        if (e->name.accelerator == Accelerator::Cuda && !e->archNumber.empty() &&
            f.archSinks.empty() && !builder.empty())
            unread.push_back("GPU arch");
        if (e->isa && !e->isa->flags.empty() && !f.compilerFlags &&
            (!builder.empty() || !f.unreadFlagSinks.empty()))
            unread.push_back("compiler flags" + (f.unreadFlagSinks.empty()
                                                     ? std::string()
                                                     : " (" + f.unreadFlagSinks.front() + ")"));
        if (unread.empty())
            return;
        add(rule::valuesNotRead,
            "the " + unread.front() + (unread.size() > 1 ? " and the " + unread[1] : "") +
                " reaching the build could not be read" +
                (builder.empty() ? std::string()
                 : f.builderModule.empty()
                     ? "; they are made by the function of " + builder +
                           ", called again with other arguments (.override), which RecipeGrid "
                           "does not follow"
                     : "; they are made in " + builder +
                           " from the arguments the recipe passes, and RecipeGrid could not "
                           "work them out there") +
                ": not checked");
    }

    // A sibling recipe imported by file name is a base this one builds on (a companion's
    // torch): it must be of the same cell.
    void imports()
    {
        for (const Fact<std::string>& imported : f.importedFiles) {
            const std::string& path = imported.value;
            const auto base = VariantName::ofSiblingPath(path);
            if (!base || e->name.matchesBase(*base) || std::ranges::count(f.derivedFrom, path) > 0)
                continue;
            add(rule::importedCellMismatch,
                "imports " + path + " (" + whereIs(f, imported) + "), the recipe of " +
                    base->cellKey() + ": this " + e->name.package + " builds on it instead of on " +
                    e->name.cellKey(),
                imported.range);
        }
    }

    const RecipeFacts& f;
    const VariantExpectation* e;
    const Catalog& catalog;
    std::vector<Finding> out;
};

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

std::vector<Finding> RuleSet::check(const RecipeFacts& facts, const VariantExpectation* expected,
                                    const Catalog& catalog)
{
    return Checker(facts, expected, catalog).run();
}

} // namespace rg
