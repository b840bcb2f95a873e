#pragma once

// Runs build and publish jobs as child processes, `concurrency` at a time, in the order they
// were queued; Nix jobs start no faster than this machine's cores can evaluate them. Each child
// starts in its own process group so cancelling ends everything it spawned (SIGTERM to the group,
// SIGKILL after the grace period). Output goes to the LogStore as it arrives and to
// jobLogAppended() in batches (one signal per job per ~16 ms), progress is read from the log, and a
// successful build is verified before jobFinished().

#include "builds/buildercheck.h"
#include "builds/buildersshoptions.h"
#include "builds/buildrecord.h"
#include "builds/buildsettings.h"
#include "builds/buildtarget.h"
#include "builds/processspec.h"

#include <QDeadlineTimer>
#include <QList>
#include <QObject>
#include <deque>
#include <map>
#include <memory>
#include <optional>

class QTimer;

namespace rg {

class BuildHistory;
class LogStore;

class BuildQueue : public QObject
{
    Q_OBJECT
public:
    explicit BuildQueue(QObject* parent = nullptr);
    ~BuildQueue() override; // ends every running job's process group

    void setSettings(const BuildSettings& settings); // concurrency applies at once
    const BuildSettings& settings() const { return m_settings; }
    // Optional collaborators, not owned. Without a store logs are not kept on disk; without
    // a history ids start at 1 and nothing is recorded.
    void setLogStore(LogStore* store) { m_logStore = store; }
    void setHistory(BuildHistory* history) { m_history = history; }

    // Queues a build with the settings' backend; 0 (and `error`) when no command can be made.
    quint64 enqueue(const BuildTarget& target, QString* error = nullptr);
    // Queues many; the ids of those queued (errors collected one per failed target).
    QList<quint64> enqueue(const QList<BuildTarget>& targets, QStringList* errors = nullptr);
    // `flox publish -o ORG PNAME` as a job (settings.publishOrg).
    quint64 enqueuePublish(const BuildTarget& target, QString* error = nullptr);
    // Any process as a job (tests, benchmarks, custom tools); `verify` runs verification
    // against `target.expected` when it exits 0 and `spec.resultPath` is set.
    quint64 enqueueProcess(const BuildTarget& target, const ProcessSpec& spec, JobKind kind,
                           BackendKind backend, bool verify);

    // Queued → cancelled at once; running → the process group is ended, then cancelled.
    void cancel(quint64 id);
    void cancelAll();

    bool hasRunningJobs() const; // running or queued: ask before quitting
    int runningCount() const;
    int queuedCount() const;

    QList<quint64> jobIds() const; // in queue order
    const BuildRecord* job(quint64 id) const;
    // The history's estimate for a queued/running job (nullopt without history or data).
    std::optional<qint64> estimatedDurationMs(quint64 id) const;
    // The process group of a running job, 0 otherwise (tests assert it is gone after cancel).
    qint64 processGroup(quint64 id) const;

    // Each remote builder as the last check found it, in the settings' order (not answered() while
    // that check still asks it); empty before any.
    // A Nix build with remote builders is sent only to the builders that answered up: it starts
    // as soon as one that can take it has, without waiting for the others. A batch waits for a
    // check of its own when the builders changed, or when the queue was idle and the last
    // answers are older than the connections they opened (BuilderSshOptions::persistSeconds)
    // or found a builder down. A builder that fails a build (unreachable, its connection lost)
    // is down for the rest of the batch.
    const QList<BuilderHealth>& builderHealth() const { return m_builderHealth; }
    // Asks the builders now, unless they were asked within persistSeconds or are being asked, or
    // a batch runs on their answers: a batch started while the answers are fresh and all up
    // starts at once, on the connections the check left open. The window asks when a
    // repository it can build opens, on new builders, and as the user selects what to build.
    void refreshBuilderHealth();
    // How long answers stand as above; persistSeconds unless set (tests shorten it).
    void setHealthLifetimeMs(int ms) { m_healthLifetimeMs = ms; }

    // Emits the job's pending log text now instead of at the next tick; call before reading
    // the log file so the file and the signals agree (LogPane::attachJob does).
    void flushLog(quint64 id);

signals:
    void jobQueued(quint64 id);
    void jobStarted(quint64 id);
    void jobProgress(quint64 id, int done, int total);
    // The log named the machine a derivation of the job went to, or one that refused it
    // (BuildRecord::placements).
    void jobPlaced(quint64 id);
    void jobLogAppended(quint64 id, const QString& text); // decoded text, ANSI escapes kept
    void jobVerificationStarted(quint64 id);
    void jobFinished(quint64 id); // state, exit code, verification in job(id)
    void idle();                  // nothing running or queued any more
    void buildersChecked();       // builderHealth() holds a new check's answers

private:
    struct Runtime;
    quint64 enqueueJob(const BuildTarget& target, const ProcessSpec& spec, JobKind kind,
                       BackendKind backend, bool verify, bool awaitingProbe, bool nixCommand);
    void probeNixCli();
    void nixCliProbed();
    void checkBuilders();
    void builderAnswered(int index);
    void buildersAnswered();
    bool healthStandsForTheBuilders() const;
    void healthAgesWhileIdle();
    bool buildersReadyFor(const BuildTarget& target) const;
    void markBuilderDown(const BuildPlacement& failure);
    bool routeToBuildersUp(quint64 id);
    QList<BuilderMachine> buildersUp() const;
    bool placingWithOtherBuilders(const QString& builders) const;
    int remoteJobLimit() const;
    int evaluatingCount() const;
    static int evaluationSlots();
    void startNext();
    void evaluated(Runtime& rt);
    void start(quint64 id);
    // Appends to the job's log file; the first write that fails is the file's end (logError).
    void keepLog(quint64 id, Runtime& rt, const QByteArray& bytes);
    void readOutput(quint64 id);
    void readLine(Runtime& rt, BuildRecord* record, QStringView line);
    void retryElsewhere(quint64 id, Runtime& rt);
    // A line of the queue's own in the job's log ("# cancelled"), on a line of its own.
    void writeNote(quint64 id, Runtime& rt, const QString& line);
    void processFinished(quint64 id);
    void endWhatCancelLeft(const Runtime& rt) const; // once its process has exited
    void verificationFinished(quint64 id);
    void finish(quint64 id, JobState state);
    void flushAll();
    BuildRecord* mutableJob(quint64 id);

    BuildSettings m_settings;
    QList<BuilderMachine> m_machines; // the settings' remote builders
    LogStore* m_logStore = nullptr;
    BuildHistory* m_history = nullptr;
    quint64 m_localNextId = 1;
    std::deque<BuildRecord> m_jobs; // queue order; a deque keeps job() pointers stable
    std::map<quint64, std::unique_ptr<Runtime>> m_runtime;
    QList<quint64> m_pending;
    QTimer* m_flushTimer = nullptr;
    bool m_probingNix = false;
    BuilderCheck* m_builderCheck = nullptr; // while one runs
    QList<BuilderHealth> m_builderHealth;
    QString m_checkingBuilders; // the builders m_builderCheck asks
    QString m_checkedBuilders;  // the builders m_builderHealth speaks of; "" once it is void
    // When the answers stop standing for a new batch: never while a check or batch runs on
    // them; persistSeconds after the queue went idle with every builder up.
    QDeadlineTimer m_healthStaleAt{QDeadlineTimer::Forever};
    QDeadlineTimer m_askAgainAt; // refreshBuilderHealth() asks again from then on
    int m_healthLifetimeMs = BuilderSshOptions::persistSeconds * 1000;
};

} // namespace rg
