#include "recipes/factextractor.h"

#include "nix/evaluator.h"
#include "nix/jsonreader.h"
#include "nix/nixhash.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_map>

namespace rg {

using nix::Node;
using nix::NodeKind;
using nix::SourceRange;

namespace {

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

// A binding as written: `path = value;`, an inherited name, or a formal's default. `source`
// is what the evaluator evaluates for its value: the value expression, or the inherited name.
struct BindingRecord
{
    std::string path;             // full attribute path from the nearest set that is an argument
    std::string last;             // its last segment
    const Node* value = nullptr;  // null for `inherit`
    const Node* key = nullptr;    // the AttrPath, or the inherited AttrName
    const Node* source = nullptr; // the value, or the inherited name
};

// A string the facts read, with the runs of it that are bytes of this file.
struct Text
{
    std::string text;
    SourceRange range; // the literal it was found in (or the expression computing it)
    std::vector<nix::StringPiece> pieces;
    std::string writtenIn; // "lib/cpu-isa.nix:3" when written in one of the repository's modules

    // The source range of text[offset, offset+length) when it lies in one piece.
    std::optional<SourceRange> sourceOf(size_t offset, size_t length) const
    {
        for (const nix::StringPiece& piece : pieces)
            if (offset >= piece.offset && offset + length <= piece.offset + piece.length) {
                const auto begin = static_cast<uint32_t>(piece.source + (offset - piece.offset));
                return SourceRange{begin, static_cast<uint32_t>(begin + length)};
            }
        return std::nullopt;
    }

    // Runs adjacent both in the text and in the source are one run.
    void addPiece(const nix::StringPiece& piece)
    {
        if (!pieces.empty()) {
            nix::StringPiece& last = pieces.back();
            if (last.file == piece.file && last.offset + last.length == piece.offset &&
                last.source + last.length == piece.source) {
                last.length += piece.length;
                return;
            }
        }
        pieces.push_back(piece);
    }

    // Appends more[from, from + length) with the pieces that cover it.
    void append(std::string_view more, std::span<const nix::StringPiece> morePieces,
                size_t from = 0, size_t length = std::string_view::npos)
    {
        from = std::min(from, more.size());
        length = std::min(length, more.size() - from);
        const size_t base = text.size();
        text.append(more.substr(from, length));
        for (const nix::StringPiece& piece : morePieces) {
            const size_t begin = std::max(piece.offset, from);
            const size_t end = std::min(piece.offset + piece.length, from + length);
            if (begin < end)
                addPiece({base + (begin - from), end - begin, piece.file,
                          static_cast<uint32_t>(piece.source + (begin - piece.offset))});
        }
    }
};

using TextItems = std::vector<std::optional<Text>>;

class Extractor
{
public:
    Extractor(const nix::SyntaxTree& tree, RecipeFacts& facts, nix::ModuleLoader* modules,
              int depth = 0)
        : m_tree(tree), m_facts(facts), m_modules(modules), m_depth(depth)
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
        visit(*root, std::string());
        findOverlays();
        extractOverlayFacts();
        extractPins();
        extractHashes();
        extractValues();
        extractPackageSets();
        extractSelectedPackageSets(); // `pkgs.${pyAttr}`: where no set is named
        extractShellSettings();
        extractArchSinks();
        extractCompilerFlags();
        extractPlatforms();
        extractNixpkgsSystem();
        readThroughBuilder();
        extractUnpinnedImports(*root);
        extractPattern(*root);
    }

private:
    // A recipe derived from a sibling: the sibling's call (`import ./x.nix { … }`) and the
    // argument of `.override`.
    struct Derivation
    {
        const Node* base = nullptr;
        const Node* overrides = nullptr;
    };

    // ---- a builder module ------------------------------------------------------------------

    // `import ./lib/mk-torch.nix { capability = "8.6"; isa = "avx2"; }`: the arch sinks and
    // compiler flags are in the builder's function, fed by the recipe's argument. They are read
    // there, as the recipe's facts, with where they are written: no range of them is in the
    // recipe, so they are reported but never edited in place.
    void readThroughBuilder()
    {
        if (!m_modules || m_depth > 0 ||
            (!m_facts.archSinks.empty() && m_facts.compilerFlags && m_facts.pythonPackageSet &&
             m_facts.cudaPackageSet))
            return;
        if (m_facts.builderModule.empty()) {
            if (!m_derivations.empty())
                readDerived(m_derivations.front());
            return;
        }
        // The outermost call: `import ./lib/mk.nix { inherit lib; } cell` applies a curried
        // function to both.
        std::vector<const Node*> call;
        for (const Node* apply : m_applies) {
            auto arguments = callArguments(*apply);
            if (arguments.size() >= 2 && arguments.size() > call.size() &&
                isLiteralPath(arguments[0]) && arguments[0]->text == m_facts.builderModule)
                call = std::move(arguments);
        }
        if (!call.empty())
            readBuilt(m_modules->resolve(m_facts.path, m_facts.builderModule), valuesOf(call));
    }

    // `(import ./<sibling>.nix { inherit callPackage; }).override { gpuArch = "8.9"; }` where
    // the sibling is `callPackage ./lib/torch.nix { … }`: callPackage's makeOverridable calls
    // the builder again with the sibling's arguments updated by the overrides, so this recipe
    // is what that call makes. (`callPackage ./<sibling>.nix { }` would wrap it in a second
    // makeOverridable over the sibling's own arguments, which is not followed.)
    void readDerived(const Derivation& derivation)
    {
        const auto arguments = callArguments(*derivation.base);
        if (arguments.size() != 2 || calleeName(*derivation.base) != "import" ||
            !derivation.overrides)
            return;
        auto call = builderCallOf(m_modules->resolve(m_facts.path, arguments[0]->text),
                                  valueOf(arguments[1]), 0);
        if (!call)
            return;
        const nix::Value overrides = valueOf(derivation.overrides);
        const nix::Value merged = evaluator().overridden(call->arguments, overrides);
        readBuilt(call->module, {merged});
        // A sibling recipe the base passes (a companion's torch) is still passed unless
        // overridden.
        for (auto& [name, imported] : keptPasses(std::move(call->passed), overrides))
            if (imported.value != "./" + m_facts.fileName)
                m_facts.importedFiles.push_back(std::move(imported));
        // Followed, it is a recipe of its own, not a thin wrapper checked on its base.
        const std::string directory = m_facts.path.substr(0, m_facts.path.rfind('/') + 1);
        if ((!m_facts.archSinks.empty() || m_facts.compilerFlags || m_facts.pythonPackageSet ||
             m_facts.cudaPackageSet) &&
            call->module.starts_with(directory)) {
            m_facts.wrappedFile.reset();
            m_facts.builderModule = "./" + call->module.substr(directory.size());
        }
        if (m_facts.pins.empty())
            if (const nix::SyntaxTree* builder = m_modules->load(call->module))
                for (PinFact& pin : appliedPins(*builder, call->module, {merged}))
                    if (!pin.file.empty()) // the builder's, or where the arguments are written
                        m_facts.pins.push_back(std::move(pin));
    }

    // Sibling recipes passed as arguments (`torch = callPackage ./pytorch-….nix { };`), by the
    // attribute each is passed as.
    using Passes = std::vector<std::pair<std::string, Fact<std::string>>>;

    struct BuilderCall
    {
        std::string module; // id
        nix::Value arguments;
        Passes passed;
    };

    // What of `passed` overrides leave in place: all when they are a set without those
    // attributes, none when they cannot be read (a function of the old arguments).
    static Passes keptPasses(Passes passed, const nix::Value& overrides)
    {
        if (overrides.kind() != nix::Value::Kind::AttrSet)
            return {};
        std::erase_if(passed, [&](const auto& pass) { return overrides.attribute(pass.first); });
        return passed;
    }

    // Sibling recipes imported in `argument` (a call's argument set), by the attribute they
    // are bound to.
    Passes siblingPasses(const Node& argument) const
    {
        Passes passed;
        if (argument.kind != NodeKind::AttrSet)
            return passed;
        std::optional<nix::LineIndex> lines; // only when a sibling is passed
        for (const Node* apply : m_applies) {
            const auto call = callArguments(*apply);
            const std::string_view callee = calleeName(*apply);
            if ((callee != "import" && callee != "callPackage") || call.empty() ||
                !isLiteralPath(call[0]) || !isSibling(call[0]->text) ||
                !within(&argument, apply->range))
                continue;
            for (const Node* binding : argument.children) {
                const Node* path =
                    binding->kind == NodeKind::Binding ? binding->bindingPath() : nullptr;
                const Node* value = path ? binding->bindingValue() : nullptr;
                if (!value || !within(value, apply->range) || path->children.empty() ||
                    path->children.front()->kind != NodeKind::AttrName)
                    continue;
                const std::string name(path->children.front()->text);
                if (std::ranges::any_of(passed, [&](const auto& p) { return p.first == name; }))
                    continue;
                Fact<std::string> imported{std::string(call[0]->text), SourceRange{}};
                if (!lines)
                    lines.emplace(m_tree.source());
                imported.in = "passed as " + name + " in " + m_facts.path + ":" +
                              std::to_string(lines->position(call[0]->range.begin).line);
                passed.emplace_back(name, std::move(imported));
            }
        }
        return passed;
    }

    // The builder `import <recipe> <argument>` calls with callPackage, and its arguments: the
    // recipe's own call, or, for a recipe derived from another, that one's call updated by
    // its overrides (a chain of derivations, a few deep).
    std::optional<BuilderCall> builderCallOf(const std::string& recipeId,
                                             const nix::Value& argument, int depth) const
    {
        constexpr int maxDepth = 4;
        const nix::SyntaxTree* recipe = recipeId.empty() ? nullptr : m_modules->load(recipeId);
        if (depth >= maxDepth || !recipe || !recipe->root() ||
            recipe->root()->kind != NodeKind::Lambda)
            return std::nullopt;
        RecipeFacts facts;
        facts.path = recipeId;
        Extractor base(*recipe, facts, m_modules, m_depth + 1);
        base.visit(*recipe->root(), std::string());
        const auto in = [&](const Node& node) {
            return evaluator().evaluateApplied(recipeId, argument, node);
        };
        for (const Node* apply : base.m_applies) {
            const auto call = callArguments(*apply);
            if (call.size() == 2 && isLiteralPath(call[0]) && !isSibling(call[0]->text) &&
                calleeName(*apply) == "callPackage")
                return BuilderCall{m_modules->resolve(recipeId, call[0]->text), in(*call[1]),
                                   base.siblingPasses(*call[1])};
        }
        base.extractDerivedFrom();
        if (base.m_derivations.empty() || !base.m_derivations.front().overrides)
            return std::nullopt;
        const Derivation& derived = base.m_derivations.front();
        const auto call = callArguments(*derived.base);
        if (call.size() != 2 || calleeName(*derived.base) != "import")
            return std::nullopt;
        auto inner =
            builderCallOf(m_modules->resolve(recipeId, call[0]->text), in(*call[1]), depth + 1);
        if (!inner)
            return inner;
        const nix::Value overrides = in(*derived.overrides);
        inner->arguments = evaluator().overridden(inner->arguments, overrides);
        inner->passed = keptPasses(std::move(inner->passed), overrides);
        return inner;
    }

