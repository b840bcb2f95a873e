#pragma once

// How the Evaluator reaches files other than the one it evaluates, for `import ./x.nix`,
// `callPackage ./x.nix { … }` and `builtins.readFile ./pins/nixpkgs.json`. The Evaluator never
// touches the file system itself, so a caller decides what is in reach (the recipe
// repository, a test's map of sources, nothing).

#include <optional>
#include <string>
#include <string_view>

namespace rg::nix {

class SyntaxTree;

class ModuleLoader
{
public:
    virtual ~ModuleLoader() = default;

    // A stable id for the module `path` as written in the file `importingFile` (the
    // Evaluator's own file id, or an id this loader returned before): typically the normalised
    // path, a directory standing for its default.nix as in Nix. Equal ids must mean the same
    // file, since import cycles are found by id. Empty when out of reach. `path` is the Nix
    // path as written, lexically normalised: "./lib/x.nix", "../a.nix", "/abs/x.nix" or ".".
    virtual std::string resolve(std::string_view importingFile, std::string_view path) = 0;

    // The parsed file for an id `resolve` returned; null when it cannot be read. The tree
    // must outlive every Evaluator that loaded it. A tree with a parse error counts as
    // unreadable.
    virtual const SyntaxTree* load(std::string_view fileId) = 0;

    // Like resolve(), but for the file `path` names itself, whatever it holds: what
    // builtins.readFile reads, where a directory is not its default.nix. An id both
    // functions return names the same file. Loaders that offer no plain files leave it empty.
    virtual std::string resolveFile(std::string_view /*importingFile*/, std::string_view /*path*/)
    {
        return {};
    }

    // The bytes of a file for an id `resolveFile` returned; nullopt when it cannot be read.
    // The Evaluator copies what it needs at once, so the view need only stay valid until the
    // loader is called again.
    virtual std::optional<std::string_view> text(std::string_view /*fileId*/)
    {
        return std::nullopt;
    }
};

} // namespace rg::nix
