#include "changes/changeset.h"

#include <algorithm>

namespace rg {

int ChangeSet::count(FileOperationKind kind, bool selectedOnly) const
{
    return static_cast<int>(
        std::count_if(operations.begin(), operations.end(), [&](const FileOperation& op) {
            return op.kind == kind && (op.selected || !selectedOnly);
        }));
}

bool ChangeSet::hasSelected() const
{
    return std::any_of(operations.begin(), operations.end(),
                       [](const FileOperation& op) { return op.selected; });
}

ChangeSet ChangeSet::inverse() const
{
    ChangeSet undo;
    undo.title = "Undo: " + title;
    for (const FileOperation& op : operations) {
        if (!op.selected)
            continue;
        FileOperation back;
        back.path = op.path;
        back.subject = op.subject;
        back.reason = "undo";
        back.before = op.after;
        back.after = op.before;
        switch (op.kind) {
        case FileOperationKind::Create:
            back.kind = FileOperationKind::Delete;
            break;
        case FileOperationKind::Modify:
            back.kind = FileOperationKind::Modify;
            break;
        case FileOperationKind::Delete:
            back.kind = FileOperationKind::Create;
            break;
        }
        if (back.kind != FileOperationKind::Create)
            back.plannedHash = contentHash(back.before);
        undo.operations.push_back(std::move(back));
    }
    return undo;
}

std::string ChangeSet::commitMessage() const
{
    // A commit message lists variants by what happened to them; files without a variant
    // (README) are named by path.
    std::vector<std::string> created, fixed, deleted, other;
    for (const FileOperation& op : operations) {
        if (!op.selected)
            continue;
        const std::string& name = op.subject.empty() ? op.path : op.subject;
        if (op.subject.empty())
            other.push_back(op.path);
        else if (op.kind == FileOperationKind::Create)
            created.push_back(name);
        else if (op.kind == FileOperationKind::Modify)
            fixed.push_back(name);
        else
            deleted.push_back(name);
    }
    std::string message = title.empty() ? std::string("Update recipes") : title;
    message += "\n";
    auto list = [&](const char* heading, const std::vector<std::string>& names) {
        if (names.empty())
            return;
        message += "\n" + std::string(heading) + " (" + std::to_string(names.size()) + "):\n";
        for (const std::string& name : names)
            message += "- " + name + "\n";
    };
    list("Created", created);
    list("Fixed", fixed);
    list("Deleted", deleted);
    list("Also updated", other);
    return message;
}

} // namespace rg
