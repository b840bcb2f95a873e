#pragma once

// Change sets for the review dialog, shared by its test and its benchmark: operations made
// from their texts, the diffs and stats the dialog is given beside them, and the 250-create
// change set of a "complete the matrix" run.

#include "changes/changeset.h"
#include "changes/unifieddiff.h"

#include <string>
#include <vector>

namespace rg::test {

inline FileOperation operation(FileOperationKind kind, std::string path, std::string before,
                               std::string after, std::string reason, std::string subject = {})
{
    FileOperation op;
    op.kind = kind;
    op.path = std::move(path);
    op.before = std::move(before);
    op.after = std::move(after);
    op.plannedHash = kind == FileOperationKind::Create ? std::string() : contentHash(op.before);
    op.reason = std::move(reason);
    op.subject = std::move(subject);
    return op;
}

struct Review
{
    ChangeSet changes;
    std::vector<std::string> diffs;
    std::vector<DiffStat> stats;
};

inline Review reviewOf(ChangeSet changes)
{
    Review review{std::move(changes), {}, {}};
    for (const FileOperation& op : review.changes.operations) {
        review.diffs.push_back(UnifiedDiff::of(op));
        review.stats.push_back(UnifiedDiff::statOf(op));
    }
    return review;
}

// `count` created recipes of 60 lines each.
inline ChangeSet largeCompletion(int count)
{
    ChangeSet changes;
    changes.title = "Complete pytorch (" + std::to_string(count) + " cells)";
    std::string body;
    for (int line = 0; line < 60; ++line)
        body += "  line " + std::to_string(line) + " of a generated recipe\n";
    for (int i = 0; i < count; ++i) {
        const std::string name =
            "pytorch-python313-cuda13_0-sm" + std::to_string(100 + i) + "-avx512";
        changes.operations.push_back(operation(FileOperationKind::Create,
                                               ".flox/pkgs/" + name + ".nix", "", body,
                                               "missing cell", name));
    }
    return changes;
}

} // namespace rg::test
