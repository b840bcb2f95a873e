#include "facts/compilerflagsreader.h"

#include "facts/syntaxqueries.h"

#include <algorithm>

namespace rg {

using nix::Node;

namespace {

// `old.NIX_CFLAGS_COMPILE`: the sink's value taken over from the overridden package.
bool isInheritedSink(const nix::Value& value, std::string_view sink)
{
    const std::string_view path = value.symbolicPath();
    return value.isUnknown() && path.size() > sink.size() &&
           path.substr(path.size() - sink.size()) == sink &&
           path[path.size() - sink.size() - 1] == '.';
}

// A part of a sink's value that is the overridden package's value, or nothing:
// `lib.filter (f: f != "") [ (old.… or "") ]` too.
bool isInheritedPart(const nix::Value& part, std::string_view sink)
{
    if (isInheritedSink(part, sink))
        return true;
    const auto maybe = part.isUnknown() ? part.fallback() : std::nullopt;
    const auto elements = maybe ? maybe->elements() : std::nullopt;
    return elements && !elements->empty() &&
           std::ranges::all_of(*elements,
                               [&](const nix::Value& v) { return isInheritedSink(v, sink); });
}

} // namespace

CompilerFlagsReader::CompilerFlagsReader(FactContext& context, const ShellSettings& settings)
    : m_context(context), m_facts(context.facts()), m_walk(context.walked()), m_settings(settings)
{}

// `toString ([ (old.NIX_CFLAGS_COMPILE or "") ] ++ flags)`, `old.CXXFLAGS + " -mavx2"`:
// the sink's value inherited from the overridden package is nixpkgs' own, which selects
// no ISA; what the recipe adds to it is read. nullopt when another part is unknown.
std::optional<SourcedText> CompilerFlagsReader::addedFlags(const nix::Value& value,
                                                           std::string_view sink, const Node& at,
                                                           int depth) const
{
    if (depth > 8)
        return std::nullopt;
    if (auto text = m_context.textOf(value, at))
        return text->text.find(unknownMark) == std::string::npos ? text : std::nullopt;
    std::vector<nix::Value> parts;
    if (value.kind() == nix::Value::Kind::List) {
        for (size_t i = 0; i < value.size(); ++i)
            parts.push_back(value.element(i).value_or(nix::Value()));
    } else if (value.isUnknown()) {
        parts = value.parts();
    }
    if (parts.empty())
        return std::nullopt;
    SourcedText joined;
    bool any = false;
    for (const nix::Value& part : parts) {
        if (isInheritedPart(part, sink))
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
    return any ? std::optional<SourcedText>(std::move(joined)) : std::nullopt;
}

// Takes the machine flags of a sink's fully known value; false when it holds none.
bool CompilerFlagsReader::note(const SourcedText& value, std::string_view sink)
{
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
        const nix::SourceRange at{piece.source, piece.source + static_cast<uint32_t>(piece.length)};
        if (value.range.contains(at.begin))
            continue;
        if (const BindingRecord* through = m_context.bindingAround(at);
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
             std::none_of(m_facts.moreCompilerFlags.begin(), m_facts.moreCompilerFlags.end(),
                          [&](const CpuFlagsFact& f) { return f.flags == fact.flags; }))
        m_facts.moreCompilerFlags.push_back(std::move(fact));
    return true;
}

// A binding of a flag sink: its text, what it adds to the inherited value, or its list.
void CompilerFlagsReader::readBinding(const BindingRecord& binding, std::string_view sink)
{
    bool read = false; // the value is known, whether or not it holds machine flags
    if (auto text = m_context.textAt(binding.source)) {
        read = text->text.find(unknownMark) == std::string::npos;
        if (note(*text, sink))
            return;
    }
    if (auto added = addedFlags(m_context.valueOf(binding.source), sink, *binding.source)) {
        added->range = binding.value ? binding.value->range : binding.key->range;
        read = true;
        if (note(*added, sink))
            return;
    }
    bool known = false;
    if (auto entries = m_context.itemsAt(binding.source)) {
        SourcedText joined;
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

// No flag sink could be read: the list the recipe keeps its flags in decides.
void CompilerFlagsReader::readFlagList()
{
    for (const BindingRecord& binding : m_walk.bindings()) {
        if (binding.last != "cpuFlags" || m_context.inOverlay(binding.key))
            continue;
        auto entries = m_context.itemsAt(binding.source);
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

// The flags that reach the compiler: the first flag sink whose value is fully known and
// holds machine flags; the list binding of that name (`cpuFlags`) is where they came from.
void CompilerFlagsReader::read()
{
    for (std::string_view sink : {"CXXFLAGS", "NIX_CFLAGS_COMPILE", "CFLAGS", "CMAKE_CXX_FLAGS"}) {
        for (const ShellSettings::Setting& setting : m_settings.settings(sink))
            if (note(setting.text, sink))
                break;
        for (const BindingRecord& binding : m_walk.bindings())
            if (binding.last == sink && !m_context.inOverlay(binding.key))
                readBinding(binding, sink);
    }
    if (!m_facts.compilerFlags)
        readFlagList();
}

} // namespace rg
