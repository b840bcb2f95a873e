#pragma once

// The analyzer's verdict on a whole recipe repository: one entry per variant that is either
// expected by the spec or present as a file, each with a cell status and its findings.

#include "analysis/evaluationsummary.h"
#include "analysis/finding.h"
#include "facts/recipefacts.h"
#include "matrix/cellid.h"
#include "matrix/matrixspec.h"
#include "matrix/variantexpectation.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rg {

// Gap: without a spec, a cell the recipes around it suggest but none builds (a lighter
// "missing" that is never a warning). Unchecked: a recipe with no error found whose meaning
// could not be read (nested deeper than the parser follows), so whether it is sound is unknown;
// "ok" would claim what was never checked.
enum class CellStatus { Ok, Broken, Redundant, Missing, Unexpected, Impossible, Gap, Unchecked };
inline constexpr int cellStatusCount = 8;

std::string_view cellStatusId(CellStatus status); // "ok", "broken", …

// One cell of the matrix as the analysis found it: its identity, what its recipe must look
// like, the recipe that builds it (if any), the findings on it and its status.
struct Cell
{
    CellId id;           // package, Python, accelerator, CUDA, arch, ISA
    VariantName variant; // from the file name, or the spec's canonical name if missing
    std::string package; // the package the cell belongs to ("pytorch" for pytorch210-…)
    // What the cell's recipe must look like and whether the cell can exist: the expectation its
    // recipe was judged against (with its group), or for an empty cell the spec's alone.
    std::shared_ptr<const VariantExpectation> expectation;
    CellStatus status = CellStatus::Missing;
    bool expected = false;                     // the spec asks for it
    std::shared_ptr<const RecipeFacts> recipe; // null when missing
    std::vector<Finding> findings;             // most severe first
    std::string reason; // one line for tooltips: "pin differs; missing overlays"
    // RecipeContentKey::toString() of the recipe and the files it imports: what build state is
    // looked up by. "" without a recipe, and until keyed (RepositorySession keys each scan on
    // its worker thread; the analyzer alone does not).
    std::string contentKey;
    // Nix's answer for the recipe, when it was evaluated and its content has not changed since
    // (EvaluationMerge::apply sets it); null otherwise.
    std::shared_ptr<const EvaluationSummary> evaluation;

    int count(Severity severity) const; // findings of that severity
    const Finding* firstError() const;  // null when the recipe has no error
    // The byte ranges of the recipe its findings point at: what a fix may change.
    std::vector<nix::SourceRange> namedRanges() const;
};

// Recipes of one package, accelerator (CUDA version, CPU-only, Darwin) and pin: the unit
// that shares a canonical recipe and an overlay set.
struct RecipeGroup
{
    GroupProfile profile;
    std::vector<std::string> files; // recipe paths, sorted
};

struct Analysis
{
    MatrixSpec spec;                         // loaded, or inferred (spec.isInferred())
    Catalog catalog = Catalog::builtin();    // extended by what the spec declares
    std::optional<SpecError> specError;      // spec file present but invalid (then inferred)
    std::string specPath;                    // relative path of the spec file used, "" if none
    std::vector<Cell> cells;                 // expected variants first in spec order, then extras
    std::vector<RecipeGroup> groups;         // by package, accelerator, pin
    std::vector<std::string> files;          // every recipe file scanned (paths)
    std::vector<std::string> modules;        // the repository's modules recipes read (paths)
    std::vector<RecipeFacts> unnamed;        // recipes whose file name is not a variant name
    std::vector<Finding> repositoryFindings; // not tied to one variant (spec, unnamed files)
    std::string sourceError; // the recipe directory could not be listed (then no cells)
    std::string recipeDir;   // the directory that was scanned, relative to the root

    // What `name`'s recipe must look like under this analysis's spec and catalog. `group` is
    // the recipes it is judged among, from which an inferred spec takes pins and overlays; an
    // empty cell has none. The one place an expectation is made.
    std::shared_ptr<const VariantExpectation> expectationFor(const VariantName& name,
                                                             const GroupProfile* group = {}) const;

    // Shorthands for MatrixCounts::of(*this) (analysis/matrixcounts.h), which says what each
    // count counts: every cell by status, the expected ones, the summary line.
    std::array<int, cellStatusCount> counts() const;
    int expectedCount() const;
    int findingCount() const;
    // "44 expected (1 ok · 2 broken · 41 missing) · 3 not expected (2 broken · 1 redundant)"
    std::string summary() const;
};

} // namespace rg
