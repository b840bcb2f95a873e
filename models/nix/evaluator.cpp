#include "nix/evaluator.h"

#include "nix/jsonreader.h"
#include "nix/moduleloader.h"
#include "nix/symboltable.h"
#include "nix/syntaxtree.h"
#include "nix/valuedata.h"

#include <algorithm>
#include <charconv>
#include <deque>
#include <map>
#include <memory>
#include <regex>
#include <span>
#include <unordered_map>
#include <unordered_set>

namespace rg::nix {

using Kind = Value::Kind;
using Cause = Value::Cause;
using detail::ChainLink;
using detail::Env;
using detail::PartsKind;
using detail::Slot;
using detail::Thunk;
using detail::ValueData;

namespace detail {

struct Env
{
    const Env* parent = nullptr;
    uint32_t file = 0;
    Thunk* with = nullptr;     // `with e;`: the thunk of e; such an environment has no slots
    bool renames = false;      // let / rec: an unknown call result takes the binding's name
    bool unknownNames = false; // rec: some `${…}` attribute name is unknown
    std::vector<Slot> slots;   // sorted by name
};

struct Thunk
{
    enum class Mode : uint8_t { Expr, Inherit, Attr, Apply, Call, Ready };
    enum class State : uint8_t { Pending, Forcing, Done };
    Mode mode = Mode::Ready;
    State state = State::Done;
    bool missingIsFree = false; // Attr: a missing attribute is a free name (formals)
    const Node* node = nullptr; // Expr: the expression; Inherit: the inherited name
    const Env* env = nullptr;   // Expr, Inherit: where `node` is evaluated or looked up
    Thunk* base = nullptr;      // Attr: the set; Apply, Call: the (first) argument
    Thunk* otherwise = nullptr; // Attr: the formal's default; Call: the second argument
    std::string_view name;      // Attr, Inherit
    Value function;             // Apply, Call
    uint32_t siteFile = 0;      // Apply, Call: the call, for origins
    SourceRange site;
    Value value; // Done
};

} // namespace detail

namespace {

// Longest binding chain kept (outer bindings beyond it are dropped), and most parts an
// unknown string or list keeps flattened: beyond that nesting is kept as it is, so strings
// that interpolate each other twice per level stay linear in size.
constexpr uint32_t kMaxChain = 32;
constexpr size_t kMaxParts = 64;
constexpr int kMaxCompareDepth = 32;
// Symbolic paths longer than this are dropped (the value stays unknown, without a path), and
// reasons are cut: both would otherwise grow with the depth of hostile recursion.
constexpr size_t kMaxPath = 512;
constexpr size_t kMaxReason = 300;

enum class Native : int {
    Optionals,
    Optional,
    OptionalString,
    OptionalAttrs,
    ConcatStringsSep,
    ConcatMapStringsSep,
    RemovePrefix,
    RemoveSuffix,
    ToString,
    MajorMinor,
    ReplaceStrings,
    Substring,
    EscapeShellArg,
    Map,
    Import,
    CallPackage,
    ReadFile,
    FromJson,
    ImportJson,
    Match,
    SplitString,
    ElemAt,
    Head,
    Tail,
    Last,
    Length,
    StringLength,
    BaseNameOf,
    DirOf,
    FoldlStrict,
    Foldl,
    Foldr,
    RecursiveUpdate,
    MapAttrs,
    AttrNames,
    AttrValues,
    GenAttrs,
    ConcatMap,
    Filter,
    Elem,
    Flatten,
    GetAttr,
    HasAttr,
    ListToAttrs,
    NameValuePair,
    IsString,
    IsAttrs,
    IsList,
    IsFunction,
    IsBool,
    IsInt,
    IsFloat,
    IsPath,
    MapAttrsPrime,
    CartesianProduct,
    // Ours, found by no name: what recursiveUpdate's lazy attributes compute when read.
    RecursiveMerge, // recursiveUpdate of an attribute both sides have
};

struct NativeInfo
{
    std::string_view name;
    size_t arity;
    bool inLib;
    bool inBuiltins;
};

constexpr NativeInfo kNatives[] = {
    {"optionals", 2, true, false},
    {"optional", 2, true, false},
    {"optionalString", 2, true, false},
    {"optionalAttrs", 2, true, false},
    {"concatStringsSep", 2, true, true},
    {"concatMapStringsSep", 3, true, false},
    {"removePrefix", 2, true, false},
    {"removeSuffix", 2, true, false},
    {"toString", 1, true, true},
    {"majorMinor", 1, true, false},
    {"replaceStrings", 3, true, true},
    {"substring", 3, true, true},
    {"escapeShellArg", 1, true, false},
    {"map", 2, true, true},
    {"import", 1, false, true},
    {"callPackage", 2, false, false},
    {"readFile", 1, false, true},
    {"fromJSON", 1, false, true},
    {"importJSON", 1, true, false},
    {"match", 2, false, true},
    {"splitString", 2, true, false},
    {"elemAt", 2, true, true},
    {"head", 1, true, true},
    {"tail", 1, true, true},
    {"last", 1, true, false},
    {"length", 1, true, true},
    {"stringLength", 1, true, true},
    {"baseNameOf", 1, false, true},
    {"dirOf", 1, false, true},
    {"foldl'", 3, true, true},
    {"foldl", 3, true, false},
    {"foldr", 3, true, false},
    {"recursiveUpdate", 2, true, false},
    {"mapAttrs", 2, true, true},
    {"attrNames", 1, true, true},
    {"attrValues", 1, true, true},
    {"genAttrs", 2, true, false},
    {"concatMap", 2, true, true},
    {"filter", 2, true, true},
    {"elem", 2, true, true},
    {"flatten", 1, true, false},
    {"getAttr", 2, true, true},
    {"hasAttr", 2, true, true},
    {"listToAttrs", 1, true, true},
    {"nameValuePair", 2, true, false},
    {"isString", 1, true, true},
    {"isAttrs", 1, true, true},
    {"isList", 1, true, true},
    {"isFunction", 1, true, true},
    {"isBool", 1, true, true},
    {"isInt", 1, true, true},
    {"isFloat", 1, false, true},
    {"isPath", 1, true, true},
    {"mapAttrs'", 2, true, false},
    {"cartesianProduct", 1, true, false},
    {"(recursiveUpdate of an attribute)", 2, false, false},
};
static_assert(std::size(kNatives) == static_cast<size_t>(Native::RecursiveMerge) + 1);

// lib.strings.concatStringsSep is lib.concatStringsSep, and so on.
constexpr std::string_view kLibSections[] = {"strings", "lists", "versions", "attrsets", "trivial"};

bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// "a.b(...).c" → a, b(...), c: dots inside a call's parentheses do not separate.
std::vector<std::string_view> pathSegments(std::string_view path)
{
    std::vector<std::string_view> segments;
    int parens = 0;
    size_t start = 0;
    for (size_t i = 0; i < path.size(); ++i) {
        if (path[i] == '(')
            ++parens;
        else if (path[i] == ')')
            parens = std::max(0, parens - 1);
        else if (path[i] == '.' && parens == 0) {
            segments.push_back(path.substr(start, i - start));
            start = i + 1;
        }
    }
    segments.push_back(path.substr(start));
    return segments;
}

int nativeFor(std::string_view path)
{
    const auto segments = pathSegments(path);
    if (segments.back() == "callPackage")
        return static_cast<int>(Native::CallPackage);
    size_t root = segments.size();
    for (size_t i = segments.size(); i-- > 0;)
        if (segments[i] == "lib" || segments[i] == "builtins") {
            root = i;
            break;
        }
    if (root == segments.size())
        return -1;
    const bool lib = segments[root] == "lib";
    const size_t rest = segments.size() - root - 1;
    if (rest == 2 && (!lib || std::find(std::begin(kLibSections), std::end(kLibSections),
                                        segments[root + 1]) == std::end(kLibSections)))
        return -1;
    if (rest != 1 && rest != 2)
        return -1;
    for (size_t i = 0; i < std::size(kNatives); ++i)
        if (kNatives[i].name == segments.back() &&
            (lib ? kNatives[i].inLib : kNatives[i].inBuiltins))
            return static_cast<int>(i);
    return -1;
}

std::string callPath(std::string_view path)
{
    return endsWith(path, "(...)") ? std::string(path) : std::string(path) + "(...)";
}

// Lexically normalised: "./a/../b" → "./b", "./." → ".", "/x/./y" → "/x/y".
std::string normalisePath(std::string_view text)
{
    std::string prefix;
    if (text.substr(0, 1) == "/") {
        prefix = "/";
        text.remove_prefix(1);
    } else if (text.substr(0, 2) == "~/") {
        prefix = "~/";
        text.remove_prefix(2);
    }
    std::vector<std::string_view> stack;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
        if (i < text.size() && text[i] != '/')
            continue;
        const std::string_view segment = text.substr(start, i - start);
        start = i + 1;
        if (segment.empty() || segment == ".")
            continue;
        if (segment == "..") {
            if (!stack.empty() && stack.back() != "..")
                stack.pop_back();
            else if (prefix.empty())
                stack.push_back(segment); // a relative path may leave its directory
            continue;
        }
        stack.push_back(segment);
    }
    std::string out = prefix;
    if (prefix.empty() && (stack.empty() || stack.front() != ".."))
        out = stack.empty() ? "." : "./";
    for (size_t i = 0; i < stack.size(); ++i) {
        if (i > 0)
            out += '/';
        out += stack[i];
    }
    return out;
}

// Nix's splitVersion: runs of digits, or of other characters, split at '.' and '-'.
std::vector<std::string_view> splitVersion(std::string_view version)
{
    std::vector<std::string_view> components;
    size_t i = 0;
    while (i < version.size()) {
        if (version[i] == '.' || version[i] == '-') {
            ++i;
            continue;
        }
        const bool digits = version[i] >= '0' && version[i] <= '9';
        const size_t start = i;
        while (i < version.size() && version[i] != '.' && version[i] != '-' &&
               (version[i] >= '0' && version[i] <= '9') == digits)
            ++i;
        components.push_back(version.substr(start, i - start));
    }
    return components;
}

// builtins.match runs std::regex with std::regex::extended, as Nix does, but on libstdc++'s
// breadth-first matcher (regex_constants::__polynomial): its time is linear in the string
// times the automaton and its recursion bounded by the automaton, where the default
// backtracking matcher that Nix uses takes exponential time on `(a|a)*` and recurses once per
// character. Both agree on whether a string matches and on what each capture group holds,
// except for a group inside a repetition (`*`, `+`, `{m,n}`), whose last iteration can differ
// (`(a*)+` on "aaa": Nix's [ "" ], the breadth-first [ "aaa" ]); such groups are unknown.
// Nix on macOS uses libc++, whose results differ in more cases again.
constexpr size_t kMaxRegexBytes = 1024;
constexpr size_t kMaxRegexStates = 4096;          // regexShape()'s estimate
constexpr size_t kMaxRegexWork = size_t(1) << 25; // string bytes times states
constexpr size_t kMaxRegexes = 256;               // compiled regexes kept per evaluator

struct RegexShape
{
    std::vector<bool> repeated; // per capture group: inside a repetition
    size_t states = 0;          // an upper estimate of the automaton's size
};

// The end of the bracket expression starting at re[at] == '[': `]` first is a member, and
// so is everything in `[:alpha:]`, `[.x.]` and `[=x=]`.
size_t bracketEnd(std::string_view re, size_t at)
{
    size_t i = at + 1;
    if (i < re.size() && re[i] == '^')
        ++i;
    if (i < re.size() && re[i] == ']')
        ++i;
    while (i < re.size() && re[i] != ']') {
        const char kind = i + 1 < re.size() && re[i] == '[' ? re[i + 1] : 0;
        if (kind == ':' || kind == '.' || kind == '=') {
            const size_t close = re.find(std::string{kind, ']'}, i + 2);
            i = close == std::string_view::npos ? re.size() : close + 2;
        } else {
            ++i;
        }
    }
    return i;
}

struct Bound
{
    size_t most = 0;        // its largest count written
    bool unbounded = false; // `{m,}`
    size_t end = 0;         // the index of its '}'
};

// The bound `{m}`, `{m,}` or `{m,n}` starting at re[at] == '{'.
Bound boundAt(std::string_view re, size_t at)
{
    Bound bound;
    size_t number = 0;
    size_t i = at + 1;
    for (; i < re.size() && re[i] != '}'; ++i) {
        if (re[i] >= '0' && re[i] <= '9')
            number = std::min<size_t>(number * 10 + size_t(re[i] - '0'), kMaxRegexStates);
        else if (re[i] == ',')
            number = 0;
        bound.most = std::max(bound.most, number);
    }
    bound.unbounded = i > at + 1 && re[i - 1] == ',';
    bound.end = i;
    return bound;
}

// Which capture groups a repetition applies to, and the automaton's size with every bound
// counted as if nested in the others: a coarse estimate, but one that cannot be low, checked
// before libstdc++ builds (and recurses over) the automaton.
RegexShape regexShape(std::string_view re)
{
    std::vector<int> parent;
    std::vector<bool> quantified;
    std::vector<int> open;
    size_t factor = 1;
    int lastGroup = -1; // the group that the atom just read is, if it is one
    for (size_t i = 0; i < re.size(); ++i) {
        const char c = re[i];
        int closed = -1;
        if (c == '\\') {
            ++i;
        } else if (c == '[') {
            i = bracketEnd(re, i);
        } else if (c == '(') {
            parent.push_back(open.empty() ? -1 : open.back());
            quantified.push_back(false);
            open.push_back(static_cast<int>(quantified.size()) - 1);
        } else if (c == ')' && !open.empty()) {
            closed = open.back();
            open.pop_back();
        } else if (c == '*' || c == '+' || c == '{') {
            bool repeats = true;
            if (c == '{') {
                const Bound bound = boundAt(re, i);
                i = bound.end;
                factor = std::min(factor * (bound.most + 1), kMaxRegexStates + 1);
                repeats = bound.unbounded || bound.most > 1;
            }
            if (lastGroup >= 0 && repeats)
                quantified[size_t(lastGroup)] = true;
        }
        // Quantifiers stack (`(a)?*`): the atom they apply to stays the group.
        if (c != '*' && c != '+' && c != '?' && c != '{')
            lastGroup = closed;
    }
    RegexShape shape;
    shape.states = std::min(re.size(), kMaxRegexStates + 1) * factor;
    shape.repeated.resize(quantified.size());
    for (size_t group = 0; group < quantified.size(); ++group)
        for (int g = static_cast<int>(group); g >= 0 && !shape.repeated[group];
             g = parent[size_t(g)])
            shape.repeated[group] = quantified[size_t(g)];
    return shape;
}

// Nix's baseNameOf of a string: what follows the last '/', one trailing '/' ignored.
std::pair<size_t, size_t> baseNameRange(std::string_view path)
{
    if (path.empty())
        return {0, 0};
    size_t last = path.size() - 1;
    if (path[last] == '/' && last > 0)
        --last;
    const size_t slash = path.rfind('/', last);
    const size_t begin = slash == std::string_view::npos ? 0 : slash + 1;
    return {begin, last + 1 - begin};
}

const char* kindName(Kind kind)
{
    switch (kind) {
    case Kind::Unknown:
        return "an unknown value";
    case Kind::Null:
        return "null";
    case Kind::Bool:
        return "a Boolean";
    case Kind::Int:
        return "an integer";
    case Kind::Float:
        return "a float";
    case Kind::String:
        return "a string";
    case Kind::Path:
        return "a path";
    case Kind::List:
        return "a list";
    case Kind::AttrSet:
        return "a set";
    case Kind::Function:
        return "a function";
    }
    return "a value";
}

const SymbolTable& baseNames()
{
    static const SymbolTable symbols;
    return symbols;
}

// Text with the runs of it that are source bytes.
struct Text
{
    std::string text;
    std::vector<StringPiece> pieces;

    void addPiece(StringPiece piece)
    {
        if (piece.length == 0)
            return;
        if (!pieces.empty()) {
            StringPiece& last = pieces.back();
            if (last.file == piece.file && last.offset + last.length == piece.offset &&
                last.source + last.length == piece.source) {
                last.length += piece.length;
                return;
            }
        }
        pieces.push_back(piece);
    }

