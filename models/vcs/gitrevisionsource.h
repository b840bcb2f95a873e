#pragma once

// Recipes read from one revision of a git repository through libgit2, without checkout:
// blobs come straight from the object database, so other branches can be analysed while the
// work tree stays on its own branch.

#include "vcs/repositorysource.h"

#include <memory>
#include <mutex>

struct git_repository;
struct git_tree;

namespace rg {

class GitRevisionSource : public RepositorySource
{
public:
    // nullptr and `error` when the repository or the revision cannot be opened.
    static std::unique_ptr<GitRevisionSource> open(const std::string& repositoryPath,
                                                   const std::string& revision, std::string* error);
    ~GitRevisionSource() override;

    std::string displayName() const override;
    std::string rootPath() const override;
    bool isWritable() const override { return false; }
    std::vector<SourceEntry> list(const std::string& directory, std::string* error) const override;
    bool exists(const std::string& path) const override;
    SourceFile read(const std::string& path, uint64_t maxBytes) const override;

    std::string revision() const { return m_revision; }
    std::string commitId() const { return m_commitId; } // 40 hex

private:
    GitRevisionSource() = default;
    SourceFile readResolved(const std::string& path, uint64_t maxBytes, int depth) const;
    // The path inside the git tree of a path relative to the opened directory.
    std::string treePath(const std::string& path) const;

    // libgit2 objects are not safe for concurrent use; reads are short, so one lock suffices.
    mutable std::mutex m_mutex;
    git_repository* m_repository = nullptr;
    git_tree* m_tree = nullptr;
    std::string m_root;
    std::string m_prefix; // the opened directory relative to the work tree, "" at its top
    std::string m_revision;
    std::string m_commitId;
};

} // namespace rg
