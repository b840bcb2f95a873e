#pragma once

// A repository source as it will be once a change set is applied: the base source with some
// files replaced, added or removed in memory. The planner analyses it so that every recipe
// it offers has been checked together with the rest of the repository.

#include "vcs/repositorysource.h"

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace rg {

class OverlaySource : public RepositorySource
{
public:
    explicit OverlaySource(std::shared_ptr<const RepositorySource> base);

    void write(const std::string& path, std::string bytes);
    void remove(const std::string& path);

    std::string displayName() const override;
    std::string rootPath() const override;
    bool isWritable() const override { return false; }
    std::vector<SourceEntry> list(const std::string& directory, std::string* error) const override;
    bool exists(const std::string& path) const override;
    SourceFile read(const std::string& path, uint64_t maxBytes) const override;

private:
    std::shared_ptr<const RepositorySource> m_base;
    std::map<std::string, std::optional<std::string>> m_files; // nullopt: removed
};

} // namespace rg
