#include "nix/symboltable.h"

#include <algorithm>

namespace rg::nix {

namespace {

// Observed with Nix 2.8.0: the order `nix-instantiate --parse` prints these names in a `let`,
// i.e. the heap order of the symbols it interns before reading the file.
constexpr std::string_view kInternedAtStartup[] = {
    "meta",
    "name",
    "value",
    "system",
    "outputs",
    "outputName",
    "file",
    "line",
    "column",
    "outPath",
    "drvPath",
    "type",
    "right",
    "wrong",
    "builder",
    "args",
    "outputHash",
    "outputHashAlgo",
    "outputHashMode",
    "recurseForDerivations",
    "description",
    "self",
    "startSet",
    "operator",
    "key",
    "path",
    "prefix",
    "builtins",
    "true",
    "false",
    "null",
    "__currentTime",
    "currentTime",
    "__currentSystem",
    "currentSystem",
    "__nixVersion",
    "nixVersion",
    "__storeDir",
    "storeDir",
    "__langVersion",
    "langVersion",
    "__nixPath",
    "nixPath",
    "scopedImport",
    "import",
    "__typeOf",
    "typeOf",
    "isNull",
    "__isFunction",
    "isFunction",
    "__isInt",
    "isInt",
    "__isFloat",
    "isFloat",
    "__isString",
    "isString",
    "__isBool",
    "isBool",
    "__isPath",
    "isPath",
    "__genericClosure",
    "genericClosure",
    "abort",
    "throw",
    "__addErrorContext",
    "addErrorContext",
    "__ceil",
    "ceil",
    "__floor",
    "floor",
    "__tryEval",
    "tryEval",
    "__getEnv",
    "getEnv",
    "__seq",
    "seq",
    "__deepSeq",
    "deepSeq",
    "__trace",
    "trace",
    "derivationStrict",
    "placeholder",
    "__toPath",
    "toPath",
    "__storePath",
    "storePath",
    "__pathExists",
    "pathExists",
    "baseNameOf",
    "dirOf",
    "__readFile",
    "readFile",
    "__findFile",
    "findFile",
    "__hashFile",
    "hashFile",
    "__readDir",
    "readDir",
    "__toXML",
    "toXML",
    "__toJSON",
    "toJSON",
    "__fromJSON",
    "fromJSON",
    "__toFile",
    "toFile",
    "__filterSource",
    "filterSource",
    "__path",
    "__attrNames",
    "attrNames",
    "__attrValues",
    "attrValues",
    "__getAttr",
    "getAttr",
    "__unsafeGetAttrPos",
    "unsafeGetAttrPos",
    "__hasAttr",
    "hasAttr",
    "__isAttrs",
    "isAttrs",
    "removeAttrs",
    "__listToAttrs",
    "listToAttrs",
    "__intersectAttrs",
    "intersectAttrs",
    "__catAttrs",
    "catAttrs",
    "__functionArgs",
    "functionArgs",
    "__mapAttrs",
    "mapAttrs",
    "__zipAttrsWith",
    "zipAttrsWith",
    "__isList",
    "isList",
    "__elemAt",
    "elemAt",
    "__head",
    "head",
    "__tail",
    "tail",
    "map",
    "__filter",
    "filter",
    "__elem",
    "elem",
    "__concatLists",
    "concatLists",
    "__length",
    "length",
    "__foldl'",
    "foldl'",
    "__any",
    "any",
    "__all",
    "all",
    "__genList",
    "genList",
    "__sort",
    "sort",
    "__partition",
    "partition",
    "__groupBy",
    "groupBy",
    "__concatMap",
    "concatMap",
    "__add",
    "add",
    "__sub",
    "sub",
    "__mul",
    "mul",
    "__div",
    "div",
    "__bitAnd",
    "bitAnd",
    "__bitOr",
    "bitOr",
    "__bitXor",
    "bitXor",
    "__lessThan",
    "lessThan",
    "toString",
    "__substring",
    "substring",
    "__stringLength",
    "stringLength",
    "__hashString",
    "hashString",
    "__match",
    "match",
    "__split",
    "split",
    "__concatStringsSep",
    "concatStringsSep",
    "__replaceStrings",
    "replaceStrings",
    "__parseDrvName",
    "parseDrvName",
    "__compareVersions",
    "compareVersions",
    "__splitVersion",
    "splitVersion",
    "__unsafeDiscardStringContext",
    "unsafeDiscardStringContext",
    "__hasContext",
    "hasContext",
    "__unsafeDiscardOutputDependency",
    "unsafeDiscardOutputDependency",
    "__getContext",
    "getContext",
    "__appendContext",
    "appendContext",
    "fetchMercurial",
    "fetchTree",
    "__fetchurl",
    "fetchurl",
    "fetchTarball",
    "fetchGit",
    "fromTOML",
    "derivation",
};

constexpr std::string_view kInternedByDerivationNix[] = {
    "strict", "drvAttrs", "commonAttrs", "outputsList", "x", "outputToAttrListElement",
};

constexpr std::string_view kBaseEnvironment[] = {
    "__add",
    "__addErrorContext",
    "__all",
    "__any",
    "__appendContext",
    "__attrNames",
    "__attrValues",
    "__bitAnd",
    "__bitOr",
    "__bitXor",
    "__catAttrs",
    "__ceil",
    "__compareVersions",
    "__concatLists",
    "__concatMap",
    "__concatStringsSep",
    "__currentSystem",
    "__currentTime",
    "__deepSeq",
    "__div",
    "__elem",
    "__elemAt",
    "__fetchurl",
    "__filter",
    "__filterSource",
    "__findFile",
    "__floor",
    "__foldl'",
    "__fromJSON",
    "__functionArgs",
    "__genList",
    "__genericClosure",
    "__getAttr",
    "__getContext",
    "__getEnv",
    "__groupBy",
    "__hasAttr",
    "__hasContext",
    "__hashFile",
    "__hashString",
    "__head",
    "__intersectAttrs",
    "__isAttrs",
    "__isBool",
    "__isFloat",
    "__isFunction",
    "__isInt",
    "__isList",
    "__isPath",
    "__isString",
    "__langVersion",
    "__length",
    "__lessThan",
    "__listToAttrs",
    "__mapAttrs",
    "__match",
    "__mul",
    "__nixPath",
    "__nixVersion",
    "__parseDrvName",
    "__partition",
    "__path",
    "__pathExists",
    "__readDir",
    "__readFile",
    "__replaceStrings",
    "__seq",
    "__sort",
    "__split",
    "__splitVersion",
    "__storeDir",
    "__storePath",
    "__stringLength",
    "__sub",
    "__substring",
    "__tail",
    "__toFile",
    "__toJSON",
    "__toPath",
    "__toXML",
    "__trace",
    "__tryEval",
    "__typeOf",
    "__unsafeDiscardOutputDependency",
    "__unsafeDiscardStringContext",
    "__unsafeGetAttrPos",
    "__zipAttrsWith",
    "abort",
    "baseNameOf",
    "builtins",
    "derivation",
    "derivationStrict",
    "dirOf",
    "false",
    "fetchGit",
    "fetchMercurial",
    "fetchTarball",
    "fetchTree",
    "fromTOML",
    "import",
    "isNull",
    "map",
    "null",
    "placeholder",
    "removeAttrs",
    "scopedImport",
    "throw",
    "toString",
    "true",
};

constexpr uint64_t kFreshBase = 1u << 20;
constexpr uint64_t kLateBase = 1ull << 40;

// Names Nix interns before reading a file, sorted by name, with their rank.
const std::vector<std::pair<std::string_view, uint64_t>>& knownRanks()
{
    static const auto ranks = [] {
        std::vector<std::pair<std::string_view, uint64_t>> v;
        for (size_t i = 0; i < std::size(kInternedAtStartup); ++i)
            v.emplace_back(kInternedAtStartup[i], i);
        for (size_t i = 0; i < std::size(kInternedByDerivationNix); ++i)
            v.emplace_back(kInternedByDerivationNix[i], kLateBase + i);
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end(),
                            [](const auto& x, const auto& y) { return x.first == y.first; }),
                v.end());
        return v;
    }();
    return ranks;
}

