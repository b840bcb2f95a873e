#include "matrix/matrixspec.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

namespace rg {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr std::size_t npos = std::string::npos;

std::string escapePointerToken(std::string_view token)
{
    std::string out;
    for (const char c : token) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

std::string child(const std::string& pointer, std::string_view key)
{
    return pointer + "/" + escapePointerToken(key);
}

std::string child(const std::string& pointer, std::size_t index)
{
    return pointer + "/" + std::to_string(index);
}

// Maps JSON pointers to byte offsets in the text, so schema errors can name a line and column
// (nlohmann keeps no positions in its values). Runs only on text nlohmann already accepted.
class JsonLocator
{
public:
    explicit JsonLocator(std::string_view text) : m_text(text) { value(""); }

    // Offset of the value at `pointer`, or of its member key when `key` is set; the nearest
    // enclosing value when the pointer names nothing (a missing member).
    std::size_t offset(std::string pointer, bool key) const
    {
        while (true) {
            if (const auto it = m_entries.find(pointer); it != m_entries.end())
                return key && it->second.key != npos ? it->second.key : it->second.value;
            if (pointer.empty())
                return 0;
            pointer.erase(pointer.rfind('/'));
            key = false;
        }
    }
    // Pointer and key offset of the first member whose key repeats an earlier one.
    const std::string& duplicateKey() const { return m_duplicate; }
    std::size_t duplicateOffset() const { return m_duplicateOffset; }

private:
    struct Entry
    {
        std::size_t value = npos;
        std::size_t key = npos;
    };

    void skipSpace()
    {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' ||
                                         m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
            ++m_pos;
    }

    // Skips a string literal; gives its text between the quotes as written.
    std::string_view literal()
    {
        const std::size_t begin = ++m_pos; // past the opening quote
        while (m_pos < m_text.size() && m_text[m_pos] != '"')
            m_pos += m_text[m_pos] == '\\' ? 2 : 1;
        m_pos = std::min(m_pos, m_text.size());
        const std::string_view raw = m_text.substr(begin, m_pos - begin);
        ++m_pos; // closing quote
        return raw;
    }

    // A member key as the spec parser reads it: one written with escapes (\u0070, surrogate
    // pairs) is decoded by nlohmann as the parser decoded it, so it names the same pointer.
    // The whole text parsed already, so the literal does too.
    std::string key()
    {
        const std::string_view raw = literal();
        if (raw.find('\\') == npos)
            return std::string(raw);
        return json::parse('"' + std::string(raw) + '"').get<std::string>();
    }

    void value(const std::string& pointer, std::size_t keyOffset = npos)
    {
        skipSpace();
        if (m_pos >= m_text.size())
            return;
        m_entries[pointer] = Entry{m_pos, keyOffset};
        const char c = m_text[m_pos];
        if (c == '{') {
            ++m_pos;
            std::set<std::string> seen;
            while (true) {
                skipSpace();
                if (m_pos >= m_text.size() || m_text[m_pos] == '}')
                    break;
                const std::size_t keyAt = m_pos;
                const std::string name = key();
                const std::string memberPointer = child(pointer, name);
                if (!seen.insert(name).second && m_duplicate.empty()) {
                    m_duplicate = memberPointer;
                    m_duplicateOffset = keyAt;
                }
                skipSpace();
                ++m_pos; // ':'
                value(memberPointer, keyAt);
                skipSpace();
                if (m_pos < m_text.size() && m_text[m_pos] == ',')
                    ++m_pos;
            }
            ++m_pos;
        } else if (c == '[') {
            ++m_pos;
            for (std::size_t index = 0;; ++index) {
                skipSpace();
                if (m_pos >= m_text.size() || m_text[m_pos] == ']')
                    break;
                value(child(pointer, index));
                skipSpace();
                if (m_pos < m_text.size() && m_text[m_pos] == ',')
                    ++m_pos;
            }
            ++m_pos;
        } else if (c == '"') {
            literal();
        } else {
            while (m_pos < m_text.size() && std::strchr(",]} \t\r\n", m_text[m_pos]) == nullptr)
                ++m_pos;
        }
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
    std::map<std::string, Entry> m_entries;
    std::string m_duplicate;
    std::size_t m_duplicateOffset = 0;
};

// Offset of the first '[' or '{' nested deeper than `limit`, or npos. A spec is five levels
// deep; refusing absurd nesting up front keeps the recursive locator off the stack's edge.
std::size_t tooDeep(std::string_view text, int limit)
{
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit)
                return i;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return npos;
}

// 1-based line and column (in characters, not bytes) of a byte offset.
std::pair<int, int> lineColumn(std::string_view text, std::size_t offset)
{
    offset = std::min(offset, text.size());
    int line = 1;
    int column = 1;
    for (std::size_t i = 0; i < offset; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\n') {
            ++line;
            column = 1;
        } else if ((c & 0xC0) != 0x80) { // UTF-8 continuation bytes do not start a character
            ++column;
        }
    }
    return {line, column};
}

// A validation failure at a JSON pointer; `atKey` points at the member's key, not its value.
struct SchemaError
{
    std::string pointer;
    std::string message;
    bool atKey = false;
};

std::string inQuotes(std::string_view s)
{
    return "\"" + std::string(s) + "\"";
}

std::string joinQuoted(const std::vector<std::string>& items)
{
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : ", ") + inQuotes(item);
    return out;
}

