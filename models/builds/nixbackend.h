#pragma once

// `nix build -f FILE -L --out-link result-PNAME`, or `nix-build FILE -o result-PNAME` where
// the new command line is disabled (Nix 2.8 without the nix-command feature).

#include "builds/buildbackend.h"

#include <optional>

namespace rg {

class NixBackend : public BuildBackend
{
public:
    BackendKind kind() const override { return BackendKind::Nix; }
    std::optional<ProcessSpec> buildProcess(const BuildTarget& target,
                                            const BuildSettings& settings,
                                            QString* error) const override;
    // The command without probing: nix-build's until the probe has answered; the queue
    // holds such a job until it has (then buildProcessWith() makes the final command).
    std::optional<ProcessSpec> provisionalProcess(const BuildTarget& target,
                                                  const BuildSettings& settings,
                                                  QString* error) const;
    // The command for a target already checked, with the new CLI or without. Its builds share
    // the SSH connections opened for `sharedFor` (BuilderSshOptions; "": settings.builders),
    // the whole list a batch's check asked when the settings name only the builders left up.
    ProcessSpec buildProcessWith(const BuildTarget& target, const BuildSettings& settings,
                                 bool newCli, const QString& sharedFor = {}) const;

    // Whether `nix build` works here: probed once per (PATH, NIX_CONFIG) by evaluating a
    // constant with the new CLI, then cached.
    // Blocks while it probes (up to a minute): the GUI asks knownNewCli() and probes on a
    // worker thread.
    static bool hasNewCli();
    // The answer when it is known (forced or probed for this environment), without waiting.
    static std::optional<bool> knownNewCli();
    // Why the last probe for this environment said no, in nix's own words; "" when it said yes.
    static QString probeMessage();
    // Forces the answer (tests, or a setting); nullopt returns to probing.
    static void setNewCliOverride(std::optional<bool> available);
};

} // namespace rg
