#pragma once

// Built-in knowledge of the matrix axes: GPU architectures, CPU ISAs, Python and CUDA
// versions, and which pairings hardware can actually run. Loaded from resources/catalog.json.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg {

enum class CpuFamily { X86, Arm, Apple };

struct GpuArch
{
    std::string id;          // "sm90"
    std::string number;      // gpuArchNum: "90"
    std::string dotted;      // gpuArchSM: "9.0"
    std::string generation;  // "Hopper"
    std::string description; // "NVIDIA Hopper (H100, H200)"
    std::string minCuda;     // lowest CUDA that targets it, "" when any; "13.0" for sm110
    std::string maxCuda;     // highest CUDA that still targets it, "" when none; sm61: "12.9"
    bool armSoc = false;     // sm110 / sm121 only exist on ARM systems
};

struct CpuIsa
{
    std::string id;                 // file-name spelling: "avx512", "armv8_2", "mps"
    std::string description;        // "AVX-512"
    std::vector<std::string> flags; // cpuFlags
    CpuFamily family = CpuFamily::X86;
    std::string platform;             // "x86_64-linux", "aarch64-linux", "aarch64-darwin"
    std::vector<std::string> aliases; // other spellings seen in names: "armv8.2"
    // Other flag sets that mean the same ISA (seed 002 writes armv9 as "+sve+sve2", seed 003
    // as "+sve2"; armv9-a implies SVE, so both are right).
    std::vector<std::vector<std::string>> equivalentFlags;

    // Whether a recipe's cpuFlags select exactly this ISA (flags or an equivalent set, in order).
    bool acceptsFlags(const std::vector<std::string>& recipeFlags) const;
};

struct PythonVersion
{
    std::string id;         // "313" as in python313 / py313
    std::string dotted;     // "3.13"
    std::string packageSet; // "python313Packages"
};

struct CudaVersion
{
    std::string id;                       // "13_0" as in file names
    std::string dotted;                   // "13.0"
    std::vector<std::string> packageSets; // "cudaPackages_13_0", "cudaPackages_13"
};

class Catalog
{
public:
    // The compiled-in catalog (resources/catalog.json).
    static const Catalog& builtin();
    // For tests and user overrides; on failure returns nullopt and says why in `error`.
    static std::optional<Catalog> fromJson(std::string_view json, std::string* error);

    const std::vector<GpuArch>& gpuArchs() const { return m_gpuArchs; } // catalog (display) order
    const std::vector<CpuIsa>& isas() const { return m_isas; }          // x86, then ARM, then Apple
    const std::vector<PythonVersion>& pythons() const { return m_pythons; }
    const std::vector<CudaVersion>& cudas() const { return m_cudas; }

    const GpuArch* gpuArch(std::string_view id) const;              // "sm90"
    const GpuArch* gpuArchByDotted(std::string_view dotted) const;  // "9.0"
    const CpuIsa* isa(std::string_view id) const;                   // "avx512"; also "armv8.2"
    const PythonVersion* python(std::string_view idOrDotted) const; // "313" or "3.13"
    const CudaVersion* cuda(std::string_view idOrDotted) const;     // "13_0" or "13.0"
    const CudaVersion* cudaByPackageSet(std::string_view packageSet) const;

    // Whether this hardware pairing can run at all; when not, `why` says so in a sentence.
    // cudaDotted may be empty (CPU-only / unknown).
    bool canRun(const GpuArch* arch, const CpuIsa& isa, std::string_view cudaDotted,
                std::string* why) const;
    // Whether `cudaDotted` can target `arch` (minimum / maximum CUDA); `why` as above.
    bool cudaSupports(const GpuArch& arch, std::string_view cudaDotted, std::string* why) const;

private:
    std::vector<GpuArch> m_gpuArchs;
    std::vector<CpuIsa> m_isas;
    std::vector<PythonVersion> m_pythons;
    std::vector<CudaVersion> m_cudas;
};

std::string_view cpuFamilyId(CpuFamily family); // "x86" / "arm" / "apple"

// Compares dotted versions numerically ("12.10" > "12.9"); <0, 0, >0.
int compareVersions(std::string_view a, std::string_view b);

} // namespace rg
