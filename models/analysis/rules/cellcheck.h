#pragma once

// A recipe or an empty cell as the cell assignment places it: what the rules about cells read
// (the placement it decided, and what it decided it from), and the findings they add to.

#include "analysis/analysis.h"
#include "matrix/matrixspec.h"

#include <cstddef>
#include <string>
#include <vector>

namespace rg {

struct CellCheck
{
    enum class Placement {
        Unnamed,   // a recipe whose file name is no variant
        Alias,     // publishes the build of its cell's recipe under another package name
        Duplicate, // a second recipe of a cell another one already builds
        Extra,     // a recipe of a cell the spec does not ask for
        Missing,   // an expected cell no recipe builds
        Gap,       // without a spec, a cell the recipes around it suggest
    };

    Placement placement;
    const MatrixSpec& spec;
    const std::string& recipeDir;
    const Cell* entry = nullptr;         // the cell, its status decided; null when Unnamed
    const RecipeFacts* recipe = nullptr; // null for an empty cell
    const RecipeFacts* other = nullptr;  // Alias, Duplicate: the recipe of the cell
    bool sharedBase = false;             // Unnamed: a file other recipes wrap
    int suggestedBy = 0;                 // Gap: the peer archs that have the cell's ISA,
    size_t peers = 0;                    // of all the peers
    std::vector<Finding>* findings = nullptr;
};

} // namespace rg
