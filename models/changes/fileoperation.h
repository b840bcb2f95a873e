#pragma once

// One file a change set creates, modifies or deletes: its text before and after, the content
// hash the plan was made against (so an apply can refuse a file changed since), and why.

#include <string>
#include <string_view>
#include <vector>

namespace rg {

enum class FileOperationKind { Create, Modify, Delete };

std::string_view fileOperationKindId(FileOperationKind kind); // "create" / "modify" / "delete"

struct FileOperation
{
    FileOperationKind kind = FileOperationKind::Modify;
    std::string path;   // relative to the repository root, '/' separated
    std::string before; // the text as planned against; empty for Create
    std::string after;  // empty for Delete
    // contentHash(before) for Modify and Delete; empty for Create, whose target must not exist.
    std::string plannedHash;
    std::string reason;  // one line: "missing cell", "pin-mismatch, missing-overlay", …
    std::string subject; // the variant it serves ("pytorch-python313-cpu-avx2"), "" otherwise
    // Lines of `before` a fix deletes or rewrites outside what its findings name; such an
    // operation is planned unselected, for the user to look at first.
    std::vector<std::string> alsoRemoves;
    // Why the plan leaves a whole-file operation unselected for the user to decide ("a
    // working recipe the spec does not ask for"); "" when nothing holds it back.
    std::string heldBack;
    bool selected = true;
};

// SHA-256 of the bytes, lowercase hex.
std::string contentHash(std::string_view bytes);

} // namespace rg
