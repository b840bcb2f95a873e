#include "changes/gitcommitter.h"

#include "vcs/gitlibrary.h"

#include <filesystem>
#include <git2.h>
#include <memory>
#include <vector>

namespace rg {

namespace {

struct GitFree
{
    void operator()(git_repository* p) const { git_repository_free(p); }
    void operator()(git_index* p) const { git_index_free(p); }
    void operator()(git_tree* p) const { git_tree_free(p); }
    void operator()(git_commit* p) const { git_commit_free(p); }
    void operator()(git_signature* p) const { git_signature_free(p); }
    void operator()(git_treebuilder* p) const { git_treebuilder_free(p); }
};
template <typename T> using Owned = std::unique_ptr<T, GitFree>;

std::string oidString(const git_oid& oid)
{
    char text[GIT_OID_HEXSZ + 1];
    git_oid_tostr(text, sizeof text, &oid);
    return text;
}

CommitResult failure(const std::string& error)
{
    return CommitResult{false, "", error};
}

// The change set's paths are relative to the directory the user opened, which may lie below the
// work tree's top; the index wants them relative to the top.
std::string prefixOf(git_repository* repository, const std::string& root)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path named = fs::weakly_canonical(fs::absolute(root, ec), ec);
    const fs::path top = fs::weakly_canonical(fs::path(git_repository_workdir(repository)), ec);
    const fs::path relative = named.lexically_relative(top);
    if (relative.empty() || relative == "." || *relative.begin() == "..")
        return {};
    return relative.generic_string() + '/';
}

// HEAD's tree, or the empty tree on an unborn branch (the first commit has no parent).
bool baseline(git_repository* repository, Owned<git_commit>& parent, Owned<git_tree>& tree)
{
    if (git_repository_head_unborn(repository) == 1) {
        git_treebuilder* builder = nullptr;
        git_oid empty;
        if (git_treebuilder_new(&builder, repository, nullptr) != 0)
            return false;
        const Owned<git_treebuilder> owned(builder);
        git_tree* found = nullptr;
        if (git_treebuilder_write(&empty, builder) != 0 ||
            git_tree_lookup(&found, repository, &empty) != 0)
            return false;
        tree.reset(found);
        return true;
    }
    git_object* head = nullptr;
    if (git_revparse_single(&head, repository, "HEAD^{commit}") != 0)
        return false;
    parent.reset(reinterpret_cast<git_commit*>(head));
    git_tree* found = nullptr;
    if (git_commit_tree(&found, parent.get()) != 0)
        return false;
    tree.reset(found);
    return true;
}

// Stages each selected path in the repository's index (in memory) and describes the same
// change as updates of HEAD's tree: the commit then holds exactly these paths, whatever else
// the user has staged, as `git commit -- paths` would.
bool stage(git_index* index, git_tree* base, const ChangeSet& applied, const std::string& prefix,
           std::vector<std::string>& paths, std::vector<git_tree_update>& updates)
{
    for (const FileOperation& op : applied.operations)
        if (op.selected)
            paths.push_back(prefix + op.path);
    size_t next = 0;
    for (const FileOperation& op : applied.operations) {
        if (!op.selected)
            continue;
        const std::string& path = paths[next++];
        git_tree_update update{};
        update.path = path.c_str();
        if (op.kind == FileOperationKind::Delete) {
            if (git_index_remove_bypath(index, path.c_str()) != 0)
                return false;
            git_tree_entry* entry = nullptr;
            if (git_tree_entry_bypath(&entry, base, path.c_str()) != 0)
                continue; // never committed: nothing to remove from the tree
            git_tree_entry_free(entry);
            update.action = GIT_TREE_UPDATE_REMOVE;
        } else {
            if (git_index_add_bypath(index, path.c_str()) != 0)
                return false;
            const git_index_entry* entry = git_index_get_bypath(index, path.c_str(), 0);
            if (!entry)
                return false;
            update.action = GIT_TREE_UPDATE_UPSERT;
            update.id = entry->id;
            update.filemode = static_cast<git_filemode_t>(entry->mode);
        }
        updates.push_back(update);
    }
    return true;
}

std::string prettified(const std::string& message)
{
    git_buf buffer = GIT_BUF_INIT;
    std::string text;
    if (git_message_prettify(&buffer, message.c_str(), 0, 0) == 0)
        text.assign(buffer.ptr, buffer.size);
    git_buf_dispose(&buffer);
    return text;
}

// Opens the repository at `root` and its committer identity; the reason when either cannot be
// had (both outputs null then).
std::string openForCommit(const std::string& root, git_repository** repository,
                          git_signature** signature)
{
    *repository = nullptr;
    *signature = nullptr;
    git_repository* opened = nullptr;
    if (git_repository_open_ext(&opened, root.c_str(), 0, nullptr) != 0)
        return root + ": not a git repository (" + GitLibrary::lastError() + ")";
    Owned<git_repository> owned(opened);
    if (!git_repository_workdir(opened))
        return root + ": a bare repository has no work tree to commit from";
    if (git_signature_default(signature, opened) != 0) {
        *signature = nullptr;
        return "no git identity: set user.name and user.email (git config)";
    }
    *repository = owned.release();
    return {};
}

} // namespace

