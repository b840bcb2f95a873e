#pragma once

// A bounded, lazy, partial evaluator of Nix for recipes. It evaluates what a file can know on
// its own — `let`, `rec`, `with`, `inherit`, formals and their defaults, `//`, `++`, `+`,
// string interpolation, `if`, lambdas written in the file or in files it imports, and a few
// library functions (lib.optionals, lib.concatStringsSep, builtins.toString, lib.escapeShellArg,
// map, …), and `builtins.fromJSON (builtins.readFile ./pins/nixpkgs.json)` (and lib.importJSON)
// of files the loader reaches, JSON strings keeping their bytes in the file — and
// reports everything else as UNKNOWN with why and, for values from outside (`oldAttrs`,
// `prev`, `lib`, free variables), the symbolic path they denote. See value.h.
//
//     Evaluator ev(tree, "pkgs/torch.nix", &loader); // loader may be null
//     Value flags = ev.evaluate(*someNode);          // any node, in its lexical scope
//     if (auto list = flags.asStringList()) …
//
// Any node of the tree can be evaluated, in the scopes that enclose it. A lambda that is not
// applied binds its formals to their defaults, and names without one (and `x:` or `args @`)
// to unknowns whose path is the name: inside `oldAttrs: { … }` the expression
// `oldAttrs.meta.platforms or [ … ]` is unknown with path "oldAttrs.meta.platforms" and the
// list as its fallback. A Binding evaluates to its value; an inherited name to the value it
// inherits; a Formal to its default (or an unknown named after it).
//
// Library functions are recognised when they come from something unknown whose path ends
// in lib.<f>, lib.strings.<f>, lib.versions.<f>, … or builtins.<f> (so `lib`, `pkgs.lib`,
// `nixpkgs_pinned.lib`, `prev.lib`, a name bound to any of those, and `with lib;` all
// work), and when the callee is `…callPackage`. They run when their arguments are known.
//
// Bounds: every public call (including a Value's accessors that force lazy members) gets
// `Limits::steps` evaluation steps and nesting depth `Limits::depth`; strings, lists and sets
// are capped in size. Exceeding a limit yields an unknown with Cause::Limit, which stays
// memoised for the Evaluator's lifetime. Beyond `Limits::pieces` pieces, the rest of a string
// maps to no source (as computed text does) but stays known. Thunks are memoised, so a shared
// value is evaluated once; infinite recursion and import cycles yield Cause::Cycle.
// Evaluation never throws and never crashes on a tree the parser accepted (or on a null root).
//
// Lifetime: the Evaluator must outlive every Value it returned, and `tree`, `loader` and all
// trees the loader returned must outlive the Evaluator. It is neither copyable nor movable
// (values point at it) and not thread-safe: one thread at a time.

#include "nix/value.h"

#include <memory>
#include <span>
#include <string>

namespace rg::nix {

class ModuleLoader;
class SyntaxTree;

class Evaluator
{
public:
    struct Limits
    {
        uint32_t steps = 200000;         // per public call
        uint32_t depth = 300;            // nested evaluations
        uint32_t stringBytes = 1u << 16; // longest known string
        uint32_t elements = 1u << 14;    // longest known list, largest known set
        uint32_t pieces = 1024;          // most pieces a string maps to source (value.h)
    };

    // `fileId` names the tree in origins and is what `loader` resolves its imports against.
    Evaluator(const SyntaxTree& tree, std::string fileId, ModuleLoader* loader = nullptr);
    Evaluator(const SyntaxTree& tree, std::string fileId, ModuleLoader* loader, Limits limits);
    ~Evaluator();
    Evaluator(const Evaluator&) = delete;
    Evaluator& operator=(const Evaluator&) = delete;

    // The file's root expression.
    Value root();
    // Any node of the tree, in its lexical scope (see above). A node of another tree yields
    // an unknown.
    Value evaluate(const Node& node);

    // A node of the module `moduleId` (an id the loader resolved for this file's imports),
    // evaluated where the module's root function is applied to `argument`, a value of this
    // evaluator: what a recipe's `import ./lib/mk-torch.nix { capability = "9.0"; }` makes of
    // the builder's expressions. Unknown when the module cannot be loaded, its root is not a
    // function, or `node` is not one of its nodes.
    Value evaluateApplied(std::string_view moduleId, const Value& argument, const Node& node);
    // The same for a curried module function (`{ lib }: spec: …`) applied to its arguments in
    // order: each binds the formal of the next lambda its root's body starts with.
    Value evaluateApplied(std::string_view moduleId, std::span<const Value> arguments,
                          const Node& node);

    // The arguments callPackage's `.override` calls a package function with again:
    // `arguments // overrides`, or `arguments // overrides arguments` when the overrides are a
    // function of the old arguments (`.override (prev: { … })`). Both are values of this
    // evaluator.
    Value overridden(const Value& arguments, const Value& overrides);

    const std::string& fileId() const;
    const Limits& limits() const;

private:
    friend class Value;
    // For Value's lazy accessors.
    Value attributeOf(const Value& set, std::string_view name, bool& present);
    Value elementOf(const Value& list, size_t index);
    std::optional<Origin> elementExpressionOf(const Value& list, size_t index) const;
    std::string_view fileIdOf(uint32_t file) const;

    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace rg::nix
