#pragma once

// Every rule RecipeGrid checks: its stable id, severity, fix kind, a description (what the
// CLI's SARIF output and the UI's help show) and the check that reports it. Checks look at one
// recipe against the spec and the catalog, at the recipes together, at a cell as the cell
// assignment places it, or at the spec; they live in analysis/rules/, grouped by what they
// judge.

#include "analysis/finding.h"
#include "facts/recipefacts.h"
#include "matrix/catalog.h"
#include "matrix/matrixspec.h"
#include "matrix/variantexpectation.h"

#include <string_view>
#include <variant>
#include <vector>

namespace rg {

// Stable rule ids (SARIF, JSON output, filters). Severity means: error = will not evaluate or
// build, or builds a different variant than its name says; warning = builds, but risky or
// deprecated; info = style and consistency.
namespace rule {
inline constexpr std::string_view unreadableFile = "unreadable-file";
inline constexpr std::string_view symlinkOutside = "symlink-outside";
inline constexpr std::string_view notUtf8 = "not-utf8";
inline constexpr std::string_view oversizedFile = "oversized-file";
inline constexpr std::string_view syntaxError = "syntax-error";
inline constexpr std::string_view nestedTooDeep = "nested-too-deep";
inline constexpr std::string_view notAVariantName = "not-a-variant-name";
inline constexpr std::string_view naming = "naming";
inline constexpr std::string_view unknownToCatalog = "unknown-to-catalog";
inline constexpr std::string_view nonstandardSuffix = "nonstandard-suffix";
inline constexpr std::string_view duplicateVariant = "duplicate-variant";
inline constexpr std::string_view publishedAlias = "published-alias";
inline constexpr std::string_view pinNotFull = "pin-not-full";
inline constexpr std::string_view pinMismatch = "pin-mismatch";
inline constexpr std::string_view pinDiffersFromGroup = "pin-differs-from-group";
inline constexpr std::string_view pinMissing = "pin-missing";
inline constexpr std::string_view invalidHash = "invalid-hash";
inline constexpr std::string_view unpinnedNixpkgs = "unpinned-nixpkgs";
inline constexpr std::string_view missingOverlay = "missing-overlay";
inline constexpr std::string_view overlayDiffersFromGroup = "overlay-differs-from-group";
inline constexpr std::string_view cudaVersionMismatch = "cuda-version-mismatch";
inline constexpr std::string_view deprecatedTorchAttribute = "deprecated-torch-attribute";
inline constexpr std::string_view fromScratchPattern = "from-scratch-pattern";
inline constexpr std::string_view magmaDisabled = "magma-disabled";
inline constexpr std::string_view pnameMismatch = "pname-mismatch";
inline constexpr std::string_view pnamePrefix = "pname-prefix";
inline constexpr std::string_view gpuArchMismatch = "gpu-arch-mismatch";
inline constexpr std::string_view gpuArchNotation = "gpu-arch-notation";
inline constexpr std::string_view gpuArchExtra = "gpu-arch-extra";
inline constexpr std::string_view cpuFlagsMismatch = "cpu-flags-mismatch";
inline constexpr std::string_view cpuFlagsWeaker = "cpu-flags-weaker";
inline constexpr std::string_view cpuFlagsBeyond = "cpu-flags-beyond";
inline constexpr std::string_view platformsMismatch = "platforms-mismatch";
inline constexpr std::string_view platformsWider = "platforms-wider";
inline constexpr std::string_view cpuRecipeEnablesCuda = "cpu-recipe-enables-cuda";
inline constexpr std::string_view cpuRecipeCudaInputs = "cpu-recipe-cuda-inputs";
inline constexpr std::string_view pythonVersionMismatch = "python-version-mismatch";
inline constexpr std::string_view pythonDefaultMismatch = "python-default-mismatch";
inline constexpr std::string_view torchVersionMismatch = "torch-version-mismatch";
inline constexpr std::string_view importedCellMismatch = "imported-cell-mismatch";
inline constexpr std::string_view importedFileMissing = "imported-file-missing";
inline constexpr std::string_view valuesNotRead = "values-not-read";
inline constexpr std::string_view cudaBelowMinimum = "cuda-below-minimum";
inline constexpr std::string_view packageBelowMinimumArch = "package-below-minimum-arch";
inline constexpr std::string_view impossiblePairing = "impossible-pairing";
inline constexpr std::string_view missingVariant = "missing-variant";
inline constexpr std::string_view gap = "gap";
inline constexpr std::string_view unexpectedVariant = "unexpected-variant";
inline constexpr std::string_view specInvalid = "spec-invalid";
inline constexpr std::string_view specInferred = "spec-inferred";
inline constexpr std::string_view specAsksImpossible = "spec-asks-impossible";
// From evaluating the recipe with Nix against its pin (eval/deepcheck): the final judge where
// the static reading and Nix disagree.
inline constexpr std::string_view evalError = "eval-error";
inline constexpr std::string_view evalArchMismatch = "eval-arch-mismatch";
inline constexpr std::string_view evalArchExtra = "eval-arch-extra";
inline constexpr std::string_view evalCudaMismatch = "eval-cuda-mismatch";
inline constexpr std::string_view evalCudaInCpuBuild = "eval-cuda-in-cpu-build";
inline constexpr std::string_view evalPythonMismatch = "eval-python-mismatch";
inline constexpr std::string_view evalPlatformsMismatch = "eval-platforms-mismatch";
inline constexpr std::string_view evalIsaMismatch = "eval-isa-mismatch";
inline constexpr std::string_view evalPnameMismatch = "eval-pname-mismatch";
inline constexpr std::string_view evalOverrulesStatic = "eval-overrules-static";
} // namespace rule

class RecipeCheck;
struct CellCheck;
struct RepositoryCheck;
struct SpecCheck;

using RecipeRule = void (*)(RecipeCheck&);
using RepositoryRule = void (*)(RepositoryCheck&);
using CellRule = void (*)(CellCheck&);
using SpecRule = void (*)(SpecCheck&);
// The eval-* rules are reported from Nix's answer, by DeepCheck (eval/deepcheck) in a library
// above this one, which lists them as DeepCheck::rulesReported().
struct NixAnswer
{
    bool operator==(const NixAnswer&) const = default;
};
// What reports a rule's findings. One check may report several rules: those it decides
// between (pin-mismatch against a spec file, pin-differs-from-group without one). Monostate
// only as the "no check" a row must not have.
using RuleCheck =
    std::variant<std::monostate, RecipeRule, RepositoryRule, CellRule, SpecRule, NixAnswer>;

struct RuleInfo
{
    std::string_view id; // "pin-mismatch"
    Severity severity = Severity::Error;
    FixKind fix = FixKind::None;
    std::string_view title;       // short phrase for one-line reasons: "pin differs"
    std::string_view description; // one sentence for help texts and SARIF
    RuleCheck check;
};

class RuleSet
{
public:
    static const std::vector<RuleInfo>& rules();
    static const RuleInfo* rule(std::string_view id); // nullptr for an unknown id

    // Every check, each kind in the order it runs.
    static const std::vector<RuleCheck>& checks();

    // Findings of the per-recipe rules, most severe first, against the expectation of the
    // recipe's cell (Analysis::expectationFor). `expected` is null when `facts.variant` is empty:
    // then only the rules that need no variant run. `builtBy` is the recipe that already builds
    // the cell when this one is a second recipe of it (CellAssignment::builtBy).
    static std::vector<Finding> check(const RecipeFacts& facts, const VariantExpectation* expected,
                                      const Catalog& catalog, const RecipeFacts* builtBy = nullptr);
    // The rules across recipes, the rules of a placed cell, the rules of the spec.
    static void check(RepositoryCheck& context);
    static void check(CellCheck& context);
    static void check(SpecCheck& context);

    // A finding of rule `id` with the rule's severity and fix, positioned by `facts`.
    static Finding make(std::string_view id, const RecipeFacts& facts, std::string message,
                        nix::SourceRange range = {});
    // Most severe first, then by position.
    static void sort(std::vector<Finding>& findings);
};

} // namespace rg
