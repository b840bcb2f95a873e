#include "nix/parser.h"

#include "nix/lowering.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace rg::nix {

namespace {

enum class Assoc { Left, Right, NonAssoc };

struct OpInfo
{
    int prec = 0; // 0: not a binary operator
    Assoc assoc = Assoc::Left;
    BinaryOp op = BinaryOp::None;
};

// Precedences of parser.y, weakest first (NOT is 7 and NEGATE 12, both prefix).
OpInfo binaryInfo(TokenKind kind)
{
    switch (kind) {
    case TokenKind::Impl:
        return {1, Assoc::Right, BinaryOp::Implies};
    case TokenKind::Or:
        return {2, Assoc::Left, BinaryOp::Or};
    case TokenKind::And:
        return {3, Assoc::Left, BinaryOp::And};
    case TokenKind::Eq:
        return {4, Assoc::NonAssoc, BinaryOp::Equal};
    case TokenKind::Neq:
        return {4, Assoc::NonAssoc, BinaryOp::NotEqual};
    case TokenKind::Less:
        return {5, Assoc::NonAssoc, BinaryOp::Less};
    case TokenKind::Greater:
        return {5, Assoc::NonAssoc, BinaryOp::Greater};
    case TokenKind::Leq:
        return {5, Assoc::NonAssoc, BinaryOp::LessEqual};
    case TokenKind::Geq:
        return {5, Assoc::NonAssoc, BinaryOp::GreaterEqual};
    case TokenKind::Update:
        return {6, Assoc::Right, BinaryOp::Update};
    case TokenKind::Plus:
        return {8, Assoc::Left, BinaryOp::Add};
    case TokenKind::Minus:
        return {8, Assoc::Left, BinaryOp::Subtract};
    case TokenKind::Star:
        return {9, Assoc::Left, BinaryOp::Multiply};
    case TokenKind::Slash:
        return {9, Assoc::Left, BinaryOp::Divide};
    case TokenKind::Concat:
        return {10, Assoc::Right, BinaryOp::Concat};
    case TokenKind::Question:
        // %nonassoc in parser.y, but its right side is an attrpath, so `a ? b ? c` never
        // meets the conflict that would make it an error.
        return {11, Assoc::Left, BinaryOp::None};
    default:
        return {};
    }
}

constexpr int kNotPrec = 7;
constexpr int kNegatePrec = 12;

bool startsSimple(TokenKind kind)
{
    switch (kind) {
    case TokenKind::Id:
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::Quote:
    case TokenKind::IndOpen:
    case TokenKind::Path:
    case TokenKind::HPath:
    case TokenKind::SPath:
    case TokenKind::Uri:
    case TokenKind::LParen:
    case TokenKind::Let:
    case TokenKind::Rec:
    case TokenKind::LBrace:
    case TokenKind::LBracket:
        return true;
    default:
        return false;
    }
}

bool startsAttr(TokenKind kind)
{
    return kind == TokenKind::Id || kind == TokenKind::OrKw || kind == TokenKind::Quote ||
           kind == TokenKind::DollarCurly;
}

// Nix accepts any integer literal that fits int64 (boost::lexical_cast<int64_t>).
void checkIntLiteral(std::string_view text, uint32_t offset)
{
    uint64_t value = 0;
    for (char c : text) {
        if (value > (static_cast<uint64_t>(INT64_MAX) - static_cast<uint64_t>(c - '0')) / 10)
            throw ParseFailure{offset, "invalid integer '" + std::string(text) + "'"};
        value = value * 10 + static_cast<uint64_t>(c - '0');
    }
}

// Nix rejects a float literal that strtod cannot represent.
void checkFloatLiteral(std::string_view text, uint32_t offset)
{
    const std::string copy(text);
    errno = 0;
    (void)std::strtod(copy.c_str(), nullptr);
    if (errno != 0)
        throw ParseFailure{offset, "invalid float '" + copy + "'"};
}

} // namespace

struct Parser::IndentedPart
{
    uint32_t begin = 0;
    uint32_t end = 0;
    std::string_view text;       // raw characters, or the value of an escape
    bool hasIndentation = false; // only ordinary runs take part in indentation
    const Node* interpolation = nullptr;
};

Parser::DepthGuard::DepthGuard(Parser& p, uint32_t offset) : m_parser(p)
{
    if (++m_parser.m_depth > kMaxRecursion) {
        --m_parser.m_depth;
        throw ParseFailure{offset, "expression nested too deeply", true};
    }
}

