#pragma once

// Merges a regenerated recipe into the recipe as the author wrote it, the way copier's update
// carries a project's own changes onto a new template: ours is the recipe as it is, theirs is
// the group's canonical recipe rewritten for the cell, and the base they share is ours without
// what its findings name. Line runs are taken from whichever side changed them:
//  - lines only theirs has (the pattern's overlays, the torch upgrade) come in;
//  - lines only ours has (the author's exports, cmake flags, patches, workarounds) stay;
//  - where the two differ, theirs wins only over lines a finding names (the wrong pin, the
//    deprecated attribute), line by line: an author's line beside them that nothing replaces
//    stays; prose on both sides (comments) stays the author's;
//  - any other line that both sides write differently is a conflict, never resolved
//    silently: the merge then has no text and names each conflict.

#include "nix/node.h"

#include <string>
#include <vector>

namespace rg {

struct MergeConflict
{
    int line = 0;       // 1-based line of ours where the run starts
    std::string ours;   // the run's lines in the recipe
    std::string theirs; // what the canonical pattern writes there
};

struct MergedRecipe
{
    std::string text; // "" when there are conflicts
    std::vector<MergeConflict> conflicts;

    // "line 40: ours `export USE_CUDNN=0` / canonical `export USE_CUDNN=1`; …"
    std::string describeConflicts(size_t atMost = 3) const;
};

class RecipeMerge
{
public:
    // `named`: byte ranges of ours that its findings name (empty ranges name nothing).
    static MergedRecipe merge(const std::string& ours, const std::string& theirs,
                              const std::vector<nix::SourceRange>& named);
};

} // namespace rg
