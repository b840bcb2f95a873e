#include "matrix/catalog.h"

#include "matrix/cpufeatureset.h"
#include "matrix/variantname.h"
#include "matrix/versionspelling.h"

#include <QByteArray>
#include <QFile>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

namespace rg {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// Where a value sits, in both spellings errors use: "gpuArchs[0].id" for catalog.json
// messages, "/gpuArchs/0/id" for the JSON pointers of a spec's "catalog" fragment.
struct Where
{
    std::string dotted;
    std::string pointer;

    Where key(std::string_view k) const
    {
        std::string escaped;
        for (const char c : k)
            escaped += c == '~'   ? std::string("~0")
                       : c == '/' ? std::string("~1")
                                  : std::string(1, c);
        return {dotted.empty() ? std::string(k) : dotted + "." + std::string(k),
                pointer + "/" + escaped};
    }
    Where index(std::size_t i) const
    {
        return {dotted + "[" + std::to_string(i) + "]", pointer + "/" + std::to_string(i)};
    }
};

// Thrown while reading the catalog.
struct CatalogError
{
    Where where;
    std::string what;
};

void rejectUnknownKeys(const json& object, const Where& where,
                       std::initializer_list<std::string_view> known)
{
    for (const auto& [key, value] : object.items()) {
        if (std::find(known.begin(), known.end(), key) == known.end())
            throw CatalogError{where.key(key), "unknown key"};
    }
}

std::string requiredString(const json& object, const Where& where, const char* key)
{
    const auto it = object.find(key);
    if (it == object.end())
        throw CatalogError{where, std::string("missing \"") + key + "\""};
    if (!it->is_string() || it->get_ref<const std::string&>().empty())
        throw CatalogError{where.key(key), "must be a non-empty string"};
    return it->get<std::string>();
}

std::string optionalString(const json& object, const Where& where, const char* key)
{
    const auto it = object.find(key);
    if (it == object.end())
        return {};
    if (!it->is_string())
        throw CatalogError{where.key(key), "must be a string"};
    return it->get<std::string>();
}

std::vector<std::string> stringList(const json& value, const Where& where)
{
    if (!value.is_array())
        throw CatalogError{where, "must be an array of strings"};
    std::vector<std::string> out;
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_string())
            throw CatalogError{where.index(i), "must be a string"};
        out.push_back(value[i].get<std::string>());
    }
    return out;
}

std::vector<std::string> optionalStringList(const json& object, const Where& where, const char* key)
{
    const auto it = object.find(key);
    return it == object.end() ? std::vector<std::string>{} : stringList(*it, where.key(key));
}

