#include "changes/overridemerge.h"

#include "nix/syntaxtree.h"

#include <map>

namespace rg {

namespace {

using nix::Node;
using nix::NodeKind;

// The attribute set passed to `….override`, directly or as the body of `old: { … }`.
const Node* overrideSet(const Node& root)
{
    const Node* found = nullptr;
    int count = 0;
    nix::forEachNode(root, [&](const Node& node) {
        if (node.kind != NodeKind::Apply || !node.function() ||
            node.function()->kind != NodeKind::Select || !node.function()->attrPath())
            return true;
        const auto segments = node.function()->attrPath()->segments();
        if (segments.empty() || segments.back()->kind != NodeKind::AttrName ||
            segments.back()->text != "override")
            return true;
        const Node* argument = node.argument();
        if (argument && argument->kind == NodeKind::Lambda)
            argument = argument->lambdaBody();
        if (argument && argument->kind == NodeKind::AttrSet) {
            found = argument;
            ++count;
        }
        return true;
    });
    return count == 1 ? found : nullptr;
}

// Bindings of a set by their (single) name, with their source text.
std::map<std::string, const Node*> bindingsOf(const Node& set)
{
    std::map<std::string, const Node*> out;
    for (const Node* binding : set.bindings()) {
        const Node* path = binding->kind == NodeKind::Binding ? binding->bindingPath() : nullptr;
        if (path && path->segments().size() == 1 &&
            path->segments().front()->kind == NodeKind::AttrName)
            out.emplace(std::string(path->segments().front()->text), binding);
    }
    return out;
}

} // namespace

std::optional<std::string> OverrideMerge::merge(const std::string& ours, const std::string& theirs)
{
    const nix::SyntaxTree mine = nix::SyntaxTree::parse(ours);
    const nix::SyntaxTree canonical = nix::SyntaxTree::parse(theirs);
    if (!mine.root() || !canonical.root())
        return std::nullopt;
    const Node* ourSet = overrideSet(*mine.root());
    const Node* theirSet = overrideSet(*canonical.root());
    if (!ourSet || !theirSet || ourSet->bindings().empty())
        return std::nullopt;
    const auto have = bindingsOf(*ourSet);
    // New arguments go after the recipe's last one, on lines of their own indented like it.
    const Node* last = ourSet->bindings().back();
    const size_t lineStart = ours.rfind('\n', last->range.begin) + 1;
    const std::string indent = ours.substr(lineStart, last->range.begin - lineStart);
    if (indent.find_first_not_of(" \t") != std::string::npos)
        return std::nullopt; // not one binding per line: no layout to follow
    // A binding's range may or may not take in its `;`.
    const size_t at =
        ours[last->range.end - 1] == ';' ? last->range.end - 1 : ours.find(';', last->range.end);
    if (at == std::string::npos)
        return std::nullopt;
    std::string added;
    for (const auto& [name, binding] : bindingsOf(*theirSet))
        if (!have.count(name)) {
            std::string text(canonical.text(binding->range));
            if (!text.ends_with(';'))
                text += ';';
            added += "\n" + indent + text;
        }
    if (added.empty())
        return std::nullopt;
    return ours.substr(0, at + 1) + added + ours.substr(at + 1);
}

} // namespace rg