Parser::Parser(std::string_view source, std::pmr::memory_resource* arena, Lowering* eagerChecks)
    : m_lexer(source), m_src(source), m_arena(arena), m_eager(eagerChecks)
{
    m_stack.reserve(256);
}

const Token& Parser::peek()
{
    if (!m_hasTok) {
        m_tok = m_lexer.lexAt(m_pos);
        m_hasTok = true;
    }
    return m_tok;
}

Token Parser::take()
{
    const Token t = peek();
    m_hasTok = false;
    m_pos = t.end;
    noteLexeme(t.begin, t.end);
    return t;
}

// Nix reports "unexpected end of file" where flex's last lexeme began, and whitespace runs
// and comments are lexemes too.
// The start of the lexeme before the last one (whitespace and comments count).
uint32_t Parser::lexemeBeforeLast() const
{
    uint32_t last = m_prevLexemeBegin;
    uint32_t i = m_prevLexemeEnd;
    while (i < m_lastLexemeBegin) {
        const char c = m_src[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            last = i;
            while (i < m_lastLexemeBegin &&
                   (m_src[i] == ' ' || m_src[i] == '\t' || m_src[i] == '\r' || m_src[i] == '\n'))
                ++i;
        } else if (c == '#') {
            last = i;
            while (i < m_lastLexemeBegin && m_src[i] != '\n' && m_src[i] != '\r')
                ++i;
        } else if (c == '/' && i + 1 < m_lastLexemeBegin && m_src[i + 1] == '*') {
            last = i;
            const auto close = m_src.find("*/", i + 2);
            i = close == std::string_view::npos ? m_lastLexemeBegin : uint32_t(close + 2);
        } else {
            break;
        }
    }
    return last;
}

uint32_t Parser::endOfFileOffset() const
{
    if (m_eofLocation >= 0)
        return static_cast<uint32_t>(m_eofLocation);
    const auto n = static_cast<uint32_t>(m_src.size());
    uint32_t last = m_lastLexemeBegin;
    uint32_t i = m_lastLexemeEnd;
    while (i < n) {
        const char c = m_src[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            last = i;
            while (i < n &&
                   (m_src[i] == ' ' || m_src[i] == '\t' || m_src[i] == '\r' || m_src[i] == '\n'))
                ++i;
        } else if (c == '#') {
            last = i;
            while (i < n && m_src[i] != '\n' && m_src[i] != '\r')
                ++i;
        } else if (c == '/' && i + 1 < n && m_src[i + 1] == '*') {
            const auto close = m_src.find("*/", i + 2);
            if (close == std::string_view::npos)
                break;
            last = i;
            i = static_cast<uint32_t>(close + 2);
        } else {
            break;
        }
    }
    return last;
}

Token Parser::expect(TokenKind kind, std::string_view expecting)
{
    if (peek().kind != kind)
        unexpected(m_tok, expecting.empty() ? Lexer::describe(kind) : expecting);
    return take();
}

void Parser::unexpected(const Token& token, std::string_view expecting)
{
    std::string message = "syntax error, unexpected ";
    message += Lexer::describe(token.kind);
    if (!expecting.empty()) {
        message += ", expecting ";
        message += expecting;
    }
    const bool atNul = token.kind == TokenKind::End && token.begin < m_src.size();
    throw ParseFailure{token.kind == TokenKind::End && !atNul ? endOfFileOffset() : token.begin,
                       std::move(message)};
}

Node* Parser::make(NodeKind kind, uint32_t begin, uint32_t end)
{
    void* mem = m_arena->allocate(sizeof(Node), alignof(Node));
    Node* node = new (mem) Node;
    node->kind = kind;
    node->range = {begin, end};
    return node;
}

const Node* Parser::finish(Node* node, size_t mark)
{
    const size_t count = m_stack.size() - mark;
    if (count) {
        auto** array = static_cast<const Node**>(
            m_arena->allocate(count * sizeof(const Node*), alignof(const Node*)));
        int depth = 0;
        for (size_t i = 0; i < count; ++i) {
            array[i] = m_stack[mark + i];
            depth = std::max<int>(depth, array[i]->depth);
        }
        if (depth + 1 > kMaxDepth)
            throw ParseFailure{node->range.begin, "expression nested too deeply", true};
        node->depth = static_cast<uint16_t>(depth + 1);
        node->children = std::span<const Node* const>(array, count);
        m_stack.resize(mark);
    }
    return node;
}

const Node* Parser::withChildren(Node* node, std::initializer_list<const Node*> children)
{
    const size_t mark = m_stack.size();
    for (const Node* c : children)
        if (c)
            m_stack.push_back(c);
    return finish(node, mark);
}

