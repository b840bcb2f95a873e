#pragma once

// Reads a recipe's facts from its syntax tree. Values are resolved through the tree the way
// Nix would find them — `let` bindings, `rec` sets, `inherit`, formals' defaults, string
// interpolation, `//` merges, nested or dotted attribute paths — never by matching text, so
// any layout a person can write is understood the same way.

#include "recipes/recipefacts.h"

namespace rg {

class FactExtractor
{
public:
    // Fills every tree-derived member of `facts` (pattern, pins, overlays, values…). The
    // file-level members (path, variant, problem) are left as they are.
    static void extract(const nix::SyntaxTree& tree, RecipeFacts& facts);
};

} // namespace rg
