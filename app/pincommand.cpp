#include "pincommand.h"

#include "analysis/analysisreport.h"
#include "analysis/analyzer.h"
#include "changes/gitcommitter.h"
#include "changes/pinbumpplanner.h"
#include "changesetoptions.h"
#include "changesetrun.h"
#include "commandline.h"
#include "eval/changeimpact.h"
#include "eval/nixinstallation.h"
#include "evaloptions.h"
#include "matrix/versionspelling.h"
#include "pininspectcommand.h"
#include "pins/pinalignment.h"
#include "pins/pininventory.h"
#include "pins/pinprefetcher.h"
#include "pins/pinreport.h"
#include "sessions/changeimpactsession.h"

#include <QCommandLineParser>
#include <QDir>
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

namespace rg {

namespace {

const char* const dot = " \xc2\xb7 "; // " · "

// ---- bump-pin --------------------------------------------------------------------------------

constexpr const char* bumpName = "bump-pin";

struct BumpInvocation
{
    std::string root;
    std::string from, to; // as typed
    PinBumpRequest request;
    std::vector<AlignmentSource> compare;
    bool prefetch = false;
    int prefetchTimeout = 600;
    ChangeSetRun::Options run; // the repository, output and commit
    bool evaluate = false;
    EvalSettings evalSettings;
};

struct BumpOptions
{
    QCommandLineOption from{QStringLiteral("from"),
                            QStringLiteral("The pin the recipes move from (full, or 7+ hex digits "
                                           "of one they use)."),
                            QStringLiteral("OLD")};
    QCommandLineOption to{QStringLiteral("to"),
                          QStringLiteral("The new pin: 40 hex digits, or 7+ of a pin known from "
                                         "this repository's branches or --compare."),
                          QStringLiteral("NEW")};
    QCommandLineOption scope{
        QStringLiteral("scope"),
        QStringLiteral("Which recipes (repeatable, all must match): all, package:P, "
                       "accelerator:cuda12.9|cpu|darwin, python:3.13, cell:KEY (cells or recipe "
                       "paths; repeat for several). Default: all."),
        QStringLiteral("SCOPE")};
    QCommandLineOption renamePythonSet{
        QStringLiteral("rename-python-set"),
        QStringLiteral("Also rename python3Packages to the file's python3XXPackages.")};
    QCommandLineOption readme{
        QStringLiteral("readme"),
        QStringLiteral("Also update README.md's table rows quoting the pin.")};
    QCommandLineOption docs{QStringLiteral("docs"),
                            QStringLiteral("Also update other Markdown files quoting the pin.")};
    QCommandLineOption hash{
        QStringLiteral("hash"),
        QStringLiteral("The new pin's source hash (Nix base-32, hex or SRI), or URL=HASH "
                       "(repeatable). Without it (or --prefetch) hashes become a fake all-zero "
                       "hash and the recipes are listed as needing a new one."),
        QStringLiteral("HASH")};
    QCommandLineOption prefetch{
        QStringLiteral("prefetch"),
        QStringLiteral("Learn the new hashes with nix-prefetch-url --unpack (needs network).")};
    QCommandLineOption prefetchTimeout{
        QStringLiteral("prefetch-timeout"),
        QStringLiteral("Seconds to wait for each download (default 600)."),
        QStringLiteral("SECONDS"), QStringLiteral("600")};
    QCommandLineOption compare{
        QStringLiteral("compare"),
        QStringLiteral("A repository (PATH[@REV]) whose pins abbreviated pins may name."),
        QStringLiteral("REPO")};
    ChangeSetOptions changeSet;
    QCommandLineOption evaluate{
        QStringLiteral("evaluate"),
        QStringLiteral("Before writing, evaluate every recipe of the plan with Nix on the old "
                       "and the new pin: what stops evaluating, the key versions before and "
                       "after, which derivations change. Nothing is written when a recipe would "
                       "stop evaluating.")};
    EvalOptions evalOptions;

