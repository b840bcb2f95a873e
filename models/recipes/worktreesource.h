#pragma once

// Recipes read straight from a directory on disk (the usual case: a checked-out branch).

#include "recipes/repositorysource.h"

#include <filesystem>
#include <map>
#include <mutex>

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

    std::filesystem::path m_root; // absolute, symlinks resolved
    mutable std::mutex m_mutex;
    mutable std::map<std::string, bool> m_directories; // resolved once: inside the root?
};

} // namespace rg
