#pragma once

// A Hydra jobset that builds the variants, for teams on Hydra rather than GitHub Actions:
// release.nix, whose attributes are the variants' recipes as derivations (a recipe that is a
// function of a package set is called with the jobset's nixpkgs, as flox calls it), and the
// declarative jobset spec that points Hydra at the repository and at release.nix. Nix and
// Hydra do the rest: evaluation, distribution over their build machines, the results.

#include <QString>
#include <QStringList>
#include <string>

namespace rg {

class HydraJobset
{
public:
    QStringList variants; // valid variant names (BuildTarget::isValidName), each a recipe file
    QString recipeDir = QStringLiteral(".flox/pkgs");
    QString repositoryUrl; // what Hydra fetches: a git URL
    QString branch = QStringLiteral("main");
    int checkIntervalSeconds = 300;

    // release.nix, to sit at the repository's root.
    QString releaseNix() const;
    // The jobset's spec (Hydra's declarative jobset format), as JSON.
    std::string jobsetSpec() const;
};

} // namespace rg
