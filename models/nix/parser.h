#pragma once

// Recursive-descent parser for the grammar of Nix 2.8 (parser.y), building the syntax tree of
// node.h in an arena. Internal to rg_nix: SyntaxTree is the public entry point.

#include "nix/lexer.h"
#include "nix/node.h"

#include <memory_resource>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace rg::nix {

class Lowering;
struct LoweredExpr;

// Thrown inside the front end only; SyntaxTree::parse turns it into a ParseError.
struct ParseFailure
{
    uint32_t offset = 0;
    std::string message;
    bool beyondLimit = false; // our nesting limit was reached, not a rule of Nix's grammar
};

class Parser
{
public:
    // Deep enough for any real recipe, shallow enough that recursion never exhausts a
    // thread's stack on adversarial input.
    static constexpr int kMaxDepth = 1000;     // nesting of the resulting tree
    static constexpr int kMaxRecursion = 2000; // guarded parser frames

    // With `eagerChecks`, duplicate attributes and formals are checked while parsing, as Nix
    // does, so that on broken input they are reported if they come before a syntax error.
    // (SyntaxTree uses this only for a second pass over input that failed.)
    Parser(std::string_view source, std::pmr::memory_resource* arena,
           Lowering* eagerChecks = nullptr);

    // The whole source as one expression; throws ParseFailure.
    const Node* parseFile();

    // The decoded value of a string node that Nix treats as a plain ExprString (no
    // interpolation, a single literal run, or a URI); nullptr otherwise.
    static std::optional<std::string_view> staticString(const Node* node);

private:
    // Tokens
    const Token& peek();
    Token take();
    Token expect(TokenKind kind, std::string_view expecting = {});
    [[noreturn]] void unexpected(const Token& token, std::string_view expecting = {});
    // Nix reports positions from flex's idea of the current lexeme, so we follow them.
    void noteLexeme(uint32_t begin, uint32_t end)
    {
        m_prevLexemeBegin = m_lastLexemeBegin;
        m_prevLexemeEnd = m_lastLexemeEnd;
        m_lastLexemeBegin = begin;
        m_lastLexemeEnd = end;
        m_eofLocation = -1;
    }
    uint32_t endOfFileOffset() const;
    uint32_t lexemeBeforeLast() const;
    Token lookahead(const Token& after) const { return m_lexer.lexAt(after.end); }

    // Grammar
    const Node* parseExpr();
    const Node* parseFunction();
    const Node* parseLambdaWithFormals(uint32_t begin, const Token* argBefore);
    const Node* parseFormals();
    const Node* parseIf();
    const Node* parseOp(int minPrec);
    const Node* parseUnary();
    const Node* parseApp();
    const Node* parseSelect();
    const Node* parseSimple();
    const Node* parseList(const Token& open); // after `[` was consumed
    const Node* parseString(const Token& open);
    uint32_t danglingStringFragment(uint32_t runBegin) const;
    const Node* parseIndentedString(const Token& open);
    // One token of an indented string before indentation is stripped.
    struct IndentedPart;
    // Fills `parts` from `pos` on; returns where the closing `''` starts.
    uint32_t scanIndentedString(uint32_t pos, std::vector<IndentedPart>* parts);
    static size_t minimumIndentation(const std::vector<IndentedPart>& parts);
    // Pushes each text part as a StringText node, at most `minIndent` spaces dropped from the
    // start of each line, and each interpolation as it is.
    void pushStrippedParts(const std::vector<IndentedPart>& parts, size_t minIndent);
    const Node* parsePath(const Token& first);
    const Node* parseInterpolation(uint32_t begin); // after `${` was consumed
    const Node* parseAttrPath();
    const Node* parseAttrSegment(bool inInherit);
    // Pushes Binding / Inherit nodes on the stack; returns the eager check's set, if any.
    LoweredExpr* parseBinds(TokenKind terminator, bool rec, uint32_t bindsStart);
    const Node* parseInherit();

    // Nodes
    Node* make(NodeKind kind, uint32_t begin, uint32_t end);
    const Node* finish(Node* node, size_t mark); // children = stack[mark…], popped
    const Node* leaf(NodeKind kind, uint32_t begin, uint32_t end, std::string_view text);
    const Node* withChildren(Node* node, std::initializer_list<const Node*> children);
    std::string_view store(std::string_view text);
    std::string_view decodeStringRun(uint32_t begin, uint32_t end);

    struct DepthGuard
    {
        explicit DepthGuard(Parser& p, uint32_t offset);
        ~DepthGuard() { --m_parser.m_depth; }
        Parser& m_parser;
    };

    Lexer m_lexer;
    std::string_view m_src;
    std::pmr::memory_resource* m_arena;
    std::vector<const Node*> m_stack;
    Token m_tok;
    bool m_hasTok = false;
    uint32_t m_pos = 0; // where the next token is lexed from
    int m_depth = 0;
    Lowering* m_eager = nullptr;
    std::unordered_map<const Node*, LoweredExpr*> m_eagerSets; // AttrSet node → its checked set
    uint32_t m_lastLexemeBegin = 0;
    uint32_t m_lastLexemeEnd = 0;
    uint32_t m_prevLexemeBegin = 0;
    uint32_t m_prevLexemeEnd = 0;
    int64_t m_eofLocation = -1; // set when a path ended at the end of input
};

} // namespace rg::nix