std::string typeName(const json& value)
{
    if (value.is_number_integer() || value.is_number_unsigned())
        return "an integer";
    if (value.is_number())
        return "a number";
    if (value.is_object())
        return "an object";
    if (value.is_array())
        return "an array";
    if (value.is_string())
        return "a string";
    if (value.is_boolean())
        return "a boolean";
    return "null";
}

void requireObject(const json& value, const std::string& pointer)
{
    if (!value.is_object())
        throw SchemaError{pointer, "expected an object, found " + typeName(value)};
}

void rejectUnknownKeys(const json& object, const std::string& pointer,
                       const std::vector<std::string>& known)
{
    for (const auto& [key, value] : object.items()) {
        if (std::find(known.begin(), known.end(), key) == known.end())
            throw SchemaError{child(pointer, key),
                              "unknown key " + inQuotes(key) + " (expected one of " +
                                  joinQuoted(known) + ")",
                              true};
    }
}

std::string stringValue(const json& value, const std::string& pointer)
{
    if (!value.is_string())
        throw SchemaError{pointer, "expected a string, found " + typeName(value)};
    return value.get<std::string>();
}

std::vector<std::string> stringArray(const json& value, const std::string& pointer)
{
    if (!value.is_array())
        throw SchemaError{pointer, "expected an array of strings, found " + typeName(value)};
    if (value.empty())
        throw SchemaError{pointer, "must list at least one value"};
    std::vector<std::string> out;
    for (std::size_t i = 0; i < value.size(); ++i) {
        std::string s = stringValue(value[i], child(pointer, i));
        if (std::find(out.begin(), out.end(), s) != out.end())
            throw SchemaError{child(pointer, i), inQuotes(s) + " is listed twice"};
        out.push_back(std::move(s));
    }
    return out;
}

std::string digitsOf(std::string_view dotted)
{
    std::string out(dotted);
    std::erase(out, '.');
    return out;
}

// digitsOf(dotted) == digits without a copy: filters are matched against every cell of the
// matrix on each scan.
bool sameDigits(std::string_view dotted, std::string_view digits)
{
    std::size_t at = 0;
    for (const char c : dotted)
        if (c != '.' && (at >= digits.size() || digits[at++] != c))
            return false;
    return at == digits.size();
}

template <typename T> bool contains(const std::vector<T>& items, const T& item)
{
    return std::find(items.begin(), items.end(), item) != items.end();
}

// Validates one axis value against the catalog; returns the catalog spelling.
class AxisChecker
{
public:
    explicit AxisChecker(const Catalog& catalog) : m_catalog(catalog) {}

    std::string python(const std::string& v, const std::string& pointer) const
    {
        const PythonVersion* p = m_catalog.python(v);
        if (p && p->dotted != v)
            throw SchemaError{pointer, "write Python versions dotted: " + inQuotes(p->dotted)};
        if (!p) {
            std::vector<std::string> known;
            for (const auto& k : m_catalog.pythons())
                known.push_back(k.dotted);
            throw SchemaError{pointer, "unknown Python version " + inQuotes(v) +
                                           " (the catalog knows " + joinQuoted(known) + ")"};
        }
        return v;
    }

    std::string cuda(const std::string& v, const std::string& pointer) const
    {
        const CudaVersion* c = m_catalog.cuda(v);
        if (c && c->dotted != v)
            throw SchemaError{pointer, "write CUDA versions dotted: " + inQuotes(c->dotted)};
        if (!c) {
            std::vector<std::string> known;
            for (const auto& k : m_catalog.cudas())
                known.push_back(k.dotted);
            throw SchemaError{pointer, "unknown CUDA version " + inQuotes(v) +
                                           " (the catalog knows " + joinQuoted(known) + ")"};
        }
        return v;
    }

    std::string gpuArch(const std::string& v, const std::string& pointer) const
    {
        if (!m_catalog.gpuArch(v)) {
            std::string hint;
            if (const GpuArch* byDotted = m_catalog.gpuArchByDotted(v))
                hint = " (did you mean " + inQuotes(byDotted->id) + "?)";
            else
                hint = " (a spec declares new ones under \"catalog\": {\"gpuArchs\": …})";
            throw SchemaError{pointer, "unknown GPU architecture " + inQuotes(v) + hint};
        }
        return v;
    }

    std::string isa(const std::string& v, const std::string& pointer) const
    {
        const CpuIsa* isa = m_catalog.isa(v);
        if (isa && isa->id != v)
            throw SchemaError{pointer, "unknown CPU ISA " + inQuotes(v) + " (did you mean " +
                                           inQuotes(isa->id) + "?)"};
        if (!isa)
            throw SchemaError{pointer, "unknown CPU ISA " + inQuotes(v) +
                                           " (a spec declares new ones under \"catalog\": "
                                           "{\"isas\": …})"};
        return v;
    }

    // ISAs must belong to the accelerator: Apple's only with Darwin, and no other with Darwin.
    void isaFits(const std::string& v, Accelerator accelerator, const std::string& pointer) const
    {
        const CpuIsa* isa = m_catalog.isa(v);
        const bool apple = isa && isa->family == CpuFamily::Apple;
        if (apple && accelerator != Accelerator::Darwin)
            throw SchemaError{pointer,
                              inQuotes(v) + " is an Apple ISA; it belongs in a \"darwin\" group"};
        if (!apple && accelerator == Accelerator::Darwin)
            throw SchemaError{
                pointer, inQuotes(v) + " is not an Apple ISA; a \"darwin\" group lists \"mps\""};
    }

private:
    const Catalog& m_catalog;
};

