#include "recipes/recipemodules.h"

#include <filesystem>
#include <functional>

namespace rg {

RecipeModules::RecipeModules(const RepositorySource& source, uint64_t maxFileSize)
    : m_source(source), m_maxFileSize(maxFileSize)
{}

std::string RecipeModules::resolve(std::string_view importingFile, std::string_view path)
{
    if (path.empty() || path.front() == '/' || path.front() == '~')
        return {}; // absolute paths are the machine's, not the repository's
    const std::filesystem::path importing{std::string(importingFile)};
    std::filesystem::path target = (importing.parent_path() / std::string(path)).lexically_normal();
    std::string id = target.generic_string();
    if (id.empty() || id == "." || id.starts_with("../") || id == "..")
        return {};
    if (id.back() == '/')
        id.pop_back();
    // `import ./dir` reads dir/default.nix, as Nix does.
    if (!id.ends_with(".nix"))
        id += "/default.nix";
    return id;
}

RecipeModules::Module& RecipeModules::fetch(const std::string& fileId)
{
    auto [it, added] = m_modules.try_emplace(fileId);
    if (!added)
        return it->second;
    SourceFile file = m_source.read(fileId, m_maxFileSize);
    if (!file.error.empty())
        return it->second;
    it->second.stamp = std::to_string(std::hash<std::string>{}(file.bytes)) + ':' +
                       std::to_string(file.bytes.size());
    auto tree = std::make_unique<nix::SyntaxTree>(nix::SyntaxTree::parse(std::move(file.bytes)));
    if (!tree->error() && tree->root())
        it->second.tree = std::move(tree);
    return it->second;
}

const nix::SyntaxTree* RecipeModules::load(std::string_view fileId)
{
    std::lock_guard lock(m_mutex);
    return fetch(std::string(fileId)).tree.get();
}

std::string RecipeModules::stamp(const std::string& fileId)
{
    std::lock_guard lock(m_mutex);
    return fetch(fileId).stamp;
}

std::vector<std::string> RecipeModules::loaded() const
{
    std::lock_guard lock(m_mutex);
    std::vector<std::string> ids;
    for (const auto& [id, module] : m_modules)
        ids.push_back(id);
    return ids;
}

} // namespace rg