    // The facts a builder module makes when applied to `arguments` (several for a curried one).
    void readBuilt(const std::string& id, std::vector<nix::Value> arguments, int chain = 0)
    {
        const nix::SyntaxTree* module = id.empty() ? nullptr : m_modules->load(id);
        if (!module || !module->root() || module->root()->kind != NodeKind::Lambda)
            return;
        RecipeFacts built;
        built.path = id;
        Extractor builder(*module, built, m_modules, m_depth + 1);
        builder.m_shared = &evaluator();
        builder.m_moduleId = id;
        builder.m_appliedTo = std::move(arguments);
        builder.visit(*module->root(), std::string());
        builder.findOverlays();
        builder.extractShellSettings();
        builder.extractArchSinks();
        builder.extractCompilerFlags();
        builder.extractSelectedPackageSets();
        builder.extractPlatforms();
        builder.extractNixpkgsSystem();
        for (Fact<std::string>& computed : builder.computedSiblingImports(m_facts.path))
            m_facts.importedFiles.push_back(std::move(computed));
        const nix::LineIndex lines(module->source());
        const auto at = [&](SourceRange range) {
            return id + ":" + std::to_string(lines.position(range.begin).line);
        };
        auto takeSet = [&](std::optional<Fact<std::string>>& mine,
                           std::optional<Fact<std::string>>& made) {
            if (mine || !made)
                return;
            made->in = "selected in " + at(made->range) +
                       (made->in.empty() ? std::string() : ", from a value written in " + made->in);
            made->range = SourceRange{};
            mine = std::move(made);
        };
        takeSet(m_facts.pythonPackageSet, built.pythonPackageSet);
        takeSet(m_facts.cudaPackageSet, built.cudaPackageSet);
        if (!m_facts.nixpkgsSystem && built.nixpkgsSystem) {
            Fact<std::string>& system = *built.nixpkgsSystem;
            system.in =
                "in " + at(system.range) + (system.in.empty() ? std::string() : ", " + system.in);
            system.range = SourceRange{};
            m_facts.nixpkgsSystem = std::move(system);
        }
        if (!m_facts.platformsValue && built.platformsValue) {
            built.platformsValue->in = "in " + at(built.platformsValue->range);
            built.platformsValue->range = SourceRange{};
            m_facts.platformsValue = std::move(built.platformsValue);
        }
        // What the recipe sets itself (an arch handed to the builder under a sink's name)
        // is read in the recipe; the rest where the builder makes it.
        if (m_facts.archSinks.empty()) {
            for (ArchSinkFact& sink : built.archSinks) {
                sink.sinkIn = at(sink.sinkRange);
                if (sink.writtenIn.empty())
                    sink.writtenIn = at(sink.range);
                sink.range = sink.sinkRange = sink.viaRange = SourceRange{};
            }
            m_facts.archSinks = std::move(built.archSinks);
        }
        auto place = [&](CpuFlagsFact& flags) {
            if (flags.writtenIn.empty())
                flags.writtenIn = at(flags.range);
            flags.range = SourceRange{};
        };
        if (built.compilerFlags && !m_facts.compilerFlags) {
            place(*built.compilerFlags);
            for (CpuFlagsFact& more : built.moreCompilerFlags)
                place(more);
            m_facts.compilerFlags = std::move(built.compilerFlags);
            m_facts.moreCompilerFlags = std::move(built.moreCompilerFlags);
        }
        // A builder that hands its values on to another (`callPackage ./torch-build.nix
        // { inherit cpu gpuTargets; }`): what is still missing is made there.
        constexpr int maxChain = 3;
        if (chain + 1 >= maxChain || (!m_facts.archSinks.empty() && m_facts.compilerFlags &&
                                      m_facts.pythonPackageSet && m_facts.cudaPackageSet))
            return;
        for (const Node* apply : builder.m_applies) {
            const auto arguments = callArguments(*apply);
            if (arguments.size() != 2 || !arguments[0] || !isLiteralPath(arguments[0]) ||
                !endsWith(arguments[0]->text, ".nix"))
                continue;
            const std::string next = m_modules->resolve(id, arguments[0]->text);
            if (!next.empty() && next != id && next != m_facts.path)
                readBuilt(next, {builder.valueOf(arguments[1])}, chain + 1);
        }
    }

    // ---- the walk -------------------------------------------------------------------------

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

    void addBinding(std::string path, const Node* value, const Node* key, const Node* source)
    {
        m_bindings.push_back({std::move(path), {}, value, key, source});
        m_bindings.back().last = std::string(lastSegment(m_bindings.back().path));
    }

    void visitBindings(const Node& owner, const std::string& prefix)
    {
        for (const Node* child : owner.bindings()) {
            if (child->kind == NodeKind::Binding) {
                const Node* key = child->bindingPath();
                const Node* value = child->bindingValue();
                if (!key || !value)
                    continue;
                const std::string path = joinPath(prefix, staticPath(*key));
                addBinding(path, value, key, value);
                // Dynamic segments still get their values visited.
                for (const Node* segment : key->children)
                    if (segment->kind != NodeKind::AttrName)
                        visit(*segment, std::string());
                visit(*value, path);
            } else if (child->kind == NodeKind::Inherit) {
                visitInherit(*child, prefix);
            }
        }
    }

    void visitInherit(const Node& inherit, const std::string& prefix)
    {
        const Node* source = inherit.inheritSource();
        if (source)
            visit(*source, std::string());
        for (const Node* name : inherit.inheritedNames()) {
            std::string_view text = name->text;
            std::string literal;
            if (name->kind != NodeKind::AttrName) {
                auto decoded = nix::literalString(*name);
                if (!decoded)
                    continue;
                literal = *decoded;
                text = literal;
            }
            addBinding(joinPath(prefix, text), nullptr, name, name);
            if (!source)
                m_identifiers.push_back(name);
        }
    }

    void visitLambda(const Node& lambda, const std::string& prefix)
    {
        if (!lambda.text.empty())
            if (auto at = nameRange(lambda.text))
                m_arguments.push_back(*at);
        if (const Node* formals = lambda.lambdaFormals())
            for (const Node* formal : formals->formals()) {
                m_formals.push_back(formal);
                const Node* def = formal->formalDefault();
                if (!def) {
                    const uint32_t begin = formal->range.begin;
                    m_arguments.push_back(
                        {begin, static_cast<uint32_t>(begin + formal->text.size())});
                    continue;
                }
                // `{ gpuArchSM ? "9.0" }:` states a value as much as a binding does.
                addBinding(std::string(formal->text), def, formal, def);
                visit(*def, std::string());
            }
        if (const Node* body = lambda.lambdaBody())
            visit(*body, prefix);
    }

    // The range of a name that `text` views in the source (a lambda's argument), as the
    // evaluator's binding steps give it.
    std::optional<SourceRange> nameRange(std::string_view text) const
    {
        const std::string_view source = m_tree.source();
        if (text.data() < source.data() ||
            text.data() + text.size() > source.data() + source.size())
            return std::nullopt;
        const auto begin = static_cast<uint32_t>(text.data() - source.data());
        return SourceRange{begin, static_cast<uint32_t>(begin + text.size())};
    }

    // Calls whose argument set belongs to the enclosing attribute (`passthru =
    // lib.optionalAttrs c { … }` still declares passthru fields).
    static bool isTransparentCall(std::string_view callee)
    {
        return callee == "optionalAttrs" || callee == "recursiveUpdate" || callee == "mkMerge";
    }

    void visit(const Node& node, const std::string& prefix)
    {
        switch (node.kind) {
        case NodeKind::Let:
            visitBindings(node, std::string());
            if (const Node* body = node.letBody())
                visit(*body, prefix);
            return;
        case NodeKind::LegacyLet:
            visitBindings(node, std::string());
            return;
        case NodeKind::AttrSet:
            visitBindings(node, prefix);
            return;
        case NodeKind::Lambda:
            visitLambda(node, prefix);
            return;
        case NodeKind::With:
            m_withs.push_back(&node);
            if (const Node* expr = node.withScope())
                visit(*expr, std::string());
            if (const Node* body = node.withBody())
                visit(*body, prefix);
            return;
        case NodeKind::Binary:
            if (node.op == nix::BinaryOp::Update) {
                for (const Node* child : node.children)
                    visit(*child, prefix);
                return;
            }
            break;
        case NodeKind::If:
            if (node.condition())
                visit(*node.condition(), std::string());
            for (const Node* branch : {node.thenBranch(), node.elseBranch()})
                if (branch)
                    visit(*branch, prefix);
            return;
        case NodeKind::Assert:
            if (node.condition())
                visit(*node.condition(), std::string());
            if (node.assertBody())
                visit(*node.assertBody(), prefix);
            return;
        case NodeKind::Apply:
            m_applies.push_back(&node);
            if (node.function())
                visit(*node.function(), std::string());
            if (const Node* argument = node.argument())
                visit(*argument, isTransparentCall(calleeName(node)) ? prefix : std::string());
            return;
        case NodeKind::Select:
            m_selects.push_back(&node);
            break;
        case NodeKind::Identifier:
            m_identifiers.push_back(&node);
            return;
        case NodeKind::String:
        case NodeKind::IndentedString:
            m_strings.push_back(&node);
            break;
        default:
            break;
        }
        for (const Node* child : node.children)
            if (child)
                visit(*child, std::string());
    }

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

    // ---- values, read through the evaluator -----------------------------------------------

    nix::Evaluator& evaluator() const
    {
        if (m_shared)
            return *m_shared;
        if (!m_evaluator)
            m_evaluator = std::make_unique<nix::Evaluator>(m_tree, m_facts.path, m_modules);
        return *m_evaluator;
    }

    nix::Value valueOf(const Node* node) const
    {
        if (node && !m_appliedTo.empty())
            return evaluator().evaluateApplied(m_moduleId, m_appliedTo, *node);
        return node ? evaluator().evaluate(*node) : nix::Value();
    }

