#include "matrix/catalog.h"

#include <QByteArray>
#include <QFile>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

namespace rg {

namespace {

using nlohmann::json;

// Thrown while reading the catalog; carries the JSON path of the offending value.
struct CatalogError
{
    std::string where;
    std::string what;
};

std::string at(const std::string& where, const std::string& key)
{
    return where + "." + key;
}

void rejectUnknownKeys(const json& object, const std::string& where,
                       std::initializer_list<std::string_view> known)
{
    for (const auto& [key, value] : object.items()) {
        if (std::find(known.begin(), known.end(), key) == known.end())
            throw CatalogError{at(where, key), "unknown key"};
    }
}

std::string requiredString(const json& object, const std::string& where, const char* key)
{
    const auto it = object.find(key);
    if (it == object.end())
        throw CatalogError{where, std::string("missing \"") + key + "\""};
    if (!it->is_string() || it->get_ref<const std::string&>().empty())
        throw CatalogError{at(where, key), "must be a non-empty string"};
    return it->get<std::string>();
}

std::string optionalString(const json& object, const std::string& where, const char* key)
{
    const auto it = object.find(key);
    if (it == object.end())
        return {};
    if (!it->is_string())
        throw CatalogError{at(where, key), "must be a string"};
    return it->get<std::string>();
}

std::vector<std::string> stringList(const json& value, const std::string& where)
{
    if (!value.is_array())
        throw CatalogError{where, "must be an array of strings"};
    std::vector<std::string> out;
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_string())
            throw CatalogError{where + "[" + std::to_string(i) + "]", "must be a string"};
        out.push_back(value[i].get<std::string>());
    }
    return out;
}

bool isDottedVersion(std::string_view v)
{
    if (v.empty() || v.front() == '.' || v.back() == '.')
        return false;
    return std::all_of(v.begin(), v.end(),
                       [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

const json& requiredArray(const json& root, const char* key)
{
    const auto it = root.find(key);
    if (it == root.end())
        throw CatalogError{key, "missing"};
    if (!it->is_array() || it->empty())
        throw CatalogError{key, "must be a non-empty array"};
    return *it;
}

template <typename T> void requireUniqueIds(const std::vector<T>& items, const char* what)
{
    std::set<std::string> seen;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (!seen.insert(items[i].id).second)
            throw CatalogError{std::string(what) + "[" + std::to_string(i) + "].id",
                               "duplicate id \"" + items[i].id + "\""};
    }
}

Catalog loadBuiltin()
{
    QFile file(QStringLiteral(":/recipegrid/catalog.json"));
    if (!file.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "recipegrid: the built-in catalog resource is missing\n");
        std::abort();
    }
    const QByteArray bytes = file.readAll();
    std::string error;
    auto catalog = Catalog::fromJson(std::string_view(bytes.constData(), bytes.size()), &error);
    if (!catalog) {
        // The resource is compiled in and covered by tests; a bad one is a build defect.
        std::fprintf(stderr, "recipegrid: the built-in catalog is invalid: %s\n", error.c_str());
        std::abort();
    }
    return std::move(*catalog);
}

} // namespace

std::string_view cpuFamilyId(CpuFamily family)
{
    switch (family) {
    case CpuFamily::X86:
        return "x86";
    case CpuFamily::Arm:
        return "arm";
    case CpuFamily::Apple:
        return "apple";
    }
    return "x86";
}

bool CpuIsa::acceptsFlags(const std::vector<std::string>& recipeFlags) const
{
    if (recipeFlags == flags)
        return true;
    return std::find(equivalentFlags.begin(), equivalentFlags.end(), recipeFlags) !=
           equivalentFlags.end();
}

const Catalog& Catalog::builtin()
{
    static const Catalog catalog = loadBuiltin(); // thread-safe initialisation (C++11 statics)
    return catalog;
}

