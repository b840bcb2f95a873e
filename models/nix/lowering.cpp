#include "nix/lowering.h"

#include "nix/lexer.h"
#include "nix/parsenotationprinter.h"
#include "nix/parser.h"

#include <algorithm>

namespace rg::nix {

using Kind = LoweredExpr::Kind;

LoweredExpr* Lowering::make(Kind kind, uint32_t offset)
{
    void* mem = m_arena->allocate(sizeof(LoweredExpr), alignof(LoweredExpr));
    auto* e = new (mem) LoweredExpr(kind, m_arena);
    e->offset = offset;
    return e;
}

LoweredExpr* Lowering::var(std::string_view name, uint32_t offset)
{
    LoweredExpr* e = make(Kind::Var, offset);
    e->symbol = m_symbols.intern(name);
    return e;
}

LoweredExpr* Lowering::call(LoweredExpr* fn, std::initializer_list<LoweredExpr*> args,
                            uint32_t offset)
{
    LoweredExpr* e = make(Kind::Call, offset);
    e->a = fn;
    e->items.assign(args.begin(), args.end());
    return e;
}

LoweredExpr* Lowering::stringValue(std::string_view value, uint32_t offset)
{
    LoweredExpr* e = make(Kind::String, offset);
    e->text = value;
    return e;
}

void Lowering::duplicate(std::string_view what, uint32_t offset, uint32_t previous) const
{
    const auto [line, column] = Lexer(m_src).position(previous);
    throw ParseFailure{offset, "attribute '" + std::string(what) + "' already defined at " +
                                   std::to_string(line) + ":" + std::to_string(column)};
}

std::string Lowering::showPath(const std::vector<LoweredAttrName>& path) const
{
    std::string out;
    for (const LoweredAttrName& name : path) {
        if (!out.empty())
            out += '.';
        out += name.symbol == LoweredAttrName::kDynamic
                   ? std::string("\"${…}\"")
                   : ParseNotationPrinter::identifier(m_symbols.name(name.symbol));
    }
    return out;
}

LoweredAttrName Lowering::attrName(const Node& segment)
{
    if (segment.kind == NodeKind::AttrName)
        return {m_symbols.intern(segment.text), nullptr};
    const Node* inner = segment.kind == NodeKind::Interpolation ? segment.child(0) : &segment;
    if (auto value = Parser::staticString(inner))
        return {m_symbols.intern(*value), nullptr};
    return {LoweredAttrName::kDynamic, m_shallow ? opaque(segment.range.begin) : lower(*inner)};
}

LoweredExpr* Lowering::opaque(uint32_t offset)
{
    return make(Kind::CurPos, offset);
}

LoweredExpr* Lowering::beginBinds(bool rec, uint32_t bindsStart)
{
    LoweredExpr* attrs = make(Kind::Attrs, bindsStart);
    attrs->flag = rec;
    return attrs;
}

void Lowering::addBindEagerly(LoweredExpr* attrs, const Node& bind, uint32_t bindsStart,
                              LoweredExpr* value)
{
    m_shallow = true;
    addBind(attrs, bind, bindsStart, value);
}

void Lowering::checkFormalsEagerly(const Node& lambda)
{
    std::pmr::vector<LoweredFormal> formals(m_arena);
    for (const Node* formal : lambda.children[0]->children)
        formals.push_back({m_symbols.intern(formal->text), nullptr, formal->range.begin});
    checkFormals(formals, lambda);
}

// toFormals(): sorted by (symbol, position); a repeated name is an error at its later
// occurrence, and so is a formal named like the `@` argument.
void Lowering::checkFormals(std::pmr::vector<LoweredFormal>& formals, const Node& lambda)
{
    std::sort(formals.begin(), formals.end(), [&](const auto& x, const auto& y) {
        const uint64_t rx = m_symbols.rank(x.symbol), ry = m_symbols.rank(y.symbol);
        return rx != ry ? rx < ry : x.offset < y.offset;
    });
    for (size_t i = 0; i + 1 < formals.size(); ++i)
        if (formals[i].symbol == formals[i + 1].symbol)
            throw ParseFailure{formals[i + 1].offset,
                               "duplicate formal function argument '" +
                                   std::string(m_symbols.name(formals[i].symbol)) + "'"};
    if (!lambda.text.empty()) {
        const Symbol arg = m_symbols.intern(lambda.text);
        for (const LoweredFormal& f : formals)
            if (f.symbol == arg)
                throw ParseFailure{lambda.range.begin, "duplicate formal function argument '" +
                                                           std::string(lambda.text) + "'"};
    }
}

// addAttr() of Nix 2.8's parser.y, including its merge of `a = { … }; a.b = …;`.
void Lowering::addAttr(LoweredExpr* attrs, const std::vector<LoweredAttrName>& path,
                       LoweredExpr* value, uint32_t offset)
{
    size_t i = 0;
    for (; i + 1 < path.size(); ++i) {
        const LoweredAttrName& name = path[i];
        if (name.symbol != LoweredAttrName::kDynamic) {
            const uint64_t rank = m_symbols.rank(name.symbol);
            auto j = attrs->attrs.find(rank);
            if (j != attrs->attrs.end()) {
                if (j->second.inherited || j->second.value->kind != Kind::Attrs)
                    duplicate(showPath(path), offset, j->second.offset);
                attrs = j->second.value;
            } else {
                LoweredExpr* nested = make(Kind::Attrs, offset);
                attrs->attrs.emplace(rank, LoweredAttrDef{name.symbol, nested, offset, false});
                attrs = nested;
            }
        } else {
            LoweredExpr* nested = make(Kind::Attrs, offset);
            attrs->dynamicAttrs.push_back({name.expr, nested, offset});
            attrs = nested;
        }
    }
    const LoweredAttrName& last = path[i];
    if (last.symbol == LoweredAttrName::kDynamic) {
        attrs->dynamicAttrs.push_back({last.expr, value, offset});
        return;
    }
    const uint64_t rank = m_symbols.rank(last.symbol);
    auto j = attrs->attrs.find(rank);
    if (j == attrs->attrs.end()) {
        attrs->attrs.emplace(rank, LoweredAttrDef{last.symbol, value, offset, false});
        return;
    }
    LoweredExpr* existing = j->second.value;
    if (!j->second.inherited && existing->kind == Kind::Attrs && value->kind == Kind::Attrs) {
        // Nix merges only the static attributes; the second set's dynamic ones are dropped.
        for (auto& [key, def] : value->attrs) {
            auto k = existing->attrs.find(key);
            if (k != existing->attrs.end())
                duplicate(ParseNotationPrinter::identifier(m_symbols.name(def.symbol)),
                          k->second.offset, def.offset);
            existing->attrs.emplace(key, def);
        }
        return;
    }
    duplicate(showPath(path), offset, j->second.offset);
}

// `binds` of parser.y: Binding and Inherit nodes, the first `count` children of `node`.
LoweredExpr* Lowering::lowerBinds(const Node& node, size_t count, bool rec, uint32_t bindsStart)
{
    LoweredExpr* attrs = beginBinds(rec, bindsStart);
    for (size_t n = 0; n < count; ++n)
        addBind(attrs, *node.children[n], bindsStart, nullptr);
    return attrs;
}

// One Binding or Inherit. `value` stands in for the binding's value when checking eagerly.
void Lowering::addBind(LoweredExpr* attrs, const Node& bind, uint32_t bindsStart,
                       LoweredExpr* value)
{
    if (bind.kind == NodeKind::Binding) {
        const Node& attrPath = *bind.children[0];
        std::vector<LoweredAttrName> path;
        path.reserve(attrPath.children.size());
        for (const Node* segment : attrPath.children)
            path.push_back(attrName(*segment));
        addAttr(attrs, path, m_shallow ? value : lower(*bind.children[1]), attrPath.range.begin);
        return;
    }
    const size_t first = bind.flag ? 1 : 0;
    if (bind.children.size() <= first)
        return;
    // Nix reports these names at the end of `inherit` or of `(…)`, where its (empty-first)
    // name list begins.
    const uint32_t namesOffset =
        bind.flag ? static_cast<uint32_t>(m_src.rfind(')', bind.children[first]->range.begin)) + 1
                  : bind.range.begin + 7;
    LoweredExpr* source = nullptr;
    if (bind.flag)
        source = m_shallow ? opaque(bind.range.begin) : lower(*bind.children[0]);
    for (size_t k = first; k < bind.children.size(); ++k) {
        const LoweredAttrName name = attrName(*bind.children[k]);
        const uint64_t rank = m_symbols.rank(name.symbol);
        if (auto j = attrs->attrs.find(rank); j != attrs->attrs.end())
            duplicate(ParseNotationPrinter::identifier(m_symbols.name(name.symbol)), namesOffset,
                      j->second.offset);
        LoweredExpr* inherited = nullptr;
        if (source) {
            inherited = make(Kind::Select, bind.range.begin);
            inherited->a = source;
            inherited->path.push_back(name);
        } else {
            // Nix places these variables at the start of the whole binding list.
            inherited = make(Kind::Var, bindsStart);
            inherited->symbol = name.symbol;
        }
        attrs->attrs.emplace(rank, LoweredAttrDef{name.symbol, inherited, namesOffset, !source});
    }
}

LoweredExpr* Lowering::lowerStringParts(const Node& node, bool forceString)
{
    LoweredExpr* e = make(Kind::ConcatStrings, node.range.begin);
    e->flag = forceString;
    for (const Node* part : node.children) {
        if (part->kind == NodeKind::StringText)
            e->items.push_back(stringValue(part->text, part->range.begin));
        else
            e->items.push_back(lower(*part->children[0]));
    }
    return e;
}

LoweredExpr* Lowering::lower(const Node& node)
{
    const uint32_t at = node.range.begin;
    switch (node.kind) {
    case NodeKind::Int:
    case NodeKind::Float: {
        LoweredExpr* e = make(node.kind == NodeKind::Int ? Kind::Int : Kind::Float, at);
        e->text = node.text;
        return e;
    }
    case NodeKind::String:
    case NodeKind::IndentedString:
        if (auto value = Parser::staticString(&node))
            return stringValue(*value, at);
        return lowerStringParts(node, true);
    case NodeKind::StringText:
        return stringValue(node.text, at);
    case NodeKind::Interpolation:
        return lower(*node.children[0]);
    case NodeKind::Path: {
        const Node& first = *node.children[0];
        LoweredExpr* start = make(first.text.front() == '~' ? Kind::HomePath : Kind::Path, at);
        start->text = first.text;
        if (node.children.size() == 1)
            return start;
        LoweredExpr* e = make(Kind::ConcatStrings, at);
        e->items.push_back(start);
        for (size_t i = 1; i < node.children.size(); ++i) {
            const Node* part = node.children[i];
            e->items.push_back(part->kind == NodeKind::StringText
                                   ? stringValue(part->text, part->range.begin)
                                   : lower(*part->children[0]));
        }
        return e;
    }
    case NodeKind::SearchPath:
        return call(var("__findFile", at), {var("__nixPath", at), stringValue(node.text, at)}, at);
    case NodeKind::Uri:
        return stringValue(node.text, at);
    case NodeKind::Identifier:
        if (node.text == "__curPos")
            return make(Kind::CurPos, at);
        return var(node.text, at);
    case NodeKind::Select:
    case NodeKind::HasAttr: {
        LoweredExpr* e = make(node.kind == NodeKind::Select ? Kind::Select : Kind::HasAttr, at);
        e->a = lower(*node.children[0]);
        for (const Node* segment : node.children[1]->children)
            e->path.push_back(attrName(*segment));
        if (node.children.size() > 2)
            e->b = lower(*node.children[2]);
        return e;
    }
    case NodeKind::AttrSet: {
        // The binding list starts right after `{`.
        uint32_t start = node.range.begin + 1;
        if (node.flag)
            start = static_cast<uint32_t>(m_src.find('{', node.range.begin)) + 1;
        return lowerBinds(node, node.children.size(), node.flag, start);
    }
    case NodeKind::LegacyLet: {
        const auto start = static_cast<uint32_t>(m_src.find('{', node.range.begin)) + 1;
        LoweredExpr* e = make(Kind::Select, at);
        e->a = lowerBinds(node, node.children.size(), true, start);
        e->path.push_back({m_symbols.intern("body"), nullptr});
        return e;
    }
    case NodeKind::Let: {
        LoweredExpr* attrs = lowerBinds(node, node.children.size() - 1, false, at + 3);
        if (!attrs->dynamicAttrs.empty())
            throw ParseFailure{at, "dynamic attributes not allowed in let"};
        LoweredExpr* e = make(Kind::Let, at);
        e->a = attrs;
        e->b = lower(*node.children.back());
        return e;
    }
    case NodeKind::With:
    case NodeKind::Assert: {
        LoweredExpr* e = make(node.kind == NodeKind::With ? Kind::With : Kind::Assert, at);
        e->a = lower(*node.children[0]);
        e->b = lower(*node.children[1]);
        return e;
    }
    case NodeKind::If: {
        LoweredExpr* e = make(Kind::If, at);
        e->a = lower(*node.children[0]);
        e->b = lower(*node.children[1]);
        e->c = lower(*node.children[2]);
        return e;
    }
    case NodeKind::Lambda: {
        // Symbols are interned in Nix's reduction order, which decides how `let` bindings and
        // formals print: a formal's name after its default, the argument after the body.
        LoweredExpr* e = make(Kind::Lambda, at);
        if (node.children.size() == 2) {
            const Node& formals = *node.children[0];
            e->flag = true;
            e->ellipsis = formals.flag;
            for (const Node* formal : formals.children) {
                LoweredExpr* def = formal->children.empty() ? nullptr : lower(*formal->children[0]);
                e->formals.push_back({m_symbols.intern(formal->text), def, formal->range.begin});
            }
        }
        e->a = lower(*node.children.back());
        if (!node.text.empty())
            e->symbol = m_symbols.intern(node.text);
        if (e->flag)
            checkFormals(e->formals, node);
        return e;
    }
    case NodeKind::Apply: {
        // Nix appends to an existing call, whatever made it: `(a - b) c` is __sub a b c.
        LoweredExpr* fn = lower(*node.children[0]);
        const Node& argNode = *node.children[1];
        // `f or` (expr_simple OR_KW) always makes a call of its own, with the variable `or`
        // placed at the start of the whole expression.
        if (argNode.kind == NodeKind::Identifier && argNode.text == "or")
            return call(fn, {var("or", at)}, at);
        LoweredExpr* arg = lower(argNode);
        if (fn->kind == Kind::Call) {
            fn->items.push_back(arg);
            return fn;
        }
        return call(fn, {arg}, at);
    }
    case NodeKind::List: {
        LoweredExpr* e = make(Kind::List, at);
        for (const Node* element : node.children)
            e->items.push_back(lower(*element));
        return e;
    }
    case NodeKind::Not: {
        LoweredExpr* e = make(Kind::Not, at);
        e->a = lower(*node.children[0]);
        return e;
    }
    case NodeKind::Negate: {
        LoweredExpr* zero = make(Kind::Int, at);
        zero->text = "0";
        return call(var("__sub", at), {zero, lower(*node.children[0])}, at);
    }
    case NodeKind::Binary: {
        LoweredExpr* l = lower(*node.children[0]);
        LoweredExpr* r = lower(*node.children[1]);
        auto binop = [&](std::string_view op) {
            LoweredExpr* e = make(Kind::BinOp, at);
            e->text = op;
            e->a = l;
            e->b = r;
            return e;
        };
        auto notOf = [&](LoweredExpr* inner) {
            LoweredExpr* e = make(Kind::Not, at);
            e->a = inner;
            return e;
        };
        switch (node.op) {
        case BinaryOp::Equal:
            return binop("==");
        case BinaryOp::NotEqual:
            return binop("!=");
        case BinaryOp::And:
            return binop("&&");
        case BinaryOp::Or:
            return binop("||");
        case BinaryOp::Implies:
            return binop("->");
        case BinaryOp::Update:
            return binop("//");
        case BinaryOp::Concat:
            return binop("++");
        case BinaryOp::Add: {
            LoweredExpr* e = make(Kind::ConcatStrings, at);
            e->items.assign({l, r});
            return e;
        }
        case BinaryOp::Subtract:
            return call(var("__sub", at), {l, r}, at);
        case BinaryOp::Multiply:
            return call(var("__mul", at), {l, r}, at);
        case BinaryOp::Divide:
            return call(var("__div", at), {l, r}, at);
        case BinaryOp::Less:
            return call(var("__lessThan", at), {l, r}, at);
        case BinaryOp::Greater:
            return call(var("__lessThan", at), {r, l}, at);
        case BinaryOp::LessEqual:
            return notOf(call(var("__lessThan", at), {r, l}, at));
        case BinaryOp::GreaterEqual:
            return notOf(call(var("__lessThan", at), {l, r}, at));
        case BinaryOp::None:
            break;
        }
        break;
    }
    case NodeKind::AttrPath:
    case NodeKind::AttrName:
    case NodeKind::Binding:
    case NodeKind::Inherit:
    case NodeKind::Formals:
    case NodeKind::Formal:
        break;
    }
    throw ParseFailure{at, "internal error: unexpected node in expression position"};
}

} // namespace rg::nix