    // The values of a call's arguments after the callee's first (`import ./m.nix a b`: a, b).
    std::vector<nix::Value> valuesOf(const std::vector<const Node*>& call) const
    {
        std::vector<nix::Value> values;
        for (size_t i = 1; i < call.size(); ++i)
            values.push_back(valueOf(call[i]));
        return values;
    }

    // File ids in values view the evaluator's own copy of this file's id.
    bool inThisFile(std::string_view file) const
    {
        const std::string& id = !m_appliedTo.empty() ? m_moduleId : evaluator().fileId();
        return file.size() == id.size() && (file.data() == id.data() || file == id);
    }
    bool inThisFile(const nix::Origin& origin) const { return inThisFile(origin.file); }

    // A known string (or a number or path, as written) with the pieces of it in this file.
    // `at` is the expression evaluated: the range of a value written in a module.
    std::optional<Text> textOf(const nix::Value& value, const Node& at) const
    {
        Text result;
        const nix::Origin origin = value.origin();
        switch (value.kind()) {
        case nix::Value::Kind::String:
        case nix::Value::Kind::Path:
            result.text =
                value.kind() == nix::Value::Kind::String ? *value.asString() : *value.asPath();
            for (const nix::StringPiece& piece : value.pieces())
                if (inThisFile(piece.file))
                    result.pieces.push_back(piece);
            break;
        case nix::Value::Kind::Int:
        case nix::Value::Kind::Float:
            if (!inThisFile(origin))
                return std::nullopt;
            result.text = std::string(m_tree.text(origin.range));
            result.pieces.push_back({0, result.text.size(), origin.file, origin.range.begin});
            break;
        default:
            return std::nullopt;
        }
        result.range = inThisFile(origin) ? origin.range : at.range;
        result.writtenIn = writtenIn(value);
        return result;
    }

    std::optional<Text> textAt(const Node* node) const
    {
        return node ? textOf(valueOf(node), *node) : std::nullopt;
    }

    // "lib/cpu-isa.nix:3" for a value written in a module: its literal, or the first piece of
    // it that lies in one (a string the evaluator built from a module's list).
    std::string writtenIn(const nix::Value& value) const
    {
        nix::Origin origin = value.origin();
        if (origin.file.empty() || inThisFile(origin))
            for (const nix::StringPiece& piece : value.pieces())
                if (!inThisFile(piece.file)) {
                    origin = {piece.file, {piece.source, piece.source}};
                    break;
                }
        if (origin.file.empty() || inThisFile(origin) || !m_modules)
            return {};
        const int line = lineIn(std::string(origin.file), origin.range.begin);
        return line ? std::string(origin.file) + ":" + std::to_string(line) : std::string();
    }

    // lib.optional(s) with a condition that is not known: what the list holds when the
    // condition holds, the variant's own values.
    static std::optional<nix::Value> optionalList(const nix::Value& value)
    {
        const std::string_view path = value.symbolicPath();
        if (endsWith(path, "optionals(...)") || endsWith(path, "optional(...)"))
            return value.fallback();
        return std::nullopt;
    }

    // The string items of a list value, nested lists flattened (nullopt items are unknown);
    // nullopt when the value is no list one can read.
    std::optional<TextItems> itemsOf(const nix::Value& value, const Node& at, int depth = 0) const
    {
        if (depth > 8)
            return std::nullopt;
        if (value.kind() == nix::Value::Kind::List) {
            TextItems items;
            for (size_t i = 0; i < value.size(); ++i) {
                const nix::Value element = value.element(i).value_or(nix::Value());
                if (auto text = textOf(element, at))
                    items.push_back(std::move(text));
                else if (auto inner = itemsOf(element, at, depth + 1))
                    items.insert(items.end(), inner->begin(), inner->end());
                else
                    items.push_back(std::nullopt);
            }
            return items;
        }
        if (!value.isUnknown())
            return std::nullopt;
        if (auto fallback = optionalList(value))
            return itemsOf(*fallback, at, depth + 1);
        const std::vector<nix::Value> parts = value.parts();
        if (parts.empty())
            return std::nullopt;
        TextItems items;
        for (const nix::Value& part : parts) {
            auto inner = itemsOf(part, at, depth + 1);
            if (!inner)
                return std::nullopt;
            items.insert(items.end(), inner->begin(), inner->end());
        }
        return items;
    }

    std::optional<TextItems> itemsAt(const Node* node) const
    {
        return node ? itemsOf(valueOf(node), *node) : std::nullopt;
    }

    // A list of strings, or nullopt when any element is unknown: a fact is a value or absent,
    // never an expression printed as an element.
    std::optional<Fact<std::vector<std::string>>> listAt(const Node* node) const
    {
        if (!node)
            return std::nullopt;
        const nix::Value value = valueOf(node);
        auto items = itemsOf(value, *node);
        if (!items)
            return std::nullopt;
        Fact<std::vector<std::string>> fact;
        fact.range = inThisFile(value.origin()) ? value.origin().range : node->range;
        for (const auto& item : *items) {
            if (!item)
                return std::nullopt;
            fact.value.push_back(item->text);
        }
        return fact;
    }

    // ---- overlays -------------------------------------------------------------------------

    // Where an overlay is written: its function when this file writes it, else the binding
    // of this file it came through, else the expression in the list.
    std::optional<SourceRange> overlayRange(const nix::Value& overlay,
                                            const std::optional<nix::Origin>& written) const
    {
        if (overlay.kind() == nix::Value::Kind::Function && inThisFile(overlay.origin()))
            return overlay.origin().range;
        if (overlay.kind() == nix::Value::Kind::Function && !overlay.origin().file.empty())
            return std::nullopt; // written in a module: read there (overlaysOfModules)
        if (const auto through = bindingsOf(overlay); !through.empty())
            return through.front()->value->range;
        if (written && inThisFile(*written))
            return written->range;
        return std::nullopt;
    }

    void addOverlay(std::optional<SourceRange> range)
    {
        if (range && std::find(m_overlays.begin(), m_overlays.end(), *range) == m_overlays.end())
            m_overlays.push_back(*range);
    }

    // The bindings of this file (with a value) a value came through, nearest to its literal
    // first.
    std::vector<const BindingRecord*> bindingsOf(const nix::Value& value) const
    {
        std::vector<const BindingRecord*> found;
        for (const nix::BindingStep& step : value.bindingChain()) {
            if (!inThisFile(step.file))
                continue;
            for (const BindingRecord& binding : m_bindings)
                if (binding.value && binding.key->range.begin == step.key.begin)
                    found.push_back(&binding);
        }
        return found;
    }

    // An overlay written in this file is read here; one a module writes, there; one composed
    // of others (`lib.composeManyExtensions [ … ]`) is each of them.
    void addOverlayValue(const nix::Value& overlay, const std::optional<nix::Origin>& written,
                         int depth = 0)
    {
        if (depth > 8)
            return; // a composition that refers to itself
        if (const Node* composed = composition(overlay, written)) {
            const auto arguments = callArguments(*composed);
            if (calleeName(*composed) == "composeManyExtensions")
                addOverlayElements(valueOf(arguments.back()), depth + 1);
            else
                for (const Node* argument : arguments)
                    addOverlayValue(valueOf(argument),
                                    nix::Origin{evaluator().fileId(), argument->range}, depth + 1);
            return;
        }
        if (auto range = overlayRange(overlay, written))
            addOverlay(range);
        else if (overlay.kind() == nix::Value::Kind::Function && !overlay.origin().file.empty() &&
                 m_moduleOverlays.size() < 16)
            m_moduleOverlays.push_back(overlay.origin());
    }

    // The call of this file that composes overlays into `overlay` (written as that
    // expression, or bound to a name it came through), if any.
    const Node* composition(const nix::Value& overlay,
                            const std::optional<nix::Origin>& written) const
    {
        if (!overlay.isUnknown())
            return nullptr;
        std::vector<SourceRange> candidates;
        if (written && inThisFile(*written))
            candidates.push_back(written->range);
        for (const BindingRecord* binding : bindingsOf(overlay))
            candidates.push_back(binding->value->range);
        for (const Node* apply : m_applies) {
            const std::string_view callee = calleeName(*apply);
            if ((callee == "composeManyExtensions" && callArguments(*apply).size() == 1) ||
                (callee == "composeExtensions" && callArguments(*apply).size() == 2))
                if (std::ranges::count(candidates, apply->range) > 0)
                    return apply;
        }
        return nullptr;
    }

    void addOverlayElements(const nix::Value& list, int depth)
    {
        if (depth > 8)
            return;
        if (list.kind() == nix::Value::Kind::List) {
            for (size_t i = 0; i < list.size(); ++i)
                addOverlayValue(list.element(i).value_or(nix::Value()), list.elementExpression(i),
                                depth);
        } else if (auto fallback = optionalList(list)) {
            addOverlayElements(*fallback, depth + 1);
        } else {
            for (const nix::Value& part : list.parts())
                addOverlayElements(part, depth + 1);
        }
    }

    void findOverlays()
    {
        for (const BindingRecord& binding : m_bindings) {
            if (binding.last == "overlays")
                addOverlayElements(valueOf(binding.source), 0);
            // `python313.override { packageOverrides = pyfinal: pyprev: { torch = …; }; }`
            // changes the Python set as an overlay of it would.
            if (binding.last == "packageOverrides" && binding.value &&
                binding.value->kind == NodeKind::Lambda)
                addOverlay(binding.value->range);
        }
        for (const Node* apply : m_applies) {
            const std::string_view callee = calleeName(*apply);
            auto arguments = callArguments(*apply);
            if (arguments.size() != 1 || !arguments[0])
                continue;
            if (callee == "extend")
                addOverlayValue(valueOf(arguments[0]),
                                nix::Origin{evaluator().fileId(), arguments[0]->range});
            else if (callee == "appendOverlays" || callee == "applyOverlays")
                addOverlayElements(valueOf(arguments[0]), 0);
        }
        std::sort(m_overlays.begin(), m_overlays.end(),
                  [](SourceRange a, SourceRange b) { return a.begin < b.begin; });
    }

    bool inOverlay(const Node* node) const
    {
        if (!node)
            return false;
        return std::any_of(m_overlays.begin(), m_overlays.end(), [&](SourceRange overlay) {
            return overlay.contains(node->range.begin);
        });
    }

    static bool within(SourceRange outer, SourceRange range)
    {
        return outer.contains(range.begin) && range.end <= outer.end;
    }
    static bool within(const Node* outer, SourceRange range) { return within(outer->range, range); }

