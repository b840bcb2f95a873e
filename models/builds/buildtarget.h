#pragma once

// One variant to build: its name, the recipe file and the repository it lives in, and what
// verification expects of the result.

#include "builds/verificationexpectation.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace rg {

struct BuildTarget
{
    QString variant;    // "pytorch-python313-cuda12_9-sm90-avx512"
    QString pname;      // what flox builds and names result-PNAME; the variant by default
    QString recipeFile; // absolute path of the .nix file
    QString repository; // absolute path of the work tree root
    VerificationExpectation expected;
    // Where and from what it is built, recorded with the job (BuildRecord); BuildSession fills
    // them, resolve() does not.
    QString contentKey; // RecipeContentKey::toString()
    // "drv:/nix/store/…drv" when Nix evaluated the recipe as it is built; "" otherwise.
    QString derivationKey;
    // From the same evaluation: the system it builds for and the system features a machine
    // must offer (torch asks for big-parallel); empty when not evaluated.
    QString system;
    QStringList requiredFeatures;
    QString branch;
    QString commit;

    // `^[A-Za-z0-9][A-Za-z0-9._+-]*$`: names reach command lines, so nothing else passes.
    static bool isValidName(const QString& name);

    // The variant a build argument names: "x" and "x.nix" both name x.
    static QString variantOf(const QString& argument);
    // Finds `<repository>/<recipeDir>/<variantOf(variant)>.nix`. On failure returns nullopt
    // with a sentence in `error`.
    static std::optional<BuildTarget> resolve(const QString& repository, const QString& variant,
                                              const QString& recipeDir, QString* error);

    // `<repository>/result-<pname>`: where every backend leaves its out-link.
    QString resultLink() const;
};

} // namespace rg
