#include "facts/importreader.h"

#include "facts/syntaxqueries.h"

#include <algorithm>
#include <filesystem>

namespace rg {

using nix::Node;
using nix::NodeKind;
using nix::SourceRange;

ImportReader::ImportReader(FactContext& context)
    : m_context(context), m_facts(context.facts()), m_walk(context.walked())
{}

void ImportReader::readImports()
{
    for (const Node* apply : m_walk.applies()) {
        const std::string_view callee = calleeName(*apply);
        auto arguments = callArguments(*apply);
        if (arguments.empty() || !arguments[0] || !isLiteralPath(arguments[0]))
            continue;
        if (arguments.size() >= 2 && !isSibling(arguments[0]->text) &&
            m_facts.builderModule.empty())
            m_facts.builderModule = std::string(arguments[0]->text);
        // `callPackage ./x.nix { }` is two Applies with the same first argument.
        if ((callee == "callPackage" || callee == "import") &&
            arguments[0]->text.ends_with(".nix") &&
            (m_facts.importedFiles.empty() ||
             m_facts.importedFiles.back().range != arguments[0]->range))
            m_facts.importedFiles.push_back(
                Fact<std::string>{std::string(arguments[0]->text), arguments[0]->range});
    }
    for (Fact<std::string>& computed : computedSiblingImports(m_facts.path))
        m_facts.importedFiles.push_back(std::move(computed));
    // A wrapper's base is a recipe beside it; a module in a subdirectory is a library.
    for (const Fact<std::string>& imported : m_facts.importedFiles)
        if (isSibling(imported.value)) {
            m_facts.wrappedFile = imported;
            break;
        }
}

// `import (../. + "/${v.torchName}.nix") { }`, `import torchFile { }`: a path computed
// from values is imported like a literal one. Only recipes beside `recipePath` count (a
// companion's torch); modules are read where their literal paths are. A builder's
// import is made from the recipe's argument, so it is placed there, not in the recipe.
std::vector<Fact<std::string>>
ImportReader::computedSiblingImports(const std::string& recipePath) const
{
    std::vector<Fact<std::string>> found;
    const std::string directory = recipePath.substr(0, recipePath.rfind('/') + 1);
    std::vector<const Node*> seen;
    for (const Node* apply : m_walk.applies()) {
        const std::string_view callee = calleeName(*apply);
        const auto arguments = callArguments(*apply);
        if ((callee != "import" && callee != "callPackage") || arguments.empty() || !arguments[0] ||
            isLiteralPath(arguments[0]) || std::ranges::count(seen, arguments[0]) > 0)
            continue;
        seen.push_back(arguments[0]);
        const nix::Value path = m_context.valueOf(arguments[0]);
        const auto written = path.asPath();
        if (!written || !written->ends_with(".nix") || written->starts_with('/'))
            continue;
        const std::string id = (std::filesystem::path(path.pathBase()).parent_path() / *written)
                                   .lexically_normal()
                                   .generic_string();
        if (id.size() <= directory.size() || !id.starts_with(directory) ||
            id.find('/', directory.size()) != std::string::npos || id == recipePath)
            continue;
        Fact<std::string> imported{"./" + id.substr(directory.size()), arguments[0]->range};
        if (m_context.isApplied()) {
            imported.in =
                "imported in " + m_context.moduleId() + ":" +
                std::to_string(m_context.lineIn(m_context.moduleId(), arguments[0]->range.begin));
            imported.range = SourceRange{};
        }
        found.push_back(std::move(imported));
    }
    return found;
}

void ImportReader::readUnpinnedImports(const Node& root)
{
    for (const Node* apply : m_walk.applies()) {
        if (calleeName(*apply) != "import")
            continue;
        const Node* argument = callArguments(*apply).front();
        const bool seen = !m_facts.unpinnedImports.empty() &&
                          m_facts.unpinnedImports.back().range == argument->range;
        if (argument && !seen && argument->kind == NodeKind::SearchPath &&
            (argument->text == "nixpkgs" || argument->text.starts_with("nixpkgs/")) &&
            !neverEvaluated(root, *apply))
            m_facts.unpinnedImports.push_back(
                {"<" + std::string(argument->text) + ">", argument->range});
    }
}

// Nix is lazy: `{ pkgs ? import <nixpkgs> { } }:` or `let host = import <nixpkgs> { };`
// whose name the file never mentions again is never evaluated (and flox's callPackage
// passes `pkgs` anyway). True when any `let` binding or formal around the import is unused.
bool ImportReader::neverEvaluated(const Node& root, const Node& import) const
{
    const Node* parent = nullptr;
    for (const Node* node = &root; node && node != &import;) {
        std::string_view name;
        if (node->kind == NodeKind::Formal) {
            name = node->text;
        } else if (node->kind == NodeKind::Binding && parent &&
                   (parent->kind == NodeKind::Let || parent->kind == NodeKind::LegacyLet)) {
            const Node* path = node->bindingPath();
            if (path && path->children.size() == 1 && path->children[0]->kind == NodeKind::AttrName)
                name = path->children[0]->text;
        }
        if (!name.empty() && unused(name, node->range))
            return true;
        const Node* next = nullptr;
        for (const Node* child : node->children)
            if (child && within(child, import.range)) {
                next = child;
                break;
            }
        parent = node;
        node = next;
    }
    return false;
}

// No identifier outside `definition` reads `name` (a shadowing binding counts as a use,
// which only keeps a warning).
bool ImportReader::unused(std::string_view name, SourceRange definition) const
{
    const auto& identifiers = m_walk.identifiers();
    return std::none_of(identifiers.begin(), identifiers.end(), [&](const Node* id) {
        return id->text == name && !within(definition, id->range);
    });
}

} // namespace rg
