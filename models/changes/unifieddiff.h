#pragma once

// The unified diff of one file operation, made by libgit2's patch API (git_patch_from_buffers),
// with a/ and b/ paths and /dev/null for created and deleted files. The text is git's patch
// format (diff --git / index lines included), so `git apply` takes it as it is.

#include "changes/fileoperation.h"

#include <string>

namespace rg {

struct DiffStat
{
    int added = 0;
    int removed = 0;
};

class UnifiedDiff
{
public:
    static std::string of(const FileOperation& operation, int contextLines = 3);
    static DiffStat statOf(const FileOperation& operation);
};

} // namespace rg
