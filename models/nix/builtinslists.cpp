#include "nix/evaluatorimpl.h"

namespace rg::nix {

std::optional<Value> Evaluator::Impl::unlessList(const Value& items, std::string_view path)
{
    if (items.isUnknown())
        return unknownCall(path, items);
    if (items.kind() != ValueKind::List)
        return error(std::string(path) + ": " + kindName(items.kind()) + " is not a list");
    return std::nullopt;
}

Value Evaluator::Impl::concatenated(const std::vector<Value>& lists, Origin origin,
                                    std::string_view path)
{
    size_t total = 0;
    bool known = true;
    for (const Value& items : lists) {
        if (stops(items))
            return items;
        if (items.isUnknown()) {
            known = false;
            continue;
        }
        if (items.kind() != ValueKind::List)
            return error(std::string(path) + ": " + kindName(items.kind()) + " is not a list");
        total += data(items).elements.size();
    }
    if (total > limits.elements)
        return tooLarge("list");
    std::vector<Thunk*> run;
    Concat out(*this, PartsKind::List, origin);
    for (const Value& items : lists) {
        if (items.isKnown()) {
            run.insert(run.end(), data(items).elements.begin(), data(items).elements.end());
            continue;
        }
        if (!run.empty())
            out.add(list(std::move(run), origin));
        run.clear();
        out.add(items);
    }
    if (known)
        return list(std::move(run), origin);
    if (!run.empty())
        out.add(list(std::move(run), origin));
    return out.finish();
}

Value Evaluator::Impl::flatten(const Value& items, Origin origin, std::string_view path, int level)
{
    if (items.isUnknown())
        return unknownCall(path, items);
    if (items.kind() != ValueKind::List) {
        Thunk* single = ready(items);
        return list({single}, origin);
    }
    if (level > kMaxCompareDepth)
        return unknown(Cause::Limit, std::string(path) + " nested too deeply");
    std::vector<Value> lists;
    std::vector<Thunk*> run;
    for (size_t i = 0; i < data(items).elements.size(); ++i) {
        const Value item = elementValue(items, i);
        if (stops(item))
            return item;
        if (item.kind() != ValueKind::List && item.isKnown()) {
            run.push_back(data(items).elements[i]);
            continue;
        }
        lists.push_back(list(std::move(run), origin));
        run.clear();
        lists.push_back(flatten(item, origin, path, level + 1));
        if (stops(lists.back()))
            return lists.back();
    }
    lists.push_back(list(std::move(run), origin));
    return concatenated(lists, origin, path);
}

Value Evaluator::Impl::nativeOptional(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value condition = force(args[0]);
    const auto enabled = condition.asBool();
    if (condition.isKnown() && !enabled)
        return error(std::string(path) + ": the condition is " + kindName(condition.kind()));
    if (enabled == false) {
        if (native == Native::Optionals || native == Native::Optional)
            return list({}, origin);
        if (native == Native::OptionalAttrs)
            return set({}, std::nullopt, origin);
        return string({}, origin);
    }
    const Value result = native == Native::Optional ? list({args[1]}, origin) : force(args[1]);
    if (enabled)
        return result;
    return unknownCall(path, condition, result);
}

Value Evaluator::Impl::nativeMap(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value function = force(args[0]);
    const Value items = force(args[1]);
    if (items.isUnknown())
        return unknownCall(path, items);
    if (items.kind() != ValueKind::List)
        return error(std::string(path) + ": not a list");
    // A thunk per element: charged, as a loop that evaluates nothing can repeat it.
    if (!spend(data(items).elements.size()))
        return exhaustion();
    std::vector<Thunk*> elements;
    const uint32_t file = fileOf(origin);
    for (Thunk* element : data(items).elements)
        elements.push_back(applyThunk(function, element, file, origin.range));
    return list(std::move(elements), origin);
}

Value Evaluator::Impl::listAccess(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value items = force(args[0]);
    if (auto early = unlessList(items, path))
        return *early;
    const size_t size = data(items).elements.size();
    switch (native) {
    case Native::ElemAt: {
        const Value index = force(args[1]);
        if (index.isUnknown())
            return unknownCall(path, index);
        if (!index.asInt())
            return error(std::string(path) + ": the index is " + kindName(index.kind()));
        const int64_t i = *index.asInt();
        if (i < 0 || uint64_t(i) >= size)
            return error(std::string(path) + ": index " + std::to_string(i) +
                         " out of bounds of a list of " + std::to_string(size));
        return elementValue(items, size_t(i));
    }
    case Native::Length:
        return integer(int64_t(size), origin);
    default:
        break;
    }
    if (size == 0)
        return error(std::string(path) + ": the list is empty");
    if (native == Native::Tail) {
        const auto& elements = data(items).elements;
        return list({elements.begin() + 1, elements.end()}, origin);
    }
    return elementValue(items, native == Native::Head ? 0 : size - 1);
}

Value Evaluator::Impl::fold(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value items = force(args[2]);
    if (auto early = unlessList(items, path))
        return *early;
    const Value op = force(args[0]);
    const bool strict = native == Native::FoldlStrict;
    if (strict && op.isKnown() && op.kind() != ValueKind::Function &&
        op.kind() != ValueKind::AttrSet)
        return error(std::string(path) + ": " + kindName(op.kind()) + " is not a function");
    const uint32_t file = fileOf(origin);
    const std::vector<Thunk*>& elements = data(items).elements;
    Thunk* accumulator = args[1];
    for (size_t n = 0; n < elements.size(); ++n) {
        if (!spend())
            return exhaustion();
        Value result;
        if (native == Native::Foldr) {
            Thunk* element = elements[elements.size() - 1 - n];
            result = apply(apply(op, element, file, origin.range), accumulator, file, origin.range);
        } else {
            result =
                apply(apply(op, accumulator, file, origin.range), elements[n], file, origin.range);
        }
        if (strict && stops(result))
            return result;
        // An accumulator that grows (`acc ++ [ x ]`, `acc // { … }`) is copied at each
        // step: charged by its size, so the copies stay bounded.
        if (!spend(footprint(result) / 128))
            return exhaustion();
        accumulator = ready(result);
    }
    return force(accumulator);
}

Value Evaluator::Impl::concatMap(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value items = force(args[1]);
    if (auto early = unlessList(items, path))
        return *early;
    const Value function = force(args[0]);
    const uint32_t file = fileOf(origin);
    std::vector<Value> lists;
    lists.reserve(data(items).elements.size());
    for (Thunk* element : data(items).elements) {
        if (!spend())
            return exhaustion();
        lists.push_back(apply(function, element, file, origin.range));
        if (stops(lists.back()))
            return lists.back();
    }
    return concatenated(lists, origin, path);
}

Value Evaluator::Impl::filter(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value items = force(args[1]);
    if (auto early = unlessList(items, path))
        return *early;
    const Value predicate = force(args[0]);
    const uint32_t file = fileOf(origin);
    std::vector<Value> lists;
    std::vector<Thunk*> run;
    for (Thunk* element : data(items).elements) {
        if (!spend())
            return exhaustion();
        const Value keep = apply(predicate, element, file, origin.range);
        if (stops(keep))
            return keep;
        if (keep.isKnown() && !keep.asBool())
            return error(std::string(path) + ": the predicate gives " + kindName(keep.kind()));
        if (keep.asBool() == true) {
            run.push_back(element);
        } else if (keep.isUnknown()) {
            lists.push_back(list(std::move(run), origin));
            run.clear();
            lists.push_back(unknownCall(path, keep, list({element}, origin)));
        }
    }
    lists.push_back(list(std::move(run), origin));
    return concatenated(lists, origin, path);
}

Value Evaluator::Impl::elem(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    const Value items = force(args[1]);
    if (auto early = unlessList(items, path))
        return *early;
    const Value x = force(args[0]);
    const uint32_t file = fileOf(origin);
    std::optional<Value> uncertain;
    for (size_t i = 0; i < data(items).elements.size(); ++i) {
        const Value item = elementValue(items, i);
        if (stops(item))
            return item;
        const auto same = equal(x, item, 0);
        if (same == true)
            return boolean(true, file, origin.range);
        if (!same && !uncertain)
            uncertain = x.isUnknown() ? x : item;
        if (exhausted)
            return exhaustion();
    }
    if (uncertain)
        return unknownCall(path, *uncertain);
    return boolean(false, file, origin.range);
}

Value Evaluator::Impl::nativeFlatten(const NativeCall& call)
{
    const auto& [native, args, origin, path] = call;
    return flatten(force(args[0]), origin, path, 0);
}

} // namespace rg::nix
