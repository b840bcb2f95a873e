#include "facts/builderreader.h"

#include "facts/archsinkreader.h"
#include "facts/compilerflagsreader.h"
#include "facts/importreader.h"
#include "facts/overlayreader.h"
#include "facts/packagesetreader.h"
#include "facts/pinreader.h"
#include "facts/platformreader.h"
#include "facts/shellsettings.h"
#include "facts/shellsettingsreader.h"
#include "facts/syntaxqueries.h"

#include <algorithm>

namespace rg {

using nix::Node;
using nix::NodeKind;
using nix::SourceRange;

BuilderReader::BuilderReader(FactContext& context)
    : m_context(context), m_facts(context.facts()), m_walk(context.walked()),
      m_modules(context.modules())
{}

// The facts a builder can add are all there: nothing is left to read through it.
bool BuilderReader::hasAllBuiltFacts() const
{
    return !m_facts.archSinks.empty() && m_facts.compilerFlags && m_facts.pythonPackageSet &&
           m_facts.cudaPackageSet;
}

// `(import ./pytorch-…-sm90-avx512.nix { … }).override { gpuArch = "8.9"; }`, or the same
// through a `let` binding: a recipe made from a sibling by calling its function again with
// other arguments (callPackage's makeOverridable), so the sibling's cell is not its own.
void BuilderReader::readDerivedFrom()
{
    const auto& applies = m_walk.applies();
    for (const Node* select : m_walk.selects()) {
        const Node* path = select->attrPath();
        const Node* subject = select->subject();
        if (!path || path->children.empty() || !subject ||
            path->children.front()->kind != NodeKind::AttrName ||
            path->children.front()->text != "override")
            continue;
        if (subject->kind == NodeKind::Identifier)
            for (const BindingRecord& binding : m_walk.bindings())
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
            applies, [&](const Node* apply) { return apply->function() == select; });
        m_derivations.push_back({subject, call == applies.end() ? nullptr : (*call)->argument()});
    }
}

// `import ./lib/mk-torch.nix { capability = "8.6"; isa = "avx2"; }`: the arch sinks and
// compiler flags are in the builder's function, fed by the recipe's argument. They are read
// there, as the recipe's facts, with where they are written.
void BuilderReader::readThroughBuilder()
{
    if (!m_modules || m_context.depth() > 0 || hasAllBuiltFacts())
        return;
    if (m_facts.builderModule.empty()) {
        if (!m_derivations.empty())
            readDerived(m_derivations.front());
        return;
    }
    // The outermost call: `import ./lib/mk.nix { inherit lib; } cell` applies a curried
    // function to both.
    std::vector<const Node*> call;
    for (const Node* apply : m_walk.applies()) {
        auto arguments = callArguments(*apply);
        if (arguments.size() >= 2 && arguments.size() > call.size() &&
            isLiteralPath(arguments[0]) && arguments[0]->text == m_facts.builderModule)
            call = std::move(arguments);
    }
    if (!call.empty())
        readBuilt(m_modules->resolve(m_facts.path, m_facts.builderModule),
                  m_context.valuesOf(call));
}

// `(import ./<sibling>.nix { inherit callPackage; }).override { gpuArch = "8.9"; }` where
// the sibling is `callPackage ./lib/torch.nix { … }`: callPackage's makeOverridable calls
// the builder again with the sibling's arguments updated by the overrides, so this recipe
// is what that call makes. (`callPackage ./<sibling>.nix { }` would wrap it in a second
// makeOverridable over the sibling's own arguments, which is not followed.)
void BuilderReader::readDerived(const Derivation& derivation)
{
    const auto arguments = callArguments(*derivation.base);
    if (arguments.size() != 2 || calleeName(*derivation.base) != "import" || !derivation.overrides)
        return;
    auto call = builderCallOf(m_modules->resolve(m_facts.path, arguments[0]->text),
                              m_context.valueOf(arguments[1]), 0);
    if (!call)
        return;
    const nix::Value overrides = m_context.valueOf(derivation.overrides);
    const nix::Value merged = m_context.evaluator().overridden(call->arguments, overrides);
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
            for (PinFact& pin : PinReader::appliedPins(m_context, *builder, call->module, {merged}))
                if (!pin.file.empty()) // the builder's, or where the arguments are written
                    m_facts.pins.push_back(std::move(pin));
}

// What of `passed` overrides leave in place: all when they are a set without those
// attributes, none when they cannot be read (a function of the old arguments).
BuilderReader::Passes BuilderReader::keptPasses(Passes passed, const nix::Value& overrides)
{
    if (overrides.kind() != nix::Value::Kind::AttrSet)
        return {};
    std::erase_if(passed, [&](const auto& pass) { return overrides.attribute(pass.first); });
    return passed;
}

