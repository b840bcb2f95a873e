#include "analysis/recipemodules.h"

#include "analysis/recipecontentkey.h"

#include <filesystem>
#include <functional>

namespace rg {

RecipeModules::RecipeModules(const RepositorySource& source, uint64_t maxFileSize)
    : m_source(source), m_maxFileSize(maxFileSize)
{}

std::string RecipeModules::normalise(std::string_view importingFile, std::string_view path)
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
    return id;
}

std::string RecipeModules::resolve(std::string_view importingFile, std::string_view path)
{
    std::string id = normalise(importingFile, path);
    // `import ./dir` reads dir/default.nix, as Nix does.
    if (!id.empty() && !id.ends_with(".nix"))
        id += "/default.nix";
    return id;
}

std::string RecipeModules::resolveFile(std::string_view importingFile, std::string_view path)
{
    return normalise(importingFile, path);
}

RecipeModules::Module& RecipeModules::fetch(const std::string& fileId)
{
    auto [it, added] = m_modules.try_emplace(fileId);
    if (!added)
        return it->second;
    SourceFile file = m_source.read(fileId, m_maxFileSize);
    if (!file.error.empty())
        return it->second;
    Module& module = it->second;
    module.readable = true;
    module.stamp = RecipeContentKey::digestOf(file.bytes);
    module.bytes = std::move(file.bytes);
    return module;
}

const nix::SyntaxTree* RecipeModules::load(std::string_view fileId)
{
    std::lock_guard lock(m_mutex);
    Module& module = fetch(std::string(fileId));
    if (!module.readable)
        return nullptr;
    if (!module.tree) {
        // Bytes text() handed out stay where they are; otherwise the tree takes them over.
        std::string bytes = module.bytesShared ? module.bytes : std::move(module.bytes);
        module.tree = std::make_unique<nix::SyntaxTree>(nix::SyntaxTree::parse(std::move(bytes)));
        if (!module.bytesShared)
            module.bytes = std::string();
    }
    return !module.tree->error() && module.tree->root() ? module.tree.get() : nullptr;
}

std::optional<std::string_view> RecipeModules::text(std::string_view fileId)
{
    std::lock_guard lock(m_mutex);
    Module& module = fetch(std::string(fileId));
    if (!module.readable)
        return std::nullopt;
    if (module.tree)
        return module.tree->source();
    module.bytesShared = true;
    return std::string_view(module.bytes);
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
