#pragma once

// The syntax tree rewritten into Nix 2.8's own expression model (nixexpr.hh): operators become
// calls of __sub/__lessThan/…, `a.b = 1; a.c = 2;` become nested attribute sets, `inherit (e) a`
// becomes `a = e.a`, calls collect their arguments, strings with interpolation become
// concatenations. Nix performs its parse-time checks (duplicate attributes and formals,
// dynamic attributes in `let`) while building this model, and prints it for `--parse`, so
// SemanticCheck and ParseNotationPrinter both work on it. Internal to rg_nix.

#include "nix/node.h"
#include "nix/symboltable.h"

#include <map>
#include <memory_resource>
#include <vector>

namespace rg::nix {

struct LoweredExpr;

struct LoweredAttrName
{
    static constexpr Symbol kDynamic = UINT32_MAX;
    Symbol symbol = kDynamic;
    LoweredExpr* expr = nullptr; // when dynamic
};

struct LoweredAttrDef
{
    Symbol symbol = 0;
    LoweredExpr* value = nullptr;
    uint32_t offset = 0; // where Nix says it was defined
    bool inherited = false;
};

struct LoweredDynamicAttr
{
    LoweredExpr* name = nullptr;
    LoweredExpr* value = nullptr;
    uint32_t offset = 0;
};

struct LoweredFormal
{
    Symbol symbol = 0;
    LoweredExpr* def = nullptr;
    uint32_t offset = 0;
};

struct LoweredExpr
{
    enum class Kind : uint8_t {
        Int,
        Float,
        String,
        Path,
        HomePath,
        Var,
        CurPos,
        Select,
        HasAttr,
        Attrs,
        List,
        Lambda,
        Call,
        Let,
        With,
        If,
        Assert,
        Not,
        BinOp, // == != && || -> // ++
        ConcatStrings,
    };

    explicit LoweredExpr(Kind k, std::pmr::memory_resource* mr)
        : kind(k), items(mr), path(mr), attrs(mr), dynamicAttrs(mr), formals(mr)
    {}

    Kind kind;
    bool flag = false; // Attrs: rec; Lambda: has formals; ConcatStrings: forceString
    bool ellipsis = false;
    uint32_t offset = 0;   // source position Nix reports errors at
    std::string_view text; // Int/Float literal, String value, path text, BinOp operator
    Symbol symbol = LoweredAttrName::kDynamic; // Var name, Lambda argument
    LoweredExpr* a = nullptr;                  // subject / condition / function / body …
    LoweredExpr* b = nullptr;
    LoweredExpr* c = nullptr;
    std::pmr::vector<LoweredExpr*> items; // call arguments, list elements, string parts
    std::pmr::vector<LoweredAttrName> path;
    // Keyed by Nix's symbol order, as Nix's std::map<Symbol, AttrDef> is.
    std::pmr::map<uint64_t, LoweredAttrDef> attrs;
    std::pmr::vector<LoweredDynamicAttr> dynamicAttrs;
    std::pmr::vector<LoweredFormal> formals;
};

class Lowering
{
public:
    Lowering(std::string_view source, SymbolTable& symbols, std::pmr::memory_resource* arena)
        : m_src(source), m_symbols(symbols), m_arena(arena)
    {}

    // Throws ParseFailure for what Nix rejects while building its model.
    LoweredExpr* lower(const Node& node);

    // Eager checks, made by the parser while it parses so that errors come in Nix's order on
    // broken input: values are not lowered; `value` stands for one (an Attrs for sets).
    LoweredExpr* beginBinds(bool rec, uint32_t bindsStart);
    void addBindEagerly(LoweredExpr* attrs, const Node& bind, uint32_t bindsStart,
                        LoweredExpr* value);
    void checkFormalsEagerly(const Node& lambda);
    LoweredExpr* opaque(uint32_t offset);

private:
    LoweredExpr* make(LoweredExpr::Kind kind, uint32_t offset);
    LoweredExpr* var(std::string_view name, uint32_t offset);
    LoweredExpr* call(LoweredExpr* fn, std::initializer_list<LoweredExpr*> args, uint32_t offset);
    LoweredExpr* stringValue(std::string_view value, uint32_t offset);
    LoweredExpr* lowerStringParts(const Node& node, bool forceString);
    LoweredExpr* lowerBinds(const Node& node, size_t count, bool rec, uint32_t bindsStart);
    void addBind(LoweredExpr* attrs, const Node& bind, uint32_t bindsStart, LoweredExpr* value);
    void checkFormals(std::pmr::vector<LoweredFormal>& formals, const Node& lambda);
    void addAttr(LoweredExpr* attrs, const std::vector<LoweredAttrName>& path, LoweredExpr* value,
                 uint32_t offset);
    LoweredAttrName attrName(const Node& segment);
    std::string showPath(const std::vector<LoweredAttrName>& path) const;
    [[noreturn]] void duplicate(std::string_view what, uint32_t offset, uint32_t previous) const;

    std::string_view m_src;
    SymbolTable& m_symbols;
    std::pmr::memory_resource* m_arena;
    bool m_shallow = false;
};

} // namespace rg::nix
