// The queue against the real Nix: long logs with progress, failures, cancel (the whole process
// tree goes), concurrency, verification of the result, the nix-build fallback.

#include "buildfixture.h"
#include "builds/buildhistory.h"
#include "builds/buildqueue.h"
#include "builds/logstore.h"
#include "builds/nixbackend.h"

#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QThread>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <signal.h>

using namespace rg;

namespace {

bool processGone(qint64 pid)
{
    return ::kill(pid_t(pid), 0) == -1 && errno == ESRCH;
}

bool groupGone(qint64 pgid)
{
    return ::kill(pid_t(-pgid), 0) == -1 && errno == ESRCH;
}

// A recipe named `name` that builds for `seconds`.
bool writeSleeper(const QString& path, const QString& name, int seconds)
{
    QFile out(path);
    return out.open(QIODevice::WriteOnly) &&
           out.write(
               QStringLiteral("builtins.derivation { name = \"%1\"; system = "
                              "builtins.currentSystem; builder = \"/bin/sh\"; nonce = "
                              "\"%2\"; args = [ \"-c\" \"/bin/sleep %3; /bin/mkdir $out\" ]; }\n")
                   .arg(name, test::randomNonce())
                   .arg(seconds)
                   .toUtf8()) > 0;
}

} // namespace

class TestBuildQueue : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    struct Fixture
    {
        QTemporaryDir dir;
        QString repo;
        QString pidFile;
        LogStore logs;
        BuildHistory history;
        BuildQueue queue;

        explicit Fixture(int sleepSeconds = 2)
            : logs(dir.filePath("logs")), history(dir.filePath("history.json"))
        {
            repo = dir.filePath("repo");
            pidFile = dir.filePath("pids");
            copyOk = test::copyFixtureRepo(repo, sleepSeconds, pidFile);
            queue.setLogStore(&logs);
            queue.setHistory(&history);
        }
        bool copyOk = false;

        BuildTarget target(const QString& variant) const
        {
            QString error;
            auto t = BuildTarget::resolve(repo, variant, QStringLiteral(".flox/pkgs"), &error);
            if (!t)
                qWarning() << error;
            return t.value_or(BuildTarget{});
        }
        // Queues `/bin/sh -c script` as a custom job; its live log goes to `streamed`.
        quint64 runShell(const QString& script, QString* streamed)
        {
            ProcessSpec spec;
            spec.program = QStringLiteral("/bin/sh");
            spec.arguments = {QStringLiteral("-c"), script};
            spec.workingDirectory = repo;
            QObject::connect(&queue, &BuildQueue::jobLogAppended,
                             [streamed](quint64, const QString& text) { *streamed += text; });
            return queue.enqueueProcess(target(QStringLiteral("sleeper-a")), spec, JobKind::Build,
                                        BackendKind::Custom, false);
        }
        // Waits for every given job to finish.
        bool waitFinished(const QList<quint64>& ids, int timeoutMs = 60000)
        {
            return QTest::qWaitFor(
                [&] {
                    return std::all_of(ids.begin(), ids.end(), [&](quint64 id) {
                        return queue.job(id) && queue.job(id)->isFinished();
                    });
                },
                timeoutMs);
        }
    };

    static BuildSettings nixSettings(int concurrency = 1)
    {
        BuildSettings s;
        s.backend = BackendKind::Nix;
        s.concurrency = concurrency;
        s.cancelGraceMs = 3000;
        return s;
    }

    // `nix` for as long as it lives: a shell script running `body`, first on PATH, taken for
    // the new command line.
    struct StandInNix
    {
        QByteArray savedPath = qgetenv("PATH");
        bool ok = false;
        StandInNix(const Fixture& f, const QByteArray& body)
        {
            const QString bin = f.dir.filePath(QStringLiteral("bin"));
            QFile script(bin + QStringLiteral("/nix"));
            ok = QDir().mkpath(bin) && script.open(QIODevice::WriteOnly) &&
                 script.write("#!/bin/sh\n" + body) > 0 && script.flush() &&
                 script.setPermissions(script.permissions() | QFileDevice::ExeOwner);
            qputenv("PATH", bin.toUtf8() + ":" + savedPath);
            NixBackend::setNewCliOverride(true);
        }
        ~StandInNix() { qputenv("PATH", savedPath); }
    };

    // One more Nix job than there are cores, all let run at once.
    static QList<quint64> enqueueMoreThanTheCores(Fixture& f)
    {
        const int count = std::max(1, QThread::idealThreadCount()) + 1;
        f.queue.setSettings(nixSettings(count));
        QList<BuildTarget> targets;
        for (int i = 0; i < count; ++i)
            targets << f.target(QStringLiteral("sleeper-a"));
        return f.queue.enqueue(targets);
    }

