#pragma once

// NIX_SSHOPTS for builds and checks on remote builders, when the environment has none of its own.
// ssh waits minutes for a builder that stopped answering, and its connect timeout is the
// system's: the options give up on a silent builder within a minute, so its job fails and goes to
// the builders left. They also share one SSH connection per builder (ssh's ControlMaster) among
// the check before a batch and every build of it: each build otherwise opens a connection of its
// own, a key exchange and login per variant that a batch pays at every start.
// Connections are shared only within this process and only for the same builders text, so a
// builder list with another key or host key for the same host, or a host replaced at the same
// address, never rides on a connection made for the other.

#include <QList>
#include <QString>

namespace rg {

struct BuilderMachine;

class BuilderSshOptions
{
public:
    // The time limits alone: what a check that must open its own connections uses.
    static const QString timeLimits;
    // How long a shared connection outlives its last use (ssh's ControlPersist).
    static constexpr int persistSeconds = 60;
    // The time limits and the shared connections for builds on `builders` (Nix's machine text as
    // the build gets it); the time limits alone when no private socket directory can be made.
    static QString forBuilders(const QString& builders);
    // The directory holding this process's connection sockets, made on first use and removed
    // when the process ends (a connection left open ends itself after a minute idle); "" when
    // none can be made, or its path is too long for a socket or holds characters Nix's
    // splitting of NIX_SSHOPTS would break.
    static QString socketDirectory();

    // Makes the shared connection of each machine that `sshOptions` share (their ControlPath)
    // close the sessions of builds killed here. OpenSSH's connection sends a session's close
    // only when it next wakes, which may be its next keepalive, 15 s later: until then the build
    // runs on in the builder. Asking the connection whether it runs (`ssh -O check`) wakes it.
    // Starts one short-lived ssh per machine and returns at once; nothing to do without a
    // ControlPath.
    static void closeKilledSessions(const QString& sshOptions,
                                    const QList<BuilderMachine>& machines);
};

} // namespace rg
