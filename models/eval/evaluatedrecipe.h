#pragma once

// What Nix says about one recipe, evaluated against its pin: the derivation it instantiates
// and the values a build of it will use, read from the evaluated derivation; or, when it does
// not evaluate, Nix's message and the innermost position in the repository it names.

#include "eval/outputstate.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rg {

struct NixErrorReport
{
    std::string message; // Nix's words, long traces cut
    std::string file;    // relative to the repository root; "" when no position is in it
    int line = 0;
    int column = 0;
    // The attribute Nix was evaluating when it failed ("python3Packages.pytorch.override"),
    // from the innermost trace frame that names one; "" when none does.
    std::string attribute;
};

// The torch the variant builds, or the first torch among its inputs.
struct EvaluatedTorch
{
    std::string name;
    std::string version;
    std::string drvPath;
    std::optional<bool> cudaSupport;
    std::vector<std::string> cudaCapabilities; // passthru.cudaCapabilities
    std::string archListSetting;               // a TORCH_CUDA_ARCH_LIST attribute or env entry
    std::string preConfigure;
};

struct EvaluatedRecipe
{
    std::string path; // relative to the repository root
    bool evaluated = false;
    NixErrorReport error; // when !evaluated

    std::string drvPath;
    std::string outPath; // the default output's store path, built or not
    std::string name;
    std::string pname;
    std::string version;
    std::string system;
    std::vector<std::string> platforms;              // meta.platforms
    std::vector<std::string> requiredSystemFeatures; // a build machine must offer each
    std::string preConfigure;
    std::string buildScript;     // preConfigure, postConfigure and preBuild, in that order
    std::string archListSetting; // a TORCH_CUDA_ARCH_LIST attribute or env entry
    std::string cxxFlags;        // CXXFLAGS / CFLAGS / NIX_CFLAGS_COMPILE as derivation attributes
    std::string cFlags;
    std::string cflagsCompile;
    std::string pythonVersion; // "3.13"
    std::string cudaVersion;   // of the CUDA set the torch uses; "" for none
    std::string cudnnVersion;
    std::optional<EvaluatedTorch> torch;

    std::string nixVersion;  // of the Nix that evaluated it
    int64_t evaluatedAt = 0; // seconds since the epoch
    bool fromCache = false;
    // The failure says nothing about the recipe (cancelled, timed out, out of memory, no
    // network): not kept in the cache.
    bool transient = false;
    // Whether the output is built already, when that was asked (OutputPresence::fill). The
    // store's answer of the moment, not the recipe's: not written by toJson, so not cached.
    OutputState output;

    // The entries TORCH_CUDA_ARCH_LIST receives in the variant's build: what its hooks export
    // or its attribute sets, else (for a package that sets none) its torch's; empty when
    // neither sets one (a CPU build).
    std::vector<std::string> archList() const;
    // The CPU flags the compiler gets beyond the defaults: NIX_CFLAGS_COMPILE (the cc-wrapper
    // puts it first), then CXXFLAGS and CFLAGS (PyTorch's setup.py compiles C++ with CFLAGS
    // too), each as the hooks leave it or else as the derivation's attribute.
    std::vector<std::string> compilerFlags() const;

    nlohmann::json toJson() const;
    // nullopt when `json` is not what toJson writes.
    static std::optional<EvaluatedRecipe> fromJson(const nlohmann::json& json);
};

} // namespace rg
