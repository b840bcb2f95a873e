#include "facts/factcontext.h"

#include "facts/syntaxqueries.h"

#include <algorithm>

namespace rg {

using nix::Node;

FactContext::FactContext(const nix::SyntaxTree& tree, RecipeFacts& facts,
                         nix::ModuleLoader* modules, int depth)
    : m_tree(tree), m_facts(facts), m_modules(modules), m_depth(depth), m_walk(tree)
{}

FactContext::FactContext(const nix::SyntaxTree& tree, RecipeFacts& facts,
                         nix::ModuleLoader* modules, int depth, nix::Evaluator& shared,
                         std::string moduleId, std::vector<nix::Value> appliedTo)
    : m_tree(tree), m_facts(facts), m_modules(modules), m_depth(depth), m_walk(tree),
      m_shared(&shared), m_moduleId(std::move(moduleId)), m_appliedTo(std::move(appliedTo))
{}

FactContext::~FactContext() = default;

bool FactContext::inOverlay(const Node* node) const
{
    if (!node)
        return false;
    return std::any_of(m_overlays.begin(), m_overlays.end(), [&](nix::SourceRange overlay) {
        return overlay.contains(node->range.begin);
    });
}

nix::Evaluator& FactContext::evaluator() const
{
    if (m_shared)
        return *m_shared;
    if (!m_evaluator)
        m_evaluator = std::make_unique<nix::Evaluator>(m_tree, m_facts.path, m_modules);
    return *m_evaluator;
}

nix::Value FactContext::valueOf(const Node* node) const
{
    if (node && !m_appliedTo.empty())
        return evaluator().evaluateApplied(m_moduleId, m_appliedTo, *node);
    return node ? evaluator().evaluate(*node) : nix::Value();
}

std::vector<nix::Value> FactContext::valuesOf(const std::vector<const Node*>& call) const
{
    std::vector<nix::Value> values;
    for (size_t i = 1; i < call.size(); ++i)
        values.push_back(valueOf(call[i]));
    return values;
}

std::optional<SourcedText> FactContext::textOf(const nix::Value& value, const Node& at) const
{
    SourcedText result;
    const nix::Origin origin = value.origin();
    switch (value.kind()) {
    case nix::Value::Kind::String:
    case nix::Value::Kind::Path:
        result.text =
            value.kind() == nix::Value::Kind::String ? *value.asString() : *value.asPath();
        for (const nix::StringPiece& piece : value.pieces())
            if (inThisFile(piece.file))
                result.pieces.push_back(piece);
        break;
    case nix::Value::Kind::Int:
    case nix::Value::Kind::Float:
        if (!inThisFile(origin))
            return std::nullopt;
        result.text = std::string(m_tree.text(origin.range));
        result.pieces.push_back({0, result.text.size(), origin.file, origin.range.begin});
        break;
    default:
        return std::nullopt;
    }
    result.range = inThisFile(origin) ? origin.range : at.range;
    result.writtenIn = writtenIn(value);
    return result;
}

// A value's literal, or the first piece of it that lies in a module (a string the evaluator
// built from a module's list).
std::string FactContext::writtenIn(const nix::Value& value) const
{
    nix::Origin origin = value.origin();
    if (origin.file.empty() || inThisFile(origin))
        for (const nix::StringPiece& piece : value.pieces())
            if (!inThisFile(piece.file)) {
                origin = {piece.file, {piece.source, piece.source}};
                break;
            }
    if (origin.file.empty() || inThisFile(origin) || !m_modules)
        return {};
    const int line = lineIn(std::string(origin.file), origin.range.begin);
    return line ? std::string(origin.file) + ":" + std::to_string(line) : std::string();
}

int FactContext::lineIn(const std::string& file, uint32_t offset) const
{
    const auto text = m_modules ? m_modules->text(file) : std::nullopt;
    return text ? static_cast<int>(nix::LineIndex(*text).position(offset).line) : 0;
}

std::optional<TextItems> FactContext::itemsOf(const nix::Value& value, const Node& at,
                                              int depth) const
{
    if (depth > 8)
        return std::nullopt;
    if (value.kind() == nix::Value::Kind::List) {
        TextItems items;
        for (size_t i = 0; i < value.size(); ++i) {
            const nix::Value element = value.element(i).value_or(nix::Value());
            if (auto text = textOf(element, at))
                items.push_back(std::move(text));
            else if (auto inner = itemsOf(element, at, depth + 1))
                items.insert(items.end(), inner->begin(), inner->end());
            else
                items.push_back(std::nullopt);
        }
        return items;
    }
    if (!value.isUnknown())
        return std::nullopt;
    if (auto fallback = optionalList(value))
        return itemsOf(*fallback, at, depth + 1);
    const std::vector<nix::Value> parts = value.parts();
    if (parts.empty())
        return std::nullopt;
    TextItems items;
    for (const nix::Value& part : parts) {
        auto inner = itemsOf(part, at, depth + 1);
        if (!inner)
            return std::nullopt;
        items.insert(items.end(), inner->begin(), inner->end());
    }
    return items;
}

// A fact is a value or absent, never an expression printed as an element.
std::optional<Fact<std::vector<std::string>>> FactContext::listAt(const Node* node) const
{
    if (!node)
        return std::nullopt;
    const nix::Value value = valueOf(node);
    auto items = itemsOf(value, *node);
    if (!items)
        return std::nullopt;
    Fact<std::vector<std::string>> fact;
    fact.range = inThisFile(value.origin()) ? value.origin().range : node->range;
    for (const auto& item : *items) {
        if (!item)
            return std::nullopt;
        fact.value.push_back(item->text);
    }
    return fact;
}

std::vector<const BindingRecord*> FactContext::bindingsOf(const nix::Value& value) const
{
    std::vector<const BindingRecord*> found;
    for (const nix::BindingStep& step : value.bindingChain()) {
        if (!inThisFile(step.file))
            continue;
        for (const BindingRecord& binding : m_walk.bindings())
            if (binding.value && binding.key->range.begin == step.key.begin)
                found.push_back(&binding);
    }
    return found;
}

const BindingRecord* FactContext::bindingAround(nix::SourceRange range) const
{
    const BindingRecord* best = nullptr;
    for (const BindingRecord& binding : m_walk.bindings()) {
        if (!binding.value || !within(binding.value, range))
            continue;
        if (!best || binding.value->range.length() < best->value->range.length())
            best = &binding;
    }
    return best;
}

} // namespace rg
