#pragma once

// Commits an applied change set through libgit2: stages exactly the paths of its selected
// operations (additions, modifications, removals) and commits them on HEAD with the user's
// git identity (user.name / user.email from the repository's and the user's git config).

#include "changes/changeset.h"

#include <string>

namespace rg {

struct CommitResult
{
    bool committed = false;
    std::string id;    // the new commit's full hex id
    std::string error; // "no git identity: set user.name and user.email", libgit2's message
};

class GitCommitter
{
public:
    static CommitResult commit(const std::string& root, const ChangeSet& applied,
                               const std::string& message);
};

} // namespace rg
