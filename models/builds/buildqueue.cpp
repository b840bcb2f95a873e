#include "builds/buildqueue.h"

#include "builds/buildbackend.h"
#include "builds/buildermachine.h"
#include "builds/buildersshoptions.h"
#include "builds/buildhistory.h"
#include "builds/floxbackend.h"
#include "builds/logstore.h"
#include "builds/nixbackend.h"
#include "builds/processsignal.h"
#include "builds/progressparser.h"
#include "builds/resultverifier.h"

#include <QDeadlineTimer>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringDecoder>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <csignal>
#include <signal.h>
#include <unistd.h>

namespace rg {

namespace {

constexpr int flushIntervalMs = 16;
constexpr qsizetype partialLineLimit = 1024; // progress markers sit at the start of a line
// nix store ping per builder, ahead of a batch; NIX_SSHOPTS's connect timeout is 15 s.
constexpr int builderCheckTimeoutMs = 20000;
// How long a Nix job counts as evaluating at most (see Runtime::evaluating): a recipe still
// evaluating after this, or a job that says nothing of what it does, stops holding the next
// start back.
constexpr int evaluationLimitMs = 10000;

// Why Nix could build `target` nowhere: this machine builds nothing (local jobs 0) and no remote
// builder offers its system and every feature it requires. Nix would only say "unable to start
// any build"; this names what is missing. "" when a machine can, or nothing is known.
QString noMachineFor(const BuildTarget& target, int localJobs,
                     const QList<BuilderMachine>& machines)
{
    if (localJobs != 0 || machines.isEmpty() || target.system.isEmpty())
        return {};
    QStringList whyNot;
    for (const BuilderMachine& m : machines) {
        const QString why = m.whyNot(target.system, target.requiredFeatures);
        if (why.isEmpty())
            return {};
        whyNot << QStringLiteral("%1 %2").arg(m.label(), why);
    }
    return QStringLiteral("%1 needs a machine for %2%3, and no remote builder offers it while "
                          "local jobs are 0 (%4)")
        .arg(target.variant, target.system,
             target.requiredFeatures.isEmpty()
                 ? QString()
                 : QStringLiteral(" with ") + target.requiredFeatures.join(QStringLiteral(", ")),
             whyNot.join(QStringLiteral("; ")));
}

// Whether the machine Nix names in its log ("ssh://root@host") is the builder `uri`: Nix adds
// "ssh://" to a bare host.
bool names(const QString& logged, const QString& uri)
{
    return logged == uri || logged == QStringLiteral("ssh://") + uri;
}

// What the last check (or a failed build) said of the builder `uri`; null when it was not asked.
const BuilderHealth* healthOf(const QList<BuilderHealth>& health, const QString& uri)
{
    const auto it = std::find_if(health.cbegin(), health.cend(),
                                 [&](const BuilderHealth& h) { return h.uri == uri; });
    return it == health.cend() ? nullptr : &*it;
}

// Whether builds may go to the builder `uri`: it answered up, or was never asked.
bool takesBuilds(const QList<BuilderHealth>& health, const QString& uri)
{
    const BuilderHealth* h = healthOf(health, uri);
    return !h || (h->answered && h->up);
}

// Why a job whose process exited non-zero failed: the exit code, the builder it was on, and
// each builder that dropped it with Nix's words about the connection — the builder's name is
// what the user needs to act on.
QString exitError(const BuildRecord& record)
{
    QString error = QStringLiteral("exit code %1").arg(record.exitCode);
    if (const BuildPlacement* on = record.builtOn(); on && on->isRemote())
        error += QStringLiteral(" (building on %1)").arg(on->machineLabel());
    if (const QStringList failed = record.builderFailures(); !failed.isEmpty())
        error += QStringLiteral("; ") + failed.join(QStringLiteral("; "));
    return error;
}

// Why a job whose process a signal ended failed: the signal, and for SIGKILL its likeliest
// sender, a build that took all the memory, which nothing else in the log says.
QString killedError(const QString& program, int signal)
{
    QString error = QStringLiteral("%1 was killed by %2").arg(program, ProcessSignal::name(signal));
    if (signal == SIGKILL)
        error +=
            QStringLiteral("; the kernel's out-of-memory killer ends processes so (see dmesg)");
    return error;
}

} // namespace

struct BuildQueue::Runtime
{
    BuildTarget target;
    ProcessSpec spec;
    bool verify = false;
    QProcess* process = nullptr;
    ResultVerifier* verifier = nullptr;
    QTimer* killTimer = nullptr;
    QStringDecoder decoder{QStringDecoder::Utf8};
    QString pending;     // decoded text not yet emitted
    QString partialLine; // head of the line still being received, for progress
    qint64 processGroup = 0;
    bool cancelRequested = false;
    bool progressChanged = false;
    bool placementChanged = false; // a builder took (or refused) a derivation since the flush
    bool atLineStart = true;       // the output so far ends with a newline
    bool awaitingProbe = false;    // queued before the nix probe answered: not startable yet
    bool nixCommand = false;       // NixBackend made its command: the queue may remake it
    // A Nix job from its start until Nix has evaluated the recipe and handed a derivation to a
    // machine (its first placement, or Nix saying it waits for one): the part that needs this
    // machine's CPU. No more of these run at once than there are cores (evaluationSlots()):
    // started together, every evaluation shares the cores and all of them reach their builder
    // late; one after another, the first builders start at once and the rest soon after.
    std::optional<QDeadlineTimer> evaluating;

