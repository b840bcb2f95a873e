#pragma once

// A snapshot of what the window shows about the git side of an open repository (read through
// GitRepositoryInfo, libgit2): the checked-out branch,
// whether the work tree has uncommitted changes, and the local branches. Read with libgit2,
// never a `git` subprocess; safe on a worker thread (each call opens its own handle).

#include <string>
#include <vector>

namespace rg {

struct SessionGitInfo
{
    bool isRepository = false;
    std::string branch;     // "main"; "" when HEAD is detached or unborn
    std::string headCommit; // short id of HEAD, "" when unborn
    bool detached = false;
    bool dirty = false; // modified, staged or untracked files (ignored ones do not count)
    std::string error;  // libgit2's message when the repository could not be read

    // `path` may be anywhere inside the work tree.
    static SessionGitInfo read(const std::string& path, bool withStatus = true);
    static std::vector<std::string> localBranches(const std::string& path, std::string* error);
};

} // namespace rg