// Sibling recipes imported in `argument` (a call's argument set in `context`'s file), by the
// attribute they are bound to.
BuilderReader::Passes BuilderReader::siblingPasses(const FactContext& context, const Node& argument)
{
    Passes passed;
    if (argument.kind != NodeKind::AttrSet)
        return passed;
    std::optional<nix::LineIndex> lines; // only when a sibling is passed
    for (const Node* apply : context.walked().applies()) {
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
                lines.emplace(context.tree().source());
            imported.in = "passed as " + name + " in " + context.facts().path + ":" +
                          std::to_string(lines->position(call[0]->range.begin).line);
            passed.emplace_back(name, std::move(imported));
        }
    }
    return passed;
}

// The builder `import <recipe> <argument>` calls with callPackage, and its arguments: the
// recipe's own call, or, for a recipe derived from another, that one's call updated by
// its overrides (a chain of derivations, a few deep).
std::optional<BuilderReader::BuilderCall> BuilderReader::builderCallOf(const std::string& recipeId,
                                                                       const nix::Value& argument,
                                                                       int depth) const
{
    constexpr int maxDepth = 4;
    const nix::SyntaxTree* recipe = recipeId.empty() ? nullptr : m_modules->load(recipeId);
    if (depth >= maxDepth || !recipe || !recipe->root() || recipe->root()->kind != NodeKind::Lambda)
        return std::nullopt;
    RecipeFacts facts;
    facts.path = recipeId;
    FactContext base(*recipe, facts, m_modules, m_context.depth() + 1);
    base.walk(*recipe->root());
    const auto in = [&](const Node& node) {
        return m_context.evaluator().evaluateApplied(recipeId, argument, node);
    };
    for (const Node* apply : base.walked().applies()) {
        const auto call = callArguments(*apply);
        if (call.size() == 2 && isLiteralPath(call[0]) && !isSibling(call[0]->text) &&
            calleeName(*apply) == "callPackage")
            return BuilderCall{m_modules->resolve(recipeId, call[0]->text), in(*call[1]),
                               siblingPasses(base, *call[1])};
    }
    BuilderReader baseReader(base);
    baseReader.readDerivedFrom();
    if (baseReader.m_derivations.empty() || !baseReader.m_derivations.front().overrides)
        return std::nullopt;
    const Derivation& derived = baseReader.m_derivations.front();
    const auto call = callArguments(*derived.base);
    if (call.size() != 2 || calleeName(*derived.base) != "import")
        return std::nullopt;
    auto inner =
        builderCallOf(m_modules->resolve(recipeId, call[0]->text), in(*call[1]), depth + 1);
    if (!inner)
        return inner;
    const nix::Value overrides = in(*derived.overrides);
    inner->arguments = m_context.evaluator().overridden(inner->arguments, overrides);
    inner->passed = keptPasses(std::move(inner->passed), overrides);
    return inner;
}

// The facts a builder module makes when applied to `arguments` (several for a curried one).
void BuilderReader::readBuilt(const std::string& id, std::vector<nix::Value> arguments, int chain)
{
    const nix::SyntaxTree* module = id.empty() ? nullptr : m_modules->load(id);
    if (!module || !module->root() || module->root()->kind != NodeKind::Lambda)
        return;
    RecipeFacts built;
    built.path = id;
    FactContext builder(*module, built, m_modules, m_context.depth() + 1, m_context.evaluator(), id,
                        std::move(arguments));
    builder.walk(*module->root());
    OverlayReader(builder).findOverlays();
    const ShellSettings settings(builder);
    ShellSettingsReader(builder, settings).read();
    ArchSinkReader(builder, settings).read();
    CompilerFlagsReader(builder, settings).read();
    PackageSetReader(builder).readSelected();
    PlatformReader platforms(builder);
    platforms.readPlatforms();
    platforms.readNixpkgsSystem();
    for (Fact<std::string>& computed : ImportReader(builder).computedSiblingImports(m_facts.path))
        m_facts.importedFiles.push_back(std::move(computed));
    adoptBuilt(*module, id, built);
    // A builder that hands its values on to another (`callPackage ./torch-build.nix
    // { inherit cpu gpuTargets; }`): what is still missing is made there.
    constexpr int maxChain = 3;
    if (chain + 1 >= maxChain || hasAllBuiltFacts())
        return;
    for (const Node* apply : builder.walked().applies()) {
        const auto next = callArguments(*apply);
        if (next.size() != 2 || !next[0] || !isLiteralPath(next[0]) ||
            !next[0]->text.ends_with(".nix"))
            continue;
        const std::string nextId = m_modules->resolve(id, next[0]->text);
        if (!nextId.empty() && nextId != id && nextId != m_facts.path)
            readBuilt(nextId, {builder.valueOf(next[1])}, chain + 1);
    }
}

// Takes what the builder `id` made that the recipe has not stated itself, placed where the
// builder makes it: no range of it is in the recipe.
void BuilderReader::adoptBuilt(const nix::SyntaxTree& module, const std::string& id,
                               RecipeFacts& built)
{
    const nix::LineIndex lines(module.source());
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
}

} // namespace rg
