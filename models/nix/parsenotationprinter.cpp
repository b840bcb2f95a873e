#include "nix/parsenotationprinter.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace rg::nix {

using Kind = LoweredExpr::Kind;

ParseNotationPrinter::ParseNotationPrinter(const SymbolTable& symbols, std::string baseDirectory,
                                           std::string homeDirectory)
    : m_symbols(symbols), m_base(std::move(baseDirectory)), m_home(std::move(homeDirectory))
{}

std::string ParseNotationPrinter::print(const LoweredExpr& e)
{
    m_out.clear();
    show(e);
    return std::move(m_out);
}

// printString of Nix 2.8: every `$` is escaped, not only those before `{`.
void ParseNotationPrinter::appendString(std::string& out, std::string_view s)
{
    out += '"';
    for (char c : s) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '$':
            out += "\\$";
            break;
        default:
            out += c;
            break;
        }
    }
    out += '"';
}

// printIdentifier of Nix 2.8 (which quotes `if` but no other keyword).
std::string ParseNotationPrinter::identifier(std::string_view s)
{
    if (s.empty())
        return "\"\"";
    if (s == "if")
        return "\"if\"";
    auto isAlpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    bool plain = isAlpha(s[0]) || s[0] == '_';
    for (char c : s)
        if (!(isAlpha(c) || (c >= '0' && c <= '9') || c == '_' || c == '\'' || c == '-'))
            plain = false;
    if (plain)
        return std::string(s);
    std::string out;
    appendString(out, s);
    return out;
}

void ParseNotationPrinter::showSymbol(Symbol symbol)
{
    m_out += identifier(m_symbols.name(symbol));
}

void ParseNotationPrinter::showAttrPath(const std::pmr::vector<LoweredAttrName>& path)
{
    bool first = true;
    for (const LoweredAttrName& name : path) {
        if (!first)
            m_out += '.';
        first = false;
        if (name.symbol != LoweredAttrName::kDynamic) {
            showSymbol(name.symbol);
        } else {
            m_out += "\"${";
            show(*name.expr);
            m_out += "}\"";
        }
    }
}

// absPath + canonPath of Nix 2.8 (no symlink resolution); a trailing '/' is kept.
std::string ParseNotationPrinter::absolutePath(std::string_view path) const
{
    std::string full = path.front() == '/' ? std::string(path) : m_base + "/" + std::string(path);
    std::vector<std::string_view> parts;
    std::string_view rest = full;
    while (!rest.empty()) {
        const size_t slash = rest.find('/');
        const std::string_view part = rest.substr(0, slash);
        rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
        if (part.empty() || part == ".")
            continue;
        if (part == "..") {
            if (!parts.empty())
                parts.pop_back();
            continue;
        }
        parts.push_back(part);
    }
    std::string out;
    for (std::string_view part : parts) {
        out += '/';
        out += part;
    }
    if (out.empty())
        out = "/";
    if (path.size() > 1 && path.back() == '/')
        out += '/';
    return out;
}

