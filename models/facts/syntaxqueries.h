#pragma once

// Questions the fact readers ask of syntax nodes, names and values, answered the same way by
// every reader so that, say, a callee is recognised alike wherever a fact is read from it.

#include "nix/node.h"
#include "nix/value.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rg {

// Stands for an interpolation that could not be evaluated inside a shell value, so the item
// it is part of is unknown rather than split out of Nix source text.
inline constexpr char unknownMark = '\x01';

// "python3Packages", "python313Packages"
bool isPythonPackageSet(std::string_view name);

// "cudaPackages", "cudaPackages_13", "cudaPackages_12_9"
bool isCudaPackageSet(std::string_view name);

bool isCudaInputName(std::string_view name);

// The last name of a callee: `lib.optionals c l` → "optionals", `f x` → "f".
std::string_view calleeName(const nix::Node& apply);

// The arguments of a curried call, first to last: `f a b` → [a, b].
std::vector<const nix::Node*> callArguments(const nix::Node& apply);

// `a.b.c` as names: an Identifier subject and static segments; other subjects give "".
std::vector<std::pair<std::string_view, const nix::Node*>> selectNames(const nix::Node& select);

// `./x.nix`, not `./${name}.nix`: a path whose text is the file it names.
inline bool isLiteralPath(const nix::Node* node)
{
    return node && node->kind == nix::NodeKind::Path &&
           node->text.find("${") == std::string_view::npos;
}

// Files beside the recipe are recipes of their own; a path into a subdirectory is a library.
inline bool isSibling(std::string_view path)
{
    return path.starts_with("./") && path.find('/', 2) == std::string_view::npos;
}

inline bool within(nix::SourceRange outer, nix::SourceRange range)
{
    return outer.contains(range.begin) && range.end <= outer.end;
}
inline bool within(const nix::Node* outer, nix::SourceRange range)
{
    return within(outer->range, range);
}

std::string_view lastSegment(const std::string& path);

bool isOff(std::string_view value);
bool isOn(std::string_view value);

// The `-m…` tokens of a compiler command line: the flags that select a machine.
std::vector<std::string> machineFlags(std::string_view text);

// lib.optional(s) with a condition that is not known: what the list holds when the
// condition holds, the variant's own values.
std::optional<nix::Value> optionalList(const nix::Value& value);

} // namespace rg
