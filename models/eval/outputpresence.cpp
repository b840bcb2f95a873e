#include "eval/outputpresence.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <set>

namespace rg {

namespace {

constexpr int answerWithinMs = 120000; // a cache over the network answers, or is down
constexpr size_t pathsPerCall = 400;   // well under the command line's limit

// Nix's last "error:" line (before it, retries are warnings), else its first.
std::string lastError(const QString& said)
{
    const QStringList lines = said.trimmed().split('\n', Qt::SkipEmptyParts);
    for (auto line = lines.rbegin(); line != lines.rend(); ++line)
        if (line->startsWith(QLatin1String("error:")))
            return line->toStdString();
    return lines.isEmpty() ? "nix-store failed" : lines.front().toStdString();
}

// The paths of `paths` that `store` does not hold, from one query per chunk; "" in `error`
// unless Nix could not answer.
std::set<std::string> invalidIn(const QString& nixStore, const std::string& store,
                                const std::vector<std::string>& paths, std::string* error)
{
    std::set<std::string> invalid;
    for (size_t start = 0; start < paths.size(); start += pathsPerCall) {
        QStringList arguments;
        if (!store.empty())
            arguments << QStringLiteral("--store") << QString::fromStdString(store);
        arguments << QStringLiteral("--check-validity") << QStringLiteral("--print-invalid");
        for (size_t i = start; i < std::min(paths.size(), start + pathsPerCall); ++i)
            arguments << QString::fromStdString(paths[i]);
        QProcess process;
        process.start(nixStore, arguments);
        if (!process.waitForFinished(answerWithinMs)) {
            process.kill();
            process.waitForFinished(-1);
            *error = "nix-store did not answer within " + std::to_string(answerWithinMs / 1000) +
                     " s" + (store.empty() ? "" : " about " + store);
            return {};
        }
        if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
            *error = lastError(QString::fromUtf8(process.readAllStandardError()));
            return {};
        }
        const QStringList lines =
            QString::fromUtf8(process.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
        for (const QString& line : lines)
            invalid.insert(line.trimmed().toStdString());
    }
    return invalid;
}

} // namespace

void OutputPresence::fill(const NixInstallation& nix, const std::string& store,
                          const std::vector<std::string>& caches,
                          std::vector<EvaluatedRecipe>& results)
{
    std::vector<std::string> paths;
    for (const EvaluatedRecipe& result : results)
        paths.push_back(result.evaluated ? result.outPath : std::string());
    const std::vector<OutputState> states = of(nix, store, caches, paths);
    for (size_t i = 0; i < results.size(); ++i)
        if (results[i].evaluated)
            results[i].output = states[i];
}

std::vector<OutputState> OutputPresence::of(const NixInstallation& nix, const std::string& store,
                                            const std::vector<std::string>& caches,
                                            const std::vector<std::string>& outPaths)
{
    std::vector<OutputState> states(outPaths.size());
    for (size_t i = 0; i < outPaths.size(); ++i)
        if (outPaths[i].empty())
            states[i].error = "not evaluated";
    if (!nix.usable()) {
        for (OutputState& state : states)
            state.error = nix.error;
        return states;
    }
    // nix-store comes with nix-instantiate.
    const QString nixStore =
        QFileInfo(nix.instantiate).absoluteDir().filePath(QStringLiteral("nix-store"));
    std::vector<size_t> open; // asked, not found yet
    for (size_t i = 0; i < outPaths.size(); ++i)
        if (!outPaths[i].empty())
            open.push_back(i);
    const auto ask = [&](const std::string& where, OutputState::Where found,
                         const std::string& cache) {
        std::vector<std::string> paths;
        for (size_t i : open)
            paths.push_back(outPaths[i]);
        std::string error;
        const std::set<std::string> invalid = invalidIn(nixStore, where, paths, &error);
        std::vector<size_t> still;
        for (size_t i : open) {
            if (!error.empty()) {
                states[i].error = error;
                still.push_back(i);
            } else if (invalid.count(outPaths[i])) {
                still.push_back(i);
            } else {
                states[i].where = found;
                states[i].cache = cache;
                states[i].error.clear();
            }
        }
        open = std::move(still);
    };
    ask(store, OutputState::Where::Built, {});
    for (const std::string& cache : caches)
        if (!open.empty())
            ask(cache, OutputState::Where::Cached, cache);
    // What no store could be asked about stays unknown; the rest need a build.
    for (size_t i : open)
        if (states[i].error.empty())
            states[i].where = OutputState::Where::Missing;
    return states;
}

} // namespace rg
