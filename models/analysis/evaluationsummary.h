#pragma once

// Nix's answer for one recipe as the grid and the details show it: the values a build of the
// recipe gets, or Nix's error. The evaluation engine (models/eval) fills it; it is plain text
// here so the analysis, the grid's model and the details need not know the engine.

#include <cstdint>
#include <string>
#include <vector>

namespace rg {

struct EvaluationSummary
{
    bool evaluated = false; // false: Nix did not evaluate the recipe, `error` says why
    std::string error;
    std::string torchVersion;
    std::string cudaVersion; // "" for a CPU build
    std::string pythonVersion;
    std::vector<std::string> archList; // what TORCH_CUDA_ARCH_LIST receives
    std::string drvPath;
    std::string system;                              // the derivation's
    std::vector<std::string> requiredSystemFeatures; // a build machine must offer each
    std::string pin;         // the nixpkgs revision the recipe was evaluated against; "" for none
    std::string nixVersion;  // of the Nix that answered
    int64_t evaluatedAt = 0; // seconds since the epoch
    bool fromCache = false;
    // Whether the output was built when Nix was asked: "built", "cached", "missing", "unknown";
    // "" when it was not asked. outputText says it ("in cache https://…").
    std::string output;
    std::string outputText;
};

} // namespace rg