Accelerator acceleratorValue(const json& value, const std::string& pointer)
{
    const std::string id = stringValue(value, pointer);
    const auto a = acceleratorFromId(id);
    if (!a)
        throw SchemaError{pointer, "unknown accelerator " + inQuotes(id) +
                                       " (expected \"cuda\", \"cpu\" or \"darwin\")"};
    return *a;
}

MatrixGroup parseGroup(const json& g, const std::string& pointer, const AxisChecker& axes)
{
    requireObject(g, pointer);
    rejectUnknownKeys(g, pointer, {"python", "accelerator", "cuda", "gpuArchs", "isas"});
    for (const char* key : {"python", "accelerator", "isas"})
        if (!g.contains(key))
            throw SchemaError{pointer, std::string("missing required key \"") + key + "\""};
    MatrixGroup group;
    group.accelerator = acceleratorValue(g["accelerator"], child(pointer, "accelerator"));
    const bool cuda = group.accelerator == Accelerator::Cuda;
    for (const char* key : {"cuda", "gpuArchs"}) {
        if (cuda && !g.contains(key))
            throw SchemaError{pointer, std::string("a \"cuda\" group needs \"") + key + "\""};
        if (!cuda && g.contains(key))
            throw SchemaError{child(pointer, key),
                              std::string("only \"cuda\" groups have \"") + key + "\"", true};
    }
    const std::string pyPointer = child(pointer, "python");
    group.pythons = stringArray(g["python"], pyPointer);
    for (std::size_t i = 0; i < group.pythons.size(); ++i)
        axes.python(group.pythons[i], child(pyPointer, i));
    if (cuda) {
        const std::string cudaPointer = child(pointer, "cuda");
        group.cudas = stringArray(g["cuda"], cudaPointer);
        for (std::size_t i = 0; i < group.cudas.size(); ++i)
            axes.cuda(group.cudas[i], child(cudaPointer, i));
        const std::string archPointer = child(pointer, "gpuArchs");
        group.gpuArchs = stringArray(g["gpuArchs"], archPointer);
        for (std::size_t i = 0; i < group.gpuArchs.size(); ++i)
            axes.gpuArch(group.gpuArchs[i], child(archPointer, i));
    }
    const std::string isaPointer = child(pointer, "isas");
    group.isas = stringArray(g["isas"], isaPointer);
    for (std::size_t i = 0; i < group.isas.size(); ++i) {
        axes.isa(group.isas[i], child(isaPointer, i));
        axes.isaFits(group.isas[i], group.accelerator, child(isaPointer, i));
    }
    return group;
}

VariantFilter parseExclude(const json& e, const std::string& pointer, const AxisChecker& axes)
{
    requireObject(e, pointer);
    rejectUnknownKeys(e, pointer, {"python", "accelerator", "cuda", "gpuArch", "isa", "package"});
    if (e.empty())
        throw SchemaError{pointer, "an exclusion names at least one axis"};
    VariantFilter f;
    if (e.contains("python"))
        f.python = axes.python(stringValue(e["python"], child(pointer, "python")),
                               child(pointer, "python"));
    if (e.contains("accelerator"))
        f.accelerator = acceleratorValue(e["accelerator"], child(pointer, "accelerator"));
    if (e.contains("cuda"))
        f.cuda = axes.cuda(stringValue(e["cuda"], child(pointer, "cuda")), child(pointer, "cuda"));
    if (e.contains("gpuArch"))
        f.gpuArch = axes.gpuArch(stringValue(e["gpuArch"], child(pointer, "gpuArch")),
                                 child(pointer, "gpuArch"));
    if (e.contains("isa"))
        f.isa = axes.isa(stringValue(e["isa"], child(pointer, "isa")), child(pointer, "isa"));
    if (e.contains("package"))
        f.package = stringValue(e["package"], child(pointer, "package"));
    return f;
}

RecipePattern parsePattern(const json& p, const std::string& pointer)
{
    requireObject(p, pointer);
    rejectUnknownKeys(p, pointer, {"kind", "overlays", "canonical"});
    if (!p.contains("kind"))
        throw SchemaError{pointer, "missing required key \"kind\""};
    RecipePattern pattern;
    const std::string kindPointer = child(pointer, "kind");
    const std::string kind = stringValue(p["kind"], kindPointer);
    pattern.kind = patternKindFromId(kind);
    if (pattern.kind == PatternKind::Unknown)
        throw SchemaError{kindPointer, "unknown pattern kind " + inQuotes(kind) +
                                           " (expected \"pinned-overlays\", \"pinned-plain\", "
                                           "\"call-package\", \"from-scratch\" or \"wrapper\")"};
    if (p.contains("overlays")) {
        const std::string overlaysPointer = child(pointer, "overlays");
        const json& overlays = p["overlays"];
        if (!overlays.is_array())
            throw SchemaError{overlaysPointer,
                              "expected an array of strings, found " + typeName(overlays)};
        for (std::size_t i = 0; i < overlays.size(); ++i) {
            const std::string id = stringValue(overlays[i], child(overlaysPointer, i));
            const OverlayKind overlay = overlayKindFromId(id);
            if (overlay == OverlayKind::Other)
                throw SchemaError{child(overlaysPointer, i),
                                  "unknown overlay " + inQuotes(id) +
                                      " (expected \"cuda-package-set\", \"magma-patch\" or "
                                      "\"torch-upgrade\")"};
            pattern.overlays.push_back(overlay);
        }
    }
    if (p.contains("canonical")) {
        const std::string canonicalPointer = child(pointer, "canonical");
        pattern.canonicalRecipe = stringValue(p["canonical"], canonicalPointer);
        if (!pattern.canonicalRecipe.ends_with(".nix") || pattern.canonicalRecipe.starts_with("/"))
            throw SchemaError{canonicalPointer,
                              "the canonical recipe is a .nix file name relative to the recipe "
                              "directory"};
    }
    return pattern;
}

