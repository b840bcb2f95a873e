#pragma once

// Which variants a branch is meant to have and what each must look like. Stored as JSON in
// the recipe repository (default `.flox/recipegrid.json`, schema in resources/); inferred
// from the recipes themselves when absent. Schema (version 1):
//   {
//     "$schema": "…",                    // optional editor hint, ignored
//     "schema": 1,
//     "package": "pytorch",              // file-name package word
//     "extraPackages": ["torchvision"],  // optional; more package words over the same matrix
//     "recipeDir": ".flox/pkgs",
//     "torchVersion": "2.10.0",          // optional
//     "pnamePrefix": "pytorch210-",      // optional; pname = prefix + name without package
//     "catalog": {                        // optional; extends the built-in catalog
//       "gpuArchs": [ { "id": "sm130", "number": "130", "dotted": "13.0", … } ],
//       "cudas": […], "pythons": […], "isas": […], "packages": […] },  // as in catalog.json
//     "pins": { "13.0": "<40 hex>", "cpu": "<40 hex>", "darwin": "…", "default": "…" },
//     "matrix": [                         // union of cartesian products
//       { "python": ["3.13"], "accelerator": "cuda", "cuda": ["13.0"],
//         "gpuArchs": ["sm80", …], "isas": ["avx2", …] },
//       { "python": ["3.13"], "accelerator": "cpu", "isas": ["avx2", …] }
//     ],
//     "exclude": [ { "gpuArch": "sm110", "isa": "avx2" } ],   // any subset of the axes
//                                                             // (and "package")
//     "patterns": {                       // by accelerator: "cuda", "cpu", "darwin"
//       "cuda": { "kind": "pinned-overlays",
//                 "overlays": ["cuda-package-set", "magma-patch", "torch-upgrade"],
//                 "canonical": "pytorch-python313-cuda13_0-sm120-avx512.nix" } }
//   }
// Strict, so typos surface: unknown or duplicate keys, values of the wrong type, archs/ISAs/
// versions the catalog does not know, pins that are not 40 lower-case hex digits are errors.
// "The catalog" is the one fromJson is given extended by the spec's own "catalog" key
// (Catalog::extendedWith), so a spec can name sm130 once it declares it; callers that judge
// recipes against the spec should use effectiveCatalog() likewise.

#include "matrix/catalog.h"
#include "matrix/recipepattern.h"
#include "matrix/variantname.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rg {

struct SpecError
{
    std::string file;
    int line = 0; // 1-based; 0 when the error is about the structure as a whole
    int column = 0;
    std::string pointer; // JSON pointer of the offending value, e.g. "/matrix/0/isas/2"
    std::string message;

    std::string toString() const; // "file:line:column: /pointer: message"
};

struct MatrixGroup
{
    std::vector<std::string> pythons; // dotted
    Accelerator accelerator = Accelerator::Cuda;
    std::vector<std::string> cudas; // dotted; empty unless Cuda
    std::vector<std::string> gpuArchs;
    std::vector<std::string> isas;

    friend bool operator==(const MatrixGroup&, const MatrixGroup&) = default;
};

struct VariantFilter
{
    std::optional<std::string> python; // dotted
    std::optional<Accelerator> accelerator;
    std::optional<std::string> cuda; // dotted
    std::optional<std::string> gpuArch;
    std::optional<std::string> isa;
    std::optional<std::string> package; // file-name package word (with extraPackages)

    bool matches(const VariantName& name) const;

    friend bool operator==(const VariantFilter&, const VariantFilter&) = default;
};

// What inference needs to know of one recipe.
struct InferenceSample
{
    VariantName name;
    std::string pin;          // first nixpkgs pin, "" when none
    std::string torchVersion; // "" when not overridden
    std::string pname;
    std::string fileName;  // "…-sm120-avx512.nix": an inferred pattern names its canonical recipe
    RecipePattern pattern; // kind and overlays observed (canonicalRecipe is not read)
};

// Whether `pin` is a full nixpkgs revision: 40 lower-case hex digits.
bool isFullRevision(std::string_view pin);

