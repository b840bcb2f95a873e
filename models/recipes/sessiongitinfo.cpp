#include "recipes/sessiongitinfo.h"

#include <algorithm>
#include <git2.h>
#include <memory>

namespace rg {

namespace {

// libgit2 counts its initialisations; one that lives as long as the process is enough.
void ensureLibgit2()
{
    static const int initialised = git_libgit2_init();
    (void)initialised;
}

std::string lastError()
{
    const git_error* error = git_error_last();
    return error && error->message ? error->message : "unknown libgit2 error";
}

struct RepositoryCloser
{
    void operator()(git_repository* repository) const { git_repository_free(repository); }
};
using RepositoryPtr = std::unique_ptr<git_repository, RepositoryCloser>;

RepositoryPtr openRepository(const std::string& path, std::string* error)
{
    ensureLibgit2();
    git_repository* repository = nullptr;
    if (git_repository_open_ext(&repository, path.c_str(), 0, nullptr) != 0) {
        if (error)
            *error = lastError();
        return nullptr;
    }
    return RepositoryPtr(repository);
}

} // namespace

SessionGitInfo SessionGitInfo::read(const std::string& path, bool withStatus)
{
    SessionGitInfo info;
    RepositoryPtr repository = openRepository(path, &info.error);
    if (!repository)
        return info;
    info.isRepository = true;
    info.error.clear();

    git_reference* head = nullptr;
    const int headResult = git_repository_head(&head, repository.get());
    if (headResult == 0) {
        info.detached = git_repository_head_detached(repository.get()) == 1;
        if (!info.detached) {
            const char* shorthand = git_reference_shorthand(head);
            info.branch = shorthand ? shorthand : "";
        }
        if (const git_oid* oid = git_reference_target(head)) {
            char text[GIT_OID_HEXSZ + 1] = {};
            git_oid_tostr(text, sizeof text, oid);
            info.headCommit = std::string(text).substr(0, 7);
        }
        git_reference_free(head);
    } else if (headResult == GIT_EUNBORNBRANCH) {
        // A fresh repository: HEAD names a branch that has no commit yet.
        git_reference* symbolic = nullptr;
        if (git_reference_lookup(&symbolic, repository.get(), "HEAD") == 0) {
            if (const char* target = git_reference_symbolic_target(symbolic)) {
                std::string name = target;
                const std::string prefix = "refs/heads/";
                info.branch = name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
            }
            git_reference_free(symbolic);
        }
    }

    if (withStatus && !git_repository_is_bare(repository.get())) {
        git_status_options options = GIT_STATUS_OPTIONS_INIT;
        options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
        options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
        git_status_list* list = nullptr;
        if (git_status_list_new(&list, repository.get(), &options) == 0) {
            info.dirty = git_status_list_entrycount(list) > 0;
            git_status_list_free(list);
        } else {
            info.error = lastError();
        }
    }
    return info;
}

std::vector<std::string> SessionGitInfo::localBranches(const std::string& path, std::string* error)
{
    std::vector<std::string> branches;
    RepositoryPtr repository = openRepository(path, error);
    if (!repository)
        return branches;
    git_branch_iterator* iterator = nullptr;
    if (git_branch_iterator_new(&iterator, repository.get(), GIT_BRANCH_LOCAL) != 0) {
        if (error)
            *error = lastError();
        return branches;
    }
    git_reference* reference = nullptr;
    git_branch_t type;
    while (git_branch_next(&reference, &type, iterator) == 0) {
        const char* name = nullptr;
        if (git_branch_name(&name, reference) == 0 && name)
            branches.emplace_back(name);
        git_reference_free(reference);
    }
    git_branch_iterator_free(iterator);
    std::sort(branches.begin(), branches.end());
    return branches;
}

} // namespace rg
