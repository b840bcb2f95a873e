#pragma once

// Built-in knowledge of the matrix axes: GPU architectures, CPU ISAs, Python and CUDA
// versions, packages, and which pairings hardware can actually run. Loaded from
// resources/catalog.json; a matrix spec may extend it (MatrixSpec::effectiveCatalog).
//
// The catalog describes what RecipeGrid knows, not what a repository may contain: the
// describe…() lookups derive an entry (known == false) for any well-formed id the catalog
// lacks, so a new sm130 or CUDA 14.0 is reported as unknown rather than refused.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rg {

struct VariantName;

enum class CpuFamily { X86, Arm, Apple };

// Whether a variant can exist at all, and if not, why, in a sentence per limit. The limits are
// separate because the rules report each under its own id; `why()` is the one the grid shows.
struct Feasibility
{
    std::string hardwareWhy; // no machine pairs this GPU / accelerator with this CPU ISA
    std::string cudaWhy;     // the CUDA version cannot target the arch (too old or dropped it)
    std::string packageWhy;  // the package does not run on an arch this old

    bool possible() const { return hardwareWhy.empty() && cudaWhy.empty() && packageWhy.empty(); }
    // The first limit that applies, hardware before CUDA before the package; "" when possible.
    const std::string& why() const;
    friend bool operator==(const Feasibility&, const Feasibility&) = default;
};

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
    bool known = false;      // from a catalog; false when describeGpuArch derived it

    friend bool operator==(const GpuArch&, const GpuArch&) = default;
};

struct CpuIsa
{
    std::string id;                 // file-name spelling: "avx512", "armv8_2", "mps"
    std::string description;        // "AVX-512"
    std::vector<std::string> flags; // cpuFlags
    CpuFamily family = CpuFamily::X86;
    std::string platform;             // "x86_64-linux", "aarch64-linux", "aarch64-darwin"
    std::vector<std::string> aliases; // other spellings seen in names: "armv8.2"
    // Other flag sets that mean the same ISA (armv9 is written "+sve+sve2" in some
    // repositories and "+sve2" in others; armv9-a implies SVE, so both are right).
    std::vector<std::vector<std::string>> equivalentFlags;
    // The ISA by effect, as CpuFeatureSet ids ("avx2", "avx512f", "armv8.2-a", "sve2"); JSON
    // keys "requires" / "recommends" / "forbids". Required: without them the build is not this
    // ISA. Recommended: what `flags` enable by name, so a build without them leaves speed
    // behind. Forbidden: features some machines of this ISA lack, so code using them dies with
    // SIGILL there; the catalog names them for one reference machine per ISA (avx: Sandy
    // Bridge, avx2: Haswell, avx512: Skylake-SP, avx512vnni: Cascade Lake, avx512bf16: Zen 4,
    // armv8_2: Neoverse N1 / Orin's Cortex-A78AE, armv9: Neoverse V2 / Grace). Listing a
    // feature covers everything that implies it (avx512f covers avx512bw).
    std::vector<std::string> requiredFeatures;
    std::vector<std::string> recommendedFeatures;
    std::vector<std::string> forbiddenFeatures;

    // Whether a recipe's cpuFlags select exactly this ISA (flags or an equivalent set, in order).
    // Spelling only; CpuFeatureSet::judge compares what the flags enable.
    bool acceptsFlags(const std::vector<std::string>& recipeFlags) const;

    friend bool operator==(const CpuIsa&, const CpuIsa&) = default;
};

struct PythonVersion
{
    std::string id;         // "313" as in python313 / py313
    std::string dotted;     // "3.13"
    std::string packageSet; // "python313Packages"
    bool known = false;     // from a catalog; false when describePython derived it

    friend bool operator==(const PythonVersion&, const PythonVersion&) = default;
};

struct CudaVersion
{
    std::string id;                       // "13_0" as in file names
    std::string dotted;                   // "13.0"
    std::vector<std::string> packageSets; // "cudaPackages_13_0", "cudaPackages_13"
    bool known = false;                   // from a catalog; false when describeCuda derived it

    friend bool operator==(const CudaVersion&, const CudaVersion&) = default;
};

// Limits of a package beyond PyTorch's own (JSON: the top-level "packages" array).
struct PackageInfo
{
    std::string id;          // file-name package word without version tail: "vllm"
    std::string minArch;     // lowest compute capability it supports, dotted; "" when none
    std::string companionOf; // built against and limited like this package; "" when none

    friend bool operator==(const PackageInfo&, const PackageInfo&) = default;
};