    // more[from, from + length) with the pieces that cover it. Pieces are in order and do
    // not overlap, so the first one is found by bisection: copying a string piece by piece
    // (replaceStrings, substring) then costs no scan of all its pieces per copy.
    void append(std::string_view more, std::span<const StringPiece> morePieces, size_t from = 0,
                size_t length = std::string_view::npos)
    {
        from = std::min(from, more.size());
        length = std::min(length, more.size() - from);
        const size_t base = text.size();
        text.append(more.substr(from, length));
        const auto first =
            std::partition_point(morePieces.begin(), morePieces.end(),
                                 [&](const StringPiece& p) { return p.offset + p.length <= from; });
        for (auto piece = first; piece != morePieces.end(); ++piece) {
            if (piece->offset >= from + length)
                break;
            const size_t begin = std::max(piece->offset, from);
            const size_t end = std::min(piece->offset + piece->length, from + length);
            if (begin >= end)
                continue;
            addPiece({base + (begin - from), end - begin, piece->file,
                      static_cast<uint32_t>(piece->source + (begin - piece->offset))});
        }
    }
};

// Where the decoded characters of a literal run are its source bytes. A "…" run differs from
// its source only at escapes (and \r\n); an indented run only by indentation removed at line
// starts and a dropped last blank line, so it is aligned from the end.
void literalPieces(std::string_view raw, std::string_view decoded, bool indented, uint32_t source,
                   std::string_view file, size_t offset, Text& out)
{
    if (raw == decoded) {
        out.addPiece({offset, decoded.size(), file, source});
        return;
    }
    std::vector<StringPiece> runs;
    if (!indented) {
        size_t i = 0, j = 0;
        bool open = false;
        while (i < raw.size() && j < decoded.size()) {
            if (raw[i] == '\\' || raw[i] == '\r') {
                open = false;
                i += raw[i] == '\\' ? 2 : (i + 1 < raw.size() && raw[i + 1] == '\n' ? 2 : 1);
                ++j;
                continue;
            }
            if (raw[i] != decoded[j])
                break;
            if (!open)
                runs.push_back({offset + j, 0, file, static_cast<uint32_t>(source + i)});
            open = true;
            ++runs.back().length;
            ++i;
            ++j;
        }
    } else {
        if (raw.substr(0, 2) == "''")
            return; // an escape: ''$, ''' or ''\x
        size_t i = raw.size(), j = decoded.size();
        while (i > 0 && j > 0) {
            if (raw[i - 1] != decoded[j - 1]) {
                --i;
                continue;
            }
            size_t length = 0;
            while (length < i && length < j && raw[i - 1 - length] == decoded[j - 1 - length])
                ++length;
            i -= length;
            j -= length;
            runs.push_back({offset + j, length, file, static_cast<uint32_t>(source + i)});
        }
        if (j > 0)
            return;
        std::reverse(runs.begin(), runs.end());
    }
    for (const StringPiece& run : runs)
        out.addPiece(run);
}

// Stable addresses without one allocation per element (which std::deque makes for an
// element as large as ValueData): elements are built in chunks and destroyed with the arena.
template <typename T, size_t Chunk = 32> class Arena
{
public:
    Arena() = default;
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;
    ~Arena()
    {
        for (size_t i = 0; i < m_size; ++i)
            slot(i)->~T();
    }

    template <typename... Args> T& emplace_back(Args&&... args)
    {
        if (m_size == m_chunks.size() * Chunk)
            m_chunks.emplace_back(new Storage[Chunk]); // left uninitialised: built on use
        T* made = new (slot(m_size)) T{std::forward<Args>(args)...};
        ++m_size;
        return *made;
    }

private:
    struct Storage
    {
        alignas(T) std::byte bytes[sizeof(T)];
    };
    T* slot(size_t i) { return reinterpret_cast<T*>(m_chunks[i / Chunk][i % Chunk].bytes); }

    std::vector<std::unique_ptr<Storage[]>> m_chunks;
    size_t m_size = 0;
};

struct Key
{
    const void* a = nullptr;
    const void* b = nullptr;
    friend bool operator==(const Key&, const Key&) = default;
};

struct KeyHash
{
    size_t operator()(const Key& key) const
    {
        const auto a = reinterpret_cast<uintptr_t>(key.a);
        const auto b = reinterpret_cast<uintptr_t>(key.b);
        return std::hash<uintptr_t>()(a * 0x9E3779B97F4A7C15ull ^ b);
    }
};

} // namespace

struct Evaluator::Impl
{
    struct File
    {
        std::string id;
        const SyntaxTree* tree = nullptr;
        Env base;
        Thunk* root = nullptr;
    };

    // One public call: a fresh step budget.
    struct Entry
    {
        explicit Entry(Impl& impl) : impl(impl)
        {
            if (impl.entries++ == 0) {
                impl.steps = 0;
                impl.exhausted = false;
                impl.depth = 0;
            }
        }
        ~Entry() { --impl.entries; }
        Impl& impl;
    };

    struct DepthGuard
    {
        explicit DepthGuard(Impl& impl) : impl(impl), tooDeep(++impl.depth > impl.limits.depth) {}
        ~DepthGuard() { --impl.depth; }
        Impl& impl;
        bool tooDeep;
    };

    struct Selected
    {
        enum Status { Found, Missing, Uncertain };
        Value value;
        Status status = Missing;
    };

    Impl(Evaluator& self, const SyntaxTree& tree, std::string fileId, ModuleLoader* loader,
         Limits limits)
        : self(self), loader(loader), limits(limits)
    {
        addFile(std::move(fileId), &tree);
    }

    Evaluator& self;
    ModuleLoader* loader;
    Limits limits;
    std::deque<File> files;
    std::unordered_map<std::string, uint32_t> fileIndex; // UINT32_MAX: could not be loaded
    Arena<ValueData> values;
    Arena<Thunk> thunks;
    Arena<Env> envs;
    Arena<ChainLink> links;
    std::unordered_set<std::string> names;
    std::unordered_map<Key, Thunk*, KeyHash> thunkMemo;
    std::unordered_map<Key, const Env*, KeyHash> envMemo;
    std::unordered_map<Key, const ValueData*, KeyHash> renamed;
    // Modules whose root function evaluateApplied() applies: the argument's thunk per file.
    std::unordered_map<uint32_t, std::vector<Thunk*>> appliedRoots;
    // What builtins.readFile read, by file id: each file is read once per evaluator.
    std::unordered_map<std::string, Value> readFiles;
    // builtins.match's regexes by their text: a module matching each variant's name compiles
    // its regex once. Cleared when full.
    struct CompiledRegex
    {
        std::optional<std::regex> regex; // nullopt: `cause` and `reason` say why
        RegexShape shape;
        Cause cause = Cause::None;
        std::string reason;
    };
    std::unordered_map<std::string, CompiledRegex> regexes;
    std::optional<Value> exhaustedValue;
    uint64_t steps = 0;
    uint32_t depth = 0;
    int entries = 0;
    bool exhausted = false;

    // ---- values -------------------------------------------------------------------------

    static const ValueData& data(const Value& value)
    {
        static const ValueData none = [] {
            ValueData d;
            d.reason = "no value";
            return d;
        }();
        return value.m_data ? *value.m_data : none;
    }

    // Values are built in place in the arena: a ValueData is large, and building it on the
    // stack of every recursive evaluation would multiply the stack a nesting level needs.
    Value wrap(const ValueData* d, const ChainLink* chain = nullptr)
    {
        return Value(&self, d, chain);
    }
    Value wrap(const ValueData& d) { return wrap(&d); }
    ValueData& fresh(Kind kind)
    {
        ValueData& d = values.emplace_back();
        d.kind = kind;
        return d;
    }
    ValueData& copyOf(const ValueData& d) { return values.emplace_back(d); }
    Value rechain(const Value& value, const ChainLink* chain) { return wrap(value.m_data, chain); }

    std::string_view intern(std::string_view name) { return *names.emplace(name).first; }
    std::string_view fileId(uint32_t file) const { return files[file].id; }
    Origin originAt(uint32_t file, SourceRange range) const { return {fileId(file), range}; }
    uint32_t fileOf(const Origin& origin) const
    {
        auto it = fileIndex.find(std::string(origin.file));
        return it == fileIndex.end() || it->second == UINT32_MAX ? 0 : it->second;
    }

    // `root`: what the unknown comes down to (a path, or the first reason), so that reasons
    // stay short however deep the dependence goes.
    ValueData& newUnknown(Cause cause, std::string reason, std::string path = {},
                          std::string root = {})
    {
        ValueData& d = fresh(Kind::Unknown);
        d.cause = cause;
        if (reason.size() > kMaxReason)
            reason = reason.substr(0, kMaxReason) + "…";
        d.reason = std::move(reason);
        d.root = std::move(root);
        if (path.size() <= kMaxPath) {
            d.hasPath = !path.empty();
            d.text = std::move(path);
        }
        return d;
    }
    Value unknown(Cause cause, std::string reason, std::string path = {})
    {
        return wrap(newUnknown(cause, std::move(reason), std::move(path)));
    }
    // Something from outside, unless it is a library function we run ourselves (a formal
    // `callPackage`, say).
    Value external(std::string_view path)
    {
        if (const int native = nativeFor(path); native >= 0)
            return nativeFunction(native, path);
        return unknown(Cause::External, "defined outside the evaluated files", std::string(path));
    }
    Value exhaustion()
    {
        if (!exhaustedValue)
            exhaustedValue = unknown(Cause::Limit, "evaluation budget exhausted");
        return *exhaustedValue;
    }
    Value tooLarge(const char* what)
    {
        return unknown(Cause::Limit, std::string(what) + " too large");
    }
    Value error(std::string what) { return unknown(Cause::Error, std::move(what)); }

    static std::string rootOf(const Value& on)
    {
        const ValueData& d = data(on);
        return d.hasPath ? d.text : !d.root.empty() ? d.root : d.reason;
    }
    // What an unknown `on` makes of an expression depending on it: Limit and Cycle stay what
    // they are, so a caller can tell "we gave up" from "this comes from outside".
    ValueData& newDependent(const Value& on, std::string what, std::string path = {})
    {
        Cause cause = data(on).cause;
        if (cause == Cause::External || cause == Cause::None)
            cause = Cause::Dependent;
        std::string root = rootOf(on);
        std::string reason = what + " (" + root + ")";
        return newUnknown(cause, std::move(reason), std::move(path), std::move(root));
    }
    Value dependent(const Value& on, std::string what)
    {
        return wrap(newDependent(on, std::move(what)));
    }
    // The unknown result of calling a function that has the symbolic name `path`.
    Value unknownCall(std::string_view path, const Value& on, std::optional<Value> fallback = {})
    {
        ValueData& d = newDependent(on, "depends on", callPath(path));
        d.fallback = std::move(fallback);
        return wrap(d);
    }

    Value boolean(bool value, uint32_t file, SourceRange range)
    {
        ValueData& d = fresh(Kind::Bool);
        d.boolean = value;
        d.origin = originAt(file, range);
        return wrap(d);
    }
    Value integer(int64_t value, Origin origin)
    {
        ValueData& d = fresh(Kind::Int);
        d.integer = value;
        d.origin = origin;
        return wrap(d);
    }
    Value floating(double value, Origin origin)
    {
        ValueData& d = fresh(Kind::Float);
        d.number = value;
        d.origin = origin;
        return wrap(d);
    }
    Value string(Text text, Origin origin)
    {
        if (text.text.size() > limits.stringBytes)
            return tooLarge("string");
        ValueData& d = fresh(Kind::String);
        d.text = std::move(text.text);
        d.pieces = std::move(text.pieces);
        // Past the cap the text maps nowhere, as computed text does: splitting a string in
        // a loop of `+` or replaceStrings cannot make each value hold a piece per byte.
        if (d.pieces.size() > limits.pieces)
            d.pieces.resize(limits.pieces);
        d.origin = origin;
        return wrap(d);
    }
    Value list(std::vector<Thunk*> elements, Origin origin)
    {
        if (elements.size() > limits.elements)
            return tooLarge("list");
        ValueData& d = fresh(Kind::List);
        d.elements = std::move(elements);
        d.origin = origin;
        return wrap(d);
    }
    Value set(std::vector<Slot> attributes, std::optional<Value> rest, Origin origin)
    {
        if (attributes.size() > limits.elements)
            return tooLarge("attribute set");
        ValueData& d = fresh(Kind::AttrSet);
        d.attributes = std::move(attributes);
        d.rest = std::move(rest);
        d.origin = origin;
        return wrap(d);
    }
    Value nativeFunction(int native, std::string_view path)
    {
        ValueData& d = fresh(Kind::Function);
        d.native = native;
        d.text = std::string(path);
        return wrap(d);
    }
    Value withFallback(const Value& value, const Value& fallback)
    {
        ValueData& d = copyOf(data(value));
        d.fallback = fallback;
        return wrap(&d, value.m_chain);
    }

    // ---- binding chains -----------------------------------------------------------------

    const ChainLink* extend(const ChainLink* chain, const BindingStep& step)
    {
        if (step.name.empty() || (chain && chain->length >= kMaxChain))
            return chain;
        return &links.emplace_back(step, chain, chain ? chain->length + 1 : 1);
    }
    // `inner`'s bindings, then `outer`'s around them.
    const ChainLink* join(const ChainLink* inner, const ChainLink* outer)
    {
        std::vector<const ChainLink*> around;
        for (const ChainLink* link = outer; link; link = link->inner)
            around.push_back(link);
        for (auto it = around.rbegin(); it != around.rend(); ++it)
            inner = extend(inner, (*it)->step);
        return inner;
    }

    // ---- files and thunks ---------------------------------------------------------------

    uint32_t addFile(std::string id, const SyntaxTree* tree)
    {
        const auto index = static_cast<uint32_t>(files.size());
        File& file = files.emplace_back();
        file.id = std::move(id);
        file.tree = tree;
        file.base.file = index;
        file.root = tree->root() ? thunkFor(tree->root(), &file.base)
                                 : ready(error("the file does not parse"));
        fileIndex.emplace(file.id, index);
        return index;
    }

    Thunk& newThunk(Thunk::Mode mode)
    {
        Thunk& thunk = thunks.emplace_back();
        thunk.mode = mode;
        thunk.state = mode == Thunk::Mode::Ready ? Thunk::State::Done : Thunk::State::Pending;
        return thunk;
    }
    Thunk* ready(Value value)
    {
        Thunk& thunk = newThunk(Thunk::Mode::Ready);
        thunk.value = std::move(value);
        return &thunk;
    }
    // One thunk per expression and environment, so that however a value is reached (a
    // binding, a caller's evaluate()), it is evaluated once.
    Thunk* thunkFor(const Node* node, const Env* env)
    {
        if (!node)
            return ready(error("missing expression"));
        auto [it, inserted] = thunkMemo.try_emplace(Key{node, env}, nullptr);
        if (inserted) {
            Thunk& thunk = newThunk(Thunk::Mode::Expr);
            thunk.node = node;
            thunk.env = env;
            it->second = &thunk;
        }
        return it->second;
    }
    Thunk* attrThunk(Thunk* base, std::string_view name, Thunk* otherwise, bool missingIsFree)
    {
        Thunk& thunk = newThunk(Thunk::Mode::Attr);
        thunk.base = base;
        thunk.name = name;
        thunk.otherwise = otherwise;
        thunk.missingIsFree = missingIsFree;
        return &thunk;
    }
    Thunk* inheritThunk(const Node* nameNode, std::string_view name, const Env* env)
    {
        Thunk& thunk = newThunk(Thunk::Mode::Inherit);
        thunk.node = nameNode;
        thunk.name = name;
        thunk.env = env;
        return &thunk;
    }
    Thunk* applyThunk(const Value& function, Thunk* argument, uint32_t file, SourceRange site)
    {
        Thunk& thunk = newThunk(Thunk::Mode::Apply);
        thunk.function = function;
        thunk.base = argument;
        thunk.siteFile = file;
        thunk.site = site;
        return &thunk;
    }
    // `function first second`, when forced: how attributes that recursiveUpdate and
    // mapAttrs compute stay lazy.
    Thunk* callThunk(const Value& function, Thunk* first, Thunk* second, uint32_t file,
                     SourceRange site)
    {
        Thunk& thunk = newThunk(Thunk::Mode::Call);
        thunk.function = function;
        thunk.base = first;
        thunk.otherwise = second;
        thunk.siteFile = file;
        thunk.site = site;
        return &thunk;
    }

    Value force(Thunk* thunk)
    {
        if (thunk->state == Thunk::State::Done)
            return thunk->value;
        if (thunk->state == Thunk::State::Forcing)
            return unknown(Cause::Cycle, "infinite recursion");
        if (exhausted)
            return exhaustion(); // not memoised: this thunk itself was never tried
        thunk->state = Thunk::State::Forcing;
        Value value;
        switch (thunk->mode) {
        case Thunk::Mode::Expr:
            value = eval(thunk->node, thunk->env);
            break;
        case Thunk::Mode::Inherit:
            value = lookup(thunk->name, thunk->env, thunk->node);
            break;
        case Thunk::Mode::Attr:
            value = forceAttr(*thunk);
            break;
        case Thunk::Mode::Apply:
            value = apply(thunk->function, thunk->base, thunk->siteFile, thunk->site);
            break;
        case Thunk::Mode::Call:
            value = callTwo(*thunk);
            break;
        case Thunk::Mode::Ready:
            value = thunk->value;
            break;
        }
        thunk->value = value;
        thunk->state = Thunk::State::Done;
        return value;
    }

    Value forceAttr(const Thunk& thunk)
    {
        const Selected selected = selectAttr(force(thunk.base), thunk.name);
        switch (selected.status) {
        case Selected::Found:
            return selected.value;
        case Selected::Missing:
            if (thunk.otherwise)
                return force(thunk.otherwise);
            if (thunk.missingIsFree)
                return external(thunk.name);
            return error("attribute '" + std::string(thunk.name) + "' missing");
        case Selected::Uncertain:
            break;
        }
        if (thunk.otherwise && selected.value.isUnknown())
            return withFallback(selected.value, force(thunk.otherwise));
        return selected.value;
    }

