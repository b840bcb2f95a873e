// Mutation test: plant one defect at a time into every sound recipe of the realworld fixtures,
// seed001-target and the demo repository, re-analyse a copy of its repository, and require the
// engine to report it on the mutated file with the rule that names it.
//
// Mutants are made by syntax-tree edits: the literal to rewrite is found in the parsed file by
// the test's own small flow analysis (which literal reaches which sink), independently of the
// engine's fact extraction, and only its byte range is replaced.
//
// Kinds, and where they apply:
//   arch-value     a literal reaching a GPU-arch sink (gpuTargets, cudaCapabilities,
//                  TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES, COMPUTE_CAPABILITY) that names
//                  the file's arch → another arch in the same notation ("8.6" → "7.5",
//                  "86" → "75")                                         → gpu-arch-mismatch
//   arch-notation  the same literal → "sm_86"                             → gpu-arch-notation
//   arch-bindings  every such literal and every binding named after the arch (gpuArchNum
//                  beside gpuArchSM, read by a sink or not) → another arch, as in a copy of
//                  another cell's recipe                                 → gpu-arch-mismatch
//   python-set     every mention of a versioned python3XXPackages → another version's
//                                                                        → python-version-mismatch
//   pin            the 40-hex nixpkgs revision → another 40-hex. With a spec that pins the
//                  recipe's CUDA version (or CPU-only) → pin-mismatch; without a spec only where
//                  at least 3 recipes of the same package and accelerator share the pin, so the
//                  group defines it → pin-differs-from-group
//   isa            the flag list (in its own layout) / flag run (or the ISA attribute a recipe
//                  selects from a module) → another ISA's flags from the catalog
//                                                                        → cpu-flags-mismatch
//   isa-flag       one flag the ISA needs left out of a list, or a bigger ISA's flag put in
//                                                                        → cpu-flags-mismatch
//   platforms      "x86_64-linux" ↔ "aarch64-linux" in meta.platforms (never in an `or`
//                  fallback, which nixpkgs' torch never uses)             → platforms-mismatch
//   system         "x86_64-linux" ↔ "aarch64-linux" bound to `system` / `localSystem` (the
//                  platform nixpkgs is imported for), where meta.platforms does not read the
//                  same literal                                          → platforms-mismatch
//   cuda-set       every mention of cudaPackages_X_Y → another version's → cuda-version-mismatch
//   import         a sibling recipe of its own cell a companion imports → the same package's
//                  recipe of another cell                                → imported-cell-mismatch
// Every mutant must be caught and every caught one fixed, except those listed in
// missExceptions() with their reasons (a rate would let a new miss pass unnoticed).
// Every caught mutant is then fixed through the change planner: the fixed file must have no
// finding its original did not have, must keep every export, cmake -D flag, USE_* switch and
// comment line the mutant kept, and must be the author's file byte for byte. The only mutants
// excused from that are those that erased what the author wrote (a whole flag list that was
// not the catalog's, replaced) and the ones listed in restoreExceptions() with their reasons.
// Only recipes with no error before mutation are mutated; the planted defects of the fixtures
// and the demo's broken recipes are asserted to be exactly the files with errors.

#include "analysis/analyzer.h"
#include "changes/changeplanner.h"
#include "changes/overlaysource.h"
#include "facts/archnotation.h"
#include "facts/syntaxqueries.h"
#include "impossibleasks.h"
#include "matrix/catalog.h"
#include "matrix/cpufeatureset.h"
#include "matrix/variantname.h"
#include "nix/nixhash.h"
#include "nix/syntaxtree.h"
#include "testrepository.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTest>
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

using namespace rg;
using nix::Node;
using nix::NodeKind;
using nix::SourceRange;

