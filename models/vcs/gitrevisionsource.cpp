#include "vcs/gitrevisionsource.h"

#include "vcs/gitlibrary.h"

#include <algorithm>
#include <filesystem>
#include <git2.h>

namespace rg {

namespace {

std::string oidString(const git_oid* oid)
{
    char text[GIT_OID_HEXSZ + 1];
    git_oid_tostr(text, sizeof text, oid);
    return text;
}

std::string trimmedDirectory(const std::string& directory)
{
    std::string dir = directory;
    while (!dir.empty() && dir.back() == '/')
        dir.pop_back();
    if (dir == ".")
        dir.clear();
    return dir;
}

} // namespace

std::unique_ptr<GitRevisionSource> GitRevisionSource::open(const std::string& repositoryPath,
                                                           const std::string& revision,
                                                           std::string* error)
{
    GitLibrary::ensureInitialised();
    std::unique_ptr<GitRevisionSource> source(new GitRevisionSource);
    auto fail = [&](const std::string& what) {
        if (error)
            *error = what;
        return nullptr;
    };
    if (git_repository_open_ext(&source->m_repository, repositoryPath.c_str(), 0, nullptr) != 0)
        return fail(repositoryPath + ": not a git repository (" + GitLibrary::lastError() + ")");

    git_object* object = nullptr;
    if (git_revparse_single(&object, source->m_repository, revision.c_str()) != 0)
        return fail("unknown revision '" + revision + "': " + GitLibrary::lastError());
    git_object* commit = nullptr;
    const int peeled = git_object_peel(&commit, object, GIT_OBJECT_COMMIT);
    git_object_free(object);
    if (peeled != 0)
        return fail("revision '" + revision + "' is not a commit: " + GitLibrary::lastError());
    source->m_commitId = oidString(git_object_id(commit));
    const int gotTree = git_commit_tree(&source->m_tree, reinterpret_cast<git_commit*>(commit));
    git_object_free(commit);
    if (gotTree != 0)
        return fail("revision '" + revision + "': " + GitLibrary::lastError());

    // A recipe repository may be a subdirectory of a larger work tree: paths stay relative to
    // the directory the user named.
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path named = fs::weakly_canonical(fs::absolute(repositoryPath, ec), ec);
    const char* workdir = git_repository_workdir(source->m_repository);
    if (workdir) {
        const fs::path top = fs::weakly_canonical(fs::path(workdir), ec);
        const fs::path relative = named.lexically_relative(top);
        if (!relative.empty() && relative != "." && relative.begin()->string() != "..")
            source->m_prefix = relative.generic_string();
        source->m_root = named.string();
    } else {
        std::string root = git_repository_path(source->m_repository);
        while (root.size() > 1 && root.back() == '/')
            root.pop_back();
        source->m_root = root;
    }
    source->m_revision = revision;
    return source;
}

GitRevisionSource::~GitRevisionSource()
{
    git_tree_free(m_tree);
    git_repository_free(m_repository);
}

std::string GitRevisionSource::treePath(const std::string& path) const
{
    if (m_prefix.empty())
        return path;
    return path.empty() ? m_prefix : m_prefix + '/' + path;
}

std::string GitRevisionSource::displayName() const
{
    return m_root + " @ " + m_revision;
}

std::string GitRevisionSource::rootPath() const
{
    return m_root;
}

std::vector<SourceEntry> GitRevisionSource::list(const std::string& directory,
                                                 std::string* error) const
{
    std::vector<SourceEntry> entries;
    std::lock_guard lock(m_mutex);
    const std::string dir = trimmedDirectory(directory);
    const std::string inTree = treePath(dir);
    git_tree* subtree = nullptr;
    if (inTree.empty()) {
        if (git_tree_dup(&subtree, m_tree) != 0)
            subtree = nullptr;
    } else {
        git_tree_entry* entry = nullptr;
        if (git_tree_entry_bypath(&entry, m_tree, inTree.c_str()) != 0) {
            if (error)
                *error = dir + ": no such directory at " + m_revision;
            return entries;
        }
        if (git_tree_entry_type(entry) != GIT_OBJECT_TREE ||
            git_tree_lookup(&subtree, m_repository, git_tree_entry_id(entry)) != 0) {
            git_tree_entry_free(entry);
            if (error)
                *error = dir + ": not a directory at " + m_revision;
            return entries;
        }
        git_tree_entry_free(entry);
    }
    if (!subtree) {
        if (error)
            *error = GitLibrary::lastError();
        return entries;
    }
    git_odb* odb = nullptr;
    git_repository_odb(&odb, m_repository);
    const size_t count = git_tree_entrycount(subtree);
    for (size_t i = 0; i < count; ++i) {
        const git_tree_entry* entry = git_tree_entry_byindex(subtree, i);
        const std::string name = git_tree_entry_name(entry);
        if (!name.ends_with(".nix"))
            continue;
        const git_filemode_t mode = git_tree_entry_filemode(entry);
        if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE &&
            mode != GIT_FILEMODE_LINK)
            continue;
        SourceEntry item;
        item.path = dir.empty() ? name : dir + '/' + name;
        item.symlink = mode == GIT_FILEMODE_LINK;
        item.stamp = oidString(git_tree_entry_id(entry));
        size_t size = 0;
        git_object_t type;
        if (odb && git_odb_read_header(&size, &type, odb, git_tree_entry_id(entry)) == 0)
            item.size = size;
        entries.push_back(std::move(item));
    }
    git_odb_free(odb);
    git_tree_free(subtree);
    std::sort(entries.begin(), entries.end(),
              [](const SourceEntry& a, const SourceEntry& b) { return a.path < b.path; });
    return entries;
}

