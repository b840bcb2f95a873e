#include "exportcicommand.h"

#include "build/buildtarget.h"
#include "build/ciworkflow.h"
#include "recipes/atomicfile.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <iostream>

namespace rg {

int ExportCiCommand::run(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Write a GitHub Actions workflow that builds variants with flox (nix as "
                       "the fallback), one matrix job per variant."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("repo"), QStringLiteral("The recipe repository."));
    parser.addPositionalArgument(
        QStringLiteral("variant"),
        QStringLiteral("Variants to build (default: every recipe in the recipe directory)."),
        QStringLiteral("[VARIANT…]"));
    const QCommandLineOption output(
        {QStringLiteral("o"), QStringLiteral("output")},
        QStringLiteral("Write the workflow here ('-' for stdout; default "
                       "REPO/.github/workflows/recipegrid-build.yml)."),
        QStringLiteral("FILE"));
    const QCommandLineOption recipeDir(QStringLiteral("recipe-dir"),
                                       QStringLiteral("Recipe directory (default .flox/pkgs)."),
                                       QStringLiteral("DIR"), QStringLiteral(".flox/pkgs"));
    const QCommandLineOption timeout(
        QStringLiteral("timeout-minutes"),
        QStringLiteral("Per-job timeout (default 300: PyTorch builds take 1–3 hours)."),
        QStringLiteral("MINUTES"), QStringLiteral("300"));
    const QCommandLineOption publishOrg(
        QStringLiteral("publish-org"),
        QStringLiteral("Add a `flox publish -o ORG` step on the default branch."),
        QStringLiteral("ORG"));
    const QCommandLineOption torchVersion(
        QStringLiteral("torch-version"),
        QStringLiteral("The torch version the verification step expects."),
        QStringLiteral("VERSION"));
    parser.addOptions({output, recipeDir, timeout, publishOrg, torchVersion});
    if (!parser.parse(arguments)) {
        std::cerr << "recipegrid export-ci: " << parser.errorText().toStdString() << '\n';
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        std::cout << parser.helpText().toStdString();
        return 0;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty()) {
        std::cerr << "recipegrid export-ci: give a repository\n" << parser.helpText().toStdString();
        return 2;
    }
    const QString repo = positional.first();

    CiWorkflow workflow(Catalog::builtin());
    workflow.recipeDir = parser.value(recipeDir);
    workflow.torchVersion = parser.value(torchVersion);
    workflow.publishOrg = parser.value(publishOrg);
    if (parser.isSet(publishOrg) && !BuildTarget::isValidName(workflow.publishOrg)) {
        std::cerr << "recipegrid export-ci: invalid organisation name '"
                  << workflow.publishOrg.toStdString() << "'\n";
        return 2;
    }
    bool ok = false;
    workflow.timeoutMinutes = parser.value(timeout).toInt(&ok);
    if (!ok || workflow.timeoutMinutes < 1 || workflow.timeoutMinutes > 4320) {
        std::cerr << "recipegrid export-ci: --timeout-minutes needs 1…4320\n";
        return 2;
    }
    QString error;
    QStringList variants = positional.mid(1);
    if (variants.isEmpty()) {
        const auto found = CiWorkflow::recipesIn(repo, workflow.recipeDir, &error);
        if (!found) {
            std::cerr << "recipegrid export-ci: " << error.toStdString() << '\n';
            return 2;
        }
        variants = *found;
    }
    if (!workflow.setVariants(repo, variants, &error)) {
        std::cerr << "recipegrid export-ci: " << error.toStdString() << '\n';
        return 2;
    }
    const std::string yaml = workflow.toYaml();

    const QString target =
        parser.isSet(output)
            ? parser.value(output)
            : QDir(repo).filePath(QStringLiteral(".github/workflows/recipegrid-build.yml"));
    if (target == QLatin1String("-")) {
        std::cout << yaml;
        return 0;
    }
    if (!QDir().mkpath(QFileInfo(target).absolutePath())) {
        std::cerr << "recipegrid export-ci: " << target.toStdString()
                  << ": cannot create its directory\n";
        return 1;
    }
    if (const QString failed = AtomicFile::write(
            target, QByteArrayView(yaml.data(), static_cast<qsizetype>(yaml.size())));
        !failed.isEmpty()) {
        std::cerr << "recipegrid export-ci: " << target.toStdString() << ": "
                  << failed.toStdString() << '\n';
        return 1;
    }
    std::cout << "wrote " << target.toStdString() << " (" << variants.size() << " variant(s))\n";
    return 0;
}

} // namespace rg
