#include "eval/pininspection.h"

#include "eval/evalsupport.h"
#include "eval/nixerror.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentMap>
#include <csignal>
#include <nlohmann/json.hpp>
#include <set>
#include <unistd.h>

namespace rg {

namespace {

using nlohmann::json;

using evalsupport::text;

const std::string& expression()
{
    static const std::string nix =
        evalsupport::resource(QStringLiteral(":/eval/pininspection.nix"));
    return nix;
}

void read(const json& answer, PinContents& pin)
{
    pin.nixpkgsVersion = text(answer, "nixpkgs");
    pin.python3 = text(answer, "python3");
    pin.defaultCuda = text(answer, "cuda");
    pin.magma = text(answer, "magma");
    for (const json& set : answer.value("pythonSets", json::array()))
        pin.pythonSets.push_back({text(set, "name"), text(set, "python"), text(set, "torch")});
    for (const json& set : answer.value("cudaSets", json::array()))
        pin.cudaSets.push_back(
            {text(set, "name"), text(set, "cuda"), text(set, "cudnn"), text(set, "nccl")});
}

PinContents inspectOne(const NixInstallation& nix, const EvalSettings& settings,
                       const std::string& revision, const json& sets,
                       const std::atomic<bool>* cancel)
{
    PinContents pin;
    pin.revision = revision;
    if (const auto it = settings.sources.find(revision); it != settings.sources.end())
        pin.source = it->second;
    json request = sets;
    request["source"] = pin.source;
    request["revision"] = revision;
    QStringList arguments = {QStringLiteral("--eval"),
                             QStringLiteral("--strict"),
                             QStringLiteral("--json"),
                             QStringLiteral("-E"),
                             QString::fromStdString(expression()),
                             QStringLiteral("--argstr"),
                             QStringLiteral("request"),
                             QString::fromStdString(request.dump())};
    if (!settings.store.empty())
        arguments << QStringLiteral("--store") << QString::fromStdString(settings.store);
    if (cancel && cancel->load()) {
        pin.error = "cancelled";
        pin.cancelled = true;
        return pin;
    }
    QProcess process;
    // Its own process group, so that a stop reaches what Nix started too.
    process.setChildProcessModifier([] { ::setsid(); });
    process.start(nix.instantiate, arguments);
    QElapsedTimer running;
    running.start();
    while (!process.waitForFinished(50)) {
        const bool cancelled = cancel && cancel->load();
        const bool late = running.elapsed() > int64_t(settings.timeoutSeconds) * 1000;
        if (process.state() == QProcess::NotRunning) // it never started
            break;
        if (!cancelled && !late)
            continue;
        if (const qint64 group = process.processId(); group > 0) // 0 would be our own group
            ::kill(-pid_t(group), SIGKILL);
        process.waitForFinished(-1);
        pin.cancelled = cancelled;
        pin.error = cancelled ? "cancelled"
                              : "Nix did not answer within " +
                                    std::to_string(settings.timeoutSeconds) + " s";
        return pin;
    }
    if (process.error() == QProcess::FailedToStart) {
        pin.error = "cannot start " + nix.instantiate.toStdString() + ": " +
                    process.errorString().toStdString();
        return pin;
    }
    const json answer = json::parse(process.readAllStandardOutput().toStdString(), nullptr, false);
    if (process.exitCode() != 0 || !answer.is_object()) {
        pin.error = NixError::read(process.readAllStandardError().toStdString(), "/").message;
        return pin;
    }
    read(answer, pin);
    return pin;
}

} // namespace

json PinContents::toJson() const
{
    json python = json::array();
    for (const PythonSet& set : pythonSets)
        python.push_back({{"name", set.name}, {"python", set.python}, {"torch", set.torch}});
    json cuda = json::array();
    for (const CudaSet& set : cudaSets)
        cuda.push_back(
            {{"name", set.name}, {"cuda", set.cuda}, {"cudnn", set.cudnn}, {"nccl", set.nccl}});
    return {{"revision", revision},      {"source", source},   {"error", error},
            {"nixpkgs", nixpkgsVersion}, {"python3", python3}, {"pythonSets", python},
            {"cuda", defaultCuda},       {"cudaSets", cuda},   {"magma", magma}};
}

std::vector<std::string> PinInspection::pythonSetsOf(const Analysis& analysis)
{
    std::set<std::string> sets{"python3Packages"};
    for (const Cell& entry : analysis.cells)
        if (entry.recipe && entry.recipe->pythonPackageSet)
            sets.insert(entry.recipe->pythonPackageSet->value);
    return {sets.begin(), sets.end()};
}

std::vector<std::string> PinInspection::cudaSetsOf(const Analysis& analysis)
{
    std::set<std::string> sets{"cudaPackages"};
    for (const Cell& entry : analysis.cells)
        if (entry.recipe && entry.recipe->cudaPackageSet)
            sets.insert(entry.recipe->cudaPackageSet->value);
    return {sets.begin(), sets.end()};
}

std::vector<PinContents> PinInspection::inspect(const NixInstallation& nix,
                                                const EvalSettings& settings,
                                                const std::vector<std::string>& revisions,
                                                const std::vector<std::string>& pythonSets,
                                                const std::vector<std::string>& cudaSets,
                                                const std::atomic<bool>* cancel)
{
    const json sets = {{"pythonSets", pythonSets}, {"cudaSets", cudaSets}};
    nix.openStore(settings.store);
    std::vector<PinContents> out(revisions.size());
    QThreadPool pool;
    pool.setMaxThreadCount(std::max(1, settings.jobs));
    for (size_t i = 0; i < revisions.size(); ++i)
        out[i].revision = revisions[i];
    QtConcurrent::blockingMap(&pool, out, [&](PinContents& pin) {
        pin = inspectOne(nix, settings, pin.revision, sets, cancel);
    });
    return out;
}

} // namespace rg
