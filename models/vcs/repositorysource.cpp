#include "vcs/repositorysource.h"

#include "vcs/gitrevisionsource.h"
#include "vcs/worktreesource.h"

namespace rg {

std::unique_ptr<RepositorySource> openWorkTree(const std::string& root)
{
    return std::make_unique<WorkTreeSource>(root);
}

std::unique_ptr<RepositorySource> openGitRevision(const std::string& repositoryPath,
                                                  const std::string& revision, std::string* error)
{
    return GitRevisionSource::open(repositoryPath, revision, error);
}

} // namespace rg