namespace {

const QString sourceDir = QStringLiteral(RG_SOURCE_DIR);

struct RepoUnderTest
{
    QString name;                 // "realworld/sm-notation", "seed001-target", "demo"
    QString root;                 // absolute
    std::set<std::string> broken; // recipe files with errors before mutation (planted defects)
};

std::vector<RepoUnderTest> repositories()
{
    std::vector<RepoUnderTest> repos;
    const QString realworld = QStringLiteral(RG_FIXTURES_DIR) + "/realworld";
    for (const QString& style :
         QDir(realworld).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        // The test's own flow analysis reads one file: it cannot follow values into a builder
        // module (tst_realworld and tst_changeplanner cover those styles).
        if (style == QLatin1String("builder") || style == QLatin1String("derived"))
            continue;
        RepoUnderTest repo{"realworld/" + style, realworld + "/" + style, {}};
        if (style == QLatin1String("sm-notation"))
            repo.broken = {"pytorch-python313-cuda13_0-sm121-armv9.nix"};
        if (style == QLatin1String("companion"))
            repo.broken = {"torchaudio-python313-cuda12_8-sm89-avx2.nix"};
        if (style == QLatin1String("isa-module"))
            repo.broken = {"pytorch-python313-cuda13_0-sm120-avx512.nix"};
        if (style == QLatin1String("json-pins"))
            repo.broken = {"pytorch-python312-cuda12_8-sm89-avx2.nix",
                           "pytorch-python313-cuda12_8-sm100-armv9.nix"};
        repos.push_back(repo);
    }
    repos.push_back({QStringLiteral("seed001-target"),
                     QStringLiteral(RG_FIXTURES_DIR) + "/seed001-target",
                     {}});
    // resources/demo/repository/README.md: the broken recipes of the demo.
    repos.push_back(
        {QStringLiteral("demo"),
         sourceDir + "/resources/demo/repository",
         {"pytorch-python313-cuda13_0-sm89-avx2.nix",
          "pytorch-python313-cuda13_0-sm110-armv8_2.nix",
          "pytorch-python313-cuda13_0-sm110-armv9.nix", "pytorch-python313-cuda13_0-sm120-avx.nix",
          "pytorch-python313-cuda13_0-sm121-armv9-nightly.nix"}});
    return repos;
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return file.write(bytes) == bytes.size();
}

// ---- the test's own reading of a recipe --------------------------------------------------

bool isDigits(std::string_view text)
{
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool isHex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

// Names a static attribute path spells ("meta.platforms"); segments that are not static
// become "?".
std::vector<std::string> pathNames(const Node& attrPath)
{
    std::vector<std::string> names;
    for (const Node* segment : attrPath.children) {
        if (segment->kind == NodeKind::AttrName)
            names.emplace_back(segment->text);
        else if (auto literal = nix::literalString(*segment))
            names.push_back(*literal);
        else
            names.emplace_back("?");
    }
    return names;
}

// A recipe read by name: which expressions a name can stand for (scoping is approximated by
// "any binding of that name in the file", which is what a reader of these recipes assumes).
class Reading
{
public:
    explicit Reading(const nix::SyntaxTree& tree) : m_tree(tree)
    {
        if (tree.root())
            index(*tree.root());
    }

    const nix::SyntaxTree& tree() const { return m_tree; }
    const std::vector<const Node*>& bindings() const { return m_bindings; }
    const std::vector<const Node*>& strings() const { return m_strings; }
    const std::vector<const Node*>& all() const { return m_all; }

    // Walks the expressions `node` may evaluate to, calling `leaf` for each string literal part
    // (StringText) that ends up in the value and for each Select on an import (a module).
    void walk(const Node& node, const std::function<void(const Node& part)>& leaf,
              std::unordered_set<const Node*>& seen) const
    {
        if (!seen.insert(&node).second)
            return;
        switch (node.kind) {
        case NodeKind::String:
        case NodeKind::IndentedString:
            for (const Node* part : node.parts())
                if (part->kind == NodeKind::StringText)
                    leaf(*part);
                else if (part->interpolated())
                    walk(*part->interpolated(), leaf, seen);
            return;
        case NodeKind::Identifier:
            for (const Node* value : valuesOf(node.text))
                walk(*value, leaf, seen);
            for (const auto& [source, name] : inheritsOf(node.text))
                for (const Node* set : setsOf(*source, seen))
                    for (const Node* value : member(*set, {name}))
                        walk(*value, leaf, seen);
            return;
        case NodeKind::Select: {
            if (!node.subject() || !node.attrPath())
                return;
            const std::vector<std::string> path = pathNames(*node.attrPath());
            for (const Node* set : setsOf(*node.subject(), seen))
                for (const Node* value : member(*set, path))
                    walk(*value, leaf, seen);
            return; // never the `or` fallback
        }
        case NodeKind::Apply:
            // Arguments carry the values (lib.optionals c [ … ], toString l, concatStringsSep s l).
            for (const Node* argument : callArguments(node))
                if (argument)
                    walk(*argument, leaf, seen);
            return;
        case NodeKind::Lambda:
            if (node.lambdaBody())
                walk(*node.lambdaBody(), leaf, seen);
            return;
        case NodeKind::Let:
            if (node.letBody())
                walk(*node.letBody(), leaf, seen);
            return;
        case NodeKind::With:
            if (node.withBody())
                walk(*node.withBody(), leaf, seen);
            return;
        case NodeKind::If:
            for (size_t i = 1; i < node.children.size(); ++i)
                walk(*node.children[i], leaf, seen);
            return;
        case NodeKind::List:
        case NodeKind::Binary:
        case NodeKind::Interpolation:
            for (const Node* child : node.children)
                if (child)
                    walk(*child, leaf, seen);
            return;
        default:
            return;
        }
    }

    // Attribute sets an expression may evaluate to (following names and selections).
    std::vector<const Node*> setsOf(const Node& node, std::unordered_set<const Node*>& seen) const
    {
        std::vector<const Node*> sets;
        collectSets(node, sets, seen, 0);
        return sets;
    }

private:
    void index(const Node& root)
    {
        nix::forEachNode(root, [&](const Node& node) {
            m_all.push_back(&node);
            switch (node.kind) {
            case NodeKind::Binding: {
                m_bindings.push_back(&node);
                const std::vector<std::string> path = pathNames(*node.bindingPath());
                if (path.size() == 1 && node.bindingValue())
                    m_values[path.front()].push_back(node.bindingValue());
                break;
            }
            case NodeKind::Formal:
                if (node.formalDefault())
                    m_values[std::string(node.text)].push_back(node.formalDefault());
                break;
            case NodeKind::Inherit:
                if (node.inheritSource())
                    for (const Node* name : node.inheritedNames())
                        if (name->kind == NodeKind::AttrName)
                            m_inherits[std::string(name->text)].emplace_back(node.inheritSource(),
                                                                             name->text);
                break;
            case NodeKind::String:
            case NodeKind::IndentedString:
                m_strings.push_back(&node);
                break;
            default:
                break;
            }
            return true;
        });
    }

    const std::vector<const Node*>& valuesOf(std::string_view name) const
    {
        static const std::vector<const Node*> none;
        const auto it = m_values.find(std::string(name));
        return it == m_values.end() ? none : it->second;
    }

    const std::vector<std::pair<const Node*, std::string>>& inheritsOf(std::string_view name) const
    {
        static const std::vector<std::pair<const Node*, std::string>> none;
        const auto it = m_inherits.find(std::string(name));
        return it == m_inherits.end() ? none : it->second;
    }

    void collectSets(const Node& node, std::vector<const Node*>& sets,
                     std::unordered_set<const Node*>& seen, int depth) const
    {
        if (depth > 16)
            return;
        switch (node.kind) {
        case NodeKind::AttrSet:
            sets.push_back(&node);
            return;
        case NodeKind::Identifier:
            for (const Node* value : valuesOf(node.text))
                collectSets(*value, sets, seen, depth + 1);
            return;
        case NodeKind::Select:
            if (node.subject() && node.attrPath()) {
                std::vector<const Node*> subjects;
                collectSets(*node.subject(), subjects, seen, depth + 1);
                for (const Node* set : subjects)
                    for (const Node* value : member(*set, pathNames(*node.attrPath())))
                        collectSets(*value, sets, seen, depth + 1);
            }
            return;
        case NodeKind::Binary:
            if (node.op == nix::BinaryOp::Update)
                for (const Node* child : node.children)
                    collectSets(*child, sets, seen, depth + 1);
            return;
        default:
            return;
        }
    }

    // Values of `path` in a literal attribute set (nested sets and dotted bindings alike).
    std::vector<const Node*> member(const Node& set, const std::vector<std::string>& path) const
    {
        std::vector<const Node*> found;
        if (set.kind != NodeKind::AttrSet || path.empty())
            return found;
        for (const Node* child : set.children) {
            if (child->kind != NodeKind::Binding)
                continue;
            const std::vector<std::string> names = pathNames(*child->bindingPath());
            if (names.size() > path.size() || !std::equal(names.begin(), names.end(), path.begin()))
                continue;
            if (names.size() == path.size()) {
                found.push_back(child->bindingValue());
            } else {
                const std::vector<std::string> rest(path.begin() + long(names.size()), path.end());
                std::unordered_set<const Node*> seen;
                for (const Node* inner : setsOf(*child->bindingValue(), seen))
                    for (const Node* value : member(*inner, rest))
                        found.push_back(value);
            }
        }
        return found;
    }

    const nix::SyntaxTree& m_tree;
    std::vector<const Node*> m_all;
    std::vector<const Node*> m_bindings;
    std::vector<const Node*> m_strings;
    std::unordered_map<std::string, std::vector<const Node*>> m_values;
    std::unordered_map<std::string, std::vector<std::pair<const Node*, std::string>>> m_inherits;
};

// Every name (a variable, an attribute, a formal) the file writes that `wanted` accepts, by
// name, with the bytes it is written at.
std::map<std::string, std::vector<SourceRange>>
namesWhere(const Reading& reading, const std::function<bool(std::string_view)>& wanted)
{
    std::map<std::string, std::vector<SourceRange>> found;
    for (const Node* node : reading.all()) {
        if (node->kind != NodeKind::Identifier && node->kind != NodeKind::AttrName &&
            node->kind != NodeKind::Formal)
            continue;
        const std::string_view text = node->text;
        // A formal's range may cover its default; the name is its first bytes.
        const SourceRange range{node->range.begin, node->range.begin + uint32_t(text.size())};
        if (wanted(text) && reading.tree().text(range) == text)
            found[std::string(text)].push_back(range);
    }
    return found;
}

// A token of text at an exact byte range of the file.
struct Token
{
    SourceRange range;
    std::string text;
};

// Tokens of a StringText's source bytes, split at any of `separators`.
std::vector<Token> tokensOf(const nix::SyntaxTree& tree, const Node& part,
                            std::string_view separators)
{
    std::vector<Token> tokens;
    const std::string_view source = tree.text(part.range);
    size_t at = 0;
    while (at < source.size()) {
        size_t end = source.find_first_of(separators, at);
        if (end == std::string_view::npos)
            end = source.size();
        if (end > at)
            tokens.push_back({{part.range.begin + uint32_t(at), part.range.begin + uint32_t(end)},
                              std::string(source.substr(at, end - at))});
        at = end + 1;
    }
    return tokens;
}

// An arch entry: "8.6", "8.6+PTX", "9.0a", "86", "86-real", "90a".
struct ArchToken
{
    std::string number; // "86"
    bool dotted = false;
    std::string suffix; // "+PTX", "-real"; an "a"/"f" feature suffix is dropped
};

std::optional<ArchToken> readArch(std::string_view text)
{
    ArchToken token;
    for (std::string_view suffix : {"+PTX", "-real", "-virtual"})
        if (text.ends_with(suffix)) {
            token.suffix = std::string(suffix);
            text.remove_suffix(suffix.size());
        }
    if (!text.empty() && (text.back() == 'a' || text.back() == 'f'))
        text.remove_suffix(1);
    const auto dot = text.find('.');
    if (dot != std::string_view::npos) {
        const std::string_view major = text.substr(0, dot);
        const std::string_view minor = text.substr(dot + 1);
        if (!isDigits(major) || minor.size() != 1 || !isDigits(minor))
            return std::nullopt;
        token.number.append(major).append(minor);
        token.dotted = true;
        return token;
    }
    if (!isDigits(text) || text.size() < 2 || text.size() > 3)
        return std::nullopt;
    token.number = std::string(text);
    return token;
}

struct Mutant
{
    std::string kind;
    std::string description;
    QByteArray bytes;
    std::set<std::string> rules; // any of these, gained on the mutated file, catches it
    // Why no fix can give back the author's bytes (the mutant erased what they were); "" when
    // fixing it must restore the file byte for byte.
    std::string unrestorable{};
};

QByteArray replaced(const QByteArray& source,
                    const std::vector<std::pair<SourceRange, std::string>>& edits)
{
    std::vector<std::pair<SourceRange, std::string>> sorted = edits;
    std::sort(sorted.begin(), sorted.end(),
              [](const auto& a, const auto& b) { return a.first.begin > b.first.begin; });
    QByteArray bytes = source;
    for (const auto& [range, text] : sorted)
        bytes.replace(int(range.begin), int(range.length()), QByteArray::fromStdString(text));
    return bytes;
}

int lineAt(const QByteArray& bytes, uint32_t offset)
{
    return int(bytes.left(int(offset)).count('\n')) + 1;
}

const std::set<std::string> dottedSinks = {"gpuTargets", "cudaCapabilities",
                                           "TORCH_CUDA_ARCH_LIST"};
const std::set<std::string> integerSinks = {"CMAKE_CUDA_ARCHITECTURES"};
const char* const shellSinks[] = {"TORCH_CUDA_ARCH_LIST", "CMAKE_CUDA_ARCHITECTURES",
                                  "COMPUTE_CAPABILITY"};

// Every literal of the file that reaches a GPU-arch sink and names `number`.
std::vector<Token> archLiterals(const Reading& reading, const std::string& number)
{
    std::map<uint32_t, Token> found;
    const nix::SyntaxTree& tree = reading.tree();
    auto consider = [&](const Token& token) {
        if (auto arch = readArch(token.text); arch && arch->number == number)
            found.emplace(token.range.begin, token);
    };
    auto leaf = [&](const Node& part) {
        for (const Token& token : tokensOf(tree, part, "; ,\t\n\"'"))
            consider(token);
    };
    // Bindings named after a sink: their whole value.
    for (const Node* binding : reading.bindings()) {
        const std::vector<std::string> path = pathNames(*binding->bindingPath());
        if (path.empty() || (!dottedSinks.count(path.back()) && !integerSinks.count(path.back())))
            continue;
        std::unordered_set<const Node*> seen;
        reading.walk(*binding->bindingValue(), leaf, seen);
    }
    // NAME=value inside strings (shell exports, -D cmake flags); the value may continue into
    // interpolations.
    for (const Node* string : reading.strings()) {
        const auto parts = string->parts();
        for (size_t i = 0; i < parts.size(); ++i) {
            if (parts[i]->kind != NodeKind::StringText)
                continue;
            const std::string_view source = tree.text(parts[i]->range);
            for (const char* name : shellSinks) {
                const std::string key = std::string(name) + "=";
                for (size_t at = source.find(key); at != std::string_view::npos;
                     at = source.find(key, at + 1)) {
                    if (at > 0 &&
                        (std::isalnum(static_cast<unsigned char>(source[at - 1])) ||
                         source[at - 1] == '_') &&
                        !(at >= 2 && source.substr(at - 2, 2) == "-D"))
                        continue;
                    size_t begin = at + key.size();
                    char quote = 0;
                    if (begin < source.size() && (source[begin] == '"' || source[begin] == '\''))
                        quote = source[begin++];
                    size_t end = begin;
                    while (end < source.size() &&
                           (quote ? source[end] != quote
                                  : std::string_view(" \t\n;\"')").find(source[end]) ==
                                        std::string_view::npos))
                        ++end;
                    const std::string_view value = source.substr(begin, end - begin);
                    size_t from = 0;
                    while (from <= value.size()) {
                        size_t to = value.find_first_of(quote ? "; ," : ";,", from);
                        if (to == std::string_view::npos)
                            to = value.size();
                        if (to > from)
                            consider({{parts[i]->range.begin + uint32_t(begin + from),
                                       parts[i]->range.begin + uint32_t(begin + to)},
                                      std::string(value.substr(from, to - from))});
                        from = to + 1;
                    }
                    if (end == source.size() && i + 1 < parts.size() &&
                        parts[i + 1]->kind == NodeKind::Interpolation &&
                        parts[i + 1]->interpolated()) {
                        std::unordered_set<const Node*> seen;
                        reading.walk(*parts[i + 1]->interpolated(), leaf, seen);
                    }
                }
            }
        }
    }
    // lib.cmakeFeature "CMAKE_CUDA_ARCHITECTURES" value
    for (const Node* node : reading.all()) {
        if (node->kind != NodeKind::Apply || calleeName(*node) != "cmakeFeature")
            continue;
        const auto arguments = callArguments(*node);
        if (arguments.size() == 2 && arguments[0] &&
            nix::literalString(*arguments[0]) == std::string("CMAKE_CUDA_ARCHITECTURES")) {
            std::unordered_set<const Node*> seen;
            reading.walk(*arguments[1], leaf, seen);
        }
    }
    std::vector<Token> tokens;
    for (auto& [offset, token] : found)
        tokens.push_back(token);
    return tokens;
}

// Literal SHA-256 hashes in Nix's base-32 bound to `sha256` or `hash`: the values a mutant
// may make unreadable for Nix.
std::vector<Token> base32Hashes(const Reading& reading)
{
    std::vector<Token> hashes;
    for (const Node* binding : reading.bindings()) {
        const std::vector<std::string> bound = pathNames(*binding->bindingPath());
        const Node* value = binding->bindingValue();
        if (bound.empty() || (bound.back() != "sha256" && bound.back() != "hash") ||
            value->kind != NodeKind::String || value->children.size() != 1 ||
            value->children[0]->kind != NodeKind::StringText)
            continue;
        const std::string text(value->children[0]->text);
        if (text.size() == 52 && (text[0] == '0' || text[0] == '1') &&
            text.find_first_not_of(nix::NixHash::base32Alphabet) == std::string::npos)
            hashes.push_back({value->children[0]->range, text});
    }
    return hashes;
}

// 40-hex revisions in strings that are nixpkgs sources (a URL naming nixpkgs, or no URL at
// all: `rev = "…"`, `pin = "…"`); commit ids in other URLs (a MAGMA patch) are not pins.
std::vector<Token> pinLiterals(const Reading& reading)
{
    std::vector<Token> pins;
    const nix::SyntaxTree& tree = reading.tree();
    for (const Node* string : reading.strings()) {
        const std::string_view whole = tree.text(string->range);
        if (whole.find("://") != std::string_view::npos &&
            whole.find("nixpkgs") == std::string_view::npos)
            continue;
        for (const Node* part : string->parts()) {
            if (part->kind != NodeKind::StringText)
                continue;
            const std::string_view source = tree.text(part->range);
            for (size_t i = 0; i + 40 <= source.size(); ++i) {
                if (i > 0 && isHex(source[i - 1]))
                    continue;
                size_t n = 0;
                while (i + n < source.size() && isHex(source[i + n]))
                    ++n;
                if (n == 40)
                    pins.push_back(
                        {{part->range.begin + uint32_t(i), part->range.begin + uint32_t(i + 40)},
                         std::string(source.substr(i, 40))});
                i += n;
            }
        }
    }
    return pins;
}

std::string otherRevision(const std::string& revision)
{
    std::string other = revision;
    for (char& c : other) {
        const int v = c <= '9' ? c - '0' : c - 'a' + 10;
        const int w = (v + 7) % 16;
        c = char(w < 10 ? '0' + w : 'a' + w - 10);
    }
    return other;
}

// The ISA whose flags replace those of `isa`: one the catalog says `isa` cannot be built with.
std::vector<std::string> replacementIsas(const std::string& isa)
{
    static const std::map<std::string, std::vector<std::string>> order = {
        {"avx", {"avx2", "avx512"}},
        {"avx2", {"avx512", "avx"}},
        {"avx512", {"avx2", "avx512bf16"}},
        {"avx512bf16", {"avx512vnni", "avx512", "avx2"}},
        {"avx512vnni", {"avx512bf16", "avx512", "avx2"}},
        {"armv8_2", {"armv9"}},
        {"armv9", {"armv8_2"}},
    };
    const auto it = order.find(isa);
    return it == order.end() ? std::vector<std::string>{} : it->second;
}

std::string flagList(const std::vector<std::string>& flags)
{
    std::string text = "[";
    for (const std::string& flag : flags)
        text += " \"" + flag + "\"";
    return text + " ]";
}

// A list of flags in the layout of `list` as the author wrote it: one per line, indented like
// its first element, when it spans lines.
std::string flagListLike(const nix::SyntaxTree& tree, const Node& list,
                         const std::vector<std::string>& flags)
{
    const std::string_view text = tree.text(list.range);
    if (text.find('\n') == std::string_view::npos || list.elements().empty())
        return flagList(flags);
    auto indentOf = [&](uint32_t offset) {
        const std::string_view source = tree.source();
        size_t start = source.rfind('\n', offset - 1) + 1;
        size_t end = start;
        while (end < offset && (source[end] == ' ' || source[end] == '\t'))
            ++end;
        return std::string(source.substr(start, end - start));
    };
    const std::string indent = indentOf(list.elements().front()->range.begin);
    std::string out = "[\n";
    for (const std::string& flag : flags)
        out += indent + "\"" + flag + "\"\n";
    return out + indentOf(list.range.end - 1) + "]";
}

// The bytes an element of a list takes: its whole line when it stands alone on it (a
// trailing comment included), else itself and the blanks before it.
SourceRange elementSpan(const nix::SyntaxTree& tree, const Node& element)
{
    const std::string_view source = tree.source();
    const size_t lineBegin = source.rfind('\n', element.range.begin - 1) + 1;
    size_t lineEnd = source.find('\n', element.range.end);
    lineEnd = lineEnd == std::string_view::npos ? source.size() : lineEnd + 1;
    std::string_view after = source.substr(element.range.end, lineEnd - element.range.end);
    after = after.substr(0, after.find('#'));
    const std::string_view before = source.substr(lineBegin, element.range.begin - lineBegin);
    if (before.find_first_not_of(" \t") == std::string_view::npos &&
        after.find_first_not_of(" \t\n") == std::string_view::npos)
        return {uint32_t(lineBegin), uint32_t(lineEnd)};
    uint32_t begin = element.range.begin;
    while (begin > 0 && source[begin - 1] == ' ')
        --begin;
    return {begin, element.range.end};
}

// A flag that makes an ISA's list build a bigger one.
std::optional<std::string> forbiddenFlag(const std::string& isa)
{
    static const std::map<std::string, std::string> flags = {{"avx", "-mavx2"},
                                                             {"avx2", "-mavx512f"},
                                                             {"avx512", "-mavx512bf16"},
                                                             {"avx512vnni", "-mavx512bf16"},
                                                             {"avx512bf16", "-mamx-tile"}};
    const auto it = flags.find(isa);
    return it == flags.end() ? std::nullopt : std::optional(it->second);
}

std::string flagRun(const std::vector<std::string>& flags)
{
    std::string text;
    for (const std::string& flag : flags)
        text += (text.empty() ? "" : " ") + flag;
    return text;
}

// Where the fixed text first departs from the author's: the line of each.
std::string firstDifference(const std::string& original, const std::string& fixed)
{
    size_t at = 0;
    while (at < original.size() && at < fixed.size() && original[at] == fixed[at])
        ++at;
    auto lineOf = [&](const std::string& text) {
        const size_t begin = text.rfind('\n', at == 0 ? 0 : at - 1);
        const size_t from = begin == std::string::npos || at == 0 ? 0 : begin + 1;
        const size_t end = text.find('\n', at);
        return text.substr(from, (end == std::string::npos ? text.size() : end) - from);
    };
    const int line = int(std::count(original.begin(), original.begin() + at, '\n')) + 1;
    return "\n        line " + std::to_string(line) + " was: " + lineOf(original) +
           "\n        now: " + lineOf(fixed);
}

// ---- per repository ----------------------------------------------------------------------

// Findings that point into `path`, by rule.
std::map<std::string, int> findingsOn(const Analysis& analysis, const std::string& path)
{
    std::map<std::string, int> counts;
    auto add = [&](const Finding& finding) {
        if (finding.file == path)
            ++counts[finding.ruleId];
    };
    for (const Cell& entry : analysis.cells)
        for (const Finding& finding : entry.findings)
            add(finding);
    for (const Finding& finding : analysis.repositoryFindings)
        add(finding);
    return counts;
}

std::string describeFindings(const Analysis& analysis, const std::string& path)
{
    std::string text;
    for (const Cell& entry : analysis.cells)
        for (const Finding& finding : entry.findings)
            if (finding.file == path)
                text += "\n        " + std::string(severityId(finding.severity)) + " " +
                        finding.ruleId + ": " + finding.message;
    return text.empty() ? "\n        (no findings)" : text;
}

struct Tally
{
    int mutants = 0;
    int caught = 0;
    int fixed = 0;
    int restored = 0;     // fixed back to the author's bytes
    int unrestorable = 0; // the mutant erased the author's bytes (Mutant::unrestorable)
};

// Fixes known not to give back the author's file, by "repo/file [kind]", with the reason.
// A fix not listed here must restore the file byte for byte; a listed one that does fails
// too, so the list stays true.
const std::map<std::string, std::string>& restoreExceptions()
{
    static const std::map<std::string, std::string> exceptions = {
        {"realworld/warnings-only/pytorch-python313-cuda12_8-sm89-avx2.nix [pin]",
         "no other recipe pins 3e2f6c7 with this file's hash (sha256-Xq3n…); the fix writes the "
         "hash the other recipes pin the revision with"},
    };
    return exceptions;
}

// Mutants known to go uncaught, or caught and not fixed, by their label ("repo/file [kind]
// description"), with the reason. Every other mutant must be caught and fixed; a listed one that
// is caught and fixed fails too, so the list stays true and a new miss cannot hide behind a rate.
const std::map<std::string, std::string>& missExceptions()
{
    // The arch reaches gpuTargets through `inherit (arch) dotted` out of an attribute set:
    // the check follows it, the in-place value fix does not, and regenerating the file from the
    // group's other recipe is refused because it would drop what this recipe writes itself.
    static const std::string inheritedFromASet =
        "the arch value reaches its sink through `inherit (arch) dotted`, which the in-place "
        "fix does not follow; regeneration is refused (it would lose the recipe's own lines)";
    static const std::map<std::string, std::string> exceptions = {
        {"realworld/dotted-bindings/pytorch-python313-cuda12_8-sm100-avx512.nix [arch-value] "
         "line 11: \"10.0\" → \"7.5\"",
         inheritedFromASet},
        {"realworld/dotted-bindings/pytorch-python313-cuda12_8-sm100-avx512.nix [arch-notation] "
         "line 11: \"10.0\" → \"sm_100\"",
         inheritedFromASet},
    };
    return exceptions;
}

// Lines that set something or explain it: exports, cmake -D flags, USE_* switches, comments.
std::vector<std::string> settingLines(const std::string& text)
{
    std::vector<std::string> lines;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find('\n', at);
        end = end == std::string::npos ? text.size() : end;
        const std::string line = text.substr(at, end - at);
        const size_t first = line.find_first_not_of(" \t");
        if (first != std::string::npos &&
            (line.find("export ") != std::string::npos || line.find("\"-D") != std::string::npos ||
             line.find("USE_") != std::string::npos || line[first] == '#'))
            lines.push_back(line);
        at = end + 1;
    }
    return lines;
}

struct FixOutcome
{
    std::map<std::string, int> findings; // on the fixed file, with the rest of the repository
    std::string text;                    // the fixed file
    std::string how;                     // the operation's reason
};

// Plans the fix of `path` in the repository as it is on disk now (mutated), and returns the
// fixed file and its findings, judged together with the rest of the repository; `why` says
// why there is no fix. `cache` holds the facts of the unchanged recipes, as a window's does.
std::optional<FixOutcome> fixOf(const std::shared_ptr<const RepositorySource>& source,
                                const Analysis& mutated, const std::string& path, std::string* why,
                                RecipeCache& cache)
{
    ChangeRequest request;
    request.action = ChangeAction::Fix;
    request.cells = {path};
    request.updateReadme = false;
    const ChangeSet changes =
        ChangePlanner(source, std::make_shared<const Analysis>(mutated)).plan(request);
    auto op = std::find_if(changes.operations.begin(), changes.operations.end(),
                           [&](const FileOperation& o) { return o.path == path; });
    if (op == changes.operations.end()) {
        *why = changes.skipped.empty() ? "no operation" : changes.skipped.front().why;
        return std::nullopt;
    }
    auto fixed = std::make_shared<OverlaySource>(source);
    fixed->write(path, op->after);
    return FixOutcome{findingsOn(Analyzer().analyze(*fixed, {}, &cache), path), op->after,
                      op->reason};
}

} // namespace