std::string GitCommitter::precondition(const std::string& root)
{
    GitLibrary::ensureInitialised();
    git_repository* repository = nullptr;
    git_signature* signature = nullptr;
    const std::string why = openForCommit(root, &repository, &signature);
    git_signature_free(signature);
    git_repository_free(repository);
    return why;
}

CommitResult GitCommitter::commit(const std::string& root, const ChangeSet& applied,
                                  const std::string& message)
{
    GitLibrary::ensureInitialised();
    if (!applied.hasSelected())
        return failure("nothing to commit: no selected operation");
    const std::string text = prettified(message);
    if (text.empty())
        return failure("empty commit message");
    // Checked before anything is staged, so a missing identity leaves the index untouched.
    git_repository* opened = nullptr;
    git_signature* signature = nullptr;
    if (std::string why = openForCommit(root, &opened, &signature); !why.empty())
        return failure(why);
    const Owned<git_repository> repository(opened);
    const Owned<git_signature> author(signature);

    Owned<git_commit> parent;
    Owned<git_tree> base;
    if (!baseline(opened, parent, base))
        return failure("cannot read HEAD: " + GitLibrary::lastError());
    git_index* rawIndex = nullptr;
    if (git_repository_index(&rawIndex, opened) != 0)
        return failure("cannot read the index: " + GitLibrary::lastError());
    const Owned<git_index> index(rawIndex);
    std::vector<std::string> paths;
    std::vector<git_tree_update> updates;
    if (!stage(rawIndex, base.get(), applied, prefixOf(opened, root), paths, updates))
        return failure("cannot stage: " + GitLibrary::lastError());

    git_oid treeId;
    git_tree* tree = nullptr;
    if (git_tree_create_updated(&treeId, opened, base.get(), updates.size(), updates.data()) != 0 ||
        git_tree_lookup(&tree, opened, &treeId) != 0)
        return failure("cannot write the tree: " + GitLibrary::lastError());
    const Owned<git_tree> newTree(tree);
    if (parent && git_oid_equal(&treeId, git_tree_id(base.get())))
        return failure("nothing to commit: the change set's files are as in HEAD");

    git_oid commitId;
    const git_commit* parents[] = {parent.get()};
    if (git_commit_create(&commitId, opened, "HEAD", signature, signature, nullptr, text.c_str(),
                          tree, parent ? 1 : 0, parents) != 0)
        return failure("cannot commit: " + GitLibrary::lastError());
    CommitResult result{true, oidString(commitId), ""};
    if (git_index_write(rawIndex) != 0)
        result.error = "committed, but the index could not be written: " + GitLibrary::lastError();
    return result;
}

} // namespace rg