void checkSchemaHeader(const json& root)
{
    requireObject(root, "");
    rejectUnknownKeys(root, "",
                      {"$schema", "schema", "package", "extraPackages", "recipeDir", "torchVersion",
                       "pnamePrefix", "catalog", "pins", "matrix", "exclude", "patterns"});
    if (!root.contains("schema"))
        throw SchemaError{"", "missing required key \"schema\" (1)"};
    const json& schema = root["schema"];
    if (!schema.is_number_integer())
        throw SchemaError{"/schema", "expected the integer 1, found " + typeName(schema)};
    if (schema.get<long long>() != 1)
        throw SchemaError{"/schema", "unsupported schema version " + schema.dump() +
                                         " (this RecipeGrid reads version 1)"};
    if (!root.contains("matrix"))
        throw SchemaError{"", "missing required key \"matrix\""};
}

// The package word is what file names start with.
std::string packageWord(const json& value, const std::string& pointer)
{
    std::string word = stringValue(value, pointer);
    const bool ok = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
               c == '.' || c == '+';
    });
    if (!ok)
        throw SchemaError{pointer, "the package word is lower-case letters, digits and - _ . +"};
    return word;
}

void parsePackages(const json& root, MatrixSpec& spec)
{
    if (root.contains("package"))
        spec.package = packageWord(root["package"], "/package");
    if (root.contains("extraPackages")) {
        const json& extra = root["extraPackages"];
        if (!extra.is_array())
            throw SchemaError{"/extraPackages",
                              "expected an array of strings, found " + typeName(extra)};
        for (std::size_t i = 0; i < extra.size(); ++i) {
            const std::string pointer = child("/extraPackages", i);
            std::string word = packageWord(extra[i], pointer);
            if (word == spec.package || contains(spec.extraPackages, word))
                throw SchemaError{pointer, inQuotes(word) + " is listed twice"};
            spec.extraPackages.push_back(std::move(word));
        }
    }
}

void parseScalars(const json& root, MatrixSpec& spec)
{
    if (root.contains("recipeDir")) {
        spec.recipeDir = stringValue(root["recipeDir"], "/recipeDir");
        const bool escapes = spec.recipeDir == ".." || spec.recipeDir.starts_with("../") ||
                             spec.recipeDir.find("/../") != npos || spec.recipeDir.ends_with("/..");
        if (spec.recipeDir.empty() || spec.recipeDir.starts_with("/") || escapes)
            throw SchemaError{"/recipeDir", "must be a directory inside the repository"};
    }
    if (root.contains("torchVersion")) {
        spec.torchVersion = stringValue(root["torchVersion"], "/torchVersion");
        if (spec.torchVersion.empty() || spec.torchVersion.front() < '0' ||
            spec.torchVersion.front() > '9')
            throw SchemaError{"/torchVersion", "expected a version like \"2.10.0\""};
    }
    if (root.contains("pnamePrefix")) {
        spec.pnamePrefix = stringValue(root["pnamePrefix"], "/pnamePrefix");
        if (spec.pnamePrefix.find_first_of(" \t\n\"") != npos)
            throw SchemaError{"/pnamePrefix", "must not contain spaces or quotes"};
    }
}

// Pins per dotted CUDA version of the catalog, "cpu", "darwin" or "default".
void parsePins(const json& root, const Catalog& catalog, MatrixSpec& spec)
{
    if (root.contains("pins")) {
        const json& pins = root["pins"];
        requireObject(pins, "/pins");
        for (const auto& [key, value] : pins.items()) {
            const std::string pointer = child("/pins", key);
            if (key != "cpu" && key != "darwin" && key != "default") {
                const CudaVersion* c = catalog.cuda(key);
                if (!c || c->dotted != key)
                    throw SchemaError{pointer,
                                      "pin key " + inQuotes(key) +
                                          " is neither a dotted CUDA version of the catalog nor "
                                          "\"cpu\", \"darwin\" or \"default\"",
                                      true};
            }
            const std::string pin = stringValue(value, pointer);
            if (!isFullRevision(pin))
                throw SchemaError{pointer, "pin " + inQuotes(pin) +
                                               " is not a full nixpkgs revision (40 lower-case hex "
                                               "digits)"};
            spec.pins[key] = pin;
        }
    }
}

void parseExcludes(const json& root, const AxisChecker& axes, MatrixSpec& spec)
{
    if (root.contains("exclude")) {
        const json& exclude = root["exclude"];
        if (!exclude.is_array())
            throw SchemaError{"/exclude", "expected an array, found " + typeName(exclude)};
        for (std::size_t i = 0; i < exclude.size(); ++i) {
            VariantFilter f = parseExclude(exclude[i], child("/exclude", i), axes);
            if (f.package && *f.package != spec.package &&
                !contains(spec.extraPackages, *f.package))
                throw SchemaError{child(child("/exclude", i), "package"),
                                  "the spec builds no package " + inQuotes(*f.package)};
            spec.excludes.push_back(std::move(f));
        }
    }
}