class TestMutations : public QObject
{
    Q_OBJECT

private slots:
    void mutantsAreCaught()
    {
        QElapsedTimer timer;
        timer.start();
        const Catalog& catalog = Catalog::builtin();
        std::map<std::string, Tally> byKind;
        std::map<std::string, std::map<std::string, int>> byRepo; // repo → kind → mutants
        QStringList missed;
        QStringList unfixed;
        QStringList notRestored;     // fixes that did not give back the author's file
        QStringList dropped;         // settings and comments a fix lost
        QStringList staleExceptions; // listed as not restored, and restored
        std::set<std::string> usedExceptions;
        QStringList invalid;
        QStringList baselineProblems;
        QStringList uncovered; // for the record: where the test's own reading found nothing
        std::set<std::string> usedMisses;
        QStringList expectedMisses; // for the record: listed in missExceptions()
        // A mutant missed or left unfixed fails the test unless missExceptions() names it.
        const auto expectMiss = [&](const std::string& label, const std::string& text,
                                    QStringList& misses) {
            const auto exception = missExceptions().find(label);
            if (exception == missExceptions().end()) {
                misses << QString::fromStdString(text);
                return;
            }
            usedMisses.insert(label);
            expectedMisses << QString::fromStdString(text + " (expected: " + exception->second +
                                                     ")");
        };

        for (const RepoUnderTest& repo : repositories()) {
            // A temporary copy; the mutated file is written there and restored after each run.
            test::TestRepository copy;
            copy.copyFrom(repo.root);
            const std::shared_ptr<const RepositorySource> source = openWorkTree(copy.rootPath());
            // One mutated file a run: the others' facts come from the cache (the work tree's
            // stamps name their content), so each run parses one file, as the window does.
            RecipeCache cache;
            const Analysis before = Analyzer().analyze(*source, {}, &cache);
            const std::string repoName = repo.name.toStdString();
            QVERIFY2(before.sourceError.empty(), repoName.c_str());
            if (repo.name == QLatin1String("seed001-target")) {
                QCOMPARE(test::findingsBesidesImpossibleAsks(before), 0);
                QCOMPARE(before.findingCount(), test::seed001ImpossibleAsks);
            }

            // Which recipes are sound before mutation.
            std::set<std::string> withErrors;
            for (const Cell& entry : before.cells)
                for (const Finding& finding : entry.findings)
                    if (finding.severity == Severity::Error && entry.recipe)
                        withErrors.insert(entry.recipe->fileName);
            // Sound recipes must be free of errors before mutation (recorded, and the run goes
            // on: a false error only keeps that file from being mutated).
            for (const std::string& file : withErrors)
                if (!repo.broken.count(file))
                    baselineProblems
                        << repo.name + ": error on a sound recipe " +
                               QString::fromStdString(
                                   file + describeFindings(before, ".flox/pkgs/" + file));
            for (const std::string& file : repo.broken)
                if (!withErrors.count(file))
                    baselineProblems << repo.name + ": planted defect not found in " +
                                            QString::fromStdString(file);

            const bool specFile = !before.spec.isInferred();
            const QStringList files =
                QDir(copy.root() + "/.flox/pkgs")
                    .entryList({QStringLiteral("*.nix")}, QDir::Files, QDir::Name);

            // Pins per package × accelerator, to decide where the group defines the pin.
            std::map<std::string, std::map<std::string, int>> pinUse;
            // Files that pin each revision with each base-32 hash ("revision|hash").
            std::map<std::string, int> hashUse;
            auto groupKey = [](const VariantName& name) {
                return name.package + "|" + std::string(acceleratorId(name.accelerator)) + "|" +
                       name.cuda;
            };
            for (const QString& file : files) {
                const auto name = VariantName::parse(file.chopped(4).toStdString());
                const nix::SyntaxTree tree = nix::SyntaxTree::parse(
                    readFile(copy.root() + "/.flox/pkgs/" + file).toStdString());
                const Reading reading(tree);
                const auto pins = pinLiterals(reading);
                if (name && !pins.empty())
                    ++pinUse[groupKey(*name)][pins.front().text];
                for (const Token& hash : base32Hashes(reading))
                    ++hashUse[(pins.empty() ? std::string() : pins.front().text) + "|" + hash.text];
            }

            for (const QString& file : files) {
                const std::string fileName = file.toStdString();
                if (withErrors.count(fileName))
                    continue;
                const std::string path = ".flox/pkgs/" + fileName;
                const QString absolute = copy.root() + "/.flox/pkgs/" + file;
                const QByteArray original = readFile(absolute);
                const auto name = VariantName::parse(file.chopped(4).toStdString());
                if (!name)
                    continue;
                const nix::SyntaxTree tree = nix::SyntaxTree::parse(original.toStdString());
                QVERIFY2(!tree.error(), fileName.c_str());
                const Reading reading(tree);
                std::vector<Mutant> mutants;
                auto where = [&](SourceRange range) {
                    return "line " + std::to_string(lineAt(original, range.begin));
                };

                // (1) arch literal at its sink
                const std::string number = name->accelerator == Accelerator::Cuda
                                               ? ArchNotation::numberOf(name->gpuArch)
                                               : std::string();
                if (!number.empty()) {
                    const std::string other = number == "75" ? "86" : "75";
                    for (const Token& token : archLiterals(reading, number)) {
                        const ArchToken arch = *readArch(token.text);
                        const std::string same =
                            (arch.dotted ? ArchNotation::dotted(other) : other) + arch.suffix;
                        mutants.push_back(
                            {"arch-value",
                             where(token.range) + ": \"" + token.text + "\" → \"" + same + "\"",
                             replaced(original, {{token.range, same}}),
                             {"gpu-arch-mismatch"}});
                        const std::string rejected = "sm_" + number;
                        mutants.push_back(
                            {"arch-notation",
                             where(token.range) + ": \"" + token.text + "\" → \"" + rejected + "\"",
                             replaced(original, {{token.range, rejected}}),
                             {"gpu-arch-notation"}});
                    }
                }

                // (1b) the arch everywhere the recipe names it, as in a copy of another cell's
                // recipe: the literals at its sinks and those of the bindings named after the
                // arch (`gpuArchNum = "89";` beside `gpuArchSM = "8.9";`), sink or not.
                if (!number.empty()) {
                    const std::string other = number == "75" ? "86" : "75";
                    std::map<uint32_t, Token> named;
                    for (const Token& token : archLiterals(reading, number))
                        named.emplace(token.range.begin, token);
                    const size_t atSinks = named.size();
                    for (const Node* binding : reading.bindings()) {
                        const std::vector<std::string> bound = pathNames(*binding->bindingPath());
                        std::string lower = bound.empty() ? std::string() : bound.back();
                        std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
                        const bool archName = lower.find("arch") != std::string::npos ||
                                              lower.starts_with("sm") ||
                                              lower.find("capabilit") != std::string::npos;
                        const Node* value = binding->bindingValue();
                        if (!archName || lower.find("version") != std::string::npos ||
                            value->kind != NodeKind::String || value->children.size() != 1 ||
                            value->children[0]->kind != NodeKind::StringText)
                            continue;
                        const Token token{value->children[0]->range,
                                          std::string(value->children[0]->text)};
                        if (auto arch = readArch(token.text); arch && arch->number == number)
                            named.emplace(token.range.begin, token);
                    }
                    if (atSinks > 0 && named.size() > atSinks) {
                        std::vector<std::pair<SourceRange, std::string>> edits;
                        for (const auto& [offset, token] : named) {
                            const ArchToken arch = *readArch(token.text);
                            edits.push_back(
                                {token.range, (arch.dotted ? ArchNotation::dotted(other) : other) +
                                                  arch.suffix});
                        }
                        mutants.push_back({"arch-bindings",
                                           where(named.begin()->second.range) + ": " +
                                               std::to_string(named.size()) + " literals → sm" +
                                               other,
                                           replaced(original, edits),
                                           {"gpu-arch-mismatch"}});
                    }
                }

                // (1c) the versioned Python package set, wherever it is named
                {
                    const auto sets = namesWhere(reading, [](std::string_view text) {
                        return text.starts_with("python3") && text.ends_with("Packages") &&
                               text.size() == std::string_view("python313Packages").size();
                    });
                    for (const auto& [set, ranges] : sets) {
                        const std::string other =
                            set == "python313Packages" ? "python312Packages" : "python313Packages";
                        std::vector<std::pair<SourceRange, std::string>> edits;
                        for (const SourceRange& range : ranges)
                            edits.push_back({range, other});
                        mutants.push_back({"python-set",
                                           where(ranges.front()) + ": " + set + " → " + other,
                                           replaced(original, edits),
                                           {"python-version-mismatch"}});
                    }
                }

                // (2) pin
                const auto pins = pinLiterals(reading);
                if (!pins.empty()) {
                    const Token& pin = pins.front();
                    std::optional<std::string> rule;
                    if (specFile) {
                        if (before.spec.expectedPin(*name) == pin.text)
                            rule = "pin-mismatch";
                    } else if (pinUse[groupKey(*name)][pin.text] >= 3) {
                        rule = "pin-differs-from-group";
                    }
                    if (rule) {
                        std::vector<std::pair<SourceRange, std::string>> edits;
                        for (const Token& each : pins)
                            if (each.text == pin.text)
                                edits.push_back({each.range, otherRevision(pin.text)});
                        mutants.push_back({"pin",
                                           where(pin.range) + ": " + pin.text.substr(0, 7) + " → " +
                                               otherRevision(pin.text).substr(0, 7),
                                           replaced(original, edits),
                                           {*rule}});
                    }
                }

                // (2b) a hash Nix refuses: its first base-32 digit over the 256 bits. The fix
                // can give back only a hash another recipe pins the same revision with.
                for (const Token& hash : base32Hashes(reading)) {
                    const std::string refused = "y" + hash.text.substr(1);
                    mutants.push_back({"hash",
                                       where(hash.range) + ": " + hash.text.substr(0, 7) + " → " +
                                           refused.substr(0, 7),
                                       replaced(original, {{hash.range, refused}}),
                                       {"invalid-hash"},
                                       hashUse[(pins.empty() ? std::string() : pins.front().text) +
                                               "|" + hash.text] > 1
                                           ? std::string()
                                           : "no other recipe pins this hash to take it from"});
                }

                // (3) ISA flags
                const CpuIsa* isa = name->isa.empty() ? nullptr : catalog.isa(name->isa);
                if (isa && isa->family != CpuFamily::Apple) {
                    const std::vector<std::string> replacements = replacementIsas(isa->id);
                    const CpuIsa* other =
                        replacements.empty() ? nullptr : catalog.isa(replacements.front());
                    std::set<const Node*> inFlagLists;
                    for (const Node* node : reading.all()) {
                        if (node->kind != NodeKind::List || node->elements().empty() || !other)
                            continue;
                        bool flags = true;
                        bool machine = false;
                        for (const Node* element : node->elements()) {
                            const auto text = nix::literalString(*element);
                            flags = flags && text && text->starts_with("-");
                            machine = machine || (text && text->starts_with("-m"));
                        }
                        if (!flags || !machine)
                            continue;
                        std::vector<std::string> written;
                        for (const Node* element : node->elements()) {
                            for (const Node* part : element->parts())
                                inFlagLists.insert(part);
                            written.push_back(*nix::literalString(*element));
                        }
                        mutants.push_back(
                            {"isa",
                             where(node->range) + ": flag list → " + other->id + "'s flags",
                             replaced(original,
                                      {{node->range, flagListLike(tree, *node, other->flags)}}),
                             {"cpu-flags-mismatch"},
                             written == isa->flags
                                 ? ""
                                 : "every flag of a list that is not the catalog's was replaced"});
                        // One flag the ISA needs, left out; one a bigger ISA needs, put in:
                        // in a list of two flags or more that builds the ISA on its own (a
                        // list concatenated with others is judged with them, which this
                        // test's reading does not follow).
                        const std::string_view source = tree.source();
                        const size_t after = source.find_first_not_of(" \t\n", node->range.end);
                        const bool concatenated =
                            source.substr(after, 2) == "++" ||
                            source.substr(0, node->range.begin).find_last_not_of(" \t\n") ==
                                source.substr(0, node->range.begin).rfind("++") + 1;
                        const bool single = concatenated || written.size() < 2 ||
                                            !CpuFeatureSet(written).judge(*isa).acceptable();
                        for (const Node* element : node->elements()) {
                            if (single)
                                break;
                            std::vector<std::string> rest = written;
                            std::erase(rest, *nix::literalString(*element));
                            if (CpuFeatureSet(rest).judge(*isa).missingRequired.empty())
                                continue;
                            const SourceRange span = elementSpan(tree, *element);
                            const bool commented =
                                tree.text(span).find('#') != std::string_view::npos;
                            mutants.push_back(
                                {"isa-flag",
                                 where(element->range) + ": " + *nix::literalString(*element) +
                                     " left out",
                                 replaced(original, {{span, ""}}),
                                 {"cpu-flags-mismatch"},
                                 commented ? "the flag's line went with its comment" : ""});
                            break;
                        }
                        if (auto extra = single ? std::nullopt : forbiddenFlag(isa->id)) {
                            const Node* last = node->elements().back();
                            const SourceRange span = elementSpan(tree, *last);
                            const bool alone = span.end > last->range.end;
                            const std::string indent(tree.text({span.begin, last->range.begin}));
                            const std::string text =
                                alone ? indent + "\"" + *extra + "\"\n" : " \"" + *extra + "\"";
                            const uint32_t at = alone ? span.end : last->range.end;
                            mutants.push_back({"isa-flag",
                                               where(last->range) + ": " + *extra + " put in",
                                               replaced(original, {{{at, at}, text}}),
                                               {"cpu-flags-mismatch", "cpu-flags-beyond"}});
                        }
                    }
                    for (const Node* string : reading.strings())
                        for (const Node* part : string->parts()) {
                            if (part->kind != NodeKind::StringText || inFlagLists.count(part) ||
                                !other)
                                continue;
                            // A flag glued to an interpolation ("-m${feature}") is not a
                            // literal flag.
                            const auto parts = string->parts();
                            const auto at = std::find(parts.begin(), parts.end(), part);
                            const bool gluedBefore =
                                at != parts.begin() && (*(at - 1))->kind == NodeKind::Interpolation;
                            const bool gluedAfter = at + 1 != parts.end() &&
                                                    (*(at + 1))->kind == NodeKind::Interpolation;
                            std::vector<Token> tokens = tokensOf(tree, *part, " \t\n\"'");
                            if (gluedAfter && !tokens.empty() &&
                                tokens.back().range.end == part->range.end)
                                tokens.pop_back();
                            if (gluedBefore && !tokens.empty() &&
                                tokens.front().range.begin == part->range.begin)
                                tokens.erase(tokens.begin());
                            for (size_t i = 0; i < tokens.size();) {
                                if (!tokens[i].text.starts_with("-m")) {
                                    ++i;
                                    continue;
                                }
                                size_t j = i;
                                while (j + 1 < tokens.size() &&
                                       tokens[j + 1].text.starts_with("-m"))
                                    ++j;
                                const SourceRange run{tokens[i].range.begin, tokens[j].range.end};
                                const bool catalogRun = tree.text(run) == flagRun(isa->flags);
                                mutants.push_back(
                                    {"isa",
                                     where(run) + ": \"" + std::string(tree.text(run)) + "\" → " +
                                         other->id + "'s flags",
                                     replaced(original, {{run, flagRun(other->flags)}}),
                                     {"cpu-flags-mismatch"},
                                     catalogRun ? ""
                                                : "every flag of a run that is not the "
                                                  "catalog's was replaced"});
                                i = j + 1;
                            }
                        }
                    // (import ./lib/cpu-isa.nix).avx512 → another ISA the module defines
                    for (const Node* node : reading.all()) {
                        if (node->kind != NodeKind::Select || !node->subject() ||
                            node->subject()->kind != NodeKind::Apply ||
                            calleeName(*node->subject()) != "import")
                            continue;
                        const auto arguments = callArguments(*node->subject());
                        const Node* attribute = node->attrPath()->children.front();
                        if (arguments.size() != 1 || arguments[0]->kind != NodeKind::Path ||
                            attribute->kind != NodeKind::AttrName || attribute->text != isa->id)
                            continue;
                        const QString modulePath =
                            QFileInfo(absolute).dir().filePath(QString::fromUtf8(
                                arguments[0]->text.data(), int(arguments[0]->text.size())));
                        const nix::SyntaxTree module =
                            nix::SyntaxTree::parse(readFile(modulePath).toStdString());
                        std::set<std::string> defined;
                        if (module.root() && module.root()->kind == NodeKind::AttrSet)
                            for (const Node* binding : module.root()->bindings())
                                if (binding->kind == NodeKind::Binding)
                                    defined.insert(pathNames(*binding->bindingPath()).front());
                        for (const std::string& id : replacements)
                            if (defined.count(id)) {
                                mutants.push_back({"isa",
                                                   where(attribute->range) + ": ." + isa->id +
                                                       " → ." + id + " of the module",
                                                   replaced(original, {{attribute->range, id}}),
                                                   {"cpu-flags-mismatch"}});
                                break;
                            }
                    }
                }

                // (4) platforms, and (4b) the system nixpkgs is imported for (`system = …`,
                // `localSystem`) where meta.platforms does not read the same literal: each
                // Linux system swapped for the other.
                if (isa && (isa->platform == "x86_64-linux" || isa->platform == "aarch64-linux")) {
                    std::set<uint32_t> taken;
                    auto swapSystems = [&](const char* kind, std::set<std::string> bindingNames) {
                        std::map<uint32_t, Token> found;
                        for (const Node* binding : reading.bindings()) {
                            const std::vector<std::string> bound =
                                pathNames(*binding->bindingPath());
                            if (bound.empty() || !bindingNames.count(bound.back()))
                                continue;
                            std::unordered_set<const Node*> seen;
                            reading.walk(
                                *binding->bindingValue(),
                                [&](const Node& part) {
                                    for (const Token& token : tokensOf(tree, part, " \t\n"))
                                        if ((token.text == "x86_64-linux" ||
                                             token.text == "aarch64-linux") &&
                                            !taken.count(token.range.begin))
                                            found.emplace(token.range.begin, token);
                                },
                                seen);
                        }
                        for (const auto& [offset, token] : found) {
                            taken.insert(offset);
                            const std::string swapped =
                                token.text == "x86_64-linux" ? "aarch64-linux" : "x86_64-linux";
                            mutants.push_back({kind,
                                               where(token.range) + ": \"" + token.text +
                                                   "\" → \"" + swapped + "\"",
                                               replaced(original, {{token.range, swapped}}),
                                               {"platforms-mismatch"}});
                        }
                    };
                    swapSystems("platforms", {"platforms"});
                    swapSystems("system", {"system", "localSystem"});
                }

                // (5) CUDA package set
                if (name->accelerator == Accelerator::Cuda && !name->cuda.empty()) {
                    const auto mentions = namesWhere(reading, [](std::string_view text) {
                        return text.starts_with("cudaPackages_") && text.size() > 13;
                    });
                    for (const auto& [set, ranges] : mentions) {
                        const CudaVersion* version = catalog.cudaByPackageSet(set);
                        std::string other = "cudaPackages_12_8";
                        if (version && version->dotted == "12.8")
                            other = "cudaPackages_12_6";
                        else if (version && version->dotted == "13.1")
                            other = "cudaPackages_13_0";
                        std::vector<std::pair<SourceRange, std::string>> edits;
                        for (const SourceRange& range : ranges)
                            edits.push_back({range, other});
                        mutants.push_back({"cuda-set",
                                           where(ranges.front()) + ": " + set + " → " + other +
                                               " (" + std::to_string(ranges.size()) + " mention" +
                                               (ranges.size() > 1 ? "s" : "") + ")",
                                           replaced(original, edits),
                                           {"cuda-version-mismatch"}});
                    }
                }

                // (6) a sibling recipe the file builds on (a companion's torch), swapped for the
                // same package's recipe of another cell: a copy-paste that kept the import.
                for (const Node* node : reading.all()) {
                    if (node->kind != NodeKind::Path)
                        continue;
                    const auto base = VariantName::ofSiblingPath(node->text);
                    if (!base || !name->matchesBase(*base))
                        continue;
                    const QStringList siblings = QFileInfo(absolute).dir().entryList(
                        {QStringLiteral("*.nix")}, QDir::Files, QDir::Name);
                    for (const QString& sibling : siblings) {
                        const auto other = VariantName::parse(sibling.chopped(4).toStdString());
                        if (!other || other->package != base->package || name->matchesBase(*other))
                            continue;
                        const std::string to = "./" + sibling.toStdString();
                        mutants.push_back(
                            {"import",
                             where(node->range) + ": " + std::string(node->text) + " → " + to,
                             replaced(original, {{node->range, to}}),
                             {"imported-cell-mismatch"}});
                        break;
                    }
                }

                std::set<std::string> kinds;
                for (const Mutant& mutant : mutants)
                    kinds.insert(mutant.kind);
                QStringList none;
                if (!number.empty() && !kinds.count("arch-value"))
                    none << QStringLiteral("arch");
                if (isa && isa->family != CpuFamily::Apple && !kinds.count("isa"))
                    none << QStringLiteral("isa");
                if (isa && !kinds.count("platforms"))
                    none << QStringLiteral("platforms");
                if (pins.empty())
                    none << QStringLiteral("pin (none written)");
                if (!none.isEmpty())
                    uncovered << QString::fromStdString("  " + repoName + "/" + fileName + ": ") +
                                     none.join(", ");

                const std::map<std::string, int> baseline = findingsOn(before, path);
                // What fixing must give back: the author's file, or, where the recipe has
                // warnings of its own (a deprecated attribute), the author's file with those
                // fixed, since a fix repairs every finding of its recipe.
                std::string unused;
                const auto ownFix = fixOf(source, before, path, &unused, cache);
                const std::string expected = ownFix ? ownFix->text : original.toStdString();
                for (const Mutant& mutant : mutants) {
                    const std::string label =
                        repoName + "/" + fileName + " [" + mutant.kind + "] " + mutant.description;
                    const nix::SyntaxTree parsed =
                        nix::SyntaxTree::parse(mutant.bytes.toStdString());
                    if (parsed.error()) {
                        invalid << QString::fromStdString(label + ": " + parsed.error()->message);
                        continue;
                    }
                    ++byKind[mutant.kind].mutants;
                    ++byRepo[repoName][mutant.kind];
                    QVERIFY(writeFile(absolute, mutant.bytes));
                    const Analysis after = Analyzer().analyze(*source, {}, &cache);
                    const std::map<std::string, int> now = findingsOn(after, path);
                    bool caught = false;
                    for (const std::string& rule : mutant.rules) {
                        const auto was = baseline.find(rule);
                        const auto is = now.find(rule);
                        caught = caught || (is != now.end() &&
                                            is->second > (was == baseline.end() ? 0 : was->second));
                    }
                    std::string why;
                    const auto fixed =
                        caught ? fixOf(source, after, path, &why, cache) : std::nullopt;
                    QVERIFY(writeFile(absolute, original));
                    if (fixed) {
                        std::string left;
                        for (const auto& [rule, count] : fixed->findings)
                            if (count > (baseline.count(rule) ? baseline.at(rule) : 0))
                                left += " " + rule;
                        if (left.empty())
                            ++byKind[mutant.kind].fixed;
                        else
                            expectMiss(label, label + " — the fix leaves" + left, unfixed);
                        for (const std::string& line : settingLines(original.toStdString()))
                            if (mutant.bytes.contains(QByteArray::fromStdString(line)) &&
                                fixed->text.find(line) == std::string::npos)
                                dropped << QString::fromStdString(label + ": " + line);
                        const auto exception = restoreExceptions().find(repoName + "/" + fileName +
                                                                        " [" + mutant.kind + "]");
                        const bool excused = exception != restoreExceptions().end();
                        if (excused)
                            usedExceptions.insert(exception->first);
                        if (!mutant.unrestorable.empty()) {
                            ++byKind[mutant.kind].unrestorable;
                        } else if (fixed->text == expected) {
                            ++byKind[mutant.kind].restored;
                            if (excused)
                                staleExceptions << QString::fromStdString(exception->first);
                        } else if (!excused) {
                            notRestored
                                << QString::fromStdString(label + " (" + fixed->how + ")" +
                                                          firstDifference(expected, fixed->text));
                        }
                    } else if (caught) {
                        expectMiss(label, label + " — no fix: " + why, unfixed);
                    }
                    if (caught)
                        ++byKind[mutant.kind].caught;
                    else
                        expectMiss(label,
                                   label + " — expected " + *mutant.rules.begin() +
                                       ", got:" + describeFindings(after, path),
                                   missed);
                }
            }
        }

        for (const auto& [repo, kinds] : byRepo) {
            QString line = QString::fromStdString(repo) + ":";
            for (const auto& [kind, count] : kinds)
                line += QStringLiteral(" %1=%2").arg(QString::fromStdString(kind)).arg(count);
            qInfo().noquote() << line;
        }
        for (const auto& [kind, tally] : byKind) {
            const double rate = tally.mutants ? 100.0 * tally.caught / tally.mutants : 0.0;
            const double fixRate = tally.caught ? 100.0 * tally.fixed / tally.caught : 0.0;
            const int restorable = tally.caught - tally.unrestorable;
            const double restoreRate = restorable ? 100.0 * tally.restored / restorable : 100.0;
            qInfo().noquote() << QStringLiteral(
                                     "%1: %2 of %3 mutants caught (%4%), %5 fixed (%6%), %7 "
                                     "of %9 restorable restored byte for byte (%8%)")
                                     .arg(QString::fromStdString(kind), -14)
                                     .arg(tally.caught)
                                     .arg(tally.mutants)
                                     .arg(rate, 0, 'f', 1)
                                     .arg(tally.fixed)
                                     .arg(fixRate, 0, 'f', 1)
                                     .arg(tally.restored)
                                     .arg(restoreRate, 0, 'f', 1)
                                     .arg(restorable);
        }
        qInfo() << "mutation run took" << timer.elapsed() << "ms";

        if (!uncovered.isEmpty())
            qInfo().noquote() << "recipes without a literal to mutate for a kind:\n" +
                                     uncovered.join('\n');
        if (!missed.isEmpty())
            qInfo().noquote() << "missed mutants:\n" + missed.join('\n');
        if (!unfixed.isEmpty())
            qInfo().noquote() << "mutants the fix did not repair:\n" + unfixed.join('\n');
        if (!notRestored.isEmpty())
            qInfo().noquote() << "fixes that did not give back the author's file:\n" +
                                     notRestored.join('\n');
        if (!expectedMisses.isEmpty())
            qInfo().noquote() << "expected misses:\n" + expectedMisses.join('\n');
        for (const auto& [key, reason] : restoreExceptions())
            if (!usedExceptions.count(key))
                staleExceptions << QString::fromStdString(key + " (no such mutant)");
        QStringList staleMisses;
        for (const auto& [label, reason] : missExceptions())
            if (!usedMisses.count(label))
                staleMisses << QString::fromStdString(label);
        QVERIFY2(missed.isEmpty(), qPrintable("missed mutants:\n" + missed.join('\n')));
        QVERIFY2(unfixed.isEmpty(),
                 qPrintable("mutants the fix did not repair:\n" + unfixed.join('\n')));
        QVERIFY2(staleMisses.isEmpty(),
                 qPrintable("listed as missed, but caught and fixed (or no such mutant):\n" +
                            staleMisses.join('\n')));
        QVERIFY2(baselineProblems.isEmpty(), qPrintable(baselineProblems.join('\n')));
        QVERIFY2(notRestored.isEmpty(),
                 qPrintable("fixes that did not give back the author's file:\n" +
                            notRestored.join('\n')));
        QVERIFY2(staleExceptions.isEmpty(), qPrintable("listed as not restored, but restored:\n" +
                                                       staleExceptions.join('\n')));
        QVERIFY2(dropped.isEmpty(),
                 qPrintable("fixes that dropped a setting or comment:\n" + dropped.join('\n')));
        QVERIFY2(invalid.isEmpty(), qPrintable("mutants Nix would reject (a bug of this test):\n" +
                                               invalid.join('\n')));
        // Every kind is exercised, and every repository gets mutants.
        for (const char* kind : {"arch-value", "arch-notation", "pin", "isa", "isa-flag",
                                 "platforms", "cuda-set", "python-set"})
            QVERIFY2(byKind[kind].mutants >= 20, kind);
        QVERIFY2(byKind["import"].mutants >= 2, "import"); // only companions import a recipe
        QVERIFY2(byKind["system"].mutants >= 5, "system"); // few recipes import for a system
        QVERIFY2(byKind["arch-bindings"].mutants >= 5, "arch-bindings");
        for (const RepoUnderTest& repo : repositories())
            QVERIFY2(!byRepo[repo.name.toStdString()].empty(), qPrintable(repo.name));
    }

