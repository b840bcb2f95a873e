#pragma once

// The repository's own Nix modules (`import ./lib/cpu-isa.nix`, `callPackage ./common.nix
// { }`, a sibling recipe a companion imports), read through the scan's RepositorySource and
// parsed once per scan however many recipes import them, and the plain files recipes read
// (`builtins.readFile ./pins/nixpkgs.json`). Imports never leave the repository and never go
// through a symlink out of it (the source refuses those).

#include "nix/moduleloader.h"
#include "nix/syntaxtree.h"
#include "vcs/repositorysource.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
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
    std::string resolveFile(std::string_view importingFile, std::string_view path) override;
    // Thread-safe; the view stays valid for the lifetime of this object.
    std::optional<std::string_view> text(std::string_view fileId) override;

    // A fingerprint of the file's bytes as this scan reads them, their SHA-256 as 64 hex
    // digits ("" when unreadable), so facts cached from an earlier scan are reused only while
    // the modules and files they read are unchanged, and a recipe's content key needs no
    // second read of them (RecipeContentKey::computeFromScan).
    std::string stamp(const std::string& fileId);
    // Every module and file read so far, sorted.
    std::vector<std::string> loaded() const;

private:
    // A file is read once per scan; it is parsed only when imported, so a JSON file that is
    // only read is never taken for Nix.
    struct Module
    {
        bool readable = false;
        std::string stamp;
        std::string bytes; // as read, until the tree takes them (unless text() handed them out)
        bool bytesShared = false;
        // Once parsed, also when parsing failed: then it only holds the bytes.
        std::unique_ptr<nix::SyntaxTree> tree;
    };
    Module& fetch(const std::string& fileId); // with m_mutex held
    static std::string normalise(std::string_view importingFile, std::string_view path);

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
    std::string resolveFile(std::string_view importingFile, std::string_view path) override
    {
        return m_modules.resolveFile(importingFile, path);
    }
    // A pin read from JSON is a fact of the recipe: its stamp must be recorded like a module's.
    std::optional<std::string_view> text(std::string_view fileId) override
    {
        m_reached.insert(std::string(fileId));
        return m_modules.text(fileId);
    }
    const std::set<std::string>& reached() const { return m_reached; }

private:
    RecipeModules& m_modules;
    std::set<std::string> m_reached;
};

} // namespace rg
