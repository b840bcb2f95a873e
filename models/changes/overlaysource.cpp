#include "changes/overlaysource.h"

#include "changes/fileoperation.h"

#include <algorithm>

namespace rg {

OverlaySource::OverlaySource(std::shared_ptr<const RepositorySource> base) : m_base(std::move(base))
{}

void OverlaySource::write(const std::string& path, std::string bytes)
{
    m_files[path] = std::move(bytes);
}

void OverlaySource::remove(const std::string& path)
{
    m_files[path] = std::nullopt;
}

std::string OverlaySource::displayName() const
{
    return m_base->displayName() + " (planned)";
}

std::string OverlaySource::rootPath() const
{
    return m_base->rootPath();
}

std::vector<SourceEntry> OverlaySource::list(const std::string& directory, std::string* error) const
{
    std::vector<SourceEntry> entries = m_base->list(directory, error);
    std::erase_if(entries, [&](const SourceEntry& entry) { return m_files.count(entry.path); });
    const std::string prefix = directory.empty() ? std::string() : directory + "/";
    for (const auto& [path, bytes] : m_files) {
        if (!bytes || path.compare(0, prefix.size(), prefix) != 0 || !path.ends_with(".nix") ||
            path.find('/', prefix.size()) != std::string::npos)
            continue;
        // The stamp names the content, so a cache never mistakes planned bytes for others.
        entries.push_back({path, bytes->size(), "planned:" + contentHash(*bytes), false});
    }
    std::sort(entries.begin(), entries.end(),
              [](const SourceEntry& a, const SourceEntry& b) { return a.path < b.path; });
    return entries;
}

bool OverlaySource::exists(const std::string& path) const
{
    if (auto it = m_files.find(path); it != m_files.end())
        return it->second.has_value();
    return m_base->exists(path);
}

SourceFile OverlaySource::read(const std::string& path, uint64_t maxBytes) const
{
    auto it = m_files.find(path);
    if (it == m_files.end())
        return m_base->read(path, maxBytes);
    SourceFile file;
    file.path = path;
    if (!it->second)
        file.error = "removed by the change set";
    else
        file.bytes = *it->second;
    return file;
}

} // namespace rg
