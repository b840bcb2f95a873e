#include "changes/readmematrix.h"

#include "matrix/catalog.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

namespace rg {

namespace {

const char* const check = "\xe2\x9c\x93"; // ✓
const char* const dot = " \xc2\xb7 ";     // " · "

// CUDA versions sort numerically; a legacy name without CUDA component sorts after them.
struct CudaLess
{
    bool operator()(const std::string& a, const std::string& b) const
    {
        if (a.empty() || b.empty())
            return !a.empty() && b.empty();
        return compareVersions(a, b) < 0;
    }
};

struct PythonLess
{
    const Catalog* catalog;

    bool operator()(const std::string& a, const std::string& b) const
    {
        const int order =
            compareVersions(catalog->describePython(a).dotted, catalog->describePython(b).dotted);
        return order != 0 ? order < 0 : a < b;
    }
};

std::string pythonLabel(const std::string& python, const Catalog& catalog)
{
    const std::string dotted = catalog.describePython(python).dotted;
    return dotted.empty() ? python : dotted;
}

std::string cudaLabel(const std::string& cuda)
{
    return cuda.empty() ? std::string("CUDA (version not in the name)") : "CUDA " + cuda;
}

// Catalog order first, then ISAs the catalog does not know by name, the generic build last:
// the columns read like the catalog's own tables, whatever order the files were listed in.
std::tuple<int, int, std::string> isaOrderKey(const std::string& isa, const Catalog& catalog)
{
    if (isa.empty())
        return {2, 0, isa};
    if (const CpuIsa* known = catalog.isa(isa))
        return {0, static_cast<int>(known - catalog.isas().data()), isa};
    return {1, 0, isa};
}

void sortIsas(std::vector<std::string>& isas, const Catalog& catalog)
{
    std::sort(isas.begin(), isas.end(), [&](const std::string& a, const std::string& b) {
        return isaOrderKey(a, catalog) < isaOrderKey(b, catalog);
    });
    isas.erase(std::unique(isas.begin(), isas.end()), isas.end());
}

std::string isaLabel(const std::string& isa)
{
    return isa.empty() ? std::string("generic") : isa;
}

// Newest arch on top, as the catalog lists them; a malformed id has no number and goes last.
// Numbers compare as digit strings (length first) so that no name can overflow an integer.
bool archLess(const std::string& a, const std::string& b, const Catalog& catalog)
{
    const std::string na = catalog.describeGpuArch(a).number;
    const std::string nb = catalog.describeGpuArch(b).number;
    if (na.empty() != nb.empty())
        return nb.empty();
    if (na.size() != nb.size())
        return na.size() > nb.size();
    return na != nb ? na > nb : a < b;
}

std::string row(const std::string& label, const std::vector<bool>& cells)
{
    std::string line = "| **" + label + "** |";
    for (bool on : cells)
        line += on ? std::string(" ") + check + " |" : std::string("  |");
    return line + "\n";
}

std::string tableHead(const std::string& corner, const std::vector<std::string>& columns)
{
    std::string head = "| " + corner + " |";
    std::string rule = "| --- |";
    for (const std::string& column : columns) {
        head += " " + column + " |";
        rule += " :-: |";
    }
    return head + "\n" + rule + "\n";
}

struct Matrix
{
    explicit Matrix(const Catalog& catalog) : catalog(catalog), pythons(PythonLess{&catalog}) {}