MatrixSpec parseSpec(const json& root, const Catalog& builtin)
{
    checkSchemaHeader(root);
    MatrixSpec spec;
    if (root.contains("catalog")) {
        requireObject(root["catalog"], "/catalog");
        std::string pointer, message;
        spec.catalogExtension =
            Catalog::fragmentFromJson(root["catalog"].dump(), &pointer, &message);
        if (!spec.catalogExtension)
            throw SchemaError{"/catalog" + pointer, message, message == "unknown key"};
    }
    // Everything below is checked against the catalog as this spec extends it.
    const Catalog catalog = spec.effectiveCatalog(builtin);
    const AxisChecker axes(catalog);
    if (root.contains("$schema"))
        stringValue(root["$schema"], "/$schema");
    parsePackages(root, spec);
    parseScalars(root, spec);
    parsePins(root, catalog, spec);
    const json& matrix = root["matrix"];
    if (!matrix.is_array())
        throw SchemaError{"/matrix", "expected an array of groups, found " + typeName(matrix)};
    for (std::size_t i = 0; i < matrix.size(); ++i)
        spec.groups.push_back(parseGroup(matrix[i], child("/matrix", i), axes));
    parseExcludes(root, axes, spec);
    if (root.contains("patterns")) {
        const json& patterns = root["patterns"];
        requireObject(patterns, "/patterns");
        rejectUnknownKeys(patterns, "/patterns", {"cuda", "cpu", "darwin"});
        for (const auto& [key, value] : patterns.items())
            spec.patterns[key] = parsePattern(value, child("/patterns", key));
    }
    return spec;
}

// The pins key a variant's pin is looked up under (before falling back to "default").
std::string pinKey(const VariantName& name)
{
    switch (name.accelerator) {
    case Accelerator::Cuda:
        return name.cuda.empty() ? "default" : name.cuda;
    case Accelerator::Cpu:
        return "cpu";
    case Accelerator::Darwin:
        return "darwin";
    }
    return "default";
}

// The most frequent value; ties go to the value `better` prefers, so the result does not
// depend on the order the samples arrived in.
template <typename T, typename Better>
std::optional<T> dominant(const std::map<T, int>& counts, Better better)
{
    std::optional<T> best;
    int bestCount = 0;
    for (const auto& [value, count] : counts) {
        if (count > bestCount || (count == bestCount && better(value, *best))) {
            best = value;
            bestCount = count;
        }
    }
    return best;
}

} // namespace

std::string SpecError::toString() const
{
    std::string out = file;
    if (line > 0)
        out += ":" + std::to_string(line) + ":" + std::to_string(column);
    out += ": ";
    if (!pointer.empty())
        out += pointer + ": ";
    return out + message;
}

bool VariantFilter::matches(const VariantName& name) const
{
    if (python && !sameDigits(*python, name.python))
        return false;
    if (accelerator && *accelerator != name.accelerator)
        return false;
    if (cuda && *cuda != name.cuda)
        return false;
    if (gpuArch && *gpuArch != name.gpuArch)
        return false;
    if (isa && *isa != name.isa)
        return false;
    if (package && *package != name.package)
        return false;
    return true;
}

std::optional<MatrixSpec> MatrixSpec::fromJson(std::string_view text, const std::string& fileName,
                                               const Catalog& catalog, SpecError* error)
{
    auto fail = [&](std::size_t offset, std::string pointer, std::string message) {
        if (error) {
            const auto [line, column] = lineColumn(text, offset);
            *error = SpecError{fileName, line, column, std::move(pointer), std::move(message)};
        }
        return std::nullopt;
    };

    if (const std::size_t deep = tooDeep(text, 64); deep != npos)
        return fail(deep, {}, "nested more than 64 levels deep");
    json root;
    try {
        root = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        // e.byte is the 1-based index of the last character read: where the parser gave up.
        std::string message = e.what();
        if (const auto colon = message.find(": ", message.find("parse error")); colon != npos)
            message = message.substr(colon + 2);
        return fail(e.byte > 0 ? e.byte - 1 : 0, {}, "invalid JSON: " + message);
    }

    const JsonLocator locator(text);
    if (!locator.duplicateKey().empty())
        return fail(locator.duplicateOffset(), locator.duplicateKey(), "key is given twice");
    std::optional<MatrixSpec> spec;
    try {
        spec = parseSpec(root, catalog);
    } catch (const SchemaError& e) {
        return fail(locator.offset(e.pointer, e.atKey), e.pointer, e.message);
    }
    const auto positionsOf = [&](const std::string& pointer, std::size_t count) {
        std::vector<std::pair<int, int>> positions;
        for (std::size_t i = 0; i < count; ++i)
            positions.push_back(lineColumn(text, locator.offset(child(pointer, i), false)));
        return positions;
    };
    for (std::size_t i = 0; i < spec->groups.size(); ++i) {
        const std::string group = child("/matrix", i);
        spec->m_groupPositions.push_back(
            {positionsOf(child(group, "gpuArchs"), spec->groups[i].gpuArchs.size()),
             positionsOf(child(group, "isas"), spec->groups[i].isas.size())});
    }
    return spec;
}

