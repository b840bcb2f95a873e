#include "nix/syntaxtree.h"

#include "nix/lowering.h"
#include "nix/parsenotationprinter.h"
#include "nix/parser.h"
#include "nix/semanticcheck.h"

#include <cstdlib>
#include <filesystem>
#include <memory_resource>

namespace rg::nix {

struct SyntaxTree::Data
{
    std::string source;
    std::pmr::monotonic_buffer_resource arena;
    const Node* root = nullptr;
    std::optional<ParseError> error;
};

namespace {

ParseError makeError(std::string_view source, uint32_t offset, std::string message)
{
    ParseError error;
    error.offset = std::min<uint32_t>(offset, static_cast<uint32_t>(source.size()));
    error.message = std::move(message);
    const auto [line, column] = Lexer(source).position(error.offset);
    error.line = line;
    error.column = column;
    return error;
}

// A message quotes the token it is about ('name'); a hostile file's multi-megabyte identifier
// or number would be quoted whole. Quoted runs longer than this are cut, saying how long.
std::string withShortQuotes(const std::string& message)
{
    constexpr size_t longest = 80;
    std::string out;
    size_t at = 0;
    while (at < message.size()) {
        const size_t open = message.find('\'', at);
        const size_t close = open == std::string::npos ? open : message.find('\'', open + 1);
        if (close == std::string::npos) {
            out += message.substr(at);
            break;
        }
        const size_t length = close - open - 1;
        out += message.substr(at, open + 1 - at);
        if (length > longest)
            out +=
                message.substr(open + 1, longest) + "\u2026 (" + std::to_string(length) + " bytes)";
        else
            out += message.substr(open + 1, length);
        out += '\'';
        at = close + 1;
    }
    return out;
}

// Nix finds duplicate attributes and formals while parsing; when the input is broken one of
// those can come before the syntax error. Parsing again with the checks made eagerly tells.
ParseFailure firstFailure(std::string_view src, const ParseFailure& failure)
{
    try {
        std::pmr::monotonic_buffer_resource arena;
        SymbolTable symbols;
        Lowering eager(src, symbols, &arena);
        Parser parser(src, &arena, &eager);
        parser.parseFile();
    } catch (const ParseFailure& first) {
        return first;
    } catch (const std::exception&) {
    }
    return failure;
}

} // namespace

SyntaxTree::SyntaxTree() : d(std::make_unique<Data>()) {}
SyntaxTree::SyntaxTree(SyntaxTree&&) noexcept = default;
SyntaxTree& SyntaxTree::operator=(SyntaxTree&&) noexcept = default;
SyntaxTree::~SyntaxTree() = default;

SyntaxTree SyntaxTree::parse(std::string source)
{
    SyntaxTree tree;
    tree.d->source = std::move(source);
    const std::string_view src = tree.d->source;
    try {
        if (src.size() >= UINT32_MAX)
            throw ParseFailure{0, "file too large"};
        Parser parser(src, &tree.d->arena);
        const Node* root = nullptr;
        try {
            root = parser.parseFile();
        } catch (const ParseFailure& failure) {
            throw firstFailure(src, failure);
        }
        SemanticCheck::run(src, *root);
        tree.d->root = root;
    } catch (const ParseFailure& failure) {
        tree.d->root = nullptr;
        tree.d->error = makeError(src, failure.offset, withShortQuotes(failure.message));
        tree.d->error->beyondLimit = failure.beyondLimit;
    } catch (const std::exception& e) {
        tree.d->root = nullptr;
        tree.d->error = makeError(src, 0, std::string("internal parser error: ") + e.what());
    }
    return tree;
}

const Node* SyntaxTree::root() const
{
    return d->root;
}

const std::optional<ParseError>& SyntaxTree::error() const
{
    return d->error;
}

std::string_view SyntaxTree::source() const
{
    return d->source;
}

std::string SyntaxTree::toNixParseNotation() const
{
    std::error_code ec;
    return toNixParseNotation(std::filesystem::current_path(ec).string());
}

std::string SyntaxTree::toNixParseNotation(const std::string& baseDirectory) const
{
    if (!d->root)
        return {};
    try {
        std::pmr::monotonic_buffer_resource arena;
        SymbolTable symbols;
        Lowering lowering(d->source, symbols, &arena);
        const LoweredExpr* lowered = lowering.lower(*d->root);
        const char* home = std::getenv("HOME");
        ParseNotationPrinter printer(symbols, baseDirectory, home ? home : "");
        return printer.print(*lowered);
    } catch (const std::exception&) {
        return {};
    } catch (const ParseFailure&) {
        return {};
    }
}

} // namespace rg::nix
