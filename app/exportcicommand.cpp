#include "exportcicommand.h"

#include "builds/buildtarget.h"
#include "builds/ciworkflow.h"
#include "builds/hydrajobset.h"
#include "vcs/atomicfile.h"
#include "vcs/gitrepositoryinfo.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <iostream>
#include <optional>

namespace rg {

namespace {

// The options of `recipegrid export-ci`, in the order --help lists them.
struct ExportCiOptions
{
    QCommandLineOption format{
        QStringLiteral("format"),
        QStringLiteral("github (a GitHub Actions workflow) or hydra (release.nix and a Hydra "
                       "jobset spec, hydra-jobset.json)."),
        QStringLiteral("FORMAT"), QStringLiteral("github")};
    QCommandLineOption output{{QStringLiteral("o"), QStringLiteral("output")},
                              QStringLiteral("Write the workflow here ('-' for stdout; default "
                                             "REPO/.github/workflows/recipegrid-build.yml); "
                                             "for hydra, the folder (default REPO)."),
                              QStringLiteral("FILE")};
    QCommandLineOption repoUrl{
        QStringLiteral("repo-url"),
        QStringLiteral("hydra: the git URL Hydra fetches the repository from (default: its "
                       "path here)."),
        QStringLiteral("URL")};
    QCommandLineOption recipeDir{QStringLiteral("recipe-dir"),
                                 QStringLiteral("Recipe directory (default .flox/pkgs)."),
                                 QStringLiteral("DIR"), QStringLiteral(".flox/pkgs")};
    QCommandLineOption timeout{
        QStringLiteral("timeout-minutes"),
        QStringLiteral("Per-job timeout (default 300: PyTorch builds take 1–3 hours)."),
        QStringLiteral("MINUTES"), QStringLiteral("300")};
    QCommandLineOption publishOrg{
        QStringLiteral("publish-org"),
        QStringLiteral("Add a `flox publish -o ORG` step on the default branch."),
        QStringLiteral("ORG")};
    QCommandLineOption torchVersion{
        QStringLiteral("torch-version"),
        QStringLiteral("The torch version the verification step expects."),
        QStringLiteral("VERSION")};

