#pragma once

// Decides which grid cell each recipe stands for and each cell's status: the status policy
// in one place. A cell is a matrix point of one package; a cell is broken only when one of
// its findings is an error (warnings are shown on an ok cell); a second recipe of a cell, or
// a suffixed one, is redundant; without a spec, cells the recipes around them suggest are
// gaps, never missing.

#include "analysis/analysis.h"
#include "matrix/catalog.h"
#include "matrix/matrixspec.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace rg {

// Per recipe, the expectation it was judged against; null for a recipe that is no variant.
using RecipeExpectations = std::vector<std::shared_ptr<const VariantExpectation>>;

class CellAssignment
{
public:
    CellAssignment(const MatrixSpec& spec, const Catalog& catalog);

    // Fills analysis.cells (expected cells first, in spec order), analysis.unnamed and the
    // repository findings of unnamed files. `findings[i]` are recipe i's own findings and
    // `expectations[i]` what it was judged against; empty cells get analysis.expectationFor.
    // A cell is impossible when it cannot exist and the spec does not ask for it (a spec that
    // asks decides), else broken when a finding is an error.
    void assign(const std::vector<std::shared_ptr<const RecipeFacts>>& recipes,
                std::vector<std::vector<Finding>> findings, RecipeExpectations expectations,
                Analysis& analysis) const;

    // The cell `name` stands for: its point in the matrix of the package it belongs to.
    CellId cellOf(const VariantName& name) const;

    // Per recipe, the recipe that stands for its cell when it is another recipe of that cell
    // (and does not publish that build under another name): what its suffix is reported
    // against. Null otherwise. The same choice assign() makes.
    std::vector<const RecipeFacts*>
    builtBy(const std::vector<std::shared_ptr<const RecipeFacts>>& recipes) const;

    // After findings of a cell with a recipe changed (an evaluation's were added): their
    // order, the reason line and the ok / broken status follow them (an unexpected recipe
    // with an error becomes broken, as assign() places it); other statuses stay.
    static void refresh(Cell& entry);

private:
    class Run;

    struct Primaries
    {
        std::unordered_map<CellId, size_t, CellIdHash> primary;   // cell → its recipe
        std::unordered_map<CellId, size_t, CellIdHash> versioned; // primary with CUDA, without
    };
    Primaries primaries(const std::vector<std::shared_ptr<const RecipeFacts>>& recipes) const;
    CellId withoutCuda(VariantName name) const;

    Cell entryFor(const VariantName& name) const; // package and cell filled in
    void addGaps(Analysis& analysis) const;

    const MatrixSpec& m_spec;
    const Catalog& m_catalog;
};

} // namespace rg
