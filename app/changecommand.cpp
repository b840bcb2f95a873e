#include "changecommand.h"

#include "analysis/analysisreport.h"
#include "analysis/analyzer.h"
#include "analysis/cellselector.h"
#include "changes/changeplanner.h"
#include "changes/gitcommitter.h"
#include "changesetoptions.h"
#include "changesetrun.h"
#include "commandline.h"

#include <QCommandLineParser>
#include <QDir>
#include <algorithm>
#include <iostream>
#include <optional>
#include <set>

namespace rg {

namespace {

struct Invocation
{
    ChangeAction action = ChangeAction::Complete;
    std::string name; // the subcommand as typed: "complete", "delete", …
    QStringList cells;
    std::string package;
    bool readme = true;            // keep a marked README section up to date
    bool addReadmeSection = false; // --readme: add one to a README without the markers
    bool acceptRemovals = false;
    bool deleteWorking = false;
    ChangeSetRun::Options run; // the repository, output and commit
};

const char* nameOf(ChangeAction action)
{
    switch (action) {
    case ChangeAction::Create:
        return "create";
    case ChangeAction::Fix:
        return "fix";
    case ChangeAction::Delete:
        return "delete";
    case ChangeAction::Complete:
        break;
    }
    return "complete";
}

QString description(ChangeAction action)
{
    switch (action) {
    case ChangeAction::Create:
        return QStringLiteral("Create the recipes of missing cells, each cloned from its group's "
                              "canonical recipe.");
    case ChangeAction::Fix:
        return QStringLiteral("Fix broken recipes: a minimal edit, or the recipe regenerated "
                              "keeping the variant's own values.");
    case ChangeAction::Delete:
        return QStringLiteral("Delete the recipe files of cells (all recipes of a cell), or of "
                              "the recipe files named.");
    case ChangeAction::Complete:
        break;
    }
    return QStringLiteral("Complete a package's matrix: create the missing recipes, fix the "
                          "broken ones, delete the redundant, unexpected and impossible ones.");
}

QString cellSyntax()
{
    return QStringLiteral("A cell is written python313-cpu-avx2, PACKAGE:python313-cpu-avx2 or "
                          "as a variant name (pytorch-python313-cpu-avx2); a recipe as its path "
                          "(.flox/pkgs/….nix, relative to REPO) or file name.");
}

// The options every change command takes (--cell only `complete`, where cells are optional).
struct Options
{
    QCommandLineOption cell{QStringLiteral("cell"),
                            QStringLiteral("Complete only this cell (repeatable)."),
                            QStringLiteral("KEY")};
    QCommandLineOption package{
        QStringLiteral("package"),
        QStringLiteral("The package whose cells are meant (default: the spec's package)."),
        QStringLiteral("P")};
    QCommandLineOption readme{
        QStringLiteral("readme"),
        QStringLiteral("Add a variant-matrix section to a README.md without one (between "
                       "<!-- recipegrid:matrix --> markers). A marked section is always kept "
                       "up to date.")};
    QCommandLineOption noReadme{
        QStringLiteral("no-readme"),
        QStringLiteral("Leave README.md as it is, even its marked variant-matrix section.")};
    QCommandLineOption acceptRemovals{
        QStringLiteral("accept-removals"),
        QStringLiteral("Also apply fixes that remove lines outside what their findings name "
                       "(listed as \"also removes\"); without it those files are left out.")};
    QCommandLineOption deleteWorking{
        QStringLiteral("delete-working"),
        QStringLiteral("Also delete working recipes the spec does not ask for (listed as \"a "
                       "working recipe\"); without it they stay.")};
    ChangeSetOptions changeSet;

