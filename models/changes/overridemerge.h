#pragma once

// Regeneration of a derived recipe (`(import ./<base>.nix { … }).override { … }`), which
// writes only what differs from its base: the arguments the regenerated recipe overrides and
// the recipe does not are added to the recipe's own override set, in its layout; nothing the
// recipe writes changes. An argument both write differently is left to the line merge, which
// refuses it.

#include <optional>
#include <string>

namespace rg {

class OverrideMerge
{
public:
    // The recipe with the missing override arguments added; nullopt when either text has no
    // single `.override` set, or the regenerated one adds nothing.
    static std::optional<std::string> merge(const std::string& ours, const std::string& theirs);
};

} // namespace rg
