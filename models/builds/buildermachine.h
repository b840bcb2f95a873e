#pragma once

// One remote build machine in Nix's machine format, the `builders` option's language: per line
// (or per ';'-separated entry) URI, systems, SSH key, max jobs, speed factor, supported
// features, mandatory features, base64 public host key; "-" or a missing field takes Nix's
// default, '#' starts a comment, and "@FILE" stands for the machines listed in FILE. RecipeGrid
// hands the text to Nix unchanged; it parses it to name each builder, to say which one is
// malformed before Nix is asked, and to tell whether any builder can take a recipe.

#include <QList>
#include <QString>
#include <QStringList>

namespace rg {

struct BuilderMachine
{
    QString uri;         // "ssh://user@host", "ssh-ng://…", or a bare host (Nix adds ssh://)
    QStringList systems; // empty: Nix's own system
    QString sshKey;      // identity file; "" for ssh's own choice
    int maxJobs = 1;
    double speedFactor = 1;
    QStringList supportedFeatures;
    QStringList mandatoryFeatures;
    QString publicHostKey; // base64 of "ssh-ed25519 AAAA…"; "" to trust ssh's known hosts
    QString origin;        // where it was written: "builders entry 2", "FILE line 3"

    QString label() const; // how the window names it: "user@host"
    // The entry as a line of Nix's machine format, "-" for every default.
    QString toLine() const;
    // Machines as a `builders` value: toLine() of each, one per line.
    static QString toLines(const QList<BuilderMachine>& machines);
    // Whether Nix would send this machine a derivation for `system` that requires `features`:
    // it offers the system and every feature, and every mandatory feature is required.
    bool canBuild(const QString& system, const QStringList& features) const
    {
        return whyNot(system, features).isEmpty();
    }
    // Why it would not ("builds aarch64-linux only", "offers no big-parallel", "takes only
    // builds that require benchmark"); "" when it would.
    QString whyNot(const QString& system, const QStringList& features) const;

    // The machines a `builders` value lists, in order. A malformed entry is left out and
    // explained in `errors`, one sentence naming its origin; so is an unreadable "@FILE".
    static QList<BuilderMachine> parse(const QString& spec, QStringList* errors = nullptr);

    friend bool operator==(const BuilderMachine&, const BuilderMachine&) = default;
};

} // namespace rg
