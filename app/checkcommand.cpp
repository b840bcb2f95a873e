#include "checkcommand.h"

#include "recipes/analysisreport.h"
#include "recipes/analyzer.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <iostream>
#include <unistd.h>

namespace rg {

namespace {

int usageError(const QString& message)
{
    std::cerr << "recipegrid check: " << message.toStdString() << "\n"
              << "Try 'recipegrid check --help'.\n";
    return 2;
}

int ioError(const std::string& message)
{
    std::cerr << "recipegrid check: " << message << "\n";
    return 2;
}

} // namespace

int CheckCommand::run(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Analyse a recipe repository: which variants of the matrix spec are ok, "
                       "broken, redundant, missing, unexpected or impossible, and why.\n\n"
                       "Exit status: 0 no findings, 1 findings, 2 usage or I/O error."));
    parser.addHelpOption();
    const QCommandLineOption specOption(
        QStringLiteral("spec"),
        QStringLiteral("Matrix spec file (default: .flox/recipegrid.json in the repository; "
                       "inferred from the recipes when absent)."),
        QStringLiteral("FILE"));
    const QCommandLineOption revOption(
        QStringLiteral("rev"),
        QStringLiteral("Analyse this git revision (branch, tag, commit, HEAD~1, …) instead of "
                       "the work tree; nothing is checked out."),
        QStringLiteral("REV"));
    const QCommandLineOption formatOption(QStringLiteral("format"),
                                          QStringLiteral("Output format: text, json or sarif."),
                                          QStringLiteral("FORMAT"), QStringLiteral("text"));
    const QCommandLineOption recipeDirOption(
        QStringLiteral("recipe-dir"),
        QStringLiteral("Recipe directory relative to the repository (default: the spec's, "
                       "or .flox/pkgs)."),
        QStringLiteral("DIR"));
    parser.addOptions({specOption, revOption, formatOption, recipeDirOption});
    parser.addPositionalArgument(QStringLiteral("REPO"),
                                 QStringLiteral("The recipe repository (a git work tree)."));

    if (!parser.parse(arguments))
        return usageError(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        // The parser names the binary only; the subcommand belongs in the usage line too.
        QString help = parser.helpText();
        help.replace(0, help.indexOf(QLatin1Char('\n')),
                     QStringLiteral("Usage: recipegrid check [options] REPO"));
        std::cout << help.toStdString();
        return 0;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1)
        return usageError(positional.isEmpty() ? QStringLiteral("missing REPO argument")
                                               : QStringLiteral("expected one REPO argument"));
    const QString format = parser.value(formatOption);
    if (format != QLatin1String("text") && format != QLatin1String("json") &&
        format != QLatin1String("sarif"))
        return usageError(QStringLiteral("unknown format '%1' (text, json or sarif)").arg(format));

    const QFileInfo repo(positional.front());
    if (!repo.exists())
        return ioError(positional.front().toStdString() + ": no such repository");
    if (!repo.isDir())
        return ioError(positional.front().toStdString() + ": not a directory");
    const std::string root = repo.absoluteFilePath().toStdString();

    AnalyzerOptions options;
    if (parser.isSet(specOption)) {
        const QFileInfo spec(parser.value(specOption));
        if (!spec.isFile())
            return ioError(parser.value(specOption).toStdString() + ": no such spec file");
        options.specPath = spec.absoluteFilePath().toStdString();
    }
    if (parser.isSet(recipeDirOption))
        options.recipeDir = parser.value(recipeDirOption).toStdString();

    ReportContext context;
    context.repository = root;
    context.toolVersion = QCoreApplication::applicationVersion().toStdString();
    std::unique_ptr<RepositorySource> source;
    if (parser.isSet(revOption)) {
        std::string error;
        context.revision = parser.value(revOption).toStdString();
        source = openGitRevision(root, context.revision, &error);
        if (!source)
            return ioError(error);
    } else {
        source = openWorkTree(root);
    }

    const Analysis analysis = Analyzer().analyze(*source, options);
    if (!analysis.sourceError.empty())
        return ioError(analysis.sourceError);

    if (format == QLatin1String("json"))
        std::cout << AnalysisReport::json(analysis, context);
    else if (format == QLatin1String("sarif"))
        std::cout << AnalysisReport::sarif(analysis, context);
    else
        std::cout << AnalysisReport::text(analysis, context, ::isatty(STDOUT_FILENO) == 1);
    std::cout.flush();
    return AnalysisReport::problemCount(analysis) > 0 ? 1 : 0;
}

} // namespace rg
