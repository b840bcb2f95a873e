#include "nix/lexer.h"

#include <algorithm>
#include <array>

namespace rg::nix {

namespace {

bool isIdStart(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool isIdChar(char c)
{
    return isIdStart(c) || (c >= '0' && c <= '9') || c == '\'' || c == '-';
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isUriSchemeChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c) || c == '+' || c == '-' ||
           c == '.';
}

bool isUriChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c))
        return true;
    switch (c) {
    case '%':
    case '/':
    case '?':
    case ':':
    case '@':
    case '&':
    case '=':
    case '+':
    case '$':
    case ',':
    case '-':
    case '_':
    case '.':
    case '!':
    case '~':
    case '*':
    case '\'':
        return true;
    default:
        return false;
    }
}

struct Keyword
{
    std::string_view text;
    TokenKind kind;
};

constexpr std::array<Keyword, 10> kKeywords{{
    {"if", TokenKind::If},
    {"then", TokenKind::Then},
    {"else", TokenKind::Else},
    {"assert", TokenKind::Assert},
    {"with", TokenKind::With},
    {"let", TokenKind::Let},
    {"in", TokenKind::In},
    {"rec", TokenKind::Rec},
    {"inherit", TokenKind::Inherit},
    {"or", TokenKind::OrKw},
}};

TokenKind keywordOrId(std::string_view word)
{
    if (word.size() >= 2 && word.size() <= 7)
        for (const Keyword& k : kKeywords)
            if (k.text == word)
                return k.kind;
    return TokenKind::Id;
}

// How Nix's error messages name each token, one row per TokenKind in its declared order,
// so that a lookup is an index.
struct TokenName
{
    TokenKind kind;
    std::string_view text;
};

constexpr TokenName kTokenNames[] = {
    {TokenKind::End, "end of file"},
    {TokenKind::Invalid, "invalid token"},
    {TokenKind::Id, "ID"},
    {TokenKind::Int, "INT"},
    {TokenKind::Float, "FLOAT"},
    {TokenKind::Path, "PATH"},
    {TokenKind::HPath, "HPATH"},
    {TokenKind::SPath, "SPATH"},
    {TokenKind::Uri, "URI"},
    {TokenKind::DollarCurly, "DOLLAR_CURLY"},
    {TokenKind::LBrace, "'{'"},
    {TokenKind::RBrace, "'}'"},
    {TokenKind::Quote, "'\"'"},
    {TokenKind::IndOpen, "IND_STRING_OPEN"},
    {TokenKind::If, "IF"},
    {TokenKind::Then, "THEN"},
    {TokenKind::Else, "ELSE"},
    {TokenKind::Assert, "ASSERT"},
    {TokenKind::With, "WITH"},
    {TokenKind::Let, "LET"},
    {TokenKind::In, "IN"},
    {TokenKind::Rec, "REC"},
    {TokenKind::Inherit, "INHERIT"},
    {TokenKind::OrKw, "OR_KW"},
    {TokenKind::Ellipsis, "ELLIPSIS"},
    {TokenKind::Eq, "EQ"},
    {TokenKind::Neq, "NEQ"},
    {TokenKind::Leq, "LEQ"},
    {TokenKind::Geq, "GEQ"},
    {TokenKind::And, "AND"},
    {TokenKind::Or, "OR"},
    {TokenKind::Impl, "IMPL"},
    {TokenKind::Update, "UPDATE"},
    {TokenKind::Concat, "CONCAT"},
    {TokenKind::LParen, "'('"},
    {TokenKind::RParen, "')'"},
    {TokenKind::LBracket, "'['"},
    {TokenKind::RBracket, "']'"},
    {TokenKind::Semicolon, "';'"},
    {TokenKind::Colon, "':'"},
    {TokenKind::Comma, "','"},
    {TokenKind::Dot, "'.'"},
    {TokenKind::At, "'@'"},
    {TokenKind::Question, "'?'"},
    {TokenKind::Assign, "'='"},
    {TokenKind::Plus, "'+'"},
    {TokenKind::Minus, "'-'"},
    {TokenKind::Star, "'*'"},
    {TokenKind::Slash, "'/'"},
    {TokenKind::Less, "'<'"},
    {TokenKind::Greater, "'>'"},
    {TokenKind::Not, "'!'"},
    {TokenKind::OtherChar, "invalid token"},
};

constexpr bool inDeclaredOrder()
{
    for (size_t i = 0; i < std::size(kTokenNames); ++i)
        if (static_cast<size_t>(kTokenNames[i].kind) != i)
            return false;
    return std::size(kTokenNames) == static_cast<size_t>(TokenKind::OtherChar) + 1;
}
static_assert(inDeclaredOrder(), "kTokenNames needs a row for each TokenKind, in order");

} // namespace

