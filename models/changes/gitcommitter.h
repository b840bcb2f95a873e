#pragma once

// Commits an applied change set through libgit2 as `git commit -- <its paths>` would: stages
// exactly the paths of its selected operations (additions, modifications, removals) and commits
// HEAD's tree with just those paths updated, so files the user modified or staged meanwhile stay
// out of the commit (and staged). The identity is user.name / user.email from the repository's
// and the user's git config. Root may be a directory below the work tree's top. Refuses an empty
// message and a commit that would change nothing; the index is written only once the commit is.

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
    // Why a commit to `root` cannot be made (not a git repository, a bare one, no identity);
    // "" when it can. Asked before anything is written, so a commit that must fail does not
    // leave the work tree changed and uncommitted.
    static std::string precondition(const std::string& root);
};

} // namespace rg
