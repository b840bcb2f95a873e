#include "nix/evaluatorimpl.h"

namespace rg::nix {

std::optional<Value> Evaluator::Impl::unlessSet(const Value& attrs, std::string_view path)
{
    if (attrs.isUnknown())
        return unknownCall(path, attrs);
    if (attrs.kind() != ValueKind::AttrSet)
        return error(std::string(path) + ": " + kindName(attrs.kind()) + " is not a set");
    return std::nullopt;
}

Value Evaluator::Impl::mergeSets(const std::vector<Thunk*>& args, const Value& lhs,
                                 const Value& rhs, Origin origin, std::string_view path)
{
    for (const Value* side : {&lhs, &rhs})
        if (fails(*side))
            return *side;
    const ValueData& x = data(lhs);
    const ValueData& y = data(rhs);
    if (rhs.isUnknown()) {
        if (lhs.isKnown() && x.attributes.empty() && !x.rest)
            return rhs;
        return unknownCall(path, rhs);
    }
    const uint32_t file = fileOf(origin);
    const Value merger = nativeFunction(static_cast<int>(Native::RecursiveMerge), path);
    const auto merge = [&](Thunk* left, Thunk* right) {
        return callThunk(merger, left, right, file, origin.range);
    };
    // An attribute the other side may have, in its unknown rest.
    const auto other = [&](Thunk* side, std::string_view name) {
        return attrThunk(side, name, nullptr, false);
    };
    std::vector<Slot> merged;
    if (lhs.isUnknown()) {
        merged.reserve(y.attributes.size());
        for (const Slot& slot : y.attributes) {
            if (!spend())
                return exhaustion();
            merged.push_back({slot.name, merge(other(args[0], slot.name), slot.thunk), slot.step});
        }
        std::optional<Value> rest = lhs;
        if (y.rest)
            rest = dependent(rhs, "either side of " + std::string(path));
        return set(std::move(merged), rest, origin);
    }
    if (x.attributes.size() + y.attributes.size() > limits.elements)
        return tooLarge("attribute set");
    merged.reserve(x.attributes.size() + y.attributes.size());
    size_t i = 0, j = 0;
    while (i < x.attributes.size() || j < y.attributes.size()) {
        if (!spend())
            return exhaustion();
        const bool left = j == y.attributes.size() ||
                          (i < x.attributes.size() && x.attributes[i].name < y.attributes[j].name);
        const bool right = i == x.attributes.size() ||
                           (j < y.attributes.size() && y.attributes[j].name < x.attributes[i].name);
        if (left) {
            const Slot& slot = x.attributes[i++];
            merged.push_back(
                !y.rest ? slot
                        : Slot{slot.name, merge(slot.thunk, other(args[1], slot.name)), slot.step});
        } else if (right) {
            const Slot& slot = y.attributes[j++];
            merged.push_back(
                !x.rest ? slot
                        : Slot{slot.name, merge(other(args[0], slot.name), slot.thunk), slot.step});
        } else {
            const Slot& slot = y.attributes[j++];
            merged.push_back({slot.name, merge(x.attributes[i++].thunk, slot.thunk), slot.step});
        }
    }
    std::optional<Value> rest = x.rest;
    if (y.rest)
        rest = x.attributes.empty() && !x.rest
                   ? *y.rest
                   : dependent(rhs, "either side of " + std::string(path));
    return set(std::move(merged), rest, origin);
}

Value Evaluator::Impl::listToAttrs(Thunk* argument, Origin origin, std::string_view path)
{
    const Value items = force(argument);
    if (auto early = unlessList(items, path))
        return *early;
    std::vector<Slot> slots;
    std::optional<Value> rest;
    for (size_t i = 0; i < data(items).elements.size(); ++i) {
        const Value entry = elementValue(items, i);
        if (stops(entry))
            return entry;
        if (entry.isUnknown()) {
            if (!rest)
                rest = unknownCall(path, entry);
            continue;
        }
        if (entry.kind() != ValueKind::AttrSet)
            return error(std::string(path) + ": an entry is " + kindName(entry.kind()));
        const ValueData& e = data(entry);
        const Slot* nameSlot = findSlot(e.attributes, "name");
        const Slot* valueSlot = findSlot(e.attributes, "value");
        if (!e.rest && (!nameSlot || !valueSlot))
            return error(std::string(path) + ": an entry without '" +
                         (nameSlot ? "value" : "name") + "'");
        const Value name = nameSlot ? forceSlot(*nameSlot, entry) : selectUnknown(*e.rest, "name");
        if (stops(name))
            return name;
        if (name.isUnknown()) {
            if (!rest)
                rest = unknownCall(path, name);
            continue;
        }
        if (name.kind() != ValueKind::String)
            return error(std::string(path) + ": a name is " + kindName(name.kind()));
        if (rest)
            continue; // an unknown entry before it may have its name
        Thunk* value = valueSlot
                           ? valueSlot->thunk
                           : attrThunk(data(items).elements[i], intern("value"), nullptr, false);
        slots.push_back({intern(data(name).text), value, nameStep(name)});
    }
    return entriesToSet(std::move(slots), rest, origin);
}

Value Evaluator::Impl::recursiveUpdate(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value lhs = force(args[0]);
    const Value rhs = force(args[1]);
    if ((lhs.isKnown() && lhs.kind() != ValueKind::AttrSet) ||
        (rhs.isKnown() && rhs.kind() != ValueKind::AttrSet))
        return error(std::string(path) + " of " + kindName(lhs.kind()) + " and " +
                     kindName(rhs.kind()));
    return mergeSets(args, lhs, rhs, origin, path);
}

Value Evaluator::Impl::recursiveMerge(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value lhs = force(args[0]);
    if (lhs.isKnown() && lhs.kind() != ValueKind::AttrSet)
        return force(args[1]);
    if (fails(lhs))
        return lhs;
    const Value rhs = force(args[1]);
    if (rhs.isKnown() && rhs.kind() != ValueKind::AttrSet)
        return rhs;
    return mergeSets(args, lhs, rhs, origin, path);
}

Value Evaluator::Impl::mapAttrs(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value attrs = force(args[1]);
    if (auto early = unlessSet(attrs, path))
        return *early;
    const ValueData& d = data(attrs);
    const Value function = force(args[0]);
    const uint32_t file = fileOf(origin);
    std::vector<Slot> slots;
    slots.reserve(d.attributes.size());
    for (const Slot& slot : d.attributes) {
        if (!spend())
            return exhaustion();
        Thunk* name = ready(nameString(slot, origin));
        slots.push_back(
            {slot.name, callThunk(function, name, slot.thunk, file, origin.range), slot.step});
    }
    std::optional<Value> rest;
    if (d.rest)
        rest = unknownCall(path, *d.rest);
    return set(std::move(slots), rest, origin);
}

Value Evaluator::Impl::mapAttrsPrime(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value attrs = force(args[1]);
    if (auto early = unlessSet(attrs, path))
        return *early;
    if (data(attrs).rest)
        return unknownCall(path, *data(attrs).rest);
    const Value function = force(args[0]);
    const uint32_t file = fileOf(origin);
    std::vector<Thunk*> entries;
    for (const Slot& slot : data(attrs).attributes) {
        if (!spend())
            return exhaustion();
        entries.push_back(
            callThunk(function, ready(nameString(slot, origin)), slot.thunk, file, origin.range));
    }
    return listToAttrs(ready(list(std::move(entries), origin)), origin, path);
}

Value Evaluator::Impl::cartesianProduct(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value attrs = force(args[0]);
    if (auto early = unlessSet(attrs, path))
        return *early;
    if (data(attrs).rest)
        return unknownCall(path, *data(attrs).rest);
    std::vector<std::vector<Slot>> products{{}};
    for (const Slot& slot : data(attrs).attributes) {
        const Value items = force(slot.thunk);
        if (auto early = unlessList(items, path))
            return *early;
        const std::vector<Thunk*>& elements = data(items).elements;
        if (products.size() * elements.size() > limits.elements)
            return tooLarge("list");
        std::vector<std::vector<Slot>> next;
        next.reserve(products.size() * elements.size());
        for (const std::vector<Slot>& product : products)
            for (Thunk* element : elements) {
                if (!spend())
                    return exhaustion();
                next.push_back(product);
                next.back().push_back({slot.name, element, slot.step});
            }
        products = std::move(next);
    }
    std::vector<Thunk*> sets;
    sets.reserve(products.size());
    for (std::vector<Slot>& product : products)
        sets.push_back(ready(set(std::move(product), std::nullopt, origin)));
    return list(std::move(sets), origin);
}

Value Evaluator::Impl::attrNamesOrValues(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value attrs = force(args[0]);
    if (auto early = unlessSet(attrs, path))
        return *early;
    const ValueData& d = data(attrs);
    if (d.rest)
        return unknownCall(path, *d.rest);
    std::vector<Thunk*> elements;
    elements.reserve(d.attributes.size());
    for (const Slot& slot : d.attributes) {
        if (!spend())
            return exhaustion();
        elements.push_back(native == Native::AttrNames ? ready(nameString(slot, origin))
                                                       : slot.thunk);
    }
    return list(std::move(elements), origin);
}

Value Evaluator::Impl::genAttrs(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value names = force(args[0]);
    if (auto early = unlessList(names, path))
        return *early;
    const Value function = force(args[1]);
    const uint32_t file = fileOf(origin);
    std::vector<Slot> slots;
    std::optional<Value> rest;
    for (size_t i = 0; i < data(names).elements.size(); ++i) {
        const Value name = elementValue(names, i);
        if (stops(name))
            return name;
        if (name.isUnknown()) {
            if (!rest)
                rest = unknownCall(path, name);
            continue;
        }
        if (name.kind() != ValueKind::String)
            return error(std::string(path) + ": a name is " + kindName(name.kind()));
        slots.push_back({intern(data(name).text),
                         applyThunk(function, data(names).elements[i], file, origin.range),
                         nameStep(name)});
    }
    return entriesToSet(std::move(slots), rest, origin);
}

Value Evaluator::Impl::getOrHasAttr(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value name = force(args[0]);
    if (name.isUnknown())
        return unknownCall(path, name);
    if (name.kind() != ValueKind::String)
        return error(std::string(path) + ": the name is " + kindName(name.kind()));
    const Value attrs = force(args[1]);
    if (attrs.isKnown() && attrs.kind() != ValueKind::AttrSet)
        return error(std::string(path) + ": " + kindName(attrs.kind()) + " is not a set");
    const std::string& text = data(name).text;
    if (native == Native::GetAttr) {
        const Selected selected = selectAttr(attrs, text);
        if (selected.status == Selected::Missing)
            return error(std::string(path) + ": attribute '" + text + "' missing");
        return selected.value;
    }
    if (attrs.isUnknown())
        return unknownCall(path, attrs);
    const ValueData& d = data(attrs);
    if (!findSlot(d.attributes, text) && d.rest)
        return unknownCall(path, *d.rest);
    return boolean(findSlot(d.attributes, text) != nullptr, fileOf(origin), origin.range);
}

Value Evaluator::Impl::nativeListToAttrs(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    return listToAttrs(args[0], origin, path);
}

Value Evaluator::Impl::nativeNameValuePair(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    return set({{intern("name"), args[0], {}}, {intern("value"), args[1], {}}}, std::nullopt,
               origin);
}

Value Evaluator::Impl::typeTest(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value value = force(args[0]);
    if (value.isUnknown())
        return unknownCall(path, value);
    static constexpr std::pair<Native, ValueKind> tested[] = {
        {Native::IsString, ValueKind::String}, {Native::IsAttrs, ValueKind::AttrSet},
        {Native::IsList, ValueKind::List},     {Native::IsFunction, ValueKind::Function},
        {Native::IsBool, ValueKind::Bool},     {Native::IsInt, ValueKind::Int},
        {Native::IsFloat, ValueKind::Float},   {Native::IsPath, ValueKind::Path}};
    const ValueKind kind =
        std::ranges::find(tested, native, &std::pair<Native, ValueKind>::first)->second;
    if (native == Native::IsFunction && value.kind() == ValueKind::AttrSet && fromLib(path)) {
        const ValueData& d = data(value);
        if (findSlot(d.attributes, "__functor"))
            return unknown(Cause::Unsupported, std::string(path) + " of a set with __functor");
        if (d.rest)
            return unknownCall(path, *d.rest);
    }
    return boolean(value.kind() == kind, fileOf(origin), origin.range);
}

} // namespace rg::nix
