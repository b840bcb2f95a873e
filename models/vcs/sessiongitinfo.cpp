#include "vcs/sessiongitinfo.h"

#include "matrix/versionspelling.h"
#include "vcs/gitrepositoryinfo.h"

namespace rg {

SessionGitInfo SessionGitInfo::read(const std::string& path, bool withStatus)
{
    SessionGitInfo info;
    const std::optional<GitRepositoryInfo> repository = GitRepositoryInfo::open(path, &info.error);
    if (!repository)
        return info;
    info.isRepository = true;
    info.error.clear();
    info.branch = repository->currentBranch();
    info.headCommit = shortRevision(repository->headCommit());
    info.detached = info.branch.empty() && !info.headCommit.empty();
    if (withStatus && !repository->workTree().empty())
        info.dirty = repository->isDirty();
    return info;
}

std::vector<std::string> SessionGitInfo::localBranches(const std::string& path, std::string* error)
{
    return listLocalBranches(path, error);
}

} // namespace rg
