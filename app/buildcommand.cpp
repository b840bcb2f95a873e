#include "buildcommand.h"

#include "analysis/analyzer.h"
#include "builds/buildermachine.h"
#include "builds/buildhistory.h"
#include "builds/buildqueue.h"
#include "builds/buildtarget.h"
#include "itemmodels/buildjobsmodel.h"
#include "sessions/buildsession.h"
#include "vcs/repositorysource.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QHash>
#include <QLocale>
#include <QSocketNotifier>
#include <csignal>
#include <fcntl.h>
#include <iostream>
#include <memory>
#include <optional>
#include <signal.h>
#include <unistd.h>

namespace rg {

namespace {

int interruptPipe[2] = {-1, -1};

void onInterrupt(int)
{
    const char byte = 1;
    [[maybe_unused]] const auto n = ::write(interruptPipe[1], &byte, 1);
}

// Writes job output to stdout, whole lines with a "[variant] " prefix when several run.
class LogPrinter
{
public:
    explicit LogPrinter(bool prefixed) : m_prefixed(prefixed) {}

    void append(const QString& variant, const QString& text)
    {
        if (!m_prefixed) {
            std::cout << text.toStdString() << std::flush;
            return;
        }
        QString& partial = m_partial[variant];
        partial += text;
        const qsizetype end = partial.lastIndexOf(QLatin1Char('\n'));
        if (end < 0)
            return;
        std::string out;
        const QString prefix = QLatin1Char('[') + variant + QStringLiteral("] ");
        for (QStringView line : QStringView(partial).left(end).split(QLatin1Char('\n')))
            out += (prefix + line.toString() + QLatin1Char('\n')).toStdString();
        partial.remove(0, end + 1);
        std::cout << out << std::flush;
    }

    void finish(const QString& variant)
    {
        const QString rest = m_partial.take(variant);
        if (!rest.isEmpty())
            append(variant, rest + QLatin1Char('\n'));
        else if (!m_prefixed)
            std::cout << std::flush;
    }

private:
    bool m_prefixed;
    QHash<QString, QString> m_partial;
};

QString summaryLine(const BuildRecord& job)
{
    QString line = QStringLiteral("%1: %2").arg(job.variant, jobStateName(job.state));
    if (job.durationMs() >= 0)
        line += QStringLiteral(" in %1").arg(formatDuration(job.durationMs()));
    if (job.state == JobState::Failed && !job.error.isEmpty())
        line += QStringLiteral(" (%1)").arg(job.error);
    if (const BuildPlacement* on = job.builtOn(); on && on->isRemote())
        line += QStringLiteral("; built on %1").arg(on->machineLabel());
    if (job.state == JobState::Succeeded) {
        const VerificationResult& v = job.verification;
        if (v.status == VerificationResult::Status::Passed)
            line += QStringLiteral("; verification passed (torch %1, CUDA %2, Python %3)")
                        .arg(v.torch, v.cuda, v.python);
        else if (v.status == VerificationResult::Status::Failed)
            line += QStringLiteral("; verification FAILED: %1").arg(v.reason);
        if (job.closureSize >= 0)
            line +=
                QStringLiteral("; closure %1").arg(QLocale::c().formattedDataSize(job.closureSize));
        if (!job.resultPath.isEmpty())
            line += QStringLiteral("; result %1").arg(job.resultPath);
    }
    if (!job.logPath.isEmpty())
        line += QStringLiteral("; log %1").arg(job.logPath);
    return line;
}

// The options of `recipegrid build`, in the order --help lists them.
struct BuildOptions
{
    QCommandLineOption jobs{QStringLiteral("jobs"),
                            QStringLiteral("Builds to run at once (default 1)."),
                            QStringLiteral("N"), QStringLiteral("1")};
    QCommandLineOption backend{
        QStringLiteral("backend"),
        QStringLiteral("flox, nix or custom (default: flox when the repository has .flox/ and "
                       "flox is on PATH, else nix)."),
        QStringLiteral("BACKEND"), QStringLiteral("auto")};
    QCommandLineOption command{
        QStringLiteral("command"),
        QStringLiteral("Command template for --backend custom; placeholders {variant} {pname} "
                       "{file} {repo} {out}."),
        QStringLiteral("TEMPLATE")};
    QCommandLineOption nixOption{QStringLiteral("nix-option"),
                                 QStringLiteral("A Nix option for every build (repeatable)."),
                                 QStringLiteral("KEY=VALUE")};
    QCommandLineOption builders{
        QStringLiteral("builders"),
        QStringLiteral("Remote builders for Nix, in Nix's machine format (entries separated by "
                       "';' or newlines), or @FILE for those a file lists."),
        QStringLiteral("SPEC")};
    QCommandLineOption localJobs{
        QStringLiteral("local-jobs"),
        QStringLiteral("Builds this machine runs itself (Nix's max-jobs); 0 sends every build "
                       "to the builders (default: Nix's own setting)."),
        QStringLiteral("N")};
    QCommandLineOption recipeDir{QStringLiteral("recipe-dir"),
                                 QStringLiteral("Recipe directory (default .flox/pkgs)."),
                                 QStringLiteral("DIR"), QStringLiteral(".flox/pkgs")};
    QCommandLineOption torchVersion{
        QStringLiteral("torch-version"),
        QStringLiteral("The torch version verification expects (default: the spec's "
                       "torchVersion; with no spec, the one most recipes name; \"\" accepts any)."),
        QStringLiteral("VERSION")};
    QCommandLineOption noVerify{QStringLiteral("no-verify"),
                                QStringLiteral("Do not run the result's Python.")};
    QCommandLineOption dataDir{
        QStringLiteral("data-dir"),
        QStringLiteral("Where logs and build history go (default: the app's data directory)."),
        QStringLiteral("DIR")};

