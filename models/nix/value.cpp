#include "nix/value.h"

#include "nix/evaluator.h"
#include "nix/valuedata.h"

#include <algorithm>
#include <charconv>

namespace rg::nix {

namespace {

// Longest list or set describe() spells out.
constexpr size_t kDescribeItems = 32;

std::string nixStringLiteral(std::string_view text)
{
    std::string out = "\"";
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"' || c == '\\')
            out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        if (c == '$' && i + 1 < text.size() && text[i + 1] == '{')
            out += '\\';
        out += c;
    }
    return out + '"';
}

} // namespace

Value::Kind Value::kind() const
{
    return m_data ? m_data->kind : Kind::Unknown;
}

Value::Cause Value::cause() const
{
    if (!m_data)
        return Cause::Unsupported;
    return m_data->kind == Kind::Unknown ? m_data->cause : Cause::None;
}

std::string_view Value::reason() const
{
    if (!m_data)
        return "no value";
    return isUnknown() ? std::string_view(m_data->reason) : std::string_view();
}

std::string_view Value::symbolicPath() const
{
    if (!m_data)
        return {};
    if ((m_data->kind == Kind::Unknown && m_data->hasPath) ||
        (m_data->kind == Kind::Function && m_data->native >= 0))
        return m_data->text;
    return {};
}

std::optional<Value> Value::fallback() const
{
    return m_data && isUnknown() ? m_data->fallback : std::nullopt;
}

std::vector<Value> Value::parts() const
{
    return m_data && isUnknown() ? m_data->parts : std::vector<Value>();
}

std::optional<bool> Value::asBool() const
{
    return kind() == Kind::Bool ? std::optional<bool>(m_data->boolean) : std::nullopt;
}

std::optional<int64_t> Value::asInt() const
{
    return kind() == Kind::Int ? std::optional<int64_t>(m_data->integer) : std::nullopt;
}

std::optional<double> Value::asFloat() const
{
    return kind() == Kind::Float ? std::optional<double>(m_data->number) : std::nullopt;
}

std::optional<std::string> Value::asString() const
{
    return kind() == Kind::String ? std::optional<std::string>(m_data->text) : std::nullopt;
}

std::optional<std::string> Value::asPath() const
{
    return kind() == Kind::Path ? std::optional<std::string>(m_data->text) : std::nullopt;
}

std::string_view Value::pathBase() const
{
    return kind() == Kind::Path ? m_owner->fileIdOf(m_data->file) : std::string_view();
}

std::span<const StringPiece> Value::pieces() const
{
    if (kind() != Kind::String && kind() != Kind::Path)
        return {};
    return m_data->pieces;
}

std::optional<Origin> Value::sourceOf(size_t offset, size_t length) const
{
    for (const StringPiece& piece : pieces())
        if (offset >= piece.offset && offset + length <= piece.offset + piece.length) {
            const auto begin = static_cast<uint32_t>(piece.source + (offset - piece.offset));
            return Origin{piece.file, SourceRange{begin, static_cast<uint32_t>(begin + length)}};
        }
    return std::nullopt;
}

size_t Value::size() const
{
    if (kind() == Kind::List)
        return m_data->elements.size();
    if (kind() == Kind::AttrSet)
        return m_data->attributes.size();
    return 0;
}

std::optional<Value> Value::element(size_t index) const
{
    if (kind() != Kind::List || index >= m_data->elements.size() || !m_owner)
        return std::nullopt;
    return m_owner->elementOf(*this, index);
}

std::optional<std::vector<Value>> Value::elements() const
{
    if (kind() != Kind::List || !m_owner)
        return std::nullopt;
    std::vector<Value> out;
    out.reserve(m_data->elements.size());
    for (size_t i = 0; i < m_data->elements.size(); ++i)
        out.push_back(m_owner->elementOf(*this, i));
    return out;
}

std::optional<Origin> Value::elementExpression(size_t index) const
{
    if (kind() != Kind::List || index >= m_data->elements.size() || !m_owner)
        return std::nullopt;
    return m_owner->elementExpressionOf(*this, index);
}

std::optional<std::vector<StringListItem>> Value::asStringList() const
{
    auto items = elements();
    if (!items)
        return std::nullopt;
    std::vector<StringListItem> out;
    out.reserve(items->size());
    for (Value& item : *items)
        out.push_back({item.asString(), std::move(item)});
    return out;
}

std::optional<Value> Value::attribute(std::string_view name) const
{
    if (!m_data || !m_owner || (kind() != Kind::AttrSet && kind() != Kind::Unknown))
        return std::nullopt;
    bool present = false;
    Value value = m_owner->attributeOf(*this, name, present);
    if (!present)
        return std::nullopt;
    return value;
}

std::vector<std::string_view> Value::attributeNames() const
{
    std::vector<std::string_view> names;
    if (kind() == Kind::AttrSet)
        for (const detail::Slot& slot : m_data->attributes)
            names.push_back(slot.name);
    return names;
}

bool Value::isOpen() const
{
    return kind() == Kind::AttrSet && m_data->rest.has_value();
}

Origin Value::origin() const
{
    return m_data ? m_data->origin : Origin{};
}

std::vector<BindingStep> Value::bindingChain() const
{
    std::vector<BindingStep> steps;
    for (const detail::ChainLink* link = m_chain; link; link = link->inner)
        steps.push_back(link->step);
    std::reverse(steps.begin(), steps.end());
    return steps;
}

std::string Value::describe(int depth) const
{
    switch (kind()) {
    case Kind::Unknown:
        if (!symbolicPath().empty())
            return "«" + std::string(symbolicPath()) + "»";
        return "«unknown: " + std::string(reason()) + "»";
    case Kind::Null:
        return "null";
    case Kind::Bool:
        return m_data->boolean ? "true" : "false";
    case Kind::Int:
        return std::to_string(m_data->integer);
    case Kind::Float: {
        // to_chars, unlike printf, ignores the locale a Qt application sets.
        char buffer[64];
        auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, m_data->number);
        return ec == std::errc() ? std::string(buffer, end) : "float";
    }
    case Kind::String:
        return nixStringLiteral(m_data->text);
    case Kind::Path:
        return m_data->text;
    case Kind::List: {
        if (depth <= 0)
            return m_data->elements.empty() ? "[ ]" : "[ … ]";
        std::string out = "[ ";
        for (size_t i = 0; i < m_data->elements.size(); ++i) {
            if (i == kDescribeItems) {
                out += "… ";
                break;
            }
            out += element(i)->describe(depth - 1) + " ";
        }
        return out + "]";
    }
    case Kind::AttrSet: {
        if (depth <= 0)
            return m_data->attributes.empty() && !isOpen() ? "{ }" : "{ … }";
        std::string out = "{ ";
        for (size_t i = 0; i < m_data->attributes.size(); ++i) {
            if (i == kDescribeItems) {
                out += "… ";
                break;
            }
            const std::string_view name = m_data->attributes[i].name;
            auto value = attribute(name);
            out += std::string(name) + " = " + (value ? value->describe(depth - 1) : "?") + "; ";
        }
        if (isOpen())
            out += "… // " + m_data->rest->describe(0) + " ";
        return out + "}";
    }
    case Kind::Function:
        return m_data->native >= 0 ? "«" + m_data->text + "»" : "«lambda»";
    }
    return {};
}

} // namespace rg::nix
