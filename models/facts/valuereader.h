#pragma once

// Reads the plain values a recipe states by name (pname, version, GPU arch, meta)
// and its switches (cudaSupport, the ways MAGMA is turned off). Values inside overlays
// describe the package set they rebuild, so they are left out.

#include "facts/factcontext.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg {

class ValueReader
{
public:
    explicit ValueReader(FactContext& context);

    // `overlayTorchVersion` is the version an overlay upgrades torch to, which a top-level
    // `version` overrides.
    void read(const std::optional<Fact<std::string>>& overlayTorchVersion);

private:
    std::optional<Fact<std::string>> stringFact(std::string_view last, bool exactPath = false,
                                                bool lastOne = false) const;
    std::optional<Fact<std::vector<std::string>>> listFact(std::string_view last,
                                                           bool exactPath = false) const;
    void readSwitches();
    bool isFetcherArgument(const BindingRecord& binding) const;

    FactContext& m_context;
    RecipeFacts& m_facts;
    const RecipeWalk& m_walk;
};

} // namespace rg
