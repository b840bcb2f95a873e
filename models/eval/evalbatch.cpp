#include "eval/evalbatch.h"

#include "eval/evalsupport.h"
#include "eval/nixerror.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <csignal>
#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <unistd.h>

namespace rg {

namespace {

// Nix's output besides the results: its first and last bytes are kept, so a trace of megabytes
// costs no memory and Nix 2.8's message (first) and newer Nix's (last) both survive.
class OutputKeeper
{
public:
    static constexpr size_t keep = 256 * 1024;

    void add(std::string_view line)
    {
        std::string& target = m_head.size() < keep ? m_head : m_tail;
        target.append(line).push_back('\n');
        if (m_tail.size() > 2 * keep)
            m_tail.erase(0, m_tail.size() - keep);
    }
    std::string text() const { return m_head + m_tail; }

private:
    std::string m_head;
    std::string m_tail;
};

enum class Stop { None, Timeout, Cancel };

bool isFetchFailure(const std::string& message)
{
    for (const char* words :
         {"unable to download", "cannot download", "Could not resolve host",
          "Couldn't resolve host", "error: unable to fetch", "Failed to connect"})
        if (message.find(words) != std::string::npos)
            return true;
    return false;
}

EvaluatedRecipe failure(const EvalItem& item, NixErrorReport error, bool transient)
{
    EvaluatedRecipe result;
    result.path = item.path;
    result.error = std::move(error);
    result.transient = transient;
    result.evaluatedAt = QDateTime::currentSecsSinceEpoch();
    return result;
}

} // namespace

struct EvalBatch::Pass
{
    const std::vector<EvalItem>& items;
    std::vector<bool>& done;
    const OnBegin& onBegin;
    const OnResult& onResult;
    std::vector<size_t> pending; // item indices this process was given, in order
    long current = -1;           // index into `pending` of the recipe Nix is on
    QElapsedTimer sinceBegin;
    OutputKeeper output;
    std::string partialLine;
    Stop stop = Stop::None;

