#pragma once

// The shapes a recipe can take, (a) to (e) below, and the overlays a pattern requires.

#include <string>
#include <string_view>
#include <vector>

namespace rg {

enum class PatternKind {
    Unknown,
    PinnedOverlays, // (a) import of a pinned nixpkgs with overlays
    PinnedPlain,    // (b) import of a pinned nixpkgs, no overlays
    CallPackage,    // (c) a function of python3Packages, cudaPackages, … (a callPackage file)
    FromScratch,    // (d) buildPythonPackage / mkDerivation of torch itself
    Wrapper,        // (e) callPackage of another file
};

enum class OverlayKind {
    CudaPackageSet, // cudaPackages = final.cudaPackages_13
    MagmaPatch,     // magma.overrideAttrs adding cuda-13.0-clockrate-fix.patch
    TorchUpgrade,   // torch.overrideAttrs setting a new version / src
    Other,
};

// Stable ids used in the spec JSON, CLI output and UI: "pinned-overlays", "cuda-package-set", …
std::string_view patternKindId(PatternKind kind);
PatternKind patternKindFromId(std::string_view id); // Unknown for anything else
std::string_view overlayKindId(OverlayKind kind);
OverlayKind overlayKindFromId(std::string_view id); // Other for anything else

struct RecipePattern
{
    PatternKind kind = PatternKind::Unknown;
    std::vector<OverlayKind> overlays; // required, in order
    std::string canonicalRecipe;       // file name relative to the recipe dir; may be empty

    friend bool operator==(const RecipePattern&, const RecipePattern&) = default;
};

} // namespace rg