    const Catalog& catalog;
    // One entry per cell (package and suffix left out), so a duplicate counts once.
    std::map<std::string, VariantName> cells;
    std::set<std::string, PythonLess> pythons;
    std::set<std::string, CudaLess> cudas;
};

Matrix collect(const std::vector<VariantName>& variants, const Catalog& catalog)
{
    Matrix matrix(catalog);
    for (const VariantName& variant : variants) {
        if (!variant.suffixes.empty())
            continue;
        if (!matrix.cells.emplace(variant.cellKey(), variant).second)
            continue;
        matrix.pythons.insert(variant.python);
        if (variant.accelerator == Accelerator::Cuda)
            matrix.cudas.insert(variant.cuda);
    }
    return matrix;
}

std::vector<const VariantName*> select(const Matrix& matrix, Accelerator accelerator)
{
    std::vector<const VariantName*> selected;
    for (const auto& [key, variant] : matrix.cells)
        if (variant.accelerator == accelerator)
            selected.push_back(&variant);
    return selected;
}

// "40 CUDA 13.0 (36 x86-64, 4 ARM)": a GPU variant also targets a host CPU, and its family
// decides which machines can run it. A generic build has no ISA; an ISA the catalog does not
// know has no known family ("other").
std::string cudaCount(const std::vector<const VariantName*>& gpu, const std::string& cuda,
                      const Catalog& catalog)
{
    int total = 0, x86 = 0, arm = 0, generic = 0, other = 0;
    for (const VariantName* variant : gpu) {
        if (variant->cuda != cuda)
            continue;
        ++total;
        const CpuIsa* isa = variant->isa.empty() ? nullptr : catalog.isa(variant->isa);
        if (variant->isa.empty())
            ++generic;
        else if (isa && isa->family == CpuFamily::X86)
            ++x86;
        else if (isa && isa->family == CpuFamily::Arm)
            ++arm;
        else
            ++other;
    }
    std::vector<std::string> parts;
    if (x86)
        parts.push_back(std::to_string(x86) + " x86-64");
    if (arm)
        parts.push_back(std::to_string(arm) + " ARM");
    if (generic)
        parts.push_back(std::to_string(generic) + " generic");
    if (other)
        parts.push_back(std::to_string(other) + " other");
    std::string text = std::to_string(total) + " " + cudaLabel(cuda) + " (";
    for (std::size_t i = 0; i < parts.size(); ++i)
        text += (i ? ", " : "") + parts[i];
    return text + ")";
}

std::string countsLine(const Matrix& matrix)
{
    const auto gpu = select(matrix, Accelerator::Cuda);
    const std::size_t cpu = select(matrix, Accelerator::Cpu).size();
    const std::size_t darwin = select(matrix, Accelerator::Darwin).size();
    std::string line = "**" + std::to_string(matrix.cells.size()) + " variant" +
                       (matrix.cells.size() == 1 ? "" : "s") + "** for Python ";
    bool first = true;
    for (const std::string& python : matrix.pythons) {
        line += (first ? "" : ", ") + pythonLabel(python, matrix.catalog);
        first = false;
    }
    line += ":";
    std::string separator = " ";
    for (const std::string& cuda : matrix.cudas) {
        line += separator + cudaCount(gpu, cuda, matrix.catalog);
        separator = dot;
    }
    if (cpu) {
        line += separator + std::to_string(cpu) + " CPU-only";
        separator = dot;
    }
    if (darwin)
        line += separator + std::to_string(darwin) + " Darwin";
    return line + "\n";
}

// Rows and columns are those of the whole CUDA version, so that the tables of one CUDA
// version for several Pythons line up and an arch missing for one Python shows as a gap.
std::string cudaTables(const Matrix& matrix, const std::string& cuda)
{
    std::vector<std::string> archs, isas;
    std::set<std::tuple<std::string, std::string, std::string>> present; // python, arch, isa
    for (const VariantName* variant : select(matrix, Accelerator::Cuda)) {
        if (variant->cuda != cuda)
            continue;
        archs.push_back(variant->gpuArch);
        isas.push_back(variant->isa);
        present.emplace(variant->python, variant->gpuArch, variant->isa);
    }
    std::sort(archs.begin(), archs.end(), [&](const std::string& a, const std::string& b) {
        return archLess(a, b, matrix.catalog);
    });
    archs.erase(std::unique(archs.begin(), archs.end()), archs.end());
    sortIsas(isas, matrix.catalog);
    std::vector<std::string> columns;
    for (const std::string& isa : isas)
        columns.push_back(isaLabel(isa));

    std::string text;
    for (const std::string& python : matrix.pythons) {
        text += "\n### " + cudaLabel(cuda);
        if (matrix.pythons.size() > 1)
            text += dot + std::string("Python ") + pythonLabel(python, matrix.catalog);
        text += "\n\n" + tableHead("GPU", columns);
        for (const std::string& arch : archs) {
            std::vector<bool> cells;
            for (const std::string& isa : isas)
                cells.push_back(present.count({python, arch, isa}) > 0);
            text += row(gpuArchLabel(arch), cells);
        }
    }
    return text;
}

std::string cpuTable(const Matrix& matrix)
{
    const auto cpu = select(matrix, Accelerator::Cpu);
    if (cpu.empty())
        return {};
    std::vector<std::string> isas;
    std::set<std::string, PythonLess> pythons(PythonLess{&matrix.catalog});
    for (const VariantName* variant : cpu) {
        isas.push_back(variant->isa);
        pythons.insert(variant->python);
    }
    sortIsas(isas, matrix.catalog);
    std::vector<std::string> columns;
    for (const std::string& python : pythons)
        columns.push_back("Python " + pythonLabel(python, matrix.catalog));

    std::string text = "\n### CPU-only\n\n" + tableHead("ISA", columns);
    for (const std::string& isa : isas) {
        std::vector<bool> cells;
        for (const std::string& python : pythons)
            cells.push_back(std::any_of(cpu.begin(), cpu.end(), [&](const VariantName* v) {
                return v->isa == isa && v->python == python;
            }));
        text += row(isaLabel(isa), cells);
    }
    return text;
}

std::string darwinList(const Matrix& matrix)
{
    std::vector<std::string> names;
    for (const VariantName* variant : select(matrix, Accelerator::Darwin))
        names.push_back(variant->toString());
    if (names.empty())
        return {};
    std::sort(names.begin(), names.end());
    std::string text = "\n### Darwin\n\n";
    for (const std::string& name : names)
        text += "- `" + name + "`\n";
    return text;
}

} // namespace

std::string ReadmeMatrix::section(const std::vector<VariantName>& variants, const Catalog& catalog)
{
    const Matrix matrix = collect(variants, catalog);
    std::string text = std::string(beginMarker) + "\n## Variant matrix\n\n";
    if (matrix.cells.empty()) {
        text += "No variants.\n";
    } else {
        text += countsLine(matrix);
        for (const std::string& cuda : matrix.cudas)
            text += cudaTables(matrix, cuda);
        text += cpuTable(matrix);
        text += darwinList(matrix);
    }
    return text + "\n" + endMarker + "\n";
}

std::string ReadmeMatrix::updated(const std::string& readme, const std::string& section)
{
    const std::string begin = beginMarker;
    const std::string end = endMarker;
    // The last begin marker and the first end marker after it enclose no other marker, so
    // replacing them can only ever replace an earlier generated section. With the first begin
    // marker instead, a stray one above a section would swallow the text in between.
    const std::size_t from = readme.rfind(begin);
    const std::size_t to = from == std::string::npos ? from : readme.find(end, from + begin.size());
    if (to != std::string::npos) {
        std::size_t after = to + end.size();
        std::string replacement = section;
        if (readme.compare(after, 2, "\r\n") == 0)
            after += 2;
        else if (readme.compare(after, 1, "\n") == 0)
            after += 1;
        else if (!replacement.empty() && replacement.back() == '\n')
            replacement.pop_back(); // the marker ended the file: keep it so
        return readme.substr(0, from) + replacement + readme.substr(after);
    }
    // No usable pair (none, only one, or end before begin): append rather than guess which
    // text was meant to be the section, so nothing the user wrote is lost. The trailing line
    // breaks are trimmed so that exactly one blank line separates the section.
    std::size_t keep = readme.find_last_not_of("\r\n");
    if (keep == std::string::npos)
        return section;
    return readme.substr(0, keep + 1) + "\n\n" + section;
}

} // namespace rg
