#include "facts/pinfetcherreader.h"

#include "nix/jsonreader.h"

#include <algorithm>
#include <vector>

namespace rg {

using nix::Node;
using nix::NodeKind;

namespace {

// The nodes from the root down to the innermost one containing `offset`.
std::vector<const Node*> ancestry(const Node* root, uint32_t offset)
{
    std::vector<const Node*> chain;
    for (const Node* node = root; node;) {
        chain.push_back(node);
        const Node* next = nullptr;
        for (const Node* child : node->children)
            if (child && child->range.contains(offset)) {
                next = child;
                break;
            }
        node = next;
    }
    return chain;
}

const Node* literalBinding(const Node& set, std::string_view name)
{
    for (const Node* binding : set.bindings()) {
        if (binding->kind != NodeKind::Binding)
            continue;
        const auto path = nix::attrPathString(*binding->bindingPath());
        const Node* value = binding->bindingValue();
        if (path && *path == name && value && value->kind == NodeKind::String &&
            nix::literalString(*value))
            return value;
    }
    return nullptr;
}

std::string calleeOf(const Node* function)
{
    while (function && function->kind == NodeKind::Apply)
        function = function->function();
    if (!function)
        return {};
    if (function->kind == NodeKind::Identifier)
        return std::string(function->text);
    if (function->kind == NodeKind::Select)
        if (const auto path = nix::attrPathString(*function->attrPath()))
            return path->substr(path->rfind('.') == std::string::npos ? 0 : path->rfind('.') + 1);
    return {};
}

// What the call `apply` of a fetcher to its attribute set `set` says.
FetcherFact fetcherOf(const nix::SyntaxTree& tree, const Node& apply, const Node& set,
                      std::string callee)
{
    FetcherFact fetcher;
    fetcher.callee = std::move(callee);
    fetcher.range = apply.range;
    fetcher.text = tree.text(apply.range);
    const auto inner = [](const Node& value) {
        return nix::SourceRange{value.range.begin + 1, value.range.end - 1};
    };
    for (std::string_view name : PinFetcherReader::hashAttributes)
        if (const Node* value = literalBinding(set, name)) {
            fetcher.hashAttribute = name;
            fetcher.hashRange = inner(*value);
            fetcher.hash = tree.text(fetcher.hashRange);
            break;
        }
    if (const Node* url = literalBinding(set, "url")) {
        fetcher.urlRange = inner(*url);
        fetcher.url = tree.text(fetcher.urlRange);
    }
    for (auto [name, out] : {std::pair{"owner", &fetcher.owner}, {"repo", &fetcher.repo}})
        if (const Node* value = literalBinding(set, name))
            *out = *nix::literalString(*value);
    return fetcher;
}

} // namespace

bool PinFetcherReader::isHashAttribute(std::string_view name)
{
    return std::ranges::find(hashAttributes, name) != hashAttributes.end();
}

std::optional<FetcherFact> PinFetcherReader::around(const nix::SyntaxTree& tree,
                                                    nix::SourceRange revision)
{
    const auto chain = ancestry(tree.root(), revision.begin);
    for (size_t i = chain.size(); i-- > 1;) {
        const Node* set = chain[i];
        const Node* apply = chain[i - 1];
        if (set->kind != NodeKind::AttrSet || apply->kind != NodeKind::Apply ||
            apply->argument() != set)
            continue;
        std::string callee = calleeOf(apply->function());
        if (!callee.starts_with("fetch"))
            return std::nullopt;
        return fetcherOf(tree, *apply, *set, std::move(callee));
    }
    return std::nullopt;
}

std::optional<FetcherFact> PinFetcherReader::inJson(std::string_view bytes,
                                                    nix::SourceRange revision)
{
    nix::JsonReader reader(64);
    if (!reader.read(bytes))
        return std::nullopt;
    const auto& nodes = reader.nodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].kind != nix::JsonReader::Node::Kind::Object)
            continue;
        FetcherFact fetcher;
        fetcher.callee = "fetchTarball";
        bool holdsPin = false;
        for (size_t j : reader.members(i)) {
            const auto& member = nodes[j];
            if (member.kind != nix::JsonReader::Node::Kind::String || member.escaped)
                continue;
            const nix::SourceRange inner{member.begin + 1, member.end - 1};
            holdsPin = holdsPin || inner == revision;
            if (isHashAttribute(member.key)) {
                fetcher.hashAttribute = member.key;
                fetcher.hash = member.text;
                fetcher.hashRange = inner;
            } else if (member.key == "url") {
                fetcher.url = member.text;
                fetcher.urlRange = inner;
            } else if (member.key == "owner") {
                fetcher.owner = member.text;
            } else if (member.key == "repo") {
                fetcher.repo = member.text;
            }
        }
        // A URL member quotes the revision in its own bytes, which a bump rewrites as another
        // mention; the new archive's URL comes from owner and repo then.
        if (!fetcher.owner.empty() && !fetcher.repo.empty())
            fetcher.url.clear();
        if (holdsPin)
            return fetcher;
    }
    return std::nullopt;
}

bool PinFetcherReader::stillIn(const FetcherFact& fetcher, std::string_view bytes)
{
    return !fetcher.text.empty() && fetcher.range.end <= bytes.size() &&
           bytes.substr(fetcher.range.begin, fetcher.range.length()) == fetcher.text;
}

} // namespace rg