    void addTo(QCommandLineParser* parser) const
    {
        parser->setApplicationDescription(QStringLiteral(
            "Move recipes from one nixpkgs pin to another. Only the revision strings change, "
            "and the fetcher's hash with them (never kept: the given or prefetched hash, else "
            "a fake all-zero one the first build replaces); optionally the Python package set, "
            "the README's version matrix and Markdown documents, each file of the change set "
            "its own. Applied all or nothing.\n\nExit status: 0 done, 1 prefetching, applying "
            "or committing failed, 2 usage, pin or repository error."));
        parser->addHelpOption();
        parser->addOptions({from, to, scope, renamePythonSet, readme, docs, hash, prefetch,
                            prefetchTimeout, compare});
        parser->addOptions(changeSet.options());
        parser->addOption(evaluate);
        parser->addOptions(evalOptions.options());
        parser->addPositionalArgument(QStringLiteral("REPO"),
                                      QStringLiteral("The recipe repository (a work tree)."));
    }
};

std::string parseScope(const QStringList& values, PinBumpScope* scope)
{
    for (const QString& value : values) {
        const std::string text = value.toStdString();
        const auto colon = text.find(':');
        const std::string kind = text.substr(0, colon);
        const std::string what = colon == std::string::npos ? "" : text.substr(colon + 1);
        if (text == "all")
            continue;
        if (what.empty())
            return "unknown scope '" + text +
                   "' (all, package:P, accelerator:A, python:3.13, cell:KEY)";
        if (kind == "package")
            scope->package = what;
        else if (kind == "accelerator") {
            std::string id = what;
            std::replace(id.begin(), id.end(), '_', '.'); // cuda12_9 as file names write it
            scope->accelerator = id;
        } else if (kind == "python")
            scope->python = what;
        else if (kind == "cell")
            scope->cells.push_back(what);
        else
            return "unknown scope '" + text +
                   "' (all, package:P, accelerator:A, python:3.13, cell:KEY)";
    }
    return {};
}

std::optional<int> readBumpValues(const QCommandLineParser& parser, const BumpOptions& options,
                                  BumpInvocation* inv)
{
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1)
        return CommandLine::usageError(
            bumpName, positional.isEmpty() ? QStringLiteral("missing REPO argument")
                                           : QStringLiteral("expected one REPO argument"));
    if (!parser.isSet(options.from) || !parser.isSet(options.to))
        return CommandLine::usageError(bumpName, QStringLiteral("--from and --to are required"));
    inv->from = parser.value(options.from).trimmed().toStdString();
    inv->to = parser.value(options.to).trimmed().toStdString();
    if (const std::string error = parseScope(parser.values(options.scope), &inv->request.scope);
        !error.empty())
        return CommandLine::usageError(bumpName, QString::fromStdString(error));
    inv->request.renamePythonSet = parser.isSet(options.renamePythonSet);
    inv->request.readme = parser.isSet(options.readme);
    inv->request.docs = parser.isSet(options.docs);
    inv->prefetch = parser.isSet(options.prefetch);
    bool number = false;
    inv->prefetchTimeout = parser.value(options.prefetchTimeout).toInt(&number);
    if (!number || inv->prefetchTimeout <= 0)
        return CommandLine::usageError(bumpName,
                                       QStringLiteral("--prefetch-timeout takes seconds (> 0)"));
    for (const QString& other : parser.values(options.compare))
        inv->compare.push_back(AlignmentSource::parse(other.toStdString()));
    if (const auto stop = options.changeSet.read(bumpName, parser, positional.front(), &inv->run))
        return stop;
    inv->evaluate = parser.isSet(options.evaluate);
    std::string error;
    inv->evalSettings = options.evalOptions.settingsFrom(parser, inv->run.root, &error);
    if (!error.empty())
        return CommandLine::usageError(bumpName, QString::fromStdString(error));
    return std::nullopt;
}

std::optional<int> parseBump(const QStringList& arguments, BumpInvocation* inv, QStringList* hashes)
{
    const BumpOptions options;
    QCommandLineParser parser;
    options.addTo(&parser);
    if (!parser.parse(arguments))
        return CommandLine::usageError(bumpName, parser.errorText());
    if (parser.isSet(QStringLiteral("help")))
        return CommandLine::printHelp(
            parser, QStringLiteral("recipegrid bump-pin [options] REPO --from OLD "
                                   "--to NEW"));
    *hashes = parser.values(options.hash);
    return readBumpValues(parser, options, inv);
}

// Every pin the user may abbreviate: this repository's, its branches', the compared ones'.
std::vector<std::string> knownPins(const BumpInvocation& inv, const PinInventory& inventory)
{
    std::vector<std::string> known = inventory.revisions();
    std::string ignored;
    std::vector<AlignmentSource> sources = PinAlignment::localBranches(inv.run.root, &ignored);
    sources.insert(sources.end(), inv.compare.begin(), inv.compare.end());
    const std::vector<std::string> more = PinAlignment::compute(sources).knownPins();
    known.insert(known.end(), more.begin(), more.end());
    return known;
}

std::optional<int> resolvePins(BumpInvocation* inv, const PinInventory& inventory)
{
    std::string error;
    // The from-pin is one the recipes write (possibly abbreviated as written).
    const auto from = PinBumpPlanner::resolvePin(inv->from, inventory.revisions(), &error);
    if (!from)
        return CommandLine::repositoryError(bumpName, AnalysisReport::printable(error));
    inv->request.from = *from;
    std::optional<std::string> to;
    if (isFullRevision(inv->to))
        to = inv->to;
    else
        to = PinBumpPlanner::resolvePin(inv->to, knownPins(*inv, inventory), &error);
    if (!to)
        return CommandLine::repositoryError(bumpName, AnalysisReport::printable(error));
    inv->request.to = *to;
    return std::nullopt;
}

std::optional<int> readHashes(const QStringList& hashes, BumpInvocation* inv)
{
    for (const QString& given : hashes) {
        std::string text = given.trimmed().toStdString();
        std::string key = inv->request.to;
        // URL=HASH: a URL holds no '=' before its query, a hash none but SRI padding at its end.
        if (const auto eq = text.find('='); eq != std::string::npos && text.find("://") < eq) {
            key = text.substr(0, eq);
            text = text.substr(eq + 1);
        }
        if (!PinBumpPlanner::isSha256(text))
            return CommandLine::usageError(
                bumpName, QStringLiteral("--hash '%1' is not a SHA-256 (Nix base-32, "
                                         "64 hex digits or sha256-…)")
                              .arg(QString::fromStdString(AnalysisReport::printable(text))));
        inv->request.newHashes[key] = text;
    }
    return std::nullopt;
}

std::optional<int> prefetch(const PinBumpPlanner& planner, BumpInvocation* inv,
                            nlohmann::json* prefetched)
{
    for (const PrefetchTarget& target : planner.prefetchTargets(inv->request)) {
        if (!inv->run.json)
            std::cerr << "Prefetching " << AnalysisReport::printable(target.url) << " ("
                      << target.recipes.size() << " recipes)…\n";
        const PrefetchResult result =
            PinPrefetcher::fetch(target.url, target.unpack, inv->prefetchTimeout * 1000);
        prefetched->push_back({{"url", result.url},
                               {"hash", result.ok() ? nlohmann::json(result.hash) : nullptr},
                               {"error", result.ok() ? nullptr : nlohmann::json(result.error)}});
        if (!result.ok()) {
            std::cerr << "recipegrid bump-pin: cannot prefetch "
                      << AnalysisReport::printable(result.error)
                      << "\nNothing was written. Give the hash with --hash, or leave out "
                         "--prefetch to write a fake hash the first build replaces.\n";
            return 1;
        }
        inv->request.newHashes[target.key] = result.hash;
    }
    return std::nullopt;
}

void printBumpPlan(const PinBumpPlan& plan, const BumpInvocation& inv)
{
    const std::string needsHash =
        plan.needsHash.empty()
            ? std::string()
            : "Needs a new hash (" + std::to_string(plan.needsHash.size()) +
                  (plan.needsHash.size() == 1 ? " file" : " files") +
                  "): the hash becomes the fake all-zero one; give the real one "
                  "(--prefetch, --hash) or build once and take the hash Nix reports\n";
    std::cout << AnalysisReport::printable(plan.changes.title) + "\n" + "  from " +
                     inv.request.from + "\n" + "  to   " + inv.request.to + "\n" +
                     ChangeSetRun::planText(plan.changes, inv.run.diff, needsHash)
              << std::flush;
}

nlohmann::json bumpJson(const PinBumpPlan& plan, const BumpInvocation& inv)
{
    nlohmann::json doc = ChangeSetRun::document(plan.changes, inv.run);
    doc["from"] = inv.request.from;
    doc["to"] = inv.request.to;
    doc["recipes"] = plan.recipes;
    doc["needsHash"] = plan.needsHash;
    return doc;
}

// ---- pins ------------------------------------------------------------------------------------

constexpr const char* pinsName = "pins";

struct PinsInvocation
{
    std::string root;
    std::string revision;
    std::vector<AlignmentSource> compare;
    bool branches = false;
    bool json = false;
    AnalyzerOptions analyzer;
};

std::optional<int> parsePins(const QStringList& arguments, PinsInvocation* inv)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "List the nixpkgs pins of a branch by package and accelerator, marking pins that differ "
        "from the spec or from their group, abbreviated revisions and fetchers without a hash; "
        "with --compare or --branches, the pins of each package × Python × accelerator side by "
        "side, read through git without checkout.\n\nExit status: 0, 1 when compared pins "
        "mismatch, 2 usage or repository error."));
    parser.addHelpOption();
    const QCommandLineOption rev(QStringLiteral("rev"),
                                 QStringLiteral("Read this git revision instead of the work tree."),
                                 QStringLiteral("REV"));
    const QCommandLineOption compare(
        QStringLiteral("compare"),
        QStringLiteral("Compare with this repository (a local clone, bare or not), at REV "
                       "when given (repeatable)."),
        QStringLiteral("OTHER_REPO[@REV]"));
    const QCommandLineOption branches(QStringLiteral("branches"),
                                      QStringLiteral("Compare every local branch of REPO too."));
    const QCommandLineOption format(QStringLiteral("format"),
                                    QStringLiteral("Output format: text or json."),
                                    QStringLiteral("FORMAT"), QStringLiteral("text"));
    const QCommandLineOption spec(QStringLiteral("spec"), QStringLiteral("Matrix spec file."),
                                  QStringLiteral("FILE"));
    const QCommandLineOption recipeDir(QStringLiteral("recipe-dir"),
                                       QStringLiteral("Recipe directory relative to REPO."),
                                       QStringLiteral("DIR"));
    parser.addOptions({rev, compare, branches, format, spec, recipeDir});
    parser.addPositionalArgument(QStringLiteral("REPO"), QStringLiteral("The recipe repository."));
    if (!parser.parse(arguments))
        return CommandLine::usageError(pinsName, parser.errorText());
    if (parser.isSet(QStringLiteral("help")))
        return CommandLine::printHelp(parser, QStringLiteral("recipegrid pins [options] REPO"));
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1)
        return CommandLine::usageError(
            pinsName, positional.isEmpty() ? QStringLiteral("missing REPO argument")
                                           : QStringLiteral("expected one REPO argument"));
    if (const auto stop = CommandLine::readFormat(pinsName, parser.value(format), &inv->json))
        return stop;
    inv->revision = parser.value(rev).toStdString();
    for (const QString& other : parser.values(compare))
        inv->compare.push_back(AlignmentSource::parse(other.toStdString()));
    inv->branches = parser.isSet(branches);
    if (const auto stop =
            CommandLine::readRepository(pinsName, positional.front(), false, &inv->root))
        return stop;
    if (parser.isSet(recipeDir))
        inv->analyzer.recipeDir = parser.value(recipeDir).toStdString();
    return CommandLine::readSpecFile(pinsName, parser, spec, &inv->analyzer.specPath);
}

