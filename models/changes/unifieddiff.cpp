#include "changes/unifieddiff.h"

#include "vcs/gitlibrary.h"

#include <algorithm>
#include <git2.h>
#include <memory>

namespace rg {

namespace {

using Patch = std::unique_ptr<git_patch, decltype(&git_patch_free)>;

Patch patchOf(const FileOperation& operation, int contextLines)
{
    GitLibrary::ensureInitialised();
    git_diff_options options;
    git_diff_options_init(&options, GIT_DIFF_OPTIONS_VERSION);
    options.context_lines = static_cast<uint32_t>(std::max(contextLines, 0));
    // Recipes and READMEs are text even when a byte looks binary to git's heuristic; a review
    // must show the lines, not "Binary files differ".
    options.flags |= GIT_DIFF_FORCE_TEXT;
    // A null side (not an empty one) is what makes libgit2 write "new file" / "deleted file"
    // and /dev/null: an empty created file is still a creation.
    const bool hasBefore = operation.kind != FileOperationKind::Create;
    const bool hasAfter = operation.kind != FileOperationKind::Delete;
    git_patch* patch = nullptr;
    if (git_patch_from_buffers(&patch, hasBefore ? operation.before.data() : nullptr,
                               hasBefore ? operation.before.size() : 0, operation.path.c_str(),
                               hasAfter ? operation.after.data() : nullptr,
                               hasAfter ? operation.after.size() : 0, operation.path.c_str(),
                               &options) != 0)
        patch = nullptr;
    return Patch(patch, &git_patch_free);
}

} // namespace

std::string UnifiedDiff::of(const FileOperation& operation, int contextLines)
{
    const Patch patch = patchOf(operation, contextLines);
    if (!patch)
        return {};
    git_buf buffer = GIT_BUF_INIT;
    std::string text;
    if (git_patch_to_buf(&buffer, patch.get()) == 0)
        text.assign(buffer.ptr, buffer.size);
    git_buf_dispose(&buffer);
    return text;
}

DiffStat UnifiedDiff::statOf(const FileOperation& operation)
{
    const Patch patch = patchOf(operation, 0);
    size_t context = 0, added = 0, removed = 0;
    if (!patch || git_patch_line_stats(&context, &added, &removed, patch.get()) != 0)
        return {};
    return DiffStat{static_cast<int>(added), static_cast<int>(removed)};
}

std::vector<LineHunk> UnifiedDiff::hunksOf(const std::string& before, const std::string& after)
{
    FileOperation operation;
    operation.before = before;
    operation.after = after;
    const Patch patch = patchOf(operation, 0);
    std::vector<LineHunk> hunks;
    if (!patch)
        return hunks;
    for (size_t i = 0; i < git_patch_num_hunks(patch.get()); ++i) {
        const git_diff_hunk* hunk = nullptr;
        if (git_patch_get_hunk(&hunk, nullptr, patch.get(), i) != 0)
            continue;
        // git numbers lines from 1, and an empty side's start is the line before it.
        LineHunk out;
        out.oldLines = hunk->old_lines;
        out.newLines = hunk->new_lines;
        out.oldStart = hunk->old_lines == 0 ? hunk->old_start : hunk->old_start - 1;
        out.newStart = hunk->new_lines == 0 ? hunk->new_start : hunk->new_start - 1;
        hunks.push_back(out);
    }
    return hunks;
}

} // namespace rg