bool isDottedVersion(std::string_view v)
{
    if (v.empty() || v.front() == '.' || v.back() == '.')
        return false;
    return std::all_of(v.begin(), v.end(),
                       [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

// Digits in `parts` dot-separated components, none empty: "13.0" for 2, not "13..0" or "13".
bool isVersionOf(std::string_view v, std::size_t parts)
{
    for (std::size_t i = 0; i < parts; ++i) {
        const auto dot = v.find('.');
        if (!allDigits(v.substr(0, dot)) || (dot == std::string_view::npos) != (i + 1 == parts))
            return false;
        v = dot == std::string_view::npos ? std::string_view{} : v.substr(dot + 1);
    }
    return true;
}

// A section of the catalog: required and non-empty in catalog.json, optional (possibly empty)
// in a fragment. Null when a fragment leaves it out.
const json* section(const json& root, const char* key, bool fragment)
{
    const auto it = root.find(key);
    if (it == root.end()) {
        if (fragment)
            return nullptr;
        throw CatalogError{Where{}.key(key), "missing"};
    }
    if (!it->is_array() || (!fragment && it->empty()))
        throw CatalogError{Where{}.key(key),
                           fragment ? "must be an array" : "must be a non-empty array"};
    return &*it;
}

template <typename T> void requireUniqueIds(const std::vector<T>& items, const char* what)
{
    std::set<std::string> seen;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (!seen.insert(items[i].id).second)
            throw CatalogError{Where{}.key(what).index(i).key("id"),
                               "duplicate id \"" + items[i].id + "\""};
    }
}

GpuArch parseGpuArch(const json& a, const Where& where)
{
    if (!a.is_object())
        throw CatalogError{where, "must be an object"};
    rejectUnknownKeys(
        a, where,
        {"id", "number", "dotted", "generation", "description", "minCuda", "maxCuda", "armSoc"});
    GpuArch arch;
    arch.id = requiredString(a, where, "id");
    arch.number = requiredString(a, where, "number");
    arch.dotted = requiredString(a, where, "dotted");
    arch.generation = requiredString(a, where, "generation");
    arch.description = requiredString(a, where, "description");
    arch.minCuda = optionalString(a, where, "minCuda");
    arch.maxCuda = optionalString(a, where, "maxCuda");
    arch.known = true;
    if (arch.id != "sm" + arch.number)
        throw CatalogError{where.key("id"), "must be \"sm\" followed by the number"};
    if (!isDottedVersion(arch.dotted))
        throw CatalogError{where.key("dotted"), "must be a dotted version like \"9.0\""};
    if (!arch.minCuda.empty() && !isDottedVersion(arch.minCuda))
        throw CatalogError{where.key("minCuda"), "must be a dotted version"};
    if (!arch.maxCuda.empty() && !isDottedVersion(arch.maxCuda))
        throw CatalogError{where.key("maxCuda"), "must be a dotted version"};
    if (const auto it = a.find("armSoc"); it != a.end()) {
        if (!it->is_boolean())
            throw CatalogError{where.key("armSoc"), "must be true or false"};
        arch.armSoc = it->get<bool>();
    }
    return arch;
}

CpuIsa parseIsa(const json& s, const Where& where)
{
    if (!s.is_object())
        throw CatalogError{where, "must be an object"};
    rejectUnknownKeys(s, where,
                      {"id", "description", "family", "platform", "flags", "aliases",
                       "equivalentFlags", "requires", "recommends", "forbids"});
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
        throw CatalogError{where.key("family"), "must be \"x86\", \"arm\" or \"apple\""};
    if (!s.contains("flags"))
        throw CatalogError{where, "missing \"flags\""};
    isa.flags = stringList(s["flags"], where.key("flags"));
    isa.aliases = optionalStringList(s, where, "aliases");
    if (s.contains("equivalentFlags")) {
        const json& eq = s["equivalentFlags"];
        if (!eq.is_array())
            throw CatalogError{where.key("equivalentFlags"), "must be an array of arrays"};
        for (std::size_t k = 0; k < eq.size(); ++k)
            isa.equivalentFlags.push_back(stringList(eq[k], where.key("equivalentFlags").index(k)));
    }
    isa.requiredFeatures = optionalStringList(s, where, "requires");
    isa.recommendedFeatures = optionalStringList(s, where, "recommends");
    isa.forbiddenFeatures = optionalStringList(s, where, "forbids");
    // A misspelt feature would be judged absent on every recipe, so refuse it here.
    for (const char* key : {"requires", "recommends", "forbids"}) {
        const auto& list = std::string_view(key) == "requires"     ? isa.requiredFeatures
                           : std::string_view(key) == "recommends" ? isa.recommendedFeatures
                                                                   : isa.forbiddenFeatures;
        for (std::size_t i = 0; i < list.size(); ++i)
            if (!CpuFeatureSet::isKnownFeature(list[i]))
                throw CatalogError{where.key(key).index(i),
                                   "unknown CPU feature \"" + list[i] + "\""};
    }
    return isa;
}

PythonVersion parsePython(const json& p, const Where& where)
{
    if (!p.is_object())
        throw CatalogError{where, "must be an object"};
    rejectUnknownKeys(p, where, {"id", "dotted", "packageSet"});
    PythonVersion py;
    py.id = requiredString(p, where, "id");
    py.dotted = requiredString(p, where, "dotted");
    py.packageSet = requiredString(p, where, "packageSet");
    py.known = true;
    std::string digits = py.dotted;
    std::erase(digits, '.');
    if (!isDottedVersion(py.dotted) || digits != py.id)
        throw CatalogError{where.key("dotted"), "must be the dotted form of the id"};
    return py;
}

CudaVersion parseCuda(const json& c, const Where& where)
{
    if (!c.is_object())
        throw CatalogError{where, "must be an object"};
    rejectUnknownKeys(c, where, {"id", "dotted", "packageSets"});
    CudaVersion cuda;
    cuda.id = requiredString(c, where, "id");
    cuda.dotted = requiredString(c, where, "dotted");
    cuda.known = true;
    std::string underscored = cuda.dotted;
    std::replace(underscored.begin(), underscored.end(), '.', '_');
    if (!isDottedVersion(cuda.dotted) || underscored != cuda.id)
        throw CatalogError{where.key("dotted"), "must be the dotted form of the id"};
    if (!c.contains("packageSets"))
        throw CatalogError{where, "missing \"packageSets\""};
    cuda.packageSets = stringList(c["packageSets"], where.key("packageSets"));
    return cuda;
}

PackageInfo parsePackage(const json& p, const Where& where)
{
    if (!p.is_object())
        throw CatalogError{where, "must be an object"};
    rejectUnknownKeys(p, where, {"id", "minArch", "companionOf"});
    PackageInfo package;
    package.id = requiredString(p, where, "id");
    package.minArch = optionalString(p, where, "minArch");
    package.companionOf = optionalString(p, where, "companionOf");
    const bool word = std::all_of(package.id.begin(), package.id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
               c == '.' || c == '+';
    });
    if (!word)
        throw CatalogError{where.key("id"), "must be lower-case letters, digits and - _ . +"};
    if (!package.minArch.empty() && !isDottedVersion(package.minArch))
        throw CatalogError{where.key("minArch"), "must be a dotted compute capability"};
    if (package.companionOf == package.id)
        throw CatalogError{where.key("companionOf"), "a package is not its own companion"};
    return package;
}

template <typename T, typename Parse>
void parseSection(const json& root, const char* key, bool fragment, std::vector<T>& out,
                  Parse parse)
{
    const json* items = section(root, key, fragment);
    if (!items)
        return;
    for (std::size_t i = 0; i < items->size(); ++i)
        out.push_back(parse((*items)[i], Where{}.key(key).index(i)));
    requireUniqueIds(out, key);
}

// Replaces same-id entries of `base` with those of `more` and inserts the rest where
// `before(added, existing)` first holds (at the end when it never does).
template <typename T, typename Before>
void merge(std::vector<T>& base, const std::vector<T>& more, Before before)
{
    for (const T& item : more) {
        const auto same =
            std::find_if(base.begin(), base.end(), [&](const T& b) { return b.id == item.id; });
        if (same != base.end()) {
            *same = item;
            continue;
        }
        const auto at =
            std::find_if(base.begin(), base.end(), [&](const T& b) { return before(item, b); });
        base.insert(at, item);
    }
}

ordered_json stringsJson(const std::vector<std::string>& items)
{
    ordered_json out = ordered_json::array();
    for (const auto& s : items)
        out.push_back(s);
    return out;
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

std::string gpuArchLabel(std::string_view id)
{
    std::string label(id);
    std::transform(label.begin(), label.end(), label.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return label;
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
    std::string pointer, message;
    auto catalog = parse(text, false, &pointer, &message);
    if (!catalog && error)
        *error = "catalog: " + message;
    return catalog;
}

std::optional<Catalog> Catalog::fragmentFromJson(std::string_view text, std::string* pointer,
                                                 std::string* message)
{
    std::string where, what;
    auto catalog = parse(text, true, &where, &what);
    if (!catalog) {
        // parse() reports "dotted.where: what"; a fragment's caller wants the pointer apart.
        if (pointer)
            *pointer = where;
        if (message)
            *message = what;
    }
    return catalog;
}

std::optional<Catalog> Catalog::parse(std::string_view text, bool fragment, std::string* pointer,
                                      std::string* message)
{
    auto fail = [&](const Where& where, const std::string& what) -> std::optional<Catalog> {
        *pointer = where.pointer;
        *message = fragment || where.dotted.empty() ? what : where.dotted + ": " + what;
        return std::nullopt;
    };
    const json root = json::parse(text.begin(), text.end(), nullptr, false);
    if (root.is_discarded())
        return fail({}, "not valid JSON");
    if (!root.is_object())
        return fail({}, "the top level must be an object");

    Catalog catalog;
    try {
        if (fragment) {
            rejectUnknownKeys(root, {}, {"gpuArchs", "isas", "pythons", "cudas", "packages"});
        } else {
            rejectUnknownKeys(root, {},
                              {"schema", "gpuArchs", "isas", "pythons", "cudas", "packages"});
            if (!root.contains("schema") || root["schema"] != 1)
                throw CatalogError{Where{}.key("schema"), "must be 1"};
        }
        parseSection(root, "gpuArchs", fragment, catalog.m_gpuArchs, parseGpuArch);
        parseSection(root, "isas", fragment, catalog.m_isas, parseIsa);
        parseSection(root, "pythons", fragment, catalog.m_pythons, parsePython);
        parseSection(root, "cudas", fragment, catalog.m_cudas, parseCuda);
        // Packages are optional even in catalog.json: without them nothing is limited.
        parseSection(root, "packages", true, catalog.m_packages, parsePackage);
        if (!fragment) {
            for (std::size_t i = 0; i < catalog.m_packages.size(); ++i) {
                const std::string& companion = catalog.m_packages[i].companionOf;
                if (!companion.empty() && !catalog.package(companion))
                    throw CatalogError{Where{}.key("packages").index(i).key("companionOf"),
                                       "names no package of the catalog"};
            }
        }
    } catch (const CatalogError& e) {
        return fail(e.where, e.what);
    }
    return catalog;
}

std::string Catalog::toJson(bool full) const
{
    ordered_json root = ordered_json::object();
    if (full)
        root["schema"] = 1;
    if (full || !m_gpuArchs.empty()) {
        ordered_json archs = ordered_json::array();
        for (const GpuArch& a : m_gpuArchs) {
            ordered_json o = {{"id", a.id},
                              {"number", a.number},
                              {"dotted", a.dotted},
                              {"generation", a.generation},
                              {"description", a.description}};
            if (!a.minCuda.empty())
                o["minCuda"] = a.minCuda;
            if (!a.maxCuda.empty())
                o["maxCuda"] = a.maxCuda;
            if (a.armSoc)
                o["armSoc"] = true;
            archs.push_back(std::move(o));
        }
        root["gpuArchs"] = std::move(archs);
    }
    if (full || !m_isas.empty()) {
        ordered_json isas = ordered_json::array();
        for (const CpuIsa& s : m_isas) {
            ordered_json o = {{"id", s.id},
                              {"description", s.description},
                              {"family", std::string(cpuFamilyId(s.family))},
                              {"platform", s.platform},
                              {"flags", stringsJson(s.flags)}};
            if (!s.aliases.empty())
                o["aliases"] = stringsJson(s.aliases);
            if (!s.equivalentFlags.empty()) {
                ordered_json eq = ordered_json::array();
                for (const auto& flags : s.equivalentFlags)
                    eq.push_back(stringsJson(flags));
                o["equivalentFlags"] = std::move(eq);
            }
            if (!s.requiredFeatures.empty())
                o["requires"] = stringsJson(s.requiredFeatures);
            if (!s.recommendedFeatures.empty())
                o["recommends"] = stringsJson(s.recommendedFeatures);
            if (!s.forbiddenFeatures.empty())
                o["forbids"] = stringsJson(s.forbiddenFeatures);
            isas.push_back(std::move(o));
        }
        root["isas"] = std::move(isas);
    }
    if (full || !m_pythons.empty()) {
        ordered_json pythons = ordered_json::array();
        for (const PythonVersion& p : m_pythons)
            pythons.push_back({{"id", p.id}, {"dotted", p.dotted}, {"packageSet", p.packageSet}});
        root["pythons"] = std::move(pythons);
    }
    if (full || !m_cudas.empty()) {
        ordered_json cudas = ordered_json::array();
        for (const CudaVersion& c : m_cudas)
            cudas.push_back(
                {{"id", c.id}, {"dotted", c.dotted}, {"packageSets", stringsJson(c.packageSets)}});
        root["cudas"] = std::move(cudas);
    }
    if (!m_packages.empty()) {
        ordered_json packages = ordered_json::array();
        for (const PackageInfo& p : m_packages) {
            ordered_json o = {{"id", p.id}};
            if (!p.minArch.empty())
                o["minArch"] = p.minArch;
            if (!p.companionOf.empty())
                o["companionOf"] = p.companionOf;
            packages.push_back(std::move(o));
        }
        root["packages"] = std::move(packages);
    }
    return root.dump();
}

Catalog Catalog::extendedWith(const Catalog& more) const
{
    Catalog out = *this;
    merge(out.m_gpuArchs, more.m_gpuArchs, [](const GpuArch& added, const GpuArch& existing) {
        return compareVersions(added.dotted, existing.dotted) > 0;
    });
    merge(out.m_isas, more.m_isas, [](const CpuIsa& added, const CpuIsa& existing) {
        // After the last ISA of the same family: before the first of a later family.
        return static_cast<int>(existing.family) > static_cast<int>(added.family);
    });
    merge(out.m_pythons, more.m_pythons,
          [](const PythonVersion& added, const PythonVersion& existing) {
              return compareVersions(added.dotted, existing.dotted) < 0;
          });
    merge(out.m_cudas, more.m_cudas, [](const CudaVersion& added, const CudaVersion& existing) {
        return compareVersions(added.dotted, existing.dotted) < 0;
    });
    merge(out.m_packages, more.m_packages,
          [](const PackageInfo&, const PackageInfo&) { return false; });
    return out;
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

const PackageInfo* Catalog::package(std::string_view word) const
{
    const auto byId = [this](std::string_view id) -> const PackageInfo* {
        for (const auto& p : m_packages)
            if (p.id == id)
                return &p;
        return nullptr;
    };
    if (const PackageInfo* exact = byId(word))
        return exact;
    const auto digits = word.find_last_not_of("0123456789");
    if (digits == std::string_view::npos || digits + 1 == word.size())
        return nullptr;
    return byId(word.substr(0, digits + 1));
}

GpuArch Catalog::describeGpuArch(std::string_view id) const
{
    if (const GpuArch* known = gpuArch(id))
        return *known;
    GpuArch arch;
    arch.id = id;
    arch.description = "unknown to the catalog";
    const std::string_view digits = id.starts_with("sm") ? id.substr(2) : std::string_view{};
    // Compute capabilities are major.minor with a one-digit minor: "86" is 8.6, "121" is 12.1.
    if (digits.size() >= 2 && allDigits(digits)) {
        arch.number = digits;
        arch.dotted = std::string(digits.substr(0, digits.size() - 1)) + "." + digits.back();
    }
    return arch;
}

CudaVersion Catalog::describeCuda(std::string_view idOrDotted) const
{
    if (const CudaVersion* known = cuda(idOrDotted))
        return *known;
    CudaVersion version;
    std::string dotted(idOrDotted);
    std::replace(dotted.begin(), dotted.end(), '_', '.');
    const auto parts = static_cast<std::size_t>(std::count(dotted.begin(), dotted.end(), '.')) + 1;
    if (parts < 2 || !isVersionOf(dotted, parts)) {
        version.id = idOrDotted;
        return version;
    }
    version.dotted = dotted;
    version.id = dotted;
    std::replace(version.id.begin(), version.id.end(), '.', '_');
    version.packageSets = {"cudaPackages_" + version.id};
    return version;
}

PythonVersion Catalog::describePython(std::string_view idOrDotted) const
{
    if (const PythonVersion* known = python(idOrDotted))
        return *known;
    PythonVersion version;
    std::string digits(idOrDotted);
    std::string dotted;
    if (allDigits(digits) && digits.size() >= 2) {
        // Python's major version has one digit; the rest is the minor ("3100" is 3.100).
        dotted = dottedPython(digits);
    } else if (isVersionOf(digits, 2)) {
        dotted = digits;
        std::erase(digits, '.');
    } else {
        version.id = idOrDotted;
        return version;
    }
    version.id = digits;
    version.dotted = dotted;
    version.packageSet = "python" + digits + "Packages";
    return version;
}

const std::string& Feasibility::why() const
{
    if (!hardwareWhy.empty())
        return hardwareWhy;
    return cudaWhy.empty() ? packageWhy : cudaWhy;
}

Feasibility Catalog::feasibility(const VariantName& name) const
{
    Feasibility f;
    const GpuArch* arch = name.accelerator == Accelerator::Cuda ? gpuArch(name.gpuArch) : nullptr;
    const CpuIsa* cpu = name.isa.empty() ? nullptr : isa(name.isa);
    if (cpu && name.accelerator == Accelerator::Cpu && cpu->family == CpuFamily::Apple)
        f.hardwareWhy = "CPU-only recipes build for Linux; " + cpu->id + " is Apple silicon";
    else if (cpu && name.accelerator == Accelerator::Darwin && cpu->family != CpuFamily::Apple)
        f.hardwareWhy = "Darwin recipes run on Apple silicon (mps), not " + cpu->id;
    else if (cpu && (arch || name.accelerator != Accelerator::Cuda))
        canRun(arch, *cpu, {}, &f.hardwareWhy);
    if (arch && !name.cuda.empty() && cuda(name.cuda))
        cudaSupports(*arch, name.cuda, &f.cudaWhy);
    if (const PackageInfo* limited = arch ? package(name.package) : nullptr)
        packageSupports(*limited, *arch, &f.packageWhy);
    return f;
}

bool Catalog::packageSupports(const PackageInfo& package, const GpuArch& arch,
                              std::string* why) const
{
    // Follow companionOf to the package that carries the limit; the hop count guards against
    // a cycle an extension could introduce.
    const PackageInfo* limited = &package;
    for (std::size_t hops = 0;
         limited->minArch.empty() && !limited->companionOf.empty() && hops <= m_packages.size();
         ++hops) {
        const PackageInfo* next = this->package(limited->companionOf);
        if (!next)
            break;
        limited = next;
    }
    if (limited->minArch.empty() || arch.dotted.empty() ||
        compareVersions(arch.dotted, limited->minArch) >= 0)
        return true;
    if (why) {
        std::string text =
            limited == &package ? package.id : package.id + " goes with " + limited->id + ", which";
        *why = text + " needs a GPU of compute capability " + limited->minArch + " or newer; " +
               arch.id + " (" + arch.description + ") is " + arch.dotted;
    }
    return false;
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