const Node* Parser::leaf(NodeKind kind, uint32_t begin, uint32_t end, std::string_view text)
{
    Node* node = make(kind, begin, end);
    node->text = text;
    return node;
}

std::string_view Parser::store(std::string_view text)
{
    if (text.empty())
        return {};
    char* mem = static_cast<char*>(m_arena->allocate(text.size(), 1));
    std::memcpy(mem, text.data(), text.size());
    return {mem, text.size()};
}

// unescapeStr of Nix 2.8: \n \r \t, any other escaped character stands for itself, CR and
// CR LF become LF, and (a quirk of its C-string loop) a NUL byte ends the value.
std::string_view Parser::decodeStringRun(uint32_t begin, uint32_t end)
{
    const std::string_view raw = m_src.substr(begin, end - begin);
    if (raw.find_first_of(std::string_view("\\\r\0", 3)) == std::string_view::npos)
        return raw;
    std::string out;
    out.reserve(raw.size());
    for (size_t i = 0; i < raw.size();) {
        char c = raw[i++];
        if (c == '\0')
            break;
        if (c == '\\') {
            if (i >= raw.size())
                break;
            c = raw[i++];
            out += c == 'n' ? '\n' : c == 'r' ? '\r' : c == 't' ? '\t' : c;
        } else if (c == '\r') {
            out += '\n';
            if (i < raw.size() && raw[i] == '\n')
                ++i;
        } else {
            out += c;
        }
    }
    return store(out);
}

std::optional<std::string_view> Parser::staticString(const Node* node)
{
    if (!node)
        return std::nullopt;
    switch (node->kind) {
    case NodeKind::String:
    case NodeKind::IndentedString:
        if (node->children.empty())
            return std::string_view();
        if (node->children.size() == 1 && node->children[0]->kind == NodeKind::StringText)
            return node->children[0]->text;
        return std::nullopt;
    case NodeKind::Uri:
        return node->text;
    default:
        return std::nullopt;
    }
}

const Node* Parser::parseFile()
{
    const Node* root = parseExpr();
    if (peek().kind != TokenKind::End)
        unexpected(m_tok, "end of file");
    return root;
}

const Node* Parser::parseExpr()
{
    DepthGuard guard(*this, m_pos);
    return parseFunction();
}

const Node* Parser::parseFunction()
{
    DepthGuard guard(*this, m_pos);
    const Token tok = peek();
    switch (tok.kind) {
    case TokenKind::Id: {
        const Token next = lookahead(tok);
        if (next.kind == TokenKind::Colon) {
            take();
            take();
            const Node* body = parseFunction();
            Node* lambda = make(NodeKind::Lambda, tok.begin, m_pos);
            lambda->text = m_src.substr(tok.begin, tok.end - tok.begin);
            return withChildren(lambda, {body});
        }
        if (next.kind == TokenKind::At) {
            take();
            take();
            return parseLambdaWithFormals(tok.begin, &tok);
        }
        break;
    }
    case TokenKind::LBrace: {
        // `{` opens formals or an attribute set; Nix's GLR parser decides by what follows.
        bool formals = false;
        const Token t1 = lookahead(tok);
        if (t1.kind == TokenKind::Ellipsis) {
            formals = true;
        } else if (t1.kind == TokenKind::RBrace) {
            const TokenKind t2 = lookahead(t1).kind;
            formals = t2 == TokenKind::Colon || t2 == TokenKind::At;
        } else if (t1.kind == TokenKind::Id) {
            const Token t2 = lookahead(t1);
            if (t2.kind == TokenKind::Comma || t2.kind == TokenKind::Question) {
                formals = true;
            } else if (t2.kind == TokenKind::RBrace) {
                formals = true; // `{ a }` can only be formals; Nix then wants ':' or '@'
            }
        }
        if (formals)
            return parseLambdaWithFormals(tok.begin, nullptr);
        break;
    }
    case TokenKind::Assert:
    case TokenKind::With: {
        take();
        const Node* first = parseExpr();
        expect(TokenKind::Semicolon);
        const Node* body = parseFunction();
        Node* node = make(tok.kind == TokenKind::Assert ? NodeKind::Assert : NodeKind::With,
                          tok.begin, m_pos);
        return withChildren(node, {first, body});
    }
    case TokenKind::Let: {
        if (lookahead(tok).kind == TokenKind::LBrace)
            break; // legacy `let { … }` is a simple expression
        take();
        const size_t mark = m_stack.size();
        parseBinds(TokenKind::In, false, tok.end);
        take(); // IN
        const Node* body = parseFunction();
        m_stack.push_back(body);
        return finish(make(NodeKind::Let, tok.begin, m_pos), mark);
    }
    default:
        break;
    }
    return parseIf();
}

