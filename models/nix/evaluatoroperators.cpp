#include "nix/evaluatorimpl.h"

namespace rg::nix {

void Evaluator::Impl::Concat::add(const Value& part)
{
    const ValueData& d = impl.data(part);
    if (part.isKnown()) {
        if (kind == PartsKind::String && d.kind == ValueKind::String) {
            addKnownText(d);
            return;
        }
        flush();
        parts.push_back(part);
        return;
    }
    ++unknowns;
    if (!first)
        first = part;
    flush();
    if (d.partsKind == kind && parts.size() + d.parts.size() <= kMaxParts) {
        for (const Value& inner : d.parts)
            if (kind == PartsKind::String && inner.kind() == ValueKind::String)
                addKnownText(impl.data(inner));
            else {
                flush();
                parts.push_back(inner);
            }
        return;
    }
    parts.push_back(part);
}

void Evaluator::Impl::Concat::flush()
{
    if (known.text.empty())
        return;
    parts.push_back(impl.string(std::move(known), origin));
    known = {};
}

Value Evaluator::Impl::Concat::finish()
{
    if (!unknowns)
        return impl.string(std::move(known), origin);
    flush();
    ValueData& d = impl.newDependent(*first, "depends on");
    d.partsKind = kind;
    d.parts = std::move(parts);
    return impl.wrap(d);
}

Value Evaluator::Impl::evalBinary(const Node& node, const Env* env)
{
    const uint32_t file = env->file;
    const Origin origin = originAt(file, node.range);
    const BinaryOp op = node.op;
    if (op == BinaryOp::And || op == BinaryOp::Or || op == BinaryOp::Implies) {
        const Value left = eval(node.left(), env);
        const auto l = left.asBool();
        if (left.isKnown() && !l)
            return error(std::string("a Boolean operator on ") + kindName(left.kind()));
        // Decided by the left side alone, as Nix short-circuits.
        if (l && op == BinaryOp::And && !*l)
            return boolean(false, file, node.range);
        if (l && op == BinaryOp::Or && *l)
            return boolean(true, file, node.range);
        if (l && op == BinaryOp::Implies && !*l)
            return boolean(true, file, node.range);
        const Value right = eval(node.right(), env);
        const auto r = right.asBool();
        if (right.isKnown() && !r)
            return error(std::string("a Boolean operator on ") + kindName(right.kind()));
        if (l && r)
            return boolean(op == BinaryOp::Implies ? (!*l || *r) : *r, file, node.range);
        // The left side is unknown: the right one may still decide.
        if (r && op == BinaryOp::And && !*r)
            return boolean(false, file, node.range);
        if (r && op != BinaryOp::And && *r)
            return boolean(true, file, node.range);
        return dependent(left.isUnknown() ? left : right, "a Boolean operator on an unknown");
    }
    const Value left = eval(node.left(), env);
    const Value right = eval(node.right(), env);
    switch (op) {
    case BinaryOp::Equal:
    case BinaryOp::NotEqual: {
        const auto same = equal(left, right, 0);
        if (!same)
            return dependent(left.isUnknown() ? left : right, "compares an unknown");
        return boolean(*same == (op == BinaryOp::Equal), file, node.range);
    }
    case BinaryOp::Less:
    case BinaryOp::LessEqual:
    case BinaryOp::Greater:
    case BinaryOp::GreaterEqual:
        return compare(op, left, right, file, node.range);
    case BinaryOp::Update:
        return update(left, right, origin);
    case BinaryOp::Concat:
        return concatLists(left, right, origin);
    case BinaryOp::Add:
        return add(left, right, origin);
    case BinaryOp::Subtract:
    case BinaryOp::Multiply:
    case BinaryOp::Divide:
        return arithmetic(op, left, right, origin);
    default:
        return unknown(Cause::Unsupported, "unknown operator");
    }
}

std::optional<bool> Evaluator::Impl::equal(const Value& a, const Value& b, int level)
{
    if (a.isUnknown() || b.isUnknown() || level > kMaxCompareDepth)
        return std::nullopt;
    const ValueData& x = data(a);
    const ValueData& y = data(b);
    const bool numbers = (x.kind == ValueKind::Int || x.kind == ValueKind::Float) &&
                         (y.kind == ValueKind::Int || y.kind == ValueKind::Float);
    if (numbers && x.kind != y.kind)
        return (x.kind == ValueKind::Int ? double(x.integer) : x.number) ==
               (y.kind == ValueKind::Int ? double(y.integer) : y.number);
    if (x.kind != y.kind)
        return false;
    switch (x.kind) {
    case ValueKind::Null:
        return true;
    case ValueKind::Bool:
        return x.boolean == y.boolean;
    case ValueKind::Int:
        return x.integer == y.integer;
    case ValueKind::Float:
        return x.number == y.number;
    case ValueKind::String:
        return x.text == y.text;
    case ValueKind::Path:
        if (x.text == y.text && x.file == y.file)
            return true;
        return x.text.front() == '/' && y.text.front() == '/' ? std::optional(false) : std::nullopt;
    case ValueKind::List: {
        if (x.elements.size() != y.elements.size())
            return false;
        bool uncertain = false;
        for (size_t i = 0; i < x.elements.size(); ++i) {
            auto same = equal(elementValue(a, i), elementValue(b, i), level + 1);
            if (same == false)
                return false;
            uncertain = uncertain || !same;
        }
        return uncertain ? std::nullopt : std::optional(true);
    }
    case ValueKind::AttrSet: {
        if (x.rest || y.rest)
            return std::nullopt;
        if (x.attributes.size() != y.attributes.size())
            return false;
        for (size_t i = 0; i < x.attributes.size(); ++i)
            if (x.attributes[i].name != y.attributes[i].name)
                return false;
        bool uncertain = false;
        for (size_t i = 0; i < x.attributes.size(); ++i) {
            if (!spend())
                return std::nullopt;
            auto same =
                equal(force(x.attributes[i].thunk), force(y.attributes[i].thunk), level + 1);
            if (same == false)
                return false;
            uncertain = uncertain || !same;
        }
        return uncertain ? std::nullopt : std::optional(true);
    }
    case ValueKind::Function:
        return false;
    case ValueKind::Unknown:
        break;
    }
    return std::nullopt;
}

Value Evaluator::Impl::compare(BinaryOp op, const Value& a, const Value& b, uint32_t file,
                               SourceRange range)
{
    if (a.isUnknown() || b.isUnknown())
        return dependent(a.isUnknown() ? a : b, "compares an unknown");
    const ValueData& x = data(a);
    const ValueData& y = data(b);
    int order = 0;
    const auto isNumber = [](ValueKind kind) {
        return kind == ValueKind::Int || kind == ValueKind::Float;
    };
    if (x.kind == ValueKind::Int && y.kind == ValueKind::Int) {
        order = x.integer < y.integer ? -1 : x.integer > y.integer ? 1 : 0;
    } else if (isNumber(x.kind) && isNumber(y.kind)) {
        const double l = x.kind == ValueKind::Int ? double(x.integer) : x.number;
        const double r = y.kind == ValueKind::Int ? double(y.integer) : y.number;
        order = l < r ? -1 : l > r ? 1 : 0;
    } else if ((x.kind == ValueKind::String && y.kind == ValueKind::String) ||
               (x.kind == ValueKind::Path && y.kind == ValueKind::Path && x.file == y.file)) {
        const int c = x.text.compare(y.text);
        order = c < 0 ? -1 : c > 0 ? 1 : 0;
    } else if (x.kind == ValueKind::List && y.kind == ValueKind::List) {
        return unknown(Cause::Unsupported, "comparison of lists");
    } else {
        return error(std::string("compares ") + kindName(x.kind) + " with " + kindName(y.kind));
    }
    bool result = false;
    switch (op) {
    case BinaryOp::Less:
        result = order < 0;
        break;
    case BinaryOp::LessEqual:
        result = order <= 0;
        break;
    case BinaryOp::Greater:
        result = order > 0;
        break;
    default:
        result = order >= 0;
        break;
    }
    return boolean(result, file, range);
}

Value Evaluator::Impl::arithmetic(BinaryOp op, const Value& a, const Value& b, Origin origin)
{
    if (a.isUnknown() || b.isUnknown())
        return dependent(a.isUnknown() ? a : b, "arithmetic on an unknown");
    const ValueData& x = data(a);
    const ValueData& y = data(b);
    const auto isNumber = [](const ValueData& d) {
        return d.kind == ValueKind::Int || d.kind == ValueKind::Float;
    };
    if (!isNumber(x) || !isNumber(y))
        return error(std::string("arithmetic on ") + kindName(x.kind) + " and " + kindName(y.kind));
    if (x.kind == ValueKind::Int && y.kind == ValueKind::Int) {
        int64_t result = 0;
        bool overflow = false;
        switch (op) {
        case BinaryOp::Add:
            overflow = __builtin_add_overflow(x.integer, y.integer, &result);
            break;
        case BinaryOp::Subtract:
            overflow = __builtin_sub_overflow(x.integer, y.integer, &result);
            break;
        case BinaryOp::Multiply:
            overflow = __builtin_mul_overflow(x.integer, y.integer, &result);
            break;
        default:
            if (y.integer == 0)
                return error("division by zero");
            overflow = x.integer == INT64_MIN && y.integer == -1;
            if (!overflow)
                result = x.integer / y.integer;
            break;
        }
        return overflow ? error("integer overflow") : integer(result, origin);
    }
    const double l = x.kind == ValueKind::Int ? double(x.integer) : x.number;
    const double r = y.kind == ValueKind::Int ? double(y.integer) : y.number;
    switch (op) {
    case BinaryOp::Add:
        return floating(l + r, origin);
    case BinaryOp::Subtract:
        return floating(l - r, origin);
    case BinaryOp::Multiply:
        return floating(l * r, origin);
    default:
        if (r == 0)
            return error("division by zero");
        return floating(l / r, origin);
    }
}

Value Evaluator::Impl::add(const Value& a, const Value& b, Origin origin)
{
    const ValueData& x = data(a);
    const ValueData& y = data(b);
    const auto isNumber = [](ValueKind kind) {
        return kind == ValueKind::Int || kind == ValueKind::Float;
    };
    if (isNumber(x.kind) && isNumber(y.kind))
        return arithmetic(BinaryOp::Add, a, b, origin);
    if (x.kind == ValueKind::Path && y.kind == ValueKind::String) {
        if (x.text.size() + y.text.size() > limits.stringBytes)
            return tooLarge("path");
        ValueData& d = fresh(ValueKind::Path);
        d.text = normalisePath(x.text + y.text);
        d.file = x.file;
        d.origin = origin;
        return wrap(d);
    }
    const bool stringy = x.kind == ValueKind::String || y.kind == ValueKind::String ||
                         x.partsKind == PartsKind::String || y.partsKind == PartsKind::String;
    if (a.isUnknown() || b.isUnknown()) {
        if (!stringy || (a.isKnown() && x.kind != ValueKind::String) ||
            (b.isKnown() && y.kind != ValueKind::String))
            return dependent(a.isUnknown() ? a : b, "adds an unknown");
        Concat out(*this, PartsKind::String, origin);
        out.add(a);
        out.add(b);
        return out.tooLarge() ? tooLarge("string") : out.finish();
    }
    if (x.kind == ValueKind::String && y.kind == ValueKind::String) {
        Text text;
        text.append(x.text, x.pieces);
        text.append(y.text, y.pieces);
        return string(std::move(text), origin);
    }
    if (x.kind == ValueKind::String && y.kind == ValueKind::Path)
        return unknown(Cause::Unsupported, "a path added to a string is copied to the store");
    return error(std::string("adds ") + kindName(x.kind) + " and " + kindName(y.kind));
}

Value Evaluator::Impl::concatLists(const Value& a, const Value& b, Origin origin)
{
    const ValueData& x = data(a);
    const ValueData& y = data(b);
    if (x.kind == ValueKind::List && y.kind == ValueKind::List) {
        if (x.elements.size() + y.elements.size() > limits.elements)
            return tooLarge("list");
        std::vector<Thunk*> elements = x.elements;
        elements.insert(elements.end(), y.elements.begin(), y.elements.end());
        return list(std::move(elements), origin);
    }
    if ((a.isKnown() && x.kind != ValueKind::List) || (b.isKnown() && y.kind != ValueKind::List))
        return error(std::string("++ of ") + kindName(x.kind) + " and " + kindName(y.kind));
    Concat out(*this, PartsKind::List, origin);
    out.add(a);
    out.add(b);
    return out.finish();
}

} // namespace rg::nix
