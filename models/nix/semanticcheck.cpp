#include "nix/semanticcheck.h"

#include "nix/parser.h"

#include <algorithm>

namespace rg::nix {

using Kind = LoweredExpr::Kind;

struct SemanticCheck::Scope
{
    const Scope* up = nullptr;
    bool isWith = false;
    std::vector<Symbol> names; // sorted

    bool has(Symbol s) const { return std::binary_search(names.begin(), names.end(), s); }
};

void SemanticCheck::run(std::string_view source, const Node& root)
{
    std::pmr::monotonic_buffer_resource arena;
    SymbolTable symbols;
    Lowering lowering(source, symbols, &arena);
    const LoweredExpr* lowered = lowering.lower(root);
    SemanticCheck check(symbols);
    check.bind(lowered, nullptr);
}

void SemanticCheck::bindAttrs(const LoweredExpr* attrs, const Scope* scope)
{
    if (!attrs->flag) {
        for (const auto& [rank, def] : attrs->attrs)
            bind(def.value, scope);
        for (const LoweredDynamicAttr& dyn : attrs->dynamicAttrs) {
            bind(dyn.name, scope);
            bind(dyn.value, scope);
        }
        return;
    }
    Scope inner{scope, false, {}};
    for (const auto& [rank, def] : attrs->attrs)
        inner.names.push_back(def.symbol);
    std::sort(inner.names.begin(), inner.names.end());
    for (const auto& [rank, def] : attrs->attrs)
        bind(def.value, def.inherited ? scope : &inner);
    for (const LoweredDynamicAttr& dyn : attrs->dynamicAttrs) {
        bind(dyn.name, &inner);
        bind(dyn.value, &inner);
    }
}

void SemanticCheck::bind(const LoweredExpr* e, const Scope* scope)
{
    if (!e)
        return;
    switch (e->kind) {
    case Kind::Int:
    case Kind::Float:
    case Kind::String:
    case Kind::Path:
    case Kind::HomePath:
    case Kind::CurPos:
        return;
    case Kind::Var: {
        bool underWith = false;
        for (const Scope* s = scope; s; s = s->up) {
            if (s->isWith)
                underWith = true;
            else if (s->has(e->symbol))
                return;
        }
        if (underWith || m_symbols.isBaseName(m_symbols.name(e->symbol)))
            return;
        throw ParseFailure{e->offset,
                           "undefined variable '" + std::string(m_symbols.name(e->symbol)) + "'"};
    }
    case Kind::Select:
    case Kind::HasAttr:
        bind(e->a, scope);
        if (e->b)
            bind(e->b, scope);
        for (const LoweredAttrName& name : e->path)
            bind(name.expr, scope);
        return;
    case Kind::Attrs:
        bindAttrs(e, scope);
        return;
    case Kind::List:
    case Kind::ConcatStrings:
        for (const LoweredExpr* item : e->items)
            bind(item, scope);
        return;
    case Kind::Call:
        bind(e->a, scope);
        for (const LoweredExpr* item : e->items)
            bind(item, scope);
        return;
    case Kind::Lambda: {
        Scope inner{scope, false, {}};
        if (e->symbol != LoweredAttrName::kDynamic)
            inner.names.push_back(e->symbol);
        for (const LoweredFormal& f : e->formals)
            inner.names.push_back(f.symbol);
        std::sort(inner.names.begin(), inner.names.end());
        for (const LoweredFormal& f : e->formals)
            bind(f.def, &inner);
        bind(e->a, &inner);
        return;
    }
    case Kind::Let: {
        Scope inner{scope, false, {}};
        for (const auto& [rank, def] : e->a->attrs)
            inner.names.push_back(def.symbol);
        std::sort(inner.names.begin(), inner.names.end());
        for (const auto& [rank, def] : e->a->attrs)
            bind(def.value, def.inherited ? scope : &inner);
        bind(e->b, &inner);
        return;
    }
    case Kind::With: {
        bind(e->a, scope);
        Scope inner{scope, true, {}};
        bind(e->b, &inner);
        return;
    }
    case Kind::If:
    case Kind::Assert:
    case Kind::Not:
    case Kind::BinOp:
        bind(e->a, scope);
        bind(e->b, scope);
        bind(e->c, scope);
        return;
    }
}

} // namespace rg::nix
