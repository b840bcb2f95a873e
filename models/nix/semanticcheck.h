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

    SymbolTable& m_symbols;
};

} // namespace rg::nix
