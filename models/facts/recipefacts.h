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
#include <string_view>
#include <vector>

namespace rg {

template <typename T> struct Fact
{
    T value{};
    nix::SourceRange range;
    // Where the value is made when that is not in the recipe, as a phrase for messages
    // ("selected in lib/mk-torch.nix:56, from a value written in …:5"); then `range` is empty
    // and nothing edits the value in place.
    std::string in{};
};

enum class PinFetcher {
    FetchTarball,
    FetchFromGitHub,
    FetchGit,
    FetchUrl,
    FetchTree, // builtins.fetchTree, with a set or a flake reference
    GetFlake,  // builtins.getFlake "github:NixOS/nixpkgs/<rev>"
    Other
};

// The fetcher call a pin's revision is written in (`fetchTarball { url = "…"; sha256 = "…"; }`):
// its hash must change with the revision, and its URL says what to download for the new hash.
// Ranges are of string contents, in the pin's file.
struct FetcherFact
{
    std::string callee;         // "fetchTarball", "fetchFromGitHub", … as called
    std::string hashAttribute;  // "sha256" / "hash" / "narHash"; "" when no literal hash
    std::string hash;           // as written
    nix::SourceRange hashRange; // empty when the set writes no literal hash
    std::string url;            // literal url, "" when computed or absent
    nix::SourceRange urlRange;
    std::string owner, repo; // fetchFromGitHub, fetchTree { type = "github"; }
    // The whole call as written, and where: while a file still has these bytes there, the
    // rest holds for it without parsing it again.
    nix::SourceRange range;
    std::string text;
};

struct PinFact
{
    std::string revision; // as written; a full pin is 40 lowercase hex digits
    PinFetcher fetcher = PinFetcher::Other;
    bool hasHash = false;   // sha256 / hash / narHash given next to the revision
    nix::SourceRange range; // the revision string itself (what a pin bump rewrites), in `file`
    // The repository module the pin is written in (`pin = import ./lib/pin.nix;`), shared by
    // every recipe that imports it; "" when written in the recipe itself.
    std::string file;
    int line = 0; // of the revision in `file`; set only for a module's pin
    // The fetcher whose attribute set the revision is written in, read with the file it is in;
    // nullopt when it is not in one's set (computed, a flake reference, in JSON, or passed
    // to a module that fetches).
    std::optional<FetcherFact> call;
};

// A hash the recipe writes as a literal (`sha256 = "…";`, `hash = "sha256-…";`), wherever it
// is: the pin's fetcher, a patch's, a source's.
struct HashFact
{
    std::string attribute;  // "sha256", "hash", "narHash", "outputHash", …
    std::string value;      // as written
    nix::SourceRange range; // the string literal
};

struct OverlayFact
{
    OverlayKind kind = OverlayKind::Other;
    std::string detail;     // "cudaPackages_13", "cuda-13.0-clockrate-fix.patch", "2.10.0"
    nix::SourceRange range; // the overlay function
};

// Where a GPU architecture value ends up. Each sink accepts its own notations: nixpkgs' torch
// hands `gpuTargets` to TORCH_CUDA_ARCH_LIST, which PyTorch's select_compute_arch.cmake reads
// as dotted capabilities ("8.6", "8.6+PTX", "9.0a") or generation names and rejects "sm_86" or
// "86"; nixpkgs' `cudaCapabilities` are dotted; CMAKE_CUDA_ARCHITECTURES takes integers ("86",
// "86-real", "90a"); -DCOMPUTE_CAPABILITY=… is read by CMake scripts as an integer.
enum class ArchSink {
    GpuTargets,
    CudaCapabilities,
    TorchCudaArchList,
    CmakeCudaArchitectures,
    ComputeCapability
};

std::string_view archSinkName(ArchSink sink); // "gpuTargets", "TORCH_CUDA_ARCH_LIST", …

// One entry reaching a sink: `gpuTargets = [ gpuArchSM ]` with `gpuArchSM = "12.0";` gives
// value "12.0" at the literal's range, via "gpuArchSM" (the binding it flowed through).
struct ArchSinkFact
{
    ArchSink sink = ArchSink::GpuTargets;
    std::string value;          // one entry as the sink receives it
    nix::SourceRange range;     // the bytes the entry is written in (the literal when known)
    nix::SourceRange sinkRange; // the sink: the binding's name or the NAME= in a string
    std::string via;            // binding the value came through; "" when written in place
    nix::SourceRange viaRange;  // that binding's name
    std::string writtenIn;      // "lib/archs.nix:4" when the value is written in a module
    // "lib/mk-torch.nix:30" when the sink is in a builder module the recipe calls with
    // arguments; then no range of this entry is in the recipe.
    std::string sinkIn;
};

// A value the recipe may not state itself: known, taken over from the package it overrides
// (`oldAttrs.meta.platforms`, possibly `or` a default), or not knowable without evaluating
// nixpkgs.
enum class ValueOrigin { Known, Inherited, Unknown };

struct PlatformsFact
{
    ValueOrigin origin = ValueOrigin::Known;
    std::vector<std::string> platforms; // expanded ("lib.platforms.linux" → its systems)
    std::string expression;             // as written, for messages when not Known
    nix::SourceRange range;
    std::string in; // where a builder module sets it ("in lib/torch.nix:67"); then no range
};

// Compiler flags that reach the C/C++ compiler (CXXFLAGS, CFLAGS, NIX_CFLAGS_COMPILE,
// CMAKE_CXX_FLAGS), or the recipe's `cpuFlags`-like list when no flag sink could be read.
struct CpuFlagsFact
{
    std::vector<std::string> flags;
    nix::SourceRange range;
    std::string sink;      // "CXXFLAGS", … or "" when taken from the list binding
    std::string via;       // the list binding the flags came from, "" when written in place
    std::string writtenIn; // "lib/cpu-isa.nix:3" when the flags are written in a module
};

// Why a file could not be analysed at all; each becomes a finding. TooDeep: nested beyond what
// the parser follows, which Nix may accept, so the file is unread rather than wrong.
enum class FileProblem { None, Unreadable, NotUtf8, Oversized, SyntaxError, TooDeep, Symlink };

struct RecipeFacts
{
    std::string path;                   // relative to the repository root, '/' separated
    std::string fileName;               // "pytorch-python313-cuda13_0-sm120-avx512.nix"
    std::optional<VariantName> variant; // from the file name
    uint64_t size = 0;
    // SHA-256 (64 hex digits) of the bytes the scan read; "" when unread. With the modules'
    // stamps it is what RecipeContentKey keys a scanned recipe by, without reading it again.
    std::string digest;