std::optional<PinAlignment> alignmentOf(const PinsInvocation& inv)
{
    if (inv.compare.empty() && !inv.branches)
        return std::nullopt;
    std::vector<AlignmentSource> sources{{inv.root, inv.revision, {}}};
    if (inv.branches) {
        std::string ignored; // REPO itself failing is reported by its own column
        for (const AlignmentSource& branch : PinAlignment::localBranches(inv.root, &ignored))
            if (branch.revision != inv.revision)
                sources.push_back(branch);
    }
    sources.insert(sources.end(), inv.compare.begin(), inv.compare.end());
    return PinAlignment::compute(sources);
}

// The plan's recipes evaluated on the old and the new pin; a plan that would leave a recipe
// that evaluates today unable to evaluate is not applied.
std::optional<int> evaluateBump(const PinBumpPlan& plan, const Analysis& analysis,
                                const BumpInvocation& inv, nlohmann::json* doc)
{
    const ChangeImpactSession::Input input = ChangeImpactSession::inputOf(plan.changes, analysis);
    std::string error;
    const NixInstallation nix = NixInstallation::find();
    if (!nix.usable())
        return CommandLine::repositoryError(bumpName, nix.error);
    const std::vector<RecipeImpact> impacts =
        ChangeImpact::of(nix, inv.evalSettings, input.items, input.planned, &error);
    if (!error.empty())
        return CommandLine::repositoryError(bumpName, error);
    int breaks = 0;
    nlohmann::json evaluation = nlohmann::json::array();
    for (const RecipeImpact& impact : impacts) {
        breaks += impact.breaks() ? 1 : 0;
        evaluation.push_back(impact.toJson());
        if (inv.run.json)
            continue;
        std::cout << (impact.breaks() ? "  BREAKS  " : "  evaluates  ")
                  << AnalysisReport::printable(impact.path);
        if (impact.breaks())
            std::cout << ": " << AnalysisReport::printable(impact.after.error.message)
                      << (impact.after.error.line
                              ? " (line " + std::to_string(impact.after.error.line) + ")"
                              : "");
        else
            std::cout << (impact.derivationChanges() ? "  new derivation" : "  same derivation")
                      << (impact.versionChanges().empty() ? "" : "  " + impact.versionChanges());
        std::cout << "\n";
    }
    (*doc)["evaluation"] = std::move(evaluation);
    if (breaks == 0 || inv.run.dryRun)
        return std::nullopt;
    if (inv.run.json)
        std::cout << doc->dump(2) << "\n";
    std::cerr << "recipegrid bump-pin: " << breaks
              << " recipe(s) would stop evaluating on the new pin; nothing written\n";
    return 1;
}

} // namespace

