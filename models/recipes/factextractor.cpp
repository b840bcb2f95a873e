#include "recipes/factextractor.h"

#include "nix/evaluator.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <string_view>
#include <unordered_map>

namespace rg {

using nix::Node;
using nix::NodeKind;
using nix::SourceRange;

namespace {

constexpr int maxResolveDepth = 48;
// Resolution steps one file may take, and the longest value it may build: strings that
// interpolate each other twice per level grow exponentially, and hostile input must not hang.
constexpr long resolveBudget = 1000000;
constexpr size_t maxResolvedLength = 64 * 1024;
// Stands for an interpolation that could not be evaluated inside a shell value, so the item
// it is part of is unknown rather than split out of Nix source text.
constexpr char unknownMark = '\x01';

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool isIdentChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool isDigits(std::string_view text)
{
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "python3Packages", "python313Packages"
bool isPythonPackageSet(std::string_view name)
{
    return startsWith(name, "python") && endsWith(name, "Packages") && name.size() > 14 &&
           isDigits(name.substr(6, name.size() - 14));
}

// "cudaPackages", "cudaPackages_13", "cudaPackages_12_9"
bool isCudaPackageSet(std::string_view name)
{
    if (!startsWith(name, "cudaPackages"))
        return false;
    std::string_view rest = name.substr(12);
    if (rest.empty())
        return true;
    if (rest.front() != '_')
        return false;
    return std::all_of(rest.begin(), rest.end(),
                       [](char c) { return c == '_' || (c >= '0' && c <= '9'); });
}

bool isCudaInputName(std::string_view name)
{
    return isCudaPackageSet(name) || name == "cudatoolkit" || name == "cudnn" ||
           name == "cuda_cudart" || name == "libcublas" || name == "nccl";
}

// A name binding visible in a scope. `node` is the value expression; when `lookupName` is
// set the binding came from `inherit name;` and resolves by looking the name up in `scope`;
// when `selectName` is set it came from `inherit (node) name;`.
struct Scope;
struct Value
{
    const Node* node = nullptr;
    const Scope* scope = nullptr;
    std::string_view lookupName;
    std::string_view selectName;
};

struct Scope
{
    enum class Kind { Let, Rec, Formals, With };
    Kind kind = Kind::Let;
    const Scope* parent = nullptr;
    const Node* withExpression = nullptr; // With only
    std::vector<std::pair<std::string_view, Value>> names;
};

struct BindingRecord
{
    std::string path;            // full attribute path from the nearest set that is an argument
    std::string last;            // its last segment
    const Node* value = nullptr; // null for `inherit`
    const Node* key = nullptr;   // the AttrPath, or the inherited AttrName
    Value resolved;              // how to resolve the value (covers inherit)
};

struct NodeRecord
{
    const Node* node;
    const Scope* scope;
};

// One contiguous run of resolved text that maps byte-for-byte to the source.
struct Piece
{
    size_t offset = 0; // into the resolved text
    size_t length = 0;
    uint32_t source = 0;
};

struct Resolved
{
    std::string text;
    SourceRange range; // the literal the value was found in (or the expression)
    std::vector<Piece> pieces;
    std::string elsewhere; // "lib/cpu-isa.nix:3" when written in one of the repository's modules

    // The source range of text[offset, offset+length) when it lies in one direct piece.
    std::optional<SourceRange> sourceOf(size_t offset, size_t length) const
    {
        for (const Piece& piece : pieces)
            if (offset >= piece.offset && offset + length <= piece.offset + piece.length) {
                const auto begin = static_cast<uint32_t>(piece.source + (offset - piece.offset));
                return SourceRange{begin, static_cast<uint32_t>(begin + length)};
            }
        return std::nullopt;
    }
};

struct ResolvedList
{
    std::vector<std::string> items;
    SourceRange range;
};

class Extractor
{
public:
    Extractor(const nix::SyntaxTree& tree, RecipeFacts& facts, nix::ModuleLoader* modules)
        : m_tree(tree), m_facts(facts), m_modules(modules)
    {
        // Sized for a typical recipe (~5 KB) so the walk rarely reallocates.
        m_bindings.reserve(128);
        m_applies.reserve(64);
        m_selects.reserve(128);
        m_identifiers.reserve(256);
        m_strings.reserve(128);
    }

    void run()
    {
        const Node* root = m_tree.root();
        if (!root)
            return;
        visit(*root, nullptr, std::string());
        for (const NodeRecord& apply : m_applies) {
            const auto arguments = callArguments(*apply.node);
            const std::string_view callee = calleeName(*apply.node);
            if ((callee == "import" || callee == "callPackage") && !arguments.empty() &&
                arguments[0] && arguments[0]->kind == NodeKind::Path &&
                (startsWith(arguments[0]->text, "./") || startsWith(arguments[0]->text, "../")))
                m_importsModules = true;
        }
        findOverlays();
        extractOverlayFacts();
        extractPins();
        extractValues();
        extractPackageSets();
        extractShellSettings();
        extractArchSinks();
        extractCompilerFlags();
        extractPlatforms();
        extractUnpinnedImports();
        extractPattern(*root);
    }

private:
    // ---- the walk -------------------------------------------------------------------------

    const Scope* newScope(Scope scope)
    {
        m_scopes.push_back(std::move(scope));
        return &m_scopes.back();
    }

    static std::string joinPath(const std::string& prefix, std::string_view segment)
    {
        if (prefix.empty())
            return std::string(segment);
        std::string path = prefix;
        path += '.';
        path += segment;
        return path;
    }

    static std::string staticPath(const Node& attrPath)
    {
        std::string path;
        for (const Node* segment : attrPath.children) {
            if (!path.empty())
                path += '.';
            if (segment->kind == NodeKind::AttrName)
                path += segment->text;
            else if (auto literal = nix::literalString(*segment))
                path += *literal;
            else
                path += '?';
        }
        return path;
    }

    static std::string_view lastSegment(const std::string& path)
    {
        const auto dot = path.rfind('.');
        return dot == std::string::npos ? std::string_view(path)
                                        : std::string_view(path).substr(dot + 1);
    }

    // Name bindings a `let` or `rec` contributes: single-segment bindings and inherits.
    void collectNames(const Node& owner, Scope& scope, const Scope* outer)
    {
        for (const Node* child : owner.bindings()) {
            if (child->kind == NodeKind::Binding) {
                const Node* path = child->bindingPath();
                if (path && path->segments().size() == 1 &&
                    path->segments().front()->kind == NodeKind::AttrName)
                    scope.names.emplace_back(path->segments().front()->text,
                                             Value{child->bindingValue(), &scope, {}, {}});
            } else if (child->kind == NodeKind::Inherit) {
                const Node* source = child->inheritSource();
                for (const Node* name : child->inheritedNames()) {
                    if (name->kind != NodeKind::AttrName)
                        continue;
                    // `inherit (e) x;` evaluates e in the let's / rec set's own scope; only a
                    // plain `inherit x;` looks outside it.
                    if (source)
                        scope.names.emplace_back(name->text, Value{source, &scope, {}, name->text});
                    else
                        scope.names.emplace_back(name->text, Value{nullptr, outer, name->text, {}});
                }
            }
        }
    }

    void visitBindings(const Node& owner, const Scope* scope, const Scope* inheritScope,
                       const std::string& prefix)
    {
        for (const Node* child : owner.bindings()) {
            if (child->kind == NodeKind::Binding) {
                const Node* key = child->bindingPath();
                const Node* value = child->bindingValue();
                if (!key || !value)
                    continue;
                BindingRecord record;
                record.path = joinPath(prefix, staticPath(*key));
                record.value = value;
                record.key = key;
                record.resolved = Value{value, scope, {}, {}};
                const std::string path = record.path;
                m_bindings.push_back(std::move(record));
                m_bindings.back().last = std::string(lastSegment(m_bindings.back().path));
                // Dynamic segments still get their values visited.
                for (const Node* segment : key->children)
                    if (segment->kind != NodeKind::AttrName)
                        visit(*segment, scope, std::string());
                visit(*value, scope, path);
            } else if (child->kind == NodeKind::Inherit) {
                const Node* source = child->inheritSource();
                if (source)
                    visit(*source, scope, std::string());
                for (const Node* name : child->inheritedNames()) {
                    std::string_view text = name->text;
                    std::string literal;
                    if (name->kind != NodeKind::AttrName) {
                        auto decoded = nix::literalString(*name);
                        if (!decoded)
                            continue;
                        literal = *decoded;
                        text = literal;
                    }
                    BindingRecord record;
                    record.path = joinPath(prefix, text);
                    record.key = name;
                    record.resolved = source ? Value{source, scope, {}, name->text}
                                             : Value{nullptr, inheritScope, name->text, {}};
                    m_bindings.push_back(std::move(record));
                    m_bindings.back().last = std::string(lastSegment(m_bindings.back().path));
                    if (!source)
                        m_identifiers.push_back({name, inheritScope});
                }
            }
        }
    }

    // Calls whose argument set belongs to the enclosing attribute (`passthru =
    // lib.optionalAttrs c { … }` still declares passthru fields).
    static bool isTransparentCall(std::string_view callee)
    {
        return callee == "optionalAttrs" || callee == "recursiveUpdate" || callee == "mkMerge";
    }

    void visit(const Node& node, const Scope* scope, const std::string& prefix)
    {
        switch (node.kind) {
        case NodeKind::Let: {
            Scope let;
            let.kind = Scope::Kind::Let;
            let.parent = scope;
            m_scopes.push_back(std::move(let));
            Scope& created = m_scopes.back();
            // `let inherit x;` takes x from the enclosing scope, not from the let itself.
            collectNames(node, created, scope);
            visitBindings(node, &created, scope, std::string());
            if (const Node* body = node.letBody())
                visit(*body, &created, prefix);
            return;
        }
        case NodeKind::LegacyLet: {
            m_scopes.push_back(Scope{Scope::Kind::Let, scope, nullptr, {}});
            Scope& created = m_scopes.back();
            collectNames(node, created, scope);
            visitBindings(node, &created, scope, std::string());
            return;
        }
        case NodeKind::AttrSet: {
            if (node.flag) {
                m_scopes.push_back(Scope{Scope::Kind::Rec, scope, nullptr, {}});
                Scope& created = m_scopes.back();
                m_recScopes.emplace(&node, &created);
                collectNames(node, created, scope);
                visitBindings(node, &created, scope, prefix);
            } else {
                visitBindings(node, scope, scope, prefix);
            }
            return;
        }
        case NodeKind::Lambda: {
            Scope formals;
            formals.kind = Scope::Kind::Formals;
            formals.parent = scope;
            if (!node.text.empty())
                formals.names.emplace_back(node.text, Value{});
            const Node* formalsNode = node.lambdaFormals();
            m_scopes.push_back(std::move(formals));
            Scope& created = m_scopes.back();
            if (formalsNode)
                for (const Node* formal : formalsNode->children) {
                    created.names.emplace_back(formal->text,
                                               Value{formal->formalDefault(), &created, {}, {}});
                    m_formals.push_back({formal, &created});
                }
            if (formalsNode)
                for (const Node* formal : formalsNode->children)
                    if (const Node* def = formal->formalDefault()) {
                        // `{ gpuArchSM ? "9.0" }:` states a value as much as a binding does.
                        BindingRecord record;
                        record.path = std::string(formal->text);
                        record.last = record.path;
                        record.value = def;
                        record.key = formal;
                        record.resolved = Value{def, &created, {}, {}};
                        m_bindings.push_back(std::move(record));
                        visit(*def, &created, std::string());
                    }
            if (!node.children.empty())
                visit(*node.children.back(), &created, prefix);
            return;
        }
        case NodeKind::With: {
            if (const Node* expr = node.withScope())
                visit(*expr, scope, std::string());
            const Scope* with = newScope(Scope{Scope::Kind::With, scope, node.withScope(), {}});
            if (const Node* body = node.withBody())
                visit(*body, with, prefix);
            return;
        }
        case NodeKind::Binary:
            if (node.op == nix::BinaryOp::Update) {
                for (const Node* child : node.children)
                    visit(*child, scope, prefix);
                return;
            }
            break;
        case NodeKind::If:
            if (node.condition())
                visit(*node.condition(), scope, std::string());
            for (const Node* branch : {node.thenBranch(), node.elseBranch()})
                if (branch)
                    visit(*branch, scope, prefix);
            return;
        case NodeKind::Assert:
            if (node.condition())
                visit(*node.condition(), scope, std::string());
            if (node.assertBody())
                visit(*node.assertBody(), scope, prefix);
            return;
        case NodeKind::Apply: {
            m_applies.push_back({&node, scope});
            if (node.function())
                visit(*node.function(), scope, std::string());
            if (const Node* argument = node.argument())
                visit(*argument, scope,
                      isTransparentCall(calleeName(node)) ? prefix : std::string());
            return;
        }
        case NodeKind::Select:
            m_selects.push_back({&node, scope});
            break;
        case NodeKind::Identifier:
            m_identifiers.push_back({&node, scope});
            return;
        case NodeKind::String:
        case NodeKind::IndentedString:
            m_strings.push_back({&node, scope});
            break;
        default:
            break;
        }
        for (const Node* child : node.children)
            if (child)
                visit(*child, scope, std::string());
    }

    // ---- resolution -----------------------------------------------------------------------

    // The last name of a callee: `lib.optionals c l` → "optionals", `f x` → "f".
    static std::string_view calleeName(const Node& apply)
    {
        const Node* callee = &apply;
        while (callee && callee->kind == NodeKind::Apply)
            callee = callee->function();
        if (!callee)
            return {};
        if (callee->kind == NodeKind::Identifier)
            return callee->text;
        if (callee->kind == NodeKind::Select) {
            const Node* path = callee->attrPath();
            if (path && !path->children.empty() &&
                path->children.back()->kind == NodeKind::AttrName)
                return path->children.back()->text;
        }
        return {};
    }

    // The arguments of a curried call, first to last: `f a b` → [a, b].
    static std::vector<const Node*> callArguments(const Node& apply)
    {
        std::vector<const Node*> arguments;
        const Node* call = &apply;
        while (call && call->kind == NodeKind::Apply) {
            arguments.push_back(call->argument());
            call = call->function();
        }
        std::reverse(arguments.begin(), arguments.end());
        return arguments;
    }

    // `a.b.c` as names: an Identifier subject and static segments; other subjects give "".
    static std::vector<std::pair<std::string_view, const Node*>> selectNames(const Node& select)
    {
        std::vector<std::pair<std::string_view, const Node*>> names;
        const Node* subject = select.subject();
        if (subject && subject->kind == NodeKind::Identifier)
            names.emplace_back(subject->text, subject);
        else if (subject && subject->kind == NodeKind::Select)
            names = selectNames(*subject);
        else
            names.emplace_back(std::string_view(), subject);
        if (const Node* path = select.attrPath())
            for (const Node* segment : path->children)
                names.emplace_back(segment->kind == NodeKind::AttrName ? segment->text
                                                                       : std::string_view(),
                                   segment);
        return names;
    }

    // Finds `name` in the lexical scopes. `found` is false when no scope binds it; a formal
    // without default binds it to an unknown value (node null).
    static std::optional<Value> lookup(std::string_view name, const Scope* scope)
    {
        for (; scope; scope = scope->parent) {
            if (scope->kind == Scope::Kind::With)
                continue; // lexical bindings win over `with` in Nix
            for (const auto& [bound, value] : scope->names)
                if (bound == name)
                    return value;
        }
        return std::nullopt;
    }

    // The expression a Value stands for, following identifiers and `inherit`.
    bool spend() const { return --m_budget >= 0; }

    std::optional<Value> dereference(Value value, int depth) const
    {
        for (; depth < maxResolveDepth && spend(); ++depth) {
            if (!value.lookupName.empty()) {
                auto found = lookup(value.lookupName, value.scope);
                if (!found)
                    return std::nullopt;
                value = *found;
                continue;
            }
            if (!value.node)
                return std::nullopt;
            if (!value.selectName.empty()) {
                auto set = dereference(Value{value.node, value.scope, {}, {}}, depth + 1);
                if (!set)
                    return std::nullopt;
                auto member = attribute(*set, value.selectName, depth + 1);
                if (!member)
                    return std::nullopt;
                value = *member;
                continue;
            }
            if (value.node->kind == NodeKind::Identifier) {
                auto found = lookup(value.node->text, value.scope);
                if (!found)
                    return value; // free or `with` variable: the identifier itself
                if (!found->node && found->lookupName.empty())
                    return value; // a formal without default
                value = *found;
                continue;
            }
            if (value.node->kind == NodeKind::Select && !value.node->orDefault()) {
                auto names = selectNames(*value.node);
                const Node* subject = value.node->subject();
                const Node* path = value.node->attrPath();
                if (!subject || !path)
                    return value;
                auto current = dereference(Value{subject, value.scope, {}, {}}, depth + 1);
                bool ok = current.has_value();
                for (const Node* segment : path->children) {
                    if (!ok || segment->kind != NodeKind::AttrName) {
                        ok = false;
                        break;
                    }
                    auto next = attribute(*current, segment->text, depth + 1);
                    if (!next) {
                        ok = false;
                        break;
                    }
                    current = dereference(*next, depth + 1);
                    ok = current.has_value();
                }
                if (ok)
                    return current;
                return value;
            }
            return value;
        }
        return std::nullopt;
    }

    // Member `name` of the attribute set `set` evaluates to, when it is a literal set.
    std::optional<Value> attribute(Value set, std::string_view name, int depth) const
    {
        if (depth > maxResolveDepth || !set.node)
            return std::nullopt;
        const Node* node = set.node;
        if (node->kind == NodeKind::Binary && node->op == nix::BinaryOp::Update) {
            // The right side of `//` wins.
            if (auto right = dereference(Value{node->right(), set.scope, {}, {}}, depth + 1))
                if (auto found = attribute(*right, name, depth + 1))
                    return found;
            if (auto left = dereference(Value{node->left(), set.scope, {}, {}}, depth + 1))
                return attribute(*left, name, depth + 1);
            return std::nullopt;
        }
        if (node->kind != NodeKind::AttrSet)
            return std::nullopt;
        const Scope* inner = set.scope;
        if (node->flag) {
            // Values of a rec set see their siblings.
            if (auto it = m_recScopes.find(node); it != m_recScopes.end())
                inner = it->second;
        }
        for (const Node* child : node->children) {
            if (child->kind == NodeKind::Binding) {
                const Node* path = child->bindingPath();
                if (path && path->segments().size() == 1 &&
                    path->segments().front()->kind == NodeKind::AttrName &&
                    path->segments().front()->text == name)
                    return Value{child->bindingValue(), inner, {}, {}};
            } else if (child->kind == NodeKind::Inherit) {
                const Node* source = child->inheritSource();
                for (const Node* inherited : child->inheritedNames())
                    if (inherited->text == name)
                        return source ? Value{source, inner, {}, name}
                                      : Value{nullptr, set.scope, name, {}};
            }
        }
        return std::nullopt;
    }

    // A string value: resolved through this file's bindings, or — when the file imports the
    // repository's own modules — by the evaluator, which follows them.
    std::optional<Resolved> resolveString(Value value, int depth = 0) const
    {
        auto local = resolveStringLocal(value, depth);
        if (local || depth > 0 || !importsModules())
            return local;
        return evaluatedString(value.node);
    }

    std::optional<Resolved> resolveStringLocal(Value value, int depth) const
    {
        if (depth > maxResolveDepth || !spend())
            return std::nullopt;
        auto target = dereference(value, depth + 1);
        if (!target || !target->node)
            return std::nullopt;
        // Memoised per expression and scope, so values built from each other resolve in
        // linear time however often they are shared.
        const Node& node = *target->node;
        const bool composite =
            node.kind == NodeKind::Binary ||
            std::any_of(node.children.begin(), node.children.end(),
                        [](const Node* part) { return part->kind == NodeKind::Interpolation; });
        if (!composite)
            return resolveStringUncached(*target, depth); // a literal: cheaper than a lookup
        const auto key = std::make_pair(target->node, target->scope);
        if (auto known = m_stringMemo.find(key); known != m_stringMemo.end())
            return known->second;
        auto result = resolveStringUncached(*target, depth);
        m_stringMemo.emplace(key, result);
        return result;
    }

    std::optional<Resolved> resolveStringUncached(const Value& resolvedTarget, int depth) const
    {
        const Value* target = &resolvedTarget;
        const Node& node = *target->node;
        Resolved result;
        result.range = node.range;
        switch (node.kind) {
        case NodeKind::String:
        case NodeKind::IndentedString:
            for (const Node* part : node.children) {
                if (part->kind == NodeKind::StringText) {
                    appendMapped(result, *part, 0, part->text.size());
                } else if (part->kind == NodeKind::Interpolation && part->interpolated()) {
                    auto inner = resolveString(Value{part->interpolated(), target->scope, {}, {}},
                                               depth + 1);
                    if (!inner)
                        return std::nullopt;
                    for (Piece piece : inner->pieces) {
                        piece.offset += result.text.size();
                        result.pieces.push_back(piece);
                    }
                    result.text += inner->text;
                }
                if (result.text.size() > maxResolvedLength)
                    return std::nullopt;
            }
            return result;
        case NodeKind::Int:
        case NodeKind::Float:
        case NodeKind::Path:
        case NodeKind::Uri:
            result.text = std::string(node.text);
            result.pieces.push_back({0, result.text.size(), node.range.begin});
            return result;
        case NodeKind::Binary:
            if (node.op == nix::BinaryOp::Add) {
                auto left = resolveString(Value{node.left(), target->scope, {}, {}}, depth + 1);
                auto right = resolveString(Value{node.right(), target->scope, {}, {}}, depth + 1);
                if (!left || !right)
                    return std::nullopt;
                result = *left;
                for (Piece piece : right->pieces) {
                    piece.offset += result.text.size();
                    result.pieces.push_back(piece);
                }
                result.text += right->text;
                result.range = node.range;
                if (result.text.size() > maxResolvedLength)
                    return std::nullopt;
                return result;
            }
            return std::nullopt;
        case NodeKind::Apply:
            return resolveLibraryCall(*target, depth);
        default:
            return std::nullopt;
        }
    }

    // ---- values from the repository's modules ---------------------------------------------

    bool importsModules() const { return m_modules && m_importsModules; }

    nix::Evaluator& evaluator() const
    {
        if (!m_evaluator)
            m_evaluator = std::make_unique<nix::Evaluator>(m_tree, m_facts.path, m_modules);
        return *m_evaluator;
    }

    // A known string the evaluator produced, with the pieces that lie in this file; a value
    // written in a module keeps its place there in `elsewhere` ("lib/cpu-isa.nix:3").
    std::optional<Resolved> fromEvaluated(const nix::Value& value, const Node* node) const
    {
        auto text = value.asString();
        if (!text)
            return std::nullopt;
        Resolved result;
        result.text = std::move(*text);
        result.range = node->range;
        for (const nix::StringPiece& piece : value.pieces())
            if (piece.file == m_facts.path)
                result.pieces.push_back({piece.offset, piece.length, piece.source});
        // Where it is written: its literal, or the first piece of it that lies in a module
        // (a string the evaluator built from a module's list, `toString isa.flags`).
        nix::Origin origin = value.origin();
        if (origin.file.empty() || origin.file == m_facts.path)
            for (const nix::StringPiece& piece : value.pieces())
                if (piece.file != m_facts.path) {
                    origin = {piece.file, {piece.source, piece.source}};
                    break;
                }
        if (!origin.file.empty() && origin.file != m_facts.path)
            if (const nix::SyntaxTree* module = m_modules->load(origin.file)) {
                const nix::TextPosition at =
                    nix::LineIndex(module->source()).position(origin.range.begin);
                result.elsewhere = std::string(origin.file) + ":" + std::to_string(at.line);
            }
        return result;
    }

    std::optional<Resolved> evaluatedString(const Node* node) const
    {
        if (!node)
            return std::nullopt;
        return fromEvaluated(evaluator().evaluate(*node), node);
    }

    std::optional<std::vector<std::optional<Resolved>>> evaluatedList(const Node* node) const
    {
        if (!node)
            return std::nullopt;
        const nix::Value value = evaluator().evaluate(*node);
        auto items = value.asStringList();
        if (!items)
            return std::nullopt;
        std::vector<std::optional<Resolved>> entries;
        for (const nix::StringListItem& item : *items)
            entries.push_back(item.text ? fromEvaluated(item.value, node) : std::nullopt);
        return entries;
    }

    // The string functions recipes use to build flag strings and arch lists, evaluated when
    // their arguments are known (`lib.concatStringsSep " " cpuFlags`, `lib.removePrefix "sm_"
    // gpuArch`, `toString cpuFlags`). Any other call is unknown.
    std::optional<Resolved> resolveLibraryCall(const Value& call, int depth) const
    {
        const std::string_view callee = calleeName(*call.node);
        const auto arguments = callArguments(*call.node);
        auto text = [&](size_t i) {
            return resolveString(Value{arguments[i], call.scope, {}, {}}, depth + 1);
        };
        if ((callee == "removePrefix" || callee == "removeSuffix") && arguments.size() == 2) {
            auto affix = text(0);
            auto subject = text(1);
            if (!affix || !subject)
                return std::nullopt;
            const bool prefix = callee == "removePrefix";
            const std::string& t = subject->text;
            if (prefix ? !startsWith(t, affix->text) : !endsWith(t, affix->text))
                return subject;
            const size_t begin = prefix ? affix->text.size() : 0;
            const size_t length = t.size() - affix->text.size();
            Resolved result;
            result.text = t.substr(begin, length);
            result.range = subject->range;
            if (auto exact = subject->sourceOf(begin, length))
                result.pieces.push_back({0, length, exact->begin});
            return result;
        }
        // The quotes escapeShellArg adds are shell syntax: the shell removes them again.
        if (callee == "escapeShellArg" && arguments.size() == 1)
            return text(0);
        const bool join = callee == "concatStringsSep" && arguments.size() == 2;
        const bool toString = callee == "toString" && arguments.size() == 1;
        if (!join && !toString)
            return std::nullopt;
        const Node* listNode = arguments.back();
        std::string separator = " ";
        if (join) {
            auto given = text(0);
            if (!given)
                return std::nullopt;
            separator = given->text;
        }
        auto items = listEntries(Value{listNode, call.scope, {}, {}}, depth + 1);
        if (!items) {
            if (toString)
                return resolveString(Value{listNode, call.scope, {}, {}}, depth + 1);
            return std::nullopt;
        }
        Resolved result;
        result.range = call.node->range;
        for (size_t i = 0; i < items->size(); ++i) {
            if (!(*items)[i])
                return std::nullopt; // one unknown element makes the whole string unknown
            if (i)
                result.text += separator;
            for (Piece piece : (*items)[i]->pieces) {
                piece.offset += result.text.size();
                result.pieces.push_back(piece);
            }
            result.text += (*items)[i]->text;
            if (result.text.size() > maxResolvedLength)
                return std::nullopt;
        }
        return result;
    }

    // The elements of a list expression, each resolved to a string when it can be (nullopt
    // elements are unknown); nullopt when the expression is not a list one can read.
    std::optional<std::vector<std::optional<Resolved>>> listEntries(Value value,
                                                                    int depth = 0) const
    {
        auto local = listEntriesLocal(value, depth);
        const bool complete =
            local && std::all_of(local->begin(), local->end(), [](const auto& e) { return e; });
        if (complete || depth > 0 || !importsModules())
            return local;
        if (auto evaluated = evaluatedList(value.node))
            return evaluated;
        return local;
    }

    std::optional<std::vector<std::optional<Resolved>>> listEntriesLocal(Value value,
                                                                         int depth) const
    {
        if (depth > maxResolveDepth || !spend())
            return std::nullopt;
        auto target = dereference(value, depth + 1);
        if (!target || !target->node)
            return std::nullopt;
        const Node& node = *target->node;
        std::vector<std::optional<Resolved>> items;
        if (node.kind == NodeKind::List) {
            for (const Node* element : node.children) {
                const Value item{element, target->scope, {}, {}};
                if (auto text = resolveString(item, depth + 1))
                    items.push_back(std::move(text));
                else if (auto inner = listEntries(item, depth + 1))
                    items.insert(items.end(), inner->begin(), inner->end());
                else
                    items.push_back(std::nullopt);
            }
            return items;
        }
        if (node.kind == NodeKind::Binary && node.op == nix::BinaryOp::Concat) {
            auto left = listEntries(Value{node.left(), target->scope, {}, {}}, depth + 1);
            auto right = listEntries(Value{node.right(), target->scope, {}, {}}, depth + 1);
            if (!left || !right)
                return std::nullopt;
            left->insert(left->end(), right->begin(), right->end());
            return left;
        }
        if (node.kind == NodeKind::Apply) {
            const std::string_view callee = calleeName(node);
            auto arguments = callArguments(node);
            // What the list holds when its condition holds: the variant's own values.
            if (callee == "optionals" && arguments.size() == 2)
                return listEntries(Value{arguments[1], target->scope, {}, {}}, depth + 1);
            if (callee == "optional" && arguments.size() == 2) {
                items.push_back(
                    resolveString(Value{arguments[1], target->scope, {}, {}}, depth + 1));
                return items;
            }
        }
        return std::nullopt;
    }

    std::optional<bool> resolveBool(Value value) const
    {
        auto target = dereference(value, 0);
        if (!target || !target->node || target->node->kind != NodeKind::Identifier)
            return std::nullopt;
        if (target->node->text == "true")
            return true;
        if (target->node->text == "false")
            return false;
        return std::nullopt;
    }

    // A list of strings, or nullopt when any element is unknown: a fact is a value or absent,
    // never an expression printed as an element.
    std::optional<ResolvedList> resolveList(Value value) const
    {
        auto entries = listEntries(value);
        auto target = dereference(value, 0);
        if (!entries || !target || !target->node)
            return std::nullopt;
        ResolvedList result;
        result.range = target->node->range;
        for (const auto& entry : *entries) {
            if (!entry)
                return std::nullopt;
            result.items.push_back(entry->text);
        }
        return result;
    }

    // ---- overlays -------------------------------------------------------------------------

    void addOverlayElements(Value list, int depth)
    {
        if (depth > 8)
            return;
        auto target = dereference(list, 0);
        if (!target || !target->node)
            return;
        const Node& node = *target->node;
        if (node.kind == NodeKind::List) {
            for (const Node* element : node.children) {
                auto overlay = dereference(Value{element, target->scope, {}, {}}, 0);
                const Node* function = overlay && overlay->node ? overlay->node : element;
                if (std::none_of(m_overlays.begin(), m_overlays.end(),
                                 [&](const Node* known) { return known == function; }))
                    m_overlays.push_back(function);
            }
        } else if (node.kind == NodeKind::Binary && node.op == nix::BinaryOp::Concat) {
            addOverlayElements(Value{node.left(), target->scope, {}, {}}, depth + 1);
            addOverlayElements(Value{node.right(), target->scope, {}, {}}, depth + 1);
        } else if (node.kind == NodeKind::Apply) {
            // lib.optionals cond [ … ]
            auto arguments = callArguments(node);
            if (calleeName(node) == "optionals" && arguments.size() == 2)
                addOverlayElements(Value{arguments[1], target->scope, {}, {}}, depth + 1);
        }
    }

    void findOverlays()
    {
        for (const BindingRecord& binding : m_bindings)
            if (binding.last == "overlays")
                addOverlayElements(binding.resolved, 0);
        for (const NodeRecord& apply : m_applies) {
            const std::string_view callee = calleeName(*apply.node);
            auto arguments = callArguments(*apply.node);
            if (arguments.size() != 1 || !arguments[0])
                continue;
            if (callee == "extend") {
                auto overlay = dereference(Value{arguments[0], apply.scope, {}, {}}, 0);
                const Node* function = overlay && overlay->node ? overlay->node : arguments[0];
                if (std::find(m_overlays.begin(), m_overlays.end(), function) == m_overlays.end())
                    m_overlays.push_back(function);
            } else if (callee == "appendOverlays" || callee == "applyOverlays") {
                addOverlayElements(Value{arguments[0], apply.scope, {}, {}}, 0);
            }
        }
        std::sort(m_overlays.begin(), m_overlays.end(),
                  [](const Node* a, const Node* b) { return a->range.begin < b->range.begin; });
    }

    bool inOverlay(const Node* node) const
    {
        if (!node)
            return false;
        return std::any_of(m_overlays.begin(), m_overlays.end(), [&](const Node* overlay) {
            return overlay->range.contains(node->range.begin);
        });
    }

    template <typename Range> static bool within(const Node* outer, const Range& range)
    {
        return outer->range.contains(range.begin) && range.end <= outer->range.end;
    }

    void extractOverlayFacts()
    {
        for (const Node* overlay : m_overlays) {
            std::vector<OverlayFact> found;
            // CUDA package-set switch: cudaPackages = final.cudaPackages_13
            for (const BindingRecord& binding : m_bindings) {
                if (!binding.value || binding.last != "cudaPackages" ||
                    !within(overlay, binding.key->range))
                    continue;
                std::string_view chosen;
                const Node* value = binding.value;
                if (value->kind == NodeKind::Select) {
                    auto names = selectNames(*value);
                    if (!names.empty())
                        chosen = names.back().first;
                } else if (value->kind == NodeKind::Identifier) {
                    chosen = value->text;
                }
                if (!chosen.empty() && isCudaPackageSet(chosen) && chosen != "cudaPackages") {
                    found.push_back(
                        {OverlayKind::CudaPackageSet, std::string(chosen), overlay->range});
                    if (!m_facts.cudaPackageSet)
                        m_facts.cudaPackageSet =
                            Fact<std::string>{std::string(chosen), value->range};
                    break;
                }
            }
            // MAGMA patch: magma = prev.magma.overrideAttrs (… patches …)
            const BindingRecord* magma = nullptr;
            bool patches = false;
            for (const BindingRecord& binding : m_bindings) {
                if (!within(overlay, binding.key->range))
                    continue;
                if (binding.last == "magma")
                    magma = &binding;
                if (binding.last == "patches")
                    patches = true;
            }
            if (magma && patches && magma->value) {
                std::string detail;
                for (const NodeRecord& string : m_strings) {
                    if (!within(magma->value, string.node->range))
                        continue;
                    auto text = resolveString(Value{string.node, string.scope, {}, {}});
                    if (text && endsWith(text->text, ".patch") &&
                        text->text.find('/') == std::string::npos) {
                        detail = text->text;
                        break;
                    }
                    if (text && endsWith(text->text, ".patch") && detail.empty())
                        detail = text->text.substr(text->text.rfind('/') + 1);
                }
                if (detail.empty())
                    nix::forEachNode(*magma->value, [&](const Node& node) {
                        if (detail.empty() && node.kind == NodeKind::Path &&
                            endsWith(node.text, ".patch"))
                            detail = std::string(node.text.substr(node.text.rfind('/') + 1));
                        return detail.empty();
                    });
                found.push_back({OverlayKind::MagmaPatch, detail, overlay->range});
            }
            // Torch upgrade: torch = pprev.torch.overrideAttrs (… version = "2.10.0" …)
            for (const BindingRecord& binding : m_bindings) {
                if (!binding.value || (binding.last != "torch" && binding.last != "pytorch") ||
                    !within(overlay, binding.key->range))
                    continue;
                std::optional<Fact<std::string>> version;
                for (const BindingRecord& inner : m_bindings) {
                    if (inner.last != "version" || !inner.key ||
                        !within(binding.value, inner.key->range))
                        continue;
                    if (auto text = resolveString(inner.resolved)) {
                        version = Fact<std::string>{text->text, text->range};
                        break;
                    }
                }
                if (version) {
                    found.push_back({OverlayKind::TorchUpgrade, version->value, overlay->range});
                    if (!m_overlayTorchVersion)
                        m_overlayTorchVersion = version;
                    break;
                }
            }
            if (found.empty())
                found.push_back({OverlayKind::Other, std::string(), overlay->range});
            m_facts.overlays.insert(m_facts.overlays.end(), found.begin(), found.end());
        }
    }

    // ---- pins -----------------------------------------------------------------------------

    void extractPins()
    {
        for (const NodeRecord& apply : m_applies) {
            const std::string_view callee = calleeName(*apply.node);
            PinFetcher fetcher;
            if (callee == "fetchTarball")
                fetcher = PinFetcher::FetchTarball;
            else if (callee == "fetchFromGitHub")
                fetcher = PinFetcher::FetchFromGitHub;
            else if (callee == "fetchGit")
                fetcher = PinFetcher::FetchGit;
            else if (callee == "fetchurl" || callee == "fetchzip")
                fetcher = PinFetcher::FetchUrl;
            else
                continue;
            // The curried call `f x` is one Apply; only look at the outermost of a chain.
            auto arguments = callArguments(*apply.node);
            if (arguments.size() != 1 || !arguments[0])
                continue;
            auto argument = dereference(Value{arguments[0], apply.scope, {}, {}}, 0);
            if (!argument || !argument->node)
                continue;
            PinFact pin;
            pin.fetcher = fetcher;
            std::optional<Resolved> revision;
            if (argument->node->kind == NodeKind::AttrSet) {
                auto member = [&](std::string_view name) { return attribute(*argument, name, 0); };
                auto text = [&](std::string_view name) -> std::optional<Resolved> {
                    auto value = member(name);
                    return value ? resolveString(*value) : std::nullopt;
                };
                pin.hasHash = member("sha256") || member("hash") || member("narHash");
                if (fetcher == PinFetcher::FetchFromGitHub) {
                    auto repo = text("repo");
                    if (!repo || repo->text != "nixpkgs")
                        continue;
                    revision = text("rev");
                    if (!revision)
                        revision = text("tag");
                } else if (fetcher == PinFetcher::FetchGit) {
                    auto url = text("url");
                    if (!url || url->text.find("nixpkgs") == std::string::npos)
                        continue;
                    revision = text("rev");
                    if (!revision)
                        revision = text("ref");
                } else {
                    auto url = text("url");
                    if (!url)
                        continue;
                    revision = revisionFromUrl(*url);
                }
            } else if (auto url = resolveString(*argument)) {
                if (fetcher == PinFetcher::FetchFromGitHub)
                    continue;
                revision = revisionFromUrl(*url);
            }
            if (!revision)
                continue;
            pin.revision = revision->text;
            if (auto exact = revision->sourceOf(0, revision->text.size()))
                pin.range = *exact;
            else
                pin.range = revision->range;
            m_facts.pins.push_back(std::move(pin));
        }
        std::sort(m_facts.pins.begin(), m_facts.pins.end(),
                  [](const PinFact& a, const PinFact& b) { return a.range.begin < b.range.begin; });
    }

    // The revision part of a nixpkgs archive URL: …/nixpkgs/archive/<rev>.tar.gz
    static std::optional<Resolved> revisionFromUrl(const Resolved& url)
    {
        const std::string& text = url.text;
        if (text.find("nixpkgs") == std::string::npos)
            return std::nullopt;
        // GitHub serves the same archive as …/archive/<rev>.tar.gz, …/tarball/<rev> (also
        // through api.github.com/repos/…) and codeload's …/tar.gz/<rev>.
        size_t begin = std::string::npos;
        for (std::string_view marker : {"/archive/", "/tarball/", "/tar.gz/"})
            if (const size_t at = text.find(marker); at != std::string::npos) {
                begin = at + marker.size();
                break;
            }
        size_t end = std::min(text.size(), text.find('?'));
        if (begin != std::string::npos) {
            for (std::string_view extension : {".tar.gz", ".tar.xz", ".tar.bz2", ".zip"})
                if (endsWith(std::string_view(text).substr(0, end), extension)) {
                    end -= extension.size();
                    break;
                }
        } else {
            begin = 0; // a channel URL or similar: the whole URL is the "revision"
        }
        Resolved result;
        result.text = text.substr(begin, end - begin);
        result.range = url.range;
        if (auto exact = url.sourceOf(begin, end - begin))
            result.pieces.push_back({0, end - begin, exact->begin});
        return result;
    }

    // ---- plain values ---------------------------------------------------------------------

    const BindingRecord* firstBinding(std::string_view last, bool outsideOverlays = true,
                                      bool lastOne = false) const
    {
        const BindingRecord* chosen = nullptr;
        for (const BindingRecord& binding : m_bindings) {
            if (binding.last != last || (outsideOverlays && inOverlay(binding.key)))
                continue;
            chosen = &binding;
            if (!lastOne)
                break;
        }
        return chosen;
    }

    std::optional<Fact<std::string>> stringFact(std::string_view last, bool exactPath = false,
                                                bool lastOne = false) const
    {
        std::optional<Fact<std::string>> fact;
        for (const BindingRecord& binding : m_bindings) {
            if ((exactPath ? binding.path != last : binding.last != last) || inOverlay(binding.key))
                continue;
            if (auto text = resolveString(binding.resolved)) {
                fact = Fact<std::string>{text->text, text->range};
                if (!lastOne)
                    break;
            }
        }
        return fact;
    }

    std::optional<Fact<std::vector<std::string>>> listFact(std::string_view last,
                                                           bool exactPath = false) const
    {
        for (const BindingRecord& binding : m_bindings) {
            if ((exactPath ? binding.path != last : binding.last != last) || inOverlay(binding.key))
                continue;
            if (auto list = resolveList(binding.resolved))
                return Fact<std::vector<std::string>>{list->items, list->range};
            if (auto text = resolveString(binding.resolved))
                return Fact<std::vector<std::string>>{{text->text}, text->range};
        }
        return std::nullopt;
    }

    void extractValues()
    {
        m_facts.pname = stringFact("pname", true, true);
        m_facts.gpuArchSM = stringFact("gpuArchSM");
        m_facts.gpuArchNum = stringFact("gpuArchNum");
        m_facts.gpuTargets = listFact("gpuTargets");
        m_facts.cpuFlags = listFact("cpuFlags");
        m_facts.description = stringFact("meta.description", true);
        m_facts.longDescription = stringFact("meta.longDescription", true);
        m_facts.platforms = listFact("meta.platforms", true);
        if (auto list = stringFact("TORCH_CUDA_ARCH_LIST"))
            m_facts.torchCudaArchList = list;

        // The version built: a top-level override wins over the overlay's upgrade.
        for (const BindingRecord& binding : m_bindings) {
            if (binding.path != "version" || inOverlay(binding.key) || isFetcherArgument(binding))
                continue;
            if (auto text = resolveString(binding.resolved)) {
                m_facts.torchVersion = Fact<std::string>{text->text, text->range};
                break;
            }
        }
        if (!m_facts.torchVersion && m_overlayTorchVersion)
            m_facts.torchVersion = m_overlayTorchVersion;

        for (const BindingRecord& binding : m_bindings) {
            if (!startsWith(binding.path, "passthru.") || inOverlay(binding.key))
                continue;
            const std::string field = binding.path.substr(9);
            if (field.find('.') != std::string::npos || m_facts.passthru.count(field))
                continue;
            const SourceRange range = binding.value ? binding.value->range : binding.key->range;
            m_facts.passthru[field] = Fact<std::string>{std::string(m_tree.text(range)), range};
        }

        for (const BindingRecord& binding : m_bindings) {
            if (binding.last == "cudaSupport") {
                if (auto value = resolveBool(binding.resolved)) {
                    const SourceRange range =
                        binding.value ? binding.value->range : binding.key->range;
                    if (!m_facts.cudaSupport || (*value && !m_facts.cudaSupport->value))
                        m_facts.cudaSupport = Fact<bool>{*value, range};
                }
            } else if ((binding.last == "useMagma" || binding.last == "magmaSupport" ||
                        binding.last == "USE_MAGMA") &&
                       !inOverlay(binding.key)) {
                const SourceRange range = binding.value ? binding.value->range : binding.key->range;
                if (auto value = resolveBool(binding.resolved); value && !*value)
                    m_facts.magmaDisabled.push_back({std::string(m_tree.text(range)), range});
                else if (auto text = resolveString(binding.resolved); text && isOff(text->text))
                    m_facts.magmaDisabled.push_back(
                        {binding.last == "USE_MAGMA" ? "USE_MAGMA=" + text->text : text->text,
                         range});
            } else if (binding.last == "filterMagma") {
                m_facts.magmaDisabled.push_back({"filterMagma", binding.key->range});
            }
        }
        for (const NodeRecord& identifier : m_identifiers)
            if (identifier.node->text == "filterMagma" &&
                std::none_of(m_facts.magmaDisabled.begin(), m_facts.magmaDisabled.end(),
                             [](const Fact<std::string>& f) { return f.value == "filterMagma"; }))
                m_facts.magmaDisabled.push_back({"filterMagma", identifier.node->range});
        for (const NodeRecord& apply : m_applies) {
            // lib.cmakeBool "USE_MAGMA" false
            if (calleeName(*apply.node) != "cmakeBool")
                continue;
            auto arguments = callArguments(*apply.node);
            if (arguments.size() != 2)
                continue;
            auto name = resolveString(Value{arguments[0], apply.scope, {}, {}});
            auto value = resolveBool(Value{arguments[1], apply.scope, {}, {}});
            if (name && value && name->text == "USE_MAGMA" && !*value)
                m_facts.magmaDisabled.push_back(
                    {std::string(m_tree.text(apply.node->range)), apply.node->range});
        }

        for (const NodeRecord& apply : m_applies) {
            const std::string_view callee = calleeName(*apply.node);
            auto arguments = callArguments(*apply.node);
            if (arguments.empty() || !arguments[0] || arguments[0]->kind != NodeKind::Path)
                continue;
            if ((callee == "callPackage" || callee == "import") &&
                endsWith(arguments[0]->text, ".nix") && !m_facts.wrappedFile)
                m_facts.wrappedFile =
                    Fact<std::string>{std::string(arguments[0]->text), arguments[0]->range};
        }
    }

    static bool isOff(std::string_view value)
    {
        return value == "OFF" || value == "off" || value == "0" || value == "FALSE" ||
               value == "false" || value == "NO" || value == "no" || value == "Off";
    }
    static bool isOn(std::string_view value)
    {
        return value == "ON" || value == "on" || value == "1" || value == "TRUE" ||
               value == "true" || value == "YES" || value == "yes" || value == "On";
    }

    bool isFetcherArgument(const BindingRecord& binding) const
    {
        for (const NodeRecord& apply : m_applies) {
            const std::string_view callee = calleeName(*apply.node);
            if (startsWith(callee, "fetch") && within(apply.node, binding.key->range))
                return true;
        }
        return false;
    }

    // ---- package sets ---------------------------------------------------------------------

    void notePythonSet(std::string_view set, const Node* node, std::string_view attribute,
                       const Node* attributeNode)
    {
        const bool torch = attribute == "torch" || attribute == "pytorch";
        if (torch && !m_facts.torchAttribute) {
            m_facts.torchAttribute =
                Fact<std::string>{std::string(attribute), attributeNode->range};
            m_facts.pythonPackageSet = Fact<std::string>{std::string(set), node->range};
            m_pythonFromTorch = true;
        } else if (!m_facts.pythonPackageSet) {
            m_facts.pythonPackageSet = Fact<std::string>{std::string(set), node->range};
        }
    }

    void extractPackageSets()
    {
        // Outside overlays first: overlays mention package sets they rebuild, not the base.
        for (int pass = 0; pass < 2; ++pass) {
            for (const NodeRecord& select : m_selects) {
                if ((pass == 0) == inOverlay(select.node))
                    continue;
                auto names = selectNames(*select.node);
                for (size_t i = 0; i + 1 < names.size(); ++i) {
                    std::string_view name = names[i].first;
                    std::string set;
                    if (isPythonPackageSet(name))
                        set = name;
                    else if (startsWith(name, "python") && isDigits(name.substr(6)) &&
                             names[i + 1].first == "pkgs" && i + 2 < names.size()) {
                        // python313.pkgs.torch
                        set = std::string(name) + "Packages";
                        ++i;
                    }
                    if (set.empty())
                        continue;
                    notePythonSet(set, names[i - (set != name ? 1 : 0)].second, names[i + 1].first,
                                  names[i + 1].second);
                    break;
                }
                if (m_facts.torchAttribute && pass == 0)
                    break;
            }
            if (m_facts.torchAttribute)
                break;
        }
        // `with python3Packages; torch.override …`
        if (!m_facts.torchAttribute)
            for (const NodeRecord& identifier : m_identifiers) {
                const std::string_view name = identifier.node->text;
                if ((name != "torch" && name != "pytorch") || inOverlay(identifier.node) ||
                    lookup(name, identifier.scope))
                    continue;
                for (const Scope* scope = identifier.scope; scope; scope = scope->parent) {
                    if (scope->kind != Scope::Kind::With || !scope->withExpression)
                        continue;
                    const Node* expr = scope->withExpression;
                    std::string_view set;
                    if (expr->kind == NodeKind::Identifier)
                        set = expr->text;
                    else if (expr->kind == NodeKind::Select)
                        set = selectNames(*expr).back().first;
                    if (isPythonPackageSet(set)) {
                        m_facts.torchAttribute =
                            Fact<std::string>{std::string(name), identifier.node->range};
                        m_facts.pythonPackageSet = Fact<std::string>{std::string(set), expr->range};
                        m_pythonFromTorch = true;
                        break;
                    }
                }
                if (m_facts.torchAttribute)
                    break;
            }
        if (!m_facts.pythonPackageSet)
            for (const NodeRecord& formal : m_formals)
                if (isPythonPackageSet(formal.node->text)) {
                    m_facts.pythonPackageSet =
                        Fact<std::string>{std::string(formal.node->text), formal.node->range};
                    break;
                }

        // CUDA: every package-set mention is a CUDA input; the versioned one names the set.
        auto noteCuda = [&](std::string_view name, const Node* node) {
            if (!isCudaInputName(name))
                return;
            if (m_facts.cudaInputs.size() < 64)
                m_facts.cudaInputs.push_back({std::string(name), node->range});
            if (isCudaPackageSet(name) && name != "cudaPackages" && !m_facts.cudaPackageSet)
                m_facts.cudaPackageSet = Fact<std::string>{std::string(name), node->range};
        };
        for (const NodeRecord& formal : m_formals)
            noteCuda(formal.node->text, formal.node);
        for (const NodeRecord& select : m_selects)
            for (const auto& [name, node] : selectNames(*select.node))
                if (node)
                    noteCuda(name, node);
        for (const NodeRecord& identifier : m_identifiers)
            noteCuda(identifier.node->text, identifier.node);
        for (const BindingRecord& binding : m_bindings)
            if (binding.key && isCudaPackageSet(binding.last) && binding.value)
                noteCuda(binding.last, binding.key);
        std::sort(m_facts.cudaInputs.begin(), m_facts.cudaInputs.end(),
                  [](const auto& a, const auto& b) { return a.range.begin < b.range.begin; });
        m_facts.cudaInputs.erase(
            std::unique(m_facts.cudaInputs.begin(), m_facts.cudaInputs.end(),
                        [](const auto& a, const auto& b) { return a.range == b.range; }),
            m_facts.cudaInputs.end());
        if (!m_facts.cudaPackageSet) {
            for (const auto& input : m_facts.cudaInputs)
                if (input.value == "cudaPackages") {
                    m_facts.cudaPackageSet = input;
                    break;
                }
        }
    }

    // ---- shell settings inside strings (preConfigure, cmakeFlags, …) ------------------------

    struct ShellSetting
    {
        std::string value;
        SourceRange range;
        Resolved resolved; // the value with the source of each byte that has one
    };

    // Every `NAME=value` (also `-DNAME=value`, quoted or not) inside the string literals.
    // Every `NAME=value` (also `-DNAME=value`, quoted or not) inside the string literals, for
    // the names the rules read. The strings are scanned once per file, at each '='.
    const std::vector<ShellSetting>& shellSettings(std::string_view name) const
    {
        static const std::vector<ShellSetting> none;
        if (!m_settingsRead) {
            m_settingsRead = true;
            for (const NodeRecord& record : m_strings)
                readSettingsOf(record);
        }
        const auto it = m_settings.find(name);
        return it == m_settings.end() ? none : it->second;
    }

    void readSettingsOf(const NodeRecord& record) const
    {
        static constexpr std::string_view names[] = {"TORCH_CUDA_ARCH_LIST",
                                                     "CMAKE_CUDA_ARCHITECTURES",
                                                     "COMPUTE_CAPABILITY",
                                                     "USE_MAGMA",
                                                     "USE_CUDA",
                                                     "CXXFLAGS",
                                                     "CFLAGS",
                                                     "NIX_CFLAGS_COMPILE",
                                                     "CMAKE_CXX_FLAGS"};
        const Node& string = *record.node;
        for (size_t i = 0; i < string.children.size(); ++i) {
            const Node* part = string.children[i];
            if (part->kind != NodeKind::StringText)
                continue;
            const std::string_view text = part->text;
            for (size_t at = text.find('='); at != std::string_view::npos;
                 at = text.find('=', at + 1)) {
                size_t start = at;
                while (start > 0 && isIdentChar(text[start - 1]))
                    --start;
                std::string_view word = text.substr(start, at - start);
                if (word.size() > 1 && word.front() == 'D' && start > 0 && text[start - 1] == '-' &&
                    std::find(std::begin(names), std::end(names), word) == std::end(names))
                    word.remove_prefix(1); // -DNAME=value
                const auto known = std::find(std::begin(names), std::end(names), word);
                if (known != std::end(names))
                    m_settings[*known].push_back(readShellValue(string, i, at + 1, record.scope));
            }
        }
    }

    // Source offset of each byte of a StringText's decoded text, plus one past its end; empty
    // when the part cannot be mapped. An indented string's text has its indentation
    // stripped, so the mapping skips the stripped whitespace; other bytes map one to one.
    // Computed once per part.
    const std::vector<uint32_t>& sourceOffsets(const Node& part) const
    {
        auto [it, added] = m_offsets.try_emplace(&part);
        if (added)
            it->second = mapOffsets(part);
        return it->second;
    }

    std::vector<uint32_t> mapOffsets(const Node& part) const
    {
        const std::string_view text = part.text;
        std::vector<uint32_t> offsets(text.size() + 1);
        const std::string_view source = m_tree.text(part.range);
        if (text.size() == source.size()) {
            for (size_t k = 0; k <= text.size(); ++k)
                offsets[k] = part.range.begin + static_cast<uint32_t>(k);
            return offsets;
        }
        // Only stripped whitespace may be skipped; anything else (an escape such as "\n" in a
        // double-quoted string) leaves the part unmapped, as positions inside it are unknown.
        size_t i = 0;
        for (size_t k = 0; k < text.size(); ++k) {
            while (i < source.size() && source[i] != text[k] &&
                   (source[i] == ' ' || source[i] == '\t' || source[i] == '\n'))
                ++i;
            if (i >= source.size() || source[i] != text[k])
                return {};
            offsets[k] = part.range.begin + static_cast<uint32_t>(i++);
        }
        offsets[text.size()] = part.range.begin + static_cast<uint32_t>(i);
        return offsets;
    }

    // Appends part->text[from, from + length) with pieces for each run that maps one to one.
    void appendMapped(Resolved& resolved, const Node& part, size_t from, size_t length) const
    {
        const std::vector<uint32_t>& offsets = sourceOffsets(part);
        if (offsets.empty()) {
            resolved.text += part.text.substr(from, length);
            return;
        }
        size_t run = from;
        for (size_t k = from + 1; k <= from + length; ++k)
            if (k == from + length || offsets[k] != offsets[k - 1] + 1) {
                resolved.pieces.push_back(
                    {resolved.text.size() + (run - from), k - run, offsets[run]});
                run = k;
            }
        resolved.text += part.text.substr(from, length);
    }

    ShellSetting readShellValue(const Node& string, size_t partIndex, size_t offset,
                                const Scope* scope) const
    {
        ShellSetting setting;
        const Node* part = string.children[partIndex];
        std::string_view text = part->text.substr(offset);
        char quote = 0;
        if (!text.empty() && (text.front() == '"' || text.front() == '\'')) {
            quote = text.front();
            text.remove_prefix(1);
            ++offset;
        }
        const std::vector<uint32_t>& firstOffsets = sourceOffsets(*part);
        const uint32_t begin = firstOffsets.empty() ? string.range.begin : firstOffsets[offset];
        uint32_t end = begin;
        auto stopAt = [&](std::string_view run) {
            for (size_t k = 0; k < run.size(); ++k) {
                const char c = run[k];
                if (quote ? c == quote
                          : (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '"' ||
                             c == '\'' || c == ')'))
                    return k;
            }
            return std::string_view::npos;
        };
        Resolved& resolved = setting.resolved;
        size_t stop = stopAt(text);
        const size_t first = stop == std::string_view::npos ? text.size() : stop;
        appendMapped(resolved, *part, offset, first);
        end = firstOffsets.empty() ? string.range.end : firstOffsets[offset + first];
        // The value continues into interpolations: "${gpuArch}" or sm_${num}
        for (size_t next = partIndex + 1;
             stop == std::string_view::npos && next < string.children.size(); ++next) {
            const Node* following = string.children[next];
            if (following->kind == NodeKind::Interpolation) {
                auto inner = resolveString(Value{following->interpolated(), scope, {}, {}});
                if (inner) {
                    for (Piece piece : inner->pieces) {
                        piece.offset += resolved.text.size();
                        resolved.pieces.push_back(piece);
                    }
                    resolved.text += inner->text;
                } else {
                    resolved.text += unknownMark; // never a piece of an entry or a flag
                }
                end = following->range.end;
            } else {
                stop = stopAt(following->text);
                const size_t length =
                    stop == std::string_view::npos ? following->text.size() : stop;
                appendMapped(resolved, *following, 0, length);
                const std::vector<uint32_t>& offsets = sourceOffsets(*following);
                end = offsets.empty() ? following->range.end : offsets[length];
            }
        }
        setting.value = resolved.text;
        setting.range = SourceRange{begin, std::max(begin, end)};
        resolved.range = setting.range;
        return setting;
    }

    void extractShellSettings()
    {
        if (!m_facts.torchCudaArchList) {
            auto settings = shellSettings("TORCH_CUDA_ARCH_LIST");
            if (!settings.empty())
                m_facts.torchCudaArchList =
                    Fact<std::string>{settings.front().value, settings.front().range};
        }
        for (const ShellSetting& setting : shellSettings("USE_MAGMA"))
            if (isOff(setting.value))
                m_facts.magmaDisabled.push_back({"USE_MAGMA=" + setting.value, setting.range});
        if (!m_facts.cudaSupport || !m_facts.cudaSupport->value) {
            for (const ShellSetting& setting : shellSettings("USE_CUDA")) {
                if (isOn(setting.value)) {
                    m_facts.cudaSupport = Fact<bool>{true, setting.range};
                    break;
                }
                if (isOff(setting.value) && !m_facts.cudaSupport)
                    m_facts.cudaSupport = Fact<bool>{false, setting.range};
            }
        }
        if (!m_facts.cpuFlags) {
            // Recipes without a cpuFlags list put the flags straight into CXXFLAGS.
            for (const ShellSetting& setting : shellSettings("CXXFLAGS")) {
                std::vector<std::string> flags = machineFlags(setting.value);
                if (!flags.empty()) {
                    m_facts.cpuFlags = Fact<std::vector<std::string>>{flags, setting.range};
                    break;
                }
            }
        }
    }

    // ---- values by flow: GPU arch sinks, compiler flags, platforms -------------------------

    // The binding whose value holds `range` most closely: the name a literal flowed through.
    const BindingRecord* bindingAround(SourceRange range) const
    {
        const BindingRecord* best = nullptr;
        for (const BindingRecord& binding : m_bindings) {
            if (!binding.value || !within(binding.value, range))
                continue;
            if (!best || binding.value->range.length() < best->value->range.length())
                best = &binding;
        }
        return best;
    }

    void addArchEntry(ArchSink sink, const Resolved& entry, size_t offset, size_t length,
                      SourceRange sinkRange)
    {
        ArchSinkFact fact;
        fact.sink = sink;
        fact.value = entry.text.substr(offset, length);
        fact.writtenIn = entry.elsewhere;
        const auto exact = entry.sourceOf(offset, length);
        fact.range = exact ? *exact : entry.range;
        fact.sinkRange = sinkRange;
        if (exact)
            if (const BindingRecord* through = bindingAround(*exact);
                through && !within(through->value, sinkRange) &&
                !(through->key->range.begin <= sinkRange.begin &&
                  sinkRange.begin < through->key->range.end)) {
                fact.via = through->path;
                fact.viaRange = through->key->range;
            }
        if (m_facts.archSinks.size() < 64)
            m_facts.archSinks.push_back(std::move(fact));
    }

    // "8.6;8.9 9.0" → one entry per item; an item still holding an unresolved `${…}` is
    // unknown and left out.
    void addArchList(ArchSink sink, const Resolved& value, SourceRange sinkRange)
    {
        const std::string& text = value.text;
        size_t at = 0;
        while (at < text.size()) {
            size_t end = text.find_first_of("; ,", at);
            if (end == std::string::npos)
                end = text.size();
            // A shell expansion ($TORCH_CUDA_ARCH_LIST;9.0 keeps what nixpkgs set) is unknown.
            const std::string_view item = std::string_view(text).substr(at, end - at);
            if (!item.empty() && item.find(unknownMark) == std::string_view::npos &&
                item.find('$') == std::string_view::npos)
                addArchEntry(sink, value, at, end - at, sinkRange);
            at = end + 1;
        }
    }

    void extractArchSinks()
    {
        for (const BindingRecord& binding : m_bindings) {
            std::optional<ArchSink> sink;
            if (binding.last == "gpuTargets")
                sink = ArchSink::GpuTargets;
            else if (binding.last == "cudaCapabilities")
                sink = ArchSink::CudaCapabilities;
            else if (binding.last == "TORCH_CUDA_ARCH_LIST")
                sink = ArchSink::TorchCudaArchList;
            else if (binding.last == "CMAKE_CUDA_ARCHITECTURES")
                sink = ArchSink::CmakeCudaArchitectures;
            if (!sink)
                continue;
            if (auto entries = listEntries(binding.resolved)) {
                for (const auto& entry : *entries)
                    if (entry)
                        addArchEntry(*sink, *entry, 0, entry->text.size(), binding.key->range);
            } else if (auto text = resolveString(binding.resolved)) {
                addArchList(*sink, *text, binding.key->range);
            }
        }
        const std::pair<std::string_view, ArchSink> settings[] = {
            {"TORCH_CUDA_ARCH_LIST", ArchSink::TorchCudaArchList},
            {"CMAKE_CUDA_ARCHITECTURES", ArchSink::CmakeCudaArchitectures},
            {"COMPUTE_CAPABILITY", ArchSink::ComputeCapability}};
        for (const auto& [name, sink] : settings)
            for (const ShellSetting& setting : shellSettings(name)) {
                const uint32_t nameEnd = setting.range.begin;
                const SourceRange sinkRange{nameEnd > name.size() + 1
                                                ? nameEnd - static_cast<uint32_t>(name.size()) - 1
                                                : nameEnd,
                                            nameEnd};
                addArchList(sink, setting.resolved, sinkRange);
            }
        // lib.cmakeFeature "CMAKE_CUDA_ARCHITECTURES" "86"
        for (const NodeRecord& apply : m_applies) {
            const std::string_view callee = calleeName(*apply.node);
            if (callee != "cmakeFeature" && callee != "cmakeOptionType")
                continue;
            auto arguments = callArguments(*apply.node);
            if (arguments.size() < 2)
                continue;
            auto name = resolveString(Value{arguments[arguments.size() - 2], apply.scope, {}, {}});
            auto value = resolveString(Value{arguments.back(), apply.scope, {}, {}});
            if (name && value && name->text == "CMAKE_CUDA_ARCHITECTURES")
                addArchList(ArchSink::CmakeCudaArchitectures, *value, name->range);
        }
        std::sort(m_facts.archSinks.begin(), m_facts.archSinks.end(),
                  [](const ArchSinkFact& a, const ArchSinkFact& b) {
                      return a.sinkRange.begin < b.sinkRange.begin;
                  });
    }

    static std::vector<std::string> machineFlags(std::string_view text)
    {
        std::vector<std::string> flags;
        size_t at = 0;
        while (at < text.size()) {
            size_t end = text.find_first_of(" \t\n", at);
            if (end == std::string::npos)
                end = text.size();
            const std::string_view token = text.substr(at, end - at);
            if (startsWith(token, "-m"))
                flags.emplace_back(token);
            at = end + 1;
        }
        return flags;
    }

    // The flags that reach the compiler: the first flag sink whose value is fully known and
    // holds machine flags; the list binding of that name (`cpuFlags`) is where they came from.
    void extractCompilerFlags()
    {
        auto note = [&](const Resolved& value, std::string_view sink) {
            if (value.text.find(unknownMark) != std::string::npos)
                return false; // part of it is unknown: the flags cannot be judged from here
            std::vector<std::string> flags = machineFlags(value.text);
            if (flags.empty())
                return false;
            CpuFlagsFact fact;
            fact.flags = std::move(flags);
            fact.sink = std::string(sink);
            fact.range = value.range;
            fact.writtenIn = value.elsewhere;
            // Where the flags are written: the first piece from outside the setting itself.
            for (const Piece& piece : value.pieces) {
                const SourceRange at{piece.source,
                                     piece.source + static_cast<uint32_t>(piece.length)};
                if (value.range.contains(at.begin))
                    continue;
                if (const BindingRecord* through = bindingAround(at);
                    through && !within(through->value, value.range)) {
                    fact.via = through->path;
                    fact.range = through->value->range;
                }
                break;
            }
            // Each sink reaches a compiler (CFLAGS the C targets, CXXFLAGS the C++ ones); a
            // sink that repeats flags already read adds nothing.
            if (!m_facts.compilerFlags)
                m_facts.compilerFlags = std::move(fact);
            else if (fact.flags != m_facts.compilerFlags->flags &&
                     std::none_of(m_facts.moreCompilerFlags.begin(),
                                  m_facts.moreCompilerFlags.end(),
                                  [&](const CpuFlagsFact& f) { return f.flags == fact.flags; }))
                m_facts.moreCompilerFlags.push_back(std::move(fact));
            return true;
        };
        for (std::string_view sink :
             {"CXXFLAGS", "NIX_CFLAGS_COMPILE", "CFLAGS", "CMAKE_CXX_FLAGS"}) {
            for (const ShellSetting& setting : shellSettings(sink))
                if (note(setting.resolved, sink))
                    break;
            for (const BindingRecord& binding : m_bindings) {
                if (binding.last != sink || inOverlay(binding.key))
                    continue;
                if (auto text = resolveString(binding.resolved); text && note(*text, sink))
                    continue;
                if (auto entries = listEntries(binding.resolved)) {
                    Resolved joined;
                    joined.range = binding.value ? binding.value->range : binding.key->range;
                    bool known = true;
                    for (const auto& entry : *entries) {
                        if (!entry) {
                            known = false;
                            break;
                        }
                        joined.text += (joined.text.empty() ? "" : " ") + entry->text;
                    }
                    if (known)
                        note(joined, sink);
                }
            }
        }
        if (m_facts.compilerFlags)
            return;
        // No flag sink could be read: the list the recipe keeps its flags in decides.
        for (const BindingRecord& binding : m_bindings) {
            if (binding.last != "cpuFlags" || inOverlay(binding.key))
                continue;
            auto entries = listEntries(binding.resolved);
            if (!entries || entries->empty() ||
                std::any_of(entries->begin(), entries->end(), [](const auto& e) { return !e; }))
                continue;
            CpuFlagsFact fact;
            for (const auto& entry : *entries)
                for (std::string& flag : machineFlags(entry->text))
                    fact.flags.push_back(std::move(flag));
            fact.range = binding.value ? binding.value->range : binding.key->range;
            fact.writtenIn = entries->front()->elsewhere;
            m_facts.compilerFlags = std::move(fact);
            return;
        }
    }

    // Systems a nixpkgs `lib.platforms.NAME` list holds (the common ones; others unknown).
    static std::optional<std::vector<std::string>> libPlatforms(std::string_view name)
    {
        if (name == "linux")
            return std::vector<std::string>{"x86_64-linux", "aarch64-linux", "i686-linux",
                                            "armv7l-linux", "riscv64-linux", "powerpc64le-linux"};
        if (name == "x86_64")
            return std::vector<std::string>{"x86_64-linux", "x86_64-darwin"};
        if (name == "aarch64")
            return std::vector<std::string>{"aarch64-linux", "aarch64-darwin"};
        if (name == "darwin")
            return std::vector<std::string>{"x86_64-darwin", "aarch64-darwin"};
        if (name == "unix")
            return std::vector<std::string>{"x86_64-linux", "aarch64-linux", "i686-linux",
                                            "armv7l-linux", "x86_64-darwin", "aarch64-darwin"};
        return std::nullopt;
    }

    // Evaluates a platforms expression: literal lists, `++`, `lib.platforms.X`, and values
    // taken over from the overridden package (`oldAttrs.meta.platforms`, with or without `or`).
    PlatformsFact platformsOf(Value value, int depth = 0) const
    {
        PlatformsFact fact;
        fact.origin = ValueOrigin::Unknown;
        if (depth > 8 || !value.node)
            return fact;
        fact.range = value.node->range;
        fact.expression = std::string(m_tree.text(value.node->range));
        auto target = dereference(value, 0);
        const Node* node = target && target->node ? target->node : value.node;
        const Scope* scope = target && target->node ? target->scope : value.scope;
        if (node->kind == NodeKind::Binary && node->op == nix::BinaryOp::Concat) {
            PlatformsFact left = platformsOf(Value{node->left(), scope, {}, {}}, depth + 1);
            PlatformsFact right = platformsOf(Value{node->right(), scope, {}, {}}, depth + 1);
            if (left.origin != ValueOrigin::Known || right.origin != ValueOrigin::Known) {
                fact.origin =
                    left.origin == ValueOrigin::Inherited || right.origin == ValueOrigin::Inherited
                        ? ValueOrigin::Inherited
                        : ValueOrigin::Unknown;
                return fact;
            }
            fact.origin = ValueOrigin::Known;
            fact.platforms = left.platforms;
            fact.platforms.insert(fact.platforms.end(), right.platforms.begin(),
                                  right.platforms.end());
            return fact;
        }
        if (node->kind == NodeKind::Select) {
            auto names = selectNames(*node);
            // `platforms.linux` under `with lib;`, `lib.platforms.linux`,
            // `pkgs.lib.platforms.x86_64`
            for (size_t i = 0; i + 1 < names.size(); ++i)
                if (names[i].first == "platforms" && i + 2 == names.size())
                    if (auto known = libPlatforms(names.back().first)) {
                        fact.origin = ValueOrigin::Known;
                        fact.platforms = *known;
                        return fact;
                    }
            // Rooted at a function argument (oldAttrs, old, prev): the overridden package's.
            if (!names.empty() && !names.front().first.empty()) {
                auto root = lookup(names.front().first, scope);
                if (root && !root->node && root->lookupName.empty()) {
                    fact.origin = ValueOrigin::Inherited;
                    return fact;
                }
            }
            return fact;
        }
        if (auto list = listEntries(Value{node, scope, {}, {}})) {
            for (const auto& entry : *list) {
                if (!entry)
                    return fact;
                fact.platforms.push_back(entry->text);
            }
            fact.origin = ValueOrigin::Known;
        }
        return fact;
    }

    void extractPlatforms()
    {
        for (const BindingRecord& binding : m_bindings) {
            if (binding.path != "meta.platforms" || inOverlay(binding.key))
                continue;
            m_facts.platformsValue = platformsOf(binding.resolved);
            if (!binding.value)
                m_facts.platformsValue->range = binding.key->range;
            return;
        }
    }

    void extractUnpinnedImports()
    {
        for (const NodeRecord& apply : m_applies) {
            if (calleeName(*apply.node) != "import")
                continue;
            const Node* argument = callArguments(*apply.node).front();
            const bool seen = !m_facts.unpinnedImports.empty() &&
                              m_facts.unpinnedImports.back().range == argument->range;
            if (argument && !seen && argument->kind == NodeKind::SearchPath &&
                (argument->text == "nixpkgs" || startsWith(argument->text, "nixpkgs/")))
                m_facts.unpinnedImports.push_back(
                    {"<" + std::string(argument->text) + ">", argument->range});
        }
    }

    // ---- pattern --------------------------------------------------------------------------

    void extractPattern(const Node& root)
    {
        bool fromScratch = false;
        for (const NodeRecord& apply : m_applies) {
            const std::string_view callee = calleeName(*apply.node);
            if ((callee == "buildPythonPackage" || callee == "mkDerivation" ||
                 callee == "buildPythonApplication") &&
                !inOverlay(apply.node)) {
                fromScratch = true;
                break;
            }
        }
        const bool torchBase = m_facts.torchAttribute && m_pythonFromTorch;
        if (fromScratch && !torchBase) {
            m_facts.pattern = PatternKind::FromScratch;
        } else if (m_facts.wrappedFile && !torchBase && m_facts.pins.empty()) {
            m_facts.pattern = PatternKind::Wrapper;
        } else if (!m_facts.pins.empty()) {
            m_facts.pattern =
                m_facts.overlays.empty() ? PatternKind::PinnedPlain : PatternKind::PinnedOverlays;
        } else if (root.kind == NodeKind::Lambda && root.lambdaFormals()) {
            m_facts.pattern = PatternKind::CallPackage;
        } else {
            m_facts.pattern = PatternKind::Unknown;
        }
    }

    const nix::SyntaxTree& m_tree;
    RecipeFacts& m_facts;
    std::deque<Scope> m_scopes;
    std::unordered_map<const Node*, const Scope*> m_recScopes;
    std::vector<BindingRecord> m_bindings;
    std::vector<NodeRecord> m_applies;
    std::vector<NodeRecord> m_selects;
    std::vector<NodeRecord> m_identifiers;
    std::vector<NodeRecord> m_strings;
    std::vector<NodeRecord> m_formals;
    std::vector<const Node*> m_overlays;
    std::optional<Fact<std::string>> m_overlayTorchVersion;
    bool m_pythonFromTorch = false;
    mutable long m_budget = resolveBudget;
    mutable bool m_settingsRead = false;
    mutable std::unordered_map<const Node*, std::vector<uint32_t>> m_offsets;
    mutable std::map<std::string_view, std::vector<ShellSetting>> m_settings;
    nix::ModuleLoader* m_modules = nullptr;
    bool m_importsModules = false; // the file imports a relative path: evaluation may need it
    mutable std::unique_ptr<nix::Evaluator> m_evaluator;
    mutable std::map<std::pair<const Node*, const Scope*>, std::optional<Resolved>> m_stringMemo;
};

} // namespace

void FactExtractor::extract(const nix::SyntaxTree& tree, RecipeFacts& facts,
                            nix::ModuleLoader* modules)
{
    Extractor(tree, facts, modules).run();
}

} // namespace rg
