#include "changecommand.h"

#include "changes/changeplanner.h"
#include "changes/changesetapplier.h"
#include "changes/gitcommitter.h"
#include "changes/unifieddiff.h"
#include "commandline.h"
#include "recipes/analysisreport.h"
#include "recipes/analyzer.h"
#include "recipes/gitlibrary.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <git2.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

namespace rg {

namespace {

const char* const dot = " \xc2\xb7 "; // " · "

struct Invocation
{
    ChangeAction action = ChangeAction::Complete;
    std::string name; // the subcommand as typed: "complete", "delete", …
    std::string root; // absolute
    QStringList cells;
    std::string package;
    bool readme = true;
    bool dryRun = false;
    bool diff = false;
    bool commit = false;
    std::string message;
    bool json = false;
    AnalyzerOptions analyzer;
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
    QCommandLineOption noReadme{
        QStringLiteral("no-readme"),
        QStringLiteral("Leave README.md's variant-matrix section as it is.")};
    QCommandLineOption dryRun{QStringLiteral("dry-run"),
                              QStringLiteral("Print the plan; write nothing.")};
    QCommandLineOption diff{QStringLiteral("diff"),
                            QStringLiteral("Print the unified diff of each file.")};
    QCommandLineOption commit{
        QStringLiteral("commit"),
        QStringLiteral("Commit the changed files on HEAD (git identity from git config).")};
    QCommandLineOption message{
        QStringLiteral("message"),
        QStringLiteral("Commit message (default: the change set's, listing the variants)."),
        QStringLiteral("TEXT")};
    QCommandLineOption format{QStringLiteral("format"),
                              QStringLiteral("Output format: text or json."),
                              QStringLiteral("FORMAT"), QStringLiteral("text")};
    QCommandLineOption spec{
        QStringLiteral("spec"),
        QStringLiteral("Matrix spec file (default: .flox/recipegrid.json in the repository; "
                       "inferred from the recipes when absent)."),
        QStringLiteral("FILE")};
    QCommandLineOption recipeDir{
        QStringLiteral("recipe-dir"),
        QStringLiteral("Recipe directory relative to the repository (default: the spec's, "
                       "or .flox/pkgs)."),
        QStringLiteral("DIR")};

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
        parser->addOptions(
            {package, noReadme, dryRun, diff, commit, message, format, spec, recipeDir});
        parser->addPositionalArgument(
            QStringLiteral("REPO"),
            QStringLiteral("The recipe repository (a writable work tree)."));
        if (action != ChangeAction::Complete)
            parser->addPositionalArgument(QStringLiteral("CELL"),
                                          QStringLiteral("Cells or recipe paths."),
                                          QStringLiteral("CELL…"));
    }
};

// The values of a parsed command line that need no repository; a return value is the exit
// status to stop with.
std::optional<int> readValues(const QCommandLineParser& parser, const Options& options,
                              Invocation* invocation)
{
    const std::string& command = invocation->name;
    const bool complete = invocation->action == ChangeAction::Complete;
    QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return CommandLine::usageError(command, QStringLiteral("missing REPO argument"));
    invocation->root = positional.takeFirst().toStdString();
    if (complete && !positional.isEmpty())
        return CommandLine::usageError(
            command, QStringLiteral("expected one REPO argument (cells: --cell)"));
    if (!complete && positional.isEmpty())
        return CommandLine::usageError(command, QStringLiteral("missing CELL argument"));
    invocation->cells = complete ? parser.values(options.cell) : positional;

    const QString format = parser.value(options.format);
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return CommandLine::usageError(
            command, QStringLiteral("unknown format '%1' (text or json)").arg(format));
    invocation->json = format == QLatin1String("json");
    invocation->package = parser.value(options.package).toStdString();
    invocation->readme = !parser.isSet(options.noReadme);
    invocation->dryRun = parser.isSet(options.dryRun);
    invocation->diff = parser.isSet(options.diff);
    invocation->commit = parser.isSet(options.commit);
    invocation->message = parser.value(options.message).toStdString();
    if (parser.isSet(options.message) && !invocation->commit)
        return CommandLine::usageError(command, QStringLiteral("--message needs --commit"));
    if (invocation->commit && invocation->dryRun)
        return CommandLine::usageError(
            command, QStringLiteral("--dry-run writes nothing, so it cannot --commit"));
    if (parser.isSet(options.recipeDir))
        invocation->analyzer.recipeDir = parser.value(options.recipeDir).toStdString();
    return std::nullopt;
}

// The repository and the spec file must exist before anything is analysed.
std::optional<int> checkPaths(const QCommandLineParser& parser, const Options& options,
                              Invocation* invocation)
{
    const std::string& command = invocation->name;
    const QString repo = QString::fromStdString(invocation->root);
    const QFileInfo info(repo);
    if (!info.exists())
        return CommandLine::repositoryError(command, invocation->root + ": no such repository");
    if (!info.isDir())
        return CommandLine::repositoryError(command, invocation->root + ": not a directory");
    if (!invocation->dryRun && !info.isWritable())
        return CommandLine::repositoryError(command, invocation->root + ": not writable");
    invocation->root = QDir::cleanPath(info.absoluteFilePath()).toStdString();
    if (parser.isSet(options.spec)) {
        const QFileInfo spec(parser.value(options.spec));
        if (!spec.isFile())
            return CommandLine::repositoryError(command, parser.value(options.spec).toStdString() +
                                                             ": no such spec file");
        invocation->analyzer.specPath = spec.absoluteFilePath().toStdString();
    }
    return std::nullopt;
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
    if (const auto stop = readValues(parser, options, invocation))
        return stop;
    return checkPaths(parser, options, invocation);
}

std::string cellPart(const std::string& cellKey)
{
    const auto colon = cellKey.find(':');
    return colon == std::string::npos ? cellKey : cellKey.substr(colon + 1);
}

// A recipe file of the analysis, named by its path relative to the root, an absolute path,
// or its file name in the recipe directory (".nix" optional).
std::string recipePathOf(const Analysis& analysis, const std::string& root, const QString& arg)
{
    QString relative = QDir::cleanPath(arg);
    if (QDir::isAbsolutePath(relative))
        relative = QDir(QString::fromStdString(root)).relativeFilePath(relative);
    const std::string path = relative.toStdString();
    const std::string inDir = analysis.recipeDir.empty() ? path : analysis.recipeDir + "/" + path;
    for (const MatrixEntry& entry : analysis.entries) {
        if (!entry.recipe)
            continue;
        const std::string& file = entry.recipe->path;
        if (file == path || file == inDir || file == inDir + ".nix")
            return file;
    }
    return {};
}

// The cell a user names, as the planner takes it: the variant name when the cell has one
// entry (a readable commit title), else the cell key, which covers all its recipes.
std::vector<std::string> cellsNamed(const Analysis& analysis, const std::string& package,
                                    const std::string& arg)
{
    const std::optional<VariantName> named =
        arg.find(':') == std::string::npos ? VariantName::parse(arg) : std::nullopt;
    std::vector<const MatrixEntry*> matches;
    for (const MatrixEntry& entry : analysis.entries) {
        if (!package.empty() && entry.package != package)
            continue;
        const bool byVariant =
            named && named->suffixes.empty() && named->cellKey() == cellPart(entry.cellKey) &&
            (named->package == entry.package || named->package == entry.variant.package);
        if (entry.cellKey == arg || cellPart(entry.cellKey) == arg || byVariant)
            matches.push_back(&entry);
    }
    std::set<std::string> keys;
    for (const MatrixEntry* entry : matches)
        keys.insert(entry->cellKey);
    if (keys.size() != 1)
        return {keys.begin(), keys.end()};
    return {matches.size() == 1 ? matches.front()->variant.toString() : *keys.begin()};
}

// Every argument must name something of the analysis: planning for a typo would only report
// it as skipped, and a script would take the exit status 0 for success.
std::optional<int> resolveCells(const Analysis& analysis, const Invocation& invocation,
                                std::vector<std::string>* cells)
{
    for (const QString& arg : invocation.cells) {
        const std::string text = arg.toStdString();
        const bool looksLikeFile = arg.contains(QLatin1Char('/')) || arg.endsWith(".nix");
        std::vector<std::string> found;
        if (looksLikeFile)
            if (std::string path = recipePathOf(analysis, invocation.root, arg); !path.empty())
                found = {path};
        if (found.empty())
            found = cellsNamed(analysis, invocation.package, text);
        if (found.empty())
            if (std::string path = recipePathOf(analysis, invocation.root, arg); !path.empty())
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
            return CommandLine::repositoryError(
                invocation.name, "unknown cell or recipe '" + AnalysisReport::printable(text) +
                                     "': not in the matrix of " + invocation.root +
                                     " and no recipe file of that name");
        if (std::find(cells->begin(), cells->end(), found.front()) == cells->end())
            cells->push_back(found.front());
    }
    return std::nullopt;
}

std::string countsLine(const ChangeSet& changes)
{
    return std::to_string(changes.count(FileOperationKind::Create)) + " create" + dot +
           std::to_string(changes.count(FileOperationKind::Modify)) + " modify" + dot +
           std::to_string(changes.count(FileOperationKind::Delete)) + " delete";
}

void printPlan(const ChangeSet& changes, bool diff)
{
    std::string out = AnalysisReport::printable(changes.title) + "\n";
    for (const FileOperation& op : changes.operations)
        if (op.selected)
            out += std::string(fileOperationKindId(op.kind)) + "  " +
                   AnalysisReport::printable(op.path) + "  (" +
                   AnalysisReport::printable(op.reason) + ")\n";
    for (const FileOperation& op : changes.operations)
        if (!op.selected)
            out += "not selected: " + std::string(fileOperationKindId(op.kind)) + "  " +
                   AnalysisReport::printable(op.path) + "\n";
    out += countsLine(changes) + "\n";
    if (!changes.skipped.empty()) {
        out += "Skipped (" + std::to_string(changes.skipped.size()) + "):\n";
        for (const SkippedCell& cell : changes.skipped)
            out += "  " + AnalysisReport::printable(cell.subject) + ": " +
                   AnalysisReport::printable(cell.why) + "\n";
    }
    if (diff)
        for (const FileOperation& op : changes.operations)
            if (op.selected)
                out += "\n" + UnifiedDiff::of(op);
    std::cout << out << std::flush;
}

nlohmann::json planJson(const ChangeSet& changes, const Invocation& invocation)
{
    nlohmann::json doc;
    doc["schema"] = 1;
    doc["command"] = invocation.name;
    doc["repository"] = invocation.root;
    doc["title"] = changes.title;
    doc["dryRun"] = invocation.dryRun;
    nlohmann::json operations = nlohmann::json::array();
    for (const FileOperation& op : changes.operations) {
        const DiffStat stat = UnifiedDiff::statOf(op);
        nlohmann::json entry = {
            {"kind", fileOperationKindId(op.kind)},
            {"path", op.path},
            {"reason", op.reason},
            {"subject", op.subject.empty() ? nlohmann::json() : nlohmann::json(op.subject)},
            {"selected", op.selected},
            {"added", stat.added},
            {"removed", stat.removed}};
        if (invocation.diff)
            entry["diff"] = UnifiedDiff::of(op);
        operations.push_back(std::move(entry));
    }
    doc["operations"] = std::move(operations);
    doc["counts"] = {{"create", changes.count(FileOperationKind::Create)},
                     {"modify", changes.count(FileOperationKind::Modify)},
                     {"delete", changes.count(FileOperationKind::Delete)}};
    nlohmann::json skipped = nlohmann::json::array();
    for (const SkippedCell& cell : changes.skipped)
        skipped.push_back({{"subject", cell.subject}, {"why", cell.why}});
    doc["skipped"] = std::move(skipped);
    doc["applied"] = false;
    doc["commit"] = nullptr;
    doc["error"] = nullptr;
    return doc;
}

// Before anything is written: a commit that cannot be made must not leave the work tree
// changed and uncommitted.
std::string commitPrecondition(const std::string& root)
{
    GitLibrary::ensureInitialised();
    git_repository* repository = nullptr;
    if (git_repository_open_ext(&repository, root.c_str(), 0, nullptr) != 0)
        return root + ": not a git repository (" + GitLibrary::lastError() + ")";
    std::string error;
    git_signature* signature = nullptr;
    if (git_repository_is_bare(repository))
        error = root + ": a bare git repository has no work tree";
    else if (git_signature_default(&signature, repository) != 0)
        error = "no git identity: set user.name and user.email (git config)";
    git_signature_free(signature);
    git_repository_free(repository);
    return error;
}

struct Outcome
{
    int exitCode = 0;
    std::string text; // the lines after the plan
};

// Applies and commits; `doc` gets the results for JSON output.
Outcome applyAndCommit(const ChangeSet& changes, const Invocation& invocation, nlohmann::json* doc)
{
    const std::string prefix = "recipegrid " + invocation.name + ": ";
    const ApplyResult applied = ChangeSetApplier(invocation.root).apply(changes);
    if (!applied.applied) {
        // The applier's refusals already start with the file; its write errors may not.
        const bool named = applied.file.empty() || applied.error.starts_with(applied.file);
        const std::string where = named ? std::string() : applied.file + ": ";
        (*doc)["error"] = {{"file", applied.file}, {"message", applied.error}};
        std::cerr << prefix << "cannot apply: " << AnalysisReport::printable(where + applied.error)
                  << "; nothing was changed\n";
        return {1, {}};
    }
    (*doc)["applied"] = true;
    Outcome outcome;
    outcome.text = "Applied: " + countsLine(changes) + "\n";
    if (invocation.commit) {
        const std::string message =
            invocation.message.empty() ? changes.commitMessage() : invocation.message;
        const CommitResult committed = GitCommitter::commit(invocation.root, changes, message);
        if (!committed.committed) {
            (*doc)["error"] = {{"file", nullptr}, {"message", committed.error}};
            std::cerr << prefix
                      << "applied but not committed: " << AnalysisReport::printable(committed.error)
                      << "\n";
            return {1, outcome.text};
        }
        (*doc)["commit"] = committed.id;
        outcome.text += "Committed " + committed.id.substr(0, 12) + ": " +
                        AnalysisReport::printable(message.substr(0, message.find('\n'))) + "\n";
    }
    // What the repository now is, so a run ends with the verdict `check` would give.
    const Analysis after = Analyzer().analyze(*openWorkTree(invocation.root), invocation.analyzer);
    (*doc)["summaryAfter"] = after.summary();
    outcome.text += "Now: " + after.summary() + "\n";
    return outcome;
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
    const std::shared_ptr<const RepositorySource> source = openWorkTree(invocation.root);
    if (!source->isWritable())
        return CommandLine::repositoryError(invocation.name,
                                            invocation.root + ": not a writable work tree");
    const auto analysis =
        std::make_shared<const Analysis>(Analyzer().analyze(*source, invocation.analyzer));
    if (!analysis->sourceError.empty())
        return CommandLine::repositoryError(invocation.name, analysis->sourceError);

    ChangeRequest request;
    request.action = action;
    request.package = invocation.package;
    request.updateReadme = invocation.readme;
    if (const auto stop = resolveCells(*analysis, invocation, &request.cells))
        return *stop;
    if (invocation.commit)
        if (const std::string error = commitPrecondition(invocation.root); !error.empty())
            return CommandLine::repositoryError(invocation.name, error);

    const ChangeSet changes = ChangePlanner(source, analysis).plan(request);
    nlohmann::json doc = planJson(changes, invocation);
    if (!invocation.json)
        printPlan(changes, invocation.diff);

    Outcome outcome;
    if (!changes.hasSelected())
        outcome.text = "Nothing to do.\n";
    else if (invocation.dryRun)
        outcome.text = "Dry run: nothing was written.\n";
    else
        outcome = applyAndCommit(changes, invocation, &doc);

    if (invocation.json)
        std::cout << doc.dump(2) << "\n";
    else
        std::cout << outcome.text;
    std::cout.flush();
    return outcome.exitCode;
}

} // namespace rg