    // Whether it goes to remote builders, so that it waits for their check, goes only to those
    // up and takes their slots: only a Nix build whose command the queue made.
    bool usesBuilders(const BuildSettings& settings) const
    {
        return nixCommand && !settings.builders.trimmed().isEmpty();
    }
    QString routingNotes; // the builders left out of its command, for its log
    QString routedTo;     // the builders its command names, one line each
};

BuildQueue::BuildQueue(QObject* parent) : QObject(parent), m_flushTimer(new QTimer(this))
{
    m_flushTimer->setInterval(flushIntervalMs);
    connect(m_flushTimer, &QTimer::timeout, this, &BuildQueue::flushAll);
}

BuildQueue::~BuildQueue()
{
    m_flushTimer->stop();
    for (auto& [id, runtime] : m_runtime) {
        if (runtime->verifier)
            runtime->verifier->cancel();
        if (!runtime->process)
            continue;
        runtime->process->disconnect(this);
        if (runtime->processGroup > 0)
            ::kill(pid_t(-runtime->processGroup), SIGKILL);
        runtime->process->waitForFinished(2000);
        if (BuildRecord* record = mutableJob(id)) {
            record->state = JobState::Cancelled;
            record->error = QStringLiteral("cancelled because RecipeGrid quit");
            record->finishedAt = QDateTime::currentDateTimeUtc();
            if (m_history)
                m_history->add(*record);
        }
    }
}

void BuildQueue::setSettings(const BuildSettings& settings)
{
    m_settings = settings;
    m_settings.concurrency = std::max(1, m_settings.concurrency);
    // Read once here, not at every start: "@FILE" entries are files.
    m_machines = BuilderMachine::parse(m_settings.builders);
    startNext();
}

quint64 BuildQueue::enqueue(const BuildTarget& target, QString* error)
{
    if (const QString why = noMachineFor(target, m_settings.maxJobs, m_machines); !why.isEmpty()) {
        if (error)
            *error = why;
        return 0;
    }
    const auto backend = BuildBackend::create(m_settings.backend, target.repository);
    // Which nix command line works is probed once per session on a worker thread (it may take
    // a minute); the job waits in the queue for the answer, the GUI does not.
    if (backend->kind() == BackendKind::Nix && !NixBackend::knownNewCli()) {
        const auto spec = NixBackend().provisionalProcess(target, m_settings, error);
        if (!spec)
            return 0;
        const quint64 id = enqueueJob(target, *spec, JobKind::Build, BackendKind::Nix,
                                      m_settings.verify, true, true);
        probeNixCli();
        return id;
    }
    const auto spec = backend->buildProcess(target, m_settings, error);
    if (!spec)
        return 0;
    return enqueueJob(target, *spec, JobKind::Build, backend->kind(), m_settings.verify, false,
                      backend->kind() == BackendKind::Nix);
}

QList<quint64> BuildQueue::enqueue(const QList<BuildTarget>& targets, QStringList* errors)
{
    QList<quint64> ids;
    for (const BuildTarget& target : targets) {
        QString error;
        if (const quint64 id = enqueue(target, &error))
            ids << id;
        else if (errors)
            *errors << error;
    }
    return ids;
}

quint64 BuildQueue::enqueuePublish(const BuildTarget& target, QString* error)
{
    const auto spec = FloxBackend().publishProcess(target, m_settings, error);
    if (!spec)
        return 0;
    return enqueueProcess(target, *spec, JobKind::Publish, BackendKind::Flox, false);
}

quint64 BuildQueue::enqueueProcess(const BuildTarget& target, const ProcessSpec& spec, JobKind kind,
                                   BackendKind backend, bool verify)
{
    return enqueueJob(target, spec, kind, backend, verify, false, false);
}

void BuildQueue::probeNixCli()
{
    if (m_probingNix)
        return;
    m_probingNix = true;
    // Unowned: a probe still running when the queue goes away ends on its own; the
    // connection to the queue ends with the queue.
    QThread* probe = QThread::create([] { NixBackend::hasNewCli(); });
    connect(probe, &QThread::finished, probe, &QObject::deleteLater);
    connect(probe, &QThread::finished, this, &BuildQueue::nixCliProbed);
    probe->start();
}

void BuildQueue::nixCliProbed()
{
    m_probingNix = false;
    const std::optional<bool> newCli = NixBackend::knownNewCli();
    if (!newCli) { // PATH or NIX_CONFIG changed while it ran: ask again
        probeNixCli();
        return;
    }
    for (auto& [id, rt] : m_runtime) {
        if (!rt->awaitingProbe)
            continue;
        rt->awaitingProbe = false;
        rt->spec = NixBackend().buildProcessWith(rt->target, m_settings, *newCli);
        if (BuildRecord* record = mutableJob(id)) {
            record->program = rt->spec.program;
            record->arguments = rt->spec.arguments;
            record->command = rt->spec.displayString();
        }
    }
    startNext();
}

quint64 BuildQueue::enqueueJob(const BuildTarget& target, const ProcessSpec& spec, JobKind kind,
                               BackendKind backend, bool verify, bool awaitingProbe,
                               bool nixCommand)
{
    BuildRecord record;
    record.id = m_history ? m_history->nextJobId() : m_localNextId++;
    record.kind = kind;
    record.variant = target.variant;
    record.repository = target.repository;
    record.branch = target.branch;
    record.commit = target.commit;
    record.contentKey = target.contentKey;
    record.derivationKey = target.derivationKey;
    record.backend = backend;
    record.program = spec.program;
    record.arguments = spec.arguments;
    record.command = spec.displayString();
    record.queuedAt = QDateTime::currentDateTimeUtc();
    if (m_logStore)
        record.logPath = m_logStore->logPath(record.id);
    m_jobs.push_back(record);

    auto runtime = std::make_unique<Runtime>();
    runtime->target = target;
    runtime->spec = spec;
    runtime->verify = verify;
    runtime->awaitingProbe = awaitingProbe;
    runtime->nixCommand = nixCommand;
    const bool usesBuilders = runtime->usesBuilders(m_settings);
    const bool check = usesBuilders && !healthStandsForTheBuilders();
    if (usesBuilders)
        m_healthStaleAt = QDeadlineTimer(QDeadlineTimer::Forever); // the batch runs on them
    m_runtime.emplace(record.id, std::move(runtime));
    m_pending.append(record.id);
    emit jobQueued(record.id);
    if (check)
        checkBuilders();
    startNext();
    return record.id;
}

// Asks every builder the settings name whether it is reachable (BuilderCheck); the jobs that
// would use them wait for the answers (buildersReadyFor).
void BuildQueue::checkBuilders()
{
    if (m_builderCheck)
        return; // buildersAnswered() asks again if the builders changed meanwhile
    m_builderCheck = new BuilderCheck(this);
    m_checkingBuilders = m_settings.builders;
    connect(m_builderCheck, &BuilderCheck::builderAnswered, this, &BuildQueue::builderAnswered);
    connect(m_builderCheck, &BuilderCheck::finished, this, &BuildQueue::buildersAnswered);
    // Its connections stay open for the batch's builds (BuilderSshOptions).
    m_builderCheck->start(m_machines, builderCheckTimeoutMs, m_settings.builders);
    // Each builder is being asked until it answers (builderAnswered).
    m_builderHealth = m_builderCheck->results();
    m_checkedBuilders = m_checkingBuilders;
    m_healthStaleAt = QDeadlineTimer(QDeadlineTimer::Forever);
}

void BuildQueue::refreshBuilderHealth()
{
    if (m_settings.backend != BackendKind::Nix || m_machines.isEmpty() || m_builderCheck)
        return;
    const bool askedLately =
        m_checkingBuilders == m_settings.builders && !m_askAgainAt.hasExpired();
    if (askedLately || (hasRunningJobs() && healthStandsForTheBuilders()))
        return;
    checkBuilders();
}

bool BuildQueue::healthStandsForTheBuilders() const
{
    return m_checkedBuilders == m_settings.builders && !m_healthStaleAt.hasExpired();
}

// Answers that found every builder up stand for the next batch while the connections their
// check opened persist: within that time a batch starts on them at once. A builder down (by the
// check, or by a build that could not reach it) is asked again by the next batch.
void BuildQueue::healthAgesWhileIdle()
{
    const bool allUp = !m_builderHealth.isEmpty() &&
                       std::all_of(m_builderHealth.cbegin(), m_builderHealth.cend(),
                                   [](const BuilderHealth& h) { return h.answered && h.up; });
    if (allUp)
        m_healthStaleAt = QDeadlineTimer(m_healthLifetimeMs);
    else
        m_checkedBuilders.clear();
}

// A builder takes builds as soon as it answers up, while the others are still being asked: a
// host that accepts the connection but never answers would otherwise hold the whole batch for
// ssh's connect limit.
void BuildQueue::builderAnswered(int index)
{
    if (m_checkingBuilders != m_settings.builders)
        return; // asked again when this check ends
    // Only this builder's entry: a build may have marked another down meanwhile.
    m_builderHealth[index] = m_builderCheck->results().at(index);
    if (m_builderHealth[index].up)
        startNext();
}

void BuildQueue::buildersAnswered()
{
    BuilderCheck* check = std::exchange(m_builderCheck, nullptr);
    check->deleteLater();
    if (m_checkingBuilders != m_settings.builders) {
        checkBuilders();
        return;
    }
    m_checkedBuilders = m_checkingBuilders;
    m_askAgainAt = QDeadlineTimer(m_healthLifetimeMs);
    if (!hasRunningJobs())
        healthAgesWhileIdle();
    emit buildersChecked();
    startNext();
}

// Whether a job for `target` with remote builders may start: its builders have been asked, and
// either all have answered or one that can take it answered up. Until every builder has
// answered the job goes to none of this machine's own slots either, nor fails for want of a
// builder that has yet to answer.
bool BuildQueue::buildersReadyFor(const BuildTarget& target) const
{
    if (!healthStandsForTheBuilders())
        return false;
    if (!m_builderCheck)
        return true;
    // Every builder has its entry since the check started: takesBuilds means answered up.
    return std::any_of(m_machines.cbegin(), m_machines.cend(), [&](const BuilderMachine& m) {
        return takesBuilds(m_builderHealth, m.uri) &&
               (target.system.isEmpty() ||
                m.whyNot(target.system, target.requiredFeatures).isEmpty());
    });
}

// A builder that failed a build (it could not be reached, or its connection broke) gets
// nothing more in this batch.
void BuildQueue::markBuilderDown(const BuildPlacement& failure)
{
    for (BuilderHealth& health : m_builderHealth) {
        if (names(failure.machine, health.uri)) {
            health.answered = true;
            health.up = false;
            health.message = failure.failure;
        }
    }
}

// A job that uses remote builders goes only to those up: the others (down, or still being
// asked) are left out of its command and named in its log. A job no machine is left for fails
// here, before Nix runs.
bool BuildQueue::routeToBuildersUp(quint64 id)
{
    BuildRecord* record = mutableJob(id);
    Runtime& rt = *m_runtime.at(id);
    if (!rt.usesBuilders(m_settings))
        return true;
    const QList<BuilderMachine> up = buildersUp();
    QStringList down;
    QStringList unanswered;
    for (const BuilderMachine& m : m_machines) {
        const BuilderHealth* health = healthOf(m_builderHealth, m.uri);
        if (takesBuilds(m_builderHealth, m.uri))
            continue;
        if (!health->answered)
            unanswered << m.label();
        else
            down << QStringLiteral("%1 is down (%2)").arg(m.label(), health->message);
    }
    rt.routedTo = BuilderMachine::toLines(up);
    if (down.isEmpty() && unanswered.isEmpty())
        return true;
    BuildSettings settings = m_settings;
    settings.builders = rt.routedTo;
    const QString nowhere = up.isEmpty() && settings.maxJobs == 0
                                ? QStringLiteral("no remote builder is up and local jobs are 0")
                                : noMachineFor(rt.target, settings.maxJobs, up);
    QString notes;
    for (const QString& d : down)
        notes += QStringLiteral("# %1: nothing goes to it\n").arg(d);
    for (const QString& u : unanswered)
        notes += QStringLiteral("# %1 has not answered yet: this build does not go to it\n").arg(u);
    if (!nowhere.isEmpty()) {
        record->error = nowhere + QStringLiteral(": ") + down.join(QStringLiteral("; "));
        notes += QStringLiteral("# ") + record->error + QLatin1Char('\n');
        keepLog(id, rt, notes.toUtf8());
        rt.pending += notes;
        finish(id, JobState::Failed);
        return false;
    }
    rt.routingNotes = notes;
    // The connections the check opened for the whole list serve the machines left of it (the
    // same lines, the same keys), instead of each build logging in afresh.
    rt.spec = NixBackend().buildProcessWith(
        rt.target, settings, NixBackend::knownNewCli().value_or(false), m_settings.builders);
    record->program = rt.spec.program;
    record->arguments = rt.spec.arguments;
    record->command = rt.spec.displayString();
    return true;
}

// The builders a job starting now is sent to: those that take builds.
QList<BuilderMachine> BuildQueue::buildersUp() const
{
    QList<BuilderMachine> up;
    for (const BuilderMachine& m : m_machines) {
        if (takesBuilds(m_builderHealth, m.uri))
            up << m;
    }
    return up;
}

// Nix's build hook gives a derivation the least loaded of its job's builders that has a free
// slot (the first listed on a tie), and when none has, asks again only every few seconds. So
// a job sent to fewer builders, before the others answered, could find their slots taken by
// a job started after it with more builders to choose from: no job starts with other builders
// while one sent elsewhere has yet to be placed.
bool BuildQueue::placingWithOtherBuilders(const QString& builders) const
{
    return std::any_of(m_runtime.cbegin(), m_runtime.cend(), [&](const auto& entry) {
        const Runtime& rt = *entry.second;
        return rt.process && rt.evaluating && !rt.evaluating->hasExpired() &&
               rt.usesBuilders(m_settings) && rt.routedTo != builders;
    });
}

// A Nix build sent to remote builders mostly waits on them: as many run at once as the builders
// up have slots, plus this machine's own (Nix's default max-jobs is 1), and no fewer than the
// concurrency set for builds here. While the builders are being asked, only the slots of those
// that answered up: more builds would wait in Nix, which looks for a free slot again only every
// few seconds.
int BuildQueue::remoteJobLimit() const
{
    if (m_settings.builders.trimmed().isEmpty())
        return m_settings.concurrency;
    int jobs = m_builderCheck ? 0 : m_settings.maxJobs < 0 ? 1 : m_settings.maxJobs;
    for (const BuilderMachine& m : m_machines) {
        if (takesBuilds(m_builderHealth, m.uri))
            jobs += m.maxJobs;
    }
    return m_builderCheck ? jobs : std::max(m_settings.concurrency, jobs);
}

int BuildQueue::evaluatingCount() const
{
    return int(std::count_if(m_runtime.cbegin(), m_runtime.cend(), [](const auto& entry) {
        const Runtime& rt = *entry.second;
        return rt.process && rt.evaluating && !rt.evaluating->hasExpired();
    }));
}

int BuildQueue::evaluationSlots()
{
    return std::max(1, QThread::idealThreadCount());
}

void BuildQueue::startNext()
{
    const int remoteLimit = remoteJobLimit();
    const int overallLimit = std::max(m_settings.concurrency, remoteLimit);
    // The same for every remote job, and a job started here is sent to these builders.
    const bool placingElsewhere = placingWithOtherBuilders(BuilderMachine::toLines(buildersUp()));
    for (qsizetype i = 0; i < m_pending.size() && runningCount() < overallLimit;) {
        const Runtime& rt = *m_runtime.at(m_pending[i]);
        const bool remote = rt.usesBuilders(m_settings);
        const int limit = remote ? remoteLimit : m_settings.concurrency;
        // Its command is not known yet, it waits for its builders' answers, for a slot of its
        // kind, for a core to evaluate on, or for the jobs sent to other builders to be placed.
        if (rt.awaitingProbe || (remote && (!buildersReadyFor(rt.target) || placingElsewhere)) ||
            runningCount() >= limit || (rt.nixCommand && evaluatingCount() >= evaluationSlots()))
            ++i;
        else
            start(m_pending.takeAt(i));
    }
}

void BuildQueue::evaluated(Runtime& rt)
{
    if (!rt.evaluating)
        return;
    rt.evaluating.reset();
    // Not from inside the output handler that called this: a start can finish a job at once.
    QMetaObject::invokeMethod(this, &BuildQueue::startNext, Qt::QueuedConnection);
}

void BuildQueue::start(quint64 id)
{
    if (!routeToBuildersUp(id))
        return;
    BuildRecord* record = mutableJob(id);
    Runtime& rt = *m_runtime.at(id);
    record->state = JobState::Running;
    record->startedAt = QDateTime::currentDateTimeUtc();
    if (rt.nixCommand) {
        rt.evaluating = QDeadlineTimer(evaluationLimitMs);
        // A coarse timer may fire up to 5 % early, before the deadline has passed.
        QTimer::singleShot(evaluationLimitMs + 10, Qt::PreciseTimer, this, &BuildQueue::startNext);
    }

    // The log begins with what ran and where, so a saved log explains itself.
    const QByteArray header =
        (QStringLiteral("$ %1\n# in %2\n").arg(record->command, rt.spec.workingDirectory) +
         std::exchange(rt.routingNotes, QString()))
            .toUtf8();
    keepLog(id, rt, header);
    rt.pending += QString::fromUtf8(header);

    rt.process = new QProcess(this);
    rt.process->setProgram(rt.spec.program);
    rt.process->setArguments(rt.spec.arguments);
    rt.process->setWorkingDirectory(rt.spec.workingDirectory);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (auto it = rt.spec.environment.cbegin(); it != rt.spec.environment.cend(); ++it)
        env.insert(it.key(), it.value());
    rt.process->setProcessEnvironment(env);
    rt.process->setProcessChannelMode(QProcess::MergedChannels);
    rt.process->setStandardInputFile(QProcess::nullDevice());
    // Its own session (and so process group): cancel can end every descendant at once, and
    // a Ctrl+C in the terminal of `recipegrid build` reaches only us, which cancels cleanly.
    rt.process->setChildProcessModifier([] { ::setsid(); });
    connect(rt.process, &QProcess::readyReadStandardOutput, this, [this, id] { readOutput(id); });
    connect(rt.process, &QProcess::finished, this, [this, id] { processFinished(id); });
    connect(rt.process, &QProcess::errorOccurred, this, [this, id](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            processFinished(id);
    });
    if (!m_flushTimer->isActive())
        m_flushTimer->start();
    emit jobStarted(id);
    QProcess* process = rt.process;
    process->start();
    // A program that cannot start may finish the job inside start(): look the job up again.
    const auto it = m_runtime.find(id);
    if (it != m_runtime.end() && it->second->process == process)
        it->second->processGroup = process->processId();
}

void BuildQueue::readOutput(quint64 id)
{
    auto it = m_runtime.find(id);
    if (it == m_runtime.end() || !it->second->process)
        return;
    Runtime& rt = *it->second;
    const QByteArray bytes = rt.process->readAllStandardOutput();
    if (bytes.isEmpty())
        return;
    keepLog(id, rt, bytes);
    const QString text = rt.decoder.decode(bytes);
    rt.pending += text;
    if (!text.isEmpty())
        rt.atLineStart = text.endsWith(QLatin1Char('\n'));

    // Progress and placements: complete lines only; a line split across reads is joined first.
    QStringView view(text);
    qsizetype from = 0;
    BuildRecord* record = mutableJob(id);
    for (qsizetype nl = view.indexOf(QLatin1Char('\n')); nl >= 0;
         nl = view.indexOf(QLatin1Char('\n'), from)) {
        if (from == 0 && !rt.partialLine.isEmpty()) {
            rt.partialLine += view.left(std::min(nl, partialLineLimit));
            readLine(rt, record, rt.partialLine);
            rt.partialLine.clear();
        } else {
            readLine(rt, record, view.mid(from, nl - from));
        }
        from = nl + 1;
    }
    if (from < view.size() && rt.partialLine.size() < partialLineLimit)
        rt.partialLine += view.mid(from, partialLineLimit - rt.partialLine.size());
}

void BuildQueue::readLine(Runtime& rt, BuildRecord* record, QStringView line)
{
    if (const std::optional<BuildProgress> p = ProgressParser::parseLine(line)) {
        if (record->progressDone != p->done || record->progressTotal != p->total) {
            record->progressDone = p->done;
            record->progressTotal = p->total;
            rt.progressChanged = true;
        }
    } else if (std::optional<BuildPlacement> placed = BuildPlacement::parseLine(line)) {
        if (placed->isFailure())
            markBuilderDown(*placed);
        else
            evaluated(rt);
        record->placements << *placed;
        rt.placementChanged = true;
    } else if (line.startsWith(QLatin1String("waiting for ")) ||
               line.startsWith(QLatin1String("copying path '"))) {
        // Waiting for a lock or a free builder, or downloading from a binary cache (a variant
        // built before is all downloads, with no placement): no longer this machine's CPU.
        evaluated(rt);
    } else if (const BuildPlacement* on = record->builtOn();
               on && on->isRemote() && BuildPlacement::isConnectionLoss(line) &&
               !record->placements.constLast().isFailure()) {
        // The line names no machine: the builder lost is the one the build was sent to (once:
        // ssh and Nix both say it).
        record->placements << BuildPlacement{
            on->derivation, on->machine,
            QStringLiteral("lost the connection (%1)").arg(line.trimmed().toString())};
        markBuilderDown(record->placements.constLast());
        rt.placementChanged = true;
    }
}

void BuildQueue::retryElsewhere(quint64 id, Runtime& rt)
{
    const BuildRecord* record = job(id);
    if (record->retryOf != 0 || !rt.nixCommand || record->kind != JobKind::Build ||
        record->builderFailures().isEmpty())
        return;
    // The builders that failed it are down now (markBuilderDown): the retry's start leaves them
    // out.
    const bool anyLeft = std::any_of(m_builderHealth.cbegin(), m_builderHealth.cend(),
                                     [](const BuilderHealth& h) { return h.up || !h.answered; });
    if (!anyLeft && m_settings.maxJobs == 0)
        return;
    const quint64 retry = enqueueJob(rt.target, rt.spec, JobKind::Build, BackendKind::Nix,
                                     rt.verify, !NixBackend::knownNewCli().has_value(), true);
    mutableJob(retry)->retryOf = id;
    writeNote(id, rt,
              anyLeft
                  ? QStringLiteral("building it again on the builders left as job %1").arg(retry)
                  : QStringLiteral("building it again here as job %1").arg(retry));
}

void BuildQueue::writeNote(quint64 id, Runtime& rt, const QString& line)
{
    const QString prefix = rt.atLineStart ? QStringLiteral("# ") : QStringLiteral("\n# ");
    const QByteArray bytes = (prefix + line + QLatin1Char('\n')).toUtf8();
    keepLog(id, rt, bytes);
    rt.atLineStart = true;
    rt.pending += QString::fromUtf8(bytes);
}

void BuildQueue::keepLog(quint64 id, Runtime& rt, const QByteArray& bytes)
{
    BuildRecord* record = mutableJob(id);
    if (!m_logStore || !record->logError.isEmpty() || m_logStore->append(id, bytes))
        return;
    // The file ends where the disk (or the directory) gave out. Nothing more goes to it, so it
    // never holds a later part without the middle; the job goes on, and its live log says so.
    record->logError = m_logStore->error();
    rt.pending += record->logStopNote(rt.atLineStart);
    rt.atLineStart = true;
}

void BuildQueue::flushLog(quint64 id)
{
    auto it = m_runtime.find(id);
    if (it == m_runtime.end())
        return;
    Runtime& rt = *it->second;
    if (m_logStore)
        m_logStore->flush(id);
    if (!rt.pending.isEmpty()) {
        const QString text = std::exchange(rt.pending, QString());
        emit jobLogAppended(id, text);
    }
    if (rt.progressChanged) {
        rt.progressChanged = false;
        if (const BuildRecord* record = job(id))
            emit jobProgress(id, record->progressDone, record->progressTotal);
    }
    if (std::exchange(rt.placementChanged, false))
        emit jobPlaced(id);
}

void BuildQueue::flushAll()
{
    QList<quint64> ids;
    for (const auto& [id, rt] : m_runtime) {
        if (!rt->pending.isEmpty() || rt->progressChanged || rt->placementChanged)
            ids << id;
    }
    for (quint64 id : ids)
        flushLog(id);
    if (runningCount() == 0)
        m_flushTimer->stop();
}

void BuildQueue::processFinished(quint64 id)
{
    auto it = m_runtime.find(id);
    if (it == m_runtime.end() || !it->second->process)
        return;
    Runtime& rt = *it->second;
    QProcess* process = rt.process;
    // A process that failed to start may still report finished(); handle it once.
    process->disconnect(this);
    readOutput(id);
    rt.process = nullptr;
    process->deleteLater();
    if (QTimer* timer = std::exchange(rt.killTimer, nullptr)) {
        timer->stop();
        timer->deleteLater();
    }
    BuildRecord* record = mutableJob(id);
    const auto note = [&](const QString& line) { writeNote(id, rt, line); };

    if (rt.cancelRequested) {
        endWhatCancelLeft(rt);
        record->error = QStringLiteral("cancelled");
        note(QStringLiteral("cancelled"));
        finish(id, JobState::Cancelled);
        return;
    }
    if (process->error() == QProcess::FailedToStart) {
        record->error =
            QStringLiteral("cannot start %1: %2").arg(rt.spec.program, process->errorString());
        note(record->error);
        finish(id, JobState::Failed);
        return;
    }
    if (process->exitStatus() == QProcess::CrashExit) {
        // A crashed process's exit code is the signal that ended it.
        record->error = killedError(rt.spec.program, process->exitCode());
        note(record->error);
        finish(id, JobState::Failed);
        return;
    }
    record->exitCode = process->exitCode();
    if (record->exitCode != 0) {
        record->error = exitError(*record);
        retryElsewhere(id, rt);
        note(QStringLiteral("%1 failed with exit code %2")
                 .arg(rt.spec.program)
                 .arg(record->exitCode));
        finish(id, JobState::Failed);
        return;
    }
    if (!rt.spec.resultPath.isEmpty() && QFileInfo::exists(rt.spec.resultPath))
        record->resultPath = rt.spec.resultPath;
    if (!rt.verify || rt.spec.resultPath.isEmpty()) {
        finish(id, JobState::Succeeded);
        return;
    }
    rt.verifier = new ResultVerifier(this);
    connect(rt.verifier, &ResultVerifier::finished, this,
            [this, id](const VerificationResult& result, qint64 closureSize) {
                BuildRecord* r = mutableJob(id);
                r->verification = result;
                r->closureSize = closureSize;
                verificationFinished(id);
            });
    note(QStringLiteral("verifying %1").arg(rt.spec.resultPath));
    QStringList storeArguments;
    if (!m_settings.store.isEmpty())
        storeArguments << QStringLiteral("--store") << m_settings.store;
    rt.verifier->start(rt.spec.resultPath, rt.target.expected, true, storeArguments);
    emit jobVerificationStarted(id);
}

void BuildQueue::endWhatCancelLeft(const Runtime& rt) const
{
    // The leader is gone; make sure nothing it left behind in its group survives.
    if (rt.processGroup > 0)
        ::kill(pid_t(-rt.processGroup), SIGKILL);
    // Its builds on remote builders end now, not when a shared connection wakes; the group's ssh
    // is gone by then.
    if (rt.usesBuilders(m_settings))
        BuilderSshOptions::closeKilledSessions(
            rt.spec.environment.value(QStringLiteral("NIX_SSHOPTS"),
                                      qEnvironmentVariable("NIX_SSHOPTS")),
            m_machines);
}

void BuildQueue::verificationFinished(quint64 id)
{
    auto it = m_runtime.find(id);
    if (it == m_runtime.end())
        return;
    Runtime& rt = *it->second;
    rt.verifier->deleteLater();
    rt.verifier = nullptr;
    const BuildRecord* record = job(id);
    writeNote(id, rt,
              record->verification.passed()
                  ? QStringLiteral("verification passed: torch %1, CUDA %2, Python %3")
                        .arg(record->verification.torch, record->verification.cuda,
                             record->verification.python)
                  : QStringLiteral("verification failed: %1").arg(record->verification.reason));
    finish(id, JobState::Succeeded);
}

void BuildQueue::finish(quint64 id, JobState state)
{
    flushLog(id);
    BuildRecord* record = mutableJob(id);
    record->state = state;
    record->finishedAt = QDateTime::currentDateTimeUtc();
    if (m_logStore)
        m_logStore->close(id);
    if (m_history)
        m_history->add(*record);
    m_runtime.erase(id);
    emit jobFinished(id);
    startNext();
    if (!hasRunningJobs()) {
        healthAgesWhileIdle();
        emit idle();
    }
}

void BuildQueue::cancel(quint64 id)
{
    auto it = m_runtime.find(id);
    if (it == m_runtime.end())
        return;
    Runtime& rt = *it->second;
    if (m_pending.removeOne(id)) {
        mutableJob(id)->error = QStringLiteral("cancelled before it started");
        finish(id, JobState::Cancelled);
        return;
    }
    if (rt.verifier) {
        // The build itself succeeded; only the check is abandoned.
        rt.verifier->cancel();
        rt.verifier->deleteLater();
        rt.verifier = nullptr;
        BuildRecord* record = mutableJob(id);
        record->verification.status = VerificationResult::Status::NotRun;
        record->verification.reason = QStringLiteral("verification cancelled");
        finish(id, JobState::Succeeded);
        return;
    }
    if (!rt.process || rt.cancelRequested)
        return;
    rt.cancelRequested = true;
    if (rt.processGroup > 0)
        ::kill(pid_t(-rt.processGroup), SIGTERM);
    rt.killTimer = new QTimer(this);
    rt.killTimer->setSingleShot(true);
    const qint64 group = rt.processGroup;
    connect(rt.killTimer, &QTimer::timeout, this, [group] {
        if (group > 0)
            ::kill(pid_t(-group), SIGKILL);
    });
    rt.killTimer->start(std::max(0, m_settings.cancelGraceMs));
}

void BuildQueue::cancelAll()
{
    const QList<quint64> pending = m_pending;
    for (quint64 id : pending)
        cancel(id);
    QList<quint64> running;
    for (const auto& [id, rt] : m_runtime)
        running << id;
    for (quint64 id : running)
        cancel(id);
}

bool BuildQueue::hasRunningJobs() const
{
    return !m_runtime.empty();
}

int BuildQueue::runningCount() const
{
    return int(m_runtime.size()) - int(m_pending.size());
}

int BuildQueue::queuedCount() const
{
    return int(m_pending.size());
}

QList<quint64> BuildQueue::jobIds() const
{
    QList<quint64> ids;
    ids.reserve(qsizetype(m_jobs.size()));
    for (const BuildRecord& r : m_jobs)
        ids << r.id;
    return ids;
}

const BuildRecord* BuildQueue::job(quint64 id) const
{
    // Ids grow with the queue, so a binary search finds them.
    const auto it = std::lower_bound(m_jobs.begin(), m_jobs.end(), id,
                                     [](const BuildRecord& r, quint64 v) { return r.id < v; });
    return it != m_jobs.end() && it->id == id ? &*it : nullptr;
}

BuildRecord* BuildQueue::mutableJob(quint64 id)
{
    return const_cast<BuildRecord*>(job(id));
}

std::optional<qint64> BuildQueue::estimatedDurationMs(quint64 id) const
{
    const BuildRecord* record = job(id);
    if (!record || !m_history)
        return std::nullopt;
    return m_history->estimatedDurationMs(record->variant);
}

qint64 BuildQueue::processGroup(quint64 id) const
{
    const auto it = m_runtime.find(id);
    return it == m_runtime.end() || !it->second->process ? 0 : it->second->processGroup;
}

} // namespace rg
