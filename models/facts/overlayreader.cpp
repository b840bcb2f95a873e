#include "facts/overlayreader.h"

#include "facts/syntaxqueries.h"

#include <algorithm>

namespace rg {

using nix::Node;
using nix::NodeKind;
using nix::SourceRange;

OverlayReader::OverlayReader(FactContext& context)
    : m_context(context), m_facts(context.facts()), m_walk(context.walked())
{}

// Where an overlay is written: its function when this file writes it, else the binding
// of this file it came through, else the expression in the list.
std::optional<SourceRange>
OverlayReader::overlayRange(const nix::Value& overlay,
                            const std::optional<nix::Origin>& written) const
{
    if (overlay.kind() == nix::Value::Kind::Function && m_context.inThisFile(overlay.origin()))
        return overlay.origin().range;
    if (overlay.kind() == nix::Value::Kind::Function && !overlay.origin().file.empty())
        return std::nullopt; // written in a module: read there (overlaysOfModules)
    if (const auto through = m_context.bindingsOf(overlay); !through.empty())
        return through.front()->value->range;
    if (written && m_context.inThisFile(*written))
        return written->range;
    return std::nullopt;
}

void OverlayReader::addOverlay(std::optional<SourceRange> range)
{
    if (range && std::find(m_overlays.begin(), m_overlays.end(), *range) == m_overlays.end())
        m_overlays.push_back(*range);
}

// An overlay written in this file is read here; one a module writes, there; one composed
// of others (`lib.composeManyExtensions [ … ]`) is each of them.
void OverlayReader::addOverlayValue(const nix::Value& overlay,
                                    const std::optional<nix::Origin>& written, int depth)
{
    if (depth > 8)
        return; // a composition that refers to itself
    if (const Node* composed = composition(overlay, written)) {
        const auto arguments = callArguments(*composed);
        if (calleeName(*composed) == "composeManyExtensions")
            addOverlayElements(m_context.valueOf(arguments.back()), depth + 1);
        else
            for (const Node* argument : arguments)
                addOverlayValue(m_context.valueOf(argument),
                                nix::Origin{m_context.evaluator().fileId(), argument->range},
                                depth + 1);
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
const Node* OverlayReader::composition(const nix::Value& overlay,
                                       const std::optional<nix::Origin>& written) const
{
    if (!overlay.isUnknown())
        return nullptr;
    std::vector<SourceRange> candidates;
    if (written && m_context.inThisFile(*written))
        candidates.push_back(written->range);
    for (const BindingRecord* binding : m_context.bindingsOf(overlay))
        candidates.push_back(binding->value->range);
    for (const Node* apply : m_walk.applies()) {
        const std::string_view callee = calleeName(*apply);
        if ((callee == "composeManyExtensions" && callArguments(*apply).size() == 1) ||
            (callee == "composeExtensions" && callArguments(*apply).size() == 2))
            if (std::ranges::count(candidates, apply->range) > 0)
                return apply;
    }
    return nullptr;
}

void OverlayReader::addOverlayElements(const nix::Value& list, int depth)
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

void OverlayReader::findOverlays()
{
    for (const BindingRecord& binding : m_walk.bindings()) {
        if (binding.last == "overlays")
            addOverlayElements(m_context.valueOf(binding.source), 0);
        // `python313.override { packageOverrides = pyfinal: pyprev: { torch = …; }; }`
        // changes the Python set as an overlay of it would.
        if (binding.last == "packageOverrides" && binding.value &&
            binding.value->kind == NodeKind::Lambda)
            addOverlay(binding.value->range);
    }
    for (const Node* apply : m_walk.applies()) {
        const std::string_view callee = calleeName(*apply);
        auto arguments = callArguments(*apply);
        if (arguments.size() != 1 || !arguments[0])
            continue;
        if (callee == "extend")
            addOverlayValue(m_context.valueOf(arguments[0]),
                            nix::Origin{m_context.evaluator().fileId(), arguments[0]->range});
        else if (callee == "appendOverlays" || callee == "applyOverlays")
            addOverlayElements(m_context.valueOf(arguments[0]), 0);
    }
    std::sort(m_overlays.begin(), m_overlays.end(),
              [](SourceRange a, SourceRange b) { return a.begin < b.begin; });
    m_context.setOverlays(m_overlays);
}

// CUDA package-set switch: cudaPackages = final.cudaPackages_13
void OverlayReader::readCudaSwitch(SourceRange overlay, std::vector<OverlayFact>& found)
{
    for (const BindingRecord& binding : m_walk.bindings()) {
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
                m_facts.cudaPackageSet = Fact<std::string>{std::string(chosen), value->range};
            return;
        }
    }
}

// MAGMA patch: magma = prev.magma.overrideAttrs (… patches …)
void OverlayReader::readMagmaPatch(SourceRange overlay, std::vector<OverlayFact>& found) const
{
    const BindingRecord* magma = nullptr;
    bool patches = false;
    for (const BindingRecord& binding : m_walk.bindings()) {
        if (!within(overlay, binding.key->range))
            continue;
        if (binding.last == "magma")
            magma = &binding;
        if (binding.last == "patches")
            patches = true;
    }
    if (!magma || !patches || !magma->value)
        return;
    std::string detail;
    for (const Node* string : m_walk.strings()) {
        if (!within(magma->value, string->range))
            continue;
        auto text = m_context.textAt(string);
        if (text && text->text.ends_with(".patch") && text->text.find('/') == std::string::npos) {
            detail = text->text;
            break;
        }
        if (text && text->text.ends_with(".patch") && detail.empty())
            detail = text->text.substr(text->text.rfind('/') + 1);
    }
    if (detail.empty())
        nix::forEachNode(*magma->value, [&](const Node& node) {
            if (detail.empty() && node.kind == NodeKind::Path && node.text.ends_with(".patch"))
                detail = std::string(node.text.substr(node.text.rfind('/') + 1));
            return detail.empty();
        });
    found.push_back({OverlayKind::MagmaPatch, detail, overlay});
}

// Torch upgrade: torch = pprev.torch.overrideAttrs (… version = "2.10.0" …)
void OverlayReader::readTorchUpgrade(SourceRange overlay, std::vector<OverlayFact>& found)
{
    for (const BindingRecord& binding : m_walk.bindings()) {
        if (!binding.value || (binding.last != "torch" && binding.last != "pytorch") ||
            !within(overlay, binding.key->range))
            continue;
        std::optional<Fact<std::string>> version;
        for (const BindingRecord& inner : m_walk.bindings()) {
            if (inner.last != "version" || !inner.key || !within(binding.value, inner.key->range))
                continue;
            if (auto text = m_context.textAt(inner.source)) {
                version = Fact<std::string>{text->text, text->range};
                break;
            }
        }
        if (version) {
            found.push_back({OverlayKind::TorchUpgrade, version->value, overlay});
            if (!m_torchVersion)
                m_torchVersion = version;
            return;
        }
    }
}

void OverlayReader::readOverlayFacts()
{
    for (const SourceRange overlay : m_context.overlays()) {
        std::vector<OverlayFact> found;
        readCudaSwitch(overlay, found);
        readMagmaPatch(overlay, found);
        readTorchUpgrade(overlay, found);
        if (found.empty())
            found.push_back({OverlayKind::Other, std::string(), overlay});
        m_facts.overlays.insert(m_facts.overlays.end(), found.begin(), found.end());
    }
    overlaysOfModules();
}

// `overlays = [ ov.cuda13 ov.magma ];` with the functions in a module: what each does is
// read there. Such an overlay has no range in the recipe; it is copied with the reference.
void OverlayReader::overlaysOfModules()
{
    nix::ModuleLoader* modules = m_context.modules();
    if (!modules || m_context.depth() >= 2)
        return;
    for (const nix::Origin& origin : m_moduleOverlays) {
        if (m_context.inThisFile(origin))
            continue;
        const nix::SyntaxTree* module = modules->load(origin.file);
        if (!module || !module->root())
            continue;
        RecipeFacts facts;
        facts.path = std::string(origin.file);
        FactContext nested(*module, facts, modules, m_context.depth() + 1);
        nested.walk(*module->root());
        nested.setOverlays({origin.range});
        OverlayReader(nested).readOverlayFacts();
        for (OverlayFact& overlay : facts.overlays) {
            overlay.range = SourceRange{};
            m_facts.overlays.push_back(std::move(overlay));
        }
    }
}

} // namespace rg