    void extractOverlayFacts()
    {
        for (const SourceRange overlay : m_overlays) {
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
                    found.push_back({OverlayKind::CudaPackageSet, std::string(chosen), overlay});
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
                for (const Node* string : m_strings) {
                    if (!within(magma->value, string->range))
                        continue;
                    auto text = textAt(string);
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
                found.push_back({OverlayKind::MagmaPatch, detail, overlay});
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
                    if (auto text = textAt(inner.source)) {
                        version = Fact<std::string>{text->text, text->range};
                        break;
                    }
                }
                if (version) {
                    found.push_back({OverlayKind::TorchUpgrade, version->value, overlay});
                    if (!m_overlayTorchVersion)
                        m_overlayTorchVersion = version;
                    break;
                }
            }
            if (found.empty())
                found.push_back({OverlayKind::Other, std::string(), overlay});
            m_facts.overlays.insert(m_facts.overlays.end(), found.begin(), found.end());
        }
        overlaysOfModules();
    }

    // `overlays = [ ov.cuda13 ov.magma ];` with the functions in a module: what each does is
    // read there. Such an overlay has no range in the recipe; it is copied with the reference.
    void overlaysOfModules()
    {
        if (!m_modules || m_depth >= 2)
            return;
        for (const nix::Origin& origin : m_moduleOverlays) {
            if (inThisFile(origin))
                continue;
            const nix::SyntaxTree* module = m_modules->load(origin.file);
            if (!module || !module->root())
                continue;
            RecipeFacts facts;
            facts.path = std::string(origin.file);
            Extractor nested(*module, facts, m_modules, m_depth + 1);
            nested.visit(*module->root(), std::string());
            nested.m_overlays = {origin.range};
            nested.extractOverlayFacts();
            for (OverlayFact& overlay : facts.overlays) {
                overlay.range = SourceRange{};
                m_facts.overlays.push_back(std::move(overlay));
            }
        }
    }

    // ---- pins -----------------------------------------------------------------------------

    void extractHashes()
    {
        for (const BindingRecord& binding : m_bindings) {
            if (!binding.value || binding.value->kind != NodeKind::String ||
                !nix::NixHash::isHashAttribute(binding.last))
                continue;
            if (auto literal = nix::literalString(*binding.value))
                m_facts.hashes.push_back({binding.last, std::move(*literal), binding.value->range});
        }
    }

    void extractPins()
    {
        for (const Node* apply : m_applies) {
            const std::string_view callee = calleeName(*apply);
            PinFetcher fetcher;
            if (callee == "fetchTarball")
                fetcher = PinFetcher::FetchTarball;
            else if (callee == "fetchFromGitHub")
                fetcher = PinFetcher::FetchFromGitHub;
            else if (callee == "fetchGit")
                fetcher = PinFetcher::FetchGit;
            else if (callee == "fetchurl" || callee == "fetchzip")
                fetcher = PinFetcher::FetchUrl;
            else if (callee == "fetchTree")
                fetcher = PinFetcher::FetchTree;
            else if (callee == "getFlake")
                fetcher = PinFetcher::GetFlake;
            else
                continue;
            // The curried call `f x` is one Apply; only look at the outermost of a chain.
            auto arguments = callArguments(*apply);
            if (arguments.size() != 1 || !arguments[0])
                continue;
            if (auto pin = pinOf(fetcher, *arguments[0]))
                m_facts.pins.push_back(std::move(*pin));
        }
        std::sort(m_facts.pins.begin(), m_facts.pins.end(),
                  [](const PinFact& a, const PinFact& b) { return a.range.begin < b.range.begin; });
        if (m_facts.pins.empty())
            m_facts.pins = pinsOfModules();
        if (m_facts.pins.empty())
            pinsOfNiv();
    }

    // niv: `sources = import ./nix/sources.nix { };` then `import sources.nixpkgs { … }`.
    // niv's sources.nix fetches each entry of the sources.json beside it as a tarball, so the
    // entry's "rev" there is the pin (and what `niv update` or a bump rewrites).
    void pinsOfNiv()
    {
        if (!m_modules)
            return;
        for (const Node* apply : m_applies) {
            const auto arguments = callArguments(*apply);
            if (calleeName(*apply) != "import" || arguments.empty() || !arguments[0] ||
                !isLiteralPath(arguments[0]) || !endsWith(arguments[0]->text, "sources.nix"))
                continue;
            const std::string_view path = arguments[0]->text;
            const std::string json = m_modules->resolveFile(
                m_facts.path, std::string(path.substr(0, path.size() - 3)) + "json");
            const auto text = json.empty() ? std::nullopt : m_modules->text(json);
            const BindingRecord* holder = nullptr;
            for (const BindingRecord& binding : m_bindings)
                if (binding.value && within(binding.value, apply->range))
                    holder = &binding; // the innermost binding around the import
            if (!text || !holder)
                continue;
            const std::string entries(*text); // the reader keeps views into it
            nix::JsonReader reader(16);
            if (!reader.read(entries))
                continue;
            for (const Node* select : m_selects) {
                const auto names = selectNames(*select);
                if (names.size() < 2 || names[0].first != holder->last || inOverlay(select))
                    continue;
                const Node* entry = names[1].second;
                std::string name(names[1].first);
                if (name.empty())
                    name = nix::literalString(*entry).value_or(std::string());
                if (auto pin = nivPin(reader, name, json, entries)) {
                    m_facts.pins.push_back(std::move(*pin));
                    return;
                }
            }
        }
    }

    // The pin of entry `name` of a niv sources.json: its "rev", when it is a nixpkgs.
    std::optional<PinFact> nivPin(const nix::JsonReader& reader, const std::string& name,
                                  const std::string& file, std::string_view text) const
    {
        using Kind = nix::JsonReader::Node::Kind;
        const auto& nodes = reader.nodes();
        if (nodes.empty() || nodes[0].kind != Kind::Object)
            return std::nullopt;
        for (size_t i : reader.members(0)) {
            if (nodes[i].key != name || nodes[i].kind != Kind::Object)
                continue;
            PinFact pin;
            pin.fetcher = PinFetcher::FetchTarball;
            bool nixpkgs = name.find("nixpkgs") != std::string::npos;
            for (size_t j : reader.members(i)) {
                const auto& member = nodes[j];
                if (member.kind != Kind::String)
                    continue;
                if (member.key == "rev" && !member.escaped) {
                    pin.revision = member.text;
                    pin.range = {member.begin + 1, member.end - 1};
                }
                pin.hasHash = pin.hasHash || member.key == "sha256";
                nixpkgs = nixpkgs || (member.key == "repo" && member.text == "nixpkgs");
            }
            if (pin.revision.empty() || !nixpkgs)
                return std::nullopt;
            pin.file = file;
            pin.line = static_cast<int>(nix::LineIndex(text).position(pin.range.begin).line);
            return pin;
        }
        return std::nullopt;
    }

    // A recipe without a fetcher of its own takes its nixpkgs from a module it imports
    // (`pin = import ./lib/pin.nix;`): that module's pins are the recipe's, written there.
    // Files beside the recipe are recipes of their own (a companion's torch, a wrapper's base,
    // whose pins reach the wrapper as inherited findings); modules in other directories are
    // followed two levels deep, which also ends import cycles.
    // `./x.nix`, not `./${name}.nix`: a path whose text is the file it names.
    static bool isLiteralPath(const Node* node)
    {
        return node && node->kind == NodeKind::Path &&
               node->text.find("${") == std::string_view::npos;
    }

    static bool isSibling(std::string_view path)
    {
        return path.starts_with("./") && path.find('/', 2) == std::string_view::npos;
    }

    std::vector<PinFact> pinsOfModules() const
    {
        constexpr int maxDepth = 2;
        std::vector<PinFact> found;
        if (!m_modules || m_depth >= maxDepth)
            return found;
        // Each imported module once, with the arguments it is called with (if any; a curried
        // module function takes several).
        std::vector<std::vector<const Node*>> imports; // path, then the arguments
        for (const Node* apply : m_applies) {
            const std::string_view callee = calleeName(*apply);
            auto arguments = callArguments(*apply);
            if ((callee != "import" && callee != "callPackage") || arguments.empty() ||
                !arguments[0] || !isLiteralPath(arguments[0]) || isSibling(arguments[0]->text))
                continue;
            auto known = std::ranges::find(imports, arguments[0],
                                           [](const auto& call) { return call.front(); });
            if (known == imports.end())
                imports.push_back(std::move(arguments));
            else if (arguments.size() > known->size())
                *known = std::move(arguments);
        }
        for (const std::vector<const Node*>& call : imports) {
            const Node* path = call.front();
            const Node* argument = call.size() >= 2 ? call[1] : nullptr;
            const std::string id = m_modules->resolve(m_facts.path, path->text);
            const nix::SyntaxTree* module = id.empty() ? nullptr : m_modules->load(id);
            if (!module || !module->root())
                continue;
            // Read where the module is applied to the recipe's argument first: a generator
            // that picks the pin by the variant (`tables.pins.${cuda}`) or lets the caller
            // override it (`derived // overrides`) pins what this call makes.
            std::vector<PinFact> pins =
                argument ? appliedPins(*module, id, valuesOf(call)) : std::vector<PinFact>();
            const bool applied = !pins.empty();
            if (!applied) {
                RecipeFacts moduleFacts;
                moduleFacts.path = id;
                Extractor nested(*module, moduleFacts, m_modules, m_depth + 1);
                nested.visit(*module->root(), std::string());
                nested.extractPins();
                pins = std::move(moduleFacts.pins);
            }
            const nix::LineIndex lines(module->source());
            for (PinFact& pin : pins) {
                bool inRecipe = applied && pin.file == m_facts.path;
                if (!applied)
                    if (auto overridden = overriddenPin(*module, pin, argument)) {
                        if (overridden->revision.empty())
                            continue; // the caller's argument decides, and it cannot be read
                        pin = std::move(*overridden);
                        inRecipe = true;
                    }
                if (inRecipe) { // written in the recipe's argument: edited in place
                    pin.file.clear();
                    pin.line = 0;
                } else if (pin.file.empty()) {
                    pin.file = id;
                    pin.line = static_cast<int>(lines.position(pin.range.begin).line);
                }
                if (std::none_of(found.begin(), found.end(), [&](const PinFact& known) {
                        return known.file == pin.file && known.range == pin.range;
                    }))
                    found.push_back(std::move(pin));
            }
        }
        return found;
    }

