#include "builds/hydrajobset.h"

#include <nlohmann/json.hpp>

namespace rg {

QString HydraJobset::releaseNix() const
{
    QString text = QStringLiteral(
        "# Hydra jobs, one per variant recipe of this repository (recipegrid export-ci --format\n"
        "# hydra). A recipe that is a function of a package set is called with the jobset's\n"
        "# nixpkgs input; a recipe that pins its own nixpkgs needs none.\n"
        "{ nixpkgs ? <nixpkgs> }:\n"
        "let\n"
        "  recipe = file:\n"
        "    let value = import file;\n"
        "    in if builtins.isFunction value then (import nixpkgs { }).callPackage file { } else "
        "value;\n"
        "in\n"
        "{\n");
    // Names are valid variant names ([A-Za-z0-9._+-]), so they need no escaping in a quoted
    // attribute name or a path.
    for (const QString& variant : variants)
        text += QStringLiteral("  \"%1\" = recipe ./%2/%1.nix;\n").arg(variant, recipeDir);
    text += QStringLiteral("}\n");
    return text;
}

std::string HydraJobset::jobsetSpec() const
{
    const nlohmann::json spec = {
        {"enabled", 1},
        {"hidden", false},
        {"description", "RecipeGrid variants (" + std::to_string(variants.size()) + ") of " +
                            branch.toStdString()},
        {"nixexprinput", "src"},
        {"nixexprpath", "release.nix"},
        {"checkinterval", checkIntervalSeconds},
        {"schedulingshares", 100},
        {"enableemail", false},
        {"emailoverride", ""},
        {"keepnr", 3},
        {"inputs",
         {{"src",
           {{"type", "git"},
            {"value", (repositoryUrl + QLatin1Char(' ') + branch).toStdString()},
            {"emailresponsible", false}}}}},
    };
    return spec.dump(2) + "\n";
}

} // namespace rg
