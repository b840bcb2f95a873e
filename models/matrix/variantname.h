#pragma once

// A variant's identity as its file name spells it. Reads every naming form seen in recipe
// repositories and writes the canonical one:
//   pytorch-python313-cuda13_0-sm120-avx512   (canonical GPU)
//   pytorch-python313-cpu-avx2                (canonical CPU-only)
//   pytorch-python313-darwin-mps              (canonical Darwin)
//   pytorch-py313-sm90-avx512                 (legacy: py313, no CUDA component)
//   pytorch-python313-cuda13_0-sm120-avx512-magma / …-nightly   (extra suffixes)
//   pytorch210-python313-…, torchvision-python313-…             (any package word)
//   pytorch-python313-cuda12_8-sm90, pytorch-python313-cpu       (no ISA: a generic build)
//
// The vocabulary is open: any smNN, cudaX_Y, pythonNN / pyNN and ISA word parses, whether
// the catalog knows it or not (judging that is the catalog's business, not the name's).
//
// ISA or suffix? The word after the accelerator (cpu / darwin / smNN) is the ISA, unless it
// is one of the suffix words below (then the name has no ISA and that word starts the
// suffixes); every word after the ISA is a suffix. So "…-sm90-arm64" has ISA "arm64",
// "…-sm90-magma" has no ISA and suffix "magma", "…-sm90-avx2-mkl" has ISA "avx2" and suffix
// "mkl". The list is short and fixed because a suffix in the ISA position is rare, while an
// ISA RecipeGrid has never heard of must not be mistaken for a suffix: a name with no ISA
// and a suffix outside the list ("…-sm90-mkl") reads as ISA "mkl".
//   suffix words: magma nightly dev test debug experimental old new backup wip tmp

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg {

enum class Accelerator { Cuda, Cpu, Darwin };

// Ids used in the spec JSON, CLI output and UI: "cuda" / "cpu" / "darwin".
std::string_view acceleratorId(Accelerator accelerator);
std::optional<Accelerator> acceleratorFromId(std::string_view id);

struct VariantName
{
    std::string package; // "pytorch", "pytorch210", "torchvision"
    std::string python;  // digits: "313"
    Accelerator accelerator = Accelerator::Cpu;
    std::string cuda;    // dotted "13.0"; empty when the name has no CUDA component
    std::string gpuArch; // "sm120"; empty unless accelerator == Cuda
    std::string isa;     // normalized file spelling: "avx512", "armv8_2", "mps"; "" = generic build
    std::string isaAsWritten;          // "armv8.2" when the name spelled it so (a naming finding)
    std::vector<std::string> suffixes; // "magma", "nightly": anything after the ISA
                                       // (or the suffix word that stands in its place)
    bool legacyForm = false;           // "py313" and/or no CUDA component

    // `stem` is a file name without ".nix" (a leading directory is ignored).
    static std::optional<VariantName> parse(std::string_view stem);
    // The variant a sibling recipe's import path names (`./pytorch-…-avx512.nix`); nullopt for
    // a module in a subdirectory or a file name that names no variant.
    static std::optional<VariantName> ofSiblingPath(std::string_view path);
    // Whether `word` is one of the suffix words that may stand where the ISA would be.
    static bool isSuffixWord(std::string_view word);

    // The canonical spelling, with suffixes: "pytorch-python313-cuda13_0-sm120-avx512-magma".
    std::string toString() const;
    // The matrix point without package or suffixes: "python313-cuda13_0-sm120-avx512"
    // ("python313-cuda12_8-sm90" for a generic build).
    // Two recipes with the same cell key compete for one grid cell.
    std::string cellKey() const;
    // Whether a recipe of this name may build on the recipe named `base` (a companion on its
    // torch, a wrapper on what it wraps): the same Python, accelerator and arch, and the same
    // CUDA version and ISA where `base` names them (a generic or legacy base serves every one).
    bool matchesBase(const VariantName& base) const;

    friend bool operator==(const VariantName&, const VariantName&) = default;
};

} // namespace rg
