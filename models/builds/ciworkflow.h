#pragma once

// A GitHub Actions workflow that builds variants: one matrix job per variant (fail-fast off,
// timeouts for hours-long builds), flox build with a nix fallback where flox cannot be
// installed, verification of the result's Python/CUDA (and torch) versions, optional publish.
// YAML is written by hand with every scalar quoted; names are validated before they get in.

#include "matrix/catalog.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <string>
#include <vector>

namespace rg {

class CiWorkflow
{
public:
    struct Entry
    {
        QString variant;
        QString runner; // "ubuntu-latest", "ubuntu-24.04-arm", "macos-14"
        QString python; // "3.13" or empty
        QString cuda;   // "12.9", "None" or empty
    };

    // `catalog` says which platform each ISA is (the built-in one, or a spec's extension).
    explicit CiWorkflow(Catalog catalog) : m_catalog(std::move(catalog)) {}

    QString name = QStringLiteral("Build variants");
    QString recipeDir = QStringLiteral(".flox/pkgs");
    int timeoutMinutes = 300;
    QString torchVersion; // checked when set
    QString publishOrg;   // a publish step when set

    // Every recipe (file stem) in `repo/recipeDir`, sorted; nullopt with `error` when the
    // directory is missing or a file name is not a valid variant name.
    static std::optional<QStringList> recipesIn(const QString& repo, const QString& recipeDir,
                                                QString* error);
    // Validates names and that each recipe exists; fills entries() (runner from the ISA).
    bool setVariants(const QString& repo, const QStringList& variants, QString* error);
    const std::vector<Entry>& entries() const { return m_entries; }

    // The runner of the platform of the variant's ISA: aarch64-linux → ubuntu-24.04-arm,
    // aarch64-darwin → macos-14, anything else (an ISA the catalog lacks too) → ubuntu-latest.
    QString runnerFor(const QString& variant) const;

    std::string toYaml() const;

private:
    Catalog m_catalog;
    std::vector<Entry> m_entries;
};

} // namespace rg