bool GitRevisionSource::exists(const std::string& path) const
{
    std::lock_guard lock(m_mutex);
    git_tree_entry* entry = nullptr;
    if (git_tree_entry_bypath(&entry, m_tree, treePath(path).c_str()) != 0)
        return false;
    git_tree_entry_free(entry);
    return true;
}

SourceFile GitRevisionSource::read(const std::string& path, uint64_t maxBytes) const
{
    std::lock_guard lock(m_mutex);
    return readResolved(path, maxBytes, 0);
}

SourceFile GitRevisionSource::readResolved(const std::string& path, uint64_t maxBytes,
                                           int depth) const
{
    SourceFile file;
    file.path = path;
    git_tree_entry* entry = nullptr;
    if (git_tree_entry_bypath(&entry, m_tree, treePath(path).c_str()) != 0) {
        file.error = "no such file at " + m_revision;
        return file;
    }
    const git_filemode_t mode = git_tree_entry_filemode(entry);
    git_blob* blob = nullptr;
    const int looked = git_blob_lookup(&blob, m_repository, git_tree_entry_id(entry));
    git_tree_entry_free(entry);
    if (looked != 0) {
        file.error = GitLibrary::lastError("not a file");
        return file;
    }
    const auto size = static_cast<uint64_t>(git_blob_rawsize(blob));
    const char* data = static_cast<const char*>(git_blob_rawcontent(blob));

    if (mode == GIT_FILEMODE_LINK) {
        // A symlink blob holds its target; follow it only while it stays inside the tree.
        const std::string target(data, size);
        git_blob_free(blob);
        namespace fs = std::filesystem;
        const fs::path resolved = (fs::path(path).parent_path() / target).lexically_normal();
        const std::string text = resolved.generic_string();
        if (target.empty() || target.front() == '/' || text.empty() || text.rfind("..", 0) == 0) {
            file.outsideRepository = true;
            file.error = "symbolic link to " + target + " leads outside the repository; not read";
            return file;
        }
        if (depth >= 8) {
            file.error = "too many levels of symbolic links";
            return file;
        }
        SourceFile followed = readResolved(text, maxBytes, depth + 1);
        followed.path = path;
        return followed;
    }
    if (size > maxBytes) {
        git_blob_free(blob);
        file.oversized = true;
        file.error = "file is " + std::to_string(size) + " bytes, over the " +
                     std::to_string(maxBytes) + " byte limit";
        return file;
    }
    file.bytes.assign(data, size);
    git_blob_free(blob);
    return file;
}

} // namespace rg
