#include "facts/recipewalk.h"

#include "facts/syntaxqueries.h"

namespace rg {

using nix::Node;
using nix::NodeKind;

namespace {

std::string joinPath(const std::string& prefix, std::string_view segment)
{
    if (prefix.empty())
        return std::string(segment);
    std::string path = prefix;
    path += '.';
    path += segment;
    return path;
}

std::string staticPath(const Node& attrPath)
{
    std::string path;
    for (const Node* segment : attrPath.children) {
        if (!path.empty())
            path += '.';
        if (segment->kind == NodeKind::AttrName)
            path += segment->text;
        else if (auto literal = nix::literalString(*segment))
            path += *literal;
        else
            path += '?';
    }
    return path;
}

// Calls whose argument set belongs to the enclosing attribute (`passthru =
// lib.optionalAttrs c { … }` still declares passthru fields).
bool isTransparentCall(std::string_view callee)
{
    return callee == "optionalAttrs" || callee == "recursiveUpdate" || callee == "mkMerge";
}

} // namespace

RecipeWalk::RecipeWalk(const nix::SyntaxTree& tree) : m_tree(tree)
{
    // Sized for a typical recipe (~5 KB) so the walk rarely reallocates.
    m_bindings.reserve(128);
    m_applies.reserve(64);
    m_selects.reserve(128);
    m_identifiers.reserve(256);
    m_strings.reserve(128);
}

void RecipeWalk::addBinding(std::string path, const Node* value, const Node* key,
                            const Node* source)
{
    m_bindings.push_back({std::move(path), {}, value, key, source});
    m_bindings.back().last = std::string(lastSegment(m_bindings.back().path));
}

void RecipeWalk::visitBindings(const Node& owner, const std::string& prefix)
{
    for (const Node* child : owner.bindings()) {
        if (child->kind == NodeKind::Binding) {
            const Node* key = child->bindingPath();
            const Node* value = child->bindingValue();
            if (!key || !value)
                continue;
            const std::string path = joinPath(prefix, staticPath(*key));
            addBinding(path, value, key, value);
            // Dynamic segments still get their values visited.
            for (const Node* segment : key->children)
                if (segment->kind != NodeKind::AttrName)
                    visit(*segment, std::string());
            visit(*value, path);
        } else if (child->kind == NodeKind::Inherit) {
            visitInherit(*child, prefix);
        }
    }
}

void RecipeWalk::visitInherit(const Node& inherit, const std::string& prefix)
{
    const Node* source = inherit.inheritSource();
    if (source)
        visit(*source, std::string());
    for (const Node* name : inherit.inheritedNames()) {
        std::string_view text = name->text;
        std::string literal;
        if (name->kind != NodeKind::AttrName) {
            auto decoded = nix::literalString(*name);
            if (!decoded)
                continue;
            literal = *decoded;
            text = literal;
        }
        addBinding(joinPath(prefix, text), nullptr, name, name);
        if (!source)
            m_identifiers.push_back(name);
    }
}

void RecipeWalk::visitLambda(const Node& lambda, const std::string& prefix)
{
    if (!lambda.text.empty())
        if (auto at = nameRange(lambda.text))
            m_arguments.push_back(*at);
    if (const Node* formals = lambda.lambdaFormals())
        for (const Node* formal : formals->formals()) {
            m_formals.push_back(formal);
            const Node* def = formal->formalDefault();
            if (!def) {
                const uint32_t begin = formal->range.begin;
                m_arguments.push_back({begin, static_cast<uint32_t>(begin + formal->text.size())});
                continue;
            }
            // `{ gpuArchSM ? "9.0" }:` states a value as much as a binding does.
            addBinding(std::string(formal->text), def, formal, def);
            visit(*def, std::string());
        }
    if (const Node* body = lambda.lambdaBody())
        visit(*body, prefix);
}

// The range of a name that `text` views in the source (a lambda's argument), as the
// evaluator's binding steps give it.
std::optional<nix::SourceRange> RecipeWalk::nameRange(std::string_view text) const
{
    const std::string_view source = m_tree.source();
    if (text.data() < source.data() || text.data() + text.size() > source.data() + source.size())
        return std::nullopt;
    const auto begin = static_cast<uint32_t>(text.data() - source.data());
    return nix::SourceRange{begin, static_cast<uint32_t>(begin + text.size())};
}

void RecipeWalk::visit(const Node& node, const std::string& prefix)
{
    switch (node.kind) {
    case NodeKind::Let:
        visitBindings(node, std::string());
        if (const Node* body = node.letBody())
            visit(*body, prefix);
        return;
    case NodeKind::LegacyLet:
        visitBindings(node, std::string());
        return;
    case NodeKind::AttrSet:
        visitBindings(node, prefix);
        return;
    case NodeKind::Lambda:
        visitLambda(node, prefix);
        return;
    case NodeKind::With:
        m_withs.push_back(&node);
        if (const Node* expr = node.withScope())
            visit(*expr, std::string());
        if (const Node* body = node.withBody())
            visit(*body, prefix);
        return;
    case NodeKind::Binary:
        if (node.op == nix::BinaryOp::Update) {
            for (const Node* child : node.children)
                visit(*child, prefix);
            return;
        }
        break;
    case NodeKind::If:
        if (node.condition())
            visit(*node.condition(), std::string());
        for (const Node* branch : {node.thenBranch(), node.elseBranch()})
            if (branch)
                visit(*branch, prefix);
        return;
    case NodeKind::Assert:
        if (node.condition())
            visit(*node.condition(), std::string());
        if (node.assertBody())
            visit(*node.assertBody(), prefix);
        return;
    case NodeKind::Apply:
        m_applies.push_back(&node);
        if (node.function())
            visit(*node.function(), std::string());
        if (const Node* argument = node.argument())
            visit(*argument, isTransparentCall(calleeName(node)) ? prefix : std::string());
        return;
    case NodeKind::Select:
        m_selects.push_back(&node);
        break;
    case NodeKind::Identifier:
        m_identifiers.push_back(&node);
        return;
    case NodeKind::String:
    case NodeKind::IndentedString:
        m_strings.push_back(&node);
        break;
    default:
        break;
    }
    for (const Node* child : node.children)
        if (child)
            visit(*child, std::string());
}

} // namespace rg