    // ---- environments -------------------------------------------------------------------

    Env& newEnv(const Env* parent, uint32_t file)
    {
        Env& env = envs.emplace_back();
        env.parent = parent;
        env.file = file;
        return env;
    }

    static const Slot* findSlot(const std::vector<Slot>& slots, std::string_view name)
    {
        auto it =
            std::lower_bound(slots.begin(), slots.end(), name,
                             [](const Slot& slot, std::string_view n) { return slot.name < n; });
        return it != slots.end() && it->name == name ? &*it : nullptr;
    }

    // The range of a name that `text` views in the file's source (formals, lambda arguments).
    SourceRange rangeOf(uint32_t file, std::string_view text) const
    {
        const std::string_view source = files[file].tree->source();
        if (text.data() < source.data() ||
            text.data() + text.size() > source.data() + source.size())
            return {};
        const auto begin = static_cast<uint32_t>(text.data() - source.data());
        return {begin, static_cast<uint32_t>(begin + text.size())};
    }

    struct Builder;
    struct Pending
    {
        BindingStep step;
        SourceRange range;
        Thunk* thunk = nullptr;
        std::unique_ptr<Builder> nested;
    };
    struct Builder
    {
        std::map<std::string, Pending, std::less<>> attributes;
        bool unknownNames = false;
    };

    // The name a path segment or inherited name spells, evaluating `${…}` in `env`.
    std::optional<std::string> attrName(const Node* segment, const Env* env)
    {
        if (!segment)
            return std::nullopt;
        if (segment->kind == NodeKind::AttrName)
            return std::string(segment->text);
        if (auto literal = literalString(*segment))
            return literal;
        return eval(segment, env).asString();
    }

    // Binding and Inherit children into `builder`: values see `valueEnv`, plain inherits look
    // their names up in `inheritEnv`.
    void collect(Node::Children children, const Env* valueEnv, const Env* inheritEnv,
                 Builder& builder)
    {
        const uint32_t file = valueEnv->file;
        for (const Node* child : children) {
            if (child->kind == NodeKind::Binding) {
                const Node* path = child->bindingPath();
                const Node* value = child->bindingValue();
                if (!path || !value)
                    continue;
                Builder* current = &builder;
                const auto segments = path->segments();
                for (size_t i = 0; i < segments.size(); ++i) {
                    auto name = attrName(segments[i], valueEnv);
                    if (!name) {
                        current->unknownNames = true;
                        break;
                    }
                    auto [it, inserted] = current->attributes.try_emplace(*name);
                    Pending& pending = it->second;
                    if (inserted) {
                        pending.step = {intern(*name), fileId(file), segments[i]->range};
                        pending.range = segments[i]->range;
                    }
                    if (i + 1 == segments.size()) {
                        if (!pending.thunk && !pending.nested)
                            pending.thunk = thunkFor(value, valueEnv);
                        break;
                    }
                    if (pending.thunk)
                        break; // `a = …; a.b = …;`, which Nix rejects unless … is a set
                    if (!pending.nested)
                        pending.nested = std::make_unique<Builder>();
                    current = pending.nested.get();
                }
            } else if (child->kind == NodeKind::Inherit) {
                const Node* source = child->inheritSource();
                Thunk* sourceThunk = source ? thunkFor(source, valueEnv) : nullptr;
                for (const Node* nameNode : child->inheritedNames()) {
                    auto name = attrName(nameNode, valueEnv);
                    if (!name)
                        continue;
                    auto [it, inserted] = builder.attributes.try_emplace(*name);
                    if (!inserted)
                        continue;
                    const std::string_view interned = intern(*name);
                    it->second.step = {interned, fileId(file), nameNode->range};
                    it->second.range = nameNode->range;
                    it->second.thunk = sourceThunk
                                           ? attrThunk(sourceThunk, interned, nullptr, false)
                                           : inheritThunk(nameNode, interned, inheritEnv);
                }
            }
        }
    }

    std::vector<Slot> finish(Builder& builder, uint32_t file, uint32_t level = 0)
    {
        std::vector<Slot> slots;
        slots.reserve(builder.attributes.size());
        for (auto& [name, pending] : builder.attributes) {
            Thunk* thunk = pending.thunk;
            if (!thunk && level >= limits.depth) {
                thunk = ready(unknown(Cause::Limit, "attribute path nested too deeply"));
            } else if (!thunk) {
                std::optional<Value> rest;
                if (pending.nested->unknownNames)
                    rest = unknown(Cause::Dependent, "an attribute name is not known");
                thunk = ready(set(finish(*pending.nested, file, level + 1), rest,
                                  originAt(file, pending.range)));
            }
            slots.push_back({intern(name), thunk, pending.step});
        }
        return slots;
    }

    // The recursive scope of a `let` or a `rec { }`: its bindings see each other.
    const Env* letEnv(const Node& owner, const Env* outer)
    {
        auto [it, inserted] = envMemo.try_emplace(Key{&owner, outer}, nullptr);
        if (!inserted)
            return it->second;
        Env& env = newEnv(outer, outer->file);
        env.renames = true;
        it->second = &env;
        Builder builder;
        // `inherit x;` takes x from outside, not from the scope itself.
        collect(owner.bindings(), &env, outer, builder);
        env.unknownNames = builder.unknownNames;
        env.slots = finish(builder, env.file);
        return &env;
    }

    const Env* withEnv(const Node& with, const Env* outer)
    {
        auto [it, inserted] = envMemo.try_emplace(Key{&with, outer}, nullptr);
        if (!inserted)
            return it->second;
        Env& env = newEnv(outer, outer->file);
        env.with = thunkFor(with.withScope(), outer);
        it->second = &env;
        return &env;
    }

    // Binds a lambda's argument: `arg` null means the lambda is not applied (evaluate() of a
    // node inside it), so formals take their defaults and the rest are named unknowns.
    void bindLambda(const Node& lambda, Env& env, Thunk* arg)
    {
        const uint32_t file = env.file;
        std::vector<Slot> slots;
        if (!lambda.text.empty())
            slots.push_back({lambda.text,
                             arg ? arg : ready(external(lambda.text)),
                             {lambda.text, fileId(file), rangeOf(file, lambda.text)}});
        if (const Node* formals = lambda.lambdaFormals())
            for (const Node* formal : formals->formals()) {
                const Node* fallback = formal->formalDefault();
                Thunk* otherwise = fallback ? thunkFor(fallback, &env) : nullptr;
                Thunk* thunk = arg         ? attrThunk(arg, formal->text, otherwise, true)
                               : otherwise ? otherwise
                                           : ready(external(formal->text));
                const SourceRange key{
                    formal->range.begin,
                    static_cast<uint32_t>(formal->range.begin + formal->text.size())};
                slots.push_back({formal->text, thunk, {formal->text, fileId(file), key}});
            }
        std::sort(slots.begin(), slots.end(),
                  [](const Slot& a, const Slot& b) { return a.name < b.name; });
        env.slots = std::move(slots);
    }

    // The scope inside a lambda seen from outside: applied to `argument` (a module's root
    // for evaluateApplied), or not applied at all when it is null.
    const Env* staticLambdaEnv(const Node& lambda, const Env* outer, Thunk* argument = nullptr)
    {
        const void* by = argument ? static_cast<const void*>(argument) : outer;
        auto [it, inserted] = envMemo.try_emplace(Key{&lambda, by}, nullptr);
        if (!inserted)
            return it->second;
        Env& env = newEnv(outer, outer->file);
        it->second = &env;
        bindLambda(lambda, env, argument);
        return &env;
    }

    // ---- names --------------------------------------------------------------------------

    Value refer(const Slot& slot, const Env& env)
    {
        Value value = force(slot.thunk);
        const ValueData& d = data(value);
        // `nixpkgs_pinned = import (…) {…};` is better known by its name than as import(...).
        if (env.renames && d.kind == Kind::Unknown && d.hasPath && endsWith(d.text, ")")) {
            auto [it, inserted] = renamed.try_emplace(Key{value.m_data, slot.name.data()}, nullptr);
            if (inserted) {
                ValueData& copy = copyOf(d);
                copy.text = std::string(slot.name);
                it->second = &copy;
            }
            value = wrap(it->second, value.m_chain);
        }
        return rechain(value, extend(value.m_chain, slot.step));
    }

    Value forceSlot(const Slot& slot, const Value& container)
    {
        const Value value = force(slot.thunk);
        return rechain(value, join(extend(value.m_chain, slot.step), container.m_chain));
    }

    // Names a file cannot bind but Nix provides everywhere.
    std::optional<Value> baseValue(std::string_view name, const Node* at, uint32_t file)
    {
        const SourceRange range = at ? at->range : SourceRange{};
        if (name == "true" || name == "false")
            return boolean(name == "true", file, range);
        if (name == "null") {
            ValueData& d = fresh(Kind::Null);
            d.origin = originAt(file, range);
            return wrap(d);
        }
        if (name == "map")
            return nativeFunction(static_cast<int>(Native::Map), "map");
        if (name == "toString")
            return nativeFunction(static_cast<int>(Native::ToString), "toString");
        if (name == "import")
            return nativeFunction(static_cast<int>(Native::Import), "import");
        if (baseNames().isBaseName(name)) {
            // baseNameOf and dirOf are builtins.baseNameOf and builtins.dirOf, `__elemAt` is
            // builtins.elemAt, and so on.
            const std::string_view builtin = name.starts_with("__") ? name.substr(2)
                                             : name == "baseNameOf" || name == "dirOf" ? name
                                                                                       : "";
            const int native = builtin.empty() ? -1 : nativeFor("builtins." + std::string(builtin));
            if (native >= 0 && kNatives[native].inBuiltins)
                return nativeFunction(native, name);
            return external(name);
        }
        return std::nullopt;
    }

    Value lookup(std::string_view name, const Env* env, const Node* at)
    {
        for (const Env* e = env; e; e = e->parent)
            if (!e->with)
                if (const Slot* slot = findSlot(e->slots, name))
                    return refer(*slot, *e);
        if (auto value = baseValue(name, at, env->file))
            return *value;
        // Lexical bindings (and Nix's own names) win over `with`; the innermost `with` that
        // has the name, or that cannot tell, decides.
        for (const Env* e = env; e; e = e->parent) {
            if (!e->with)
                continue;
            const Value scope = force(e->with);
            if (scope.isUnknown()) {
                const Value found = selectUnknown(scope, name);
                return data(scope).hasPath ? found : dependent(scope, "found through `with`");
            }
            if (scope.kind() != Kind::AttrSet)
                continue; // Nix would fail; look further out
            const ValueData& d = data(scope);
            if (const Slot* slot = findSlot(d.attributes, name))
                return forceSlot(*slot, scope);
            if (d.rest)
                return selectUnknown(*d.rest, name);
        }
        return external(name);
    }

    // ---- selection ----------------------------------------------------------------------

    Value selectUnknown(const Value& base, std::string_view name)
    {
        const ValueData& d = data(base);
        if (!d.hasPath) // an attribute of it is as unknown, for the same reason
            return wrap(&newUnknown(d.cause, d.reason, {}, d.root), base.m_chain);
        std::string path = d.text + "." + std::string(name);
        const int native = nativeFor(path);
        if (native >= 0)
            return rechain(nativeFunction(native, path), base.m_chain);
        return wrap(&newUnknown(d.cause, d.reason, std::move(path)), base.m_chain);
    }

    Selected selectAttr(const Value& value, std::string_view name)
    {
        if (value.isUnknown())
            return {selectUnknown(value, name), Selected::Uncertain};
        if (value.kind() == Kind::AttrSet) {
            const ValueData& d = data(value);
            if (const Slot* slot = findSlot(d.attributes, name))
                return {forceSlot(*slot, value), Selected::Found};
            if (d.rest)
                return {selectUnknown(*d.rest, name), Selected::Uncertain};
        }
        return {Value(), Selected::Missing};
    }

    Value evalSelect(const Node& node, const Env* env)
    {
        Value current = eval(node.subject(), env);
        const Node* fallback = node.orDefault();
        bool uncertain = false;
        if (const Node* path = node.attrPath())
            for (const Node* segment : path->segments()) {
                auto name = attrName(segment, env);
                if (!name) {
                    current = unknown(Cause::Dependent, "the attribute name is not known");
                    uncertain = true;
                    break;
                }
                Selected selected = selectAttr(current, *name);
                if (selected.status == Selected::Missing) {
                    if (fallback)
                        return eval(fallback, env);
                    if (current.kind() != Kind::AttrSet)
                        return error("selects '" + *name + "' from " + kindName(current.kind()));
                    return error("attribute '" + *name + "' missing");
                }
                uncertain = uncertain || selected.status == Selected::Uncertain;
                current = selected.value;
            }
        if (uncertain && fallback && current.isUnknown())
            return withFallback(current, eval(fallback, env));
        return current;
    }

    Value evalHasAttr(const Node& node, const Env* env)
    {
        Value current = eval(node.subject(), env);
        const uint32_t file = env->file;
        if (const Node* path = node.attrPath())
            for (const Node* segment : path->segments()) {
                auto name = attrName(segment, env);
                if (!name)
                    return unknown(Cause::Dependent, "the attribute name is not known");
                if (current.isUnknown())
                    return dependent(current, "whether it has '" + *name + "'");
                if (current.kind() != Kind::AttrSet)
                    return boolean(false, file, node.range);
                const ValueData& d = data(current);
                const Slot* slot = findSlot(d.attributes, *name);
                if (!slot && d.rest)
                    return dependent(*d.rest, "whether it has '" + *name + "'");
                if (!slot)
                    return boolean(false, file, node.range);
                if (segment != path->segments().back())
                    current = forceSlot(*slot, current);
            }
        return boolean(true, file, node.range);
    }

    // ---- expressions --------------------------------------------------------------------

    Value eval(const Node* node, const Env* env)
    {
        if (!node || !env)
            return error("missing expression");
        if (!spend())
            return exhaustion();
        DepthGuard guard(*this);
        if (guard.tooDeep)
            return unknown(Cause::Limit, "evaluation nested too deeply");
        const uint32_t file = env->file;
        const Origin origin = originAt(file, node->range);
        switch (node->kind) {
        case NodeKind::Int: {
            int64_t value = 0;
            const std::string_view text = node->text;
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (ec != std::errc() || end != text.data() + text.size())
                return error("integer literal out of range");
            return integer(value, origin);
        }
        case NodeKind::Float: {
            double value = 0;
            const std::string_view text = node->text;
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (ec != std::errc())
                return error("float literal out of range");
            return floating(value, origin);
        }
        case NodeKind::String:
        case NodeKind::IndentedString:
            return evalString(*node, env);
        case NodeKind::StringText:
            return literalRun(*node, false, file);
        case NodeKind::Interpolation:
            return eval(node->interpolated(), env);
        case NodeKind::Path:
            return evalPath(*node, env);
        case NodeKind::SearchPath:
            return external("<" + std::string(node->text) + ">");
        case NodeKind::Uri: {
            Text text;
            text.text = std::string(node->text);
            text.addPiece({0, text.text.size(), fileId(file), node->range.begin});
            return string(std::move(text), origin);
        }
        case NodeKind::Identifier:
            // Nix's parser makes every `__curPos` a position: no binding can shadow it.
            if (node->text == "__curPos")
                return curPos(file, node->range);
            return lookup(node->text, env, node);
        case NodeKind::Select:
            return evalSelect(*node, env);
        case NodeKind::HasAttr:
            return evalHasAttr(*node, env);
        case NodeKind::AttrSet:
            return node->isRec() ? recSet(*node, env) : plainSet(*node, env);
        case NodeKind::Let:
            return eval(node->letBody(), letEnv(*node, env));
        case NodeKind::LegacyLet: {
            const Selected body = selectAttr(recSet(*node, env), "body");
            return body.status == Selected::Missing ? error("let { … } without body") : body.value;
        }
        case NodeKind::With:
            return eval(node->withBody(), withEnv(*node, env));
        case NodeKind::Assert: {
            const Value condition = eval(node->condition(), env);
            if (condition.asBool() == false)
                return error("assertion failed");
            return eval(node->assertBody(), env);
        }
        case NodeKind::If: {
            const Value condition = eval(node->condition(), env);
            if (auto value = condition.asBool())
                return eval(*value ? node->thenBranch() : node->elseBranch(), env);
            if (condition.isUnknown())
                return dependent(condition, "the condition is not known");
            return error("the condition is " + std::string(kindName(condition.kind())));
        }
        case NodeKind::Lambda: {
            ValueData& d = fresh(Kind::Function);
            d.lambda = node;
            d.env = env;
            d.origin = origin;
            return wrap(d);
        }
        case NodeKind::Apply:
            return apply(eval(node->function(), env), thunkFor(node->argument(), env), file,
                         node->range);
        case NodeKind::List: {
            if (node->elements().size() > limits.elements)
                return tooLarge("list");
            std::vector<Thunk*> elements;
            elements.reserve(node->elements().size());
            for (const Node* element : node->elements())
                elements.push_back(thunkFor(element, env));
            return list(std::move(elements), origin);
        }
        case NodeKind::Not: {
            const Value operand = eval(node->operand(), env);
            if (auto value = operand.asBool())
                return boolean(!*value, file, node->range);
            return operand.isUnknown() ? dependent(operand, "negates an unknown")
                                       : error("! of " + std::string(kindName(operand.kind())));
        }
        case NodeKind::Negate: {
            const Value operand = eval(node->operand(), env);
            if (auto value = operand.asInt()) {
                if (*value == INT64_MIN)
                    return error("integer overflow");
                return integer(-*value, origin);
            }
            if (auto value = operand.asFloat())
                return floating(-*value, origin);
            return operand.isUnknown() ? dependent(operand, "negates an unknown")
                                       : error("- of " + std::string(kindName(operand.kind())));
        }
        case NodeKind::Binary:
            return evalBinary(*node, env);
        default:
            return unknown(Cause::Unsupported, "not an expression");
        }
    }

