#include "matrix/variantexpectation.h"

namespace rg {

namespace {

std::string pinScope(const VariantName& name)
{
    if (name.accelerator == Accelerator::Cuda)
        return name.cuda.empty() ? "this variant" : "CUDA " + name.cuda;
    return name.accelerator == Accelerator::Cpu ? "CPU-only variants" : "Darwin variants";
}

// Nothing in a recipe says which Python nixpkgs' python3Packages is; the recipes on the same
// pin that select it do, by their names. Only a clear majority over this name's version
// counts: with as many for each side, either may be the wrong one.
void readDefaultPython(VariantExpectation& e, const GroupProfile& group)
{
    const std::string& own = e.name.python;
    const auto ownUsers = group.defaultPythonUsers.find(own);
    const size_t ownCount =
        ownUsers == group.defaultPythonUsers.end() ? 0 : ownUsers->second.size();
    const std::vector<std::string>* most = nullptr;
    std::string digits;
    bool tie = false;
    for (const auto& [python, users] : group.defaultPythonUsers) {
        if (most && users.size() == most->size())
            tie = true;
        if (!most || users.size() > most->size()) {
            most = &users;
            digits = python;
            tie = false;
        }
    }
    if (!most || tie || digits == own || most->size() <= ownCount)
        return;
    e.defaultPython = digits;
    std::string names;
    for (size_t i = 0; i < most->size() && i < 3; ++i)
        names += (i ? ", " : "") + (*most)[i];
    if (most->size() > 3)
        names += ", …";
    e.defaultPythonSource =
        std::to_string(most->size()) + " recipe" + (most->size() == 1 ? "" : "s") +
        " on this pin select" + (most->size() == 1 ? "s" : "") + " it for python" + digits + " (" +
        names + ")" +
        (ownCount > 0 ? " and " + std::to_string(ownCount) + " for python" + own : std::string());
}

} // namespace

VariantExpectation VariantExpectation::of(const VariantName& name, const MatrixSpec& spec,
                                          const Catalog& catalog, const GroupProfile* group)
{
    VariantExpectation e;
    e.name = name;
    e.python = catalog.describePython(name.python).dotted;
    e.fromSpecFile = !spec.isInferred();
    e.askedFor = e.fromSpecFile && spec.expects(name);
    if (name.accelerator == Accelerator::Cuda) {
        e.archNumber = catalog.describeGpuArch(name.gpuArch).number;
        if (const GpuArch* arch = catalog.gpuArch(name.gpuArch))
            e.arch = *arch;
    }
    e.isa = name.isa.empty() ? nullptr : catalog.isa(name.isa);
    e.package = catalog.package(name.package);
    if (e.isa)
        e.platform = e.isa->platform;
    if (group)
        e.archSuffixes = group->archSuffixes;
    e.pname = spec.expectedPname(name);
    e.torchVersion = spec.torchVersion;

    if (e.fromSpecFile || !group) {
        e.pin = spec.expectedPin(name);
        e.pinSource = std::string(e.fromSpecFile ? "the spec's" : "the inferred") + " pin for " +
                      pinScope(name);
        if (const RecipePattern* pattern = spec.patternFor(name)) {
            e.pattern = *pattern;
            e.patternSource = std::string(e.fromSpecFile ? "the spec's " : "the inferred ") +
                              std::string(patternKindId(pattern->kind)) + " pattern";
        }
    } else {
        if (!group->dominantPin.empty()) {
            e.pin = group->dominantPin;
            e.pinSource = "the pin " + std::to_string(group->dominantPinCount) + " of " +
                          std::to_string(group->acceleratorMembers) + " " + name.package +
                          " recipes for " + pinScope(name) + " use";
        }
        RecipePattern pattern;
        pattern.overlays = group->overlays;
        pattern.canonicalRecipe = group->canonical;
        e.pattern = pattern;
        e.patternSource = "the overlays " + std::to_string(group->overlaysCount) + " of " +
                          std::to_string(group->members) + " recipes of " + group->label + " carry";
    }

    if (group)
        readDefaultPython(e, *group);

    e.feasibility = catalog.feasibility(name);
    return e;
}

} // namespace rg