int PinCommand::bumpPin(const QStringList& arguments)
{
    BumpInvocation inv;
    QStringList hashes;
    if (const auto stop = parseBump(arguments, &inv, &hashes))
        return *stop;
    const std::shared_ptr<const RepositorySource> source = openWorkTree(inv.run.root);
    const auto analysis =
        std::make_shared<const Analysis>(Analyzer().analyze(*source, inv.run.analyzer));
    if (!analysis->sourceError.empty())
        return CommandLine::repositoryError(bumpName, analysis->sourceError);
    if (const auto stop = resolvePins(&inv, PinInventory::of(*analysis)))
        return *stop;
    if (const auto stop = readHashes(hashes, &inv))
        return *stop;
    if (inv.run.commit)
        if (const std::string error = GitCommitter::precondition(inv.run.root); !error.empty())
            return CommandLine::repositoryError(bumpName, AnalysisReport::printable(error));

    const PinBumpPlanner planner(source, analysis);
    nlohmann::json prefetched = nlohmann::json::array();
    if (inv.prefetch)
        if (const auto stop = prefetch(planner, &inv, &prefetched))
            return *stop;
    const PinBumpPlan plan = planner.plan(inv.request);
    if (!plan.error.empty())
        return CommandLine::repositoryError(bumpName, AnalysisReport::printable(plan.error));
    nlohmann::json doc = bumpJson(plan, inv);
    doc["prefetched"] = std::move(prefetched);
    if (!inv.run.json)
        printBumpPlan(plan, inv);
    if (inv.evaluate)
        if (const auto stop = evaluateBump(plan, *analysis, inv, &doc))
            return *stop;
    return ChangeSetRun::finish(plan.changes, inv.run,
                                PinBumpPlanner::commitMessage(plan.changes, inv.request),
                                std::move(doc));
}