const Node* Parser::parseLambdaWithFormals(uint32_t begin, const Token* argBefore)
{
    const Node* formals = parseFormals();
    std::string_view arg;
    if (argBefore) {
        arg = m_src.substr(argBefore->begin, argBefore->end - argBefore->begin);
    } else if (peek().kind == TokenKind::At) {
        take();
        const Token id = expect(TokenKind::Id);
        arg = m_src.substr(id.begin, id.end - id.begin);
    }
    expect(TokenKind::Colon, argBefore || !arg.empty() ? "':'" : "':' or '@'");
    const Node* body = parseFunction();
    Node* lambda = make(NodeKind::Lambda, begin, m_pos);
    lambda->text = arg;
    withChildren(lambda, {formals, body});
    if (m_eager)
        m_eager->checkFormalsEagerly(*lambda);
    return lambda;
}

const Node* Parser::parseFormals()
{
    const Token open = expect(TokenKind::LBrace);
    const size_t mark = m_stack.size();
    bool ellipsis = false;
    for (;;) {
        const Token tok = peek();
        if (tok.kind == TokenKind::RBrace)
            break;
        if (tok.kind == TokenKind::Ellipsis) {
            take();
            ellipsis = true;
            if (peek().kind != TokenKind::RBrace)
                unexpected(m_tok, "'}'");
            break;
        }
        if (tok.kind != TokenKind::Id)
            unexpected(tok);
        take();
        Node* formal = make(NodeKind::Formal, tok.begin, tok.end);
        formal->text = m_src.substr(tok.begin, tok.end - tok.begin);
        if (peek().kind == TokenKind::Question) {
            take();
            const Node* def = parseExpr();
            formal->range.end = m_pos;
            m_stack.push_back(withChildren(formal, {def}));
        } else {
            m_stack.push_back(formal);
        }
        if (peek().kind == TokenKind::Comma) {
            take();
            continue;
        }
        if (peek().kind != TokenKind::RBrace)
            unexpected(m_tok);
        break;
    }
    const Token close = take();
    Node* node = make(NodeKind::Formals, open.begin, close.end);
    node->flag = ellipsis;
    return finish(node, mark);
}

const Node* Parser::parseIf()
{
    const Token tok = peek();
    if (tok.kind != TokenKind::If)
        return parseOp(0);
    take();
    const Node* cond = parseExpr();
    expect(TokenKind::Then);
    const Node* then = parseExpr();
    expect(TokenKind::Else);
    const Node* otherwise = parseExpr();
    return withChildren(make(NodeKind::If, tok.begin, m_pos), {cond, then, otherwise});
}

const Node* Parser::parseOp(int minPrec)
{
    DepthGuard guard(*this, m_pos);
    // Ranges run from the first to the last token, so they include parentheses around
    // operands (which make no node of their own).
    const uint32_t begin = peek().begin;
    const Node* lhs = parseUnary();
    for (;;) {
        const Token tok = peek();
        const OpInfo info = binaryInfo(tok.kind);
        if (info.prec == 0 || info.prec < minPrec)
            return lhs;
        take();
        if (tok.kind == TokenKind::Question) {
            const Node* path = parseAttrPath();
            lhs = withChildren(make(NodeKind::HasAttr, begin, m_pos), {lhs, path});
        } else {
            const int rhsMin = info.assoc == Assoc::Right ? info.prec : info.prec + 1;
            const Node* rhs = parseOp(rhsMin);
            Node* node = make(NodeKind::Binary, begin, m_pos);
            node->op = info.op;
            lhs = withChildren(node, {lhs, rhs});
        }
        if (info.assoc == Assoc::NonAssoc && binaryInfo(peek().kind).prec == info.prec)
            unexpected(m_tok);
    }
}

const Node* Parser::parseUnary()
{
    const Token tok = peek();
    if (tok.kind == TokenKind::Not) {
        take();
        const Node* operand = parseOp(kNotPrec + 1);
        return withChildren(make(NodeKind::Not, tok.begin, m_pos), {operand});
    }
    if (tok.kind == TokenKind::Minus) {
        take();
        const Node* operand = parseOp(kNegatePrec + 1);
        return withChildren(make(NodeKind::Negate, tok.begin, m_pos), {operand});
    }
    return parseApp();
}