    void addTo(QCommandLineParser* parser, ChangeAction action) const
    {
        parser->setApplicationDescription(
            description(action) +
            QStringLiteral("\n\nEvery written recipe is analysed again before it is offered; "
                           "cells that cannot be served are listed with the reason. The change "
                           "set is applied all or nothing.\n") +
            cellSyntax() +
            QStringLiteral("\n\nExit status: 0 done or nothing to do, 1 applying or committing "
                           "failed, 2 usage or repository error."));
        parser->addHelpOption();
        if (action == ChangeAction::Complete)
            parser->addOption(cell);
        parser->addOptions({package, readme, noReadme, acceptRemovals});
        parser->addOptions(changeSet.options());
        if (action == ChangeAction::Complete)
            parser->addOption(deleteWorking);
        parser->addPositionalArgument(
            QStringLiteral("REPO"),
            QStringLiteral("The recipe repository (a writable work tree)."));
        if (action != ChangeAction::Complete)
            parser->addPositionalArgument(QStringLiteral("CELL"),
                                          QStringLiteral("Cells or recipe paths."),
                                          QStringLiteral("CELL…"));
    }
};

// The values of a parsed command line, and the repository they apply to; a return value is the exit
// status to stop with.
std::optional<int> readValues(const QCommandLineParser& parser, const Options& options,
                              Invocation* invocation)
{
    const std::string& command = invocation->name;
    const bool complete = invocation->action == ChangeAction::Complete;
    QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return CommandLine::usageError(command, QStringLiteral("missing REPO argument"));
    const QString repo = positional.takeFirst();
    if (complete && !positional.isEmpty())
        return CommandLine::usageError(
            command, QStringLiteral("expected one REPO argument (cells: --cell)"));
    if (!complete && positional.isEmpty())
        return CommandLine::usageError(command, QStringLiteral("missing CELL argument"));
    invocation->cells = complete ? parser.values(options.cell) : positional;

    invocation->package = parser.value(options.package).toStdString();
    if (parser.isSet(options.readme) && parser.isSet(options.noReadme))
        return CommandLine::usageError(command,
                                       QStringLiteral("--readme and --no-readme contradict"));
    invocation->readme = !parser.isSet(options.noReadme);
    invocation->addReadmeSection = parser.isSet(options.readme);
    invocation->acceptRemovals = parser.isSet(options.acceptRemovals);
    invocation->deleteWorking = complete && parser.isSet(options.deleteWorking);
    return options.changeSet.read(command, parser, repo, &invocation->run);
}

// Fills `invocation` from the command line; a return value is the exit status to stop with.
std::optional<int> parse(ChangeAction action, const QStringList& arguments, Invocation* invocation)
{
    invocation->action = action;
    invocation->name = nameOf(action);
    const Options options;
    QCommandLineParser parser;
    options.addTo(&parser, action);
    if (!parser.parse(arguments))
        return CommandLine::usageError(invocation->name, parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        return CommandLine::printHelp(
            parser,
            QStringLiteral("recipegrid %1 [options] REPO%2")
                .arg(QString::fromStdString(invocation->name),
                     action == ChangeAction::Complete ? QString() : QStringLiteral(" CELL…")));
    }
    return readValues(parser, options, invocation);
}

// A recipe file of the analysis, named by its path relative to the root, an absolute path,
// or its file name in the recipe directory (".nix" optional).
// Whether a recipe at `file` is what `arg` names: its path from the root (or absolute), from
// the recipe directory, or that without ".nix".
bool namesFile(const Analysis& analysis, const std::string& root, const QString& arg,
               const std::string& file)
{
    QString relative = QDir::cleanPath(arg);
    if (QDir::isAbsolutePath(relative))
        relative = QDir(QString::fromStdString(root)).relativeFilePath(relative);
    const std::string path = relative.toStdString();
    const std::string inDir = analysis.recipeDir.empty() ? path : analysis.recipeDir + "/" + path;
    return file == path || file == inDir || file == inDir + ".nix";
}

std::string recipePathOf(const Analysis& analysis, const std::string& root, const QString& arg)
{
    for (const Cell& entry : analysis.cells)
        if (entry.recipe && namesFile(analysis, root, arg, entry.recipe->path))
            return entry.recipe->path;
    return {};
}

// The cell a user names, as the planner takes it: the variant name when the cell has one
// entry (a readable commit title), else the cell key, which covers all its recipes.
std::vector<std::string> cellsNamed(const Analysis& analysis, const std::string& package,
                                    const std::string& arg)
{
    const std::optional<VariantName> named =
        arg.find(':') == std::string::npos ? VariantName::parse(arg) : std::nullopt;
    const CellSelector selector(arg);
    std::vector<const Cell*> matches;
    for (const Cell& entry : analysis.cells) {
        if (!package.empty() && entry.package != package)
            continue;
        // A variant name of the cell in any package word the cell's recipes use
        // (pytorch210-… for pytorch's cells), even when no recipe of that name exists.
        const bool byVariant =
            named && named->suffixes.empty() && named->cellKey() == entry.id.point() &&
            (named->package == entry.package || named->package == entry.variant.package);
        if (selector.namesCellKey(entry.id.toKey()) || byVariant)
            matches.push_back(&entry);
    }
    std::set<std::string> keys;
    for (const Cell* entry : matches)
        keys.insert(entry->id.toKey());
    if (keys.size() != 1)
        return {keys.begin(), keys.end()};
    return {matches.size() == 1 ? matches.front()->variant.toString() : *keys.begin()};
}

// Every argument must name something of the analysis: planning for a typo would only report
// it as skipped, and a script would take the exit status 0 for success.
// A recipe file of the repository whose name names no variant (ollama-cuda.nix), "" when
// `arg` is none.
std::string unnamedRecipeOf(const Analysis& analysis, const std::string& root, const QString& arg)
{
    for (const RecipeFacts& facts : analysis.unnamed)
        if (namesFile(analysis, root, arg, facts.path))
            return facts.path;
    return {};
}

// Cells `invocation` names; recipe files that are not variants of the matrix go to
// `notVariants` (there is nothing to plan for them). A return value is the exit status.
std::optional<int> resolveCells(const Analysis& analysis, const Invocation& invocation,
                                std::vector<std::string>* cells,
                                std::vector<SkippedCell>* notVariants)
{
    for (const QString& arg : invocation.cells) {
        const std::string text = arg.toStdString();
        const bool looksLikeFile = arg.contains(QLatin1Char('/')) || arg.endsWith(".nix");
        std::vector<std::string> found;
        if (looksLikeFile)
            if (std::string path = recipePathOf(analysis, invocation.run.root, arg); !path.empty())
                found = {path};
        if (found.empty())
            found = cellsNamed(analysis, invocation.package, text);
        if (found.empty())
            if (std::string path = recipePathOf(analysis, invocation.run.root, arg); !path.empty())
                found = {path};
        if (found.size() > 1) {
            std::string list;
            for (const std::string& key : found)
                list += (list.empty() ? "" : ", ") + key;
            return CommandLine::repositoryError(invocation.name,
                                                "'" + AnalysisReport::printable(text) + "' names " +
                                                    std::to_string(found.size()) + " cells (" +
                                                    list + "): use --package or PACKAGE:CELL");
        }
        if (found.empty())
            if (std::string path = unnamedRecipeOf(analysis, invocation.run.root, arg);
                !path.empty()) {
                notVariants->push_back(
                    {path, "a recipe, but not a variant of the matrix (its file name names no "
                           "cell): nothing to " +
                               std::string(nameOf(invocation.action))});
                continue;
            }
        if (found.empty()) {
            const std::string& package = invocation.package;
            const std::string hint = CellSelector::didYouMean(
                CellSelector(text).namesEndingInIt(analysis.cells, [&package](const Cell& entry) {
                    return package.empty() || entry.package == package;
                }));
            return CommandLine::repositoryError(
                invocation.name, "unknown cell or recipe '" + AnalysisReport::printable(text) +
                                     "': not in the matrix of " + invocation.run.root +
                                     " and no recipe file of that name" + hint);
        }
        if (std::find(cells->begin(), cells->end(), found.front()) == cells->end())
            cells->push_back(found.front());
    }
    return std::nullopt;
}

} // namespace

int ChangeCommand::complete(const QStringList& arguments)
{
    return run(ChangeAction::Complete, arguments);
}

int ChangeCommand::create(const QStringList& arguments)
{
    return run(ChangeAction::Create, arguments);
}

int ChangeCommand::fix(const QStringList& arguments)
{
    return run(ChangeAction::Fix, arguments);
}

int ChangeCommand::remove(const QStringList& arguments)
{
    return run(ChangeAction::Delete, arguments);
}

int ChangeCommand::run(ChangeAction action, const QStringList& arguments)
{
    Invocation invocation;
    if (const auto stop = parse(action, arguments, &invocation))
        return *stop;
    const std::shared_ptr<const RepositorySource> source = openWorkTree(invocation.run.root);
    if (!source->isWritable())
        return CommandLine::repositoryError(invocation.name,
                                            invocation.run.root + ": not a writable work tree");
    const auto analysis =
        std::make_shared<const Analysis>(Analyzer().analyze(*source, invocation.run.analyzer));
    if (!analysis->sourceError.empty())
        return CommandLine::repositoryError(invocation.name, analysis->sourceError);

    ChangeRequest request;
    request.action = action;
    request.package = invocation.package;
    request.updateReadme = invocation.readme;
    request.addReadmeSection = invocation.addReadmeSection;
    std::vector<SkippedCell> notVariants;
    if (const auto stop = resolveCells(*analysis, invocation, &request.cells, &notVariants))
        return *stop;
    // Only files outside the matrix named: nothing to do, said as such (no cells would mean
    // the whole package to the planner).
    const bool nothingNamed = request.cells.empty() && !notVariants.empty();
    if (invocation.run.commit)
        if (const std::string error = GitCommitter::precondition(invocation.run.root);
            !error.empty())
            return CommandLine::repositoryError(invocation.name, error);

    ChangeSet changes = nothingNamed ? ChangeSet{} : ChangePlanner(source, analysis).plan(request);
    changes.skipped.insert(changes.skipped.begin(), notVariants.begin(), notVariants.end());
    if (nothingNamed) {
        std::string verb = nameOf(invocation.action);
        verb[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(verb[0])));
        changes.title = verb + " " + notVariants.front().subject;
    }
    if (invocation.acceptRemovals)
        for (FileOperation& op : changes.operations)
            op.selected = op.selected || !op.alsoRemoves.empty();
    if (invocation.deleteWorking)
        for (FileOperation& op : changes.operations)
            op.selected = op.selected || !op.heldBack.empty();
    const ChangeSetRun::Options& options = invocation.run;
    if (!options.json)
        std::cout << AnalysisReport::printable(changes.title) + "\n" +
                         ChangeSetRun::planText(changes, options.diff, std::string())
                  << std::flush;
    return ChangeSetRun::finish(changes, options, changes.commitMessage(),
                                ChangeSetRun::document(changes, options));
}

} // namespace rg
