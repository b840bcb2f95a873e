#pragma once

// The README's variant-matrix section, regenerated from the variants a repository has: counts
// per accelerator and, per CUDA version, a table of GPU archs × ISAs, then the CPU-only and
// Darwin variants. It lives between two marker comments so that regenerating it touches
// nothing else of the README.

#include "matrix/catalog.h"
#include "matrix/variantname.h"

#include <string>
#include <vector>

namespace rg {

class ReadmeMatrix
{
public:
    static constexpr const char* beginMarker = "<!-- recipegrid:matrix -->";
    static constexpr const char* endMarker = "<!-- /recipegrid:matrix -->";

    // The section's Markdown for `variants` (one package; suffixed names are ignored, a cell
    // named twice counts once), markers included, ending in a newline. A function of the
    // names alone, in a fixed order, so regenerating an unchanged repository gives the same
    // bytes and a README diff shows only what changed in the matrix:
    //   **44 variants** for Python 3.13: 40 CUDA 13.0 (36 x86-64, 4 ARM) · 4 CPU-only
    // then per CUDA version (per Python too when there are several) an arch × ISA table of ✓,
    // a CPU-only ISA × Python table and the Darwin names, each only when present. `catalog`
    // (the analysis's) orders archs, ISAs and Pythons and tells each ISA's CPU family.
    static std::string section(const std::vector<VariantName>& variants, const Catalog& catalog);
    // `readme` with the section replaced by `section`: from the last begin marker through the
    // first end marker after it (and that line's break); every other byte is kept. When there
    // is no such pair (no markers, only one, or the end marker before the begin marker) the
    // section is appended after exactly one blank line instead, so that text between stray
    // markers is never taken for an old section and lost. Updating twice changes nothing more.
    static std::string updated(const std::string& readme, const std::string& section);
};

} // namespace rg
