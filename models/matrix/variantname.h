#pragma once

// A variant's identity as its file name spells it. Reads every naming form seen in recipe
// repositories and writes the canonical one:
//   pytorch-python313-cuda13_0-sm120-avx512   (canonical GPU)
//   pytorch-python313-cpu-avx2                (canonical CPU-only)
//   pytorch-python313-darwin-mps              (canonical Darwin)
//   pytorch-py313-sm90-avx512                 (legacy: py313, no CUDA component)
//   pytorch-python313-cuda13_0-sm120-avx512-magma / …-nightly   (extra suffixes)
//   pytorch210-python313-…, torchvision-python313-…             (any package word)

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
    std::string cuda;                  // dotted "13.0"; empty when the name has no CUDA component
    std::string gpuArch;               // "sm120"; empty unless accelerator == Cuda
    std::string isa;                   // normalized file spelling: "avx512", "armv8_2", "mps"
    std::string isaAsWritten;          // "armv8.2" when the name spelled it so (a naming finding)
    std::vector<std::string> suffixes; // "magma", "nightly": anything after the ISA
    bool legacyForm = false;           // "py313" and/or no CUDA component

    // `stem` is a file name without ".nix" (a leading directory is ignored).
    static std::optional<VariantName> parse(std::string_view stem);

    // The canonical spelling, with suffixes: "pytorch-python313-cuda13_0-sm120-avx512-magma".
    std::string toString() const;
    // The matrix point without package or suffixes: "python313-cuda13_0-sm120-avx512".
    // Two recipes with the same cell key compete for one grid cell.
    std::string cellKey() const;

    friend bool operator==(const VariantName&, const VariantName&) = default;
};

} // namespace rg
