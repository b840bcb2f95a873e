#include "evalcommand.h"

#include "analysis/analysisreport.h"
#include "analysis/analyzer.h"
#include "analysis/recipecontentkey.h"
#include "commandline.h"
#include "eval/evaluationmerge.h"
#include "eval/outputpresence.h"
#include "eval/recipeevaluator.h"
#include "evaloptions.h"
#include "vcs/repositorysource.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace rg {

namespace {

const std::string command = "eval";

// "torch 2.9.1 · CUDA 12.9 · Python 3.13 · arch 8.6"
std::string summaryOf(const EvaluatedRecipe& result)
{
    std::string text;
    const auto add = [&text](const std::string& label, const std::string& value) {
        if (!value.empty())
            text += (text.empty() ? "" : " · ") + label + value;
    };
    if (result.torch)
        add("torch ", result.torch->version);
    add("CUDA ", result.cudaVersion);
    add("Python ", result.pythonVersion);
    std::string arch;
    for (const std::string& entry : result.archList())
        arch += (arch.empty() ? "" : ";") + entry;
    add("arch ", arch);
    add("", result.drvPath);
    return text;
}

// Nix's messages span lines; each is made printable on its own and indented under the first.
std::string indented(const std::string& message)
{
    std::string out;
    size_t start = 0;
    for (size_t end; (end = message.find('\n', start)) != std::string::npos; start = end + 1)
        out += AnalysisReport::printable(message.substr(start, end - start)) + "\n       ";
    return out + AnalysisReport::printable(message.substr(start));
}

// 2 when Nix gave no answer for some recipe, 1 when one does not evaluate or Nix's answer
// gives a finding that is not a note, else 0.
int exitStatus(const Analysis& analysis, const std::vector<EvaluatedRecipe>& results)
{
    bool findings = false;
    for (const EvaluatedRecipe& result : results) {
        if (result.transient)
            return 2;
        findings = findings || !result.evaluated;
    }
    for (const Cell& entry : analysis.cells)
        for (const Finding& finding : entry.findings)
            findings = findings ||
                       (finding.ruleId.starts_with("eval-") && finding.severity != Severity::Info);
    return findings ? 1 : 0;
}

// `outputs`: whether each evaluated result's output state was asked for (--outputs).
void printText(const Analysis& analysis, const std::vector<EvaluatedRecipe>& results, bool outputs)
{
    std::map<std::string, const Cell*> entryOf;
    for (const Cell& entry : analysis.cells)
        if (entry.recipe)
            entryOf[entry.recipe->path] = &entry;
    int evaluated = 0, failing = 0, withFindings = 0, cached = 0, unanswered = 0;
    std::map<std::string, int> outputCounts; // by OutputState::id()
    for (const EvaluatedRecipe& result : results) {
        const std::string path = AnalysisReport::printable(result.path);
        cached += result.fromCache ? 1 : 0;
        if (result.transient) {
            ++unanswered;
            std::cout << "?  " << path << "  not evaluated: " << indented(result.error.message)
                      << "\n";
            continue;
        }
        const Cell* entry = entryOf.count(result.path) ? entryOf[result.path] : nullptr;
        std::vector<const Finding*> own;
        if (entry)
            for (const Finding& finding : entry->findings)
                if (finding.ruleId.starts_with("eval-"))
                    own.push_back(&finding);
        if (!result.evaluated) {
            ++failing;
            std::cout << "✗  " << path;
        } else {
            ++evaluated;
            std::cout << (own.empty() ? "✓  " : "!  ") << path << "  " << summaryOf(result);
        }
        std::cout << "\n";
        if (result.evaluated && outputs) {
            ++outputCounts[result.output.id()];
            std::cout << "     output " << result.output.label()
                      << (result.output.error.empty()
                              ? ""
                              : ": " + AnalysisReport::printable(result.output.error))
                      << "\n";
        }
        withFindings += own.empty() || !result.evaluated ? 0 : 1;
        for (const Finding* finding : own)
            std::cout << "     " << finding->ruleId
                      << (finding->line ? " (line " + std::to_string(finding->line) + ")" : "")
                      << ": " << indented(finding->message) << "\n";
    }
    std::cout << results.size() << " recipe(s): " << evaluated << " evaluated, " << failing
              << " do not evaluate, " << withFindings << " with findings, " << unanswered
              << " not evaluated, " << cached << " from the cache\n";
    if (outputs)
        std::cout << "outputs: " << outputCounts["missing"] << " need a build, "
                  << outputCounts["built"] << " built, " << outputCounts["cached"]
                  << " in a binary cache, " << outputCounts["unknown"] << " unknown\n";
}

// check's JSON of the analysis with Nix's answers in it, and the answers themselves.
void printJson(const Analysis& analysis, const std::vector<EvaluatedRecipe>& results, bool outputs,
               const ReportContext& context)
{
    auto root = nlohmann::ordered_json::parse(AnalysisReport::json(analysis, context));
    auto& evaluations = root["evaluations"] = nlohmann::ordered_json::array();
    for (const EvaluatedRecipe& result : results) {
        evaluations.push_back(nlohmann::ordered_json::parse(result.toJson().dump()));
        if (outputs)
            evaluations.back()["output"] = {{"state", result.output.id()},
                                            {"cache", result.output.cache},
                                            {"error", result.output.error}};
    }
    std::cout << root.dump(2) << "\n";
}

// In `shape` (text, json or sarif).
void print(const QString& shape, const Analysis& analysis,
           const std::vector<EvaluatedRecipe>& results, bool outputs, const std::string& root)
{
    ReportContext context;
    context.repository = root;
    context.toolVersion = QCoreApplication::applicationVersion().toStdString();
    if (shape == QLatin1String("json"))
        printJson(analysis, results, outputs, context);
    else if (shape == QLatin1String("sarif"))
        std::cout << AnalysisReport::sarif(analysis, context);
    else
        printText(analysis, results, outputs);
    std::cout.flush();
}

} // namespace

