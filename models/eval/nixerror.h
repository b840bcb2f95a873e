#pragma once

// Reads what `nix-instantiate` wrote when an evaluation failed: Nix's message and the
// innermost position of the trace that lies in the repository. Nix 2.8 writes the message and
// its position first and the trace outward after it; newer Nix writes the trace from the
// outside in and the message with its position last. Both are read the same way.

#include "eval/evaluatedrecipe.h"

#include <string>
#include <string_view>

namespace rg {

class NixError
{
public:
    // A message longer than this many lines or bytes is cut, with a note saying so.
    static constexpr int maxLines = 12;
    static constexpr size_t maxBytes = 4000;

    // `repoRoot` is absolute, without a trailing '/'.
    static NixErrorReport read(std::string_view output, const std::string& repoRoot);

    // Nix names no position in the repository when the failure is in nixpkgs' own code (a
    // removed alias that throws, an attribute evaluated for the derivation): then the place the
    // recipe selects the failing attribute is the best one to show. Finds the longest tail of
    // `report.attribute` with two or more parts written in `recipeText` and sets the position;
    // false when none is written there.
    static bool locateAttribute(NixErrorReport& report, std::string_view recipeText,
                                const std::string& recipePath);
};

} // namespace rg
