#include "facts/archsinkreader.h"

#include "facts/syntaxqueries.h"

#include <algorithm>
#include <utility>

namespace rg {

using nix::Node;
using nix::SourceRange;

namespace {

std::optional<ArchSink> sinkNamed(std::string_view name)
{
    if (name == "gpuTargets")
        return ArchSink::GpuTargets;
    if (name == "cudaCapabilities")
        return ArchSink::CudaCapabilities;
    if (name == "TORCH_CUDA_ARCH_LIST")
        return ArchSink::TorchCudaArchList;
    if (name == "CMAKE_CUDA_ARCHITECTURES")
        return ArchSink::CmakeCudaArchitectures;
    return std::nullopt;
}

} // namespace

ArchSinkReader::ArchSinkReader(FactContext& context, const ShellSettings& settings)
    : m_context(context), m_facts(context.facts()), m_walk(context.walked()), m_settings(settings)
{}

void ArchSinkReader::addArchEntry(ArchSink sink, const SourcedText& entry, size_t offset,
                                  size_t length, SourceRange sinkRange)
{
    ArchSinkFact fact;
    fact.sink = sink;
    fact.value = entry.text.substr(offset, length);
    fact.writtenIn = entry.writtenIn;
    const auto exact = entry.sourceOf(offset, length);
    fact.range = exact ? *exact : entry.range;
    fact.sinkRange = sinkRange;
    if (exact)
        if (const BindingRecord* through = m_context.bindingAround(*exact);
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
void ArchSinkReader::addArchList(ArchSink sink, const SourcedText& value, SourceRange sinkRange)
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

void ArchSinkReader::readBindings()
{
    for (const BindingRecord& binding : m_walk.bindings()) {
        const std::optional<ArchSink> sink = sinkNamed(binding.last);
        if (!sink)
            continue;
        if (auto entries = m_context.itemsAt(binding.source)) {
            for (const auto& entry : *entries)
                if (entry)
                    addArchEntry(*sink, *entry, 0, entry->text.size(), binding.key->range);
        } else if (auto text = m_context.textAt(binding.source)) {
            addArchList(*sink, *text, binding.key->range);
        }
    }
}

void ArchSinkReader::readShellSettings()
{
    const std::pair<std::string_view, ArchSink> settings[] = {
        {"TORCH_CUDA_ARCH_LIST", ArchSink::TorchCudaArchList},
        {"CMAKE_CUDA_ARCHITECTURES", ArchSink::CmakeCudaArchitectures},
        {"COMPUTE_CAPABILITY", ArchSink::ComputeCapability}};
    for (const auto& [name, sink] : settings)
        for (const ShellSettings::Setting& setting : m_settings.settings(name)) {
            const uint32_t nameEnd = setting.range.begin;
            const SourceRange sinkRange{nameEnd > name.size() + 1
                                            ? nameEnd - static_cast<uint32_t>(name.size()) - 1
                                            : nameEnd,
                                        nameEnd};
            addArchList(sink, setting.text, sinkRange);
        }
}

// lib.cmakeFeature "CMAKE_CUDA_ARCHITECTURES" "86"
void ArchSinkReader::readCmakeFeatures()
{
    for (const Node* apply : m_walk.applies()) {
        const std::string_view callee = calleeName(*apply);
        if (callee != "cmakeFeature" && callee != "cmakeOptionType")
            continue;
        auto arguments = callArguments(*apply);
        if (arguments.size() < 2)
            continue;
        auto name = m_context.textAt(arguments[arguments.size() - 2]);
        auto value = m_context.textAt(arguments.back());
        if (name && value && name->text == "CMAKE_CUDA_ARCHITECTURES")
            addArchList(ArchSink::CmakeCudaArchitectures, *value, name->range);
    }
}

void ArchSinkReader::read()
{
    readBindings();
    readShellSettings();
    readCmakeFeatures();
    std::sort(m_facts.archSinks.begin(), m_facts.archSinks.end(),
              [](const ArchSinkFact& a, const ArchSinkFact& b) {
                  return a.sinkRange.begin < b.sinkRange.begin;
              });
}

} // namespace rg