    Value plainSet(const Node& node, const Env* env)
    {
        if (node.bindings().size() > limits.elements)
            return tooLarge("attribute set");
        Builder builder;
        collect(node.bindings(), env, env, builder);
        std::optional<Value> rest;
        if (builder.unknownNames)
            rest = unknown(Cause::Dependent, "an attribute name is not known");
        return set(finish(builder, env->file), rest, originAt(env->file, node.range));
    }

    const Env* recEnv(const Node& node, const Env* outer) { return letEnv(node, outer); }

    Value recSet(const Node& node, const Env* outer)
    {
        if (node.bindings().size() > limits.elements)
            return tooLarge("attribute set");
        const Env* env = recEnv(node, outer);
        std::optional<Value> rest;
        if (env->unknownNames)
            rest = unknown(Cause::Dependent, "an attribute name is not known");
        return set(env->slots, rest, originAt(outer->file, node.range));
    }

    // ---- strings ------------------------------------------------------------------------

    // Known text so far, and the parts of an unknown string or list once something is unknown.
    struct Concat
    {
        Concat(Impl& impl, PartsKind kind, Origin origin) : impl(impl), kind(kind), origin(origin)
        {}

        void addKnownText(const ValueData& d) { known.append(d.text, d.pieces); }
        void add(const Value& part)
        {
            const ValueData& d = impl.data(part);
            if (part.isKnown()) {
                if (kind == PartsKind::String && d.kind == Kind::String) {
                    addKnownText(d);
                    return;
                }
                flush();
                parts.push_back(part);
                return;
            }
            ++unknowns;
            if (!first)
                first = part;
            flush();
            if (d.partsKind == kind && parts.size() + d.parts.size() <= kMaxParts) {
                for (const Value& inner : d.parts)
                    if (kind == PartsKind::String && inner.kind() == Kind::String)
                        addKnownText(impl.data(inner));
                    else {
                        flush();
                        parts.push_back(inner);
                    }
                return;
            }
            parts.push_back(part);
        }
        void flush()
        {
            if (known.text.empty())
                return;
            parts.push_back(impl.string(std::move(known), origin));
            known = {};
        }
        bool tooLarge() const { return known.text.size() > impl.limits.stringBytes; }
        Value finish()
        {
            if (!unknowns)
                return impl.string(std::move(known), origin);
            flush();
            ValueData& d = impl.newDependent(*first, "depends on");
            d.partsKind = kind;
            d.parts = std::move(parts);
            return impl.wrap(d);
        }

        Impl& impl;
        PartsKind kind;
        Origin origin;
        Text known;
        std::vector<Value> parts;
        std::optional<Value> first;
        size_t unknowns = 0;
    };

    // What `${v}` contributes to a string; an Error value when Nix would refuse.
    Value interpolated(const Value& value)
    {
        switch (value.kind()) {
        case Kind::String:
        case Kind::Unknown:
            return value;
        case Kind::Path:
            return unknown(Cause::Unsupported, "a path in a string is copied to the Nix store");
        case Kind::AttrSet:
            return unknown(Cause::Unsupported, "a set in a string is its outPath (a store path)");
        default:
            return error(std::string("cannot coerce ") + kindName(value.kind()) + " to a string");
        }
    }

    // One literal run of a string on its own.
    Value literalRun(const Node& node, bool indented, uint32_t file)
    {
        Text text;
        text.text = std::string(node.text);
        literalPieces(files[file].tree->text(node.range), node.text, indented, node.range.begin,
                      fileId(file), 0, text);
        return string(std::move(text), originAt(file, node.range));
    }

    Value evalString(const Node& node, const Env* env)
    {
        const uint32_t file = env->file;
        const std::string_view source = files[file].tree->source();
        Concat out(*this, PartsKind::String, originAt(file, node.range));
        for (const Node* part : node.parts()) {
            if (part->kind == NodeKind::StringText) {
                const size_t offset = out.known.text.size();
                out.known.text += part->text;
                literalPieces(source.substr(part->range.begin, part->range.length()), part->text,
                              node.kind == NodeKind::IndentedString, part->range.begin,
                              fileId(file), offset, out.known);
            } else {
                const Value value = interpolated(eval(part->interpolated(), env));
                if (value.cause() == Cause::Error || value.cause() == Cause::Limit)
                    return value;
                out.add(value);
            }
            if (out.tooLarge())
                return tooLarge("string");
        }
        return out.finish();
    }

    Value evalPath(const Node& node, const Env* env)
    {
        const uint32_t file = env->file;
        std::string text;
        for (const Node* part : node.parts()) {
            if (part->kind == NodeKind::StringText) {
                text += part->text;
                continue;
            }
            const Value value = eval(part->interpolated(), env);
            if (value.isUnknown())
                return dependent(value, "a path with an unknown part");
            if (value.kind() != Kind::String)
                return error(std::string("a path interpolates ") + kindName(value.kind()));
            text += data(value).text;
            if (text.size() > limits.stringBytes)
                return tooLarge("path");
        }
        ValueData& d = fresh(Kind::Path);
        d.text = normalisePath(text);
        d.file = file;
        d.origin = originAt(file, node.range);
        if (d.text == node.text)
            d.pieces.push_back({0, d.text.size(), fileId(file), node.range.begin});
        return wrap(d);
    }

    // ---- operators ----------------------------------------------------------------------

    // Work that loops rather than recurses (comparing, joining, replacing) is charged too, so
    // that large lists and strings cannot multiply into long loops.
    bool spend(uint64_t amount = 1)
    {
        if (!exhausted && (steps += amount) > limits.steps)
            exhausted = true;
        return !exhausted;
    }

    Value elementValue(const Value& list, size_t index)
    {
        if (!spend())
            return exhaustion();
        const Value value = force(data(list).elements[index]);
        return rechain(value, join(value.m_chain, list.m_chain));
    }

    std::optional<bool> equal(const Value& a, const Value& b, int level)
    {
        if (a.isUnknown() || b.isUnknown() || level > kMaxCompareDepth)
            return std::nullopt;
        const ValueData& x = data(a);
        const ValueData& y = data(b);
        const bool numbers = (x.kind == Kind::Int || x.kind == Kind::Float) &&
                             (y.kind == Kind::Int || y.kind == Kind::Float);
        if (numbers && x.kind != y.kind)
            return (x.kind == Kind::Int ? double(x.integer) : x.number) ==
                   (y.kind == Kind::Int ? double(y.integer) : y.number);
        if (x.kind != y.kind)
            return false;
        switch (x.kind) {
        case Kind::Null:
            return true;
        case Kind::Bool:
            return x.boolean == y.boolean;
        case Kind::Int:
            return x.integer == y.integer;
        case Kind::Float:
            return x.number == y.number;
        case Kind::String:
            return x.text == y.text;
        case Kind::Path:
            if (x.text == y.text && x.file == y.file)
                return true;
            return x.text.front() == '/' && y.text.front() == '/' ? std::optional(false)
                                                                  : std::nullopt;
        case Kind::List: {
            if (x.elements.size() != y.elements.size())
                return false;
            bool uncertain = false;
            for (size_t i = 0; i < x.elements.size(); ++i) {
                auto same = equal(elementValue(a, i), elementValue(b, i), level + 1);
                if (same == false)
                    return false;
                uncertain = uncertain || !same;
            }
            return uncertain ? std::nullopt : std::optional(true);
        }
        case Kind::AttrSet: {
            if (x.rest || y.rest)
                return std::nullopt;
            if (x.attributes.size() != y.attributes.size())
                return false;
            for (size_t i = 0; i < x.attributes.size(); ++i)
                if (x.attributes[i].name != y.attributes[i].name)
                    return false;
            bool uncertain = false;
            for (size_t i = 0; i < x.attributes.size(); ++i) {
                if (!spend())
                    return std::nullopt;
                auto same =
                    equal(force(x.attributes[i].thunk), force(y.attributes[i].thunk), level + 1);
                if (same == false)
                    return false;
                uncertain = uncertain || !same;
            }
            return uncertain ? std::nullopt : std::optional(true);
        }
        case Kind::Function:
            return false;
        case Kind::Unknown:
            break;
        }
        return std::nullopt;
    }

    Value arithmetic(BinaryOp op, const Value& a, const Value& b, Origin origin)
    {
        if (a.isUnknown() || b.isUnknown())
            return dependent(a.isUnknown() ? a : b, "arithmetic on an unknown");
        const ValueData& x = data(a);
        const ValueData& y = data(b);
        const auto isNumber = [](const ValueData& d) {
            return d.kind == Kind::Int || d.kind == Kind::Float;
        };
        if (!isNumber(x) || !isNumber(y))
            return error(std::string("arithmetic on ") + kindName(x.kind) + " and " +
                         kindName(y.kind));
        if (x.kind == Kind::Int && y.kind == Kind::Int) {
            int64_t result = 0;
            bool overflow = false;
            switch (op) {
            case BinaryOp::Add:
                overflow = __builtin_add_overflow(x.integer, y.integer, &result);
                break;
            case BinaryOp::Subtract:
                overflow = __builtin_sub_overflow(x.integer, y.integer, &result);
                break;
            case BinaryOp::Multiply:
                overflow = __builtin_mul_overflow(x.integer, y.integer, &result);
                break;
            default:
                if (y.integer == 0)
                    return error("division by zero");
                overflow = x.integer == INT64_MIN && y.integer == -1;
                if (!overflow)
                    result = x.integer / y.integer;
                break;
            }
            return overflow ? error("integer overflow") : integer(result, origin);
        }
        const double l = x.kind == Kind::Int ? double(x.integer) : x.number;
        const double r = y.kind == Kind::Int ? double(y.integer) : y.number;
        switch (op) {
        case BinaryOp::Add:
            return floating(l + r, origin);
        case BinaryOp::Subtract:
            return floating(l - r, origin);
        case BinaryOp::Multiply:
            return floating(l * r, origin);
        default:
            if (r == 0)
                return error("division by zero");
            return floating(l / r, origin);
        }
    }

    Value add(const Value& a, const Value& b, Origin origin)
    {
        const ValueData& x = data(a);
        const ValueData& y = data(b);
        const auto isNumber = [](Kind kind) { return kind == Kind::Int || kind == Kind::Float; };
        if (isNumber(x.kind) && isNumber(y.kind))
            return arithmetic(BinaryOp::Add, a, b, origin);
        if (x.kind == Kind::Path && y.kind == Kind::String) {
            if (x.text.size() + y.text.size() > limits.stringBytes)
                return tooLarge("path");
            ValueData& d = fresh(Kind::Path);
            d.text = normalisePath(x.text + y.text);
            d.file = x.file;
            d.origin = origin;
            return wrap(d);
        }
        const bool stringy = x.kind == Kind::String || y.kind == Kind::String ||
                             x.partsKind == PartsKind::String || y.partsKind == PartsKind::String;
        if (a.isUnknown() || b.isUnknown()) {
            if (!stringy || (a.isKnown() && x.kind != Kind::String) ||
                (b.isKnown() && y.kind != Kind::String))
                return dependent(a.isUnknown() ? a : b, "adds an unknown");
            Concat out(*this, PartsKind::String, origin);
            out.add(a);
            out.add(b);
            return out.tooLarge() ? tooLarge("string") : out.finish();
        }
        if (x.kind == Kind::String && y.kind == Kind::String) {
            Text text;
            text.append(x.text, x.pieces);
            text.append(y.text, y.pieces);
            return string(std::move(text), origin);
        }
        if (x.kind == Kind::String && y.kind == Kind::Path)
            return unknown(Cause::Unsupported, "a path added to a string is copied to the store");
        return error(std::string("adds ") + kindName(x.kind) + " and " + kindName(y.kind));
    }

    Value concatLists(const Value& a, const Value& b, Origin origin)
    {
        const ValueData& x = data(a);
        const ValueData& y = data(b);
        if (x.kind == Kind::List && y.kind == Kind::List) {
            if (x.elements.size() + y.elements.size() > limits.elements)
                return tooLarge("list");
            std::vector<Thunk*> elements = x.elements;
            elements.insert(elements.end(), y.elements.begin(), y.elements.end());
            return list(std::move(elements), origin);
        }
        if ((a.isKnown() && x.kind != Kind::List) || (b.isKnown() && y.kind != Kind::List))
            return error(std::string("++ of ") + kindName(x.kind) + " and " + kindName(y.kind));
        Concat out(*this, PartsKind::List, origin);
        out.add(a);
        out.add(b);
        return out.finish();
    }

    Value update(const Value& a, const Value& b, Origin origin)
    {
        const ValueData& x = data(a);
        const ValueData& y = data(b);
        if (b.isUnknown()) {
            if (x.kind == Kind::AttrSet && x.attributes.empty() && !x.rest)
                return b;
            return dependent(b, "updated with an unknown set");
        }
        if (y.kind != Kind::AttrSet || (a.isKnown() && x.kind != Kind::AttrSet))
            return error(std::string("// of ") + kindName(x.kind) + " and " + kindName(y.kind));
        if (a.isUnknown()) {
            // Only the right side's attributes are known; the others are the left side's.
            return set(y.attributes, y.rest ? dependent(b, "either side of //") : a, origin);
        }
        if (x.attributes.size() + y.attributes.size() > limits.elements)
            return tooLarge("attribute set");
        std::vector<Slot> merged;
        merged.reserve(x.attributes.size() + y.attributes.size());
        size_t i = 0, j = 0;
        while (i < x.attributes.size() || j < y.attributes.size()) {
            if (j == y.attributes.size() ||
                (i < x.attributes.size() && x.attributes[i].name < y.attributes[j].name)) {
                merged.push_back(x.attributes[i++]);
            } else {
                if (i < x.attributes.size() && x.attributes[i].name == y.attributes[j].name)
                    ++i;
                merged.push_back(y.attributes[j++]);
            }
        }
        std::optional<Value> rest = x.rest;
        if (y.rest)
            rest = x.attributes.empty() && !x.rest ? *y.rest : dependent(b, "either side of //");
        return set(std::move(merged), rest, origin);
    }

    Value evalBinary(const Node& node, const Env* env)
    {
        const uint32_t file = env->file;
        const Origin origin = originAt(file, node.range);
        const BinaryOp op = node.op;
        if (op == BinaryOp::And || op == BinaryOp::Or || op == BinaryOp::Implies) {
            const Value left = eval(node.left(), env);
            const auto l = left.asBool();
            if (left.isKnown() && !l)
                return error(std::string("a Boolean operator on ") + kindName(left.kind()));
            // Decided by the left side alone, as Nix short-circuits.
            if (l && op == BinaryOp::And && !*l)
                return boolean(false, file, node.range);
            if (l && op == BinaryOp::Or && *l)
                return boolean(true, file, node.range);
            if (l && op == BinaryOp::Implies && !*l)
                return boolean(true, file, node.range);
            const Value right = eval(node.right(), env);
            const auto r = right.asBool();
            if (right.isKnown() && !r)
                return error(std::string("a Boolean operator on ") + kindName(right.kind()));
            if (l && r)
                return boolean(op == BinaryOp::Implies ? (!*l || *r) : *r, file, node.range);
            // The left side is unknown: the right one may still decide.
            if (r && op == BinaryOp::And && !*r)
                return boolean(false, file, node.range);
            if (r && op != BinaryOp::And && *r)
                return boolean(true, file, node.range);
            return dependent(left.isUnknown() ? left : right, "a Boolean operator on an unknown");
        }
        const Value left = eval(node.left(), env);
        const Value right = eval(node.right(), env);
        switch (op) {
        case BinaryOp::Equal:
        case BinaryOp::NotEqual: {
            const auto same = equal(left, right, 0);
            if (!same)
                return dependent(left.isUnknown() ? left : right, "compares an unknown");
            return boolean(*same == (op == BinaryOp::Equal), file, node.range);
        }
        case BinaryOp::Less:
        case BinaryOp::LessEqual:
        case BinaryOp::Greater:
        case BinaryOp::GreaterEqual:
            return compare(op, left, right, file, node.range);
        case BinaryOp::Update:
            return update(left, right, origin);
        case BinaryOp::Concat:
            return concatLists(left, right, origin);
        case BinaryOp::Add:
            return add(left, right, origin);
        case BinaryOp::Subtract:
        case BinaryOp::Multiply:
        case BinaryOp::Divide:
            return arithmetic(op, left, right, origin);
        default:
            return unknown(Cause::Unsupported, "unknown operator");
        }
    }