    // The pins of a module function where the recipe applies it to `argument`.
    std::vector<PinFact> appliedPins(const nix::SyntaxTree& module, const std::string& id,
                                     std::vector<nix::Value> arguments) const
    {
        if (module.root()->kind != NodeKind::Lambda)
            return {};
        RecipeFacts moduleFacts;
        moduleFacts.path = id;
        Extractor nested(module, moduleFacts, m_modules, m_depth + 1);
        nested.m_shared = &evaluator();
        nested.m_moduleId = id;
        nested.m_appliedTo = std::move(arguments);
        nested.visit(*module.root(), std::string());
        nested.extractPins();
        return std::move(moduleFacts.pins);
    }

    // A module's pin written as the default of its function's formal (`{ rev ? "…" }:`) is the
    // caller's when the recipe passes that argument: the pin in this file, or a pin with an
    // empty revision when the argument cannot be read. nullopt when the default stands.
    std::optional<PinFact> overriddenPin(const nix::SyntaxTree& module, const PinFact& pin,
                                         const Node* argument) const
    {
        const Node* root = module.root();
        const Node* formals = root->kind == NodeKind::Lambda ? root->lambdaFormals() : nullptr;
        if (!formals || !argument || !pin.file.empty())
            return std::nullopt;
        for (const Node* formal : formals->formals()) {
            const Node* fallback = formal->formalDefault();
            if (!fallback || !within(fallback, pin.range))
                continue;
            const nix::Value given = valueOf(argument);
            if (given.kind() != nix::Value::Kind::AttrSet)
                return PinFact{};
            const auto value = given.attribute(formal->text);
            if (!value)
                return std::nullopt; // not passed: the default is the pin
            const auto text = textOf(*value, *argument);
            if (!text)
                return PinFact{};
            PinFact own = pin;
            own.revision = text->text;
            own.range = text->sourceOf(0, text->text.size()).value_or(text->range);
            own.hasHash = false; // the module's hash is for its default revision
            return own;
        }
        return std::nullopt;
    }

    // The nixpkgs revision a fetcher's argument (a set, a URL or a flake reference) pins.
    std::optional<PinFact> pinOf(PinFetcher fetcher, const Node& argumentNode) const
    {
        const nix::Value argument = valueOf(&argumentNode);
        PinFact pin;
        pin.fetcher = fetcher;
        std::optional<Text> revision;
        if (argument.kind() == nix::Value::Kind::AttrSet) {
            auto text = [&](std::string_view name) -> std::optional<Text> {
                auto value = argument.attribute(name);
                return value ? textOf(*value, argumentNode) : std::nullopt;
            };
            pin.hasHash = argument.attribute("sha256") || argument.attribute("hash") ||
                          argument.attribute("narHash");
            // fetchTree's `type` says which fetcher it stands for.
            std::string type;
            if (fetcher == PinFetcher::FetchTree)
                if (auto written = text("type"))
                    type = written->text;
            if (fetcher == PinFetcher::FetchFromGitHub || type == "github") {
                auto repo = text("repo");
                if (!repo || repo->text != "nixpkgs")
                    return std::nullopt;
                // With `rev` written, Nix fetches it whatever `ref` says; a rev that cannot be
                // known leaves the pin unknown.
                revision = text("rev");
                if (!revision && !argument.attribute("rev"))
                    revision = text(type.empty() ? "tag" : "ref");
            } else if (fetcher == PinFetcher::FetchGit || type == "git") {
                auto url = text("url");
                if (!url || url->text.find("nixpkgs") == std::string::npos)
                    return std::nullopt;
                revision = text("rev");
                if (!revision && !argument.attribute("rev"))
                    revision = text("ref");
            } else if (auto url = text("url")) {
                revision = revisionFromUrl(*url);
            }
        } else if (auto url = textOf(argument, argumentNode)) {
            if (fetcher == PinFetcher::FetchFromGitHub)
                return std::nullopt;
            if (fetcher == PinFetcher::FetchTree || fetcher == PinFetcher::GetFlake) {
                pin.hasHash = url->text.find("narHash=") != std::string::npos;
                revision = revisionFromFlakeReference(*url);
            } else {
                revision = revisionFromUrl(*url);
            }
        }
        if (!revision)
            return std::nullopt;
        pin.revision = revision->text;
        pin.range = revision->sourceOf(0, revision->text.size()).value_or(revision->range);
        if (!revision->sourceOf(0, revision->text.size()))
            placeInAnotherFile(pin, argument);
        return pin;
    }

    // A revision read from another file (`pin = builtins.fromJSON (builtins.readFile
    // ./pins/nixpkgs.json)`, a module's string): the pin is written there, which is what a
    // bump rewrites. Found through the value the revision was taken from.
    void placeInAnotherFile(PinFact& pin, const nix::Value& argument) const
    {
        std::vector<nix::Value> candidates{argument};
        for (std::string_view name : {"rev", "url", "ref"})
            if (auto value = argument.attribute(name))
                candidates.push_back(*value);
        for (const nix::Value& value : candidates) {
            const auto text = value.asString();
            const size_t at = text ? text->find(pin.revision) : std::string::npos;
            if (at == std::string::npos)
                continue;
            const auto origin = value.sourceOf(at, pin.revision.size());
            if (!origin || origin->file.empty() || inThisFile(*origin))
                continue;
            pin.file = std::string(origin->file);
            pin.range = origin->range;
            pin.line = lineIn(pin.file, origin->range.begin);
            return;
        }
    }

    // The line of `offset` in a file the evaluator read: a module or a plain file.
    int lineIn(const std::string& file, uint32_t offset) const
    {
        const auto text = m_modules ? m_modules->text(file) : std::nullopt;
        return text ? static_cast<int>(nix::LineIndex(*text).position(offset).line) : 0;
    }

    // The revision a nixpkgs flake reference names: `github:NixOS/nixpkgs/<rev>`,
    // `github:NixOS/nixpkgs?rev=<rev>`, `git+https://github.com/NixOS/nixpkgs?ref=…&rev=<rev>`;
    // a URL-like reference (`https://…/archive/<rev>.tar.gz`) reads as a URL.
    static std::optional<Text> revisionFromFlakeReference(const Text& reference)
    {
        const std::string& text = reference.text;
        const size_t colon = text.find(':');
        if (colon == std::string::npos || text.find("nixpkgs") == std::string::npos)
            return std::nullopt;
        const std::string_view scheme = std::string_view(text).substr(0, colon);
        const size_t query = std::min(text.size(), text.find('?'));
        auto slice = [&](size_t begin, size_t end) {
            Text result;
            result.append(text, reference.pieces, begin, end - begin);
            result.range = reference.range;
            return result;
        };
        for (std::string_view key : {"rev=", "ref="})
            for (size_t at = text.find(key, query); at != std::string::npos;
                 at = text.find(key, at + 1))
                if (text[at - 1] == '?' || text[at - 1] == '&')
                    return slice(at + key.size(), std::min(text.size(), text.find('&', at)));
        if (scheme == "github" || scheme == "gitlab" || scheme == "sourcehut") {
            // owner/repo[/rev-or-ref]
            const std::string_view path =
                std::string_view(text).substr(colon + 1, query - colon - 1);
            const size_t first = path.find('/');
            const size_t second =
                first == std::string_view::npos ? first : path.find('/', first + 1);
            if (second == std::string_view::npos)
                return std::nullopt; // unlocked: follows the default branch
            return slice(colon + 1 + second + 1, query);
        }
        if (scheme == "https" || scheme == "http" || scheme == "tarball+https")
            return revisionFromUrl(reference);
        return std::nullopt;
    }