    FileProblem problem = FileProblem::None;
    std::string problemDetail; // OS error text, or the parse error message
    std::optional<nix::ParseError> parseError;

    PatternKind pattern = PatternKind::Unknown;
    std::optional<Fact<std::string>> pname;
    std::vector<PinFact> pins;
    std::vector<HashFact> hashes;
    std::optional<Fact<std::string>> pythonPackageSet; // "python3Packages", "python313Packages"
    std::optional<Fact<std::string>> torchAttribute;   // "torch" or the deprecated "pytorch"
    std::vector<OverlayFact> overlays;
    std::optional<Fact<std::string>> torchVersion;          // version the recipe builds, if set
    std::optional<Fact<std::string>> cudaPackageSet;        // "cudaPackages_13" wherever selected
    std::optional<Fact<std::vector<std::string>>> cpuFlags; // the list binding, as written
    std::vector<ArchSinkFact> archSinks;                    // every arch entry at its sink
    std::optional<CpuFlagsFact> compilerFlags;              // the flags by flow
    std::vector<CpuFlagsFact> moreCompilerFlags; // further sinks with other flags (CFLAGS …)
    std::optional<PlatformsFact> platformsValue; // meta.platforms, evaluated
    // The system the pinned nixpkgs is instantiated for (`import nixpkgs { system = …; }`,
    // `localSystem`): what every package of it is built for, whatever meta.platforms says.
    std::optional<Fact<std::string>> nixpkgsSystem;
    std::vector<Fact<std::string>> unpinnedImports; // import <nixpkgs> and the like
    std::optional<Fact<std::string>> description;
    std::optional<Fact<std::string>> longDescription;
    std::optional<Fact<std::vector<std::string>>> platforms;
    std::optional<Fact<bool>> cudaSupport;        // cudaSupport = true/false, USE_CUDA=1/0
    std::vector<Fact<std::string>> cudaInputs;    // CUDA packages named as inputs (CPU-only check)
    std::vector<Fact<std::string>> magmaDisabled; // USE_MAGMA=OFF / filterMagma evidence
    std::optional<Fact<std::string>> wrappedFile; // pattern (e): the file it callPackages
    std::vector<Fact<std::string>> importedFiles; // every `./x.nix` imported or callPackage'd
    // A module function the recipe calls with arguments (`import ./lib/mk-torch.nix { … }`):
    // its values are made there, from those arguments. "" when none.
    std::string builderModule;
    std::vector<std::string> unreadFlagSinks; // "NIX_CFLAGS_COMPILE" set to what cannot be read
    // Sibling recipes this one calls again with other arguments (`(import ./x.nix { }).override
    // { gpuArch = "8.9"; }`): their cell is a starting point, not this recipe's base.
    std::vector<std::string> derivedFrom;
    // The repository's modules the recipe's values were read from, with the stamp of the
    // bytes read (their SHA-256, "" when unreadable): facts stay valid only while these are
    // unchanged.
    std::vector<std::pair<std::string, std::string>> modules;

    // Line starts of the bytes the facts were read from, so any range can be shown as
    // line:column without keeping the source. Null when the file could not be read.
    std::shared_ptr<const nix::LineIndex> lines;
    nix::TextPosition position(uint32_t offset) const
    {
        return lines ? lines->position(offset) : nix::TextPosition{};
    }
};

} // namespace rg
