#pragma once

// Sorts a branch's recipes into groups — package × accelerator (CUDA version, CPU-only,
// Darwin) × nixpkgs pin — and profiles each: its dominant overlay set, the dominant pin of its
// package and accelerator, and its canonical recipe with the reason it was chosen. Overlays
// and pins belong to a group: a newer pin or CUDA version may need none of an older group's
// patches, so nothing is voted across the whole branch.

#include "analysis/analysis.h"
#include "matrix/catalog.h"
#include "matrix/matrixspec.h"

#include <memory>
#include <string>
#include <vector>

namespace rg {

class RecipeGrouping
{
public:
    // `bases[i]` is the recipe recipe i wraps (-1 if none): a wrapper's pin and overlays are
    // its base's.
    // `broken[i]` marks a recipe with errors: it is the canonical one only when its group has
    // no other candidate, since the others are cloned and judged from it.
    RecipeGrouping(const std::vector<std::shared_ptr<const RecipeFacts>>& recipes,
                   const std::vector<int>& bases, const MatrixSpec& spec, const Catalog& catalog,
                   const std::vector<bool>& broken = {});

    const std::vector<RecipeGroup>& groups() const { return m_groups; }
    // The group of recipe i, or null for files without a variant name.
    const GroupProfile* profileOf(size_t recipe) const;

    // The package a file-name package word belongs to: a spec's own words stay as they are,
    // a version tail is dropped from a package the catalog knows ("pytorch210" → "pytorch").
    static std::string packageOf(const std::string& word, const MatrixSpec& spec,
                                 const Catalog& catalog);
    // "CUDA 13.0", "CUDA (unversioned name)", "CPU-only", "Darwin"
    static std::string acceleratorLabel(const VariantName& name);

private:
    struct Inputs;
    void profileMembers(const Inputs& in, int group);
    static void chooseCanonical(const Inputs& in, const std::vector<size_t>& members,
                                GroupProfile& profile);

    std::vector<RecipeGroup> m_groups;
    std::vector<int> m_groupOf;
};

} // namespace rg
