#include "matrix/recipepattern.h"

#include <array>
#include <utility>

namespace rg {

namespace {

constexpr std::array<std::pair<PatternKind, std::string_view>, 6> patternIds{{
    {PatternKind::Unknown, "unknown"},
    {PatternKind::PinnedOverlays, "pinned-overlays"},
    {PatternKind::PinnedPlain, "pinned-plain"},
    {PatternKind::CallPackage, "call-package"},
    {PatternKind::FromScratch, "from-scratch"},
    {PatternKind::Wrapper, "wrapper"},
}};

constexpr std::array<std::pair<OverlayKind, std::string_view>, 4> overlayIds{{
    {OverlayKind::CudaPackageSet, "cuda-package-set"},
    {OverlayKind::MagmaPatch, "magma-patch"},
    {OverlayKind::TorchUpgrade, "torch-upgrade"},
    {OverlayKind::Other, "other"},
}};

} // namespace

std::string_view patternKindId(PatternKind kind)
{
    for (const auto& [k, id] : patternIds)
        if (k == kind)
            return id;
    return "unknown";
}

PatternKind patternKindFromId(std::string_view id)
{
    for (const auto& [k, name] : patternIds)
        if (name == id)
            return k;
    return PatternKind::Unknown;
}

std::string_view overlayKindId(OverlayKind kind)
{
    for (const auto& [k, id] : overlayIds)
        if (k == kind)
            return id;
    return "other";
}

OverlayKind overlayKindFromId(std::string_view id)
{
    for (const auto& [k, name] : overlayIds)
        if (name == id)
            return k;
    return OverlayKind::Other;
}

} // namespace rg