std::pair<uint32_t, uint32_t> Lexer::position(uint32_t offset) const
{
    offset = std::min<uint32_t>(offset, static_cast<uint32_t>(m_src.size()));
    uint32_t line = 1;
    uint32_t column = 1;
    for (uint32_t i = 0; i < offset; ++i) {
        if (m_src[i] == '\r') {
            if (i + 1 < offset && m_src[i + 1] == '\n')
                ++i;
            ++line;
            column = 1;
        } else if (m_src[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return {line, column};
}

uint32_t Lexer::skipTrivia(uint32_t i) const
{
    const auto n = static_cast<uint32_t>(m_src.size());
    while (i < n) {
        const char c = m_src[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            ++i;
        } else if (c == '#') {
            while (i < n && m_src[i] != '\n' && m_src[i] != '\r')
                ++i;
        } else if (c == '/' && at(i + 1) == '*') {
            // Only a terminated comment is a comment; otherwise '/' is a token of its own.
            if (m_lastCommentClose == -2) {
                const auto last = m_src.rfind("*/");
                m_lastCommentClose = last == std::string_view::npos ? -1 : int64_t(last);
            }
            if (int64_t(i) + 2 > m_lastCommentClose)
                return i;
            const auto close = m_src.find("*/", i + 2);
            i = static_cast<uint32_t>(close + 2);
        } else {
            return i;
        }
    }
    return i;
}

uint32_t Lexer::pathCharRunEnd(uint32_t i) const
{
    if (i >= m_pathRunBegin && i <= m_pathRunEnd)
        return m_pathRunEnd;
    uint32_t j = i;
    while (isPathChar(at(j)))
        ++j;
    m_pathRunBegin = i;
    m_pathRunEnd = j;
    return j;
}

uint32_t Lexer::schemeCharRunEnd(uint32_t i) const
{
    if (i >= m_schemeRunBegin && i <= m_schemeRunEnd)
        return m_schemeRunEnd;
    uint32_t j = i;
    while (isUriSchemeChar(at(j)))
        ++j;
    m_schemeRunBegin = i;
    m_schemeRunEnd = j;
    return j;
}

// {PATH_CHAR}*(\/{PATH_CHAR}+)+\/?  — 0 when no path starts at i.
uint32_t Lexer::pathLength(uint32_t i) const
{
    uint32_t j = pathCharRunEnd(i);
    int segments = 0;
    while (at(j) == '/' && isPathChar(at(j + 1))) {
        j += 2;
        while (isPathChar(at(j)))
            ++j;
        ++segments;
    }
    if (segments == 0)
        return 0;
    if (at(j) == '/')
        ++j;
    return j - i;
}

Token Lexer::lexAt(uint32_t offset) const
{
    const uint32_t i = skipTrivia(offset);
    if (!has(i))
        return {TokenKind::End, i, i};
    const char c = m_src[i];
    // Flex hands a NUL byte to bison as character 0, which bison takes for the end of input.
    if (c == '\0')
        return {TokenKind::End, i, i + 1};

    // Fast paths, which give the same answer as the general longest-match below.
    if (isIdStart(c)) {
        uint32_t j = i + 1;
        while (isIdChar(at(j)))
            ++j;
        // A path or URI can only be longer when the identifier is followed by one of these.
        const char next = at(j);
        if (next != '.' && next != '+' && next != '/' && next != ':')
            return {keywordOrId(m_src.substr(i, j - i)), i, j};
        if (next == '.' || next == '+') {
            // `a.b.c`: an identifier unless the run reaches a '/' (path) or ':' (URI).
            const uint32_t run = pathCharRunEnd(i);
            const uint32_t scheme = schemeCharRunEnd(i + 1);
            if (at(run) != '/' && at(scheme) != ':')
                return {keywordOrId(m_src.substr(i, j - i)), i, j};
        }
    } else {
        switch (c) {
        case '{':
            return {TokenKind::LBrace, i, i + 1};
        case '}':
            return {TokenKind::RBrace, i, i + 1};
        case '(':
            return {TokenKind::LParen, i, i + 1};
        case ')':
            return {TokenKind::RParen, i, i + 1};
        case '[':
            return {TokenKind::LBracket, i, i + 1};
        case ']':
            return {TokenKind::RBracket, i, i + 1};
        case ';':
            return {TokenKind::Semicolon, i, i + 1};
        case ',':
            return {TokenKind::Comma, i, i + 1};
        case '"':
            return {TokenKind::Quote, i, i + 1};
        case '@':
            return {TokenKind::At, i, i + 1};
        case '?':
            return {TokenKind::Question, i, i + 1};
        case ':':
            return {TokenKind::Colon, i, i + 1};
        case '*':
            return {TokenKind::Star, i, i + 1};
        case '=':
            if (at(i + 1) == '=')
                return {TokenKind::Eq, i, i + 2};
            return {TokenKind::Assign, i, i + 1};
        default:
            break;
        }
    }

    // Every rule that can match here competes; the longest wins, the earliest rule on ties.
    TokenKind best = TokenKind::Invalid;
    uint32_t bestLen = 0;
    auto offer = [&](TokenKind kind, uint32_t len) {
        if (len > bestLen) {
            best = kind;
            bestLen = len;
        }
    };

    if (isIdStart(c)) {
        uint32_t j = i + 1;
        while (isIdChar(at(j)))
            ++j;
        offer(keywordOrId(m_src.substr(i, j - i)), j - i);
    }
    if (c == '.' && at(i + 1) == '.' && at(i + 2) == '.')
        offer(TokenKind::Ellipsis, 3);
    if (isDigit(c)) {
        uint32_t j = i;
        while (isDigit(at(j)))
            ++j;
        offer(TokenKind::Int, j - i);
    }
    // FLOAT: (([1-9][0-9]*\.[0-9]*)|(0?\.[0-9]+))([Ee][+-]?[0-9]+)?
    {
        uint32_t j = i;
        bool ok = false;
        if (c >= '1' && c <= '9') {
            while (isDigit(at(j)))
                ++j;
            if (at(j) == '.') {
                ++j;
                while (isDigit(at(j)))
                    ++j;
                ok = true;
            }
        } else if (c == '0' || c == '.') {
            if (c == '0')
                ++j;
            if (at(j) == '.' && isDigit(at(j + 1))) {
                ++j;
                while (isDigit(at(j)))
                    ++j;
                ok = true;
            }
        }
        if (ok) {
            if (at(j) == 'e' || at(j) == 'E') {
                uint32_t k = j + 1;
                if (at(k) == '+' || at(k) == '-')
                    ++k;
                if (isDigit(at(k))) {
                    while (isDigit(at(k)))
                        ++k;
                    j = k;
                }
            }
            offer(TokenKind::Float, j - i);
        }
    }
    switch (c) {
    case '=':
        offer(at(i + 1) == '=' ? TokenKind::Eq : TokenKind::Assign, at(i + 1) == '=' ? 2 : 1);
        break;
    case '!':
        offer(at(i + 1) == '=' ? TokenKind::Neq : TokenKind::Not, at(i + 1) == '=' ? 2 : 1);
        break;
    case '<':
        offer(at(i + 1) == '=' ? TokenKind::Leq : TokenKind::Less, at(i + 1) == '=' ? 2 : 1);
        break;
    case '>':
        offer(at(i + 1) == '=' ? TokenKind::Geq : TokenKind::Greater, at(i + 1) == '=' ? 2 : 1);
        break;
    case '&':
        offer(at(i + 1) == '&' ? TokenKind::And : TokenKind::OtherChar, at(i + 1) == '&' ? 2 : 1);
        break;
    case '|':
        offer(at(i + 1) == '|' ? TokenKind::Or : TokenKind::OtherChar, at(i + 1) == '|' ? 2 : 1);
        break;
    case '-':
        offer(at(i + 1) == '>' ? TokenKind::Impl : TokenKind::Minus, at(i + 1) == '>' ? 2 : 1);
        break;
    case '/':
        offer(at(i + 1) == '/' ? TokenKind::Update : TokenKind::Slash, at(i + 1) == '/' ? 2 : 1);
        break;
    case '+':
        offer(at(i + 1) == '+' ? TokenKind::Concat : TokenKind::Plus, at(i + 1) == '+' ? 2 : 1);
        break;
    case '$':
        if (at(i + 1) == '{')
            offer(TokenKind::DollarCurly, 2);
        else
            offer(TokenKind::OtherChar, 1);
        break;
    case '{':
        offer(TokenKind::LBrace, 1);
        break;
    case '}':
        offer(TokenKind::RBrace, 1);
        break;
    case '"':
        offer(TokenKind::Quote, 1);
        break;
    case '\'':
        if (at(i + 1) == '\'') {
            uint32_t j = i + 2;
            while (at(j) == ' ')
                ++j;
            offer(TokenKind::IndOpen, at(j) == '\n' ? j + 1 - i : 2);
        } else {
            offer(TokenKind::OtherChar, 1);
        }
        break;
    case '(':
        offer(TokenKind::LParen, 1);
        break;
    case ')':
        offer(TokenKind::RParen, 1);
        break;
    case '[':
        offer(TokenKind::LBracket, 1);
        break;
    case ']':
        offer(TokenKind::RBracket, 1);
        break;
    case ';':
        offer(TokenKind::Semicolon, 1);
        break;
    case ':':
        offer(TokenKind::Colon, 1);
        break;
    case ',':
        offer(TokenKind::Comma, 1);
        break;
    case '.':
        offer(TokenKind::Dot, 1);
        break;
    case '@':
        offer(TokenKind::At, 1);
        break;
    case '?':
        offer(TokenKind::Question, 1);
        break;
    case '*':
        offer(TokenKind::Star, 1);
        break;
    default:
        break;
    }
    // {PATH_SEG}\$\{ and {HPATH_START}\$\{ come before {PATH}/{HPATH} in lexer.l.
    {
        const uint32_t j = pathCharRunEnd(i);
        if (at(j) == '/' && at(j + 1) == '$' && at(j + 2) == '{')
            offer(TokenKind::Path, j + 3 - i);
    }
    if (c == '~' && at(i + 1) == '/' && at(i + 2) == '$' && at(i + 3) == '{')
        offer(TokenKind::HPath, 4);
    if (const uint32_t len = pathLength(i))
        offer(TokenKind::Path, len);
    if (c == '~' && at(i + 1) == '/') {
        if (const uint32_t len = pathLength(i + 1); len && !isPathChar(at(i + 1)))
            offer(TokenKind::HPath, len + 1);
    }
    if (c == '<' && isPathChar(at(i + 1))) {
        uint32_t j = i + 1;
        while (isPathChar(at(j)))
            ++j;
        while (at(j) == '/' && isPathChar(at(j + 1))) {
            j += 2;
            while (isPathChar(at(j)))
                ++j;
        }
        if (at(j) == '>')
            offer(TokenKind::SPath, j + 1 - i);
    }
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
        uint32_t j = schemeCharRunEnd(i + 1);
        if (at(j) == ':' && isUriChar(at(j + 1))) {
            ++j;
            while (isUriChar(at(j)))
                ++j;
            offer(TokenKind::Uri, j - i);
        }
    }
    if (bestLen == 0) {
        // Any other byte: a character token. '~', '%', non-ASCII, … are never used by the
        // grammar, so bison names them "invalid token".
        return {TokenKind::Invalid, i, i + 1};
    }
    // A path-segment-then-interpolation rule only starts the path; the token is the segment.
    if ((best == TokenKind::Path || best == TokenKind::HPath) && bestLen >= 2 &&
        m_src[i + bestLen - 1] == '{' && m_src[i + bestLen - 2] == '$')
        bestLen -= 2;
    return {best, i, i + bestLen};
}

uint32_t Lexer::scanStringRun(uint32_t i) const
{
    const auto n = static_cast<uint32_t>(m_src.size());
    while (i < n) {
        const char c = m_src[i];
        if (c == '"')
            return i;
        if (c == '\\') {
            if (i + 1 >= n)
                return n;
            i += 2;
        } else if (c == '$') {
            const char d = at(i + 1);
            if (d == '{')
                return i;
            if (i + 1 >= n)
                return n;
            if (d == '"') {
                ++i; // `$` right before the closing quote (flex trailing context)
            } else if (d == '\\') {
                i += (i + 2 < n) ? 3 : 2;
            } else {
                i += 2; // `$` swallows the next character, which is how `$${` stays literal
            }
        } else {
            ++i;
        }
    }
    return n;
}

uint32_t Lexer::scanIndentedRun(uint32_t i) const
{
    // ([^\$\']|\$[^\{\']|\'[^\'\$])+
    const auto n = static_cast<uint32_t>(m_src.size());
    while (i < n) {
        const char c = m_src[i];
        if (c == '$') {
            if (i + 1 >= n || m_src[i + 1] == '{' || m_src[i + 1] == '\'')
                return i;
            i += 2;
        } else if (c == '\'') {
            if (i + 1 >= n || m_src[i + 1] == '\'' || m_src[i + 1] == '$')
                return i;
            i += 2;
        } else {
            ++i;
        }
    }
    return i;
}

uint32_t Lexer::scanPathContinuation(uint32_t i) const
{
    // Longest of {PATH}, {PATH_SEG} = {PATH_CHAR}*\/ and {PATH_CHAR}+.
    uint32_t best = pathLength(i);
    uint32_t j = i;
    while (isPathChar(at(j)))
        ++j;
    if (j > i && j - i > best)
        best = j - i;
    if (at(j) == '/' && j + 1 - i > best)
        best = j + 1 - i;
    return i + best;
}

std::string_view Lexer::describe(TokenKind kind)
{
    const auto index = static_cast<size_t>(kind);
    return index < std::size(kTokenNames) ? kTokenNames[index].text : "invalid token";
}

} // namespace rg::nix
