#pragma once

// The evaluator's state and the helpers its files share: private to rg_nix, included only by
// the files that define Evaluator::Impl's members (evaluator*.cpp and builtins*.cpp), so
// that the public header stays free of them. Each member is documented here; the
// definitions are grouped by job:
//
//   evaluator.cpp            the public API and expressions: literals, strings, paths, `if`, …
//   evaluatorvalues.cpp      making values: unknowns and their reasons, strings, lists, sets
//   evaluatorscopes.cpp      files, thunks, environments and looking names up
//   evaluatorattrs.cpp       building attribute sets, selecting from them, `//`
//   evaluatoroperators.cpp   binary operators and comparison
//   evaluatornodes.cpp       evaluate() of any node: the scopes that enclose it
//   evaluatornatives.cpp     calling functions, and the table of library functions we run
//   builtins*.cpp            those library functions, by what they work on

#include "nix/evaluator.h"
#include "nix/jsonreader.h"
#include "nix/nixregex.h"
#include "nix/syntaxtree.h"
#include "nix/valuedata.h"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace rg::nix {

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

// Most parts an unknown string or list keeps flattened: beyond that nesting is kept as it
// is, so strings that interpolate each other twice per level stay linear in size.
inline constexpr size_t kMaxParts = 64;
inline constexpr int kMaxCompareDepth = 32;

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
inline constexpr size_t kNativeCount = static_cast<size_t>(Native::RecursiveMerge) + 1;

inline bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The symbolic path of a call's result: `path(...)`.
std::string callPath(std::string_view path);
// Lexically normalised: "./a/../b" → "./b", "./." → ".", "/x/./y" → "/x/y".
std::string normalisePath(std::string_view text);
const char* kindName(Value::Kind kind);

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

} // namespace detail

