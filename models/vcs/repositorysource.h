#pragma once

// Where recipes are read from: a work tree on disk, or a git revision read through libgit2
// without checkout. Sources are read-only and safe to use from a worker thread.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rg {

struct SourceEntry
{
    std::string path; // relative to the repository root, '/' separated
    uint64_t size = 0;
    std::string stamp;    // changes whenever the content may have changed (mtime+size, blob id)
    bool symlink = false; // never followed out of the repository
};

struct SourceFile
{
    std::string path;
    std::string bytes;
    std::string error;              // non-empty when unreadable (OS / libgit2 message); bytes empty
    bool oversized = false;         // larger than the cap; `error` says how large
    bool outsideRepository = false; // a symlink resolving outside the repository root
};

class RepositorySource
{
public:
    virtual ~RepositorySource() = default;

    virtual std::string displayName() const = 0; // "/path/to/repo" or "/path/to/repo @ main"
    virtual std::string rootPath() const = 0;    // work tree / repository directory
    virtual bool isWritable() const = 0;         // only a work tree is

    // The files directly under `directory` (relative) ending in `.nix`, sorted by path: regular
    // files, symlinks, and anything else but a directory (a named pipe, which reading reports).
    virtual std::vector<SourceEntry> list(const std::string& directory,
                                          std::string* error) const = 0;
    virtual bool exists(const std::string& path) const = 0;
    // Reads at most `maxBytes`; a larger file gives an error saying it is oversized.
    virtual SourceFile read(const std::string& path, uint64_t maxBytes) const = 0;
};

// Opens a work tree directory.
std::unique_ptr<RepositorySource> openWorkTree(const std::string& root);
// Opens `revision` (branch, tag, commit id, or anything git rev-parse accepts) of the
// repository containing `repositoryPath`; nullptr and `error` on failure.
std::unique_ptr<RepositorySource> openGitRevision(const std::string& repositoryPath,
                                                  const std::string& revision, std::string* error);

} // namespace rg
