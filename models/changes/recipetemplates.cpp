#include "changes/recipetemplates.h"

#include "matrix/catalog.h"

#include <QFile>
#include <algorithm>
#include <kainjow/mustache.hpp>

namespace rg {

namespace {

namespace mustache = kainjow::mustache;

constexpr const char* repositoryTemplates = ".flox/templates/";

// Lines after the first get the indentation the overlay list has in the templates.
std::string indentedOverlay(const std::string& text)
{
    std::string out;
    for (char c : text) {
        out += c;
        if (c == '\n')
            out += "      ";
    }
    return out;
}

mustache::data flagList(const CpuIsa* isa)
{
    mustache::data flags{mustache::data::type::list};
    if (isa)
        for (const std::string& flag : isa->flags)
            flags.push_back(mustache::data{"flag", flag});
    return flags;
}

mustache::data boolean(bool value)
{
    return mustache::data{value ? mustache::data::type::bool_true
                                : mustache::data::type::bool_false};
}

// The overlays the pattern requires, copied from recipes where they were proven.
void setOverlays(mustache::data& data, const VariantExpectation& variant,
                 const TemplateInputs& inputs, bool pinned, const std::string& packageSet)
{
    mustache::data overlays{mustache::data::type::list};
    bool overlayUsesDefaultSet = false, cudaOverlay = false;
    for (size_t i = 0; i < inputs.overlays.size(); ++i) {
        mustache::data overlay;
        overlay.set("number", std::to_string(i + 1));
        const OverlayKind kind = variant.pattern && i < variant.pattern->overlays.size()
                                     ? variant.pattern->overlays[i]
                                     : OverlayKind::Other;
        overlay.set("kind", std::string(overlayKindId(kind)));
        const std::string& text = inputs.overlays[i];
        // A function in a list needs its parentheses.
        overlay.set("text", indentedOverlay(text.starts_with('(') ? text : "(" + text + ")"));
        overlays.push_back(overlay);
        overlayUsesDefaultSet |= inputs.overlays[i].find("python3Packages") != std::string::npos;
        cudaOverlay |= kind == OverlayKind::CudaPackageSet;
    }
    data.set("overlays", overlays);
    data.set("hasOverlays", boolean(pinned && !inputs.overlays.empty()));
    data.set("cudaOverlay", boolean(pinned && cudaOverlay));
    // An overlay that upgrades torch in python3Packages only reaches recipes built from it.
    data.set("pythonSet", overlayUsesDefaultSet ? "python3Packages" : packageSet);
}

// CUDA templates name the GPU and the CUDA package set; CPU-only and Darwin ones say what
// runs instead.
void setAcceleratorValues(mustache::data& data, const VariantName& name, const Catalog& catalog)
{
    if (name.accelerator == Accelerator::Cuda) {
        const GpuArch arch = catalog.describeGpuArch(name.gpuArch);
        const CudaVersion cuda = catalog.describeCuda(name.cuda);
        data.set("gpuDesc", arch.known ? arch.description : "NVIDIA " + gpuArchLabel(name.gpuArch));
        data.set("gpuArchUpper", gpuArchLabel(name.gpuArch));
        data.set("gpuNumber", arch.number);
        data.set("gpuDotted", arch.dotted);
        data.set("cudaDotted", cuda.dotted);
        data.set("cudaSet", cuda.packageSets.empty() ? "cudaPackages" : cuda.packageSets.front());
    } else {
        const bool darwin = name.accelerator == Accelerator::Darwin;
        data.set("acceleratorDesc", darwin ? "for Apple silicon (MPS)" : "CPU-only");
        data.set("workload", darwin ? "Apple silicon (MPS)" : "CPU-only");
        data.set("gpuNote", darwin ? "Apple silicon (MPS)" : "none (CPU-only)");
        data.set("linux", boolean(!darwin));
    }
}

} // namespace

RecipeTemplates::RecipeTemplates(const RepositorySource& source, const Catalog& catalog)
    : m_source(source), m_catalog(catalog)
{}

std::string RecipeTemplates::nameFor(const VariantName& name)
{
    return name.accelerator == Accelerator::Cuda ? "gpu" : "cpu";
}

std::string RecipeTemplates::originOf(const VariantName& name) const
{
    const std::string file = nameFor(name) + ".nix.mustache";
    if (m_source.exists(repositoryTemplates + file))
        return repositoryTemplates + file;
    return ":/templates/" + file;
}

std::string RecipeTemplates::templateText(const std::string& name, std::string* origin,
                                          std::string* error) const
{
    const std::string file = name + ".nix.mustache";
    if (m_source.exists(repositoryTemplates + file)) {
        *origin = repositoryTemplates + file;
        SourceFile read = m_source.read(*origin, 1024 * 1024);
        if (!read.error.empty())
            *error = *origin + ": " + read.error;
        return read.bytes;
    }
    *origin = ":/templates/" + file;
    QFile builtin(QString::fromStdString(*origin));
    if (!builtin.open(QIODevice::ReadOnly)) {
        *error = "the built-in template " + *origin + " is missing from this build";
        return {};
    }
    return builtin.readAll().toStdString();
}

std::string RecipeTemplates::render(const VariantExpectation& variant, const TemplateInputs& inputs,
                                    std::string* error) const
{
    std::string origin;
    const std::string text = templateText(nameFor(variant.name), &origin, error);
    if (text.empty()) {
        if (error->empty())
            *error = origin + " is empty";
        return {};
    }
    mustache::mustache tmpl{text};
    if (!tmpl.is_valid()) {
        *error = origin + ": " + tmpl.error_message();
        return {};
    }
    // Nix text is not HTML: values go in as they are.
    tmpl.set_custom_escape([](const std::string& s) { return s; });

    const VariantName& name = variant.name;
    const PythonVersion python = m_catalog.describePython(name.python);
    const bool pinned = variant.pin.has_value() && variant.pattern &&
                        variant.pattern->kind != PatternKind::CallPackage;
    mustache::data data;
    data.set("pname", variant.pname);
    data.set("title", variant.torchVersion.empty() ? "PyTorch" : "PyTorch " + variant.torchVersion);
    data.set("pythonDotted", python.dotted);
    data.set("isaDesc", variant.isa ? variant.isa->description : "generic " + name.isa);
    data.set("flags", flagList(variant.isa));
    data.set("hasFlags", boolean(variant.isa && !variant.isa->flags.empty()));
    data.set("platform", variant.platform.empty() ? "x86_64-linux" : variant.platform);
    data.set("pinned", boolean(pinned));
    data.set("scope", pinned ? "nixpkgs_pinned." : "");
    // Mustache cannot write "${" before a tag, so the whole interpolation is a value.
    data.set("joinedFlags", std::string("${") + (pinned ? "nixpkgs_pinned." : "") +
                                "lib.concatStringsSep \" \" cpuFlags}");
    data.set("pin", variant.pin.value_or(""));
    if (!inputs.pinHash.empty())
        data.set("pinHash", inputs.pinHash);
    else
        data.set("pinHash", boolean(false));

    setOverlays(data, variant, inputs, pinned, python.packageSet);
    setAcceleratorValues(data, name, m_catalog);

    std::string out = tmpl.render(data);
    if (!tmpl.is_valid()) {
        *error = origin + ": " + tmpl.error_message();
        return {};
    }
    // Sections left out leave their blank lines behind; one blank line is enough.
    for (size_t at = out.find("\n\n\n"); at != std::string::npos; at = out.find("\n\n\n", at))
        out.erase(at, 1);
    return out;
}

} // namespace rg