using ValueKind = Value::Kind;
using Cause = Value::Cause;
using detail::Arena;
using detail::callPath;
using detail::ChainLink;
using detail::endsWith;
using detail::Env;
using detail::Key;
using detail::KeyHash;
using detail::kindName;
using detail::kMaxCompareDepth;
using detail::kMaxParts;
using detail::kNativeCount;
using detail::Native;
using detail::normalisePath;
using detail::PartsKind;
using detail::Slot;
using detail::Text;
using detail::Thunk;
using detail::ValueData;

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

    // Known text so far, and the parts of an unknown string or list once something is unknown.
    struct Concat
    {
        Concat(Impl& impl, PartsKind kind, Origin origin) : impl(impl), kind(kind), origin(origin)
        {}

        void addKnownText(const ValueData& d) { known.append(d.text, d.pieces); }
        void add(const Value& part);
        void flush();
        bool tooLarge() const { return known.text.size() > impl.limits.stringBytes; }
        Value finish();

        Impl& impl;
        PartsKind kind;
        Origin origin;
        Text known;
        std::vector<Value> parts;
        std::optional<Value> first;
        size_t unknowns = 0;
    };

    // A library function called with all its arguments; `path` is the name it was called by.
    struct NativeCall
    {
        Native native;
        const std::vector<Thunk*>& args;
        Origin origin;
        std::string_view path;
    };
    using NativeRun = Value (Impl::*)(const NativeCall&);
    struct NativeInfo
    {
        std::string_view name;
        size_t arity;
        bool inLib;
        bool inBuiltins;
        NativeRun run;
    };
    // By Native: what apply() calls once a function has its arity's arguments.
    static const NativeInfo natives[];

    Impl(Evaluator& self, const SyntaxTree& tree, std::string fileId, ModuleLoader* loader,
         Limits limits);

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
    std::unordered_map<std::string, NixRegex> regexes;
    std::optional<Value> exhaustedValue;
    uint64_t steps = 0;
    uint32_t depth = 0;
    int entries = 0;
    bool exhausted = false;

    // ---- evaluator.cpp: expressions -----------------------------------------------------

    Value eval(const Node* node, const Env* env);
    Value evalNumber(const Node& node, Origin origin);
    Value evalIf(const Node& node, const Env* env);
    Value evalList(const Node& node, const Env* env, Origin origin);
    Value evalNot(const Node& node, const Env* env);
    Value evalNegate(const Node& node, const Env* env, Origin origin);
    // What `${v}` contributes to a string; an Error value when Nix would refuse.
    Value interpolated(const Value& value);
    // One literal run of a string on its own.
    Value literalRun(const Node& node, bool indented, uint32_t file);
    Value evalString(const Node& node, const Env* env);
    Value evalPath(const Node& node, const Env* env);
    // `__curPos` where it is written: Nix gives `file` as an absolute path, which we have
    // not; the file id is relative to the repository, so only its base name means the same.
    Value curPos(uint32_t file, SourceRange range);

    // ---- evaluatorvalues.cpp: making values ---------------------------------------------

    static const ValueData& data(const Value& value);
    // Values are built in place in the arena: a ValueData is large, and building it on the
    // stack of every recursive evaluation would multiply the stack a nesting level needs.
    Value wrap(const ValueData* d, const ChainLink* chain = nullptr);
    Value wrap(const ValueData& d);
    ValueData& fresh(ValueKind kind);
    ValueData& copyOf(const ValueData& d);
    Value rechain(const Value& value, const ChainLink* chain);

    std::string_view intern(std::string_view name);
    std::string_view fileId(uint32_t file) const;
    Origin originAt(uint32_t file, SourceRange range) const;
    uint32_t fileOf(const Origin& origin) const;

    // `root`: what the unknown comes down to (a path, or the first reason), so that reasons
    // stay short however deep the dependence goes.
    ValueData& newUnknown(Cause cause, std::string reason, std::string path = {},
                          std::string root = {});
    Value unknown(Cause cause, std::string reason, std::string path = {});
    // Something from outside, unless it is a library function we run ourselves (a formal
    // `callPackage`, say).
    Value external(std::string_view path);
    Value exhaustion();
    Value tooLarge(const char* what);
    Value error(std::string what);

    static std::string rootOf(const Value& on);
    // What an unknown `on` makes of an expression depending on it: Limit and Cycle stay what
    // they are, so a caller can tell "we gave up" from "this comes from outside".
    ValueData& newDependent(const Value& on, std::string what, std::string path = {});
    Value dependent(const Value& on, std::string what);
    // The unknown result of calling a function that has the symbolic name `path`.
    Value unknownCall(std::string_view path, const Value& on, std::optional<Value> fallback = {});

    Value boolean(bool value, uint32_t file, SourceRange range);
    Value integer(int64_t value, Origin origin);
    Value floating(double value, Origin origin);
    Value string(Text text, Origin origin);
    Value list(std::vector<Thunk*> elements, Origin origin);
    Value set(std::vector<Slot> attributes, std::optional<Value> rest, Origin origin);
    Value nativeFunction(int native, std::string_view path);
    Value withFallback(const Value& value, const Value& fallback);
    Value nullValue(Origin origin);

    const ChainLink* extend(const ChainLink* chain, const BindingStep& step);
    // `inner`'s bindings, then `outer`'s around them.
    const ChainLink* join(const ChainLink* inner, const ChainLink* outer);

    // Work that loops rather than recurses (comparing, joining, replacing) is charged too, so
    // that large lists and strings cannot multiply into long loops.
    bool spend(uint64_t amount = 1);

    Value elementValue(const Value& list, size_t index);
    std::vector<Value> forceElements(const Value& list);
    // A substring of a known string, keeping where it came from.
    Value substring(const Value& text, size_t from, size_t length);

    // An attribute's name as a string, its text mapping to the name where it is written as it
    // is (`a = …;`, not `"a" = …;` or `${…} = …;`).
    Value nameString(const Slot& slot, Origin fallback);
    // The binding a computed attribute named by the string `name` flows through: the name's
    // bytes, when they are all written in one place.
    BindingStep nameStep(const Value& name);
    // Attributes in the order they were made; of a name made twice the first one stays, as
    // listToAttrs keeps it.
    Value entriesToSet(std::vector<Slot> slots, std::optional<Value> rest, Origin origin);

    // About the bytes a value holds itself (not its members').
    static size_t footprint(const Value& value);
    // What Nix fails on when it forces the value (an error, infinite recursion), and what we
    // gave up on as well: where a strict loop stops.
    static bool fails(const Value& value);
    static bool stops(const Value& value);

    // ---- evaluatorscopes.cpp: files, thunks, environments, names -------------------------

    uint32_t addFile(std::string id, const SyntaxTree* tree);

    Thunk& newThunk(Thunk::Mode mode);
    Thunk* ready(Value value);
    // One thunk per expression and environment, so that however a value is reached (a
    // binding, a caller's evaluate()), it is evaluated once.
    Thunk* thunkFor(const Node* node, const Env* env);
    Thunk* attrThunk(Thunk* base, std::string_view name, Thunk* otherwise, bool missingIsFree);
    Thunk* inheritThunk(const Node* nameNode, std::string_view name, const Env* env);
    Thunk* applyThunk(const Value& function, Thunk* argument, uint32_t file, SourceRange site);
    // `function first second`, when forced: how attributes that recursiveUpdate and
    // mapAttrs compute stay lazy.
    Thunk* callThunk(const Value& function, Thunk* first, Thunk* second, uint32_t file,
                     SourceRange site);

    Value force(Thunk* thunk);
    Value forceAttr(const Thunk& thunk);
    // Not inlined into force(), whose frame is on every recursion path.
    [[gnu::noinline]] Value callTwo(const Thunk& thunk);

    Env& newEnv(const Env* parent, uint32_t file);
    static const Slot* findSlot(const std::vector<Slot>& slots, std::string_view name);
    // The range of a name that `text` views in the file's source (formals, lambda arguments).
    SourceRange rangeOf(uint32_t file, std::string_view text) const;

    // The recursive scope of a `let` or a `rec { }`: its bindings see each other.
    const Env* letEnv(const Node& owner, const Env* outer);
    const Env* recEnv(const Node& node, const Env* outer);
    const Env* withEnv(const Node& with, const Env* outer);
    // Binds a lambda's argument: `arg` null means the lambda is not applied (evaluate() of a
    // node inside it), so formals take their defaults and the rest are named unknowns.
    void bindLambda(const Node& lambda, Env& env, Thunk* arg);
    // The scope inside a lambda seen from outside: applied to `argument` (a module's root
    // for evaluateApplied), or not applied at all when it is null.
    const Env* staticLambdaEnv(const Node& lambda, const Env* outer, Thunk* argument = nullptr);

    Value refer(const Slot& slot, const Env& env);
    Value forceSlot(const Slot& slot, const Value& container);
    // Names a file cannot bind but Nix provides everywhere.
    std::optional<Value> baseValue(std::string_view name, const Node* at, uint32_t file);
    Value lookup(std::string_view name, const Env* env, const Node* at);

    // ---- evaluatorattrs.cpp: attribute sets ---------------------------------------------

    // The name a path segment or inherited name spells, evaluating `${…}` in `env`.
    std::optional<std::string> attrName(const Node* segment, const Env* env);
    // Binding and Inherit children into `builder`: values see `valueEnv`, plain inherits look
    // their names up in `inheritEnv`.
    void collect(Node::Children children, const Env* valueEnv, const Env* inheritEnv,
                 Builder& builder);
    std::vector<Slot> finish(Builder& builder, uint32_t file, uint32_t level = 0);
    Value plainSet(const Node& node, const Env* env);
    Value recSet(const Node& node, const Env* outer);

    Value selectUnknown(const Value& base, std::string_view name);
    Selected selectAttr(const Value& value, std::string_view name);
    Value evalSelect(const Node& node, const Env* env);
    Value evalHasAttr(const Node& node, const Env* env);
    Value update(const Value& a, const Value& b, Origin origin);

    // ---- evaluatoroperators.cpp: operators ----------------------------------------------

    Value evalBinary(const Node& node, const Env* env);
    std::optional<bool> equal(const Value& a, const Value& b, int level);
    Value compare(BinaryOp op, const Value& a, const Value& b, uint32_t file, SourceRange range);
    Value arithmetic(BinaryOp op, const Value& a, const Value& b, Origin origin);
    Value add(const Value& a, const Value& b, Origin origin);
    Value concatLists(const Value& a, const Value& b, Origin origin);

    // ---- evaluatornodes.cpp: evaluate() of any node -------------------------------------

    Value evaluateApplied(const std::string& id, std::span<const Value> arguments,
                          const Node& node);
    // The nodes from the file's root down to `node`, found through the ranges that enclose
    // it: no index to build, as a caller asks about a few nodes of a file. Empty when `node`
    // is not in the tree.
    std::vector<const Node*> ancestorsOf(uint32_t file, const Node& node) const;
    // Children are in source order and do not overlap, so only those starting where the
    // last one starting at or before the target starts can hold it.
    static bool descend(const Node& from, const Node& target, std::vector<const Node*>& path);
    // The environment the last of `ancestors` is evaluated in, from the scopes enclosing it.
    const Env* staticEnv(uint32_t file, std::span<const Node* const> ancestors);
    Value evaluateIn(uint32_t file, const Node& node);
    // The value an inherited name (the last of `ancestors`) gives the set or `let` it is in.
    Value inherited(uint32_t file, std::span<const Node* const> ancestors);

    // ---- evaluatornatives.cpp: calls ----------------------------------------------------

    // The library function a symbolic path names (lib.<f>, lib.strings.<f>, builtins.<f>,
    // …callPackage), as an index into `natives`, or -1.
    static int nativeFor(std::string_view path);
    // Whether `path` names nixpkgs' lib function rather than the builtin of the same name.
    static bool fromLib(std::string_view path);
    Value apply(const Value& function, Thunk* argument, uint32_t file, SourceRange site);
    // Not inlined into apply(), whose frame is on every recursion path.
    [[gnu::noinline]] Value runNative(Native native, const std::vector<Thunk*>& args, Origin origin,
                                      std::string_view path);

    // ---- builtinsstrings.cpp ------------------------------------------------------------

    // An unknown list concatenated from parts, as items to join: the elements of its known
    // parts and each unknown part as one item. nullopt for any other value.
    std::optional<std::vector<Value>> itemsOfParts(const Value& items);
    // Strings joined by `separator`; unknown items make an unknown with parts.
    Value joinStrings(const Value& separator, const std::vector<Value>& items, Origin origin);
    Value toStringOf(const Value& value, Origin origin, int level);
    Value replaceStrings(const Value& from, const Value& to, const Value& text, Origin origin,
                         std::string_view path);
    // nixpkgs' lib.escapeShellArg: a word of only safe characters stays as it is (and keeps
    // its pieces); anything else is single-quoted, each ' written as '\''.
    Value escapeShellArg(const Value& text, Origin origin);
    const NixRegex& compiledRegex(const std::string& pattern);
    // builtins.match: null, or what each group captured (null when it took no part), the
    // captured text keeping the pieces it has in `text`.
    Value match(const Value& regex, const Value& text, Origin origin, std::string_view path);
    // nixpkgs' lib.splitString: the runs between the separator's occurrences, left to right.
    Value splitString(const Value& separator, const Value& text, Origin origin,
                      std::string_view path);

    Value nativeConcatStringsSep(const NativeCall& call);
    Value nativeRemoveAffix(const NativeCall& call);
    Value nativeToString(const NativeCall& call);
    Value nativeMajorMinor(const NativeCall& call);
    Value nativeReplaceStrings(const NativeCall& call);
    // builtins.substring start length s: clipped to the string; a negative length reads to
    // its end.
    Value nativeSubstring(const NativeCall& call);
    Value nativeEscapeShellArg(const NativeCall& call);
    Value nativeMatch(const NativeCall& call);
    Value nativeSplitString(const NativeCall& call);
    Value stringLength(const NativeCall& call);

    // ---- builtinslists.cpp --------------------------------------------------------------

    // The answer of a list function whose list is not a known list: unknown, with the call's
    // path, or an error.
    std::optional<Value> unlessList(const Value& items, std::string_view path);
    // Lists concatenated; unknown ones make an unknown with parts, as `++` does.
    Value concatenated(const std::vector<Value>& lists, Origin origin, std::string_view path);
    // nixpkgs' lib.flatten: the elements of nested lists, in order; an unknown element may
    // be a list, so it is an unknown part.
    [[gnu::noinline]] Value flatten(const Value& items, Origin origin, std::string_view path,
                                    int level);

    // lib.optionals, optional, optionalString and optionalAttrs.
    Value nativeOptional(const NativeCall& call);
    Value nativeMap(const NativeCall& call);
    // builtins.elemAt, head, tail, length and lib.last, which fail where Nix does.
    Value listAccess(const NativeCall& call);
    // builtins.foldl', lib.foldl and lib.foldr: op called along the list one element at a
    // time (foldr from its end), so a long list costs steps rather than nesting. Our values
    // do not throw, so computing what lib.foldl and foldr leave lazy changes the work, not
    // the result; foldl' stops where Nix would fail forcing the accumulator.
    [[gnu::noinline]] Value fold(const NativeCall& call);
    // builtins.concatMap: f's lists, concatenated.
    [[gnu::noinline]] Value concatMap(const NativeCall& call);
    // builtins.filter: an element whose predicate is unknown is a part that may be it or
    // nothing (its fallback, as lib.optional's).
    [[gnu::noinline]] Value filter(const NativeCall& call);
    // builtins.elem: whether an element equals x, from the first one on.
    [[gnu::noinline]] Value elem(const NativeCall& call);
    Value nativeFlatten(const NativeCall& call);

    // ---- builtinsattrs.cpp --------------------------------------------------------------

    // The answer of a function of a set whose set is not a known set.
    std::optional<Value> unlessSet(const Value& attrs, std::string_view path);
    // lhs and rhs (the values of args[0] and args[1]) are sets or unknown. Unknown sides are
    // as in `//`: of an unknown lhs only rhs's attributes are known (and those that are sets
    // are open), an unknown rhs makes all unknown.
    Value mergeSets(const std::vector<Thunk*>& args, const Value& lhs, const Value& rhs,
                    Origin origin, std::string_view path);
    // builtins.listToAttrs: the first entry of a name wins, so names after an unknown entry
    // are not known.
    [[gnu::noinline]] Value listToAttrs(Thunk* argument, Origin origin, std::string_view path);

    // nixpkgs' lib.recursiveUpdate: lhs // rhs, except that an attribute both have is their
    // recursiveUpdate where both values are sets. Lazy as nixpkgs' is: an attribute of one
    // side keeps its thunk, one of both is merged when it is read.
    [[gnu::noinline]] Value recursiveUpdate(const NativeCall& call);
    // An attribute both sides of recursiveUpdate have: rhs, unless both are sets (lhs read
    // first, as nixpkgs' `isAttrs lhs && isAttrs rhs`).
    [[gnu::noinline]] Value recursiveMerge(const NativeCall& call);
    // builtins.mapAttrs: each attribute `f name value`, computed when it is read.
    [[gnu::noinline]] Value mapAttrs(const NativeCall& call);
    // nixpkgs' lib.mapAttrs': listToAttrs (map (name: f name set.${name}) (attrNames set)).
    [[gnu::noinline]] Value mapAttrsPrime(const NativeCall& call);
    // nixpkgs' lib.cartesianProduct: every set taking one element of each list, the last
    // name varying fastest.
    [[gnu::noinline]] Value cartesianProduct(const NativeCall& call);
    // builtins.attrNames and attrValues, by name; unknown when the set is open.
    [[gnu::noinline]] Value attrNamesOrValues(const NativeCall& call);
    // nixpkgs' lib.genAttrs names f: `name = f name;` for each name, f applied when read.
    [[gnu::noinline]] Value genAttrs(const NativeCall& call);
    // builtins.getAttr and hasAttr: `set.${name}` and `set ? ${name}`, except that a value
    // that is no set is an error.
    [[gnu::noinline]] Value getOrHasAttr(const NativeCall& call);
    Value nativeListToAttrs(const NativeCall& call);
    Value nativeNameValuePair(const NativeCall& call);
    // builtins.isString, isAttrs, …: known when the kind is. nixpkgs' lib.isFunction also
    // takes a set with __functor, which we do not call.
    Value typeTest(const NativeCall& call);

    // ---- builtinsfiles.cpp --------------------------------------------------------------

    // builtins.readFile: the file's bytes, mapped one to one to the file.
    Value readFile(const Value& target, std::string_view path);
    // builtins.fromJSON. Where the text maps to a file (it was read from one, or written in a
    // Nix string), values keep where they were written there: origins, the pieces of strings
    // written without escapes, and object keys as the bindings values flow through.
    Value fromJson(const Value& text, Origin origin, std::string_view path);
    // nodes[index] as a value; `text` is the JSON text, `site` the call's origin.
    Value jsonValue(const std::vector<JsonReader::Node>& nodes, size_t index, const Value& text,
                    Origin site);
    Value jsonObject(const std::vector<JsonReader::Node>& nodes, size_t index, const Value& text,
                     Origin site, Origin origin);
    // Whether an unknown imported path is nixpkgs' lib: `nixpkgs + "/lib"`,
    // `"${nixpkgs}/lib/default.nix"` or `<nixpkgs/lib>`.
    static bool importsLib(const Value& target);
    // The module a path names, through the loader: its root expression, evaluated once.
    Value import(const Value& target, std::string_view path);

    Value nativeImport(const NativeCall& call);
    Value nativeCallPackage(const NativeCall& call);
    Value nativeReadFile(const NativeCall& call);
    Value nativeFromJson(const NativeCall& call);
    // nixpkgs' lib.importJSON: builtins.fromJSON (builtins.readFile path).
    Value nativeImportJson(const NativeCall& call);
    // For a path as written, "./a/b.nix" gives "b.nix"; Nix would make it absolute first,
    // which changes nothing unless it ends in "." or "..", whose name only the loader knows.
    Value baseNameOf(const NativeCall& call);
    // Nix's dirOf: of a string, what precedes its last '/' ("." without one); of a path, its
    // parent, a path again.
    Value dirOf(const NativeCall& call);
};