const Node* Parser::parseApp()
{
    const uint32_t begin = peek().begin;
    const Node* fn = parseSelect();
    while (startsSimple(peek().kind)) {
        const Node* arg = parseSelect();
        fn = withChildren(make(NodeKind::Apply, begin, m_pos), {fn, arg});
    }
    return fn;
}

const Node* Parser::parseSelect()
{
    DepthGuard guard(*this, m_pos);
    const uint32_t begin = peek().begin;
    const Node* subject = parseSimple();
    const Token tok = peek();
    if (tok.kind == TokenKind::Dot) {
        take();
        const Node* path = parseAttrPath();
        if (peek().kind == TokenKind::OrKw) {
            take();
            const Node* def = parseSelect();
            return withChildren(make(NodeKind::Select, begin, m_pos), {subject, path, def});
        }
        return withChildren(make(NodeKind::Select, begin, m_pos), {subject, path});
    }
    if (tok.kind == TokenKind::OrKw) {
        // Nixpkgs once had a function called `or`: `f or` applies f to the variable `or`.
        take();
        const Node* var = leaf(NodeKind::Identifier, tok.begin, tok.end, "or");
        return withChildren(make(NodeKind::Apply, begin, tok.end), {subject, var});
    }
    return subject;
}

const Node* Parser::parseSimple()
{
    const Token tok = peek();
    const std::string_view text = m_src.substr(tok.begin, tok.end - tok.begin);
    switch (tok.kind) {
    case TokenKind::Id:
        take();
        return leaf(NodeKind::Identifier, tok.begin, tok.end, text);
    case TokenKind::Int:
        take();
        checkIntLiteral(text, tok.begin);
        return leaf(NodeKind::Int, tok.begin, tok.end, text);
    case TokenKind::Float:
        take();
        checkFloatLiteral(text, tok.begin);
        return leaf(NodeKind::Float, tok.begin, tok.end, text);
    case TokenKind::Quote:
        take();
        return parseString(tok);
    case TokenKind::IndOpen:
        take();
        return parseIndentedString(tok);
    case TokenKind::Path:
    case TokenKind::HPath:
        take();
        return parsePath(tok);
    case TokenKind::SPath:
        take();
        return leaf(NodeKind::SearchPath, tok.begin, tok.end, text.substr(1, text.size() - 2));
    case TokenKind::Uri:
        take();
        return leaf(NodeKind::Uri, tok.begin, tok.end, text);
    case TokenKind::LParen: {
        take();
        const Node* inner = parseExpr();
        expect(TokenKind::RParen);
        return inner;
    }
    case TokenKind::Let:
    case TokenKind::Rec: {
        take();
        const Token open = expect(TokenKind::LBrace);
        const size_t mark = m_stack.size();
        LoweredExpr* attrs = parseBinds(TokenKind::RBrace, true, open.end);
        const Token close = take();
        Node* node = make(tok.kind == TokenKind::Let ? NodeKind::LegacyLet : NodeKind::AttrSet,
                          tok.begin, close.end);
        node->flag = tok.kind == TokenKind::Rec;
        if (attrs && node->flag)
            m_eagerSets.emplace(node, attrs);
        return finish(node, mark);
    }
    case TokenKind::LBrace: {
        take();
        const size_t mark = m_stack.size();
        LoweredExpr* attrs = parseBinds(TokenKind::RBrace, false, tok.end);
        const Token close = take();
        Node* node = make(NodeKind::AttrSet, tok.begin, close.end);
        if (attrs)
            m_eagerSets.emplace(node, attrs);
        return finish(node, mark);
    }
    case TokenKind::LBracket:
        take();
        return parseList(tok);
    default:
        unexpected(tok);
    }
}

const Node* Parser::parseList(const Token& open)
{
    const size_t mark = m_stack.size();
    while (peek().kind != TokenKind::RBracket) {
        if (!startsSimple(m_tok.kind))
            unexpected(m_tok);
        m_stack.push_back(parseSelect());
    }
    const Token close = take();
    return finish(make(NodeKind::List, open.begin, close.end), mark);
}

const Node* Parser::parseInterpolation(uint32_t begin)
{
    const Node* e = parseExpr();
    const Token close = expect(TokenKind::RBrace);
    return withChildren(make(NodeKind::Interpolation, begin, close.end), {e});
}

