#pragma once

// What the user chose about builds: which backend, how Nix is invoked, how many jobs run at
// once, where publishing goes. A plain value; the app persists it with QSettings.

#include <QMap>
#include <QString>
#include <QStringList>
#include <optional>

class QSettings;

namespace rg {

enum class BackendKind { Auto, Flox, Nix, Custom };

QString backendKindName(BackendKind kind); // "auto", "flox", "nix", "custom"
std::optional<BackendKind> backendKindFromName(const QString& name);

struct BuildSettings
{
    BackendKind backend = BackendKind::Auto;
    // Used by BackendKind::Custom; placeholders {variant} {pname} {file} {repo} {out}.
    QString customCommand;
    // Extra Nix options, each "key=value"; every backend that runs Nix receives them.
    QStringList nixOptions;
    QString builders; // Nix `builders` (remote build machines); empty = Nix's default
    // Nix `max-jobs`: builds this machine runs itself; 0 sends every build to the builders;
    // -1 leaves it to Nix.
    int maxJobs = -1;
    QString store;            // Nix `--store`; empty = the default store
    int concurrency = 1;      // jobs the queue runs at once
    QString publishOrg;       // `flox publish -o ORG`
    bool verify = true;       // run the result's Python after a successful build
    int cancelGraceMs = 5000; // SIGTERM → SIGKILL delay when cancelling
    // Local nixpkgs sources for evaluating recipes with Nix: pinned revision (40 hex digits,
    // lower case) → a nixpkgs directory or tarball used instead of fetching it.
    QMap<QString, QString> nixpkgsSources;
    QString defaultNixpkgs; // for recipes that are functions of a package set; "" for none

    // Every option as (key, value), including builders / max-jobs / store; invalid entries
    // (no '=' or empty key) are reported in `error` and skipped.
    QList<QPair<QString, QString>> nixOptionPairs(QString* error = nullptr) const;
    // The binary caches the options name (substituters, extra-substituters), in order: where
    // a build would download an output from instead of building it.
    QStringList binaryCaches() const;
    // Command-line form for `nix build` / `nix-build`: --option k v … --store S.
    QStringList nixArguments() const;
    // The same options as NIX_CONFIG lines, for tools that run Nix themselves (flox, custom).
    QString nixConfigLines() const;

    // The sources as "REV=PATH" lines, and back; lines that are not a 40-hex-digit revision, "="
    // and a path are left out and listed in `bad`.
    QString nixpkgsSourcesText() const;
    static QMap<QString, QString> nixpkgsSourcesFrom(const QString& text, QStringList* bad);

    static BuildSettings load(QSettings& settings); // group "build"
    void save(QSettings& settings) const;

    friend bool operator==(const BuildSettings&, const BuildSettings&) = default;
};

} // namespace rg
