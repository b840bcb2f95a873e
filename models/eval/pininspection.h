#pragma once

// What a nixpkgs revision contains, asked of the real Nix (pininspection.nix): its version, the
// Python and torch versions of the Python package sets a branch uses, the default CUDA version,
// and the CUDA, cuDNN and NCCL versions of the CUDA sets it uses, and MAGMA's. One Nix process
// per revision, so one that cannot be fetched costs only its own answer. Blocking.

#include "analysis/analysis.h"
#include "eval/evalsettings.h"
#include "eval/nixinstallation.h"

#include <atomic>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace rg {

struct PinContents
{
    std::string revision;
    std::string source;     // the local nixpkgs it was read from; "" when Nix fetched it
    std::string error;      // why it could not be read; "" when it was
    bool cancelled = false; // stopped before Nix answered (error says "cancelled")
    std::string nixpkgsVersion;
    std::string python3; // what python3 is
    struct PythonSet
    {
        std::string name; // "python313Packages"
        std::string python;
        std::string torch;
    };
    std::vector<PythonSet> pythonSets;
    std::string defaultCuda;
    struct CudaSet
    {
        std::string name; // "cudaPackages_12_9"
        std::string cuda;
        std::string cudnn;
        std::string nccl;
    };
    std::vector<CudaSet> cudaSets;
    std::string magma;

    nlohmann::json toJson() const;
};

class PinInspection
{
public:
    // The package sets `analysis`'s recipes select, with the unversioned ones always included.
    static std::vector<std::string> pythonSetsOf(const Analysis& analysis);
    static std::vector<std::string> cudaSetsOf(const Analysis& analysis);

    // Blocking: one Nix process per revision, settings.jobs at once. A revision Nix cannot
    // read, or that runs past the time limit, gets its error. Once `cancel` is set, the
    // running processes are stopped with whatever they started (a download), and every
    // revision not yet answered gets the error "cancelled".
    static std::vector<PinContents>
    inspect(const NixInstallation& nix, const EvalSettings& settings,
            const std::vector<std::string>& revisions, const std::vector<std::string>& pythonSets,
            const std::vector<std::string>& cudaSets, const std::atomic<bool>* cancel = nullptr);
};

} // namespace rg