int PinCommand::pins(const QStringList& arguments)
{
    if (PinInspectCommand::wanted(arguments))
        return PinInspectCommand::run(arguments);
    PinsInvocation inv;
    if (const auto stop = parsePins(arguments, &inv))
        return *stop;
    std::unique_ptr<RepositorySource> source;
    if (!inv.revision.empty()) {
        std::string error;
        source = openGitRevision(inv.root, inv.revision, &error);
        if (!source)
            return CommandLine::repositoryError(pinsName, AnalysisReport::printable(error));
    } else {
        source = openWorkTree(inv.root);
    }
    const Analysis analysis = Analyzer().analyze(*source, inv.analyzer);
    if (!analysis.sourceError.empty())
        return CommandLine::repositoryError(pinsName,
                                            AnalysisReport::printable(analysis.sourceError));
    const PinInventory inventory = PinInventory::of(analysis);
    const std::optional<PinAlignment> alignment = alignmentOf(inv);
    const bool mismatch =
        alignment && std::any_of(alignment->rows().begin(), alignment->rows().end(),
                                 [](const AlignmentRow& row) { return row.mismatch; });
    if (inv.json) {
        nlohmann::json doc = {
            {"schema", 1},
            {"command", pinsName},
            {"repository", inv.root},
            {"revision", inv.revision.empty() ? nlohmann::json() : nlohmann::json(inv.revision)},
            {"specInferred", analysis.spec.isInferred()}};
        doc.update(PinReport::inventoryJson(inventory));
        doc["alignment"] = alignment ? PinReport::alignmentJson(*alignment) : nlohmann::json();
        std::cout << doc.dump(2) << "\n";
    } else {
        std::cout << "Pins of " << AnalysisReport::printable(source->displayName())
                  << (inv.revision.empty() ? " (work tree)" : "") << dot
                  << (analysis.spec.isInferred() ? "no spec" : "spec " + analysis.specPath) << "\n"
                  << PinReport::inventoryText(inventory)
                  << (alignment ? PinReport::alignmentText(*alignment) : "");
    }
    if (alignment && inv.json) // the text output lists them under the table
        for (const AlignmentColumn& column : alignment->columns())
            if (!column.error.empty())
                std::cerr << "recipegrid pins: " << AnalysisReport::printable(column.label) << ": "
                          << AnalysisReport::printable(column.error) << "\n";
    std::cout.flush();
    return mismatch ? 1 : 0;
}

} // namespace rg
