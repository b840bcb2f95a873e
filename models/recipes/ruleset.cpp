#include "recipes/ruleset.h"

#include <algorithm>

namespace rg {

namespace {

using S = Severity;
using F = FixKind;

const std::vector<RuleInfo> allRules = {
    {"unreadable-file", S::Error, F::None, "unreadable",
     "The file could not be read (the operating system's or git's error is given)."},
    {"symlink-outside", S::Error, F::None, "symlink leaves the repository",
     "A symbolic link that leads outside the repository is never followed."},
    {"not-utf8", S::Error, F::None, "not UTF-8", "Nix files must be valid UTF-8 text."},
    {"oversized-file", S::Error, F::None, "oversized",
     "The file is larger than the size limit for recipes and was not read."},
    {"syntax-error", S::Error, F::None, "syntax error",
     "Nix would reject the file; the message gives line:column and what was expected."},
    {"not-a-variant-name", S::Warning, F::Rename, "not a variant name",
     "The file name does not name a variant (package-pythonXYZ-cudaX_Y-smNN-isa)."},
    {"naming", S::Warning, F::Rename, "non-canonical name",
     "The file name uses a legacy form or spelling (py313, no CUDA component, armv8.2) or an "
     "unknown axis value."},
    {"nonstandard-suffix", S::Warning, F::Rename, "non-standard suffix",
     "The file name carries a suffix after the ISA (-magma, -nightly) that the naming "
     "convention does not have."},
    {"duplicate-variant", S::Warning, F::Delete, "duplicate",
     "Another recipe already builds the same matrix cell."},
    {"pin-not-full", S::Error, F::ReplacePin, "pin not a full revision",
     "The nixpkgs pin is not a full 40-hex commit id, so the build is not reproducible."},
    {"pin-mismatch", S::Error, F::ReplacePin, "pin differs",
     "The nixpkgs pin differs from the spec's pin for the recipe's CUDA version."},
    {"pin-missing", S::Warning, F::Regenerate, "no pin",
     "The spec's pattern imports a pinned nixpkgs but the recipe pins none."},
    {"missing-overlay", S::Error, F::Regenerate, "missing overlays",
     "Overlays the spec's pattern requires are absent (CUDA package set, MAGMA patch, torch "
     "upgrade)."},
    {"cuda-version-mismatch", S::Error, F::Regenerate, "CUDA package set differs",
     "The CUDA package set the recipe selects is not the CUDA version its name says."},
    {"deprecated-torch-attribute", S::Warning, F::EditValue, "deprecated pytorch attribute",
     "python3Packages.pytorch is a deprecated alias; use python3Packages.torch."},
    {"from-scratch-pattern", S::Error, F::Regenerate, "from-scratch pattern",
     "The recipe builds torch from scratch (buildPythonPackage / mkDerivation) instead of "
     "overriding nixpkgs' torch."},
    {"magma-disabled", S::Error, F::Regenerate, "MAGMA disabled",
     "MAGMA is disabled (USE_MAGMA=OFF, filterMagma); every variant is meant to include it."},
    {"pname-mismatch", S::Error, F::EditValue, "pname differs",
     "pname is neither the file name nor the spec's pname (with its prefix)."},
    {"gpu-arch-mismatch", S::Error, F::EditValue, "GPU arch differs",
     "gpuArchSM, gpuArchNum, gpuTargets or TORCH_CUDA_ARCH_LIST do not match the file's SM."},
    {"cpu-flags-mismatch", S::Error, F::EditValue, "cpuFlags differ",
     "cpuFlags are not the flags of the file's CPU ISA."},
    {"platforms-mismatch", S::Error, F::EditValue, "platforms differ",
     "meta.platforms does not match the platform of the file's CPU ISA."},
    {"cpu-recipe-cuda-inputs", S::Error, F::Regenerate, "CUDA in a CPU-only recipe",
     "A CPU-only recipe enables CUDA or takes CUDA packages as inputs."},
    {"python-version-mismatch", S::Error, F::EditValue, "Python set differs",
     "The Python package set is not the file's Python version."},
    {"torch-version-mismatch", S::Error, F::Regenerate, "torch version differs",
     "The torch version the recipe builds differs from the spec's."},
    {"cuda-below-minimum", S::Error, F::Delete, "CUDA cannot target the arch",
     "The CUDA version cannot target the GPU architecture (below its minimum or after it "
     "was dropped)."},
    {"impossible-pairing", S::Warning, F::Delete, "impossible hardware",
     "No machine pairs this GPU with this CPU ISA (e.g. an ARM SoC GPU with an x86 ISA); "
     "reported unless the spec asks for the variant."},
    {"missing-variant", S::Warning, F::Create, "missing",
     "The spec expects this variant but no recipe builds it."},
    {"unexpected-variant", S::Warning, F::Delete, "not in the spec",
     "The recipe builds a variant the spec does not expect."},
    {"spec-invalid", S::Error, F::None, "invalid spec",
     "The matrix spec file is invalid; the spec was inferred from the recipes instead."},
    {"spec-inferred", S::Info, F::None, "spec inferred",
     "No matrix spec file; the expected matrix was inferred from the recipes."},
};

bool isFullHexRevision(std::string_view text)
{
    return text.size() == 40 && std::all_of(text.begin(), text.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

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

// "12.0", "12.0+PTX", "sm_120", "sm120", "120", "compute_120" → "120"
std::string archNumber(std::string_view text)
{
    std::string value(text);
    if (auto plus = value.find('+'); plus != std::string::npos)
        value.erase(plus);
    for (std::string_view prefix : {"compute_", "sm_", "sm"})
        if (value.rfind(prefix, 0) == 0) {
            value.erase(0, prefix.size());
            break;
        }
    value.erase(std::remove(value.begin(), value.end(), '.'), value.end());
    return value;
}

std::vector<std::string> splitArchList(std::string_view text)
{
    std::vector<std::string> items;
    std::string current;
    for (char c : text) {
        if (c == ';' || c == ' ' || c == ',') {
            if (!current.empty())
                items.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    if (!current.empty())
        items.push_back(current);
    return items;
}

class Checker
{
public:
    Checker(const RecipeFacts& facts, const MatrixSpec& spec, const Catalog& catalog)
        : f(facts), spec(spec), catalog(catalog)
    {}

    std::vector<Finding> run()
    {
        if (fileProblem())
            return std::move(out);
        naming();
        pins();
        pattern();
        values();
        hardware();
        RuleSet::sort(out);
        return std::move(out);
    }

private:
    void add(std::string_view id, std::string message, nix::SourceRange range = {})
    {
        out.push_back(RuleSet::make(id, f, std::move(message), range));
    }

    bool fileProblem()
    {
        switch (f.problem) {
        case FileProblem::None:
            return false;
        case FileProblem::Unreadable:
            add("unreadable-file", "cannot read " + f.path + ": " + f.problemDetail);
            return true;
        case FileProblem::Symlink:
            add("symlink-outside", f.path + ": " + f.problemDetail);
            return true;
        case FileProblem::NotUtf8:
            add("not-utf8", f.path + ": " + f.problemDetail);
            return true;
        case FileProblem::Oversized:
            add("oversized-file", f.path + ": " + f.problemDetail);
            return true;
        case FileProblem::SyntaxError: {
            Finding finding = RuleSet::make(
                "syntax-error", f,
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

    void naming()
    {
        if (!f.variant)
            return;
        const VariantName& v = *f.variant;
        if (!v.isaAsWritten.empty() && v.isaAsWritten != v.isa)
            add("naming", "file name writes the ISA as '" + v.isaAsWritten +
                              "'; the convention is '" + v.isa + "' (" + v.toString() + ".nix)");
        else if (v.legacyForm)
            add("naming",
                "legacy name form '" + f.fileName + "'; canonical names spell python" + v.python +
                    (v.accelerator == Accelerator::Cuda ? " and the CUDA version (cudaX_Y)"
                                                        : std::string()));
        if (!catalog.isa(v.isa))
            add("naming", "unknown CPU ISA '" + v.isa + "' in the file name");
        if (v.accelerator == Accelerator::Cuda && !catalog.gpuArch(v.gpuArch))
            add("naming", "unknown GPU architecture '" + v.gpuArch + "' in the file name");
        if (!catalog.python(v.python))
            add("naming", "unknown Python version '" + v.python + "' in the file name");
        if (v.accelerator == Accelerator::Cuda && !v.cuda.empty() && !catalog.cuda(v.cuda))
            add("naming", "unknown CUDA version '" + v.cuda + "' in the file name");
        if (!v.suffixes.empty()) {
            std::string suffix;
            for (const std::string& s : v.suffixes)
                suffix += '-' + s;
            VariantName plain = v;
            plain.suffixes.clear();
            add("nonstandard-suffix", "non-standard suffix '" + suffix +
                                          "' after the ISA; the variant is " + plain.toString());
        }
    }

    void pins()
    {
        std::optional<std::string> expected;
        if (f.variant)
            expected = spec.expectedPin(*f.variant);
        for (const PinFact& pin : f.pins) {
            if (!isFullHexRevision(pin.revision)) {
                add("pin-not-full",
                    "nixpkgs pin '" + pin.revision + "' is not a full 40-hex commit id (" +
                        lineOf(f, pin.range) + ")",
                    pin.range);
                continue;
            }
            if (expected && pin.revision != *expected)
                add("pin-mismatch",
                    "nixpkgs pin " + pin.revision + " (" + lineOf(f, pin.range) +
                        ") differs from the spec's " + *expected + " for " + pinScope(),
                    pin.range);
        }
        if (!f.variant || !f.pins.empty() || f.pattern == PatternKind::FromScratch ||
            f.pattern == PatternKind::Wrapper)
            return;
        const RecipePattern* pattern = spec.patternFor(*f.variant);
        if (pattern && (pattern->kind == PatternKind::PinnedOverlays ||
                        pattern->kind == PatternKind::PinnedPlain))
            add("pin-missing", "the spec's pattern (" + std::string(patternKindId(pattern->kind)) +
                                   ") imports a pinned nixpkgs" +
                                   (expected ? " (" + *expected + ")" : std::string()) +
                                   ", but the recipe pins none");
    }

    std::string pinScope() const
    {
        const VariantName& v = *f.variant;
        if (v.accelerator == Accelerator::Cuda)
            return v.cuda.empty() ? "this variant" : "CUDA " + v.cuda;
        return v.accelerator == Accelerator::Cpu ? "CPU-only variants" : "Darwin variants";
    }

    void pattern()
    {
        if (f.pattern == PatternKind::FromScratch) {
            std::string evidence = f.pname ? " (pname " + inQuotes(f.pname->value) + ", " +
                                                 lineOf(f, f.pname->range) + ")"
                                           : std::string();
            add("from-scratch-pattern",
                "builds torch from scratch with buildPythonPackage/mkDerivation" + evidence +
                    " instead of overriding nixpkgs' torch",
                f.pname ? f.pname->range : nix::SourceRange{});
        }
        if (f.torchAttribute && f.torchAttribute->value == "pytorch")
            add("deprecated-torch-attribute",
                "uses the deprecated " +
                    (f.pythonPackageSet ? f.pythonPackageSet->value + "." : std::string()) +
                    "pytorch (" + lineOf(f, f.torchAttribute->range) + "); use torch",
                f.torchAttribute->range);
        if (!f.magmaDisabled.empty()) {
            std::string evidence;
            for (size_t i = 0; i < f.magmaDisabled.size() && i < 3; ++i)
                evidence += (i ? ", " : "") + f.magmaDisabled[i].value + " (" +
                            lineOf(f, f.magmaDisabled[i].range) + ")";
            add("magma-disabled", "MAGMA is disabled: " + evidence, f.magmaDisabled.front().range);
        }
        if (!f.variant)
            return;
        const RecipePattern* pattern = spec.patternFor(*f.variant);
        if (pattern && f.pattern != PatternKind::FromScratch && f.pattern != PatternKind::Wrapper) {
            std::vector<std::string> missing;
            for (OverlayKind kind : pattern->overlays)
                if (std::none_of(f.overlays.begin(), f.overlays.end(),
                                 [&](const OverlayFact& o) { return o.kind == kind; }))
                    missing.emplace_back(overlayKindId(kind));
            if (!missing.empty()) {
                std::string names;
                for (size_t i = 0; i < missing.size(); ++i)
                    names += (i ? ", " : "") + missing[i];
                const size_t present = f.overlays.size();
                add("missing-overlay",
                    "missing overlay" + std::string(missing.size() > 1 ? "s" : "") + " " + names +
                        " of the " + std::string(patternKindId(pattern->kind)) + " pattern" +
                        (pattern->canonicalRecipe.empty()
                             ? std::string()
                             : " (as in " + pattern->canonicalRecipe + ")") +
                        "; the recipe has " + std::to_string(present) + " overlay" +
                        (present == 1 ? "" : "s"));
            }
        }
        const VariantName& v = *f.variant;
        if (v.accelerator == Accelerator::Cuda && !v.cuda.empty() && f.cudaPackageSet) {
            const CudaVersion* selected = catalog.cudaByPackageSet(f.cudaPackageSet->value);
            if (selected && compareVersions(selected->dotted, v.cuda) != 0)
                add("cuda-version-mismatch",
                    f.cudaPackageSet->value + " (" + lineOf(f, f.cudaPackageSet->range) +
                        ") is CUDA " + selected->dotted + ", but the file name says CUDA " + v.cuda,
                    f.cudaPackageSet->range);
        }
    }

    void values()
    {
        if (!f.variant)
            return;
        const VariantName& v = *f.variant;
        if (f.pname) {
            const std::string stem = f.fileName.size() > 4 && f.fileName.ends_with(".nix")
                                         ? f.fileName.substr(0, f.fileName.size() - 4)
                                         : f.fileName;
            const std::string expected = spec.expectedPname(v);
            if (f.pname->value != stem && f.pname->value != expected)
                add("pname-mismatch",
                    "pname " + inQuotes(f.pname->value) + " (" + lineOf(f, f.pname->range) +
                        ") is neither the file name " + inQuotes(stem) +
                        (expected != stem ? " nor the spec's " + inQuotes(expected)
                                          : std::string()),
                    f.pname->range);
        }
        if (f.pythonPackageSet && f.pythonPackageSet->value != "python3Packages") {
            const std::string& set = f.pythonPackageSet->value;
            const std::string digits = set.substr(6, set.size() - 14);
            if (digits != v.python)
                add("python-version-mismatch",
                    set + " (" + lineOf(f, f.pythonPackageSet->range) + ") is Python " + digits +
                        ", but the file name says python" + v.python,
                    f.pythonPackageSet->range);
        }
        if (!spec.torchVersion.empty() && f.torchVersion &&
            f.torchVersion->value != spec.torchVersion)
            add("torch-version-mismatch",
                "builds torch " + f.torchVersion->value + " (" + lineOf(f, f.torchVersion->range) +
                    "), the spec says " + spec.torchVersion,
                f.torchVersion->range);
        gpuArch(v);
        cpu(v);
    }

    void gpuArch(const VariantName& v)
    {
        if (v.accelerator != Accelerator::Cuda)
            return;
        const GpuArch* arch = catalog.gpuArch(v.gpuArch);
        if (!arch)
            return;
        auto mismatch = [&](std::string_view what, const std::string& value, nix::SourceRange range,
                            const std::string& expected) {
            add("gpu-arch-mismatch",
                std::string(what) + " " + inQuotes(value) + " (" + lineOf(f, range) +
                    ") does not match " + v.gpuArch + " (expected " + inQuotes(expected) + ")",
                range);
        };
        if (f.gpuArchSM && f.gpuArchSM->value != arch->dotted)
            mismatch("gpuArchSM", f.gpuArchSM->value, f.gpuArchSM->range, arch->dotted);
        if (f.gpuArchNum && f.gpuArchNum->value != arch->number)
            mismatch("gpuArchNum", f.gpuArchNum->value, f.gpuArchNum->range, arch->number);
        if (f.gpuTargets) {
            for (const std::string& target : f.gpuTargets->value)
                if (archNumber(target) != arch->number) {
                    mismatch("gpuTargets entry", target, f.gpuTargets->range, arch->dotted);
                    break;
                }
        }
        if (f.torchCudaArchList) {
            for (const std::string& target : splitArchList(f.torchCudaArchList->value))
                if (archNumber(target) != arch->number) {
                    mismatch("TORCH_CUDA_ARCH_LIST", f.torchCudaArchList->value,
                             f.torchCudaArchList->range, arch->dotted);
                    break;
                }
        }
    }

    void cpu(const VariantName& v)
    {
        const CpuIsa* isa = catalog.isa(v.isa);
        if (!isa)
            return;
        if (f.cpuFlags && !isa->flags.empty() && !isa->acceptsFlags(f.cpuFlags->value)) {
            std::vector<std::string> a = f.cpuFlags->value, b = isa->flags;
            std::sort(a.begin(), a.end());
            std::sort(b.begin(), b.end());
            if (a != b)
                add("cpu-flags-mismatch",
                    "cpuFlags " + listText(f.cpuFlags->value) + " (" +
                        lineOf(f, f.cpuFlags->range) + ") are not " + isa->id + "'s " +
                        listText(isa->flags),
                    f.cpuFlags->range);
        }
        if (f.platforms && !isa->platform.empty()) {
            const auto& platforms = f.platforms->value;
            const bool contains =
                std::find(platforms.begin(), platforms.end(), isa->platform) != platforms.end();
            // Seed 002 recommends both Linux platforms for CPU-only recipes; GPU recipes run
            // on exactly the ISA's platform.
            const bool ok = v.accelerator == Accelerator::Cpu
                                ? contains
                                : platforms.size() == 1 && platforms.front() == isa->platform;
            if (!ok)
                add("platforms-mismatch",
                    "meta.platforms " + listText(platforms) + " (" + lineOf(f, f.platforms->range) +
                        ") should be [" + inQuotes(isa->platform) + "] for " + isa->id,
                    f.platforms->range);
        }
        if (v.accelerator != Accelerator::Cuda) {
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
                            f.cudaInputs.front().value + " (" +
                            lineOf(f, f.cudaInputs.front().range) + ")";
                if (f.cudaInputs.size() > 1)
                    evidence += " and " + std::to_string(f.cudaInputs.size() - 1) +
                                " more CUDA reference" + (f.cudaInputs.size() > 2 ? "s" : "");
            }
            if (!evidence.empty())
                add("cpu-recipe-cuda-inputs",
                    std::string(v.accelerator == Accelerator::Cpu ? "CPU-only" : "Darwin") +
                        " recipe " + evidence,
                    range);
        }
    }

    void hardware()
    {
        if (!f.variant)
            return;
        const VariantName& v = *f.variant;
        const GpuArch* arch =
            v.accelerator == Accelerator::Cuda ? catalog.gpuArch(v.gpuArch) : nullptr;
        const CpuIsa* isa = catalog.isa(v.isa);
        std::string why;
        if (arch && !v.cuda.empty() && catalog.cuda(v.cuda) &&
            !catalog.cudaSupports(*arch, v.cuda, &why))
            add("cuda-below-minimum", why);
        why.clear();
        // A spec that asks for the variant decides; an inferred one only echoes the files.
        const bool asked = spec.expects(v) && !spec.isInferred();
        if (isa && (arch || v.accelerator != Accelerator::Cuda) && !asked &&
            !catalog.canRun(arch, *isa, {}, &why))
            add("impossible-pairing",
                why + (spec.isInferred() ? "; there is no spec file to ask for it"
                                         : "; the spec does not ask for " + v.toString()));
    }

    const RecipeFacts& f;
    const MatrixSpec& spec;
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

std::vector<Finding> RuleSet::check(const RecipeFacts& facts, const MatrixSpec& spec,
                                    const Catalog& catalog)
{
    return Checker(facts, spec, catalog).run();
}

} // namespace rg