uint32_t Parser::danglingStringFragment(uint32_t runBegin) const
{
    const auto n = static_cast<uint32_t>(m_src.size());
    uint32_t i = runBegin;
    while (i < n) {
        const char c = m_src[i];
        if (c == '\\') {
            if (i + 1 >= n)
                return i;
            i += 2;
        } else if (c == '$') {
            if (i + 1 >= n)
                return i;
            if (m_src[i + 1] == '\\') {
                if (i + 2 >= n)
                    return i;
                i += 3;
            } else {
                i += 2;
            }
        } else {
            ++i;
        }
    }
    return runBegin;
}

const Node* Parser::parseString(const Token& open)
{
    const size_t mark = m_stack.size();
    const auto n = static_cast<uint32_t>(m_src.size());
    uint32_t pos = open.end;
    bool sawInterpolation = false;
    for (;;) {
        const uint32_t end = m_lexer.scanStringRun(pos);
        if (end > pos)
            noteLexeme(pos, end);
        if (end > pos)
            m_stack.push_back(leaf(NodeKind::StringText, pos, end, decodeStringRun(pos, end)));
        if (end >= n && end > pos) {
            // At the end of input flex splits off a trailing `\`, `$` or `$\` as a token of
            // its own: a second STR, which only a string with an interpolation may have.
            const uint32_t fragment = danglingStringFragment(pos);
            if (fragment > pos) {
                noteLexeme(fragment, n);
                if (!sawInterpolation)
                    throw ParseFailure{fragment, "syntax error, unexpected STR, expecting '\"'"};
            }
        }
        pos = end;
        if (pos >= n)
            unexpected({TokenKind::End, n, n}, "'\"'");
        if (m_src[pos] == '"')
            break;
        // `${`
        noteLexeme(pos, pos + 2);
        m_pos = pos + 2;
        m_hasTok = false;
        m_stack.push_back(parseInterpolation(pos));
        pos = m_pos;
        sawInterpolation = true;
    }
    noteLexeme(pos, pos + 1);
    m_pos = pos + 1;
    m_hasTok = false;
    return finish(make(NodeKind::String, open.begin, pos + 1), mark);
}

const Node* Parser::parseIndentedString(const Token& open)
{
    std::vector<IndentedPart> parts;
    const uint32_t close = scanIndentedString(open.end, &parts);
    const size_t mark = m_stack.size();
    pushStrippedParts(parts, minimumIndentation(parts));
    noteLexeme(close, close + 2);
    m_pos = close + 2;
    m_hasTok = false;
    return finish(make(NodeKind::IndentedString, open.begin, close + 2), mark);
}

// Interpolations are parsed where they stand, so lexemes and errors come in the order Nix's
// lexer and parser, which take turns, produce them.
uint32_t Parser::scanIndentedString(uint32_t pos, std::vector<IndentedPart>* parts)
{
    const auto n = static_cast<uint32_t>(m_src.size());
    for (;;) {
        if (pos >= n)
            unexpected({TokenKind::End, n, n}, "IND_STR or DOLLAR_CURLY or IND_STRING_CLOSE");
        const char c = m_src[pos];
        const char d = pos + 1 < n ? m_src[pos + 1] : '\0';
        if (c == '\'' && d == '\'') {
            const char e = pos + 2 < n ? m_src[pos + 2] : '\0';
            if (e == '$') {
                parts->push_back({pos, pos + 3, "$", false, nullptr});
                noteLexeme(parts->back().begin, parts->back().end);
                pos += 3;
            } else if (e == '\'') {
                parts->push_back({pos, pos + 3, "''", false, nullptr});
                noteLexeme(parts->back().begin, parts->back().end);
                pos += 3;
            } else if (e == '\\' && pos + 3 < n) {
                parts->push_back({pos, pos + 4, decodeStringRun(pos + 2, pos + 4), false, nullptr});
                noteLexeme(parts->back().begin, parts->back().end);
                pos += 4;
            } else {
                return pos;
            }
        } else if (c == '$' && d == '{') {
            noteLexeme(pos, pos + 2);
            m_pos = pos + 2;
            m_hasTok = false;
            const Node* interpolation = parseInterpolation(pos);
            parts->push_back({pos, m_pos, {}, false, interpolation});
            pos = m_pos;
        } else if (const uint32_t end = m_lexer.scanIndentedRun(pos); end > pos) {
            noteLexeme(pos, end);
            parts->push_back({pos, end, m_src.substr(pos, end - pos), true, nullptr});
            pos = end;
        } else {
            // A lone `$` or `'` that no longer rule accepts.
            parts->push_back({pos, pos + 1, c == '$' ? "$" : "'", false, nullptr});
            noteLexeme(parts->back().begin, parts->back().end);
            pos += 1;
        }
    }
}