std::vector<EvaluatedRecipe> EvalCommand::evaluateInto(Analysis& analysis,
                                                       const RepositorySource& source,
                                                       const EvalSettings& settings,
                                                       const std::vector<CellSelector>& selectors,
                                                       std::string* error)
{
    RecipeContentKey::keyAll(analysis, source);
    const std::vector<EvalItem> items = EvaluationMerge::itemsOf(analysis, selectors);
    const RecipeEvaluator evaluator(settings);
    if (!evaluator.nix().usable()) {
        *error = evaluator.nix().error;
        return {};
    }
    const bool terminal = ::isatty(STDERR_FILENO) == 1;
    const std::vector<EvaluatedRecipe> results =
        evaluator.evaluate(items, [terminal](int done, int total, const std::string& current) {
            if (terminal)
                std::cerr << "\r\x1b[Kevaluating " << done << "/" << total << "  "
                          << AnalysisReport::printable(current) << std::flush;
        });
    if (terminal)
        std::cerr << "\r\x1b[K" << std::flush;
    std::vector<EvaluatedRecipe> answered;
    for (const EvaluatedRecipe& result : results)
        if (!result.transient)
            answered.push_back(result);
    EvaluationMerge::apply(analysis, answered);
    return results;
}

int EvalCommand::run(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Evaluate recipes with Nix against their pins: the derivation each instantiates, the "
        "torch, CUDA, Python and arch list a build gets, and whether they agree with the "
        "variant.\n\nExit status: 0 all evaluate and agree, 1 findings, 2 usage or I/O error."));
    parser.addHelpOption();
    const QCommandLineOption format{QStringLiteral("format"),
                                    QStringLiteral("Output format: text, json or sarif."),
                                    QStringLiteral("FORMAT"), QStringLiteral("text")};
    const QCommandLineOption outputsOption{
        QStringLiteral("outputs"),
        QStringLiteral("Also say whether each evaluated recipe's output is built already: in the "
                       "store (--store), in a binary cache (--binary-cache), or needing a build.")};
    const QCommandLineOption cacheOption{
        QStringLiteral("binary-cache"),
        QStringLiteral("A binary cache to look for outputs in (repeatable, asked in order)."),
        QStringLiteral("URL")};
    const EvalOptions evalOptions;
    parser.addOption(format);
    parser.addOption(outputsOption);
    parser.addOption(cacheOption);
    parser.addOptions(evalOptions.options());
    parser.addPositionalArgument(QStringLiteral("REPO"), QStringLiteral("The recipe repository."));
    parser.addPositionalArgument(QStringLiteral("VARIANT"),
                                 QStringLiteral("Recipes or cells to evaluate (default: all)."),
                                 QStringLiteral("[VARIANT…]"));
    if (!parser.parse(arguments))
        return CommandLine::usageError(command, parser.errorText());
    if (parser.isSet(QStringLiteral("help")))
        return CommandLine::printHelp(
            parser, QStringLiteral("Usage: recipegrid eval [options] REPO [VARIANT…]"));
    QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return CommandLine::usageError(command, QStringLiteral("missing REPO argument"));
    const QString shape = parser.value(format);
    if (shape != QLatin1String("text") && shape != QLatin1String("json") &&
        shape != QLatin1String("sarif"))
        return CommandLine::usageError(
            command, QStringLiteral("unknown format '%1' (text, json or sarif)").arg(shape));
    const QFileInfo repo(positional.takeFirst());
    if (!repo.isDir())
        return CommandLine::repositoryError(command, repo.filePath().toStdString() +
                                                         ": no such repository directory");
    const std::string root = repo.absoluteFilePath().toStdString();
    std::string error;
    const EvalSettings settings = evalOptions.settingsFrom(parser, root, &error);
    if (!error.empty())
        return CommandLine::usageError(command, QString::fromStdString(error));

    const std::unique_ptr<RepositorySource> source = openWorkTree(root);
    Analysis analysis = Analyzer().analyze(*source, {});
    if (!analysis.sourceError.empty())
        return CommandLine::repositoryError(command, analysis.sourceError);
    std::vector<CellSelector> selectors;
    for (const QString& word : positional)
        selectors.emplace_back(word.toStdString());
    std::vector<EvaluatedRecipe> results =
        evaluateInto(analysis, *source, settings, selectors, &error);
    if (!error.empty())
        return CommandLine::repositoryError(command, error);
    if (!selectors.empty() && results.empty())
        return CommandLine::usageError(
            command,
            QStringLiteral("no recipe matches %1").arg(positional.join(QStringLiteral(", "))));

    const bool outputs = parser.isSet(outputsOption);
    if (outputs) {
        std::vector<std::string> caches;
        for (const QString& url : parser.values(cacheOption))
            caches.push_back(url.toStdString());
        OutputPresence::fill(NixInstallation::find(), settings.store, caches, results);
    }

    print(shape, analysis, results, outputs, root);
    return exitStatus(analysis, results);
}

} // namespace rg