uint32_t hashName(std::string_view name)
{
    uint32_t h = 2166136261u; // FNV-1a
    for (char c : name)
        h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    return h;
}

} // namespace

SymbolTable::SymbolTable() : m_slots(256) {}

void SymbolTable::grow()
{
    std::vector<Slot> old(m_slots.size() * 2);
    old.swap(m_slots);
    const size_t mask = m_slots.size() - 1;
    for (const Slot& slot : old) {
        if (slot.symbol == UINT32_MAX)
            continue;
        size_t i = hashName(slot.name) & mask;
        while (m_slots[i].symbol != UINT32_MAX)
            i = (i + 1) & mask;
        m_slots[i] = slot;
    }
}

Symbol SymbolTable::intern(std::string_view name)
{
    if ((m_names.size() + 1) * 2 > m_slots.size())
        grow();
    const size_t mask = m_slots.size() - 1;
    size_t i = hashName(name) & mask;
    while (m_slots[i].symbol != UINT32_MAX) {
        if (m_slots[i].name == name)
            return m_slots[i].symbol;
        i = (i + 1) & mask;
    }
    const auto symbol = static_cast<Symbol>(m_names.size());
    m_slots[i] = {name, symbol};
    m_names.push_back(name);
    const auto& known = knownRanks();
    const auto k =
        std::lower_bound(known.begin(), known.end(), name,
                         [](const auto& entry, std::string_view n) { return entry.first < n; });
    m_ranks.push_back(k != known.end() && k->first == name ? k->second
                                                           : kFreshBase + m_nextFresh++);
    return symbol;
}

bool SymbolTable::isBaseName(std::string_view name) const
{
    return std::binary_search(std::begin(kBaseEnvironment), std::end(kBaseEnvironment), name);
}

} // namespace rg::nix
