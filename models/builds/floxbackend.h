#pragma once

// `flox build PNAME` / `flox publish -o ORG PNAME` in the repository root. flox runs Nix
// itself, so the settings' Nix options travel in NIX_CONFIG.

#include "builds/buildbackend.h"

namespace rg {

class FloxBackend : public BuildBackend
{
public:
    BackendKind kind() const override { return BackendKind::Flox; }
    std::optional<ProcessSpec> buildProcess(const BuildTarget& target,
                                            const BuildSettings& settings,
                                            QString* error) const override;
    // Needs settings.publishOrg (a valid name).
    std::optional<ProcessSpec> publishProcess(const BuildTarget& target,
                                              const BuildSettings& settings, QString* error) const;
};

} // namespace rg
