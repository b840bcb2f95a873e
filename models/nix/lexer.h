#pragma once

// Tokeniser for the default state of Nix 2.8's flex scanner (lexer.l). It reproduces flex's
// longest-match-then-first-rule choice, because that is what decides whether `a/b` is a path,
// `x:y` a URI or `1e3` an int applied to a variable. Strings, indented strings and the
// continuation of interpolated paths are scanned by the parser through the raw helpers below,
// since in Nix they are separate scanner states entered by the parser's tokens.

#include <cstdint>
#include <string_view>
#include <utility>

namespace rg::nix {

enum class TokenKind : uint8_t {
    End,
    Invalid, // a byte no rule accepts (Nix: "invalid token")
    Id,
    Int,
    Float,
    Path,  // PATH: ./a, a/b, /abs; may end with '/' when an interpolation follows
    HPath, // HPATH: ~/a
    SPath, // <nixpkgs/lib>
    Uri,
    DollarCurly, // ${
    LBrace,
    RBrace,
    Quote,   // "
    IndOpen, // '' (and the blank rest of its line)
    If,
    Then,
    Else,
    Assert,
    With,
    Let,
    In,
    Rec,
    Inherit,
    OrKw,
    Ellipsis,
    Eq,
    Neq,
    Leq,
    Geq,
    And,
    Or,
    Impl,
    Update,
    Concat,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Semicolon,
    Colon,
    Comma,
    Dot,
    At,
    Question,
    Assign,
    Plus,
    Minus,
    Star,
    Slash,
    Less,
    Greater,
    Not,
    OtherChar, // a character token the grammar never uses, e.g. '~' or '%'
};

struct Token
{
    TokenKind kind = TokenKind::End;
    uint32_t begin = 0;
    uint32_t end = 0;
};

class Lexer
{
public:
    explicit Lexer(std::string_view source) : m_src(source) {}

    // The next default-state token at or after `offset` (whitespace and comments skipped).
    Token lexAt(uint32_t offset) const;

    // How Nix's error messages name a token ("'}'", "ID", "end of file", …).
    static std::string_view describe(TokenKind kind);

    std::string_view source() const { return m_src; }

    // 1-based line:column of a byte offset as Nix counts them: CR, LF and CR LF end a line.
    std::pair<uint32_t, uint32_t> position(uint32_t offset) const;

    // Raw scanners used inside strings and paths; each returns the end offset of the run.
    // A string run in "…" (STR); stops before `"`, `${` or the end of input.
    uint32_t scanStringRun(uint32_t offset) const;
    // An IND_STR run of ordinary characters (the only indented-string token that counts as
    // indentation); returns `offset` when none starts there.
    uint32_t scanIndentedRun(uint32_t offset) const;
    // In an interpolated path: a STR continuation ({PATH}|{PATH_SEG}|{PATH_CHAR}+);
    // returns `offset` when none starts there.
    uint32_t scanPathContinuation(uint32_t offset) const;

    static bool isPathChar(char c)
    {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '-' || c == '+';
    }

private:
    char at(uint32_t i) const { return i < m_src.size() ? m_src[i] : '\0'; }
    bool has(uint32_t i) const { return i < m_src.size(); }
    uint32_t skipTrivia(uint32_t i) const;
    uint32_t pathLength(uint32_t i) const;
    uint32_t pathCharRunEnd(uint32_t i) const;
    uint32_t schemeCharRunEnd(uint32_t i) const;

    std::string_view m_src;
    // Runs of path / URI-scheme characters such as `a.b.c.d` are rescanned from every token
    // inside them; remembering the last run keeps lexing linear.
    mutable uint32_t m_pathRunBegin = 1;
    mutable uint32_t m_pathRunEnd = 0;
    mutable uint32_t m_schemeRunBegin = 1;
    mutable uint32_t m_schemeRunEnd = 0;
    mutable int64_t m_lastCommentClose = -2; // offset of the last "*/", -1: none, -2: unknown
};

} // namespace rg::nix