    void addTo(QCommandLineParser* parser) const
    {
        parser->setApplicationDescription(
            QStringLiteral("Write a GitHub Actions workflow that builds variants with flox (nix "
                           "as the fallback), one matrix job per variant."));
        parser->addHelpOption();
        parser->addPositionalArgument(QStringLiteral("repo"),
                                      QStringLiteral("The recipe repository."));
        parser->addPositionalArgument(
            QStringLiteral("variant"),
            QStringLiteral("Variants to build (default: every recipe in the recipe directory)."),
            QStringLiteral("[VARIANT…]"));
        parser->addOptions({format, output, repoUrl, recipeDir, timeout, publishOrg, torchVersion});
    }
};

// The workflow the options and variants ask for (default: every recipe); a return value is
// the exit status to stop with.
std::optional<int> readWorkflow(const QCommandLineParser& parser, const ExportCiOptions& options,
                                const QString& repo, CiWorkflow* workflow, QStringList* variants)
{
    workflow->recipeDir = parser.value(options.recipeDir);
    workflow->torchVersion = parser.value(options.torchVersion);
    workflow->publishOrg = parser.value(options.publishOrg);
    if (parser.isSet(options.publishOrg) && !BuildTarget::isValidName(workflow->publishOrg)) {
        std::cerr << "recipegrid export-ci: invalid organisation name '"
                  << workflow->publishOrg.toStdString() << "'\n";
        return 2;
    }
    bool ok = false;
    workflow->timeoutMinutes = parser.value(options.timeout).toInt(&ok);
    if (!ok || workflow->timeoutMinutes < 1 || workflow->timeoutMinutes > 4320) {
        std::cerr << "recipegrid export-ci: --timeout-minutes needs 1…4320\n";
        return 2;
    }
    QString error;
    if (variants->isEmpty()) {
        const auto found = CiWorkflow::recipesIn(repo, workflow->recipeDir, &error);
        if (!found) {
            std::cerr << "recipegrid export-ci: " << error.toStdString() << '\n';
            return 2;
        }
        *variants = *found;
    }
    if (!workflow->setVariants(repo, *variants, &error)) {
        std::cerr << "recipegrid export-ci: " << error.toStdString() << '\n';
        return 2;
    }
    return std::nullopt;
}

// Writes `text` to `target` atomically; false after saying why.
bool writeFile(const std::string& text, const QString& target)
{
    if (!QDir().mkpath(QFileInfo(target).absolutePath())) {
        std::cerr << "recipegrid export-ci: " << target.toStdString()
                  << ": cannot create its directory\n";
        return false;
    }
    if (const QString failed = AtomicFile::write(
            target, QByteArrayView(text.data(), static_cast<qsizetype>(text.size())));
        !failed.isEmpty()) {
        std::cerr << "recipegrid export-ci: " << target.toStdString() << ": "
                  << failed.toStdString() << '\n';
        return false;
    }
    return true;
}

// release.nix and hydra-jobset.json into `folder`; returns the exit status.
int writeHydra(const QCommandLineParser& parser, const ExportCiOptions& options,
               const QString& repo, const QString& recipeDir, const QStringList& variants)
{
    // release.nix names each recipe with a Nix path literal, which takes no other characters.
    static const QRegularExpression pathLiteral(
        QStringLiteral("^[A-Za-z0-9._+-]+(/[A-Za-z0-9._+-]+)*$"));
    if (!pathLiteral.match(recipeDir).hasMatch()) {
        std::cerr << "recipegrid export-ci: --format hydra needs a recipe directory inside the "
                     "repository made of letters, digits and ._+-, not '"
                  << recipeDir.toStdString() << "'\n";
        return 2;
    }
    HydraJobset jobset;
    jobset.variants = variants;
    jobset.recipeDir = recipeDir;
    jobset.repositoryUrl = parser.isSet(options.repoUrl) ? parser.value(options.repoUrl)
                                                         : QFileInfo(repo).absoluteFilePath();
    std::string error;
    if (const auto git = GitRepositoryInfo::open(repo.toStdString(), &error);
        git && !git->currentBranch().empty())
        jobset.branch = QString::fromStdString(git->currentBranch());
    const QString folder = parser.isSet(options.output) ? parser.value(options.output) : repo;
    const QString release = QDir(folder).filePath(QStringLiteral("release.nix"));
    const QString spec = QDir(folder).filePath(QStringLiteral("hydra-jobset.json"));
    if (!writeFile(jobset.releaseNix().toStdString(), release) ||
        !writeFile(jobset.jobsetSpec(), spec))
        return 1;
    std::cout << "wrote " << release.toStdString() << " and " << spec.toStdString() << " ("
              << variants.size() << " variant(s), branch " << jobset.branch.toStdString() << ")\n";
    return 0;
}

// Writes `yaml` to `target` ("-": stdout); returns the exit status.
int writeWorkflow(const std::string& yaml, const QString& target, qsizetype variantCount)
{
    if (target == QLatin1String("-")) {
        std::cout << yaml;
        return 0;
    }
    if (!writeFile(yaml, target))
        return 1;
    std::cout << "wrote " << target.toStdString() << " (" << variantCount << " variant(s))\n";
    return 0;
}

} // namespace

int ExportCiCommand::run(const QStringList& arguments)
{
    QCommandLineParser parser;
    const ExportCiOptions options;
    options.addTo(&parser);
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
    QStringList variants = positional.mid(1);
    const QString format = parser.value(options.format);
    if (format != QLatin1String("github") && format != QLatin1String("hydra")) {
        std::cerr << "recipegrid export-ci: unknown format '" << format.toStdString()
                  << "' (github, hydra)\n";
        return 2;
    }
    if (const auto status = readWorkflow(parser, options, repo, &workflow, &variants))
        return *status;
    if (format == QLatin1String("hydra"))
        return writeHydra(parser, options, repo, workflow.recipeDir, variants);
    const QString target =
        parser.isSet(options.output)
            ? parser.value(options.output)
            : QDir(repo).filePath(QStringLiteral(".github/workflows/recipegrid-build.yml"));
    return writeWorkflow(workflow.toYaml(), target, variants.size());
}

} // namespace rg