// Called on every step: defined here so that every file can inline them.

inline const ValueData& Evaluator::Impl::data(const Value& value)
{
    static const ValueData none = [] {
        ValueData d;
        d.reason = "no value";
        return d;
    }();
    return value.m_data ? *value.m_data : none;
}

inline Value Evaluator::Impl::wrap(const ValueData* d, const ChainLink* chain)
{
    return Value(&self, d, chain);
}

inline Value Evaluator::Impl::wrap(const ValueData& d)
{
    return wrap(&d);
}

inline ValueData& Evaluator::Impl::fresh(ValueKind kind)
{
    ValueData& d = values.emplace_back();
    d.kind = kind;
    return d;
}

inline ValueData& Evaluator::Impl::copyOf(const ValueData& d)
{
    return values.emplace_back(d);
}

inline Value Evaluator::Impl::rechain(const Value& value, const ChainLink* chain)
{
    return wrap(value.m_data, chain);
}

inline std::string_view Evaluator::Impl::fileId(uint32_t file) const
{
    return files[file].id;
}

inline Origin Evaluator::Impl::originAt(uint32_t file, SourceRange range) const
{
    return {fileId(file), range};
}

inline bool Evaluator::Impl::spend(uint64_t amount)
{
    if (!exhausted && (steps += amount) > limits.steps)
        exhausted = true;
    return !exhausted;
}

inline const Slot* Evaluator::Impl::findSlot(const std::vector<Slot>& slots, std::string_view name)
{
    auto it = std::lower_bound(slots.begin(), slots.end(), name,
                               [](const Slot& slot, std::string_view n) { return slot.name < n; });
    return it != slots.end() && it->name == name ? &*it : nullptr;
}

inline Thunk& Evaluator::Impl::newThunk(Thunk::Mode mode)
{
    Thunk& thunk = thunks.emplace_back();
    thunk.mode = mode;
    thunk.state = mode == Thunk::Mode::Ready ? Thunk::State::Done : Thunk::State::Pending;
    return thunk;
}

inline Thunk* Evaluator::Impl::ready(Value value)
{
    Thunk& thunk = newThunk(Thunk::Mode::Ready);
    thunk.value = std::move(value);
    return &thunk;
}

} // namespace rg::nix
