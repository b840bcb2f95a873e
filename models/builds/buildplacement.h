#pragma once

// Where Nix built one derivation of a job, as its log says: "building '/nix/store/…drv' on
// 'ssh://host'..." when a remote builder took it, "building '/nix/store/…drv'..." when this
// machine did, and "cannot build on 'ssh://host': …" when a builder refused or failed to
// connect. Nix chooses the machine; RecipeGrid only reads what it chose.

#include <QString>
#include <QStringView>
#include <optional>

namespace rg {

struct BuildPlacement
{
    QString derivation; // "/nix/store/…drv"; "" for a refusal, which names no derivation
    QString machine;    // the builder's store URI as Nix names it; "" for this machine
    QString failure;    // Nix's reason when the machine could not take the build; "" otherwise

    bool isRemote() const { return !machine.isEmpty(); }
    bool isFailure() const { return !failure.isEmpty(); }
    // How the window names the machine: "user@host" for ssh://user@host?opts, "this machine".
    QString machineLabel() const;
    static QString labelOf(const QString& machineUri);

    // One log line without its newline (ANSI escapes allowed); nullopt for any other line.
    static std::optional<BuildPlacement> parseLine(QStringView line);
    // Whether the line says the connection to a remote builder broke mid-build: ssh's
    // "Timeout, server … not responding.", a reset or closed connection, or Nix's "unexpected
    // end-of-file" on the stream it builds through.
    static bool isConnectionLoss(QStringView line);

    friend bool operator==(const BuildPlacement&, const BuildPlacement&) = default;
};

} // namespace rg