std::optional<MatrixSpec> MatrixSpec::load(const std::filesystem::path& file,
                                           const Catalog& catalog, SpecError* error)
{
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        if (error)
            *error = SpecError{
                file.string(), 0, 0, {}, std::string("cannot read: ") + std::strerror(errno)};
        return std::nullopt;
    }
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (in.bad()) {
        if (error)
            *error = SpecError{file.string(), 0, 0, {}, "cannot read: I/O error"};
        return std::nullopt;
    }
    return fromJson(bytes.str(), file.string(), catalog, error);
}

std::string MatrixSpec::toJson() const
{
    ordered_json root;
    root["schema"] = 1;
    root["package"] = package;
    if (!extraPackages.empty())
        root["extraPackages"] = extraPackages;
    root["recipeDir"] = recipeDir;
    if (!torchVersion.empty())
        root["torchVersion"] = torchVersion;
    if (!pnamePrefix.empty())
        root["pnamePrefix"] = pnamePrefix;
    if (catalogExtension)
        root["catalog"] = ordered_json::parse(catalogExtension->toJson(false));
    if (!pins.empty()) {
        ordered_json pinsJson = ordered_json::object();
        for (const auto& [key, pin] : pins)
            pinsJson[key] = pin;
        root["pins"] = pinsJson;
    }
    ordered_json matrix = ordered_json::array();
    for (const auto& g : groups) {
        ordered_json group;
        group["python"] = g.pythons;
        group["accelerator"] = acceleratorId(g.accelerator);
        if (g.accelerator == Accelerator::Cuda) {
            group["cuda"] = g.cudas;
            group["gpuArchs"] = g.gpuArchs;
        }
        group["isas"] = g.isas;
        matrix.push_back(group);
    }
    root["matrix"] = matrix;
    if (!excludes.empty()) {
        ordered_json exclude = ordered_json::array();
        for (const auto& f : excludes) {
            ordered_json e = ordered_json::object();
            if (f.python)
                e["python"] = *f.python;
            if (f.accelerator)
                e["accelerator"] = acceleratorId(*f.accelerator);
            if (f.cuda)
                e["cuda"] = *f.cuda;
            if (f.gpuArch)
                e["gpuArch"] = *f.gpuArch;
            if (f.isa)
                e["isa"] = *f.isa;
            if (f.package)
                e["package"] = *f.package;
            exclude.push_back(e);
        }
        root["exclude"] = exclude;
    }
    if (!patterns.empty()) {
        ordered_json patternsJson = ordered_json::object();
        for (const auto& [key, p] : patterns) {
            ordered_json pattern;
            pattern["kind"] = patternKindId(p.kind);
            ordered_json overlays = ordered_json::array();
            for (const OverlayKind o : p.overlays)
                overlays.push_back(overlayKindId(o));
            pattern["overlays"] = overlays;
            if (!p.canonicalRecipe.empty())
                pattern["canonical"] = p.canonicalRecipe;
            patternsJson[key] = pattern;
        }
        root["patterns"] = patternsJson;
    }
    return root.dump(2) + "\n";
}

Catalog MatrixSpec::effectiveCatalog(const Catalog& builtin) const
{
    return catalogExtension ? builtin.extendedWith(*catalogExtension) : builtin;
}

std::vector<VariantName> MatrixSpec::expectedVariants() const
{
    std::vector<VariantName> out;
    std::set<std::string> seen;
    const std::vector<std::string> none{std::string()};
    std::vector<std::string> packages{package};
    packages.insert(packages.end(), extraPackages.begin(), extraPackages.end());
    for (const auto& pkg : packages)
        for (const auto& g : groups) {
            const bool cuda = g.accelerator == Accelerator::Cuda;
            for (const auto& python : g.pythons)
                for (const auto& cudaVersion : cuda ? g.cudas : none)
                    for (const auto& arch : cuda ? g.gpuArchs : none)
                        for (const auto& isa : g.isas) {
                            VariantName name;
                            name.package = pkg;
                            name.python = digitsOf(python);
                            name.accelerator = g.accelerator;
                            name.cuda = cudaVersion;
                            name.gpuArch = arch;
                            name.isa = isa;
                            if (std::any_of(
                                    excludes.begin(), excludes.end(),
                                    [&](const VariantFilter& f) { return f.matches(name); }))
                                continue;
                            if (seen.insert(name.toString()).second)
                                out.push_back(std::move(name));
                        }
        }
    return out;
}

std::size_t MatrixSpec::groupCovering(const VariantName& name) const
{
    if (!name.suffixes.empty() ||
        (name.package != package && !contains(extraPackages, name.package)))
        return groups.size();
    if (name.accelerator == Accelerator::Cuda && name.cuda.empty())
        return groups.size(); // a legacy name cannot say which CUDA it is meant for
    const auto covering = std::find_if(groups.begin(), groups.end(), [&](const MatrixGroup& g) {
        if (g.accelerator != name.accelerator || !contains(g.isas, name.isa))
            return false;
        const bool python = std::any_of(g.pythons.begin(), g.pythons.end(),
                                        [&](const auto& p) { return sameDigits(p, name.python); });
        if (!python)
            return false;
        return g.accelerator != Accelerator::Cuda ||
               (contains(g.cudas, name.cuda) && contains(g.gpuArchs, name.gpuArch));
    });
    return std::size_t(covering - groups.begin());
}