// stripIndentation of Nix 2.8, token by token, so that every quirk carries over: escapes
// and interpolations end a line's indentation, a whitespace-only last line is dropped.
size_t Parser::minimumIndentation(const std::vector<IndentedPart>& parts)
{
    bool atStartOfLine = true;
    size_t minIndent = 1000000;
    size_t curIndent = 0;
    for (const IndentedPart& part : parts) {
        if (!part.hasIndentation) {
            if (atStartOfLine) {
                atStartOfLine = false;
                minIndent = std::min(minIndent, curIndent);
            }
            continue;
        }
        const std::string_view text = part.text;
        for (size_t j = 0; j < text.size(); ++j) {
            if (atStartOfLine) {
                const char ch = text[j];
                if (ch == ' ') {
                    ++curIndent;
                } else if (ch == '\n') {
                    curIndent = 0;
                } else {
                    atStartOfLine = false;
                    minIndent = std::min(minIndent, curIndent);
                }
            } else {
                j = text.find('\n', j);
                if (j == std::string_view::npos)
                    break;
                atStartOfLine = true;
                curIndent = 0;
            }
        }
    }
    return minIndent;
}

void Parser::pushStrippedParts(const std::vector<IndentedPart>& parts, size_t minIndent)
{
    bool atStartOfLine = true;
    size_t curDropped = 0;
    std::string stripped;
    for (size_t i = 0; i < parts.size(); ++i) {
        const IndentedPart& part = parts[i];
        if (part.interpolation) {
            atStartOfLine = false;
            curDropped = 0;
            m_stack.push_back(part.interpolation);
            continue;
        }
        stripped.clear();
        const std::string_view text = part.text;
        for (size_t j = 0; j < text.size();) {
            if (atStartOfLine) {
                const char ch = text[j++];
                if (ch == ' ') {
                    if (curDropped++ >= minIndent)
                        stripped += ch;
                } else if (ch == '\n') {
                    curDropped = 0;
                    stripped += ch;
                } else {
                    atStartOfLine = false;
                    curDropped = 0;
                    stripped += ch;
                }
            } else {
                // The rest of the line is copied as it is.
                const size_t eol = text.find('\n', j);
                const size_t stop = eol == std::string_view::npos ? text.size() : eol + 1;
                stripped.append(text.data() + j, stop - j);
                j = stop;
                if (eol != std::string_view::npos)
                    atStartOfLine = true;
            }
        }
        if (i + 1 == parts.size()) {
            const auto p = stripped.find_last_of('\n');
            if (p != std::string::npos &&
                stripped.find_first_not_of(' ', p + 1) == std::string::npos)
                stripped.resize(p + 1);
        }
        const std::string_view raw = m_src.substr(part.begin, part.end - part.begin);
        m_stack.push_back(leaf(NodeKind::StringText, part.begin, part.end,
                               stripped == raw ? raw : store(stripped)));
    }
}

const Node* Parser::parsePath(const Token& first)
{
    const size_t mark = m_stack.size();
    m_stack.push_back(leaf(NodeKind::StringText, first.begin, first.end,
                           m_src.substr(first.begin, first.end - first.begin)));
    uint32_t pos = first.end;
    bool slash = m_src[first.end - 1] == '/';
    // Nix's grammar wants `${` right after the first segment, or one text run and then `${`.
    int partsAfterStart = 0;
    bool sawInterpolation = false;
    for (;;) {
        if (pos + 1 < m_src.size() && m_src[pos] == '$' && m_src[pos + 1] == '{') {
            noteLexeme(pos, pos + 2);
            m_pos = pos + 2;
            m_hasTok = false;
            m_stack.push_back(parseInterpolation(pos));
            pos = m_pos;
            slash = false;
            sawInterpolation = true;
            ++partsAfterStart;
            continue;
        }
        const uint32_t end = m_lexer.scanPathContinuation(pos);
        if (end == pos)
            break;
        if (!sawInterpolation && partsAfterStart == 1)
            throw ParseFailure{pos, "syntax error, unexpected STR, expecting DOLLAR_CURLY"};
        noteLexeme(pos, end);
        m_stack.push_back(leaf(NodeKind::StringText, pos, end, m_src.substr(pos, end - pos)));
        slash = m_src[end - 1] == '/';
        pos = end;
        ++partsAfterStart;
    }
    const bool atEnd = pos >= m_src.size();
    // Nix raises this while lexing the character after the slash, or at end of input where
    // flex's location is still that of the path piece ending in '/'.
    if (slash)
        throw ParseFailure{atEnd ? m_lastLexemeBegin : pos, "path has a trailing slash"};
    // PATH_END takes the location of the lexeme before the one that ended the path: the last
    // piece, or at the end of input the lexeme before that.
    const uint32_t pathEnd = atEnd ? lexemeBeforeLast() : m_lastLexemeBegin;
    if (!sawInterpolation && partsAfterStart == 1)
        throw ParseFailure{pathEnd, "syntax error, unexpected PATH_END, expecting DOLLAR_CURLY"};
    if (atEnd)
        m_eofLocation = pathEnd;
    m_pos = pos;
    m_hasTok = false;
    Node* node = make(NodeKind::Path, first.begin, pos);
    node->text = m_src.substr(first.begin, pos - first.begin);
    return finish(node, mark);
}