void ParseNotationPrinter::show(const LoweredExpr& e)
{
    switch (e.kind) {
    case Kind::Int: {
        const long long value = std::strtoll(std::string(e.text).c_str(), nullptr, 10);
        m_out += std::to_string(value);
        return;
    }
    case Kind::Float: {
        // std::ostream << double: %g with six significant digits.
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%g",
                      std::strtod(std::string(e.text).c_str(), nullptr));
        m_out += buffer;
        return;
    }
    case Kind::String:
        showString(e.text);
        return;
    case Kind::Path:
        m_out += absolutePath(e.text);
        return;
    case Kind::HomePath:
        m_out += m_home;
        m_out += e.text.substr(1);
        return;
    case Kind::Var:
        showSymbol(e.symbol);
        return;
    case Kind::CurPos:
        m_out += "__curPos";
        return;
    case Kind::Select:
        m_out += '(';
        show(*e.a);
        m_out += ").";
        showAttrPath(e.path);
        if (e.b) {
            m_out += " or (";
            show(*e.b);
            m_out += ')';
        }
        return;
    case Kind::HasAttr:
        m_out += "((";
        show(*e.a);
        m_out += ") ? ";
        showAttrPath(e.path);
        m_out += ')';
        return;
    case Kind::Attrs: {
        if (e.flag)
            m_out += "rec ";
        m_out += "{ ";
        std::vector<const LoweredAttrDef*> sorted;
        sorted.reserve(e.attrs.size());
        for (const auto& [rank, def] : e.attrs)
            sorted.push_back(&def);
        std::sort(sorted.begin(), sorted.end(), [&](const auto* x, const auto* y) {
            return m_symbols.name(x->symbol) < m_symbols.name(y->symbol);
        });
        for (const LoweredAttrDef* def : sorted) {
            if (def->inherited) {
                m_out += "inherit ";
                showSymbol(def->symbol);
                m_out += " ; ";
            } else {
                showSymbol(def->symbol);
                m_out += " = ";
                show(*def->value);
                m_out += "; ";
            }
        }
        for (const LoweredDynamicAttr& dyn : e.dynamicAttrs) {
            m_out += "\"${";
            show(*dyn.name);
            m_out += "}\" = ";
            show(*dyn.value);
            m_out += "; ";
        }
        m_out += '}';
        return;
    }
    case Kind::List:
        m_out += "[ ";
        for (const LoweredExpr* item : e.items) {
            m_out += '(';
            show(*item);
            m_out += ") ";
        }
        m_out += ']';
        return;
    case Kind::Lambda: {
        m_out += '(';
        if (e.flag) {
            m_out += "{ ";
            bool first = true;
            for (const LoweredFormal& f : e.formals) {
                if (!first)
                    m_out += ", ";
                first = false;
                showSymbol(f.symbol);
                if (f.def) {
                    m_out += " ? ";
                    show(*f.def);
                }
            }
            if (e.ellipsis) {
                if (!first)
                    m_out += ", ";
                m_out += "...";
            }
            m_out += " }";
            if (e.symbol != LoweredAttrName::kDynamic)
                m_out += " @ ";
        }
        if (e.symbol != LoweredAttrName::kDynamic)
            showSymbol(e.symbol);
        m_out += ": ";
        show(*e.a);
        m_out += ')';
        return;
    }
    case Kind::Call:
        m_out += '(';
        show(*e.a);
        for (const LoweredExpr* arg : e.items) {
            m_out += ' ';
            show(*arg);
        }
        m_out += ')';
        return;
    case Kind::Let:
        m_out += "(let ";
        for (const auto& [rank, def] : e.a->attrs) {
            if (def.inherited) {
                m_out += "inherit ";
                showSymbol(def.symbol);
                m_out += "; ";
            } else {
                showSymbol(def.symbol);
                m_out += " = ";
                show(*def.value);
                m_out += "; ";
            }
        }
        m_out += "in ";
        show(*e.b);
        m_out += ')';
        return;
    case Kind::With:
        m_out += "(with ";
        show(*e.a);
        m_out += "; ";
        show(*e.b);
        m_out += ')';
        return;
    case Kind::If:
        m_out += "(if ";
        show(*e.a);
        m_out += " then ";
        show(*e.b);
        m_out += " else ";
        show(*e.c);
        m_out += ')';
        return;
    case Kind::Assert:
        m_out += "assert ";
        show(*e.a);
        m_out += "; ";
        show(*e.b);
        return;
    case Kind::Not:
        m_out += "(! ";
        show(*e.a);
        m_out += ')';
        return;
    case Kind::BinOp:
        m_out += '(';
        show(*e.a);
        m_out += ' ';
        m_out += e.text;
        m_out += ' ';
        show(*e.b);
        m_out += ')';
        return;
    case Kind::ConcatStrings: {
        m_out += '(';
        bool first = true;
        for (const LoweredExpr* part : e.items) {
            if (!first)
                m_out += " + ";
            first = false;
            show(*part);
        }
        m_out += ')';
        return;
    }
    }
}

} // namespace rg::nix