    void deliver(EvaluatedRecipe result, size_t item)
    {
        done[item] = true;
        onResult(std::move(result));
    }
};

EvalBatch::EvalBatch(const NixInstallation& nix, const EvalSettings& settings,
                     const std::atomic<bool>& cancel)
    : m_nix(nix), m_settings(settings), m_cancel(cancel)
{}

const std::string& EvalBatch::wrapper()
{
    static const std::string nix = evalsupport::resource(QStringLiteral(":/eval/evalwrapper.nix"));
    return nix;
}

void EvalBatch::run(const std::vector<EvalItem>& items, const OnBegin& onBegin,
                    const OnResult& onResult)
{
    std::vector<bool> done(items.size(), false);
    for (;;) {
        Pass pass{items, done, onBegin, onResult, {}, -1, {}, {}, {}, Stop::None};
        for (size_t i = 0; i < items.size(); ++i)
            if (!done[i])
                pass.pending.push_back(i);
        if (pass.pending.empty())
            return;
        if (m_cancel.load()) {
            for (size_t index : pass.pending)
                pass.deliver(failure(items[index], {"evaluation cancelled", "", 0, 0, ""}, true),
                             index);
            return;
        }
        runPass(pass);
    }
}

QStringList EvalBatch::argumentsFor(const Pass& pass) const
{
    nlohmann::json request = {{"repoRoot", m_settings.repoRoot},
                              {"sources", m_settings.sources},
                              {"recipes", nlohmann::json::array()}};
    if (!m_settings.defaultNixpkgs.empty())
        request["defaultNixpkgs"] = m_settings.defaultNixpkgs;
    for (size_t index : pass.pending)
        request["recipes"].push_back(m_settings.repoRoot + "/" + pass.items[index].path);
    QStringList arguments = {QStringLiteral("--eval"), QStringLiteral("--strict"),
                             QStringLiteral("--json"), QStringLiteral("--show-trace")};
    if (!m_settings.store.empty())
        arguments << QStringLiteral("--store") << QString::fromStdString(m_settings.store);
    arguments << QStringLiteral("-E") << QString::fromStdString(wrapper())
              << QStringLiteral("--argstr") << QStringLiteral("request")
              << QString::fromStdString(request.dump());
    return arguments;
}

// One line Nix wrote: a recipe begun, a recipe's result, or part of a message.
void EvalBatch::readLine(Pass& pass, std::string_view line) const
{
    if (line.starts_with("trace: rg-begin ")) {
        pass.current = std::stol(std::string(line.substr(16)));
        pass.sinceBegin.start();
        pass.onBegin(pass.items[pass.pending[size_t(pass.current)]].path);
    } else if (line.starts_with("trace: rg-result ")) {
        const auto json = nlohmann::json::parse(line.substr(17), nullptr, false);
        const size_t at = json.is_object() ? json.value("index", size_t(0)) : 0;
        std::optional<EvaluatedRecipe> result = EvaluatedRecipe::fromJson(json);
        if (result && at < pass.pending.size()) {
            result->path = pass.items[pass.pending[at]].path;
            result->nixVersion = m_nix.version;
            result->evaluatedAt = QDateTime::currentSecsSinceEpoch();
            pass.deliver(std::move(*result), pass.pending[at]);
        }
    } else {
        pass.output.add(line);
    }
}

void EvalBatch::runPass(Pass& pass)
{
    QProcess process;
    const rlim_t memory = rlim_t(m_settings.memoryLimitBytes);
    // Its own process group, so a stop reaches whatever Nix starts; an address-space limit, so
    // a recipe that allocates without bound fails instead of the machine.
    process.setChildProcessModifier([memory] {
        ::setsid();
        const rlimit limit{memory, memory};
        ::setrlimit(RLIMIT_AS, &limit);
    });
    process.start(m_nix.instantiate, argumentsFor(pass));
    if (!process.waitForStarted(30000)) {
        const NixErrorReport error{"cannot start " + m_nix.instantiate.toStdString() + ": " +
                                       process.errorString().toStdString(),
                                   "", 0, 0, ""};
        for (size_t index : pass.pending)
            pass.deliver(failure(pass.items[index], error, true), index);
        return;
    }
    const auto readOutput = [&] {
        pass.partialLine += process.readAllStandardError().toStdString();
        process.readAllStandardOutput(); // the count of recipes; the results came as traces
        size_t start = 0;
        for (size_t end; (end = pass.partialLine.find('\n', start)) != std::string::npos;
             start = end + 1)
            readLine(pass, std::string_view(pass.partialLine).substr(start, end - start));
        pass.partialLine.erase(0, start);
    };
    const pid_t group = pid_t(process.processId());
    while (!process.waitForFinished(50)) {
        readOutput();
        if (m_cancel.load())
            pass.stop = Stop::Cancel;
        else if (pass.current >= 0 && !pass.done[pass.pending[size_t(pass.current)]] &&
                 pass.sinceBegin.elapsed() > int64_t(m_settings.timeoutSeconds) * 1000)
            pass.stop = Stop::Timeout;
        if (pass.stop != Stop::None) {
            ::kill(-group, SIGKILL);
            process.waitForFinished(-1);
            break;
        }
    }
    readOutput();
    finishFailedPass(pass, process.exitCode(), process.exitStatus() != QProcess::NormalExit);
}

// After the process: whatever it was given and did not answer for.
void EvalBatch::finishFailedPass(Pass& pass, int exitCode, bool crashed)
{
    const long failed = pass.current;
    const bool begun = failed >= 0 && !pass.done[pass.pending[size_t(failed)]];
    NixErrorReport error = NixError::read(pass.output.text(), m_settings.repoRoot);
    bool transient = false;
    const std::string mib = std::to_string(m_settings.memoryLimitBytes >> 20);
    if (pass.stop == Stop::Cancel) {
        error = {"evaluation cancelled", "", 0, 0, ""};
        transient = true;
    } else if (pass.stop == Stop::Timeout) {
        error = {"stopped after " + std::to_string(m_settings.timeoutSeconds) +
                     " s: the evaluation did not finish (does it recurse forever?)",
                 "", 0, 0, ""};
        transient = true;
    } else if (crashed || error.message.find("out of memory") != std::string::npos) {
        error = {"stopped: the evaluation needed more than the memory limit of " + mib + " MiB (" +
                     error.message + ")",
                 error.file, error.line, error.column, error.attribute};
        transient = true;
    } else if (exitCode == 0 && !begun) {
        error = {"Nix finished without a result for this recipe", "", 0, 0, ""};
    }
    const bool fetch = isFetchFailure(error.message);
    if (fetch) {
        error.message = "cannot fetch the pinned nixpkgs: " + error.message;
        transient = true;
    }
    if (!begun || pass.stop == Stop::Cancel) {
        // Nothing was begun (the process itself failed), or the user stopped it: every recipe
        // it was given and did not answer for shares the reason.
        for (size_t index : pass.pending)
            if (!pass.done[index])
                pass.deliver(failure(pass.items[index], error, transient), index);
        return;
    }
    const size_t index = pass.pending[size_t(failed)];
    const std::string pin = pass.items[index].pin;
    if (m_settings.defaultNixpkgs.empty() &&
        error.message.find("called without required argument") != std::string::npos &&
        error.message.find(pass.items[index].path + ":") != std::string::npos)
        error.message += "\n(the recipe is a function of a package set: name a default nixpkgs "
                         "to call it with)";
    if (error.file.empty() && !error.attribute.empty()) {
        QFile recipe(QString::fromStdString(m_settings.repoRoot + "/" + pass.items[index].path));
        if (recipe.open(QIODevice::ReadOnly))
            NixError::locateAttribute(error, recipe.readAll().toStdString(),
                                      pass.items[index].path);
    }
    pass.deliver(failure(pass.items[index], error, transient), index);
    if (fetch && !pin.empty())
        for (size_t other : pass.pending)
            if (!pass.done[other] && pass.items[other].pin == pin)
                pass.deliver(failure(pass.items[other], error, true), other);
}

} // namespace rg