class Catalog
{
public:
    // The compiled-in catalog (resources/catalog.json).
    static const Catalog& builtin();
    // For tests and user overrides; on failure returns nullopt and says why in `error`.
    static std::optional<Catalog> fromJson(std::string_view json, std::string* error);
    // A partial catalog, as a matrix spec's "catalog" key holds: no "schema", every section
    // ("gpuArchs", "isas", "pythons", "cudas", "packages") optional, entries as in
    // catalog.json. On failure `pointer` gets the JSON pointer of the offending value inside
    // the fragment ("/gpuArchs/0/id", "" for the whole) and `message` what is wrong with it.
    static std::optional<Catalog> fragmentFromJson(std::string_view json, std::string* pointer,
                                                   std::string* message);
    // Compact JSON that fragmentFromJson reads back into an equal catalog; sections with no
    // entries are left out. With `full`, "schema" and every section are written (fromJson).
    std::string toJson(bool full = true) const;

    // This catalog with `more`'s entries: same id replaces in place, a new id is added where
    // the display order puts it (archs newest first by compute capability, Python and CUDA
    // oldest first, an ISA after the last of its family, a package last).
    Catalog extendedWith(const Catalog& more) const;

    const std::vector<GpuArch>& gpuArchs() const { return m_gpuArchs; } // catalog (display) order
    const std::vector<CpuIsa>& isas() const { return m_isas; }          // x86, then ARM, then Apple
    const std::vector<PythonVersion>& pythons() const { return m_pythons; }
    const std::vector<CudaVersion>& cudas() const { return m_cudas; }
    const std::vector<PackageInfo>& packages() const { return m_packages; }

    const GpuArch* gpuArch(std::string_view id) const;              // "sm90"
    const GpuArch* gpuArchByDotted(std::string_view dotted) const;  // "9.0"
    const CpuIsa* isa(std::string_view id) const;                   // "avx512"; also "armv8.2"
    const PythonVersion* python(std::string_view idOrDotted) const; // "313" or "3.13"
    const CudaVersion* cuda(std::string_view idOrDotted) const;     // "13_0" or "13.0"
    const CudaVersion* cudaByPackageSet(std::string_view packageSet) const;
    // "vllm"; a version tail is ignored when the rest is a known id ("pytorch210" → pytorch,
    // "vllm015" → vllm), but a package whose own id ends in digits is matched whole first.
    const PackageInfo* package(std::string_view word) const;

    // Never fail: the catalog's entry (known == true), else one derived from the id alone
    // (known == false; no CUDA limits, not an ARM SoC, description "unknown to the catalog").
    //   describeGpuArch("sm130") → number "130", dotted "13.0"; "sm86" → "8.6"
    //   describeCuda("14.0" or "14_0") → id "14_0", packageSets {"cudaPackages_14_0"}
    //   describePython("315" or "3.15") → dotted "3.15", packageSet "python315Packages"
    // An id that is not well formed ("sm", "smX", "14", "3") keeps its spelling in `id` and
    // leaves the derived fields empty.
    GpuArch describeGpuArch(std::string_view id) const;
    CudaVersion describeCuda(std::string_view idOrDotted) const;
    PythonVersion describePython(std::string_view idOrDotted) const;

    // Whether `name`'s cell can exist: its hardware pairing, its CUDA version against its arch
    // and its package against its arch. Words the catalog does not know impose no limit.
    Feasibility feasibility(const VariantName& name) const;

    // The parts of feasibility(), for callers that hold catalog entries rather than a name.
    // Whether this hardware pairing can run at all; when not, `why` says so in a sentence.
    // cudaDotted may be empty (CPU-only / unknown).
    bool canRun(const GpuArch* arch, const CpuIsa& isa, std::string_view cudaDotted,
                std::string* why) const;
    // Whether `cudaDotted` can target `arch` (minimum / maximum CUDA); `why` as above.
    bool cudaSupports(const GpuArch& arch, std::string_view cudaDotted, std::string* why) const;
    // Whether `package` runs on `arch`: its minArch, or that of the package it is a companion
    // of (torchvision goes wherever pytorch goes). An arch without a dotted number passes.
    bool packageSupports(const PackageInfo& package, const GpuArch& arch, std::string* why) const;

    friend bool operator==(const Catalog&, const Catalog&) = default;

private:
    // Both forms; `pointer` gets "/gpuArchs/0/id", `message` "gpuArchs[0].id: must be …"
    // (the bare "must be …" for a fragment).
    static std::optional<Catalog> parse(std::string_view json, bool fragment, std::string* pointer,
                                        std::string* message);

    std::vector<GpuArch> m_gpuArchs;
    std::vector<CpuIsa> m_isas;
    std::vector<PythonVersion> m_pythons;
    std::vector<CudaVersion> m_cudas;
    std::vector<PackageInfo> m_packages;
};

std::string_view cpuFamilyId(CpuFamily family); // "x86" / "arm" / "apple"

// How tables and descriptions write an arch: "sm90" → "SM90".
std::string gpuArchLabel(std::string_view id);

// Compares dotted versions numerically ("12.10" > "12.9"); <0, 0, >0.
int compareVersions(std::string_view a, std::string_view b);

} // namespace rg
