#include "facts/platformreader.h"

#include "facts/syntaxqueries.h"

#include <algorithm>

namespace rg {

using nix::Node;

namespace {

// Systems a nixpkgs `lib.platforms.NAME` list holds (the common ones; others unknown).
std::optional<std::vector<std::string>> libPlatforms(std::string_view name)
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

} // namespace

PlatformReader::PlatformReader(FactContext& context)
    : m_context(context), m_facts(context.facts()), m_walk(context.walked())
{}

// Evaluates a platforms expression: lists, `++`, `lib.platforms.X`, and values taken over
// from the overridden package (`oldAttrs.meta.platforms`, with or without `or`).
PlatformsFact PlatformReader::platformsOf(const BindingRecord& binding) const
{
    PlatformsFact fact;
    const Node& expression = *binding.source;
    fact.range = binding.value ? expression.range : binding.key->range;
    fact.expression = std::string(m_context.tree().text(expression.range));
    fact.origin = platformsFrom(m_context.valueOf(&expression), expression, fact.platforms, 0);
    if (fact.origin != ValueOrigin::Known)
        fact.platforms.clear();
    return fact;
}

ValueOrigin PlatformReader::platformsFrom(const nix::Value& value, const Node& at,
                                          std::vector<std::string>& platforms, int depth) const
{
    if (depth > 8)
        return ValueOrigin::Unknown;
    if (auto items = m_context.itemsOf(value, at)) {
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
    if (dot != std::string_view::npos && path.substr(0, dot).ends_with("platforms") &&
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
bool PlatformReader::fromArgument(const nix::Value& value) const
{
    const std::vector<nix::BindingStep> chain = value.bindingChain();
    if (chain.empty() || !m_context.inThisFile(chain.front().file))
        return false;
    const auto& arguments = m_walk.arguments();
    return std::find(arguments.begin(), arguments.end(), chain.front().key) != arguments.end();
}

// `import nixpkgs { system = "x86_64-linux"; }`, `localSystem = { system = …; gcc.arch =
// "cascadelake"; }`: the platform nixpkgs builds for, and the CPU its compiler wrapper
// targets (-march=<gcc.arch> on every compile), read when the recipe sets no flags itself.
// With crossSystem the build is for another platform, which is left unjudged.
void PlatformReader::readNixpkgsSystem()
{
    for (const Node* apply : m_walk.applies()) {
        const auto arguments = callArguments(*apply);
        if (calleeName(*apply) != "import" || arguments.size() != 2 || !arguments[1] ||
            isLiteralPath(arguments[0]))
            continue;
        const nix::Value argument = m_context.valueOf(arguments[1]);
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
        if (auto text = system ? m_context.textOf(*system, *arguments[1]) : std::nullopt;
            text && text->text.find('-') != std::string::npos && !m_facts.nixpkgsSystem)
            m_facts.nixpkgsSystem = Fact<std::string>{
                text->text, text->sourceOf(0, text->text.size()).value_or(text->range),
                text->writtenIn.empty() ? std::string() : "written in " + text->writtenIn};
        if (auto text = arch ? m_context.textOf(*arch, *arguments[1]) : std::nullopt;
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

void PlatformReader::readPlatforms()
{
    for (const BindingRecord& binding : m_walk.bindings()) {
        if (binding.path != "meta.platforms" || m_context.inOverlay(binding.key))
            continue;
        m_facts.platformsValue = platformsOf(binding);
        return;
    }
}

} // namespace rg