private slots:
    void initTestCase()
    {
        test::configureNix();
        QVERIFY2(!QStandardPaths::findExecutable("nix-build").isEmpty(),
                 "nix-build is required (Debian package nix-bin)");
        // The queue holds Nix jobs until it knows which command line works; answered here,
        // jobs start as they are queued, which the concurrency tests count on.
        NixBackend::hasNewCli();
        QVERIFY(NixBackend::knownNewCli());
    }

    // Before the probe has answered, a Nix job is queued at once and starts when it answers.
    void nixJobsWaitForTheProbe()
    {
        Fixture f(1);
        QVERIFY(f.copyOk);
        f.queue.setSettings(nixSettings(1));
        const QByteArray savedPath = qgetenv("PATH");
        qputenv("PATH", savedPath + ":" + f.repo.toUtf8()); // a PATH not probed yet
        auto restorePath = qScopeGuard([&] { qputenv("PATH", savedPath); });
        QVERIFY(!NixBackend::knownNewCli());
        QSignalSpy started(&f.queue, &BuildQueue::jobStarted);
        const quint64 id = f.queue.enqueue(f.target(QStringLiteral("pytorch-python313-cpu-avx2")));
        QVERIFY(id);
        QCOMPARE(f.queue.job(id)->state, JobState::Queued);
        QCOMPARE(f.queue.queuedCount(), 1);
        QVERIFY(started.wait(60000));
        QVERIFY(NixBackend::knownNewCli());
        QCOMPARE(f.queue.job(id)->program,
                 *NixBackend::knownNewCli() ? QStringLiteral("nix") : QStringLiteral("nix-build"));
        QVERIFY(f.waitFinished({id}));
        QCOMPARE(f.queue.job(id)->state, JobState::Succeeded);
    }

    void cleanup() { NixBackend::setNewCliOverride(std::nullopt); }

    void buildsWithLongLogProgressAndVerification()
    {
        Fixture f;
        QVERIFY(f.copyOk);
        f.queue.setSettings(nixSettings());
        QSignalSpy queued(&f.queue, &BuildQueue::jobQueued);
        QSignalSpy started(&f.queue, &BuildQueue::jobStarted);
        QSignalSpy progress(&f.queue, &BuildQueue::jobProgress);
        QSignalSpy appended(&f.queue, &BuildQueue::jobLogAppended);
        QSignalSpy finished(&f.queue, &BuildQueue::jobFinished);
        QString streamed;
        connect(&f.queue, &BuildQueue::jobLogAppended, this,
                [&](quint64, const QString& text) { streamed += text; });

        const quint64 id =
            f.queue.enqueue(f.target(QStringLiteral("pytorch-python313-cuda12_9-sm90-avx512")));
        QVERIFY(id != 0);
        QCOMPARE(queued.size(), 1);
        QVERIFY(f.queue.hasRunningJobs());
        QVERIFY(f.waitFinished({id}));
        const BuildRecord* job = f.queue.job(id);
        QCOMPARE(job->state, JobState::Succeeded);
        QCOMPARE(job->exitCode, 0);
        QCOMPARE(job->program, QStringLiteral("nix")); // nix-command is enabled
        QCOMPARE(started.size(), 1);
        QCOMPARE(finished.size(), 1);
        QVERIFY(!f.queue.hasRunningJobs());

        // Progress came from the ninja lines behind nix's "name> " prefix.
        QCOMPARE(job->progressDone, 3000);
        QCOMPARE(job->progressTotal, 3000);
        QVERIFY(progress.size() >= 1);
        QCOMPARE(progress.last().at(1).toInt(), 3000);

        // The whole log is on disk, with colours; the signal was batched, not per line.
        const QByteArray log = test::readFile(job->logPath);
        QCOMPARE(log.count("Building CXX object"), 3000);
        // Nix strips the builder's colours when its output is not a terminal.
        QVERIFY(log.contains("pytorch-python313-cuda12_9-sm90-avx512> [3000/3000] Building"));
        QVERIFY(log.startsWith("$ nix build -f "));
        QCOMPARE(streamed.count(QLatin1String("Building CXX object")), 3000);
        QVERIFY2(appended.size() < 1000, qPrintable(QString::number(appended.size())));

        // Verification against the result's bin/python.
        QCOMPARE(job->resultPath,
                 QDir(f.repo).canonicalPath() + "/result-pytorch-python313-cuda12_9-sm90-avx512");
        QVERIFY(QFileInfo::exists(job->resultPath + "/bin/python"));
        QCOMPARE(job->verification.status, VerificationResult::Status::Passed);
        QCOMPARE(job->verification.torch, QStringLiteral("2.9.1"));
        QCOMPARE(job->verification.cuda, QStringLiteral("12.9"));
        QCOMPARE(job->verification.python, QStringLiteral("3.13.1"));
        QVERIFY(job->closureSize > 0);

        // And it was recorded.
        QVERIFY(f.history.record(id));
        QCOMPARE(*f.history.record(id), *job);
    }

    void keepsColoursAndSplitCharacters()
    {
        // Tools that colour their output into a pipe (flox, custom commands) keep the escapes
        // byte for byte on disk and in the signal; multi-byte characters split across reads
        // decode intact.
        Fixture f;
        QVERIFY(f.copyOk);
        QString streamed;
        const quint64 id =
            f.runShell(QStringLiteral("i=0; while [ $i -lt 20000 ]; do "
                                      "printf '\\033[1;31merror:\\033[0m caf\\303\\251 %d\\n' $i; "
                                      "i=$((i+1)); done"),
                       &streamed);
        QVERIFY(f.waitFinished({id}));
        QCOMPARE(f.queue.job(id)->state, JobState::Succeeded);
        const QByteArray log = test::readFile(f.queue.job(id)->logPath);
        QCOMPARE(log.count("\x1b[1;31merror:\x1b[0m caf\xc3\xa9 "), 20000);
        QCOMPARE(streamed.count(QStringLiteral("\x1b[1;31merror:\x1b[0m caf\u00e9 ")), 20000);
        QVERIFY(!streamed.contains(QChar::ReplacementCharacter));
    }

    // A job that a signal ends says which, and for SIGKILL what most often sends it; "was
    // killed by a signal" left the user to guess.
    void aJobKilledByASignalSaysWhich_data()
    {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("error");
        const auto described = [](int signal) { return QString::fromLocal8Bit(strsignal(signal)); };
        QTest::newRow("SIGKILL")
            << QStringLiteral("echo compiling; kill -KILL $$")
            << QStringLiteral("/bin/sh was killed by SIGKILL (%1); the kernel's out-of-memory "
                              "killer ends processes so (see dmesg)")
                   .arg(described(SIGKILL));
        QTest::newRow("SIGSEGV")
            << QStringLiteral("ulimit -c 0; echo compiling; kill -SEGV $$")
            << QStringLiteral("/bin/sh was killed by SIGSEGV (%1)").arg(described(SIGSEGV));
    }

    void aJobKilledByASignalSaysWhich()
    {
        QFETCH(QString, script);
        QFETCH(QString, error);
        Fixture f;
        QVERIFY(f.copyOk);
        QString streamed;
        const quint64 id = f.runShell(script, &streamed);
        QVERIFY(f.waitFinished({id}));
        const BuildRecord* job = f.queue.job(id);
        QCOMPARE(job->state, JobState::Failed);
        QCOMPARE(job->error, error);
        QVERIFY2(streamed.contains(QStringLiteral("compiling\n# ") + error + QLatin1Char('\n')),
                 qPrintable(streamed));
    }

    // A disk that is full: the job's log file ends where the disk gave out and takes nothing
    // more, the build itself goes on to its end, and the job's live log and its record (kept in
    // the history) say where the file stops and why. /dev/full is a disk that is always full.
    void aFullDiskEndsTheLogFileAndSaysSo()
    {
        Fixture f;
        QVERIFY(f.copyOk);
        QVERIFY(QDir().mkpath(f.logs.directory()));
        QVERIFY(QFile::link(QStringLiteral("/dev/full"), f.logs.logPath(1)));
        QString streamed;
        const quint64 id = f.runShell(
            QStringLiteral("i=0; while [ $i -lt 2000 ]; do echo \"line $i\"; i=$((i+1)); done"),
            &streamed);
        QCOMPARE(id, quint64(1));
        QVERIFY(f.waitFinished({id}));
        const BuildRecord* job = f.queue.job(id);
        QCOMPARE(job->state, JobState::Succeeded);
        QCOMPARE(job->logError, f.logs.logPath(1) + QStringLiteral(": No space left on device"));
        QCOMPARE(streamed.count(QStringLiteral("the log file stops here")), 1);
        QVERIFY(streamed.startsWith(job->logStopNote()));
        QVERIFY2(streamed.contains(QStringLiteral("\nline 1999\n")),
                 qPrintable(streamed.right(200)));
        const BuildHistory reread(f.dir.filePath("history.json"));
        QVERIFY(reread.record(id));
        QCOMPARE(reread.record(id)->logError, job->logError);
    }

    void verificationFailsWithReason()
    {
        Fixture f;
        QVERIFY(f.copyOk);
        f.queue.setSettings(nixSettings());
        BuildTarget t = f.target(QStringLiteral("pytorch-python313-cuda12_9-sm86-avx2"));
        t.expected.torch = QStringLiteral("2.9.1");
        const quint64 id = f.queue.enqueue(t);
        QVERIFY(f.waitFinished({id}));
        const BuildRecord* job = f.queue.job(id);
        QCOMPARE(job->state, JobState::Succeeded); // the build worked; its result is wrong
        QCOMPARE(job->verification.status, VerificationResult::Status::Failed);
        QCOMPARE(job->verification.reason, QStringLiteral("CUDA 12.8, expected 12.9"));
        QVERIFY(
            test::readFile(job->logPath).contains("verification failed: CUDA 12.8, expected 12.9"));

        // A torch expectation that does not hold fails too, with both reasons.
        BuildTarget cpu = f.target(QStringLiteral("pytorch-python313-cpu-avx2"));
        cpu.expected.torch = QStringLiteral("2.10.0");
        const quint64 cpuId = f.queue.enqueue(cpu);
        QVERIFY(f.waitFinished({cpuId}));
        QCOMPARE(f.queue.job(cpuId)->verification.reason,
                 QStringLiteral("torch 2.9.1, expected 2.10.0"));
        QCOMPARE(f.queue.job(cpuId)->verification.cuda, QStringLiteral("None"));
    }

    void failingBuild()
    {
        Fixture f;
        QVERIFY(f.copyOk);
        f.queue.setSettings(nixSettings());
        const quint64 id =
            f.queue.enqueue(f.target(QStringLiteral("pytorch-python313-cuda12_9-sm80-avx2")));
        QVERIFY(f.waitFinished({id}));
        const BuildRecord* job = f.queue.job(id);
        QCOMPARE(job->state, JobState::Failed);
        QCOMPARE(job->exitCode, 1); // `nix build` exits 1 when a builder fails
        QCOMPARE(job->error, QStringLiteral("exit code 1"));
        QCOMPARE(job->verification.status, VerificationResult::Status::NotRun);
        const QByteArray log = test::readFile(job->logPath);
        QVERIFY(log.contains("failed with exit code 3"));
        QVERIFY(log.contains("FAILED: aten/src/ATen/native/cuda/Blas.cu.o"));
        QCOMPARE(job->progressDone, 1);
        QCOMPARE(job->progressTotal, 2);
    }

    void fallsBackToNixBuild()
    {
        // Without nix-command the probe says no and nix-build does the work.
        const QByteArray saved = qgetenv("NIX_CONFIG");
        qputenv("NIX_CONFIG", "build-users-group =\nsandbox = false\nsubstituters =");
        auto restore = qScopeGuard([&] { qputenv("NIX_CONFIG", saved); });
        Fixture f;
        QVERIFY(f.copyOk);
        f.queue.setSettings(nixSettings());
        const quint64 ok = f.queue.enqueue(f.target(QStringLiteral("pytorch-python313-cpu-avx2")));
        const quint64 bad =
            f.queue.enqueue(f.target(QStringLiteral("pytorch-python313-cuda12_9-sm80-avx2")));
        QVERIFY(f.waitFinished({ok, bad}));
        QCOMPARE(f.queue.job(ok)->program, QStringLiteral("nix-build"));
        QCOMPARE(f.queue.job(ok)->state, JobState::Succeeded);
        QCOMPARE(f.queue.job(ok)->verification.status, VerificationResult::Status::Passed);
        QVERIFY(f.queue.job(ok)->closureSize > 0); // path-info still works via the flag
        QCOMPARE(f.queue.job(bad)->state, JobState::Failed);
        QCOMPARE(f.queue.job(bad)->exitCode, 100); // nix-build's "build failed"
    }

    void cancelEndsTheWholeProcessTree()
    {
        Fixture f(300);
        QVERIFY(f.copyOk);
        f.queue.setSettings(nixSettings());
        QSignalSpy finished(&f.queue, &BuildQueue::jobFinished);
        const quint64 id = f.queue.enqueue(f.target(QStringLiteral("sleeper-a")));
        // The builder has started once it wrote its pids (builder shell, its sleep).
        const QString pidFile = f.pidFile + "-a";
        QVERIFY(QTest::qWaitFor([&] { return test::readFile(pidFile).trimmed().contains(' '); },
                                60000));
        const QList<QByteArray> pids = test::readFile(pidFile).trimmed().split(' ');
        const qint64 builder = pids.at(0).toLongLong();
        const qint64 sleeper = pids.at(1).toLongLong();
        const qint64 group = f.queue.processGroup(id);
        QVERIFY(group > 0);
        QVERIFY(!groupGone(group));
        QVERIFY(!processGone(builder));
        QVERIFY(!processGone(sleeper));

        QElapsedTimer timer;
        timer.start();
        f.queue.cancel(id);
        QVERIFY(finished.wait(20000));
        QCOMPARE(f.queue.job(id)->state, JobState::Cancelled);
        QVERIFY2(timer.elapsed() < 15000, "cancel must not wait for the build");
        QVERIFY(groupGone(group));
        // nix ends its builder (its own session) when we end nix.
        QVERIFY(
            QTest::qWaitFor([&] { return processGone(builder) && processGone(sleeper); }, 10000));
        QVERIFY(!f.queue.hasRunningJobs());
        QVERIFY(test::readFile(f.queue.job(id)->logPath).contains("# cancelled"));
    }

    void cancelKillsStubbornGroups()
    {
        // A child that ignores SIGTERM and a grandchild in the same group: SIGKILL after
        // the grace period ends both.
        Fixture f;
        QVERIFY(f.copyOk);
        BuildSettings s = nixSettings();
        s.cancelGraceMs = 300;
        f.queue.setSettings(s);
        ProcessSpec spec;
        spec.program = QStringLiteral("/bin/sh");
        spec.arguments = {QStringLiteral("-c"),
                          QStringLiteral("trap '' TERM; /bin/sleep 300 & echo \"child $!\"; "
                                         "while :; do /bin/sleep 1; done")};
        spec.workingDirectory = f.repo;
        BuildTarget t = f.target(QStringLiteral("sleeper-b"));
        const quint64 id =
            f.queue.enqueueProcess(t, spec, JobKind::Build, BackendKind::Custom, false);
        QString log;
        connect(&f.queue, &BuildQueue::jobLogAppended, this,
                [&](quint64, const QString& text) { log += text; });
        QVERIFY(QTest::qWaitFor([&] { return log.contains(QLatin1String("child ")); }, 10000));
        const qint64 group = f.queue.processGroup(id);
        QVERIFY(group > 0);
        f.queue.cancel(id);
        QVERIFY(f.waitFinished({id}, 10000));
        QCOMPARE(f.queue.job(id)->state, JobState::Cancelled);
        QVERIFY(QTest::qWaitFor([&] { return groupGone(group); }, 5000));
    }

    void runsTwoJobsConcurrently()
    {
        Fixture f(3);
        QVERIFY(f.copyOk);
        f.queue.setSettings(nixSettings(2));
        const quint64 a = f.queue.enqueue(f.target(QStringLiteral("sleeper-a")));
        const quint64 b = f.queue.enqueue(f.target(QStringLiteral("sleeper-b")));
        QCOMPARE(f.queue.runningCount(), 2);
        QCOMPARE(f.queue.queuedCount(), 0);
        // Both builders run at the same time: each wrote its pids before either finished.
        QVERIFY(QTest::qWaitFor(
            [&] {
                return QFileInfo::exists(f.pidFile + "-a") && QFileInfo::exists(f.pidFile + "-b");
            },
            60000));
        QVERIFY(!f.queue.job(a)->isFinished() || !f.queue.job(b)->isFinished());
        QVERIFY(f.waitFinished({a, b}));
        QCOMPARE(f.queue.job(a)->state, JobState::Succeeded);
        QCOMPARE(f.queue.job(b)->state, JobState::Succeeded);
        QVERIFY(f.queue.job(b)->startedAt < f.queue.job(a)->finishedAt);
    }

    void concurrencyOneMakesTheSecondWait()
    {
        Fixture f(2);
        QVERIFY(f.copyOk);
        f.queue.setSettings(nixSettings(1));
        QSignalSpy started(&f.queue, &BuildQueue::jobStarted);
        const quint64 a = f.queue.enqueue(f.target(QStringLiteral("sleeper-a")));
        const quint64 b = f.queue.enqueue(f.target(QStringLiteral("sleeper-b")));
        const quint64 c = f.queue.enqueue(f.target(QStringLiteral("pytorch-python313-cpu-avx2")));
        QCOMPARE(f.queue.runningCount(), 1);
        QCOMPARE(f.queue.queuedCount(), 2);
        QCOMPARE(f.queue.job(b)->state, JobState::Queued);
        QCOMPARE(f.queue.jobIds(), QList<quint64>({a, b, c}));
        // A queued job cancels at once, without ever starting.
        f.queue.cancel(c);
        QCOMPARE(f.queue.job(c)->state, JobState::Cancelled);
        QVERIFY(!f.queue.job(c)->startedAt.isValid());
        QVERIFY(f.waitFinished({a, b}));
        QCOMPARE(started.size(), 2);
        QCOMPARE(f.queue.job(a)->state, JobState::Succeeded);
        QCOMPARE(f.queue.job(b)->state, JobState::Succeeded);
        QVERIFY(f.queue.job(b)->startedAt >= f.queue.job(a)->finishedAt);
        // Ids come from the history so they stay unique across sessions.
        QCOMPARE(f.history.nextJobId(), c + 1);
    }

    // A Nix job holds one of this machine's cores from its start until Nix has placed its
    // build: no more Nix jobs start at once than there are cores, the next starts as soon as
    // one is placed, and the builds themselves still all run together.
    void nixJobsStartNoFasterThanTheCoresEvaluate()
    {
        Fixture f;
        QVERIFY(f.copyOk);
        const int cores = std::max(1, QThread::idealThreadCount());
        const int count = cores + 2;
        QList<BuildTarget> targets;
        for (int i = 0; i < count; ++i) {
            const QString variant = QStringLiteral("evaluated-%1").arg(i);
            QVERIFY(writeSleeper(f.repo + QStringLiteral("/.flox/pkgs/") + variant + ".nix",
                                 variant, 3));
            targets << f.target(variant);
        }
        f.queue.setSettings(nixSettings(count));
        // Read from the records, which the queue updates as each line arrives (its signals come
        // in batches): started and not yet placed anywhere.
        int most = 0;
        connect(&f.queue, &BuildQueue::jobStarted, this, [&] {
            const QList<quint64> all = f.queue.jobIds();
            const auto evaluating = std::count_if(all.cbegin(), all.cend(), [&](quint64 id) {
                const BuildRecord* job = f.queue.job(id);
                return job->state == JobState::Running && job->placements.isEmpty();
            });
            most = std::max(most, int(evaluating));
        });
        const QList<quint64> ids = f.queue.enqueue(targets);
        QCOMPARE(ids.size(), count);
        QCOMPARE(f.queue.runningCount(), cores);
        QCOMPARE(f.queue.queuedCount(), count - cores);
        QVERIFY(f.waitFinished(ids));
        for (quint64 id : ids) {
            QCOMPARE(f.queue.job(id)->state, JobState::Succeeded);
            QVERIFY(f.queue.job(id)->builtOn());
        }
        QCOMPARE(most, cores);
        QVERIFY(f.queue.job(ids.last())->startedAt < f.queue.job(ids.first())->finishedAt);
    }

    // A Nix job that stays silent (a long evaluation, a quiet download) holds the next start
    // back for ten seconds, not until it ends.
    void aSilentNixJobHoldsTheNextStartOnlySoLong()
    {
        Fixture f;
        QVERIFY(f.copyOk);
        const StandInNix nix(f, "exec sleep 60\n");
        QVERIFY(nix.ok);
        const int cores = std::max(1, QThread::idealThreadCount());
        const QList<quint64> ids = enqueueMoreThanTheCores(f);
        QCOMPARE(ids.size(), cores + 1);
        auto cancel = qScopeGuard([&] { f.queue.cancelAll(); });
        QCOMPARE(f.queue.runningCount(), cores);
        QTest::qWait(5000);
        QCOMPARE(f.queue.job(ids.last())->state, JobState::Queued);
        QVERIFY(QTest::qWaitFor([&] { return f.queue.job(ids.last())->state == JobState::Running; },
                                15000));
        const qint64 heldMs =
            f.queue.job(ids.first())->startedAt.msecsTo(f.queue.job(ids.last())->startedAt);
        QVERIFY2(heldMs >= 9900 && heldMs < 15000, qPrintable(QString::number(heldMs)));
    }

    // A variant built before is all downloads from a binary cache, with no placement: once Nix
    // says it copies from the cache, the job holds no core and the next one starts.
    void aNixJobDownloadingHoldsNoCore()
    {
        Fixture f;
        QVERIFY(f.copyOk);
        const StandInNix nix(
            f, "echo \"copying path '/nix/store/0123456789abcdfghijklmnpqrsvwxyz-torch-2.9.1' from "
               "'https://cache.nixos.org'...\" >&2\nexec sleep 60\n");
        QVERIFY(nix.ok);
        const QList<quint64> ids = enqueueMoreThanTheCores(f);
        QCOMPARE(ids.size(), std::max(1, QThread::idealThreadCount()) + 1);
        auto cancel = qScopeGuard([&] { f.queue.cancelAll(); });
        QVERIFY(QTest::qWaitFor([&] { return f.queue.job(ids.last())->state == JobState::Running; },
                                5000));
        QCOMPARE(f.queue.job(ids.first())->state, JobState::Running);
        QVERIFY(f.queue.job(ids.first())->placements.isEmpty());
    }

    void reportsProgramsThatCannotStart()
    {
        Fixture f;
        QVERIFY(f.copyOk);
        BuildSettings s;
        s.backend = BackendKind::Custom;
        s.customCommand = QStringLiteral("/nonexistent/builder {variant}");
        f.queue.setSettings(s);
        QSignalSpy finished(&f.queue, &BuildQueue::jobFinished);
        const quint64 id = f.queue.enqueue(f.target(QStringLiteral("pytorch-python313-cpu-avx2")));
        QVERIFY(id != 0);
        QVERIFY(f.waitFinished({id}, 10000));
        QCOMPARE(finished.size(), 1);
        QCOMPARE(f.queue.job(id)->state, JobState::Failed);
        QVERIFY2(
            f.queue.job(id)->error.contains(QLatin1String("cannot start /nonexistent/builder")),
            qPrintable(f.queue.job(id)->error));
        QVERIFY(!f.queue.hasRunningJobs());
    }

    void customBackendBuildsWithTemplate()
    {
        Fixture f;
        QVERIFY(f.copyOk);
        BuildSettings s;
        s.backend = BackendKind::Custom;
        s.customCommand = QStringLiteral("nix-build {file} -o result-{pname}");
        f.queue.setSettings(s);
        const quint64 id = f.queue.enqueue(f.target(QStringLiteral("pytorch-python313-cpu-avx2")));
        QVERIFY(f.waitFinished({id}));
        const BuildRecord* job = f.queue.job(id);
        QCOMPARE(job->backend, BackendKind::Custom);
        QCOMPARE(job->state, JobState::Succeeded);
        QCOMPARE(job->verification.status, VerificationResult::Status::Passed);
    }

    void rejectsBadTargets()
    {
        Fixture f;
        QVERIFY(f.copyOk);
        f.queue.setSettings(nixSettings());
        BuildTarget t = f.target(QStringLiteral("pytorch-python313-cpu-avx2"));
        t.pname = QStringLiteral("--option");
        QString error;
        QCOMPARE(f.queue.enqueue(t, &error), quint64(0));
        QVERIFY(error.contains(QLatin1String("invalid")));
        QStringList errors;
        BuildTarget good = f.target(QStringLiteral("pytorch-python313-cpu-avx2"));
        const auto ids = f.queue.enqueue(QList<BuildTarget>{t, good}, &errors);
        QCOMPARE(ids.size(), 1);
        QCOMPARE(errors.size(), 1);
        QVERIFY(f.waitFinished(ids));
    }
};

QTEST_GUILESS_MAIN(TestBuildQueue)
#include "tst_buildqueue.moc"
