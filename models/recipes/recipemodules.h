#pragma once

// The repository's own Nix modules (`import ./lib/cpu-isa.nix`, `callPackage ./common.nix
// { }`, a sibling recipe a companion imports), read through the scan's RepositorySource and
// parsed once per scan however many recipes import them. Imports never leave the repository
// and never go through a symlink out of it (the source refuses those).

#include "nix/moduleloader.h"
#include "nix/syntaxtree.h"
#include "recipes/repositorysource.h"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace rg {

class RecipeModules : public nix::ModuleLoader
{
public:
    RecipeModules(const RepositorySource& source, uint64_t maxFileSize);

    std::string resolve(std::string_view importingFile, std::string_view path) override;
    const nix::SyntaxTree* load(std::string_view fileId) override; // thread-safe

    // A fingerprint of the module's bytes as this scan reads them ("" when unreadable), so
    // facts cached from an earlier scan are reused only while their modules are unchanged.
    std::string stamp(const std::string& fileId);
    // Every module loaded so far, sorted.
    std::vector<std::string> loaded() const;

private:
    struct Module
    {
        std::unique_ptr<nix::SyntaxTree> tree; // null when unreadable or unparsable
        std::string stamp;
    };
    Module& fetch(const std::string& fileId); // with m_mutex held

    const RepositorySource& m_source;
    uint64_t m_maxFileSize;
    mutable std::mutex m_mutex;
    std::map<std::string, Module> m_modules;
};

// Records which modules one recipe's evaluation reached, forwarding to the scan's modules.
class ModuleTrail : public nix::ModuleLoader
{
public:
    explicit ModuleTrail(RecipeModules& modules) : m_modules(modules) {}

    std::string resolve(std::string_view importingFile, std::string_view path) override
    {
        return m_modules.resolve(importingFile, path);
    }
    const nix::SyntaxTree* load(std::string_view fileId) override
    {
        m_reached.insert(std::string(fileId));
        return m_modules.load(fileId);
    }
    const std::set<std::string>& reached() const { return m_reached; }

private:
    RecipeModules& m_modules;
    std::set<std::string> m_reached;
};

} // namespace rg
