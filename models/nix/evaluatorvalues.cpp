#include "nix/evaluatorimpl.h"

namespace rg::nix {

namespace detail {

const char* kindName(ValueKind kind)
{
    switch (kind) {
    case ValueKind::Unknown:
        return "an unknown value";
    case ValueKind::Null:
        return "null";
    case ValueKind::Bool:
        return "a Boolean";
    case ValueKind::Int:
        return "an integer";
    case ValueKind::Float:
        return "a float";
    case ValueKind::String:
        return "a string";
    case ValueKind::Path:
        return "a path";
    case ValueKind::List:
        return "a list";
    case ValueKind::AttrSet:
        return "a set";
    case ValueKind::Function:
        return "a function";
    }
    return "a value";
}

} // namespace detail

namespace {

// Longest binding chain kept (outer bindings beyond it are dropped).
constexpr uint32_t kMaxChain = 32;
// Symbolic paths longer than this are dropped (the value stays unknown, without a path), and
// reasons are cut: both would otherwise grow with the depth of hostile recursion.
constexpr size_t kMaxPath = 512;
constexpr size_t kMaxReason = 300;

} // namespace

ValueData& Evaluator::Impl::newUnknown(Cause cause, std::string reason, std::string path,
                                       std::string root)
{
    ValueData& d = fresh(ValueKind::Unknown);
    d.cause = cause;
    if (reason.size() > kMaxReason)
        reason = reason.substr(0, kMaxReason) + "…";
    d.reason = std::move(reason);
    d.root = std::move(root);
    if (path.size() <= kMaxPath) {
        d.hasPath = !path.empty();
        d.text = std::move(path);
    }
    return d;
}

Value Evaluator::Impl::unknown(Cause cause, std::string reason, std::string path)
{
    return wrap(newUnknown(cause, std::move(reason), std::move(path)));
}

Value Evaluator::Impl::external(std::string_view path)
{
    if (const int native = nativeFor(path); native >= 0)
        return nativeFunction(native, path);
    return unknown(Cause::External, "defined outside the evaluated files", std::string(path));
}

Value Evaluator::Impl::exhaustion()
{
    if (!exhaustedValue)
        exhaustedValue = unknown(Cause::Limit, "evaluation budget exhausted");
    return *exhaustedValue;
}

Value Evaluator::Impl::tooLarge(const char* what)
{
    return unknown(Cause::Limit, std::string(what) + " too large");
}

Value Evaluator::Impl::error(std::string what)
{
    return unknown(Cause::Error, std::move(what));
}

std::string Evaluator::Impl::rootOf(const Value& on)
{
    const ValueData& d = data(on);
    return d.hasPath ? d.text : !d.root.empty() ? d.root : d.reason;
}

ValueData& Evaluator::Impl::newDependent(const Value& on, std::string what, std::string path)
{
    Cause cause = data(on).cause;
    if (cause == Cause::External || cause == Cause::None)
        cause = Cause::Dependent;
    std::string root = rootOf(on);
    std::string reason = what + " (" + root + ")";
    return newUnknown(cause, std::move(reason), std::move(path), std::move(root));
}

Value Evaluator::Impl::dependent(const Value& on, std::string what)
{
    return wrap(newDependent(on, std::move(what)));
}

Value Evaluator::Impl::unknownCall(std::string_view path, const Value& on,
                                   std::optional<Value> fallback)
{
    ValueData& d = newDependent(on, "depends on", callPath(path));
    d.fallback = std::move(fallback);
    return wrap(d);
}

Value Evaluator::Impl::boolean(bool value, uint32_t file, SourceRange range)
{
    ValueData& d = fresh(ValueKind::Bool);
    d.boolean = value;
    d.origin = originAt(file, range);
    return wrap(d);
}

Value Evaluator::Impl::integer(int64_t value, Origin origin)
{
    ValueData& d = fresh(ValueKind::Int);
    d.integer = value;
    d.origin = origin;
    return wrap(d);
}

Value Evaluator::Impl::floating(double value, Origin origin)
{
    ValueData& d = fresh(ValueKind::Float);
    d.number = value;
    d.origin = origin;
    return wrap(d);
}

Value Evaluator::Impl::string(Text text, Origin origin)
{
    if (text.text.size() > limits.stringBytes)
        return tooLarge("string");
    ValueData& d = fresh(ValueKind::String);
    d.text = std::move(text.text);
    d.pieces = std::move(text.pieces);
    // Past the cap the text maps nowhere, as computed text does: splitting a string in
    // a loop of `+` or replaceStrings cannot make each value hold a piece per byte.
    if (d.pieces.size() > limits.pieces)
        d.pieces.resize(limits.pieces);
    d.origin = origin;
    return wrap(d);
}

Value Evaluator::Impl::list(std::vector<Thunk*> elements, Origin origin)
{
    if (elements.size() > limits.elements)
        return tooLarge("list");
    ValueData& d = fresh(ValueKind::List);
    d.elements = std::move(elements);
    d.origin = origin;
    return wrap(d);
}

Value Evaluator::Impl::set(std::vector<Slot> attributes, std::optional<Value> rest, Origin origin)
{
    if (attributes.size() > limits.elements)
        return tooLarge("attribute set");
    ValueData& d = fresh(ValueKind::AttrSet);
    d.attributes = std::move(attributes);
    d.rest = std::move(rest);
    d.origin = origin;
    return wrap(d);
}

Value Evaluator::Impl::nativeFunction(int native, std::string_view path)
{
    ValueData& d = fresh(ValueKind::Function);
    d.native = native;
    d.text = std::string(path);
    return wrap(d);
}

Value Evaluator::Impl::withFallback(const Value& value, const Value& fallback)
{
    ValueData& d = copyOf(data(value));
    d.fallback = fallback;
    return wrap(&d, value.m_chain);
}

Value Evaluator::Impl::nullValue(Origin origin)
{
    ValueData& d = fresh(ValueKind::Null);
    d.origin = origin;
    return wrap(d);
}

const ChainLink* Evaluator::Impl::extend(const ChainLink* chain, const BindingStep& step)
{
    if (step.name.empty() || (chain && chain->length >= kMaxChain))
        return chain;
    return &links.emplace_back(step, chain, chain ? chain->length + 1 : 1);
}

const ChainLink* Evaluator::Impl::join(const ChainLink* inner, const ChainLink* outer)
{
    std::vector<const ChainLink*> around;
    for (const ChainLink* link = outer; link; link = link->inner)
        around.push_back(link);
    for (auto it = around.rbegin(); it != around.rend(); ++it)
        inner = extend(inner, (*it)->step);
    return inner;
}

std::string_view Evaluator::Impl::intern(std::string_view name)
{
    return *names.emplace(name).first;
}

uint32_t Evaluator::Impl::fileOf(const Origin& origin) const
{
    auto it = fileIndex.find(std::string(origin.file));
    return it == fileIndex.end() || it->second == UINT32_MAX ? 0 : it->second;
}

Value Evaluator::Impl::elementValue(const Value& list, size_t index)
{
    if (!spend())
        return exhaustion();
    const Value value = force(data(list).elements[index]);
    return rechain(value, join(value.m_chain, list.m_chain));
}

std::vector<Value> Evaluator::Impl::forceElements(const Value& list)
{
    std::vector<Value> out;
    out.reserve(data(list).elements.size());
    for (size_t i = 0; i < data(list).elements.size(); ++i)
        out.push_back(elementValue(list, i));
    return out;
}

Value Evaluator::Impl::substring(const Value& text, size_t from, size_t length)
{
    const ValueData& d = data(text);
    Text out;
    out.append(d.text, d.pieces, from, length);
    return rechain(string(std::move(out), d.origin), text.m_chain);
}

Value Evaluator::Impl::nameString(const Slot& slot, Origin fallback)
{
    Text text;
    text.text = std::string(slot.name);
    Origin origin = fallback;
    if (!slot.step.name.empty()) {
        origin = {slot.step.file, slot.step.key};
        auto file = fileIndex.find(std::string(slot.step.file));
        if (file != fileIndex.end() && file->second != UINT32_MAX &&
            files[file->second].tree->text(slot.step.key) == text.text)
            text.addPiece({0, text.text.size(), slot.step.file, slot.step.key.begin});
    }
    return string(std::move(text), origin);
}

BindingStep Evaluator::Impl::nameStep(const Value& name)
{
    const ValueData& d = data(name);
    if (d.pieces.size() != 1 || d.pieces[0].length != d.text.size() || d.text.empty())
        return {};
    const StringPiece& piece = d.pieces[0];
    return {intern(d.text),
            piece.file,
            {piece.source, static_cast<uint32_t>(piece.source + piece.length)}};
}

Value Evaluator::Impl::entriesToSet(std::vector<Slot> slots, std::optional<Value> rest,
                                    Origin origin)
{
    std::stable_sort(slots.begin(), slots.end(),
                     [](const Slot& a, const Slot& b) { return a.name < b.name; });
    slots.erase(std::unique(slots.begin(), slots.end(),
                            [](const Slot& a, const Slot& b) { return a.name == b.name; }),
                slots.end());
    return set(std::move(slots), std::move(rest), origin);
}

size_t Evaluator::Impl::footprint(const Value& value)
{
    const ValueData& d = data(value);
    return d.text.size() + d.pieces.size() * sizeof(StringPiece) +
           d.elements.size() * sizeof(Thunk*) + d.attributes.size() * sizeof(Slot) +
           d.parts.size() * sizeof(Value);
}

bool Evaluator::Impl::fails(const Value& value)
{
    return value.cause() == Cause::Error || value.cause() == Cause::Cycle;
}

bool Evaluator::Impl::stops(const Value& value)
{
    return fails(value) || value.cause() == Cause::Limit;
}

} // namespace rg::nix
