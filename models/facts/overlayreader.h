#pragma once

// Finds the overlays a recipe applies (`overlays = [ … ]`, `pkgs.extend`, `appendOverlays`,
// a Python set's `packageOverrides`, compositions of them) and reads what each one does: a
// CUDA package-set switch, a MAGMA patch, a torch upgrade, or something else.

#include "facts/factcontext.h"

#include <optional>
#include <vector>

namespace rg {

class OverlayReader
{
public:
    explicit OverlayReader(FactContext& context);

    // Records the overlay functions in the context, so other readers can tell them apart.
    void findOverlays();
    // Fills `overlays` (and a CUDA set an overlay switches to).
    void readOverlayFacts();

    // The torch version an overlay upgrades to: the version built unless the recipe sets one.
    const std::optional<Fact<std::string>>& torchVersion() const { return m_torchVersion; }

private:
    std::optional<nix::SourceRange> overlayRange(const nix::Value& overlay,
                                                 const std::optional<nix::Origin>& written) const;
    void addOverlay(std::optional<nix::SourceRange> range);
    void addOverlayValue(const nix::Value& overlay, const std::optional<nix::Origin>& written,
                         int depth = 0);
    const nix::Node* composition(const nix::Value& overlay,
                                 const std::optional<nix::Origin>& written) const;
    void addOverlayElements(const nix::Value& list, int depth);

    void readCudaSwitch(nix::SourceRange overlay, std::vector<OverlayFact>& found);
    void readMagmaPatch(nix::SourceRange overlay, std::vector<OverlayFact>& found) const;
    void readTorchUpgrade(nix::SourceRange overlay, std::vector<OverlayFact>& found);
    void overlaysOfModules();

    FactContext& m_context;
    RecipeFacts& m_facts;
    const RecipeWalk& m_walk;
    std::vector<nix::SourceRange> m_overlays;
    std::vector<nix::Origin> m_moduleOverlays; // overlay functions written in a module
    std::optional<Fact<std::string>> m_torchVersion;
};

} // namespace rg
