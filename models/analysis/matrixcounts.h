#pragma once

// How many cells of an analysis have each status, split the way every summary reads them:
// the cells the spec expects (inferred from the recipes without one), the recipes beside
// them, and the gaps. The status bar, the Branches dock and `check` print these, so each
// count says which cells it counts and the numbers of one line add up.

#include "analysis/analysis.h"

#include <array>
#include <string>

namespace rg {

struct MatrixCounts
{
    std::array<int, cellStatusCount> expected{}; // by status: the cells the spec expects
    // By status: recipes outside the expected cells (redundant copies, unexpected variants,
    // companions an inferred spec does not cover).
    std::array<int, cellStatusCount> notExpected{};
    int gaps = 0; // no spec: cells the recipes around them suggest, without a recipe

    static MatrixCounts of(const Analysis& analysis);

    int expectedTotal() const;
    int notExpectedTotal() const;
    std::array<int, cellStatusCount> byStatus() const; // every cell, gaps included
    // "44 expected (1 ok · 2 broken · 41 missing) · 3 not expected (2 broken · 1 redundant)"
    std::string summary() const;
};

} // namespace rg
