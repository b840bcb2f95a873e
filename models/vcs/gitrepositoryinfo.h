#pragma once

// What the branch overview needs to know about a git repository: its branches, which one is
// checked out, and whether the work tree has uncommitted changes. Read through libgit2.

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rg {

class GitRepositoryInfo
{
public:
    // nullopt and `error` when `repositoryPath` is not inside a git repository.
    static std::optional<GitRepositoryInfo> open(const std::string& repositoryPath,
                                                 std::string* error);

    std::string workTree() const { return m_workTree; } // "" for a bare repository
    // Short name of the checked-out branch; "" when HEAD is detached or unborn.
    std::string currentBranch() const;
    std::string headCommit() const; // 40 hex; "" when unborn
    // Modified, staged, deleted or untracked (not ignored) files in the work tree.
    bool isDirty() const;
    std::vector<std::string> localBranches(std::string* error) const; // sorted short names

private:
    std::string m_repositoryPath;
    std::string m_workTree;
};

// Short names of the local branches of the repository containing `repositoryPath`, sorted;
// empty with `error` set on failure.
std::vector<std::string> listLocalBranches(const std::string& repositoryPath, std::string* error);

} // namespace rg
