#include "nix/evaluatorimpl.h"

namespace rg::nix {

std::optional<std::string> Evaluator::Impl::attrName(const Node* segment, const Env* env)
{
    if (!segment)
        return std::nullopt;
    if (segment->kind == NodeKind::AttrName)
        return std::string(segment->text);
    if (auto literal = literalString(*segment))
        return literal;
    return eval(segment, env).asString();
}

void Evaluator::Impl::collect(Node::Children children, const Env* valueEnv, const Env* inheritEnv,
                              Builder& builder)
{
    const uint32_t file = valueEnv->file;
    for (const Node* child : children) {
        if (child->kind == NodeKind::Binding) {
            const Node* path = child->bindingPath();
            const Node* value = child->bindingValue();
            if (!path || !value)
                continue;
            Builder* current = &builder;
            const auto segments = path->segments();
            for (size_t i = 0; i < segments.size(); ++i) {
                auto name = attrName(segments[i], valueEnv);
                if (!name) {
                    current->unknownNames = true;
                    break;
                }
                auto [it, inserted] = current->attributes.try_emplace(*name);
                Pending& pending = it->second;
                if (inserted) {
                    pending.step = {intern(*name), fileId(file), segments[i]->range};
                    pending.range = segments[i]->range;
                }
                if (i + 1 == segments.size()) {
                    if (!pending.thunk && !pending.nested)
                        pending.thunk = thunkFor(value, valueEnv);
                    break;
                }
                if (pending.thunk)
                    break; // `a = …; a.b = …;`, which Nix rejects unless … is a set
                if (!pending.nested)
                    pending.nested = std::make_unique<Builder>();
                current = pending.nested.get();
            }
        } else if (child->kind == NodeKind::Inherit) {
            const Node* source = child->inheritSource();
            Thunk* sourceThunk = source ? thunkFor(source, valueEnv) : nullptr;
            for (const Node* nameNode : child->inheritedNames()) {
                auto name = attrName(nameNode, valueEnv);
                if (!name)
                    continue;
                auto [it, inserted] = builder.attributes.try_emplace(*name);
                if (!inserted)
                    continue;
                const std::string_view interned = intern(*name);
                it->second.step = {interned, fileId(file), nameNode->range};
                it->second.range = nameNode->range;
                it->second.thunk = sourceThunk ? attrThunk(sourceThunk, interned, nullptr, false)
                                               : inheritThunk(nameNode, interned, inheritEnv);
            }
        }
    }
}

std::vector<Slot> Evaluator::Impl::finish(Builder& builder, uint32_t file, uint32_t level)
{
    std::vector<Slot> slots;
    slots.reserve(builder.attributes.size());
    for (auto& [name, pending] : builder.attributes) {
        Thunk* thunk = pending.thunk;
        if (!thunk && level >= limits.depth) {
            thunk = ready(unknown(Cause::Limit, "attribute path nested too deeply"));
        } else if (!thunk) {
            std::optional<Value> rest;
            if (pending.nested->unknownNames)
                rest = unknown(Cause::Dependent, "an attribute name is not known");
            thunk = ready(
                set(finish(*pending.nested, file, level + 1), rest, originAt(file, pending.range)));
        }
        slots.push_back({intern(name), thunk, pending.step});
    }
    return slots;
}

Value Evaluator::Impl::plainSet(const Node& node, const Env* env)
{
    if (node.bindings().size() > limits.elements)
        return tooLarge("attribute set");
    Builder builder;
    collect(node.bindings(), env, env, builder);
    std::optional<Value> rest;
    if (builder.unknownNames)
        rest = unknown(Cause::Dependent, "an attribute name is not known");
    return set(finish(builder, env->file), rest, originAt(env->file, node.range));
}

Value Evaluator::Impl::recSet(const Node& node, const Env* outer)
{
    if (node.bindings().size() > limits.elements)
        return tooLarge("attribute set");
    const Env* env = recEnv(node, outer);
    std::optional<Value> rest;
    if (env->unknownNames)
        rest = unknown(Cause::Dependent, "an attribute name is not known");
    return set(env->slots, rest, originAt(outer->file, node.range));
}

Value Evaluator::Impl::selectUnknown(const Value& base, std::string_view name)
{
    const ValueData& d = data(base);
    if (!d.hasPath) // an attribute of it is as unknown, for the same reason
        return wrap(&newUnknown(d.cause, d.reason, {}, d.root), base.m_chain);
    std::string path = d.text + "." + std::string(name);
    const int native = nativeFor(path);
    if (native >= 0)
        return rechain(nativeFunction(native, path), base.m_chain);
    return wrap(&newUnknown(d.cause, d.reason, std::move(path)), base.m_chain);
}

Evaluator::Impl::Selected Evaluator::Impl::selectAttr(const Value& value, std::string_view name)
{
    if (value.isUnknown())
        return {selectUnknown(value, name), Selected::Uncertain};
    if (value.kind() == ValueKind::AttrSet) {
        const ValueData& d = data(value);
        if (const Slot* slot = findSlot(d.attributes, name))
            return {forceSlot(*slot, value), Selected::Found};
        if (d.rest)
            return {selectUnknown(*d.rest, name), Selected::Uncertain};
    }
    return {Value(), Selected::Missing};
}

Value Evaluator::Impl::evalSelect(const Node& node, const Env* env)
{
    Value current = eval(node.subject(), env);
    const Node* fallback = node.orDefault();
    bool uncertain = false;
    if (const Node* path = node.attrPath())
        for (const Node* segment : path->segments()) {
            auto name = attrName(segment, env);
            if (!name) {
                current = unknown(Cause::Dependent, "the attribute name is not known");
                uncertain = true;
                break;
            }
            Selected selected = selectAttr(current, *name);
            if (selected.status == Selected::Missing) {
                if (fallback)
                    return eval(fallback, env);
                if (current.kind() != ValueKind::AttrSet)
                    return error("selects '" + *name + "' from " + kindName(current.kind()));
                return error("attribute '" + *name + "' missing");
            }
            uncertain = uncertain || selected.status == Selected::Uncertain;
            current = selected.value;
        }
    if (uncertain && fallback && current.isUnknown())
        return withFallback(current, eval(fallback, env));
    return current;
}

Value Evaluator::Impl::evalHasAttr(const Node& node, const Env* env)
{
    Value current = eval(node.subject(), env);
    const uint32_t file = env->file;
    if (const Node* path = node.attrPath())
        for (const Node* segment : path->segments()) {
            auto name = attrName(segment, env);
            if (!name)
                return unknown(Cause::Dependent, "the attribute name is not known");
            if (current.isUnknown())
                return dependent(current, "whether it has '" + *name + "'");
            if (current.kind() != ValueKind::AttrSet)
                return boolean(false, file, node.range);
            const ValueData& d = data(current);
            const Slot* slot = findSlot(d.attributes, *name);
            if (!slot && d.rest)
                return dependent(*d.rest, "whether it has '" + *name + "'");
            if (!slot)
                return boolean(false, file, node.range);
            if (segment != path->segments().back())
                current = forceSlot(*slot, current);
        }
    return boolean(true, file, node.range);
}

Value Evaluator::Impl::update(const Value& a, const Value& b, Origin origin)
{
    const ValueData& x = data(a);
    const ValueData& y = data(b);
    if (b.isUnknown()) {
        if (x.kind == ValueKind::AttrSet && x.attributes.empty() && !x.rest)
            return b;
        return dependent(b, "updated with an unknown set");
    }
    if (y.kind != ValueKind::AttrSet || (a.isKnown() && x.kind != ValueKind::AttrSet))
        return error(std::string("// of ") + kindName(x.kind) + " and " + kindName(y.kind));
    if (a.isUnknown()) {
        // Only the right side's attributes are known; the others are the left side's.
        return set(y.attributes, y.rest ? dependent(b, "either side of //") : a, origin);
    }
    if (x.attributes.size() + y.attributes.size() > limits.elements)
        return tooLarge("attribute set");
    std::vector<Slot> merged;
    merged.reserve(x.attributes.size() + y.attributes.size());
    size_t i = 0, j = 0;
    while (i < x.attributes.size() || j < y.attributes.size()) {
        if (j == y.attributes.size() ||
            (i < x.attributes.size() && x.attributes[i].name < y.attributes[j].name)) {
            merged.push_back(x.attributes[i++]);
        } else {
            if (i < x.attributes.size() && x.attributes[i].name == y.attributes[j].name)
                ++i;
            merged.push_back(y.attributes[j++]);
        }
    }
    std::optional<Value> rest = x.rest;
    if (y.rest)
        rest = x.attributes.empty() && !x.rest ? *y.rest : dependent(b, "either side of //");
    return set(std::move(merged), rest, origin);
}

} // namespace rg::nix