bool MatrixSpec::expects(const VariantName& name) const
{
    return groupCovering(name) < groups.size() &&
           std::none_of(excludes.begin(), excludes.end(),
                        [&](const VariantFilter& f) { return f.matches(name); });
}

std::pair<int, int> MatrixSpec::positionAskingFor(const VariantName& name) const
{
    const std::size_t g = groupCovering(name);
    if (g >= groups.size() || g >= m_groupPositions.size())
        return {0, 0};
    const auto positionOf = [](const std::vector<std::string>& values,
                               const std::vector<std::pair<int, int>>& positions,
                               const std::string& value) {
        const auto i = std::size_t(std::find(values.begin(), values.end(), value) - values.begin());
        return i < positions.size() ? positions[i] : std::pair(0, 0);
    };
    const MatrixGroup& group = groups[g];
    const GroupPositions& at = m_groupPositions[g];
    return group.gpuArchs.empty() ? positionOf(group.isas, at.isas, name.isa)
                                  : positionOf(group.gpuArchs, at.gpuArchs, name.gpuArch);
}

std::optional<std::string> MatrixSpec::expectedPin(const VariantName& name) const
{
    if (const auto it = pins.find(pinKey(name)); it != pins.end())
        return it->second;
    if (const auto it = pins.find("default"); it != pins.end())
        return it->second;
    return std::nullopt;
}

const RecipePattern* MatrixSpec::patternFor(const VariantName& name) const
{
    const auto it = patterns.find(std::string(acceleratorId(name.accelerator)));
    return it == patterns.end() ? nullptr : &it->second;
}

std::string MatrixSpec::expectedPname(const VariantName& name) const
{
    const std::string canonical = name.toString();
    if (pnamePrefix.empty() || name.package != package)
        return canonical;
    return pnamePrefix + canonical.substr(name.package.size() + 1);
}