class MatrixSpec
{
public:
    static constexpr std::string_view defaultPath = ".flox/recipegrid.json";

    // Parse and validate against `catalog` extended by the spec's "catalog" key (unknown
    // archs/ISAs/versions are errors that name the pointer). `fileName` is only used in errors.
    static std::optional<MatrixSpec> fromJson(std::string_view json, const std::string& fileName,
                                              const Catalog& catalog, SpecError* error);
    static std::optional<MatrixSpec> load(const std::filesystem::path& file, const Catalog& catalog,
                                          SpecError* error);
    // Axes observed, dominant pin per CUDA version (and for CPU/Darwin), dominant torch
    // version and pname prefix. Suffixed names (-magma) do not widen the axes.
    static MatrixSpec infer(const std::vector<InferenceSample>& samples, const Catalog& catalog);

    std::string toJson() const; // pretty-printed; fromJson(toJson()) gives an equal spec

    bool isInferred() const { return m_inferred; }

    std::string package = "pytorch";
    // Further file-name package words the same matrix is built for (a repository holding
    // torchvision next to pytorch). pnamePrefix applies to `package` only.
    std::vector<std::string> extraPackages;
    std::string recipeDir = ".flox/pkgs";
    std::string torchVersion;
    std::string pnamePrefix;
    // The spec's "catalog" key as written (entries it adds to or replaces in the built-in
    // catalog); nullopt when the spec has none. toJson writes it back.
    std::optional<Catalog> catalogExtension;
    // `builtin` extended by catalogExtension: what this spec's axes were validated against.
    Catalog effectiveCatalog(const Catalog& builtin) const;
    // Key: the dotted CUDA version of a CUDA variant, "cpu", "darwin"; "default" is the
    // fallback for any variant whose own key is absent (and for legacy names without CUDA).
    std::map<std::string, std::string> pins;
    std::vector<MatrixGroup> groups;
    std::vector<VariantFilter> excludes;
    std::map<std::string, RecipePattern> patterns; // "cuda" / "cpu" / "darwin"

    // Every variant the spec expects, canonical names, package = `package` (then each of
    // `extraPackages`), no suffixes,
    // deduplicated, in a stable order.
    std::vector<VariantName> expectedVariants() const;
    bool expects(const VariantName& name) const; // suffixed names are never expected
    // Where the spec file asks for `name`: the 1-based line and column of its GPU arch (of its
    // ISA in a group without archs) in the first matrix group that covers it. {0, 0} when not
    // known: an inferred spec, one not read from text, or a name no group covers.
    std::pair<int, int> positionAskingFor(const VariantName& name) const;
    std::optional<std::string> expectedPin(const VariantName& name) const;
    const RecipePattern* patternFor(const VariantName& name) const;
    // The pname the recipe must declare: pnamePrefix + name without its package word, or the
    // canonical name itself when there is no prefix (or the name is of an extra package).
    std::string expectedPname(const VariantName& name) const;

    // Same content (whether it was inferred is not compared).
    friend bool operator==(const MatrixSpec& a, const MatrixSpec& b)
    {
        return a.package == b.package && a.extraPackages == b.extraPackages &&
               a.recipeDir == b.recipeDir && a.torchVersion == b.torchVersion &&
               a.pnamePrefix == b.pnamePrefix && a.catalogExtension == b.catalogExtension &&
               a.pins == b.pins && a.groups == b.groups && a.excludes == b.excludes &&
               a.patterns == b.patterns;
    }

private:
    // The first group covering `name` on every axis (excludes aside); groups.size() when none.
    std::size_t groupCovering(const VariantName& name) const;

    bool m_inferred = false;
    // Where each group's archs and ISAs are in the text fromJson read (line, column), element
    // by element; empty for a spec not read from text.
    struct GroupPositions
    {
        std::vector<std::pair<int, int>> gpuArchs;
        std::vector<std::pair<int, int>> isas;
    };
    std::vector<GroupPositions> m_groupPositions;
};

} // namespace rg