    Value compare(BinaryOp op, const Value& a, const Value& b, uint32_t file, SourceRange range)
    {
        if (a.isUnknown() || b.isUnknown())
            return dependent(a.isUnknown() ? a : b, "compares an unknown");
        const ValueData& x = data(a);
        const ValueData& y = data(b);
        int order = 0;
        const auto isNumber = [](Kind kind) { return kind == Kind::Int || kind == Kind::Float; };
        if (x.kind == Kind::Int && y.kind == Kind::Int) {
            order = x.integer < y.integer ? -1 : x.integer > y.integer ? 1 : 0;
        } else if (isNumber(x.kind) && isNumber(y.kind)) {
            const double l = x.kind == Kind::Int ? double(x.integer) : x.number;
            const double r = y.kind == Kind::Int ? double(y.integer) : y.number;
            order = l < r ? -1 : l > r ? 1 : 0;
        } else if ((x.kind == Kind::String && y.kind == Kind::String) ||
                   (x.kind == Kind::Path && y.kind == Kind::Path && x.file == y.file)) {
            const int c = x.text.compare(y.text);
            order = c < 0 ? -1 : c > 0 ? 1 : 0;
        } else if (x.kind == Kind::List && y.kind == Kind::List) {
            return unknown(Cause::Unsupported, "comparison of lists");
        } else {
            return error(std::string("compares ") + kindName(x.kind) + " with " + kindName(y.kind));
        }
        bool result = false;
        switch (op) {
        case BinaryOp::Less:
            result = order < 0;
            break;
        case BinaryOp::LessEqual:
            result = order <= 0;
            break;
        case BinaryOp::Greater:
            result = order > 0;
            break;
        default:
            result = order >= 0;
            break;
        }
        return boolean(result, file, range);
    }

    // ---- functions ----------------------------------------------------------------------

    Value apply(const Value& function, Thunk* argument, uint32_t file, SourceRange site)
    {
        const ValueData& f = data(function);
        if (function.isUnknown()) {
            if (f.text == "throw" || f.text == "abort" || f.text == "builtins.throw" ||
                f.text == "builtins.abort") {
                // `else throw "unsupported GPU"`: the message says why Nix would stop.
                const Value message = force(argument);
                return error(f.text + (message.asString() ? " " + *message.asString() : ""));
            }
            if (f.hasPath)
                return unknown(f.cause == Cause::External ? Cause::External : Cause::Dependent,
                               "the result of calling " + f.text, callPath(f.text));
            return dependent(function, "calls an unknown function");
        }
        if (f.kind == Kind::AttrSet && findSlot(f.attributes, "__functor"))
            return unknown(Cause::Unsupported, "calls a set with __functor");
        if (f.kind != Kind::Function)
            return error(std::string("calls ") + kindName(f.kind) + ", which is not a function");
        if (f.lambda) {
            Env& env = newEnv(f.env, f.env->file);
            bindLambda(*f.lambda, env, argument);
            return eval(f.lambda->lambdaBody(), &env);
        }
        std::vector<Thunk*> arguments = f.arguments;
        arguments.push_back(argument);
        if (arguments.size() < kNatives[f.native].arity) {
            ValueData& partial = copyOf(f);
            partial.arguments = std::move(arguments);
            partial.origin = originAt(file, site);
            return wrap(partial);
        }
        return runNative(static_cast<Native>(f.native), arguments, originAt(file, site), f.text);
    }

    std::vector<Value> forceElements(const Value& list)
    {
        std::vector<Value> out;
        out.reserve(data(list).elements.size());
        for (size_t i = 0; i < data(list).elements.size(); ++i)
            out.push_back(elementValue(list, i));
        return out;
    }

    // Strings joined by `separator`; unknown items make an unknown with parts.
    // An unknown list concatenated from parts, as items to join: the elements of its known
    // parts and each unknown part as one item. nullopt for any other value.
    std::optional<std::vector<Value>> itemsOfParts(const Value& items)
    {
        const ValueData& d = data(items);
        if (items.isKnown() || d.partsKind != PartsKind::List || d.parts.empty() ||
            items.cause() != Cause::Dependent)
            return std::nullopt;
        std::vector<Value> out;
        for (const Value& part : d.parts) {
            if (part.isKnown() && part.kind() != Kind::List)
                return std::nullopt;
            if (part.isUnknown()) {
                out.push_back(part);
                continue;
            }
            for (Value element : forceElements(part))
                out.push_back(std::move(element));
        }
        return out;
    }

    Value joinStrings(const Value& separator, const std::vector<Value>& items, Origin origin)
    {
        Concat out(*this, PartsKind::String, origin);
        for (size_t i = 0; i < items.size(); ++i) {
            if (i > 0)
                out.add(separator);
            const Value item = interpolated(items[i]);
            if (item.cause() == Cause::Error || item.cause() == Cause::Limit)
                return item;
            out.add(item);
            if (out.tooLarge())
                return tooLarge("string");
        }
        return out.finish();
    }

    // A substring of a known string, keeping where it came from.
    Value substring(const Value& text, size_t from, size_t length)
    {
        const ValueData& d = data(text);
        Text out;
        out.append(d.text, d.pieces, from, length);
        return rechain(string(std::move(out), d.origin), text.m_chain);
    }