    void addTo(QCommandLineParser* parser) const
    {
        parser->setApplicationDescription(
            QStringLiteral("Build variants of a recipe repository with flox or nix, streaming "
                           "their logs; verify each result's Python, torch and CUDA versions."));
        parser->addHelpOption();
        parser->addPositionalArgument(QStringLiteral("repo"),
                                      QStringLiteral("The recipe repository."));
        parser->addPositionalArgument(
            QStringLiteral("variant"),
            QStringLiteral("Variants to build (file names without .nix)."),
            QStringLiteral("VARIANT…"));
        parser->addOptions({jobs, backend, command, nixOption, builders, localJobs, recipeDir,
                            torchVersion, noVerify, dataDir});
    }
};

// The remote builders and local job slots; every malformed builder is named before Nix is
// asked, since Nix would only say that no machine can take the build.
std::optional<int> readBuilders(const QCommandLineParser& parser, const BuildOptions& options,
                                BuildSettings* settings)
{
    if (parser.isSet(options.builders)) {
        settings->builders = parser.value(options.builders);
        QStringList errors;
        const QList<BuilderMachine> machines = BuilderMachine::parse(settings->builders, &errors);
        for (const QString& error : errors)
            std::cerr << "recipegrid build: --builders: " << error.toStdString() << '\n';
        if (!errors.isEmpty())
            return 2;
        if (machines.isEmpty()) {
            std::cerr << "recipegrid build: --builders names no machine\n";
            return 2;
        }
    }
    if (parser.isSet(options.localJobs)) {
        bool ok = false;
        settings->maxJobs = parser.value(options.localJobs).toInt(&ok);
        if (!ok || settings->maxJobs < 0) {
            std::cerr << "recipegrid build: --local-jobs needs a whole number, 0 or more\n";
            return 2;
        }
    }
    return std::nullopt;
}

// The build settings the command line asks for; a return value is the exit status to stop
// with.
std::optional<int> readSettings(const QCommandLineParser& parser, const BuildOptions& options,
                                BuildSettings* settings)
{
    const auto kind = backendKindFromName(parser.value(options.backend));
    if (!kind) {
        std::cerr << "recipegrid build: unknown backend '"
                  << parser.value(options.backend).toStdString() << "' (flox, nix, custom)\n";
        return 2;
    }
    settings->backend = *kind;
    settings->customCommand = parser.value(options.command);
    if (settings->backend == BackendKind::Custom && settings->customCommand.isEmpty()) {
        std::cerr << "recipegrid build: --backend custom needs --command TEMPLATE\n";
        return 2;
    }
    if (parser.isSet(options.command) && !parser.isSet(options.backend))
        settings->backend = BackendKind::Custom;
    bool ok = false;
    settings->concurrency = parser.value(options.jobs).toInt(&ok);
    if (!ok || settings->concurrency < 1) {
        std::cerr << "recipegrid build: --jobs needs a positive number\n";
        return 2;
    }
    settings->nixOptions = parser.values(options.nixOption);
    QString optionError;
    settings->nixOptionPairs(&optionError);
    if (!optionError.isEmpty()) {
        std::cerr << "recipegrid build: " << optionError.toStdString() << '\n';
        return 2;
    }
    settings->verify = !parser.isSet(options.noVerify);
    return readBuilders(parser, options, settings);
}

// SIGINT and SIGTERM cancel the session's builds through the event loop: a signal handler
// may only write to a pipe. restore() puts the previous SIGINT handler back.
class InterruptCanceller
{
public:
    InterruptCanceller(BuildSession* session, QObject* context)
    {
        if (::pipe2(interruptPipe, O_CLOEXEC | O_NONBLOCK) != 0)
            return;
        m_notifier = std::make_unique<QSocketNotifier>(interruptPipe[0], QSocketNotifier::Read);
        QObject::connect(m_notifier.get(), &QSocketNotifier::activated, context, [this, session] {
            char buffer[16];
            while (::read(interruptPipe[0], buffer, sizeof buffer) > 0) {
            }
            if (!m_interrupted)
                std::cerr << "\nrecipegrid build: interrupted, cancelling builds…\n";
            m_interrupted = true;
            session->cancelAll();
        });
        struct sigaction action = {};
        action.sa_handler = onInterrupt;
        sigemptyset(&action.sa_mask);
        ::sigaction(SIGINT, &action, &m_previous);
        ::sigaction(SIGTERM, &action, nullptr);
    }
    InterruptCanceller(const InterruptCanceller&) = delete;
    InterruptCanceller& operator=(const InterruptCanceller&) = delete;

