#include "checkcommand.h"

#include "analysis/analysisreport.h"
#include "analysis/analyzer.h"
#include "evalcommand.h"
#include "evaloptions.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <iostream>
#include <memory>
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

// The options of `recipegrid check`, in the order --help lists them.
struct CheckOptions
{
    QCommandLineOption spec{
        QStringLiteral("spec"),
        QStringLiteral("Matrix spec file (default: .flox/recipegrid.json in the repository; "
                       "inferred from the recipes when absent)."),
        QStringLiteral("FILE")};
    QCommandLineOption rev{
        QStringLiteral("rev"),
        QStringLiteral("Analyse this git revision (branch, tag, commit, HEAD~1, …) instead of "
                       "the work tree; nothing is checked out."),
        QStringLiteral("REV")};
    QCommandLineOption format{QStringLiteral("format"),
                              QStringLiteral("Output format: text, json or sarif."),
                              QStringLiteral("FORMAT"), QStringLiteral("text")};
    QCommandLineOption recipeDir{
        QStringLiteral("recipe-dir"),
        QStringLiteral("Recipe directory relative to the repository (default: the spec's, "
                       "or .flox/pkgs)."),
        QStringLiteral("DIR")};
    QCommandLineOption eval{
        QStringLiteral("eval"),
        QStringLiteral("Also evaluate every recipe with Nix against its pin; Nix's answer "
                       "overrules the static reading where they disagree (see recipegrid eval).")};
    EvalOptions evalOptions;

    void addTo(QCommandLineParser* parser) const
    {
        parser->setApplicationDescription(
            QStringLiteral("Analyse a recipe repository: which variants of the matrix spec are ok, "
                           "broken, redundant, missing, unexpected or impossible, and why.\n\n"
                           "Exit status: 0 no findings, 1 findings, 2 usage or I/O error."));
        parser->addHelpOption();
        parser->addOptions({spec, rev, format, recipeDir, eval});
        parser->addOptions(evalOptions.options());
        parser->addPositionalArgument(QStringLiteral("REPO"),
                                      QStringLiteral("The recipe repository (a git work tree)."));
    }
};

// The analysis in `format` on stdout; the exit status says whether it found problems.
int printReport(const QString& format, const Analysis& analysis, const ReportContext& context)
{
    if (format == QLatin1String("json"))
        std::cout << AnalysisReport::json(analysis, context);
    else if (format == QLatin1String("sarif"))
        std::cout << AnalysisReport::sarif(analysis, context);
    else
        std::cout << AnalysisReport::text(analysis, context, ::isatty(STDOUT_FILENO) == 1);
    std::cout.flush();
    return AnalysisReport::problemCount(analysis) > 0 ? 1 : 0;
}

} // namespace

int CheckCommand::run(const QStringList& arguments)
{
    QCommandLineParser parser;
    const CheckOptions options;
    options.addTo(&parser);
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
    const QString format = parser.value(options.format);
    if (format != QLatin1String("text") && format != QLatin1String("json") &&
        format != QLatin1String("sarif"))
        return usageError(QStringLiteral("unknown format '%1' (text, json or sarif)").arg(format));

    // Nix reads the files on disk, so an evaluation is of the work tree only.
    if (parser.isSet(options.eval) && parser.isSet(options.rev))
        return usageError(
            QStringLiteral("--eval evaluates the work tree; it cannot be combined with --rev"));

    const QFileInfo repo(positional.front());
    if (!repo.exists())
        return ioError(positional.front().toStdString() + ": no such repository");
    if (!repo.isDir())
        return ioError(positional.front().toStdString() + ": not a directory");
    const std::string root = repo.absoluteFilePath().toStdString();

    AnalyzerOptions analyzer;
    if (parser.isSet(options.spec)) {
        const QFileInfo spec(parser.value(options.spec));
        if (!spec.isFile())
            return ioError(parser.value(options.spec).toStdString() + ": no such spec file");
        analyzer.specPath = spec.absoluteFilePath().toStdString();
    }
    if (parser.isSet(options.recipeDir))
        analyzer.recipeDir = parser.value(options.recipeDir).toStdString();

    ReportContext context;
    context.repository = root;
    context.toolVersion = QCoreApplication::applicationVersion().toStdString();
    std::unique_ptr<RepositorySource> source;
    if (parser.isSet(options.rev)) {
        std::string error;
        context.revision = parser.value(options.rev).toStdString();
        source = openGitRevision(root, context.revision, &error);
        if (!source)
            return ioError(error);
    } else {
        source = openWorkTree(root);
    }

    Analysis analysis = Analyzer().analyze(*source, analyzer);
    if (!analysis.sourceError.empty())
        return ioError(analysis.sourceError);
    if (parser.isSet(options.eval)) {
        std::string error;
        const EvalSettings settings = options.evalOptions.settingsFrom(parser, root, &error);
        if (!error.empty())
            return usageError(QString::fromStdString(error));
        EvalCommand::evaluateInto(analysis, *source, settings, {}, &error);
        if (!error.empty())
            return ioError(error);
    }

    return printReport(format, analysis, context);
}

} // namespace rg
