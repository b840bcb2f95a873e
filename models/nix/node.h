#pragma once

// The Nix syntax tree. Every node knows the exact bytes it came from, so the rest of
// RecipeGrid can point at evidence (file:line) and rewrite only the bytes an edit means to.
// Nodes live in the arena of the SyntaxTree that made them and are never copied.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace rg::nix {

// Half-open byte range [begin, end) into the parsed source.
struct SourceRange
{
    uint32_t begin = 0;
    uint32_t end = 0;

    uint32_t length() const { return end - begin; }
    bool contains(uint32_t offset) const { return offset >= begin && offset < end; }
    friend bool operator==(const SourceRange&, const SourceRange&) = default;
};

// Layout of `children` for each kind (a child slot marked "opt." may be absent; the
// stated order is always kept):
//   Int, Float          text = literal as written; no children
//   String              "..."; children = StringText | Interpolation parts, in order
//   IndentedString      ''...''; same parts, StringText already unescaped and unindented;
//                       one StringText per Nix token (a run, or one escape such as ''$)
//   StringText          text = the decoded characters of one literal run (escapes resolved)
//   Interpolation       ${ e }; children[0] = e
//   Path                ./a/${x}, /abs, ~/p; text = source text; children = StringText parts
//                       as written (the first is the leading segment) | Interpolation
//   SearchPath          <nixpkgs/lib>; text = "nixpkgs/lib"
//   Uri                 http://…; text = the URI
//   Identifier          a variable reference (true/false/null are identifiers too); text = name
//   Select              children[0] = subject, [1] = AttrPath, [2] opt. = `or` default
//   HasAttr             e ? a.b; children[0] = e, [1] = AttrPath
//   AttrPath            children = AttrName | String | Interpolation, one per dotted segment
//   AttrName            a bare attribute name in a path, inherit or formal; text = name
//   AttrSet             { … } / rec { … }; flag = rec; children = Binding | Inherit
//   Binding             a.b = v; children[0] = AttrPath, [1] = value
//   Inherit             inherit (src) a "b"; flag = has source; children[0] = src when flag,
//                       then AttrName | String per inherited name
//   Let                 let <bindings> in body; children = Binding | Inherit …, last = body
//   LegacyLet           let { <bindings> }; children = Binding | Inherit
//   With                children[0] = scope, [1] = body
//   Assert              children[0] = condition, [1] = body
//   If                  children[0] = condition, [1] = then, [2] = else
//   Lambda              text = argument name (x: or x @ {…}) or empty;
//                       children = [Formals], body  — body is always children.back()
//   Formals             { a, b ? d, ... }; flag = has ellipsis; children = Formal
//   Formal              text = name; children[0] opt. = default value
//   Apply               f x; children[0] = function, [1] = argument (f x y nests left);
//                       `f or` applies f to the Identifier `or`, as Nix does
//   List                children = elements
//   Not, Negate         !e, -e; children[0] = operand
//   Binary              op = the operator; children[0] = left, [1] = right
// Parentheses make no node: `(e)` is e's node, whose range excludes the parentheses.
enum class NodeKind : uint8_t {
    Int,
    Float,
    String,
    IndentedString,
    StringText,
    Interpolation,
    Path,
    SearchPath,
    Uri,
    Identifier,
    Select,
    HasAttr,
    AttrPath,
    AttrName,
    AttrSet,
    Binding,
    Inherit,
    Let,
    LegacyLet,
    With,
    Assert,
    If,
    Lambda,
    Formals,
    Formal,
    Apply,
    List,
    Not,
    Negate,
    Binary,
};

enum class BinaryOp : uint8_t {
    None,
    Equal,        // ==
    NotEqual,     // !=
    Less,         // <
    LessEqual,    // <=
    Greater,      // >
    GreaterEqual, // >=
    And,          // &&
    Or,           // ||
    Implies,      // ->
    Update,       // //
    Concat,       // ++
    Add,          // +
    Subtract,     // -
    Multiply,     // *
    Divide,       // /
};

struct Node
{
    NodeKind kind = NodeKind::Identifier;
    BinaryOp op = BinaryOp::None;
    bool flag = false;
    uint16_t depth = 1; // height of this subtree (a leaf is 1); bounded by the parser
    SourceRange range;
    std::string_view text; // points into the tree's source or its arena
    std::span<const Node* const> children;

    const Node* child(size_t i) const { return i < children.size() ? children[i] : nullptr; }

    // Named slots of the layout above. Each is meaningful only for the kinds it names and
    // returns null (or an empty span) when the slot is absent.
    using Children = std::span<const Node* const>;

    // Select, HasAttr
    const Node* subject() const { return child(0); }
    const Node* attrPath() const { return child(1); }
    const Node* orDefault() const { return child(2); } // Select only
    // AttrPath
    Children segments() const { return children; }
    // Binding
    const Node* bindingPath() const { return child(0); }
    const Node* bindingValue() const { return child(1); }
    // Inherit: the `(src)` expression, then the inherited names (AttrName | String).
    const Node* inheritSource() const { return flag ? child(0) : nullptr; }
    Children inheritedNames() const
    {
        return flag ? children.subspan(children.empty() ? 0 : 1) : children;
    }
    // Let: the Binding | Inherit children before the body; AttrSet, LegacyLet: all children.
    Children bindings() const
    {
        return kind == NodeKind::Let && !children.empty() ? children.first(children.size() - 1)
                                                          : children;
    }
    const Node* letBody() const { return children.empty() ? nullptr : children.back(); }
    bool isRec() const { return flag; } // AttrSet
    // With
    const Node* withScope() const { return child(0); }
    const Node* withBody() const { return child(1); }
    // If, Assert
    const Node* condition() const { return child(0); }
    const Node* thenBranch() const { return child(1); }
    const Node* elseBranch() const { return child(2); }
    const Node* assertBody() const { return child(1); }
    // Lambda: the argument name (`x:` or the `@` name) is `text`.
    const Node* lambdaFormals() const
    {
        return children.size() > 1 && children[0]->kind == NodeKind::Formals ? children[0]
                                                                             : nullptr;
    }
    const Node* lambdaBody() const { return children.empty() ? nullptr : children.back(); }
    // Formals: the Formal children; `...` is `flag`.
    Children formals() const { return children; }
    bool hasEllipsis() const { return flag; }
    // Formal: its name is `text`.
    const Node* formalDefault() const { return child(0); }
    // Apply
    const Node* function() const { return child(0); }
    const Node* argument() const { return child(1); }
    // Binary
    const Node* left() const { return child(0); }
    const Node* right() const { return child(1); }
    // Not, Negate
    const Node* operand() const { return child(0); }
    // List
    Children elements() const { return children; }
    // String, IndentedString, Path: StringText | Interpolation, in order.
    Children parts() const { return children; }
    // Interpolation
    const Node* interpolated() const { return child(0); }
};

// The decoded value of a String / IndentedString without interpolation; nullopt otherwise.
std::optional<std::string> literalString(const Node& node);

// "a.b.c" for an AttrPath whose segments are all static (AttrName or literal String).
std::optional<std::string> attrPathString(const Node& attrPath);

// Depth-first, parents before children. `visit` returns false to skip a node's children.
template <typename Visit> void forEachNode(const Node& node, Visit&& visit)
{
    if (!visit(node))
        return;
    for (const Node* child : node.children)
        if (child)
            forEachNode(*child, visit);
}

} // namespace rg::nix
