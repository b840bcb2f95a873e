#pragma once

// The checks Nix 2.8 makes before evaluating anything, so that SyntaxTree::parse accepts
// exactly what `nix-instantiate --parse` accepts: everything Lowering rejects (duplicate
// attributes and formals, dynamic attributes in `let`) and then bindVars(): every variable
// outside a `with` must be bound by a lambda, let, rec set or Nix's base environment.

#include "nix/lowering.h"

namespace rg::nix {

class SemanticCheck
{
public:
    // Throws ParseFailure naming the first problem, in the order Nix would find it.
    static void run(std::string_view source, const Node& root);

private:
    struct Scope;

    explicit SemanticCheck(SymbolTable& symbols) : m_symbols(symbols) {}
    void bind(const LoweredExpr* e, const Scope* scope);
    void bindAttrs(const LoweredExpr* attrs, const Scope* scope);

    bool declares(const Scope& scope, Symbol symbol) const;
    const Scope* open(Scope& scope, size_t begin); // sorts the names pushed since `begin`

    SymbolTable& m_symbols;
    std::vector<Symbol> m_names; // the names of all open scopes, a stack
};

} // namespace rg::nix
