#include "nix/evaluatorimpl.h"
#include "nix/moduleloader.h"

namespace rg::nix {

Value Evaluator::Impl::evaluateApplied(const std::string& id, std::span<const Value> arguments,
                                       const Node& node)
{
    auto known = fileIndex.find(id);
    uint32_t index = known == fileIndex.end() ? UINT32_MAX : known->second;
    if (known == fileIndex.end() && loader) {
        const SyntaxTree* tree = loader->load(id);
        index = tree && tree->root() ? addFile(id, tree) : UINT32_MAX;
        if (index == UINT32_MAX)
            fileIndex.emplace(id, UINT32_MAX);
    }
    if (index == UINT32_MAX)
        return unknown(Cause::Unavailable, "cannot read " + id);
    const Node* root = files[index].tree->root();
    if (root->kind != NodeKind::Lambda)
        return unknown(Cause::Unsupported, id + " is not a function");
    // One application per module for the evaluator's lifetime: memoised environments
    // and thunks stay valid for it.
    auto [it, inserted] = appliedRoots.try_emplace(index);
    if (inserted) {
        for (const Value& argument : arguments)
            it->second.push_back(ready(argument));
    } else if (!std::ranges::equal(it->second, arguments, [](Thunk* had, const Value& now) {
                   return had->value.m_data == now.m_data;
               })) {
        return unknown(Cause::Unsupported, id + " is already applied to other arguments");
    }
    return evaluateIn(index, node);
}

std::vector<const Node*> Evaluator::Impl::ancestorsOf(uint32_t file, const Node& node) const
{
    std::vector<const Node*> path;
    if (const Node* root = files[file].tree->root()) {
        path.reserve(root->depth);
        descend(*root, node, path);
    }
    return path;
}

bool Evaluator::Impl::descend(const Node& from, const Node& target, std::vector<const Node*>& path)
{
    path.push_back(&from);
    if (&from == &target)
        return true;
    const auto children = from.children;
    auto it = std::upper_bound(
        children.begin(), children.end(), target.range.begin,
        [](uint32_t at, const Node* child) { return child && at < child->range.begin; });
    while (it != children.begin()) {
        const Node* child = *--it;
        if (!child)
            continue;
        if (target.range.end <= child->range.end && descend(*child, target, path))
            return true;
        if (it != children.begin() && *(it - 1) && (*(it - 1))->range.begin != child->range.begin)
            break;
    }
    path.pop_back();
    return false;
}

const Env* Evaluator::Impl::staticEnv(uint32_t file, std::span<const Node* const> ancestors)
{
    const Env* env = &files[file].base;
    // The root lambda and the lambdas its body starts with take the applied arguments.
    const auto applied = appliedRoots.find(file);
    size_t curried = 0;
    for (size_t i = 0; i + 1 < ancestors.size(); ++i) {
        const Node& scope = *ancestors[i];
        const Node* child = ancestors[i + 1];
        switch (scope.kind) {
        case NodeKind::Let:
            env = letEnv(scope, env);
            break;
        case NodeKind::LegacyLet:
            env = recEnv(scope, env);
            break;
        case NodeKind::AttrSet:
            if (scope.isRec())
                env = recEnv(scope, env);
            break;
        case NodeKind::Lambda: {
            Thunk* argument = nullptr;
            if (applied != appliedRoots.end() && curried == i && i < applied->second.size()) {
                argument = applied->second[i];
                if (child == scope.lambdaBody())
                    ++curried;
            }
            env = staticLambdaEnv(scope, env, argument);
            break;
        }
        case NodeKind::With:
            if (child == scope.withBody())
                env = withEnv(scope, env);
            break;
        default:
            break;
        }
    }
    return env;
}

Value Evaluator::Impl::evaluateIn(uint32_t file, const Node& node)
{
    const std::vector<const Node*> ancestors = ancestorsOf(file, node);
    if (ancestors.empty())
        return unknown(Cause::Unsupported, "not a node of the evaluated tree");
    const Node* parent = ancestors.size() > 1 ? ancestors[ancestors.size() - 2] : nullptr;
    switch (node.kind) {
    case NodeKind::Binding:
        if (const Node* value = node.bindingValue())
            return evaluateIn(file, *value);
        return error("binding without value");
    case NodeKind::AttrPath:
    case NodeKind::Formals:
    case NodeKind::Inherit:
        return unknown(Cause::Unsupported, "not an expression");
    case NodeKind::Formal: {
        const Env* env = staticEnv(file, ancestors);
        if (const Slot* slot = findSlot(env->slots, node.text))
            return force(slot->thunk);
        return external(node.text);
    }
    default:
        break;
    }
    if (parent && parent->kind == NodeKind::Inherit && &node != parent->inheritSource())
        return inherited(file, ancestors);
    if (node.kind == NodeKind::StringText)
        return literalRun(node, parent && parent->kind == NodeKind::IndentedString, file);
    if (node.kind == NodeKind::AttrName) {
        Text text;
        text.text = std::string(node.text);
        text.addPiece({0, node.text.size(), fileId(file), node.range.begin});
        return string(std::move(text), originAt(file, node.range));
    }
    return force(thunkFor(&node, staticEnv(file, ancestors)));
}

Value Evaluator::Impl::inherited(uint32_t file, std::span<const Node* const> ancestors)
{
    const Node& nameNode = *ancestors.back();
    const Node* owner = ancestors.size() > 2 ? ancestors[ancestors.size() - 3] : nullptr;
    auto name = literalString(nameNode);
    if (nameNode.kind == NodeKind::AttrName)
        name = std::string(nameNode.text);
    else if (nameNode.kind == NodeKind::Interpolation && nameNode.interpolated())
        name = literalString(*nameNode.interpolated());
    if (!owner || !name)
        return unknown(Cause::Unsupported, "not an inherited name");
    const Env* outer = staticEnv(file, ancestors.first(ancestors.size() - 2));
    if (owner->kind == NodeKind::Let || owner->kind == NodeKind::LegacyLet ||
        (owner->kind == NodeKind::AttrSet && owner->isRec())) {
        const Env* env =
            owner->kind == NodeKind::Let ? letEnv(*owner, outer) : recEnv(*owner, outer);
        if (const Slot* slot = findSlot(env->slots, *name))
            return force(slot->thunk);
        return unknown(Cause::Unsupported, "not an inherited name");
    }
    const Value set = force(thunkFor(owner, outer));
    if (set.kind() == ValueKind::AttrSet)
        if (const Slot* slot = findSlot(data(set).attributes, *name))
            return force(slot->thunk);
    return set.isUnknown() ? set : unknown(Cause::Unsupported, "not an inherited name");
}

} // namespace rg::nix
