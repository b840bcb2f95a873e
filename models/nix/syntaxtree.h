#pragma once

// A parsed Nix file: the source it owns, the nodes in an arena, and the first syntax error.
// Parsing never throws, never crashes and always terminates; on error root() is null and
// error() says where (line:column) and what was expected, as Nix itself would reject it.
//
// Known differences from Nix 2.8 (tests/nix/tst_nix_differential checks the rest):
// - nesting deeper than 1000 levels is not read ("expression nested too deeply", with
//   ParseError::beyondLimit set, as Nix may accept it);
// - when several variables are undefined, or when printing `let` bindings and formals, Nix
//   follows the heap order of its interned names, which we can only approximate;
// - bison's "expecting …" lists are reproduced for the common cases only.

#include "nix/node.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace rg::nix {

struct ParseError
{
    uint32_t offset = 0; // byte offset of the offending token
    uint32_t line = 1;   // 1-based
    uint32_t column = 1; // 1-based, in bytes
    std::string message; // e.g. "unexpected '}', expecting ';'"
    // The file nests deeper than this parser follows (1000 levels of tree, 2000 parser
    // frames): Nix itself may well accept it, so it is unread, not known to be wrong.
    bool beyondLimit = false;
};

class SyntaxTree
{
public:
    // Also reports what nix-instantiate --parse reports at parse time: undefined variables
    // outside any `with`, duplicate attributes and formals, invalid `inherit` in `rec` paths.
    static SyntaxTree parse(std::string source);

    SyntaxTree(SyntaxTree&&) noexcept;
    SyntaxTree& operator=(SyntaxTree&&) noexcept;
    ~SyntaxTree();

    const Node* root() const;
    const std::optional<ParseError>& error() const;
    std::string_view source() const;
    std::string_view text(SourceRange range) const
    {
        return source().substr(range.begin, range.length());
    }

    // The tree in the notation `nix-instantiate --parse` (Nix 2.8) prints, for differential
    // tests against the real parser. Empty when parsing failed. Relative paths are resolved
    // against the working directory and `~` against $HOME, as for `nix-instantiate -E`.
    std::string toNixParseNotation() const;
    // Same, with relative paths resolved against `baseDirectory` (for a file: its directory).
    std::string toNixParseNotation(const std::string& baseDirectory) const;

private:
    SyntaxTree();
    struct Data;
    std::unique_ptr<Data> d;
};

} // namespace rg::nix
