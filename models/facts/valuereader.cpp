#include "facts/valuereader.h"

#include "facts/syntaxqueries.h"

#include <algorithm>

namespace rg {

using nix::Node;
using nix::SourceRange;

ValueReader::ValueReader(FactContext& context)
    : m_context(context), m_facts(context.facts()), m_walk(context.walked())
{}

std::optional<Fact<std::string>> ValueReader::stringFact(std::string_view last, bool exactPath,
                                                         bool lastOne) const
{
    std::optional<Fact<std::string>> fact;
    for (const BindingRecord& binding : m_walk.bindings()) {
        if ((exactPath ? binding.path != last : binding.last != last) ||
            m_context.inOverlay(binding.key))
            continue;
        if (auto text = m_context.textAt(binding.source)) {
            fact = Fact<std::string>{text->text, text->range};
            if (!lastOne)
                break;
        }
    }
    return fact;
}

std::optional<Fact<std::vector<std::string>>> ValueReader::listFact(std::string_view last,
                                                                    bool exactPath) const
{
    for (const BindingRecord& binding : m_walk.bindings()) {
        if ((exactPath ? binding.path != last : binding.last != last) ||
            m_context.inOverlay(binding.key))
            continue;
        if (auto list = m_context.listAt(binding.source))
            return list;
        if (auto text = m_context.textAt(binding.source))
            return Fact<std::vector<std::string>>{{text->text}, text->range};
    }
    return std::nullopt;
}

void ValueReader::read(const std::optional<Fact<std::string>>& overlayTorchVersion)
{
    m_facts.pname = stringFact("pname", true, true);
    m_facts.cpuFlags = listFact("cpuFlags");
    m_facts.description = stringFact("meta.description", true);
    m_facts.longDescription = stringFact("meta.longDescription", true);
    m_facts.platforms = listFact("meta.platforms", true);

    // The version built: a top-level override wins over the overlay's upgrade.
    for (const BindingRecord& binding : m_walk.bindings()) {
        if (binding.path != "version" || m_context.inOverlay(binding.key) ||
            isFetcherArgument(binding))
            continue;
        if (auto text = m_context.textAt(binding.source)) {
            m_facts.torchVersion = Fact<std::string>{text->text, text->range};
            break;
        }
    }
    if (!m_facts.torchVersion && overlayTorchVersion)
        m_facts.torchVersion = overlayTorchVersion;

    readSwitches();
}

// cudaSupport, and the ways a recipe turns MAGMA off.
void ValueReader::readSwitches()
{
    const nix::SyntaxTree& tree = m_context.tree();
    for (const BindingRecord& binding : m_walk.bindings()) {
        const SourceRange range = binding.value ? binding.value->range : binding.key->range;
        if (binding.last == "cudaSupport") {
            if (auto value = m_context.boolAt(binding.source))
                if (!m_facts.cudaSupport || (*value && !m_facts.cudaSupport->value))
                    m_facts.cudaSupport = Fact<bool>{*value, range};
        } else if ((binding.last == "useMagma" || binding.last == "magmaSupport" ||
                    binding.last == "USE_MAGMA") &&
                   !m_context.inOverlay(binding.key)) {
            if (auto value = m_context.boolAt(binding.source); value && !*value)
                m_facts.magmaDisabled.push_back({std::string(tree.text(range)), range});
            else if (auto text = m_context.textAt(binding.source); text && isOff(text->text))
                m_facts.magmaDisabled.push_back(
                    {binding.last == "USE_MAGMA" ? "USE_MAGMA=" + text->text : text->text, range});
        } else if (binding.last == "filterMagma") {
            m_facts.magmaDisabled.push_back({"filterMagma", binding.key->range});
        }
    }
    for (const Node* identifier : m_walk.identifiers())
        if (identifier->text == "filterMagma" &&
            std::none_of(m_facts.magmaDisabled.begin(), m_facts.magmaDisabled.end(),
                         [](const Fact<std::string>& f) { return f.value == "filterMagma"; }))
            m_facts.magmaDisabled.push_back({"filterMagma", identifier->range});
    for (const Node* apply : m_walk.applies()) {
        // lib.cmakeBool "USE_MAGMA" false
        if (calleeName(*apply) != "cmakeBool")
            continue;
        auto arguments = callArguments(*apply);
        if (arguments.size() != 2)
            continue;
        auto name = m_context.textAt(arguments[0]);
        auto value = m_context.boolAt(arguments[1]);
        if (name && value && name->text == "USE_MAGMA" && !*value)
            m_facts.magmaDisabled.push_back({std::string(tree.text(apply->range)), apply->range});
    }
}

bool ValueReader::isFetcherArgument(const BindingRecord& binding) const
{
    for (const Node* apply : m_walk.applies()) {
        const std::string_view callee = calleeName(*apply);
        if (callee.starts_with("fetch") && within(apply, binding.key->range))
            return true;
    }
    return false;
}

} // namespace rg
