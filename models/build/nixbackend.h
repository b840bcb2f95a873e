#pragma once

// `nix build -f FILE -L --out-link result-PNAME`, or `nix-build FILE -o result-PNAME` where
// the new command line is disabled (Nix 2.8 without the nix-command feature).

#include "build/buildbackend.h"

namespace rg {

class NixBackend : public BuildBackend
{
public:
    BackendKind kind() const override { return BackendKind::Nix; }
    std::optional<ProcessSpec> buildProcess(const BuildTarget& target,
                                            const BuildSettings& settings,
                                            QString* error) const override;

    // Whether `nix build` works here: probed once per (PATH, NIX_CONFIG) by evaluating a
    // constant with the new CLI, then cached.
    static bool hasNewCli();
    // Why the last probe for this environment said no, in nix's own words; "" when it said yes.
    static QString probeMessage();
    // Forces the answer (tests, or a setting); nullopt returns to probing.
    static void setNewCliOverride(std::optional<bool> available);
};

} // namespace rg