    // Recipes whose values a builder makes (`import ./lib/mk-torch.nix { capability = "9.0";
    // … }`) or that derive from a sibling (`(import ./<base>.nix { … }).override { gpuArch =
    // "8.9"; }`): the arguments they write are what a copy-paste gets wrong. Each argument
    // literal naming the arch, ISA, Python or CUDA version is changed to another cell's, and
    // the engine must report it on that file, and fixing it must give back the author's file.
    void builderArgumentMutantsAreCaught()
    {
        // argument name → (replacement of a value, the rules that catch it)
        const std::map<std::string, std::pair<std::function<std::string(const std::string&)>,
                                              std::set<std::string>>>
            arguments = {
                {"capability",
                 {[](const std::string& v) { return v == "7.5" ? "8.6" : "7.5"; },
                  {"gpu-arch-mismatch"}}},
                {"gpuArch",
                 {[](const std::string& v) { return v == "7.5" ? "8.6" : "7.5"; },
                  {"gpu-arch-mismatch"}}},
                {"isa",
                 {[](const std::string& v) { return v == "avx2" ? "avx512" : "avx2"; },
                  {"cpu-flags-mismatch", "cpu-flags-weaker", "platforms-mismatch"}}},
                {"python",
                 {[](const std::string& v) { return v == "312" ? "313" : "312"; },
                  {"python-version-mismatch"}}},
                {"cudaVersion",
                 {[](const std::string& v) { return v == "12_9" ? "12_8" : "12_9"; },
                  {"cuda-version-mismatch"}}},
            };
        Tally tally;
        QStringList missed;
        QStringList notRestored;
        std::set<std::string> names;
        for (const char* style : {"builder", "derived"}) {
            const QString root = QStringLiteral(RG_FIXTURES_DIR) + "/realworld/" + style;
            test::TestRepository copy;
            copy.copyFrom(root);
            const std::shared_ptr<const RepositorySource> source = openWorkTree(copy.rootPath());
            // One mutated file a run: the others' facts come from the cache (the work tree's
            // stamps name their content), so each run parses one file, as the window does.
            RecipeCache cache;
            const Analysis before = Analyzer().analyze(*source, {}, &cache);
            for (const Cell& entry : before.cells) {
                if (!entry.recipe || entry.firstError())
                    continue;
                const std::string& path = entry.recipe->path;
                const QString absolute = copy.root() + "/" + QString::fromStdString(path);
                const QByteArray original = readFile(absolute);
                const nix::SyntaxTree tree = nix::SyntaxTree::parse(original.toStdString());
                std::vector<Mutant> mutants;
                nix::forEachNode(*tree.root(), [&](const Node& node) {
                    const Node* key = node.kind == NodeKind::Binding ? node.bindingPath() : nullptr;
                    const Node* value = key ? node.bindingValue() : nullptr;
                    if (!value || key->children.empty() || value->kind != NodeKind::String ||
                        value->children.size() != 1 ||
                        value->children[0]->kind != NodeKind::StringText)
                        return true;
                    const auto argument = arguments.find(std::string(key->children.back()->text));
                    if (argument == arguments.end())
                        return true;
                    const std::string was(value->children[0]->text);
                    const std::string to = argument->second.first(was);
                    mutants.push_back({argument->first, was + " → " + to,
                                       replaced(original, {{value->children[0]->range, to}}),
                                       argument->second.second});
                    return true;
                });
                const std::map<std::string, int> baseline = findingsOn(before, path);
                for (const Mutant& mutant : mutants) {
                    ++tally.mutants;
                    names.insert(mutant.kind);
                    QVERIFY(writeFile(absolute, mutant.bytes));
                    const Analysis after = Analyzer().analyze(*source, {}, &cache);
                    const std::map<std::string, int> now = findingsOn(after, path);
                    const bool caught = std::ranges::any_of(mutant.rules, [&](const auto& rule) {
                        return now.count(rule) &&
                               now.at(rule) > (baseline.count(rule) ? baseline.at(rule) : 0);
                    });
                    // The argument is the one token the defect wrote: its fix gives it back.
                    std::string why;
                    const auto fixed =
                        caught ? fixOf(source, after, path, &why, cache) : std::nullopt;
                    QVERIFY(writeFile(absolute, original));
                    if (fixed && fixed->text == original.toStdString())
                        ++tally.restored;
                    else if (caught)
                        notRestored << QString::fromStdString(
                            path + " [" + mutant.kind + "] " + mutant.description + ": " +
                            (fixed
                                 ? fixed->how + firstDifference(original.toStdString(), fixed->text)
                                 : why));
                    if (caught)
                        ++tally.caught;
                    else
                        missed << QString::fromStdString(path + " [" + mutant.kind + "] " +
                                                         mutant.description);
                }
            }
        }
        qInfo("builder and derived arguments: %d of %d mutants caught, %d fixed back to the "
              "author's bytes",
              tally.caught, tally.mutants, tally.restored);
        QVERIFY2(missed.isEmpty(), qPrintable(missed.join('\n')));
        QVERIFY2(notRestored.isEmpty(),
                 qPrintable("fixes that did not give back the author's file:\n" +
                            notRestored.join('\n')));
        // Arch, ISA and Python arguments are all written somewhere in the two fixtures.
        for (const char* kind : {"capability", "gpuArch", "isa", "python"})
            QVERIFY2(names.count(kind), kind);
        QVERIFY(tally.mutants >= 20);
    }
};

QTEST_GUILESS_MAIN(TestMutations)
#include "tst_mutations.moc"
