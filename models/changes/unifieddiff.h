#pragma once

// The unified diff of one file operation, made by libgit2's patch API (git_patch_from_buffers),
// with a/ and b/ paths and /dev/null for created and deleted files. The text is git's patch
// format (diff --git / index lines included), so `git apply` takes it as it is.

#include "changes/fileoperation.h"

#include <string>
#include <vector>

namespace rg {

struct DiffStat
{
    int added = 0;
    int removed = 0;
};

// One run of lines that differ between two texts, without context: lines
// [oldStart, oldStart + oldLines) of the old text become [newStart, newStart + newLines) of
// the new one (0-based; a count of 0 is a pure insertion or deletion before that line).
struct LineHunk
{
    int oldStart = 0;
    int oldLines = 0;
    int newStart = 0;
    int newLines = 0;
};

class UnifiedDiff
{
public:
    static std::string of(const FileOperation& operation, int contextLines = 3);
    static DiffStat statOf(const FileOperation& operation);
    // The differing runs of lines of `before` and `after`, in order (git's diff).
    static std::vector<LineHunk> hunksOf(const std::string& before, const std::string& after);
};

} // namespace rg
