#include "nix/semanticcheck.h"

#include "nix/parser.h"

#include <algorithm>

namespace rg::nix {

using Kind = LoweredExpr::Kind;

struct SemanticCheck::Scope
{
    const Scope* up = nullptr;
    bool isWith = false;
    size_t begin = 0; // names are m_names[begin, end), sorted
    size_t end = 0;
};

bool SemanticCheck::declares(const Scope& scope, Symbol symbol) const
{
    return std::binary_search(m_names.begin() + scope.begin, m_names.begin() + scope.end, symbol);
}

const SemanticCheck::Scope* SemanticCheck::open(Scope& scope, size_t begin)
{
    scope.begin = begin;
    scope.end = m_names.size();
    std::sort(m_names.begin() + begin, m_names.end());
    return &scope;
}

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
    const size_t mark = m_names.size();
    for (const auto& [rank, def] : attrs->attrs)
        m_names.push_back(def.symbol);
    Scope inner{scope, false};
    open(inner, mark);
    for (const auto& [rank, def] : attrs->attrs)
        bind(def.value, def.inherited ? scope : &inner);
    for (const LoweredDynamicAttr& dyn : attrs->dynamicAttrs) {
        bind(dyn.name, &inner);
        bind(dyn.value, &inner);
    }
    m_names.resize(mark);
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
            else if (declares(*s, e->symbol))
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
        const size_t mark = m_names.size();
        if (e->symbol != LoweredAttrName::kDynamic)
            m_names.push_back(e->symbol);
        for (const LoweredFormal& f : e->formals)
            m_names.push_back(f.symbol);
        Scope inner{scope, false};
        open(inner, mark);
        for (const LoweredFormal& f : e->formals)
            bind(f.def, &inner);
        bind(e->a, &inner);
        m_names.resize(mark);
        return;
    }
    case Kind::Let: {
        const size_t mark = m_names.size();
        for (const auto& [rank, def] : e->a->attrs)
            m_names.push_back(def.symbol);
        Scope inner{scope, false};
        open(inner, mark);
        for (const auto& [rank, def] : e->a->attrs)
            bind(def.value, def.inherited ? scope : &inner);
        bind(e->b, &inner);
        m_names.resize(mark);
        return;
    }
    case Kind::With: {
        bind(e->a, scope);
        Scope inner{scope, true};
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