bool isFullRevision(std::string_view pin)
{
    return pin.size() == 40 && std::all_of(pin.begin(), pin.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

namespace {

using Samples = std::vector<const InferenceSample*>;

const auto lexicallyFirst = [](const std::string& a, const std::string& b) { return a < b; };

// Groups that differ only in Python (byPython) or only in CUDA become one.
std::vector<MatrixGroup> mergeGroups(std::vector<MatrixGroup> in, bool byPython)
{
    std::vector<MatrixGroup> out;
    for (auto& g : in) {
        auto same = std::find_if(out.begin(), out.end(), [&](const MatrixGroup& o) {
            return o.accelerator == g.accelerator && o.gpuArchs == g.gpuArchs && o.isas == g.isas &&
                   (byPython ? o.cudas == g.cudas : o.pythons == g.pythons);
        });
        if (same == out.end()) {
            out.push_back(std::move(g));
            continue;
        }
        auto& target = byPython ? same->pythons : same->cudas;
        const auto& source = byPython ? g.pythons : g.cudas;
        for (const auto& v : source)
            if (!contains(target, v))
                target.push_back(v);
    }
    return out;
}

// Axes: per (accelerator, CUDA, Python, CPU family) the archs the recipes pair with each
// ISA. Archs with the same ISA set form one product, so the inferred matrix is the union of
// what the author populates and never pairs an arch with an ISA no recipe pairs it with
// (an arch only ever built for avx/avx2 does not become "missing" its avx512 cells).
// Groups that differ only in Python (or CUDA) are then merged, as a person would write them.
std::vector<MatrixGroup> inferGroups(const Samples& used, const std::string& package,
                                     const Catalog& catalog)
{
    using GroupKey = std::tuple<int, std::string, std::string, int>;
    std::map<GroupKey, std::map<std::string, std::set<std::string>>> rows; // arch → ISAs
    for (const auto* s : used) {
        const VariantName& n = s->name;
        if (n.package != package)
            continue;
        if (n.accelerator == Accelerator::Cuda && n.cuda.empty())
            continue; // legacy names cannot be expressed in a spec
        const PythonVersion* python = catalog.python(n.python);
        const CpuIsa* isa = catalog.isa(n.isa);
        if (!python || !isa || isa->id != n.isa)
            continue;
        if (n.accelerator == Accelerator::Cuda &&
            (!catalog.cuda(n.cuda) || !catalog.gpuArch(n.gpuArch)))
            continue;
        if ((isa->family == CpuFamily::Apple) != (n.accelerator == Accelerator::Darwin))
            continue;
        rows[{static_cast<int>(n.accelerator), n.cuda, python->dotted,
              static_cast<int>(isa->family)}][n.gpuArch]
            .insert(n.isa);
    }
    std::map<std::tuple<int, std::string, std::string, int, std::set<std::string>>,
             std::pair<std::set<std::string>, std::set<std::string>>>
        cells;
    for (const auto& [key, archs] : rows)
        for (const auto& [arch, isas] : archs) {
            const auto& [accelerator, cuda, python, family] = key;
            auto& [archSet, isaSet] = cells[{accelerator, cuda, python, family, isas}];
            if (!arch.empty())
                archSet.insert(arch);
            isaSet = isas;
        }
    const auto inCatalogOrder = [](std::vector<std::string> items, const auto& order) {
        std::vector<std::string> out;
        for (const auto& o : order)
            if (std::find(items.begin(), items.end(), o.id) != items.end())
                out.push_back(o.id);
        return out;
    };
    std::vector<MatrixGroup> groups;
    for (const auto& [key, axes] : cells) {
        const auto& [accelerator, cuda, python, family, isaSet] = key;
        MatrixGroup g;
        g.accelerator = static_cast<Accelerator>(accelerator);
        g.pythons = {python};
        if (!cuda.empty())
            g.cudas = {cuda};
        g.gpuArchs = inCatalogOrder({axes.first.begin(), axes.first.end()}, catalog.gpuArchs());
        g.isas = inCatalogOrder({axes.second.begin(), axes.second.end()}, catalog.isas());
        groups.push_back(std::move(g));
    }
    groups = mergeGroups(std::move(groups), true);
    groups = mergeGroups(std::move(groups), false);
    for (auto& g : groups) {
        std::sort(g.pythons.begin(), g.pythons.end(),
                  [](const auto& a, const auto& b) { return compareVersions(a, b) < 0; });
        std::sort(g.cudas.begin(), g.cudas.end(),
                  [](const auto& a, const auto& b) { return compareVersions(a, b) < 0; });
    }
    return groups;
}

// The dominant revision per pin key.
std::map<std::string, std::string> inferPins(const Samples& used)
{
    std::map<std::string, std::string> pins;
    std::map<std::string, std::map<std::string, int>> pinCounts;
    for (const auto* s : used)
        if (!s->pin.empty())
            ++pinCounts[pinKey(s->name)][s->pin];
    for (const auto& [key, counts] : pinCounts)
        pins[key] = *dominant(counts, lexicallyFirst);

    return pins;
}

// The dominant stated torch version; a tie goes to the newer version.
std::string inferTorchVersion(const Samples& used)
{
    std::map<std::string, int> torchCounts;
    for (const auto* s : used)
        if (!s->torchVersion.empty())
            ++torchCounts[s->torchVersion];
    if (auto t = dominant(torchCounts, [](const std::string& a, const std::string& b) {
            return compareVersions(a, b) > 0;
        }))
        return *t;

    return {};
}

// What precedes "python313-…" in each pname that ends with its own name.
std::string inferPnamePrefix(const Samples& used)
{
    std::map<std::string, int> prefixCounts;
    for (const auto* s : used) {
        if (s->pname.empty())
            continue;
        const std::string canonical = s->name.toString();
        const std::string rest = canonical.substr(s->name.package.size() + 1);
        if (s->pname == canonical)
            ++prefixCounts[""];
        else if (s->pname.size() > rest.size() && s->pname.ends_with(rest))
            ++prefixCounts[s->pname.substr(0, s->pname.size() - rest.size())];
    }
    if (auto p = dominant(prefixCounts, lexicallyFirst))
        return *p;

    return {};
}

// Patterns: the dominant shape per accelerator; its canonical recipe is the first file of
// that shape (by name) that is also on the inferred pin.
std::map<std::string, RecipePattern> inferPatterns(const Samples& used, const MatrixSpec& spec)
{
    std::map<std::string, RecipePattern> patterns;
    std::map<std::string, std::map<std::pair<int, std::vector<int>>, int>> patternCounts;
    for (const auto* s : used) {
        if (s->pattern.kind == PatternKind::Unknown)
            continue;
        std::vector<int> overlays;
        for (const OverlayKind o : s->pattern.overlays)
            overlays.push_back(static_cast<int>(o));
        ++patternCounts[std::string(acceleratorId(s->name.accelerator))]
                       [{static_cast<int>(s->pattern.kind), overlays}];
    }
    for (const auto& [accelerator, counts] : patternCounts) {
        const auto best = *dominant(counts, [](const auto& a, const auto& b) {
            return a.second.size() != b.second.size() ? a.second.size() > b.second.size() : a < b;
        });
        RecipePattern pattern;
        pattern.kind = static_cast<PatternKind>(best.first);
        for (const int o : best.second)
            pattern.overlays.push_back(static_cast<OverlayKind>(o));
        std::string canonical;
        bool canonicalOnPin = false;
        for (const auto* s : used) {
            if (acceleratorId(s->name.accelerator) != accelerator || s->fileName.empty() ||
                s->pattern.kind != pattern.kind || s->pattern.overlays != pattern.overlays)
                continue;
            const auto pin = spec.expectedPin(s->name);
            const bool onPin = pin && *pin == s->pin;
            if (canonical.empty() || (onPin && !canonicalOnPin) ||
                (onPin == canonicalOnPin && s->fileName < canonical)) {
                canonical = s->fileName;
                canonicalOnPin = onPin;
            }
        }
        pattern.canonicalRecipe = canonical;
        patterns[accelerator] = std::move(pattern);
    }
    return patterns;
}

} // namespace

MatrixSpec MatrixSpec::infer(const std::vector<InferenceSample>& samples, const Catalog& catalog)
{
    MatrixSpec spec;
    spec.m_inferred = true;

    Samples used;
    for (const auto& s : samples)
        if (s.name.suffixes.empty())
            used.push_back(&s);

    std::map<std::string, int> packages;
    for (const auto* s : used)
        ++packages[s->name.package];
    if (auto p = dominant(packages, lexicallyFirst))
        spec.package = *p;
    spec.groups = inferGroups(used, spec.package, catalog);
    spec.pins = inferPins(used);
    spec.torchVersion = inferTorchVersion(used);
    spec.pnamePrefix = inferPnamePrefix(used);
    spec.patterns = inferPatterns(used, spec);
    return spec;
}

} // namespace rg
