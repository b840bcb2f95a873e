#pragma once

// What rg::nix::Evaluator makes of an expression: a known value together with where it came
// from, or UNKNOWN together with why. Unknown is never a guess: a recipe's value often lives
// outside the file (nixpkgs' `oldAttrs`, `lib.platforms.linux`), and callers need to say so
// rather than show an expression as if it were a value. Such values carry the symbolic path
// they denote ("oldAttrs.meta.platforms"), so a caller can still recognise them.
//
// Lifetime: a Value is a small handle into the Evaluator that made it. It stays valid while
// that Evaluator lives (which in turn needs every SyntaxTree it read); string_views it hands
// out (names, file ids, reasons, paths) live as long. Lists and attribute sets are lazy:
// their members are evaluated on first access, through the Evaluator and within its limits,
// so even accessors can answer "unknown (evaluation budget exhausted)".

#include "nix/node.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rg::nix {

class Evaluator;
struct StringListItem;

namespace detail {
struct ValueData;
struct ChainLink;
} // namespace detail

// Where a value was read: the literal (or, for a computed value, the expression computing
// it) in a file. `file` is the Evaluator's id for the file; empty when there is no origin.
struct Origin
{
    std::string_view file;
    SourceRange range;
    friend bool operator==(const Origin&, const Origin&) = default;
};

// A binding a value flowed through: `name` bound at `key` (the attribute name, inherited
// name, formal or lambda argument) in `file`.
struct BindingStep
{
    std::string_view name;
    std::string_view file;
    SourceRange key;
    friend bool operator==(const BindingStep&, const BindingStep&) = default;
};

// text[offset, offset + length) of a string is byte for byte the source bytes
// [source, source + length) of `file`, so an edit there changes exactly that text.
struct StringPiece
{
    size_t offset = 0;
    size_t length = 0;
    std::string_view file;
    uint32_t source = 0;
};

class Value
{
public:
    enum class Kind : uint8_t {
        Unknown,
        Null,
        Bool,
        Int,
        Float,
        String,
        Path,
        List,
        AttrSet,
        Function,
    };
    // Why a value is unknown.
    enum class Cause : uint8_t {
        None,        // the value is known
        External,    // it comes from outside the files (argument, free variable, nixpkgs)
        Dependent,   // it is computed from something unknown (a condition, a string part)
        Unsupported, // the evaluator does not model this (a builtin, a store path)
        Error,       // Nix itself would fail here (missing attribute, type error)
        Limit,       // the step budget, depth or size limit was reached
        Cycle,       // infinite recursion or an import cycle
        Unavailable, // an imported file is out of the loader's reach
    };

    Value() = default; // unknown (Cause::Unsupported), tied to no Evaluator

    Kind kind() const;
    bool isUnknown() const { return kind() == Kind::Unknown; }
    bool isKnown() const { return !isUnknown(); }

    // ---- unknown values ----
    Cause cause() const;
    std::string_view reason() const; // human-readable; empty for known values
    // For unknown values from outside ("oldAttrs.meta.platforms", "lib.platforms.linux",
    // "pkgs.callPackage(...)"; a call shows as "f(...)"), and for library functions the
    // evaluator runs natively ("lib.concatStringsSep"). Empty otherwise.
    std::string_view symbolicPath() const;
    // A known alternative the expression may have: the default of `x.a or d` when x is
    // unknown (so whether `a` exists is too), or the list / string / set that
    // lib.optional(s|String|Attrs) yields when its condition is unknown.
    std::optional<Value> fallback() const;
    // An unknown string or list concatenated (interpolation, +, ++, concatStringsSep) from
    // known and unknown parts: those parts in order, known ones with their pieces. Empty
    // otherwise.
    std::vector<Value> parts() const;

    // ---- scalars ----
    std::optional<bool> asBool() const;
    std::optional<int64_t> asInt() const;
    std::optional<double> asFloat() const; // Float only (not Int)
    std::optional<std::string> asString() const;
    // A path as written, lexically normalised ("./lib/x.nix", "."): Nix would make it
    // absolute, which only the loader can.
    std::optional<std::string> asPath() const;
    // For a Path: the id of the file it is relative to (where its first part is written),
    // which the loader resolves it against. Empty otherwise.
    std::string_view pathBase() const;
    // For String and Path: the runs of the text that map byte for byte to source, in order
    // and not overlapping, at most Evaluator::Limits::pieces of them. A computed string
    // (+, interpolation, replaceStrings, substring, concatStringsSep, …) keeps the pieces of
    // the runs it copies verbatim, wherever they are written: they may lie in other files
    // than origin(). Text it makes up (the quotes of escapeShellArg, toString 1.5's
    // "1.500000") maps to nothing. Several pieces may map to the same bytes (a replacement
    // or separator inserted twice), so an edit there changes all of them.
    std::span<const StringPiece> pieces() const;
    // Where text[offset, offset + length) is in source, when it lies within one piece.
    std::optional<Origin> sourceOf(size_t offset, size_t length) const;

    // ---- lists ----
    size_t size() const; // elements of a List, known attributes of an AttrSet, else 0
    std::optional<Value> element(size_t index) const;
    std::optional<std::vector<Value>> elements() const;
    // Where element `index` of a List is written before evaluation: the expression in the list
    // literal (or lib.optional's argument) it was taken from, so a caller can point at an
    // element even when its value is unknown. nullopt for a computed element (`map f xs`).
    std::optional<Origin> elementExpression(size_t index) const;
    // For a List: one item per element, with the text of string elements.
    std::optional<std::vector<StringListItem>> asStringList() const;

    // ---- attribute sets ----
    // nullopt when the value is known not to have the attribute (a set without it, or a
    // known value that is no set); unknown when that cannot be known (the value or the rest
    // of an open set is unknown, and then the path grows: "oldAttrs.meta" → ".platforms").
    std::optional<Value> attribute(std::string_view name) const;
    std::vector<std::string_view> attributeNames() const; // the known ones, sorted
    // `unknown // { … }`: only the right side's attributes are known.
    bool isOpen() const;

    // ---- provenance ----
    Origin origin() const;
    // The bindings this value flowed through, nearest to its literal first: for
    // `a = "12.0"; b = [ a ];` element 0 of b reads [a, b].
    std::vector<BindingStep> bindingChain() const;

    // A short Nix-like rendering for messages and tests, forcing at most `depth` levels:
    // "12.0" → "\"12.0\"", unknowns as «oldAttrs.meta» or «unknown: reason».
    std::string describe(int depth = 3) const;

private:
    friend class Evaluator;
    Value(Evaluator* owner, const detail::ValueData* data, const detail::ChainLink* chain)
        : m_owner(owner), m_data(data), m_chain(chain)
    {}

    Evaluator* m_owner = nullptr;
    const detail::ValueData* m_data = nullptr;
    const detail::ChainLink* m_chain = nullptr;
};

struct StringListItem
{
    std::optional<std::string> text; // nullopt when the element is unknown or no string
    Value value;
};

} // namespace rg::nix
