#include "pininspectcommand.h"

#include "analysis/analysisreport.h"
#include "analysis/analyzer.h"
#include "commandline.h"
#include "eval/pininspection.h"
#include "evaloptions.h"
#include "pins/pininventory.h"
#include "vcs/repositorysource.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QRegularExpression>
#include <iostream>
#include <nlohmann/json.hpp>

namespace rg {

namespace {

const std::string command = "pins";

// "2.9.1", or "2.9.1 (was 2.10.0)" when the first revision has another value.
std::string compared(const std::string& value, const std::string& first)
{
    const std::string shown = value.empty() ? "-" : value;
    return value == first ? shown : shown + " (was " + (first.empty() ? "-" : first) + ")";
}

void printText(const std::vector<PinContents>& pins)
{
    const PinContents& first = pins.front();
    for (size_t i = 0; i < pins.size(); ++i) {
        const PinContents& pin = pins[i];
        // The first revision is the reference the others are compared with.
        const PinContents& base = i == 0 ? pin : first;
        std::cout << pin.revision.substr(0, 7) << "  "
                  << (pin.source.empty() ? "fetched by Nix" : AnalysisReport::printable(pin.source))
                  << "\n";
        if (!pin.error.empty()) {
            std::cout << "  cannot read it: " << AnalysisReport::printable(pin.error) << "\n";
            continue;
        }
        std::cout << "  nixpkgs " << compared(pin.nixpkgsVersion, base.nixpkgsVersion)
                  << " · python3 " << compared(pin.python3, base.python3) << " · CUDA "
                  << compared(pin.defaultCuda, base.defaultCuda) << " · MAGMA "
                  << compared(pin.magma, base.magma) << "\n";
        for (size_t k = 0; k < pin.pythonSets.size(); ++k) {
            const auto& set = pin.pythonSets[k];
            const auto& was = k < base.pythonSets.size() ? base.pythonSets[k] : set;
            std::cout << "  " << set.name << ": Python " << compared(set.python, was.python)
                      << ", torch " << compared(set.torch, was.torch) << "\n";
        }
        for (size_t k = 0; k < pin.cudaSets.size(); ++k) {
            const auto& set = pin.cudaSets[k];
            const auto& was = k < base.cudaSets.size() ? base.cudaSets[k] : set;
            std::cout << "  " << set.name << ": CUDA " << compared(set.cuda, was.cuda) << ", cuDNN "
                      << compared(set.cudnn, was.cudnn) << ", NCCL " << compared(set.nccl, was.nccl)
                      << "\n";
        }
    }
}

} // namespace

bool PinInspectCommand::wanted(const QStringList& arguments)
{
    return arguments.contains(QStringLiteral("--inspect"));
}

int PinInspectCommand::run(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption inspect{QStringLiteral("inspect"),
                                     QStringLiteral("Ask Nix what each pin contains.")};
    const QCommandLineOption revision{
        QStringLiteral("revision"),
        QStringLiteral("Also inspect this nixpkgs revision (40 hex digits); repeatable."),
        QStringLiteral("REV")};
    const QCommandLineOption format{QStringLiteral("format"),
                                    QStringLiteral("Output format: text or json."),
                                    QStringLiteral("FORMAT"), QStringLiteral("text")};
    const EvalOptions evalOptions;
    parser.addOptions({inspect, revision, format});
    parser.addOptions(evalOptions.options());
    parser.addPositionalArgument(QStringLiteral("REPO"), QStringLiteral("The recipe repository."));
    if (!parser.parse(arguments))
        return CommandLine::usageError(command, parser.errorText());
    if (parser.isSet(QStringLiteral("help")))
        return CommandLine::printHelp(
            parser, QStringLiteral("Usage: recipegrid pins --inspect [options] REPO"));
    if (parser.positionalArguments().size() != 1)
        return CommandLine::usageError(command, QStringLiteral("expected one REPO argument"));
    const QString shape = parser.value(format);
    if (shape != QLatin1String("text") && shape != QLatin1String("json"))
        return CommandLine::usageError(
            command, QStringLiteral("unknown format '%1' (text or json)").arg(shape));
    const QFileInfo repo(parser.positionalArguments().front());
    if (!repo.isDir())
        return CommandLine::repositoryError(command, repo.filePath().toStdString() +
                                                         ": no such repository directory");
    std::string error;
    const EvalSettings settings =
        evalOptions.settingsFrom(parser, repo.absoluteFilePath().toStdString(), &error);
    if (!error.empty())
        return CommandLine::usageError(command, QString::fromStdString(error));

    const Analysis analysis = Analyzer().analyze(*openWorkTree(settings.repoRoot), {});
    std::vector<std::string> revisions;
    const PinInventory inventory = PinInventory::of(analysis);
    for (const PinLegendEntry& entry : inventory.legend())
        if (entry.revision.size() == 40)
            revisions.push_back(entry.revision);
    static const QRegularExpression full(QStringLiteral("^[0-9a-fA-F]{40}$"));
    for (const QString& typed : parser.values(revision)) {
        if (!full.match(typed).hasMatch())
            return CommandLine::usageError(
                command, QStringLiteral("--revision %1: expected 40 hex digits").arg(typed));
        revisions.push_back(typed.toLower().toStdString());
    }
    if (revisions.empty())
        return CommandLine::repositoryError(command, "no full nixpkgs revision is pinned and "
                                                     "none is named with --revision");
    const NixInstallation nix = NixInstallation::find();
    if (!nix.usable())
        return CommandLine::repositoryError(command, nix.error);
    const std::vector<PinContents> pins =
        PinInspection::inspect(nix, settings, revisions, PinInspection::pythonSetsOf(analysis),
                               PinInspection::cudaSetsOf(analysis));
    if (shape == QLatin1String("json")) {
        nlohmann::json doc = nlohmann::json::array();
        for (const PinContents& pin : pins)
            doc.push_back(pin.toJson());
        std::cout << doc.dump(2) << "\n";
    } else {
        printText(pins);
    }
    std::cout.flush();
    return std::any_of(pins.begin(), pins.end(), [](const auto& p) { return !p.error.empty(); })
               ? 2
               : 0;
}

} // namespace rg