    void restore()
    {
        ::sigaction(SIGINT, &m_previous, nullptr);
        m_notifier.reset();
    }
    bool interrupted() const { return m_interrupted; }

private:
    bool m_interrupted = false;
    std::unique_ptr<QSocketNotifier> m_notifier;
    struct sigaction m_previous = {};
};

// Prints one line a job; true when every job succeeded and none failed verification.
bool printSummary(const BuildQueue& queue, const QList<quint64>& ids)
{
    std::cout << "\nSummary\n";
    bool allGood = true;
    for (quint64 id : ids) {
        const BuildRecord* job = queue.job(id);
        std::cout << "  " << summaryLine(*job).toStdString() << '\n';
        if (job->state != JobState::Succeeded ||
            job->verification.status == VerificationResult::Status::Failed)
            allGood = false;
    }
    std::cout << std::flush;
    return allGood;
}

// A recipe with an error fails, or builds another variant than its name says, hours later.
// The window asks before it builds one; a script is told on stderr, and builds as asked.
void warnAboutErrors(const Analysis& analysis, const QStringList& variants)
{
    QStringList asked;
    for (const QString& argument : variants)
        asked << BuildTarget::variantOf(argument);
    for (const Cell& cell : analysis.cells) {
        const Finding* error = cell.recipe ? cell.firstError() : nullptr;
        const QString stem =
            cell.recipe ? QFileInfo(QString::fromStdString(cell.recipe->path)).completeBaseName()
                        : QString();
        if (!error || !asked.contains(stem))
            continue;
        std::cerr << "recipegrid build: warning: " << cell.recipe->path << ':';
        if (error->line > 0)
            std::cerr << error->line << ':';
        std::cerr << ' ' << error->ruleId << ": " << error->message
                  << " (built as asked; it will fail or build another variant)\n";
    }
}

} // namespace

int BuildCommand::run(const QStringList& arguments)
{
    QCommandLineParser parser;
    const BuildOptions options;
    options.addTo(&parser);
    if (!parser.parse(arguments)) {
        std::cerr << "recipegrid build: " << parser.errorText().toStdString() << '\n';
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        std::cout << parser.helpText().toStdString();
        return 0;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() < 2) {
        std::cerr << "recipegrid build: give a repository and at least one variant\n"
                  << parser.helpText().toStdString();
        return 2;
    }
    BuildSettings settings;
    if (const auto status = readSettings(parser, options, &settings))
        return *status;

    BuildSession session(parser.value(options.dataDir));
    if (!session.historyError().isEmpty())
        std::cerr << "recipegrid build: " << session.historyError().toStdString() << '\n';
    session.setSettings(settings);
    session.setRecipeDirectory(parser.value(options.recipeDir));
    // Else the session takes the spec's, as in the window.
    if (parser.isSet(options.torchVersion))
        session.setExpectedTorchVersion(parser.value(options.torchVersion));
    BuildQueue* queue = session.queue();

    const QString repo = positional.first();
    const QStringList variants = positional.mid(1);
    LogPrinter printer(variants.size() > 1);
    QObject::connect(
        queue, &BuildQueue::jobLogAppended, queue,
        [&](quint64 id, const QString& text) { printer.append(queue->job(id)->variant, text); });
    QObject::connect(queue, &BuildQueue::jobFinished, queue,
                     [&](quint64 id) { printer.finish(queue->job(id)->variant); });
    QObject::connect(queue, &BuildQueue::buildersChecked, queue, [queue] {
        for (const BuilderHealth& h : queue->builderHealth())
            if (!h.up)
                std::cerr << "recipegrid build: " << h.label.toStdString() << " is down ("
                          << h.message.toStdString() << "): nothing goes to it\n";
    });

    // One scan: it says which recipes have errors, and the session keys each build by the
    // files its recipe imports from the scan's facts instead of reading them again.
    AnalyzerOptions analyzer;
    analyzer.recipeDir = parser.value(options.recipeDir).toStdString();
    const auto analysis = std::make_shared<const Analysis>(
        Analyzer().analyze(*openWorkTree(repo.toStdString()), analyzer));
    session.setAnalysis(repo, analysis);
    warnAboutErrors(*analysis, variants);
    QStringList errors;
    const QList<quint64> ids = session.build(repo, variants, &errors);
    for (const QString& error : errors)
        std::cerr << "recipegrid build: " << error.toStdString() << '\n';
    if (ids.isEmpty())
        return 2;

    InterruptCanceller canceller(&session, queue);
    QObject::connect(queue, &BuildQueue::idle, QCoreApplication::instance(),
                     &QCoreApplication::quit, Qt::QueuedConnection);
    if (queue->hasRunningJobs())
        QCoreApplication::exec();
    canceller.restore();

    const bool allGood = printSummary(*queue, ids) && errors.isEmpty();
    if (canceller.interrupted())
        return 130;
    return allGood ? 0 : 1;
}

} // namespace rg