const Node* Parser::parseAttrSegment(bool inInherit)
{
    const Token tok = peek();
    switch (tok.kind) {
    case TokenKind::Id:
    case TokenKind::OrKw:
        take();
        return leaf(NodeKind::AttrName, tok.begin, tok.end,
                    m_src.substr(tok.begin, tok.end - tok.begin));
    case TokenKind::Quote: {
        take();
        const Node* str = parseString(tok);
        if (inInherit && !staticString(str))
            throw ParseFailure{tok.begin, "dynamic attributes not allowed in inherit"};
        return str;
    }
    case TokenKind::DollarCurly: {
        take();
        const Node* interpolation = parseInterpolation(tok.begin);
        if (inInherit && !staticString(interpolation->children[0]))
            throw ParseFailure{tok.begin, "dynamic attributes not allowed in inherit"};
        return interpolation;
    }
    default:
        unexpected(tok, "ID or OR_KW or DOLLAR_CURLY or '\"'");
    }
}

const Node* Parser::parseAttrPath()
{
    const size_t mark = m_stack.size();
    const uint32_t begin = peek().begin;
    m_stack.push_back(parseAttrSegment(false));
    while (peek().kind == TokenKind::Dot) {
        take();
        m_stack.push_back(parseAttrSegment(false));
    }
    const size_t segments = m_stack.size() - mark;
    Node* path = make(NodeKind::AttrPath, begin, m_stack.back()->range.end);
    finish(path, mark);
    // `a.b.c = 1;` becomes nested sets when lowered, so long paths count as nesting too.
    if (path->depth + segments > kMaxDepth)
        throw ParseFailure{begin, "expression nested too deeply", true};
    path->depth = static_cast<uint16_t>(path->depth + segments);
    return path;
}

const Node* Parser::parseInherit()
{
    const Token tok = take();
    const size_t mark = m_stack.size();
    bool hasSource = false;
    if (peek().kind == TokenKind::LParen) {
        take();
        m_stack.push_back(parseExpr());
        expect(TokenKind::RParen);
        hasSource = true;
    }
    while (startsAttr(peek().kind))
        m_stack.push_back(parseAttrSegment(true));
    const Token semi = expect(TokenKind::Semicolon);
    Node* node = make(NodeKind::Inherit, tok.begin, semi.end);
    node->flag = hasSource;
    return finish(node, mark);
}

LoweredExpr* Parser::parseBinds(TokenKind terminator, bool rec, uint32_t bindsStart)
{
    LoweredExpr* attrs = m_eager ? m_eager->beginBinds(rec, bindsStart) : nullptr;
    for (;;) {
        const Token tok = peek();
        if (tok.kind == terminator)
            return attrs;
        if (tok.kind == TokenKind::Inherit) {
            m_stack.push_back(parseInherit());
            if (m_eager)
                m_eager->addBindEagerly(attrs, *m_stack.back(), bindsStart, nullptr);
            continue;
        }
        if (!startsAttr(tok.kind))
            unexpected(tok);
        const Node* path = parseAttrPath();
        expect(TokenKind::Assign, "'.' or '='");
        const Node* value = parseExpr();
        const Token semi = expect(TokenKind::Semicolon);
        m_stack.push_back(
            withChildren(make(NodeKind::Binding, tok.begin, semi.end), {path, value}));
        if (m_eager) {
            const auto set = m_eagerSets.find(value);
            m_eager->addBindEagerly(attrs, *m_stack.back(), bindsStart,
                                    set != m_eagerSets.end() ? set->second
                                                             : m_eager->opaque(value->range.begin));
        }
    }
}

} // namespace rg::nix