    Value toStringOf(const Value& value, Origin origin, int level)
    {
        const ValueData& d = data(value);
        const auto literal = [&](std::string text) {
            Text out;
            out.text = std::move(text);
            // `toString 12` reads its text from the literal 12.
            auto file = fileIndex.find(std::string(d.origin.file));
            if (file != fileIndex.end() && file->second != UINT32_MAX &&
                files[file->second].tree->text(d.origin.range) == out.text)
                out.addPiece({0, out.text.size(), d.origin.file, d.origin.range.begin});
            return rechain(string(std::move(out), d.origin), value.m_chain);
        };
        switch (d.kind) {
        case Kind::String:
            return value;
        case Kind::Int:
            return literal(std::to_string(d.integer));
        case Kind::Float: {
            char buffer[64];
            auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, d.number,
                                           std::chars_format::fixed, 6);
            return ec == std::errc() ? literal(std::string(buffer, end))
                                     : error("float out of range");
        }
        case Kind::Bool:
            return literal(d.boolean ? "1" : "");
        case Kind::Null:
            return literal("");
        case Kind::List: {
            if (level > kMaxCompareDepth)
                return unknown(Cause::Limit, "toString nested too deeply");
            std::vector<Value> items;
            for (const Value& item : forceElements(value))
                items.push_back(toStringOf(item, origin, level + 1));
            Text space;
            space.text = " ";
            return joinStrings(string(std::move(space), origin), items, origin);
        }
        case Kind::Path:
            return unknown(Cause::Unsupported, "toString of a path is its absolute location");
        case Kind::AttrSet:
            return unknown(Cause::Unsupported, "toString of a set is its outPath or __toString");
        case Kind::Function:
            return error("toString of a function");
        case Kind::Unknown: {
            Concat out(*this, PartsKind::String, origin);
            out.add(value);
            return out.finish();
        }
        }
        return error("toString");
    }

    // Not inlined into apply(), whose frame is on every recursion path.
    [[gnu::noinline]] Value runNative(Native native, const std::vector<Thunk*>& args, Origin origin,
                                      std::string_view path)
    {
        switch (native) {
        case Native::Optionals:
        case Native::Optional:
        case Native::OptionalString:
        case Native::OptionalAttrs: {
            const Value condition = force(args[0]);
            const auto enabled = condition.asBool();
            if (condition.isKnown() && !enabled)
                return error(std::string(path) + ": the condition is " +
                             kindName(condition.kind()));
            if (enabled == false) {
                if (native == Native::Optionals || native == Native::Optional)
                    return list({}, origin);
                if (native == Native::OptionalAttrs)
                    return set({}, std::nullopt, origin);
                return string({}, origin);
            }
            const Value result =
                native == Native::Optional ? list({args[1]}, origin) : force(args[1]);
            if (enabled)
                return result;
            return unknownCall(path, condition, result);
        }
        case Native::ConcatStringsSep:
        case Native::ConcatMapStringsSep: {
            const Value separator = force(args[0]);
            const Value items = force(args.back());
            // `[ (old.flags or "") ] ++ flags` filtered: the known parts are still joined,
            // the unknown ones stay unknown parts of the string.
            if (native == Native::ConcatStringsSep && separator.kind() == Kind::String)
                if (auto pieces = itemsOfParts(items))
                    return joinStrings(separator, *pieces, origin);
            if (separator.isUnknown() || items.isUnknown())
                return unknownCall(path, separator.isUnknown() ? separator : items);
            if (separator.kind() != Kind::String || items.kind() != Kind::List)
                return error(std::string(path) + ": wrong argument types");
            std::vector<Value> strings;
            if (native == Native::ConcatStringsSep) {
                strings = forceElements(items);
            } else {
                const Value function = force(args[1]);
                for (Thunk* element : data(items).elements)
                    strings.push_back(apply(function, element, fileOf(origin), origin.range));
            }
            return joinStrings(separator, strings, origin);
        }
        case Native::RemovePrefix:
        case Native::RemoveSuffix: {
            const Value affix = force(args[0]);
            const Value text = force(args[1]);
            if (affix.isUnknown() || text.isUnknown())
                return unknownCall(path, affix.isUnknown() ? affix : text);
            if (affix.kind() != Kind::String || text.kind() != Kind::String)
                return error(std::string(path) + ": wrong argument types");
            const std::string& a = data(affix).text;
            const std::string& t = data(text).text;
            if (native == Native::RemovePrefix)
                return t.compare(0, a.size(), a) == 0 ? substring(text, a.size(), t.size()) : text;
            return endsWith(t, a) ? substring(text, 0, t.size() - a.size()) : text;
        }
        case Native::ToString:
            return toStringOf(force(args[0]), origin, 0);
        case Native::MajorMinor: {
            const Value version = force(args[0]);
            if (version.isUnknown())
                return unknownCall(path, version);
            if (version.kind() != Kind::String)
                return error(std::string(path) + ": not a string");
            const std::string& text = data(version).text;
            const auto components = splitVersion(text);
            std::string result;
            for (size_t i = 0; i < components.size() && i < 2; ++i)
                result += (i ? "." : "") + std::string(components[i]);
            if (text.compare(0, result.size(), result) == 0)
                return substring(version, 0, result.size());
            Text out;
            out.text = result;
            return string(std::move(out), data(version).origin);
        }
        case Native::ReplaceStrings:
            return replaceStrings(force(args[0]), force(args[1]), force(args[2]), origin, path);
        case Native::Substring: {
            // builtins.substring start length s: clipped to the string; a negative length
            // reads to its end.
            const Value start = force(args[0]);
            const Value length = force(args[1]);
            const Value text = force(args[2]);
            for (const Value* arg : {&start, &length, &text})
                if (arg->isUnknown())
                    return unknownCall(path, *arg);
            if (!start.asInt() || !length.asInt() || text.kind() != Kind::String)
                return error(std::string(path) + ": wrong argument types");
            if (*start.asInt() < 0)
                return error(std::string(path) + ": negative start position");
            const size_t size = data(text).text.size();
            const size_t from = std::min(size, static_cast<size_t>(*start.asInt()));
            const size_t count = *length.asInt() < 0
                                     ? size - from
                                     : std::min(size - from, static_cast<size_t>(*length.asInt()));
            return substring(text, from, count);
        }
        case Native::EscapeShellArg: {
            const Value text = toStringOf(force(args[0]), origin, 0);
            if (text.isUnknown())
                return text.cause() == Cause::Error ? text : unknownCall(path, text);
            return escapeShellArg(text, origin);
        }
        case Native::Map: {
            const Value function = force(args[0]);
            const Value items = force(args[1]);
            if (items.isUnknown())
                return unknownCall(path, items);
            if (items.kind() != Kind::List)
                return error(std::string(path) + ": not a list");
            // A thunk per element: charged, as a loop that evaluates nothing can repeat it.
            if (!spend(data(items).elements.size()))
                return exhaustion();
            std::vector<Thunk*> elements;
            const uint32_t file = fileOf(origin);
            for (Thunk* element : data(items).elements)
                elements.push_back(applyThunk(function, element, file, origin.range));
            return list(std::move(elements), origin);
        }
        case Native::Import:
            return import(force(args[0]), path);
        case Native::CallPackage: {
            Value function = force(args[0]);
            if (function.kind() == Kind::Path) {
                function = import(function, "import");
                if (function.isUnknown())
                    return function; // why the module is not there says more than the call
            }
            if (function.isUnknown())
                return unknownCall(path, function);
            if (function.kind() != Kind::Function)
                return function; // callPackage of a file that is no function: Nix fails
            const uint32_t file = fileOf(origin);
            return apply(function, args[1], file, origin.range);
        }
        case Native::ReadFile:
            return readFile(force(args[0]), path);
        case Native::FromJson:
            return fromJson(force(args[0]), origin, path);
        case Native::ImportJson: {
            // nixpkgs' lib.importJSON: builtins.fromJSON (builtins.readFile path).
            const Value text = readFile(force(args[0]), path);
            return text.isUnknown() ? text : fromJson(text, origin, path);
        }
        case Native::Match:
            return match(force(args[0]), force(args[1]), origin, path);
        case Native::SplitString:
            return splitString(force(args[0]), force(args[1]), origin, path);
        case Native::ElemAt:
        case Native::Head:
        case Native::Tail:
        case Native::Last:
        case Native::Length:
            return listAccess(native, args, origin, path);
        case Native::StringLength:
            return stringLength(force(args[0]), origin, path);
        case Native::BaseNameOf:
            return baseNameOf(force(args[0]), path);
        case Native::DirOf:
            return dirOf(force(args[0]), origin, path);
        case Native::FoldlStrict:
        case Native::Foldl:
        case Native::Foldr:
            return fold(native, args, origin, path);
        case Native::RecursiveUpdate:
            return recursiveUpdate(args, origin, path);
        case Native::RecursiveMerge:
            return recursiveMerge(args, origin, path);
        case Native::MapAttrs:
            return mapAttrs(args, origin, path);
        case Native::MapAttrsPrime:
            return mapAttrsPrime(args, origin, path);
        case Native::CartesianProduct:
            return cartesianProduct(force(args[0]), origin, path);
        case Native::AttrNames:
        case Native::AttrValues:
            return attrNamesOrValues(native, force(args[0]), origin, path);
        case Native::GenAttrs:
            return genAttrs(args, origin, path);
        case Native::ConcatMap:
            return concatMap(args, origin, path);
        case Native::Filter:
            return filter(args, origin, path);
        case Native::Elem:
            return elem(args, origin, path);
        case Native::Flatten:
            return flatten(force(args[0]), origin, path, 0);
        case Native::GetAttr:
        case Native::HasAttr:
            return getOrHasAttr(native, args, origin, path);
        case Native::ListToAttrs:
            return listToAttrs(args[0], origin, path);
        case Native::NameValuePair:
            return set({{intern("name"), args[0], {}}, {intern("value"), args[1], {}}},
                       std::nullopt, origin);
        case Native::IsString:
        case Native::IsAttrs:
        case Native::IsList:
        case Native::IsFunction:
        case Native::IsBool:
        case Native::IsInt:
        case Native::IsFloat:
        case Native::IsPath:
            return typeTest(native, force(args[0]), origin, path);
        }
        return unknown(Cause::Unsupported, "unknown library function");
    }

    // builtins.readFile: the file's bytes, mapped one to one to the file.
    Value readFile(const Value& target, std::string_view path)
    {
        if (target.isUnknown())
            return unknownCall(path, target);
        const ValueData& d = data(target);
        const bool absolute = d.kind == Kind::String && d.text.substr(0, 1) == "/";
        if (d.kind == Kind::String && !absolute)
            return error(std::string(path) + ": \"" + d.text + "\" is not an absolute path");
        if (d.kind != Kind::Path && !absolute)
            return error(std::string(path) + ": reads " + kindName(d.kind));
        if (!loader)
            return unknown(Cause::Unavailable, "no loader for " + d.text);
        const std::string id =
            loader->resolveFile(fileId(d.kind == Kind::Path ? d.file : 0), d.text);
        if (id.empty())
            return unknown(Cause::Unavailable, "cannot read " + d.text);
        auto [it, inserted] = readFiles.try_emplace(id);
        Value& value = it->second; // stable: nothing below reads another file
        if (!inserted)
            return value;
        const std::optional<std::string_view> bytes = loader->text(id);
        if (!bytes) {
            value = unknown(Cause::Unavailable, "cannot read " + id);
        } else if (bytes->size() > limits.stringBytes) {
            value = tooLarge("file");
        } else {
            const std::string_view file = intern(id);
            const auto size = static_cast<uint32_t>(bytes->size());
            Text text;
            text.text = std::string(*bytes);
            text.addPiece({0, size, file, 0});
            value = string(std::move(text), Origin{file, {0, size}});
        }
        return value;
    }

    // builtins.fromJSON. Where the text maps to a file (it was read from one, or written in a
    // Nix string), values keep where they were written there: origins, the pieces of strings
    // written without escapes, and object keys as the bindings values flow through.
    Value fromJson(const Value& text, Origin origin, std::string_view path)
    {
        if (text.isUnknown())
            return unknownCall(path, text);
        if (text.kind() != Kind::String)
            return error(std::string(path) + ": reads " + kindName(text.kind()));
        JsonReader reader(limits.depth);
        if (!reader.read(data(text).text))
            return unknown(reader.tooDeep() ? Cause::Limit : Cause::Error,
                           std::string(path) + ": " + reader.error());
        if (!spend(reader.nodes().size()))
            return exhaustion();
        return jsonValue(reader.nodes(), 0, text, origin);
    }

    // nodes[index] as a value; `text` is the JSON text, `site` the call's origin.
    Value jsonValue(const std::vector<JsonReader::Node>& nodes, size_t index, const Value& text,
                    Origin site)
    {
        using Json = JsonReader::Node::Kind;
        const JsonReader::Node& node = nodes[index];
        const Origin origin = text.sourceOf(node.begin, node.end - node.begin).value_or(site);
        switch (node.kind) {
        case Json::Null: {
            ValueData& d = fresh(Kind::Null);
            d.origin = origin;
            return wrap(d);
        }
        case Json::Bool: {
            ValueData& d = fresh(Kind::Bool);
            d.boolean = node.boolean;
            d.origin = origin;
            return wrap(d);
        }
        case Json::Int:
            return integer(node.integer, origin);
        case Json::Float:
            return floating(node.number, origin);
        case Json::String: {
            Text out;
            out.text = node.text;
            // An escape makes the text differ from its bytes: then nothing maps.
            if (!node.escaped)
                if (auto inner = text.sourceOf(node.begin + 1, node.text.size()))
                    out.addPiece({0, node.text.size(), inner->file, inner->range.begin});
            return string(std::move(out), origin);
        }
        case Json::Array: {
            std::vector<Thunk*> elements;
            elements.reserve(node.size);
            for (size_t i = 0, child = index + 1; i < node.size; ++i, child = nodes[child].next)
                elements.push_back(ready(jsonValue(nodes, child, text, site)));
            return list(std::move(elements), origin);
        }
        case Json::Object:
            return jsonObject(nodes, index, text, site, origin);
        }
        return error("fromJSON");
    }

    Value jsonObject(const std::vector<JsonReader::Node>& nodes, size_t index, const Value& text,
                     Origin site, Origin origin)
    {
        std::vector<Slot> slots;
        slots.reserve(nodes[index].size);
        for (size_t i = 0, child = index + 1; i < nodes[index].size;
             ++i, child = nodes[child].next) {
            const JsonReader::Node& member = nodes[child];
            const std::string_view name = intern(member.key);
            BindingStep step;
            if (!member.keyEscaped)
                if (auto key = text.sourceOf(member.keyBegin, member.keyEnd - member.keyBegin))
                    step = {name, key->file, key->range};
            slots.push_back({name, ready(jsonValue(nodes, child, text, site)), step});
        }
        // A name written twice takes its last value, as in Nix.
        std::stable_sort(slots.begin(), slots.end(),
                         [](const Slot& a, const Slot& b) { return a.name < b.name; });
        std::vector<Slot> unique;
        unique.reserve(slots.size());
        for (size_t i = 0; i < slots.size(); ++i)
            if (i + 1 == slots.size() || slots[i + 1].name != slots[i].name)
                unique.push_back(slots[i]);
        return set(std::move(unique), std::nullopt, origin);
    }

    Value replaceStrings(const Value& from, const Value& to, const Value& text, Origin origin,
                         std::string_view path)
    {
        for (const Value* argument : {&from, &to, &text})
            if (argument->isUnknown())
                return unknownCall(path, *argument);
        if (from.kind() != Kind::List || to.kind() != Kind::List || text.kind() != Kind::String ||
            data(from).elements.size() != data(to).elements.size())
            return error(std::string(path) + ": wrong argument types");
        std::vector<Value> patterns = forceElements(from);
        std::vector<Value> replacements = forceElements(to);
        for (const auto* strings : {&patterns, &replacements})
            for (const Value& item : *strings)
                if (item.kind() != Kind::String)
                    return item.isUnknown() ? unknownCall(path, item)
                                            : error(std::string(path) + ": not a string");
        // As Nix: at each position the first pattern that matches is replaced; an empty one
        // matches before every character and at the end. The runs of `text` in between are
        // copied whole, pieces and all, and a replacement brings the pieces of its string.
        const ValueData& s = data(text);
        const auto pattern = [&](size_t i) -> const std::string& { return data(patterns[i]).text; };
        Text out;
        size_t kept = 0; // where the run of `text` not yet copied begins
        for (size_t p = 0; p <= s.text.size();) {
            if (!spend(patterns.size()))
                return exhaustion();
            size_t i = 0;
            while (i < patterns.size() && s.text.compare(p, pattern(i).size(), pattern(i)) != 0)
                ++i;
            if (i == patterns.size()) {
                ++p;
                continue;
            }
            out.append(s.text, s.pieces, kept, p - kept);
            const ValueData& replacement = data(replacements[i]);
            out.append(replacement.text, replacement.pieces);
            const size_t matched = pattern(i).size();
            kept = p + matched;
            p += std::max<size_t>(matched, 1); // after an empty match, the character is kept
            if (out.text.size() > limits.stringBytes)
                return tooLarge("string");
        }
        out.append(s.text, s.pieces, kept);
        return string(std::move(out), origin);
    }

    // nixpkgs' lib.escapeShellArg: a word of only safe characters stays as it is (and keeps
    // its pieces); anything else is single-quoted, each ' written as '\''.
    Value escapeShellArg(const Value& text, Origin origin)
    {
        const ValueData& s = data(text);
        const auto safe = [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   std::string_view(",._+:@%/-").find(c) != std::string_view::npos;
        };
        if (!s.text.empty() && std::all_of(s.text.begin(), s.text.end(), safe))
            return text;
        Text out;
        out.text = "'";
        size_t run = 0;
        for (size_t i = 0; i <= s.text.size(); ++i) {
            if (i < s.text.size() && s.text[i] != '\'')
                continue;
            out.append(s.text, s.pieces, run, i - run);
            if (i < s.text.size())
                out.text += "'\\''";
            run = i + 1;
        }
        out.text += "'";
        return string(std::move(out), origin);
    }

    Value nullValue(Origin origin)
    {
        ValueData& d = fresh(Kind::Null);
        d.origin = origin;
        return wrap(d);
    }

    const CompiledRegex& compiledRegex(const std::string& pattern)
    {
        if (auto it = regexes.find(pattern); it != regexes.end())
            return it->second;
        if (regexes.size() >= kMaxRegexes)
            regexes.clear();
        CompiledRegex compiled;
        compiled.shape = regexShape(pattern);
#if defined(__GLIBCXX__)
        if (pattern.size() > kMaxRegexBytes || compiled.shape.states > kMaxRegexStates) {
            compiled.cause = Cause::Limit;
            compiled.reason = "regular expression too large";
        } else {
            try {
                compiled.regex.emplace(pattern,
                                       std::regex::extended | std::regex_constants::__polynomial);
            } catch (const std::regex_error& e) {
                // Our limits (and the polynomial matcher's refusal of back-references) are
                // not Nix's: only other errors are the invalid regex Nix rejects.
                const auto code = e.code();
                const bool ours = code == std::regex_constants::error_complexity ||
                                  code == std::regex_constants::error_space ||
                                  code == std::regex_constants::error_stack;
                compiled.cause = ours ? Cause::Limit : Cause::Error;
                compiled.reason = std::string("invalid regular expression: ") + e.what();
            }
        }
        // Were regexShape() to misread the groups, the repeated ones would be misplaced.
        if (compiled.regex && compiled.regex->mark_count() != compiled.shape.repeated.size()) {
            compiled.regex.reset();
            compiled.cause = Cause::Unsupported;
            compiled.reason = "regular expression not understood";
        }
#else
        compiled.cause = Cause::Unsupported;
        compiled.reason = "regular expressions need libstdc++'s polynomial matcher";
#endif
        return regexes.emplace(pattern, std::move(compiled)).first->second;
    }

    // builtins.match: null, or what each group captured (null when it took no part), the
    // captured text keeping the pieces it has in `text`.
    Value match(const Value& regex, const Value& text, Origin origin, std::string_view path)
    {
        for (const Value* argument : {&regex, &text})
            if (argument->isUnknown())
                return unknownCall(path, *argument);
        if (regex.kind() != Kind::String || text.kind() != Kind::String)
            return error(std::string(path) + ": wrong argument types");
        if (!spend(1 + data(regex).text.size() / 16))
            return exhaustion();
        const CompiledRegex& compiled = compiledRegex(data(regex).text);
        if (!compiled.regex)
            return unknown(compiled.cause, std::string(path) + ": " + compiled.reason);
        const std::string& s = data(text).text;
        const size_t work = std::max<size_t>(s.size(), 1) * compiled.shape.states;
        if (work > kMaxRegexWork)
            return unknown(Cause::Limit, std::string(path) + ": string too long to match");
        if (!spend(1 + work / 1024))
            return exhaustion();
        std::smatch groups;
        try {
            if (!std::regex_match(s, groups, *compiled.regex))
                return nullValue(origin);
        } catch (const std::exception& e) {
            return unknown(Cause::Limit, std::string(path) + ": " + e.what());
        }
        std::vector<Thunk*> elements;
        elements.reserve(groups.size());
        for (size_t i = 1; i < groups.size(); ++i) {
            if (compiled.shape.repeated[i - 1])
                elements.push_back(ready(unknown(
                    Cause::Unsupported, "what a repeated group captures last is not modelled")));
            else if (!groups[i].matched)
                elements.push_back(ready(nullValue(origin)));
            else
                elements.push_back(
                    ready(substring(text, size_t(groups.position(i)), size_t(groups.length(i)))));
        }
        return list(std::move(elements), origin);
    }

    // nixpkgs' lib.splitString: the runs between the separator's occurrences, left to right.
    Value splitString(const Value& separator, const Value& text, Origin origin,
                      std::string_view path)
    {
        for (const Value* argument : {&separator, &text})
            if (argument->isUnknown())
                return unknownCall(path, *argument);
        const Value sep = toStringOf(separator, origin, 0);
        const Value s = toStringOf(text, origin, 0);
        for (const Value* argument : {&sep, &s})
            if (argument->isUnknown())
                return *argument;
        const std::string& needle = data(sep).text;
        const std::string& haystack = data(s).text;
        if (needle.empty()) // a regex matching everywhere: Nix's split has its own rules there
            return unknown(Cause::Unsupported, std::string(path) + " with an empty separator");
        std::vector<Thunk*> elements;
        for (size_t from = 0;;) {
            if (!spend() || elements.size() >= limits.elements)
                return elements.size() >= limits.elements ? tooLarge("list") : exhaustion();
            const size_t at = haystack.find(needle, from);
            const size_t end = at == std::string::npos ? haystack.size() : at;
            elements.push_back(ready(substring(s, from, end - from)));
            if (at == std::string::npos)
                break;
            from = at + needle.size();
        }
        return list(std::move(elements), origin);
    }

    // builtins.elemAt, head, tail, length and lib.last, which fail where Nix does.
    Value listAccess(Native native, const std::vector<Thunk*>& args, Origin origin,
                     std::string_view path)
    {
        const Value items = force(args[0]);
        if (auto early = unlessList(items, path))
            return *early;
        const size_t size = data(items).elements.size();
        switch (native) {
        case Native::ElemAt: {
            const Value index = force(args[1]);
            if (index.isUnknown())
                return unknownCall(path, index);
            if (!index.asInt())
                return error(std::string(path) + ": the index is " + kindName(index.kind()));
            const int64_t i = *index.asInt();
            if (i < 0 || uint64_t(i) >= size)
                return error(std::string(path) + ": index " + std::to_string(i) +
                             " out of bounds of a list of " + std::to_string(size));
            return elementValue(items, size_t(i));
        }
        case Native::Length:
            return integer(int64_t(size), origin);
        default:
            break;
        }
        if (size == 0)
            return error(std::string(path) + ": the list is empty");
        if (native == Native::Tail) {
            const auto& elements = data(items).elements;
            return list({elements.begin() + 1, elements.end()}, origin);
        }
        return elementValue(items, native == Native::Head ? 0 : size - 1);
    }

    // ---- lists and sets: builtins and nixpkgs' lib ------------------------------------------

    // What Nix fails on when it forces the value (an error, infinite recursion), and what we
    // gave up on as well: where a strict loop stops.
    static bool fails(const Value& value)
    {
        return value.cause() == Cause::Error || value.cause() == Cause::Cycle;
    }
    static bool stops(const Value& value)
    {
        return fails(value) || value.cause() == Cause::Limit;
    }

    // Whether `path` names nixpkgs' lib function rather than the builtin of the same name.
    static bool fromLib(std::string_view path)
    {
        const auto segments = pathSegments(path);
        for (size_t i = segments.size(); i-- > 0;)
            if (segments[i] == "lib" || segments[i] == "builtins")
                return segments[i] == "lib";
        return false;
    }

    // About the bytes a value holds itself (not its members').
    static size_t footprint(const Value& value)
    {
        const ValueData& d = data(value);
        return d.text.size() + d.pieces.size() * sizeof(StringPiece) +
               d.elements.size() * sizeof(Thunk*) + d.attributes.size() * sizeof(Slot) +
               d.parts.size() * sizeof(Value);
    }

    // Not inlined into force(), whose frame is on every recursion path.
    [[gnu::noinline]] Value callTwo(const Thunk& thunk)
    {
        const Value partial = apply(thunk.function, thunk.base, thunk.siteFile, thunk.site);
        return apply(partial, thunk.otherwise, thunk.siteFile, thunk.site);
    }

    // An attribute's name as a string, its text mapping to the name where it is written as it
    // is (`a = …;`, not `"a" = …;` or `${…} = …;`).
    Value nameString(const Slot& slot, Origin fallback)
    {
        Text text;
        text.text = std::string(slot.name);
        Origin origin = fallback;
        if (!slot.step.name.empty()) {
            origin = {slot.step.file, slot.step.key};
            auto file = fileIndex.find(std::string(slot.step.file));
            if (file != fileIndex.end() && file->second != UINT32_MAX &&
                files[file->second].tree->text(slot.step.key) == text.text)
                text.addPiece({0, text.text.size(), slot.step.file, slot.step.key.begin});
        }
        return string(std::move(text), origin);
    }

    // The binding a computed attribute named by the string `name` flows through: the name's
    // bytes, when they are all written in one place.
    BindingStep nameStep(const Value& name)
    {
        const ValueData& d = data(name);
        if (d.pieces.size() != 1 || d.pieces[0].length != d.text.size() || d.text.empty())
            return {};
        const StringPiece& piece = d.pieces[0];
        return {intern(d.text),
                piece.file,
                {piece.source, static_cast<uint32_t>(piece.source + piece.length)}};
    }

    // Attributes in the order they were made; of a name made twice the first one stays, as
    // listToAttrs keeps it.
    Value entriesToSet(std::vector<Slot> slots, std::optional<Value> rest, Origin origin)
    {
        std::stable_sort(slots.begin(), slots.end(),
                         [](const Slot& a, const Slot& b) { return a.name < b.name; });
        slots.erase(std::unique(slots.begin(), slots.end(),
                                [](const Slot& a, const Slot& b) { return a.name == b.name; }),
                    slots.end());
        return set(std::move(slots), std::move(rest), origin);
    }

    // Lists concatenated; unknown ones make an unknown with parts, as `++` does.
    Value concatenated(const std::vector<Value>& lists, Origin origin, std::string_view path)
    {
        size_t total = 0;
        bool known = true;
        for (const Value& items : lists) {
            if (stops(items))
                return items;
            if (items.isUnknown()) {
                known = false;
                continue;
            }
            if (items.kind() != Kind::List)
                return error(std::string(path) + ": " + kindName(items.kind()) + " is not a list");
            total += data(items).elements.size();
        }
        if (total > limits.elements)
            return tooLarge("list");
        std::vector<Thunk*> run;
        Concat out(*this, PartsKind::List, origin);
        for (const Value& items : lists) {
            if (items.isKnown()) {
                run.insert(run.end(), data(items).elements.begin(), data(items).elements.end());
                continue;
            }
            if (!run.empty())
                out.add(list(std::move(run), origin));
            run.clear();
            out.add(items);
        }
        if (known)
            return list(std::move(run), origin);
        if (!run.empty())
            out.add(list(std::move(run), origin));
        return out.finish();
    }

    // The answer of a list function whose list is not a known list: unknown, with the call's
    // path, or an error.
    std::optional<Value> unlessList(const Value& items, std::string_view path)
    {
        if (items.isUnknown())
            return unknownCall(path, items);
        if (items.kind() != Kind::List)
            return error(std::string(path) + ": " + kindName(items.kind()) + " is not a list");
        return std::nullopt;
    }

    // The same for a function of a set.
    std::optional<Value> unlessSet(const Value& attrs, std::string_view path)
    {
        if (attrs.isUnknown())
            return unknownCall(path, attrs);
        if (attrs.kind() != Kind::AttrSet)
            return error(std::string(path) + ": " + kindName(attrs.kind()) + " is not a set");
        return std::nullopt;
    }

    // builtins.foldl', lib.foldl and lib.foldr: op called along the list one element at a
    // time (foldr from its end), so a long list costs steps rather than nesting. Our values
    // do not throw, so computing what lib.foldl and foldr leave lazy changes the work, not
    // the result; foldl' stops where Nix would fail forcing the accumulator.
    [[gnu::noinline]] Value fold(Native native, const std::vector<Thunk*>& args, Origin origin,
                                 std::string_view path)
    {
        const Value items = force(args[2]);
        if (auto early = unlessList(items, path))
            return *early;
        const Value op = force(args[0]);
        const bool strict = native == Native::FoldlStrict;
        if (strict && op.isKnown() && op.kind() != Kind::Function && op.kind() != Kind::AttrSet)
            return error(std::string(path) + ": " + kindName(op.kind()) + " is not a function");
        const uint32_t file = fileOf(origin);
        const std::vector<Thunk*>& elements = data(items).elements;
        Thunk* accumulator = args[1];
        for (size_t n = 0; n < elements.size(); ++n) {
            if (!spend())
                return exhaustion();
            Value result;
            if (native == Native::Foldr) {
                Thunk* element = elements[elements.size() - 1 - n];
                result =
                    apply(apply(op, element, file, origin.range), accumulator, file, origin.range);
            } else {
                result = apply(apply(op, accumulator, file, origin.range), elements[n], file,
                               origin.range);
            }
            if (strict && stops(result))
                return result;
            // An accumulator that grows (`acc ++ [ x ]`, `acc // { … }`) is copied at each
            // step: charged by its size, so the copies stay bounded.
            if (!spend(footprint(result) / 128))
                return exhaustion();
            accumulator = ready(result);
        }
        return force(accumulator);
    }

    // nixpkgs' lib.recursiveUpdate: lhs // rhs, except that an attribute both have is their
    // recursiveUpdate where both values are sets. Lazy as nixpkgs' is: an attribute of one
    // side keeps its thunk, one of both is merged when it is read.
    [[gnu::noinline]] Value recursiveUpdate(const std::vector<Thunk*>& args, Origin origin,
                                            std::string_view path)
    {
        const Value lhs = force(args[0]);
        const Value rhs = force(args[1]);
        if ((lhs.isKnown() && lhs.kind() != Kind::AttrSet) ||
            (rhs.isKnown() && rhs.kind() != Kind::AttrSet))
            return error(std::string(path) + " of " + kindName(lhs.kind()) + " and " +
                         kindName(rhs.kind()));
        return mergeSets(args, lhs, rhs, origin, path);
    }

    // An attribute both sides of recursiveUpdate have: rhs, unless both are sets (lhs read
    // first, as nixpkgs' `isAttrs lhs && isAttrs rhs`).
    [[gnu::noinline]] Value recursiveMerge(const std::vector<Thunk*>& args, Origin origin,
                                           std::string_view path)
    {
        const Value lhs = force(args[0]);
        if (lhs.isKnown() && lhs.kind() != Kind::AttrSet)
            return force(args[1]);
        if (fails(lhs))
            return lhs;
        const Value rhs = force(args[1]);
        if (rhs.isKnown() && rhs.kind() != Kind::AttrSet)
            return rhs;
        return mergeSets(args, lhs, rhs, origin, path);
    }

    // lhs and rhs (the values of args[0] and args[1]) are sets or unknown. Unknown sides are
    // as in `//`: of an unknown lhs only rhs's attributes are known (and those that are sets
    // are open), an unknown rhs makes all unknown.
    Value mergeSets(const std::vector<Thunk*>& args, const Value& lhs, const Value& rhs,
                    Origin origin, std::string_view path)
    {
        for (const Value* side : {&lhs, &rhs})
            if (fails(*side))
                return *side;
        const ValueData& x = data(lhs);
        const ValueData& y = data(rhs);
        if (rhs.isUnknown()) {
            if (lhs.isKnown() && x.attributes.empty() && !x.rest)
                return rhs;
            return unknownCall(path, rhs);
        }
        const uint32_t file = fileOf(origin);
        const Value merger = nativeFunction(static_cast<int>(Native::RecursiveMerge), path);
        const auto merge = [&](Thunk* left, Thunk* right) {
            return callThunk(merger, left, right, file, origin.range);
        };
        // An attribute the other side may have, in its unknown rest.
        const auto other = [&](Thunk* side, std::string_view name) {
            return attrThunk(side, name, nullptr, false);
        };
        std::vector<Slot> merged;
        if (lhs.isUnknown()) {
            merged.reserve(y.attributes.size());
            for (const Slot& slot : y.attributes) {
                if (!spend())
                    return exhaustion();
                merged.push_back(
                    {slot.name, merge(other(args[0], slot.name), slot.thunk), slot.step});
            }
            std::optional<Value> rest = lhs;
            if (y.rest)
                rest = dependent(rhs, "either side of " + std::string(path));
            return set(std::move(merged), rest, origin);
        }
        if (x.attributes.size() + y.attributes.size() > limits.elements)
            return tooLarge("attribute set");
        merged.reserve(x.attributes.size() + y.attributes.size());
        size_t i = 0, j = 0;
        while (i < x.attributes.size() || j < y.attributes.size()) {
            if (!spend())
                return exhaustion();
            const bool left =
                j == y.attributes.size() ||
                (i < x.attributes.size() && x.attributes[i].name < y.attributes[j].name);
            const bool right =
                i == x.attributes.size() ||
                (j < y.attributes.size() && y.attributes[j].name < x.attributes[i].name);
            if (left) {
                const Slot& slot = x.attributes[i++];
                merged.push_back(
                    !y.rest
                        ? slot
                        : Slot{slot.name, merge(slot.thunk, other(args[1], slot.name)), slot.step});
            } else if (right) {
                const Slot& slot = y.attributes[j++];
                merged.push_back(
                    !x.rest
                        ? slot
                        : Slot{slot.name, merge(other(args[0], slot.name), slot.thunk), slot.step});
            } else {
                const Slot& slot = y.attributes[j++];
                merged.push_back(
                    {slot.name, merge(x.attributes[i++].thunk, slot.thunk), slot.step});
            }
        }
        std::optional<Value> rest = x.rest;
        if (y.rest)
            rest = x.attributes.empty() && !x.rest
                       ? *y.rest
                       : dependent(rhs, "either side of " + std::string(path));
        return set(std::move(merged), rest, origin);
    }

    // builtins.mapAttrs: each attribute `f name value`, computed when it is read.
    [[gnu::noinline]] Value mapAttrs(const std::vector<Thunk*>& args, Origin origin,
                                     std::string_view path)
    {
        const Value attrs = force(args[1]);
        if (auto early = unlessSet(attrs, path))
            return *early;
        const ValueData& d = data(attrs);
        const Value function = force(args[0]);
        const uint32_t file = fileOf(origin);
        std::vector<Slot> slots;
        slots.reserve(d.attributes.size());
        for (const Slot& slot : d.attributes) {
            if (!spend())
                return exhaustion();
            Thunk* name = ready(nameString(slot, origin));
            slots.push_back(
                {slot.name, callThunk(function, name, slot.thunk, file, origin.range), slot.step});
        }
        std::optional<Value> rest;
        if (d.rest)
            rest = unknownCall(path, *d.rest);
        return set(std::move(slots), rest, origin);
    }

    // nixpkgs' lib.mapAttrs': listToAttrs (map (name: f name set.${name}) (attrNames set)).
    [[gnu::noinline]] Value mapAttrsPrime(const std::vector<Thunk*>& args, Origin origin,
                                          std::string_view path)
    {
        const Value attrs = force(args[1]);
        if (auto early = unlessSet(attrs, path))
            return *early;
        if (data(attrs).rest)
            return unknownCall(path, *data(attrs).rest);
        const Value function = force(args[0]);
        const uint32_t file = fileOf(origin);
        std::vector<Thunk*> entries;
        for (const Slot& slot : data(attrs).attributes) {
            if (!spend())
                return exhaustion();
            entries.push_back(callThunk(function, ready(nameString(slot, origin)), slot.thunk, file,
                                        origin.range));
        }
        return listToAttrs(ready(list(std::move(entries), origin)), origin, path);
    }

    // nixpkgs' lib.cartesianProduct: every set taking one element of each list, the last
    // name varying fastest.
    [[gnu::noinline]] Value cartesianProduct(const Value& attrs, Origin origin,
                                             std::string_view path)
    {
        if (auto early = unlessSet(attrs, path))
            return *early;
        if (data(attrs).rest)
            return unknownCall(path, *data(attrs).rest);
        std::vector<std::vector<Slot>> products{{}};
        for (const Slot& slot : data(attrs).attributes) {
            const Value items = force(slot.thunk);
            if (auto early = unlessList(items, path))
                return *early;
            const std::vector<Thunk*>& elements = data(items).elements;
            if (products.size() * elements.size() > limits.elements)
                return tooLarge("list");
            std::vector<std::vector<Slot>> next;
            next.reserve(products.size() * elements.size());
            for (const std::vector<Slot>& product : products)
                for (Thunk* element : elements) {
                    if (!spend())
                        return exhaustion();
                    next.push_back(product);
                    next.back().push_back({slot.name, element, slot.step});
                }
            products = std::move(next);
        }
        std::vector<Thunk*> sets;
        sets.reserve(products.size());
        for (std::vector<Slot>& product : products)
            sets.push_back(ready(set(std::move(product), std::nullopt, origin)));
        return list(std::move(sets), origin);
    }

    // builtins.attrNames and attrValues, by name; unknown when the set is open.
    [[gnu::noinline]] Value attrNamesOrValues(Native native, const Value& attrs, Origin origin,
                                              std::string_view path)
    {
        if (auto early = unlessSet(attrs, path))
            return *early;
        const ValueData& d = data(attrs);
        if (d.rest)
            return unknownCall(path, *d.rest);
        std::vector<Thunk*> elements;
        elements.reserve(d.attributes.size());
        for (const Slot& slot : d.attributes) {
            if (!spend())
                return exhaustion();
            elements.push_back(native == Native::AttrNames ? ready(nameString(slot, origin))
                                                           : slot.thunk);
        }
        return list(std::move(elements), origin);
    }

    // nixpkgs' lib.genAttrs names f: `name = f name;` for each name, f applied when read.
    [[gnu::noinline]] Value genAttrs(const std::vector<Thunk*>& args, Origin origin,
                                     std::string_view path)
    {
        const Value names = force(args[0]);
        if (auto early = unlessList(names, path))
            return *early;
        const Value function = force(args[1]);
        const uint32_t file = fileOf(origin);
        std::vector<Slot> slots;
        std::optional<Value> rest;
        for (size_t i = 0; i < data(names).elements.size(); ++i) {
            const Value name = elementValue(names, i);
            if (stops(name))
                return name;
            if (name.isUnknown()) {
                if (!rest)
                    rest = unknownCall(path, name);
                continue;
            }
            if (name.kind() != Kind::String)
                return error(std::string(path) + ": a name is " + kindName(name.kind()));
            slots.push_back({intern(data(name).text),
                             applyThunk(function, data(names).elements[i], file, origin.range),
                             nameStep(name)});
        }
        return entriesToSet(std::move(slots), rest, origin);
    }

    // builtins.listToAttrs: the first entry of a name wins, so names after an unknown entry
    // are not known.
    [[gnu::noinline]] Value listToAttrs(Thunk* argument, Origin origin, std::string_view path)
    {
        const Value items = force(argument);
        if (auto early = unlessList(items, path))
            return *early;
        std::vector<Slot> slots;
        std::optional<Value> rest;
        for (size_t i = 0; i < data(items).elements.size(); ++i) {
            const Value entry = elementValue(items, i);
            if (stops(entry))
                return entry;
            if (entry.isUnknown()) {
                if (!rest)
                    rest = unknownCall(path, entry);
                continue;
            }
            if (entry.kind() != Kind::AttrSet)
                return error(std::string(path) + ": an entry is " + kindName(entry.kind()));
            const ValueData& e = data(entry);
            const Slot* nameSlot = findSlot(e.attributes, "name");
            const Slot* valueSlot = findSlot(e.attributes, "value");
            if (!e.rest && (!nameSlot || !valueSlot))
                return error(std::string(path) + ": an entry without '" +
                             (nameSlot ? "value" : "name") + "'");
            const Value name =
                nameSlot ? forceSlot(*nameSlot, entry) : selectUnknown(*e.rest, "name");
            if (stops(name))
                return name;
            if (name.isUnknown()) {
                if (!rest)
                    rest = unknownCall(path, name);
                continue;
            }
            if (name.kind() != Kind::String)
                return error(std::string(path) + ": a name is " + kindName(name.kind()));
            if (rest)
                continue; // an unknown entry before it may have its name
            Thunk* value =
                valueSlot ? valueSlot->thunk
                          : attrThunk(data(items).elements[i], intern("value"), nullptr, false);
            slots.push_back({intern(data(name).text), value, nameStep(name)});
        }
        return entriesToSet(std::move(slots), rest, origin);
    }

    // builtins.concatMap: f's lists, concatenated.
    [[gnu::noinline]] Value concatMap(const std::vector<Thunk*>& args, Origin origin,
                                      std::string_view path)
    {
        const Value items = force(args[1]);
        if (auto early = unlessList(items, path))
            return *early;
        const Value function = force(args[0]);
        const uint32_t file = fileOf(origin);
        std::vector<Value> lists;
        lists.reserve(data(items).elements.size());
        for (Thunk* element : data(items).elements) {
            if (!spend())
                return exhaustion();
            lists.push_back(apply(function, element, file, origin.range));
            if (stops(lists.back()))
                return lists.back();
        }
        return concatenated(lists, origin, path);
    }

    // builtins.filter: an element whose predicate is unknown is a part that may be it or
    // nothing (its fallback, as lib.optional's).
    [[gnu::noinline]] Value filter(const std::vector<Thunk*>& args, Origin origin,
                                   std::string_view path)
    {
        const Value items = force(args[1]);
        if (auto early = unlessList(items, path))
            return *early;
        const Value predicate = force(args[0]);
        const uint32_t file = fileOf(origin);
        std::vector<Value> lists;
        std::vector<Thunk*> run;
        for (Thunk* element : data(items).elements) {
            if (!spend())
                return exhaustion();
            const Value keep = apply(predicate, element, file, origin.range);
            if (stops(keep))
                return keep;
            if (keep.isKnown() && !keep.asBool())
                return error(std::string(path) + ": the predicate gives " + kindName(keep.kind()));
            if (keep.asBool() == true) {
                run.push_back(element);
            } else if (keep.isUnknown()) {
                lists.push_back(list(std::move(run), origin));
                run.clear();
                lists.push_back(unknownCall(path, keep, list({element}, origin)));
            }
        }
        lists.push_back(list(std::move(run), origin));
        return concatenated(lists, origin, path);
    }

    // builtins.elem: whether an element equals x, from the first one on.
    [[gnu::noinline]] Value elem(const std::vector<Thunk*>& args, Origin origin,
                                 std::string_view path)
    {
        const Value items = force(args[1]);
        if (auto early = unlessList(items, path))
            return *early;
        const Value x = force(args[0]);
        const uint32_t file = fileOf(origin);
        std::optional<Value> uncertain;
        for (size_t i = 0; i < data(items).elements.size(); ++i) {
            const Value item = elementValue(items, i);
            if (stops(item))
                return item;
            const auto same = equal(x, item, 0);
            if (same == true)
                return boolean(true, file, origin.range);
            if (!same && !uncertain)
                uncertain = x.isUnknown() ? x : item;
            if (exhausted)
                return exhaustion();
        }
        if (uncertain)
            return unknownCall(path, *uncertain);
        return boolean(false, file, origin.range);
    }

    // nixpkgs' lib.flatten: the elements of nested lists, in order; an unknown element may
    // be a list, so it is an unknown part.
    [[gnu::noinline]] Value flatten(const Value& items, Origin origin, std::string_view path,
                                    int level)
    {
        if (items.isUnknown())
            return unknownCall(path, items);
        if (items.kind() != Kind::List) {
            Thunk* single = ready(items);
            return list({single}, origin);
        }
        if (level > kMaxCompareDepth)
            return unknown(Cause::Limit, std::string(path) + " nested too deeply");
        std::vector<Value> lists;
        std::vector<Thunk*> run;
        for (size_t i = 0; i < data(items).elements.size(); ++i) {
            const Value item = elementValue(items, i);
            if (stops(item))
                return item;
            if (item.kind() != Kind::List && item.isKnown()) {
                run.push_back(data(items).elements[i]);
                continue;
            }
            lists.push_back(list(std::move(run), origin));
            run.clear();
            lists.push_back(flatten(item, origin, path, level + 1));
            if (stops(lists.back()))
                return lists.back();
        }
        lists.push_back(list(std::move(run), origin));
        return concatenated(lists, origin, path);
    }

    // builtins.getAttr and hasAttr: `set.${name}` and `set ? ${name}`, except that a value
    // that is no set is an error.
    [[gnu::noinline]] Value getOrHasAttr(Native native, const std::vector<Thunk*>& args,
                                         Origin origin, std::string_view path)
    {
        const Value name = force(args[0]);
        if (name.isUnknown())
            return unknownCall(path, name);
        if (name.kind() != Kind::String)
            return error(std::string(path) + ": the name is " + kindName(name.kind()));
        const Value attrs = force(args[1]);
        if (attrs.isKnown() && attrs.kind() != Kind::AttrSet)
            return error(std::string(path) + ": " + kindName(attrs.kind()) + " is not a set");
        const std::string& text = data(name).text;
        if (native == Native::GetAttr) {
            const Selected selected = selectAttr(attrs, text);
            if (selected.status == Selected::Missing)
                return error(std::string(path) + ": attribute '" + text + "' missing");
            return selected.value;
        }
        if (attrs.isUnknown())
            return unknownCall(path, attrs);
        const ValueData& d = data(attrs);
        if (!findSlot(d.attributes, text) && d.rest)
            return unknownCall(path, *d.rest);
        return boolean(findSlot(d.attributes, text) != nullptr, fileOf(origin), origin.range);
    }

    // builtins.isString, isAttrs, …: known when the kind is. nixpkgs' lib.isFunction also
    // takes a set with __functor, which we do not call.
    Value typeTest(Native native, const Value& value, Origin origin, std::string_view path)
    {
        if (value.isUnknown())
            return unknownCall(path, value);
        static constexpr std::pair<Native, Kind> tested[] = {
            {Native::IsString, Kind::String}, {Native::IsAttrs, Kind::AttrSet},
            {Native::IsList, Kind::List},     {Native::IsFunction, Kind::Function},
            {Native::IsBool, Kind::Bool},     {Native::IsInt, Kind::Int},
            {Native::IsFloat, Kind::Float},   {Native::IsPath, Kind::Path}};
        const Kind kind =
            std::ranges::find(tested, native, &std::pair<Native, Kind>::first)->second;
        if (native == Native::IsFunction && value.kind() == Kind::AttrSet && fromLib(path)) {
            const ValueData& d = data(value);
            if (findSlot(d.attributes, "__functor"))
                return unknown(Cause::Unsupported, std::string(path) + " of a set with __functor");
            if (d.rest)
                return unknownCall(path, *d.rest);
        }
        return boolean(value.kind() == kind, fileOf(origin), origin.range);
    }

    Value stringLength(const Value& text, Origin origin, std::string_view path)
    {
        if (text.isUnknown())
            return unknownCall(path, text);
        if (text.kind() == Kind::Path)
            return unknown(Cause::Unsupported, "a path as a string is its store path");
        if (text.kind() != Kind::String)
            return error(std::string(path) + ": " + kindName(text.kind()) + " is not a string");
        return integer(int64_t(data(text).text.size()), origin);
    }

    // For a path as written, "./a/b.nix" gives "b.nix"; Nix would make it absolute first,
    // which changes nothing unless it ends in "." or "..", whose name only the loader knows.
    Value baseNameOf(const Value& target, std::string_view path)
    {
        if (target.isUnknown())
            return unknownCall(path, target);
        const ValueData& d = data(target);
        if (d.kind != Kind::String && d.kind != Kind::Path)
            return error(std::string(path) + ": " + kindName(d.kind) + " is not a path");
        const auto [begin, length] = baseNameRange(d.text);
        const std::string_view name = std::string_view(d.text).substr(begin, length);
        if (d.kind == Kind::Path && (name == "." || name == ".."))
            return unknown(Cause::Unsupported, "the name of a directory a path leads out to");
        return substring(target, begin, length);
    }

    // Nix's dirOf: of a string, what precedes its last '/' ("." without one); of a path, its
    // parent, a path again.
    Value dirOf(const Value& target, Origin origin, std::string_view path)
    {
        if (target.isUnknown())
            return unknownCall(path, target);
        const ValueData& d = data(target);
        if (d.kind == Kind::String) {
            const size_t slash = d.text.rfind('/');
            if (slash != std::string::npos)
                return substring(target, 0, std::max<size_t>(slash, 1));
            Text dot;
            dot.text = ".";
            return string(std::move(dot), origin);
        }
        if (d.kind != Kind::Path)
            return error(std::string(path) + ": " + kindName(d.kind) + " is not a path");
        ValueData& parent = fresh(Kind::Path);
        parent.text = d.text == "/" ? d.text : normalisePath(d.text + "/..");
        parent.file = d.file;
        parent.origin = origin;
        if (d.text.starts_with(parent.text)) {
            Text prefix;
            prefix.append(d.text, d.pieces, 0, parent.text.size());
            parent.pieces = std::move(prefix.pieces);
        }
        return wrap(parent);
    }

    // `__curPos` where it is written: Nix gives `file` as an absolute path, which we have
    // not; the file id is relative to the repository, so only its base name means the same.
    Value curPos(uint32_t file, SourceRange range)
    {
        const std::string_view source = files[file].tree->source();
        const std::string_view before =
            source.substr(0, std::min<size_t>(range.begin, source.size()));
        const size_t newline = before.rfind('\n');
        const size_t lineStart = newline == std::string_view::npos ? 0 : newline + 1;
        const Origin origin = originAt(file, range);
        Text name;
        name.text = fileId(file); // in no source: no pieces
        std::vector<Slot> slots{
            {intern("column"), ready(integer(int64_t(before.size() - lineStart + 1), origin)), {}},
            {intern("file"), ready(string(std::move(name), origin)), {}},
            {intern("line"),
             ready(integer(int64_t(1 + std::count(before.begin(), before.end(), '\n')), origin)),
             {}},
        };
        return set(std::move(slots), std::nullopt, origin);
    }

    // Whether an unknown imported path is nixpkgs' lib: `nixpkgs + "/lib"`,
    // `"${nixpkgs}/lib/default.nix"` or `<nixpkgs/lib>`.
    static bool importsLib(const Value& target)
    {
        const ValueData& d = data(target);
        if (d.hasPath && d.text.starts_with("<") && d.text.ends_with("/lib>"))
            return true;
        if (d.partsKind != PartsKind::String || d.parts.size() < 2 ||
            d.parts[d.parts.size() - 2].isKnown() || d.parts.back().kind() != Kind::String)
            return false;
        const std::string& text = data(d.parts.back()).text;
        return text == "/lib" || text == "/lib/" || text == "/lib/default.nix";
    }

    // The module a path names, through the loader: its root expression, evaluated once.
    Value import(const Value& target, std::string_view path)
    {
        if (target.isUnknown()) {
            // What `import (fetchTarball …)` gives comes from outside, whatever it depends on.
            // `import (nixpkgs + "/lib")` is nixpkgs' lib, named so that its functions are
            // recognised (see nativeFor).
            ValueData& d =
                newDependent(target, "imports", importsLib(target) ? "lib" : callPath(path));
            if (d.cause == Cause::Dependent)
                d.cause = Cause::External;
            return wrap(d);
        }
        const ValueData& d = data(target);
        if (d.kind != Kind::Path)
            return error("import of " + std::string(kindName(d.kind)));
        if (!loader)
            return unknown(Cause::Unavailable, "no loader for " + d.text);
        const std::string id = loader->resolve(fileId(d.file), d.text);
        if (id.empty())
            return unknown(Cause::Unavailable, "cannot load " + d.text);
        auto known = fileIndex.find(id);
        uint32_t index = known == fileIndex.end() ? UINT32_MAX : known->second;
        if (known == fileIndex.end()) {
            const SyntaxTree* tree = loader->load(id);
            if (tree && tree->root()) {
                index = addFile(id, tree);
            } else {
                fileIndex.emplace(id, UINT32_MAX);
            }
        }
        if (index == UINT32_MAX)
            return unknown(Cause::Unavailable, "cannot read " + id);
        Thunk* root = files[index].root;
        if (root->state == Thunk::State::Forcing)
            return unknown(Cause::Cycle, "import cycle through " + id);
        return force(root);
    }

    // ---- evaluate() of any node ---------------------------------------------------------

    Value evaluateApplied(const std::string& id, std::span<const Value> arguments, const Node& node)
    {
        auto known = fileIndex.find(id);
        uint32_t index = known == fileIndex.end() ? UINT32_MAX : known->second;
        if (known == fileIndex.end() && loader) {
            const SyntaxTree* tree = loader->load(id);
            index = tree && tree->root() ? addFile(id, tree) : UINT32_MAX;
            if (index == UINT32_MAX)
                fileIndex.emplace(id, UINT32_MAX);
        }
        if (index == UINT32_MAX)
            return unknown(Cause::Unavailable, "cannot read " + id);
        const Node* root = files[index].tree->root();
        if (root->kind != NodeKind::Lambda)
            return unknown(Cause::Unsupported, id + " is not a function");
        // One application per module for the evaluator's lifetime: memoised environments
        // and thunks stay valid for it.
        auto [it, inserted] = appliedRoots.try_emplace(index);
        if (inserted) {
            for (const Value& argument : arguments)
                it->second.push_back(ready(argument));
        } else if (!std::ranges::equal(it->second, arguments, [](Thunk* had, const Value& now) {
                       return had->value.m_data == now.m_data;
                   })) {
            return unknown(Cause::Unsupported, id + " is already applied to other arguments");
        }
        return evaluateIn(index, node);
    }

    // The nodes from the file's root down to `node`, found through the ranges that enclose
    // it: no index to build, as a caller asks about a few nodes of a file. Empty when `node`
    // is not in the tree.
    std::vector<const Node*> ancestorsOf(uint32_t file, const Node& node) const
    {
        std::vector<const Node*> path;
        if (const Node* root = files[file].tree->root()) {
            path.reserve(root->depth);
            descend(*root, node, path);
        }
        return path;
    }

    // Children are in source order and do not overlap, so only those starting where the
    // last one starting at or before the target starts can hold it.
    static bool descend(const Node& from, const Node& target, std::vector<const Node*>& path)
    {
        path.push_back(&from);
        if (&from == &target)
            return true;
        const auto children = from.children;
        auto it = std::upper_bound(
            children.begin(), children.end(), target.range.begin,
            [](uint32_t at, const Node* child) { return child && at < child->range.begin; });
        while (it != children.begin()) {
            const Node* child = *--it;
            if (!child)
                continue;
            if (target.range.end <= child->range.end && descend(*child, target, path))
                return true;
            if (it != children.begin() && *(it - 1) &&
                (*(it - 1))->range.begin != child->range.begin)
                break;
        }
        path.pop_back();
        return false;
    }

    // The environment the last of `ancestors` is evaluated in, from the scopes enclosing it.
    const Env* staticEnv(uint32_t file, std::span<const Node* const> ancestors)
    {
        const Env* env = &files[file].base;
        // The root lambda and the lambdas its body starts with take the applied arguments.
        const auto applied = appliedRoots.find(file);
        size_t curried = 0;
        for (size_t i = 0; i + 1 < ancestors.size(); ++i) {
            const Node& scope = *ancestors[i];
            const Node* child = ancestors[i + 1];
            switch (scope.kind) {
            case NodeKind::Let:
                env = letEnv(scope, env);
                break;
            case NodeKind::LegacyLet:
                env = recEnv(scope, env);
                break;
            case NodeKind::AttrSet:
                if (scope.isRec())
                    env = recEnv(scope, env);
                break;
            case NodeKind::Lambda: {
                Thunk* argument = nullptr;
                if (applied != appliedRoots.end() && curried == i && i < applied->second.size()) {
                    argument = applied->second[i];
                    if (child == scope.lambdaBody())
                        ++curried;
                }
                env = staticLambdaEnv(scope, env, argument);
                break;
            }
            case NodeKind::With:
                if (child == scope.withBody())
                    env = withEnv(scope, env);
                break;
            default:
                break;
            }
        }
        return env;
    }

    Value evaluateIn(uint32_t file, const Node& node)
    {
        const std::vector<const Node*> ancestors = ancestorsOf(file, node);
        if (ancestors.empty())
            return unknown(Cause::Unsupported, "not a node of the evaluated tree");
        const Node* parent = ancestors.size() > 1 ? ancestors[ancestors.size() - 2] : nullptr;
        switch (node.kind) {
        case NodeKind::Binding:
            if (const Node* value = node.bindingValue())
                return evaluateIn(file, *value);
            return error("binding without value");
        case NodeKind::AttrPath:
        case NodeKind::Formals:
        case NodeKind::Inherit:
            return unknown(Cause::Unsupported, "not an expression");
        case NodeKind::Formal: {
            const Env* env = staticEnv(file, ancestors);
            if (const Slot* slot = findSlot(env->slots, node.text))
                return force(slot->thunk);
            return external(node.text);
        }
        default:
            break;
        }
        if (parent && parent->kind == NodeKind::Inherit && &node != parent->inheritSource())
            return inherited(file, ancestors);
        if (node.kind == NodeKind::StringText)
            return literalRun(node, parent && parent->kind == NodeKind::IndentedString, file);
        if (node.kind == NodeKind::AttrName) {
            Text text;
            text.text = std::string(node.text);
            text.addPiece({0, node.text.size(), fileId(file), node.range.begin});
            return string(std::move(text), originAt(file, node.range));
        }
        return force(thunkFor(&node, staticEnv(file, ancestors)));
    }

    // The value an inherited name (the last of `ancestors`) gives the set or `let` it is in.
    Value inherited(uint32_t file, std::span<const Node* const> ancestors)
    {
        const Node& nameNode = *ancestors.back();
        const Node* owner = ancestors.size() > 2 ? ancestors[ancestors.size() - 3] : nullptr;
        auto name = literalString(nameNode);
        if (nameNode.kind == NodeKind::AttrName)
            name = std::string(nameNode.text);
        else if (nameNode.kind == NodeKind::Interpolation && nameNode.interpolated())
            name = literalString(*nameNode.interpolated());
        if (!owner || !name)
            return unknown(Cause::Unsupported, "not an inherited name");
        const Env* outer = staticEnv(file, ancestors.first(ancestors.size() - 2));
        if (owner->kind == NodeKind::Let || owner->kind == NodeKind::LegacyLet ||
            (owner->kind == NodeKind::AttrSet && owner->isRec())) {
            const Env* env =
                owner->kind == NodeKind::Let ? letEnv(*owner, outer) : recEnv(*owner, outer);
            if (const Slot* slot = findSlot(env->slots, *name))
                return force(slot->thunk);
            return unknown(Cause::Unsupported, "not an inherited name");
        }
        const Value set = force(thunkFor(owner, outer));
        if (set.kind() == Kind::AttrSet)
            if (const Slot* slot = findSlot(data(set).attributes, *name))
                return force(slot->thunk);
        return set.isUnknown() ? set : unknown(Cause::Unsupported, "not an inherited name");
    }
};