    // The revision part of a nixpkgs archive URL: …/nixpkgs/archive/<rev>.tar.gz
    static std::optional<Text> revisionFromUrl(const Text& url)
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
        Text result;
        result.append(text, url.pieces, begin, end - begin);
        result.range = url.range;
        return result;
    }

    // ---- plain values ---------------------------------------------------------------------

    std::optional<Fact<std::string>> stringFact(std::string_view last, bool exactPath = false,
                                                bool lastOne = false) const
    {
        std::optional<Fact<std::string>> fact;
        for (const BindingRecord& binding : m_bindings) {
            if ((exactPath ? binding.path != last : binding.last != last) || inOverlay(binding.key))
                continue;
            if (auto text = textAt(binding.source)) {
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
            if (auto list = listAt(binding.source))
                return list;
            if (auto text = textAt(binding.source))
                return Fact<std::vector<std::string>>{{text->text}, text->range};
        }
        return std::nullopt;
    }

    std::optional<bool> boolAt(const Node* node) const { return valueOf(node).asBool(); }

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
            if (auto text = textAt(binding.source)) {
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
        extractSwitches();

        for (const Node* apply : m_applies) {
            const std::string_view callee = calleeName(*apply);
            auto arguments = callArguments(*apply);
            if (arguments.empty() || !arguments[0] || !isLiteralPath(arguments[0]))
                continue;
            if (arguments.size() >= 2 && !isSibling(arguments[0]->text) &&
                m_facts.builderModule.empty())
                m_facts.builderModule = std::string(arguments[0]->text);
            // `callPackage ./x.nix { }` is two Applies with the same first argument.
            if ((callee == "callPackage" || callee == "import") &&
                endsWith(arguments[0]->text, ".nix") &&
                (m_facts.importedFiles.empty() ||
                 m_facts.importedFiles.back().range != arguments[0]->range))
                m_facts.importedFiles.push_back(
                    Fact<std::string>{std::string(arguments[0]->text), arguments[0]->range});
        }
        for (Fact<std::string>& computed : computedSiblingImports(m_facts.path))
            m_facts.importedFiles.push_back(std::move(computed));
        extractDerivedFrom();
        // A wrapper's base is a recipe beside it; a module in a subdirectory is a library.
        for (const Fact<std::string>& imported : m_facts.importedFiles)
            if (isSibling(imported.value)) {
                m_facts.wrappedFile = imported;
                break;
            }
    }

    // `import (../. + "/${v.torchName}.nix") { }`, `import torchFile { }`: a path computed
    // from values is imported like a literal one. Only recipes beside `recipePath` count (a
    // companion's torch); modules are read where their literal paths are. A builder's
    // import is made from the recipe's argument, so it is placed there, not in the recipe.
    std::vector<Fact<std::string>> computedSiblingImports(const std::string& recipePath) const
    {
        std::vector<Fact<std::string>> found;
        const std::string directory = recipePath.substr(0, recipePath.rfind('/') + 1);
        std::vector<const Node*> seen;
        for (const Node* apply : m_applies) {
            const std::string_view callee = calleeName(*apply);
            const auto arguments = callArguments(*apply);
            if ((callee != "import" && callee != "callPackage") || arguments.empty() ||
                !arguments[0] || isLiteralPath(arguments[0]) ||
                std::ranges::count(seen, arguments[0]) > 0)
                continue;
            seen.push_back(arguments[0]);
            const nix::Value path = valueOf(arguments[0]);
            const auto written = path.asPath();
            if (!written || !endsWith(*written, ".nix") || written->starts_with('/'))
                continue;
            const std::string id = (std::filesystem::path(path.pathBase()).parent_path() / *written)
                                       .lexically_normal()
                                       .generic_string();
            if (id.size() <= directory.size() || !id.starts_with(directory) ||
                id.find('/', directory.size()) != std::string::npos || id == recipePath)
                continue;
            Fact<std::string> imported{"./" + id.substr(directory.size()), arguments[0]->range};
            if (!m_appliedTo.empty()) {
                imported.in = "imported in " + m_moduleId + ":" +
                              std::to_string(lineIn(m_moduleId, arguments[0]->range.begin));
                imported.range = SourceRange{};
            }
            found.push_back(std::move(imported));
        }
        return found;
    }

    // `(import ./pytorch-…-sm90-avx512.nix { … }).override { gpuArch = "8.9"; }`, or the same
    // through a `let` binding: a recipe made from a sibling by calling its function again with
    // other arguments (callPackage's makeOverridable), so the sibling's cell is not its own.
    void extractDerivedFrom()
    {
        for (const Node* select : m_selects) {
            const Node* path = select->attrPath();
            const Node* subject = select->subject();
            if (!path || path->children.empty() || !subject ||
                path->children.front()->kind != NodeKind::AttrName ||
                path->children.front()->text != "override")
                continue;
            if (subject->kind == NodeKind::Identifier)
                for (const BindingRecord& binding : m_bindings)
                    if (binding.value && binding.path == subject->text)
                        subject = binding.value;
            if (subject->kind != NodeKind::Apply)
                continue;
            const auto arguments = callArguments(*subject);
            if (arguments.empty() || !arguments[0] || !isLiteralPath(arguments[0]) ||
                !isSibling(arguments[0]->text))
                continue;
            m_facts.derivedFrom.push_back(std::string(arguments[0]->text));
            const auto call = std::ranges::find_if(
                m_applies, [&](const Node* apply) { return apply->function() == select; });
            m_derivations.push_back(
                {subject, call == m_applies.end() ? nullptr : (*call)->argument()});
        }
    }

    // cudaSupport, and the ways a recipe turns MAGMA off.
    void extractSwitches()
    {
        for (const BindingRecord& binding : m_bindings) {
            const SourceRange range = binding.value ? binding.value->range : binding.key->range;
            if (binding.last == "cudaSupport") {
                if (auto value = boolAt(binding.source))
                    if (!m_facts.cudaSupport || (*value && !m_facts.cudaSupport->value))
                        m_facts.cudaSupport = Fact<bool>{*value, range};
            } else if ((binding.last == "useMagma" || binding.last == "magmaSupport" ||
                        binding.last == "USE_MAGMA") &&
                       !inOverlay(binding.key)) {
                if (auto value = boolAt(binding.source); value && !*value)
                    m_facts.magmaDisabled.push_back({std::string(m_tree.text(range)), range});
                else if (auto text = textAt(binding.source); text && isOff(text->text))
                    m_facts.magmaDisabled.push_back(
                        {binding.last == "USE_MAGMA" ? "USE_MAGMA=" + text->text : text->text,
                         range});
            } else if (binding.last == "filterMagma") {
                m_facts.magmaDisabled.push_back({"filterMagma", binding.key->range});
            }
        }
        for (const Node* identifier : m_identifiers)
            if (identifier->text == "filterMagma" &&
                std::none_of(m_facts.magmaDisabled.begin(), m_facts.magmaDisabled.end(),
                             [](const Fact<std::string>& f) { return f.value == "filterMagma"; }))
                m_facts.magmaDisabled.push_back({"filterMagma", identifier->range});
        for (const Node* apply : m_applies) {
            // lib.cmakeBool "USE_MAGMA" false
            if (calleeName(*apply) != "cmakeBool")
                continue;
            auto arguments = callArguments(*apply);
            if (arguments.size() != 2)
                continue;
            auto name = textAt(arguments[0]);
            auto value = boolAt(arguments[1]);
            if (name && value && name->text == "USE_MAGMA" && !*value)
                m_facts.magmaDisabled.push_back(
                    {std::string(m_tree.text(apply->range)), apply->range});
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
        for (const Node* apply : m_applies) {
            const std::string_view callee = calleeName(*apply);
            if (startsWith(callee, "fetch") && within(apply, binding.key->range))
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
        for (int pass = 0; pass < 2 && !m_facts.torchAttribute; ++pass)
            for (const Node* select : m_selects) {
                if ((pass == 0) == inOverlay(select))
                    continue;
                notePythonSelect(*select);
                if (m_facts.torchAttribute && pass == 0)
                    break;
            }
        if (!m_facts.torchAttribute)
            torchFromWith();
        if (!m_facts.torchAttribute)
            torchFromValues();
        if (!m_facts.pythonPackageSet)
            for (const Node* formal : m_formals)
                if (isPythonPackageSet(formal->text)) {
                    m_facts.pythonPackageSet =
                        Fact<std::string>{std::string(formal->text), formal->range};
                    break;
                }
        extractCudaInputs();
    }

    // In a builder module: `pkgs."python${python}Packages"`, `pkgs."cudaPackages_${cuda}"`, an
    // attribute name made from the recipe's argument. `in` says where a piece of the name
    // is written outside the module.
    void extractSelectedPackageSets()
    {
        for (const Node* select : m_selects) {
            const Node* path = select->attrPath();
            if (!path || inOverlay(select))
                continue;
            for (const Node* segment : path->children) {
                if (segment->kind == NodeKind::AttrName)
                    continue;
                const Node* expression =
                    segment->kind == NodeKind::Interpolation ? segment->interpolated() : segment;
                const nix::Value value = valueOf(expression);
                const auto name = value.asString();
                if (!name)
                    continue;
                std::optional<Fact<std::string>>* fact =
                    isPythonPackageSet(*name)                            ? &m_facts.pythonPackageSet
                    : isCudaPackageSet(*name) && *name != "cudaPackages" ? &m_facts.cudaPackageSet
                                                                         : nullptr;
                if (fact && !*fact)
                    *fact = Fact<std::string>{*name, segment->range, writtenIn(value)};
            }
        }
    }

    // python313Packages.torch, python313.pkgs.torch
    void notePythonSelect(const Node& select)
    {
        auto names = selectNames(select);
        for (size_t i = 0; i + 1 < names.size(); ++i) {
            std::string_view name = names[i].first;
            std::string set;
            if (isPythonPackageSet(name))
                set = name;
            else if (startsWith(name, "python") && isDigits(name.substr(6)) &&
                     names[i + 1].first == "pkgs" && i + 2 < names.size()) {
                set = std::string(name) + "Packages";
                ++i;
            }
            if (set.empty())
                continue;
            notePythonSet(set, names[i - (set != name ? 1 : 0)].second, names[i + 1].first,
                          names[i + 1].second);
            return;
        }
    }

    // `with python3Packages; torch.override …`: the fact points at the `with`'s set, when
    // the evaluator finds `torch` through it (and not through a binding around it).
    void torchFromWith()
    {
        for (const Node* identifier : m_identifiers) {
            const std::string_view name = identifier->text;
            if ((name != "torch" && name != "pytorch") || inOverlay(identifier))
                continue;
            const Node* with = nullptr;
            for (const Node* candidate : m_withs)
                if (candidate->withBody() && within(candidate->withBody(), identifier->range) &&
                    isPythonPackageSet(withSetName(*candidate)) &&
                    (!with || within(with, candidate->range)))
                    with = candidate;
            if (!with)
                continue;
            const std::string_view set = withSetName(*with);
            const nix::Value value = valueOf(identifier);
            if (!value.isUnknown() ||
                !endsWith(value.symbolicPath(), std::string(set) + "." + std::string(name)))
                continue;
            m_facts.torchAttribute = Fact<std::string>{std::string(name), identifier->range};
            m_facts.pythonPackageSet =
                Fact<std::string>{std::string(set), with->withScope()->range};
            m_pythonFromTorch = true;
            return;
        }
    }

    // `pyPkgs = python313Packages;` under `with pkgs;`, or `python = pkgs.python313Packages;`,
    // then `pyPkgs.torch`: the set is what the name before `.torch` evaluates to.
    void torchFromValues()
    {
        for (const Node* select : m_selects) {
            const Node* subject = select->subject();
            const auto names = selectNames(*select);
            if (inOverlay(select) || !subject || subject->kind != NodeKind::Identifier ||
                names.size() < 2 || (names[1].first != "torch" && names[1].first != "pytorch"))
                continue;
            const nix::Value value = valueOf(subject);
            if (!value.isUnknown())
                continue;
            const std::string path(value.symbolicPath());
            const std::string_view set = lastSegment(path);
            if (!isPythonPackageSet(set))
                continue;
            m_facts.torchAttribute =
                Fact<std::string>{std::string(names[1].first), names[1].second->range};
            m_facts.pythonPackageSet =
                Fact<std::string>{std::string(set), rangeOfName(set, subject)};
            m_pythonFromTorch = true;
            return;
        }
    }

    // Where this file writes `name` (outside overlays), for a fact found by evaluation;
    // `fallback`'s range when it does not.
    SourceRange rangeOfName(std::string_view name, const Node* fallback) const
    {
        for (const Node* identifier : m_identifiers)
            if (identifier->text == name && !inOverlay(identifier))
                return identifier->range;
        for (const Node* select : m_selects)
            if (!inOverlay(select))
                for (const auto& [segment, node] : selectNames(*select))
                    if (segment == name && node)
                        return node->range;
        return fallback->range;
    }

    static std::string_view withSetName(const Node& with)
    {
        const Node* expr = with.withScope();
        if (expr && expr->kind == NodeKind::Identifier)
            return expr->text;
        if (expr && expr->kind == NodeKind::Select)
            return selectNames(*expr).back().first;
        return {};
    }

    // CUDA: every package-set mention is a CUDA input; the versioned one names the set.
    void extractCudaInputs()
    {
        auto noteCuda = [&](std::string_view name, const Node* node) {
            if (!isCudaInputName(name))
                return;
            if (m_facts.cudaInputs.size() < 64)
                m_facts.cudaInputs.push_back({std::string(name), node->range});
            if (isCudaPackageSet(name) && name != "cudaPackages" && !m_facts.cudaPackageSet)
                m_facts.cudaPackageSet = Fact<std::string>{std::string(name), node->range};
        };
        for (const Node* formal : m_formals)
            noteCuda(formal->text, formal);
        for (const Node* select : m_selects)
            for (const auto& [name, node] : selectNames(*select))
                if (node)
                    noteCuda(name, node);
        for (const Node* identifier : m_identifiers)
            noteCuda(identifier->text, identifier);
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
        Text text; // the value with the source of each byte that has one
    };

    // Every `NAME=value` (also `-DNAME=value`, quoted or not) inside the string literals, for
    // the names the rules read. The strings are scanned once per file, at each '='.
    const std::vector<ShellSetting>& shellSettings(std::string_view name) const
    {
        static const std::vector<ShellSetting> none;
        if (!m_settingsRead) {
            m_settingsRead = true;
            for (const Node* string : m_strings)
                readSettingsOf(*string);
        }
        const auto it = m_settings.find(name);
        return it == m_settings.end() ? none : it->second;
    }

    void readSettingsOf(const Node& string) const
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
                if (known != std::end(names) && !inShellComment(text, start))
                    m_settings[*known].push_back(readShellValue(string, i, at + 1));
            }
        }
    }

    // Whether byte `at` of a shell script is in a comment: after a `#` that starts a word,
    // outside quotes, on the same line (`# was: export TORCH_CUDA_ARCH_LIST="8.6;8.9"`).
    static bool inShellComment(std::string_view text, size_t at)
    {
        const size_t line = text.rfind('\n', at);
        char quote = 0;
        for (size_t i = line == std::string_view::npos ? 0 : line + 1; i < at; ++i) {
            const char c = text[i];
            if (quote) {
                if (c == quote)
                    quote = 0;
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t' ||
                                    text[i - 1] == '\n')) {
                return true;
            }
        }
        return false;
    }

    // Where byte `index` of a literal run (or its end, at the run's size) is in the source.
    static std::optional<uint32_t> sourceAt(const nix::Value& run, size_t index)
    {
        if (auto at = run.sourceOf(index, 1))
            return at->range.begin;
        if (index > 0)
            if (auto before = run.sourceOf(index - 1, 1))
                return before->range.end;
        return std::nullopt;
    }

    // A literal run of a string with its pieces, evaluated once however many settings it holds.
    const nix::Value& runOf(const Node& part) const
    {
        auto [it, added] = m_runs.try_emplace(&part);
        if (added)
            it->second = valueOf(&part);
        return it->second;
    }

    ShellSetting readShellValue(const Node& string, size_t partIndex, size_t offset) const
    {
        ShellSetting setting;
        const Node* part = string.children[partIndex];
        const nix::Value& run = runOf(*part);
        std::string_view text = std::string_view(part->text).substr(offset);
        char quote = 0;
        if (!text.empty() && (text.front() == '"' || text.front() == '\'')) {
            quote = text.front();
            text.remove_prefix(1);
            ++offset;
        }
        const uint32_t begin = sourceAt(run, offset).value_or(string.range.begin);
        auto stopAt = [&](std::string_view rest) {
            for (size_t k = 0; k < rest.size(); ++k) {
                const char c = rest[k];
                if (quote ? c == quote
                          : (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '"' ||
                             c == '\'' || c == ')'))
                    return k;
            }
            return std::string_view::npos;
        };
        Text& value = setting.text;
        size_t stop = stopAt(text);
        const size_t first = stop == std::string_view::npos ? text.size() : stop;
        value.append(part->text, run.pieces(), offset, first);
        uint32_t end = sourceAt(run, offset + first).value_or(string.range.end);
        // The value continues into interpolations: "${gpuArch}" or sm_${num}
        for (size_t next = partIndex + 1;
             stop == std::string_view::npos && next < string.children.size(); ++next) {
            const Node* following = string.children[next];
            if (following->kind == NodeKind::Interpolation) {
                appendInterpolated(value, *following);
                end = following->range.end;
                continue;
            }
            const nix::Value& more = runOf(*following);
            stop = stopAt(following->text);
            const size_t length = stop == std::string_view::npos ? following->text.size() : stop;
            value.append(following->text, more.pieces(), 0, length);
            end = sourceAt(more, length).value_or(following->range.end);
        }
        setting.value = value.text;
        setting.range = SourceRange{begin, std::max(begin, end)};
        value.range = setting.range;
        return setting;
    }

    // `${…}` in a shell value: its text, or a mark that makes the item it is part of unknown
    // rather than split out of Nix source text.
    void appendInterpolated(Text& value, const Node& interpolation) const
    {
        const Node* expression = interpolation.interpolated();
        auto inner = textAt(expression);
        if (!inner) {
            value.text += unknownMark;
            return;
        }
        if (expression->kind == NodeKind::Apply && calleeName(*expression) == "escapeShellArg")
            appendUnquoted(value, *inner);
        else
            value.append(inner->text, inner->pieces);
        if (value.writtenIn.empty())
            value.writtenIn = inner->writtenIn; // "-DX=${cap}" with cap from another file
    }

    // lib.escapeShellArg's quoting is shell syntax, which the shell removes again:
    // 'a;b'\''c' is the word a;b'c.
    static void appendUnquoted(Text& value, const Text& word)
    {
        const std::string& text = word.text;
        for (size_t i = 0; i < text.size();) {
            if (text[i] == '\'') {
                const size_t close = text.find('\'', i + 1);
                const size_t length =
                    close == std::string::npos ? std::string::npos : close - i - 1;
                value.append(text, word.pieces, i + 1, length);
                i = close == std::string::npos ? text.size() : close + 1;
            } else if (text[i] == '\\' && i + 1 < text.size()) {
                value.append(text, word.pieces, i + 1, 1);
                i += 2;
            } else {
                value.append(text, word.pieces, i, 1);
                ++i;
            }
        }
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

    void addArchEntry(ArchSink sink, const Text& entry, size_t offset, size_t length,
                      SourceRange sinkRange)
    {
        ArchSinkFact fact;
        fact.sink = sink;
        fact.value = entry.text.substr(offset, length);
        fact.writtenIn = entry.writtenIn;
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
    void addArchList(ArchSink sink, const Text& value, SourceRange sinkRange)
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
            if (auto entries = itemsAt(binding.source)) {
                for (const auto& entry : *entries)
                    if (entry)
                        addArchEntry(*sink, *entry, 0, entry->text.size(), binding.key->range);
            } else if (auto text = textAt(binding.source)) {
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
                addArchList(sink, setting.text, sinkRange);
            }
        // lib.cmakeFeature "CMAKE_CUDA_ARCHITECTURES" "86"
        for (const Node* apply : m_applies) {
            const std::string_view callee = calleeName(*apply);
            if (callee != "cmakeFeature" && callee != "cmakeOptionType")
                continue;
            auto arguments = callArguments(*apply);
            if (arguments.size() < 2)
                continue;
            auto name = textAt(arguments[arguments.size() - 2]);
            auto value = textAt(arguments.back());
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

    // `toString ([ (old.NIX_CFLAGS_COMPILE or "") ] ++ flags)`, `old.CXXFLAGS + " -mavx2"`:
    // the sink's value inherited from the overridden package is nixpkgs' own, which selects
    // no ISA; what the recipe adds to it is read. nullopt when another part is unknown.
    std::optional<Text> addedFlags(const nix::Value& value, std::string_view sink, const Node& at,
                                   int depth = 0) const
    {
        if (depth > 8)
            return std::nullopt;
        if (auto text = textOf(value, at))
            return text->text.find(unknownMark) == std::string::npos ? text : std::nullopt;
        const auto inherited = [&](const nix::Value& part) {
            const auto fromOld = [&](const nix::Value& v) {
                const std::string_view path = v.symbolicPath();
                return v.isUnknown() && path.size() > sink.size() &&
                       path.substr(path.size() - sink.size()) == sink &&
                       path[path.size() - sink.size() - 1] == '.';
            };
            if (fromOld(part))
                return true;
            // `lib.filter (f: f != "") [ (old.… or "") ]`: a part that is the old value or
            // nothing.
            const auto maybe = part.isUnknown() ? part.fallback() : std::nullopt;
            const auto elements = maybe ? maybe->elements() : std::nullopt;
            return elements && !elements->empty() && std::ranges::all_of(*elements, fromOld);
        };
        std::vector<nix::Value> parts;
        if (value.kind() == nix::Value::Kind::List) {
            for (size_t i = 0; i < value.size(); ++i)
                parts.push_back(value.element(i).value_or(nix::Value()));
        } else if (value.isUnknown()) {
            parts = value.parts();
        }
        if (parts.empty())
            return std::nullopt;
        Text joined;
        bool any = false;
        for (const nix::Value& part : parts) {
            if (inherited(part))
                continue;
            auto text = addedFlags(part, sink, at, depth + 1);
            if (!text)
                return std::nullopt;
            if (!joined.text.empty() && !text->text.empty())
                joined.text += ' ';
            joined.append(text->text, text->pieces);
            if (joined.writtenIn.empty())
                joined.writtenIn = text->writtenIn;
            any = true;
        }
        return any ? std::optional<Text>(std::move(joined)) : std::nullopt;
    }

    // The flags that reach the compiler: the first flag sink whose value is fully known and
    // holds machine flags; the list binding of that name (`cpuFlags`) is where they came from.
    void extractCompilerFlags()
    {
        auto note = [&](const Text& value, std::string_view sink) {
            if (value.text.find(unknownMark) != std::string::npos)
                return false; // part of it is unknown: the flags cannot be judged from here
            std::vector<std::string> flags = machineFlags(value.text);
            if (flags.empty())
                return false;
            CpuFlagsFact fact;
            fact.flags = std::move(flags);
            fact.sink = std::string(sink);
            fact.range = value.range;
            fact.writtenIn = value.writtenIn;
            // Where the flags are written: the first piece from outside the setting itself.
            for (const nix::StringPiece& piece : value.pieces) {
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
                if (note(setting.text, sink))
                    break;
            for (const BindingRecord& binding : m_bindings) {
                if (binding.last != sink || inOverlay(binding.key))
                    continue;
                bool read = false; // the value is known, whether or not it holds machine flags
                if (auto text = textAt(binding.source)) {
                    read = text->text.find(unknownMark) == std::string::npos;
                    if (note(*text, sink))
                        continue;
                }
                if (auto added = addedFlags(valueOf(binding.source), sink, *binding.source)) {
                    added->range = binding.value ? binding.value->range : binding.key->range;
                    read = true;
                    if (note(*added, sink))
                        continue;
                }
                bool known = false;
                if (auto entries = itemsAt(binding.source)) {
                    Text joined;
                    joined.range = binding.value ? binding.value->range : binding.key->range;
                    known = true;
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
                if (!read && !known)
                    m_facts.unreadFlagSinks.emplace_back(sink);
            }
        }
        if (m_facts.compilerFlags)
            return;
        // No flag sink could be read: the list the recipe keeps its flags in decides.
        for (const BindingRecord& binding : m_bindings) {
            if (binding.last != "cpuFlags" || inOverlay(binding.key))
                continue;
            auto entries = itemsAt(binding.source);
            if (!entries || entries->empty() ||
                std::any_of(entries->begin(), entries->end(), [](const auto& e) { return !e; }))
                continue;
            CpuFlagsFact fact;
            for (const auto& entry : *entries)
                for (std::string& flag : machineFlags(entry->text))
                    fact.flags.push_back(std::move(flag));
            fact.range = binding.value ? binding.value->range : binding.key->range;
            fact.writtenIn = entries->front()->writtenIn;
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

    // Evaluates a platforms expression: lists, `++`, `lib.platforms.X`, and values taken over
    // from the overridden package (`oldAttrs.meta.platforms`, with or without `or`).
    PlatformsFact platformsOf(const BindingRecord& binding) const
    {
        PlatformsFact fact;
        const Node& expression = *binding.source;
        fact.range = binding.value ? expression.range : binding.key->range;
        fact.expression = std::string(m_tree.text(expression.range));
        fact.origin = platformsFrom(valueOf(&expression), expression, fact.platforms, 0);
        if (fact.origin != ValueOrigin::Known)
            fact.platforms.clear();
        return fact;
    }

    ValueOrigin platformsFrom(const nix::Value& value, const Node& at,
                              std::vector<std::string>& platforms, int depth) const
    {
        if (depth > 8)
            return ValueOrigin::Unknown;
        if (auto items = itemsOf(value, at)) {
            for (const auto& item : *items) {
                if (!item)
                    return ValueOrigin::Unknown;
                platforms.push_back(item->text);
            }
            return ValueOrigin::Known;
        }
        if (!value.isUnknown())
            return ValueOrigin::Unknown;
        const std::vector<nix::Value> parts = value.parts();
        if (!parts.empty()) {
            bool inherited = false;
            bool unknown = false;
            for (const nix::Value& part : parts) {
                const ValueOrigin of = platformsFrom(part, at, platforms, depth + 1);
                inherited = inherited || of == ValueOrigin::Inherited;
                unknown = unknown || of == ValueOrigin::Unknown;
            }
            return inherited ? ValueOrigin::Inherited
                   : unknown ? ValueOrigin::Unknown
                             : ValueOrigin::Known;
        }
        // `platforms.linux` under `with lib;`, `lib.platforms.linux`, `pkgs.lib.platforms.x86_64`
        const std::string_view path = value.symbolicPath();
        const size_t dot = path.rfind('.');
        if (dot != std::string_view::npos && endsWith(path.substr(0, dot), "platforms") &&
            (dot == 9 || path[dot - 10] == '.'))
            if (auto known = libPlatforms(path.substr(dot + 1))) {
                platforms.insert(platforms.end(), known->begin(), known->end());
                return ValueOrigin::Known;
            }
        return dot != std::string_view::npos && fromArgument(value) ? ValueOrigin::Inherited
                                                                    : ValueOrigin::Unknown;
    }

    // An unknown selected from a function argument of this file (oldAttrs, old, prev): the
    // overridden package's value.
    bool fromArgument(const nix::Value& value) const
    {
        const std::vector<nix::BindingStep> chain = value.bindingChain();
        if (chain.empty() || !inThisFile(chain.front().file))
            return false;
        return std::find(m_arguments.begin(), m_arguments.end(), chain.front().key) !=
               m_arguments.end();
    }

    // `import nixpkgs { system = "x86_64-linux"; }`, `localSystem = { system = …; gcc.arch =
    // "cascadelake"; }`: the platform nixpkgs builds for, and the CPU its compiler wrapper
    // targets (-march=<gcc.arch> on every compile), read when the recipe sets no flags itself.
    // With crossSystem the build is for another platform, which is left unjudged.
    void extractNixpkgsSystem()
    {
        for (const Node* apply : m_applies) {
            const auto arguments = callArguments(*apply);
            if (calleeName(*apply) != "import" || arguments.size() != 2 || !arguments[1] ||
                isLiteralPath(arguments[0]))
                continue;
            const nix::Value argument = valueOf(arguments[1]);
            if (argument.kind() != nix::Value::Kind::AttrSet || argument.attribute("crossSystem"))
                continue;
            std::optional<nix::Value> system = argument.attribute("system");
            std::optional<nix::Value> arch;
            if (auto local = argument.attribute("localSystem")) {
                if (local->kind() == nix::Value::Kind::AttrSet) {
                    system = local->attribute("system");
                    if (auto gcc = local->attribute("gcc"))
                        arch = gcc->attribute("arch");
                } else {
                    system = local;
                }
            }
            if (auto text = system ? textOf(*system, *arguments[1]) : std::nullopt;
                text && text->text.find('-') != std::string::npos && !m_facts.nixpkgsSystem)
                m_facts.nixpkgsSystem = Fact<std::string>{
                    text->text, text->sourceOf(0, text->text.size()).value_or(text->range),
                    text->writtenIn.empty() ? std::string() : "written in " + text->writtenIn};
            if (auto text = arch ? textOf(*arch, *arguments[1]) : std::nullopt;
                text && !text->text.empty() && !m_facts.compilerFlags) {
                CpuFlagsFact flags;
                flags.flags = {"-march=" + text->text};
                flags.range = text->sourceOf(0, text->text.size()).value_or(text->range);
                flags.sink = "localSystem.gcc.arch";
                flags.writtenIn = text->writtenIn;
                m_facts.compilerFlags = std::move(flags);
            }
        }
    }

    void extractPlatforms()
    {
        for (const BindingRecord& binding : m_bindings) {
            if (binding.path != "meta.platforms" || inOverlay(binding.key))
                continue;
            m_facts.platformsValue = platformsOf(binding);
            return;
        }
    }

    void extractUnpinnedImports(const Node& root)
    {
        for (const Node* apply : m_applies) {
            if (calleeName(*apply) != "import")
                continue;
            const Node* argument = callArguments(*apply).front();
            const bool seen = !m_facts.unpinnedImports.empty() &&
                              m_facts.unpinnedImports.back().range == argument->range;
            if (argument && !seen && argument->kind == NodeKind::SearchPath &&
                (argument->text == "nixpkgs" || startsWith(argument->text, "nixpkgs/")) &&
                !neverEvaluated(root, *apply))
                m_facts.unpinnedImports.push_back(
                    {"<" + std::string(argument->text) + ">", argument->range});
        }
    }

    // Nix is lazy: `{ pkgs ? import <nixpkgs> { } }:` or `let host = import <nixpkgs> { };`
    // whose name the file never mentions again is never evaluated (and flox's callPackage
    // passes `pkgs` anyway). True when any `let` binding or formal around the import is unused.
    bool neverEvaluated(const Node& root, const Node& import) const
    {
        const Node* parent = nullptr;
        for (const Node* node = &root; node && node != &import;) {
            std::string_view name;
            if (node->kind == NodeKind::Formal) {
                name = node->text;
            } else if (node->kind == NodeKind::Binding && parent &&
                       (parent->kind == NodeKind::Let || parent->kind == NodeKind::LegacyLet)) {
                const Node* path = node->bindingPath();
                if (path && path->children.size() == 1 &&
                    path->children[0]->kind == NodeKind::AttrName)
                    name = path->children[0]->text;
            }
            if (!name.empty() && unused(name, node->range))
                return true;
            const Node* next = nullptr;
            for (const Node* child : node->children)
                if (child && within(child, import.range)) {
                    next = child;
                    break;
                }
            parent = node;
            node = next;
        }
        return false;
    }

    // No identifier outside `definition` reads `name` (a shadowing binding counts as a use,
    // which only keeps a warning).
    bool unused(std::string_view name, SourceRange definition) const
    {
        return std::none_of(m_identifiers.begin(), m_identifiers.end(), [&](const Node* id) {
            return id->text == name && !within(definition, id->range);
        });
    }

    // ---- pattern --------------------------------------------------------------------------

    void extractPattern(const Node& root)
    {
        bool fromScratch = false;
        for (const Node* apply : m_applies) {
            const std::string_view callee = calleeName(*apply);
            if ((callee == "buildPythonPackage" || callee == "mkDerivation" ||
                 callee == "buildPythonApplication") &&
                !inOverlay(apply)) {
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
    std::vector<BindingRecord> m_bindings;
    std::vector<const Node*> m_applies;
    std::vector<const Node*> m_selects;
    std::vector<Derivation> m_derivations;
    std::vector<const Node*> m_identifiers;
    std::vector<const Node*> m_strings;
    std::vector<const Node*> m_formals;
    std::vector<const Node*> m_withs;
    std::vector<SourceRange> m_arguments; // lambda arguments and formals without default
    std::vector<SourceRange> m_overlays;  // the overlay functions
    std::optional<Fact<std::string>> m_overlayTorchVersion;
    bool m_pythonFromTorch = false;
    mutable bool m_settingsRead = false;
    mutable std::map<std::string_view, std::vector<ShellSetting>> m_settings;
    mutable std::unordered_map<const Node*, nix::Value> m_runs;
    nix::ModuleLoader* m_modules = nullptr;
    std::vector<nix::Origin> m_moduleOverlays; // overlay functions written in a module
    int m_depth = 0; // 0 for the recipe, 1+ for a module read for its pins
    // Reading a builder module for the recipe that calls it: the recipe's evaluator, the
    // module's id and the argument the recipe applies it to.
    nix::Evaluator* m_shared = nullptr;
    std::string m_moduleId;
    std::vector<nix::Value> m_appliedTo; // the arguments a module function is applied to
    mutable std::unique_ptr<nix::Evaluator> m_evaluator;
};

} // namespace

void FactExtractor::extract(const nix::SyntaxTree& tree, RecipeFacts& facts,
                            nix::ModuleLoader* modules)
{
    Extractor(tree, facts, modules).run();
}

} // namespace rg
