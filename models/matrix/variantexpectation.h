#pragma once

// What one variant must look like, computed once from its name, the matrix spec, the catalog
// and (when the spec is inferred) the recipes of its group: the one description the rules
// check against, the grid hatches impossible cells by, and generation writes from.

#include "matrix/catalog.h"
#include "matrix/matrixspec.h"
#include "matrix/recipepattern.h"
#include "matrix/variantname.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rg {

// What the recipes of one group (package × accelerator/CUDA version × pin) have in common,
// read from the files. An inferred spec takes pins and overlays from here, since a newer pin
// or CUDA version may need none of an older group's patches.
struct GroupProfile
{
    std::string label;          // "pytorch · CUDA 12.8 · 0182a36"
    std::string pin;            // the group's pin, "" when its recipes pin none
    std::string dominantPin;    // the most used pin of package × accelerator
    int dominantPinCount = 0;   // recipes of package × accelerator on it
    int acceleratorMembers = 0; // recipes of package × accelerator
    int members = 0;
    std::vector<OverlayKind> overlays; // what most of the group's recipes carry
    int overlaysCount = 0;             // how many carry exactly that set
    std::string canonical;             // file name of the group's canonical recipe
    std::string canonicalWhy;          // "the spec names it", "most complete pattern, …"
    // The form the canonical recipe writes GPU archs in, per sink ("gpuTargets" → "+PTX"), so
    // a fix writes the group's form.
    std::map<std::string, std::string> archSuffixes;
    // Which Python the pin's unversioned set (python3Packages) is, as the recipes on the
    // group's pin that select it tell by their names: file-name digits → those recipes.
    std::map<std::string, std::vector<std::string>> defaultPythonUsers;
};

struct VariantExpectation
{
    VariantName name;
    bool fromSpecFile = false; // false: the spec was inferred, expectations are the group's
    bool askedFor = false;     // the spec file asks for this variant (it then decides)

    std::string python;     // dotted "3.13", the catalog's or derived from the name
    std::string archNumber; // "121"; "" unless a CUDA variant
    std::map<std::string, std::string> archSuffixes; // the group's form per sink (see above)
    std::optional<GpuArch> arch; // catalog entry; nullopt when the catalog does not know it
    const CpuIsa* isa = nullptr; // nullptr: a generic build (no ISA) or a word not in the catalog
    std::string platform;        // "x86_64-linux"; "" when the ISA is not known
    const PackageInfo* package = nullptr; // the catalog's limits of the name's package

    std::optional<std::string> pin;
    std::string pinSource; // "the spec's pin for CUDA 13.0" / "the group's dominant pin (7 of 9)"
    std::optional<RecipePattern> pattern;
    std::string patternSource;
    // The Python the pin's python3Packages is, when most recipes on the pin that select it
    // are named for one version and for this name's version fewer do: "313", with a phrase.
    std::optional<std::string> defaultPython;
    std::string defaultPythonSource;
    std::string pname;
    std::string torchVersion;

    Feasibility feasibility; // whether the cell can exist at all (Catalog::feasibility)

    // The spec file asks for it though it cannot work: it stays expected, as the spec decides,
    // and says why (feasibility.why()) instead of being impossible.
    bool askedForImpossible() const { return askedFor && !feasibility.possible(); }

    // `catalog` should be the spec's effective catalog (built-in plus what the spec declares).
    static VariantExpectation of(const VariantName& name, const MatrixSpec& spec,
                                 const Catalog& catalog, const GroupProfile* group = nullptr);
};

} // namespace rg
