#include "facts/packagesetreader.h"

#include "facts/syntaxqueries.h"
#include "matrix/versionspelling.h"

#include <algorithm>

namespace rg {

using nix::Node;
using nix::NodeKind;
using nix::SourceRange;

namespace {

std::string_view withSetName(const Node& with)
{
    const Node* expr = with.withScope();
    if (expr && expr->kind == NodeKind::Identifier)
        return expr->text;
    if (expr && expr->kind == NodeKind::Select)
        return selectNames(*expr).back().first;
    return {};
}

} // namespace

PackageSetReader::PackageSetReader(FactContext& context)
    : m_context(context), m_facts(context.facts()), m_walk(context.walked())
{}

void PackageSetReader::notePythonSet(std::string_view set, const Node* node,
                                     std::string_view attribute, const Node* attributeNode)
{
    const bool torch = attribute == "torch" || attribute == "pytorch";
    if (torch && !m_facts.torchAttribute) {
        m_facts.torchAttribute = Fact<std::string>{std::string(attribute), attributeNode->range};
        m_facts.pythonPackageSet = Fact<std::string>{std::string(set), node->range};
        m_pythonFromTorch = true;
    } else if (!m_facts.pythonPackageSet) {
        m_facts.pythonPackageSet = Fact<std::string>{std::string(set), node->range};
    }
}

void PackageSetReader::read()
{
    // Outside overlays first: overlays mention package sets they rebuild, not the base.
    for (int pass = 0; pass < 2 && !m_facts.torchAttribute; ++pass)
        for (const Node* select : m_walk.selects()) {
            if ((pass == 0) == m_context.inOverlay(select))
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
        for (const Node* formal : m_walk.formals())
            if (isPythonPackageSet(formal->text)) {
                m_facts.pythonPackageSet =
                    Fact<std::string>{std::string(formal->text), formal->range};
                break;
            }
    readCudaInputs();
}

// `in` says where a piece of the name is written outside the module.
void PackageSetReader::readSelected()
{
    for (const Node* select : m_walk.selects()) {
        const Node* path = select->attrPath();
        if (!path || m_context.inOverlay(select))
            continue;
        for (const Node* segment : path->children) {
            if (segment->kind == NodeKind::AttrName)
                continue;
            const Node* expression =
                segment->kind == NodeKind::Interpolation ? segment->interpolated() : segment;
            const nix::Value value = m_context.valueOf(expression);
            const auto name = value.asString();
            if (!name)
                continue;
            std::optional<Fact<std::string>>* fact =
                isPythonPackageSet(*name)                            ? &m_facts.pythonPackageSet
                : isCudaPackageSet(*name) && *name != "cudaPackages" ? &m_facts.cudaPackageSet
                                                                     : nullptr;
            if (fact && !*fact)
                *fact = Fact<std::string>{*name, segment->range, m_context.writtenIn(value)};
        }
    }
}

// python313Packages.torch, python313.pkgs.torch
void PackageSetReader::notePythonSelect(const Node& select)
{
    auto names = selectNames(select);
    for (size_t i = 0; i + 1 < names.size(); ++i) {
        std::string_view name = names[i].first;
        std::string set;
        if (isPythonPackageSet(name))
            set = name;
        else if (name.starts_with("python") && allDigits(name.substr(6)) &&
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
void PackageSetReader::torchFromWith()
{
    for (const Node* identifier : m_walk.identifiers()) {
        const std::string_view name = identifier->text;
        if ((name != "torch" && name != "pytorch") || m_context.inOverlay(identifier))
            continue;
        const Node* with = nullptr;
        for (const Node* candidate : m_walk.withs())
            if (candidate->withBody() && within(candidate->withBody(), identifier->range) &&
                isPythonPackageSet(withSetName(*candidate)) &&
                (!with || within(with, candidate->range)))
                with = candidate;
        if (!with)
            continue;
        const std::string_view set = withSetName(*with);
        const nix::Value value = m_context.valueOf(identifier);
        if (!value.isUnknown() ||
            !value.symbolicPath().ends_with(std::string(set) + "." + std::string(name)))
            continue;
        m_facts.torchAttribute = Fact<std::string>{std::string(name), identifier->range};
        m_facts.pythonPackageSet = Fact<std::string>{std::string(set), with->withScope()->range};
        m_pythonFromTorch = true;
        return;
    }
}

// `pyPkgs = python313Packages;` under `with pkgs;`, or `python = pkgs.python313Packages;`,
// then `pyPkgs.torch`: the set is what the name before `.torch` evaluates to.
void PackageSetReader::torchFromValues()
{
    for (const Node* select : m_walk.selects()) {
        const Node* subject = select->subject();
        const auto names = selectNames(*select);
        if (m_context.inOverlay(select) || !subject || subject->kind != NodeKind::Identifier ||
            names.size() < 2 || (names[1].first != "torch" && names[1].first != "pytorch"))
            continue;
        const nix::Value value = m_context.valueOf(subject);
        if (!value.isUnknown())
            continue;
        const std::string path(value.symbolicPath());
        const std::string_view set = lastSegment(path);
        if (!isPythonPackageSet(set))
            continue;
        m_facts.torchAttribute =
            Fact<std::string>{std::string(names[1].first), names[1].second->range};
        m_facts.pythonPackageSet = Fact<std::string>{std::string(set), rangeOfName(set, subject)};
        m_pythonFromTorch = true;
        return;
    }
}

// Where this file writes `name` (outside overlays), for a fact found by evaluation;
// `fallback`'s range when it does not.
SourceRange PackageSetReader::rangeOfName(std::string_view name, const Node* fallback) const
{
    for (const Node* identifier : m_walk.identifiers())
        if (identifier->text == name && !m_context.inOverlay(identifier))
            return identifier->range;
    for (const Node* select : m_walk.selects())
        if (!m_context.inOverlay(select))
            for (const auto& [segment, node] : selectNames(*select))
                if (segment == name && node)
                    return node->range;
    return fallback->range;
}

// CUDA: every package-set mention is a CUDA input; the versioned one names the set.
void PackageSetReader::readCudaInputs()
{
    auto noteCuda = [&](std::string_view name, const Node* node) {
        if (!isCudaInputName(name))
            return;
        if (m_facts.cudaInputs.size() < 64)
            m_facts.cudaInputs.push_back({std::string(name), node->range});
        if (isCudaPackageSet(name) && name != "cudaPackages" && !m_facts.cudaPackageSet)
            m_facts.cudaPackageSet = Fact<std::string>{std::string(name), node->range};
    };
    for (const Node* formal : m_walk.formals())
        noteCuda(formal->text, formal);
    for (const Node* select : m_walk.selects())
        for (const auto& [name, node] : selectNames(*select))
            if (node)
                noteCuda(name, node);
    for (const Node* identifier : m_walk.identifiers())
        noteCuda(identifier->text, identifier);
    for (const BindingRecord& binding : m_walk.bindings())
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

} // namespace rg