std::optional<Catalog> Catalog::fromJson(std::string_view text, std::string* error)
{
    auto fail = [error](const std::string& message) -> std::optional<Catalog> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    const json root = json::parse(text.begin(), text.end(), nullptr, false);
    if (root.is_discarded())
        return fail("catalog: not valid JSON");
    if (!root.is_object())
        return fail("catalog: the top level must be an object");

    Catalog catalog;
    try {
        rejectUnknownKeys(root, "catalog", {"schema", "gpuArchs", "isas", "pythons", "cudas"});
        if (!root.contains("schema") || root["schema"] != 1)
            throw CatalogError{"schema", "must be 1"};

        const json& archs = requiredArray(root, "gpuArchs");
        for (std::size_t i = 0; i < archs.size(); ++i) {
            const std::string where = "gpuArchs[" + std::to_string(i) + "]";
            const json& a = archs[i];
            if (!a.is_object())
                throw CatalogError{where, "must be an object"};
            rejectUnknownKeys(a, where,
                              {"id", "number", "dotted", "generation", "description", "minCuda",
                               "maxCuda", "armSoc"});
            GpuArch arch;
            arch.id = requiredString(a, where, "id");
            arch.number = requiredString(a, where, "number");
            arch.dotted = requiredString(a, where, "dotted");
            arch.generation = requiredString(a, where, "generation");
            arch.description = requiredString(a, where, "description");
            arch.minCuda = optionalString(a, where, "minCuda");
            arch.maxCuda = optionalString(a, where, "maxCuda");
            if (arch.id != "sm" + arch.number)
                throw CatalogError{at(where, "id"), "must be \"sm\" followed by the number"};
            if (!isDottedVersion(arch.dotted))
                throw CatalogError{at(where, "dotted"), "must be a dotted version like \"9.0\""};
            if (!arch.minCuda.empty() && !isDottedVersion(arch.minCuda))
                throw CatalogError{at(where, "minCuda"), "must be a dotted version"};
            if (!arch.maxCuda.empty() && !isDottedVersion(arch.maxCuda))
                throw CatalogError{at(where, "maxCuda"), "must be a dotted version"};
            if (const auto it = a.find("armSoc"); it != a.end()) {
                if (!it->is_boolean())
                    throw CatalogError{at(where, "armSoc"), "must be true or false"};
                arch.armSoc = it->get<bool>();
            }
            catalog.m_gpuArchs.push_back(std::move(arch));
        }
        requireUniqueIds(catalog.m_gpuArchs, "gpuArchs");

        const json& isas = requiredArray(root, "isas");
        for (std::size_t i = 0; i < isas.size(); ++i) {
            const std::string where = "isas[" + std::to_string(i) + "]";
            const json& s = isas[i];
            if (!s.is_object())
                throw CatalogError{where, "must be an object"};
            rejectUnknownKeys(
                s, where,
                {"id", "description", "family", "platform", "flags", "aliases", "equivalentFlags"});
            CpuIsa isa;
            isa.id = requiredString(s, where, "id");
            isa.description = requiredString(s, where, "description");
            isa.platform = requiredString(s, where, "platform");
            const std::string family = requiredString(s, where, "family");
            if (family == "x86")
                isa.family = CpuFamily::X86;
            else if (family == "arm")
                isa.family = CpuFamily::Arm;
            else if (family == "apple")
                isa.family = CpuFamily::Apple;
            else
                throw CatalogError{at(where, "family"), "must be \"x86\", \"arm\" or \"apple\""};
            if (!s.contains("flags"))
                throw CatalogError{where, "missing \"flags\""};
            isa.flags = stringList(s["flags"], at(where, "flags"));
            if (s.contains("aliases"))
                isa.aliases = stringList(s["aliases"], at(where, "aliases"));
            if (s.contains("equivalentFlags")) {
                const json& eq = s["equivalentFlags"];
                if (!eq.is_array())
                    throw CatalogError{at(where, "equivalentFlags"), "must be an array of arrays"};
                for (std::size_t k = 0; k < eq.size(); ++k)
                    isa.equivalentFlags.push_back(stringList(
                        eq[k], at(where, "equivalentFlags") + "[" + std::to_string(k) + "]"));
            }
            catalog.m_isas.push_back(std::move(isa));
        }
        requireUniqueIds(catalog.m_isas, "isas");

        const json& pythons = requiredArray(root, "pythons");
        for (std::size_t i = 0; i < pythons.size(); ++i) {
            const std::string where = "pythons[" + std::to_string(i) + "]";
            const json& p = pythons[i];
            if (!p.is_object())
                throw CatalogError{where, "must be an object"};
            rejectUnknownKeys(p, where, {"id", "dotted", "packageSet"});
            PythonVersion py;
            py.id = requiredString(p, where, "id");
            py.dotted = requiredString(p, where, "dotted");
            py.packageSet = requiredString(p, where, "packageSet");
            std::string digits = py.dotted;
            std::erase(digits, '.');
            if (!isDottedVersion(py.dotted) || digits != py.id)
                throw CatalogError{at(where, "dotted"), "must be the dotted form of the id"};
            catalog.m_pythons.push_back(std::move(py));
        }
        requireUniqueIds(catalog.m_pythons, "pythons");

        const json& cudas = requiredArray(root, "cudas");
        for (std::size_t i = 0; i < cudas.size(); ++i) {
            const std::string where = "cudas[" + std::to_string(i) + "]";
            const json& c = cudas[i];
            if (!c.is_object())
                throw CatalogError{where, "must be an object"};
            rejectUnknownKeys(c, where, {"id", "dotted", "packageSets"});
            CudaVersion cuda;
            cuda.id = requiredString(c, where, "id");
            cuda.dotted = requiredString(c, where, "dotted");
            std::string underscored = cuda.dotted;
            std::replace(underscored.begin(), underscored.end(), '.', '_');
            if (!isDottedVersion(cuda.dotted) || underscored != cuda.id)
                throw CatalogError{at(where, "dotted"), "must be the dotted form of the id"};
            if (!c.contains("packageSets"))
                throw CatalogError{where, "missing \"packageSets\""};
            cuda.packageSets = stringList(c["packageSets"], at(where, "packageSets"));
            catalog.m_cudas.push_back(std::move(cuda));
        }
        requireUniqueIds(catalog.m_cudas, "cudas");
    } catch (const CatalogError& e) {
        return fail("catalog: " + e.where + ": " + e.what);
    }
    return catalog;
}

