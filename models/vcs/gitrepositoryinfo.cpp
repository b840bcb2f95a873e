#include "vcs/gitrepositoryinfo.h"

#include "vcs/gitlibrary.h"

#include <algorithm>
#include <git2.h>

namespace rg {

namespace {

// Owns one opened repository for the duration of a query; libgit2 handles are cheap to open
// and not safe to share between threads, so GitRepositoryInfo stays a plain value.
class OpenedRepository
{
public:
    explicit OpenedRepository(const std::string& path)
    {
        GitLibrary::ensureInitialised();
        if (git_repository_open_ext(&m_repository, path.c_str(), 0, nullptr) != 0)
            m_repository = nullptr;
    }
    ~OpenedRepository() { git_repository_free(m_repository); }
    OpenedRepository(const OpenedRepository&) = delete;
    OpenedRepository& operator=(const OpenedRepository&) = delete;

    git_repository* get() const { return m_repository; }

private:
    git_repository* m_repository = nullptr;
};

} // namespace

std::optional<GitRepositoryInfo> GitRepositoryInfo::open(const std::string& repositoryPath,
                                                         std::string* error)
{
    OpenedRepository repo(repositoryPath);
    if (!repo.get()) {
        if (error)
            *error = repositoryPath + ": not a git repository (" + GitLibrary::lastError() + ")";
        return std::nullopt;
    }
    GitRepositoryInfo info;
    info.m_repositoryPath = repositoryPath;
    if (const char* workdir = git_repository_workdir(repo.get())) {
        info.m_workTree = workdir;
        while (info.m_workTree.size() > 1 && info.m_workTree.back() == '/')
            info.m_workTree.pop_back();
    }
    return info;
}

std::string GitRepositoryInfo::currentBranch() const
{
    OpenedRepository repo(m_repositoryPath);
    if (!repo.get() || git_repository_head_detached(repo.get()) == 1)
        return {};
    git_reference* head = nullptr;
    if (git_repository_head(&head, repo.get()) != 0) {
        // An unborn branch still has a name: HEAD points at refs/heads/<name>.
        git_reference* symbolic = nullptr;
        std::string name;
        if (git_reference_lookup(&symbolic, repo.get(), "HEAD") == 0) {
            if (const char* target = git_reference_symbolic_target(symbolic)) {
                name = target;
                if (name.rfind("refs/heads/", 0) == 0)
                    name.erase(0, 11);
            }
            git_reference_free(symbolic);
        }
        return name;
    }
    std::string name = git_reference_shorthand(head);
    git_reference_free(head);
    return name;
}

std::string GitRepositoryInfo::headCommit() const
{
    OpenedRepository repo(m_repositoryPath);
    git_oid oid;
    if (!repo.get() || git_reference_name_to_id(&oid, repo.get(), "HEAD") != 0)
        return {};
    char text[GIT_OID_HEXSZ + 1];
    git_oid_tostr(text, sizeof text, &oid);
    return text;
}

bool GitRepositoryInfo::isDirty() const
{
    OpenedRepository repo(m_repositoryPath);
    if (!repo.get() || git_repository_is_bare(repo.get()))
        return false;
    // libgit2's init functions, not its *_INIT macros, whose braces leave fields unnamed (clang's
    // -Wextra reports them).
    git_status_options options;
    git_status_options_init(&options, GIT_STATUS_OPTIONS_VERSION);
    options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
    git_status_list* list = nullptr;
    if (git_status_list_new(&list, repo.get(), &options) != 0)
        return false;
    const bool dirty = git_status_list_entrycount(list) > 0;
    git_status_list_free(list);
    return dirty;
}

std::vector<std::string> GitRepositoryInfo::localBranches(std::string* error) const
{
    return listLocalBranches(m_repositoryPath, error);
}

std::vector<std::string> listLocalBranches(const std::string& repositoryPath, std::string* error)
{
    std::vector<std::string> names;
    OpenedRepository repo(repositoryPath);
    if (!repo.get()) {
        if (error)
            *error = repositoryPath + ": not a git repository (" + GitLibrary::lastError() + ")";
        return names;
    }
    git_branch_iterator* it = nullptr;
    if (git_branch_iterator_new(&it, repo.get(), GIT_BRANCH_LOCAL) != 0) {
        if (error)
            *error = GitLibrary::lastError();
        return names;
    }
    git_reference* ref = nullptr;
    git_branch_t type;
    while (git_branch_next(&ref, &type, it) == 0) {
        const char* name = nullptr;
        if (git_branch_name(&name, ref) == 0 && name)
            names.emplace_back(name);
        git_reference_free(ref);
    }
    git_branch_iterator_free(it);
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace rg
