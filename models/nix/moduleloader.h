#pragma once

// How the Evaluator reaches files other than the one it evaluates, for `import ./x.nix` and
// `callPackage ./x.nix { … }`. The Evaluator never touches the file system itself, so a
// caller decides what is in reach (the recipe repository, a test's map of sources, nothing).

#include <string>
#include <string_view>

namespace rg::nix {

class SyntaxTree;

class ModuleLoader
{
public:
    virtual ~ModuleLoader() = default;

    // A stable id for `path` as written in the file `importingFile` (the Evaluator's own file
    // id, or an id this loader returned before): typically the normalised path. Equal ids
    // must mean the same file, since import cycles are found by id. Empty when out of reach.
    // `path` is the Nix path as written, lexically normalised: "./lib/x.nix", "../a.nix",
    // "/abs/x.nix" or ".".
    virtual std::string resolve(std::string_view importingFile, std::string_view path) = 0;

    // The parsed file for an id `resolve` returned; null when it cannot be read. The tree
    // must outlive every Evaluator that loaded it. A tree with a parse error counts as
    // unreadable.
    virtual const SyntaxTree* load(std::string_view fileId) = 0;
};

} // namespace rg::nix
