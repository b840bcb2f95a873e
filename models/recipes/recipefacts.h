#pragma once

// What RecipeGrid reads from one recipe, each fact with the source range it came from.
// Extraction is tolerant: a fact that the recipe does not state is simply absent.

#include "matrix/recipepattern.h"
#include "matrix/variantname.h"
#include "nix/lineindex.h"
#include "nix/node.h"
#include "nix/syntaxtree.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rg {

template <typename T> struct Fact
{
    T value{};
    nix::SourceRange range;
};

enum class PinFetcher { FetchTarball, FetchFromGitHub, FetchGit, FetchUrl, Other };

struct PinFact
{
    std::string revision; // as written; a full pin is 40 lowercase hex digits
    PinFetcher fetcher = PinFetcher::Other;
    bool hasHash = false;   // sha256 / hash given next to the revision
    nix::SourceRange range; // the revision string itself (what a pin bump rewrites)
};

struct OverlayFact
{
    OverlayKind kind = OverlayKind::Other;
    std::string detail;     // "cudaPackages_13", "cuda-13.0-clockrate-fix.patch", "2.10.0"
    nix::SourceRange range; // the overlay function
};

// Why a file could not be analysed at all; each becomes a finding.
enum class FileProblem { None, Unreadable, NotUtf8, Oversized, SyntaxError, Symlink };

struct RecipeFacts
{
    std::string path;                   // relative to the repository root, '/' separated
    std::string fileName;               // "pytorch-python313-cuda13_0-sm120-avx512.nix"
    std::optional<VariantName> variant; // from the file name
    uint64_t size = 0;

    FileProblem problem = FileProblem::None;
    std::string problemDetail; // OS error text, or the parse error message
    std::optional<nix::ParseError> parseError;

    PatternKind pattern = PatternKind::Unknown;
    std::optional<Fact<std::string>> pname;
    std::vector<PinFact> pins;
    std::optional<Fact<std::string>> pythonPackageSet; // "python3Packages", "python313Packages"
    std::optional<Fact<std::string>> torchAttribute;   // "torch" or the deprecated "pytorch"
    std::vector<OverlayFact> overlays;
    std::optional<Fact<std::string>> torchVersion;            // version the recipe builds, if set
    std::optional<Fact<std::string>> cudaPackageSet;          // "cudaPackages_13" wherever selected
    std::optional<Fact<std::string>> gpuArchSM;               // "9.0"
    std::optional<Fact<std::string>> gpuArchNum;              // "90"
    std::optional<Fact<std::vector<std::string>>> gpuTargets; // gpuTargets = [ "9.0" ]
    std::optional<Fact<std::string>> torchCudaArchList;       // TORCH_CUDA_ARCH_LIST value
    std::optional<Fact<std::vector<std::string>>> cpuFlags;
    std::optional<Fact<std::string>> description;
    std::optional<Fact<std::string>> longDescription;
    std::optional<Fact<std::vector<std::string>>> platforms;
    std::map<std::string, Fact<std::string>> passthru; // field → source text of its value
    std::optional<Fact<bool>> cudaSupport;             // cudaSupport = true/false, USE_CUDA=1/0
    std::vector<Fact<std::string>> cudaInputs;    // CUDA packages named as inputs (CPU-only check)
    std::vector<Fact<std::string>> magmaDisabled; // USE_MAGMA=OFF / filterMagma evidence
    std::optional<Fact<std::string>> wrappedFile; // pattern (e): the file it callPackages

    // Line starts of the bytes the facts were read from, so any range can be shown as
    // line:column without keeping the source. Null when the file could not be read.
    std::shared_ptr<const nix::LineIndex> lines;
    nix::TextPosition position(uint32_t offset) const
    {
        return lines ? lines->position(offset) : nix::TextPosition{};
    }
};

} // namespace rg
