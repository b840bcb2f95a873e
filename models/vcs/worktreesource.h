#pragma once

// Recipes read straight from a directory on disk (the usual case: a checked-out branch).

#include "vcs/repositorysource.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <sys/stat.h>

namespace rg {

class WorkTreeSource : public RepositorySource
{
public:
    explicit WorkTreeSource(const std::string& root);

    std::string displayName() const override;
    std::string rootPath() const override;
    bool isWritable() const override { return true; }
    std::vector<SourceEntry> list(const std::string& directory, std::string* error) const override;
    bool exists(const std::string& path) const override;
    SourceFile read(const std::string& path, uint64_t maxBytes) const override;

private:
    // Whether `path` (already absolute and normalised) lies inside the repository root.
    bool isInside(const std::filesystem::path& path) const;
    bool directoryIsInside(const std::filesystem::path& directory) const;
    // What identifies the bytes of a regular file: mtime and size, and a hash of the content,
    // since an edit that keeps the size within one timestamp tick keeps mtime and size too.
    // The hash is kept while the file's stat stays the same and was taken a while after its
    // last change (as git treats a "racily clean" index entry); otherwise it is read again.
    std::string contentStamp(const std::filesystem::path& path, const struct stat& st) const;

    struct Fingerprint
    {
        int64_t mtimeNs = 0;
        int64_t ctimeNs = 0;
        uint64_t size = 0;
        uint64_t inode = 0;
        size_t hash = 0;
        bool settled = false; // hashed later than the last change could still happen unseen
    };

    std::filesystem::path m_root; // absolute, symlinks resolved
    mutable std::mutex m_mutex;
    mutable std::map<std::string, bool> m_directories;         // resolved once: inside the root?
    mutable std::map<std::string, Fingerprint> m_fingerprints; // by absolute path
};

} // namespace rg