Evaluator::Evaluator(const SyntaxTree& tree, std::string fileId, ModuleLoader* loader)
    : Evaluator(tree, std::move(fileId), loader, Limits{})
{}

Evaluator::Evaluator(const SyntaxTree& tree, std::string fileId, ModuleLoader* loader,
                     Limits limits)
    : d(std::make_unique<Impl>(*this, tree, std::move(fileId), loader, limits))
{}

Evaluator::~Evaluator() = default;

Value Evaluator::root()
{
    Impl::Entry entry(*d);
    return d->force(d->files.front().root);
}

Value Evaluator::evaluate(const Node& node)
{
    Impl::Entry entry(*d);
    return d->evaluateIn(0, node);
}

Value Evaluator::evaluateApplied(std::string_view moduleId, const Value& argument, const Node& node)
{
    return evaluateApplied(moduleId, std::span<const Value>(&argument, 1), node);
}

Value Evaluator::evaluateApplied(std::string_view moduleId, std::span<const Value> arguments,
                                 const Node& node)
{
    Impl::Entry entry(*d);
    return d->evaluateApplied(std::string(moduleId), arguments, node);
}

Value Evaluator::overridden(const Value& arguments, const Value& overrides)
{
    Impl::Entry entry(*d);
    const Origin origin = overrides.origin();
    Value right = overrides;
    if (overrides.kind() == Value::Kind::Function)
        right = d->apply(overrides, d->ready(arguments), d->fileOf(origin), origin.range);
    return d->update(arguments, right, origin);
}

const std::string& Evaluator::fileId() const
{
    return d->files.front().id;
}

const Evaluator::Limits& Evaluator::limits() const
{
    return d->limits;
}

Value Evaluator::attributeOf(const Value& set, std::string_view name, bool& present)
{
    Impl::Entry entry(*d);
    Impl::Selected selected = d->selectAttr(set, name);
    present = selected.status != Impl::Selected::Missing;
    return selected.value;
}

Value Evaluator::elementOf(const Value& list, size_t index)
{
    Impl::Entry entry(*d);
    return d->elementValue(list, index);
}

std::optional<Origin> Evaluator::elementExpressionOf(const Value& list, size_t index) const
{
    const detail::Thunk* thunk = Impl::data(list).elements[index];
    if (thunk->mode != detail::Thunk::Mode::Expr || !thunk->node || !thunk->env)
        return std::nullopt;
    return d->originAt(thunk->env->file, thunk->node->range);
}

std::string_view Evaluator::fileIdOf(uint32_t file) const
{
    return d->fileId(file);
}

} // namespace rg::nix
