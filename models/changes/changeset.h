#pragma once

// File creations, modifications and deletions planned together, reviewed as diffs and
// applied all-or-nothing. The one model of every file operation RecipeGrid performs.

#include "changes/fileoperation.h"

#include <string>
#include <vector>

namespace rg {

// A cell the plan could not serve, and why ("the canonical recipe … is itself broken").
struct SkippedCell
{
    std::string subject;
    std::string why;
};

struct ChangeSet
{
    std::string title; // "Complete pytorch (44 cells)", "Create pytorch-python313-cpu-avx2"
    std::vector<FileOperation> operations; // sorted by path
    std::vector<SkippedCell> skipped;

    int count(FileOperationKind kind, bool selectedOnly = true) const;
    bool hasSelected() const;
    // The operations that undo the selected ones, each planned against its after text.
    ChangeSet inverse() const;
    // First line plus one line per selected operation grouped as created, fixed, deleted.
    std::string commitMessage() const;
};

} // namespace rg
