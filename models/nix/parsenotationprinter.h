#pragma once

// Prints a lowered expression exactly as Nix 2.8's Expr::show does for
// `nix-instantiate --parse`. Internal to rg_nix; SyntaxTree::toNixParseNotation is the API.

#include "nix/lowering.h"

#include <string>

namespace rg::nix {

class ParseNotationPrinter
{
public:
    // Relative paths are made absolute against `baseDirectory` (the file's directory, or the
    // working directory for -E); `~/` paths against `homeDirectory`.
    ParseNotationPrinter(const SymbolTable& symbols, std::string baseDirectory,
                         std::string homeDirectory);

    std::string print(const LoweredExpr& e);

    // A name as Nix prints it: bare when it is an identifier, else as a quoted string.
    static std::string identifier(std::string_view name);

private:
    void show(const LoweredExpr& e);
    static void appendString(std::string& out, std::string_view s);
    void showString(std::string_view s) { appendString(m_out, s); }
    void showSymbol(Symbol symbol);
    void showAttrPath(const std::pmr::vector<LoweredAttrName>& path);
    std::string absolutePath(std::string_view path) const;

    const SymbolTable& m_symbols;
    std::string m_base;
    std::string m_home;
    std::string m_out;
};

} // namespace rg::nix