const GpuArch* Catalog::gpuArch(std::string_view id) const
{
    for (const auto& a : m_gpuArchs)
        if (a.id == id)
            return &a;
    return nullptr;
}

const GpuArch* Catalog::gpuArchByDotted(std::string_view dotted) const
{
    for (const auto& a : m_gpuArchs)
        if (a.dotted == dotted)
            return &a;
    return nullptr;
}

const CpuIsa* Catalog::isa(std::string_view id) const
{
    for (const auto& s : m_isas)
        if (s.id == id || std::find(s.aliases.begin(), s.aliases.end(), id) != s.aliases.end())
            return &s;
    return nullptr;
}

const PythonVersion* Catalog::python(std::string_view idOrDotted) const
{
    for (const auto& p : m_pythons)
        if (p.id == idOrDotted || p.dotted == idOrDotted)
            return &p;
    return nullptr;
}

const CudaVersion* Catalog::cuda(std::string_view idOrDotted) const
{
    for (const auto& c : m_cudas)
        if (c.id == idOrDotted || c.dotted == idOrDotted)
            return &c;
    return nullptr;
}

const CudaVersion* Catalog::cudaByPackageSet(std::string_view packageSet) const
{
    for (const auto& c : m_cudas)
        if (std::find(c.packageSets.begin(), c.packageSets.end(), packageSet) !=
            c.packageSets.end())
            return &c;
    return nullptr;
}

bool Catalog::canRun(const GpuArch* arch, const CpuIsa& isa, std::string_view cudaDotted,
                     std::string* why) const
{
    auto refuse = [why](std::string reason) {
        if (why)
            *why = std::move(reason);
        return false;
    };
    if (isa.family == CpuFamily::Apple) {
        if (arch)
            return refuse(isa.id + " (" + isa.description + ") is Apple Silicon; " + arch->id +
                          " is an NVIDIA GPU, which macOS cannot use");
        if (!cudaDotted.empty())
            return refuse(isa.id + " (" + isa.description + ") is Apple Silicon; CUDA " +
                          std::string(cudaDotted) + " does not exist on macOS");
        return true;
    }
    if (!arch)
        return true;
    if (arch->armSoc && isa.family != CpuFamily::Arm)
        return refuse(arch->id + " (" + arch->description + ") is an ARM SoC; " + isa.id +
                      " is an " + std::string(cpuFamilyId(isa.family)) + " ISA");
    if (!cudaDotted.empty())
        return cudaSupports(*arch, cudaDotted, why);
    return true;
}

bool Catalog::cudaSupports(const GpuArch& arch, std::string_view cudaDotted, std::string* why) const
{
    const std::string cuda(cudaDotted);
    if (!arch.minCuda.empty() && compareVersions(cuda, arch.minCuda) < 0) {
        if (why)
            *why = arch.id + " (" + arch.description + ") needs CUDA " + arch.minCuda +
                   " or later; CUDA " + cuda + " cannot target it";
        return false;
    }
    if (!arch.maxCuda.empty() && compareVersions(cuda, arch.maxCuda) > 0) {
        if (why)
            *why = "CUDA " + cuda + " dropped " + arch.id + " (" + arch.description +
                   "); the last CUDA that targets it is " + arch.maxCuda;
        return false;
    }
    return true;
}

int compareVersions(std::string_view a, std::string_view b)
{
    // Component-wise numeric comparison; '.' and '_' both separate ("12_9" == "12.9"), and a
    // missing component counts as 0 ("13" == "13.0"). Non-numeric tails compare as text.
    auto next = [](std::string_view& s) {
        const auto end = s.find_first_of("._");
        std::string_view part = s.substr(0, end);
        s = end == std::string_view::npos ? std::string_view{} : s.substr(end + 1);
        return part;
    };
    while (!a.empty() || !b.empty()) {
        const std::string_view pa = next(a);
        const std::string_view pb = next(b);
        unsigned long long na = 0, nb = 0;
        const auto ra = std::from_chars(pa.data(), pa.data() + pa.size(), na);
        const auto rb = std::from_chars(pb.data(), pb.data() + pb.size(), nb);
        const bool numericA = pa.empty() || ra.ptr == pa.data() + pa.size();
        const bool numericB = pb.empty() || rb.ptr == pb.data() + pb.size();
        if (numericA && numericB) {
            if (na != nb)
                return na < nb ? -1 : 1;
        } else if (const int c = pa.compare(pb); c != 0) {
            return c < 0 ? -1 : 1;
        }
    }
    return 0;
}

} // namespace rg
