#pragma once

// Reads a recipe's facts from its syntax tree. Values are resolved through the tree the way
// Nix would find them — `let` bindings, `rec` sets, `inherit`, formals' defaults, string
// interpolation, `//` merges, nested or dotted attribute paths — never by matching text, so
// any layout a person can write is understood the same way.

#include "facts/recipefacts.h"
#include "nix/moduleloader.h"

namespace rg {

class FactExtractor
{
public:
    // Fills every tree-derived member of `facts` (pattern, pins, overlays, values…). The
    // file-level members (path, variant, problem) are left as they are. With `modules`,
    // values selected from the repository's own modules (`(import ./lib/isa.nix).avx2`)
    // are read from them; `facts.path` is the importing file's id for that loader.
    static void extract(const nix::SyntaxTree& tree, RecipeFacts& facts,
                        nix::ModuleLoader* modules = nullptr);
};

} // namespace rg
