// BuildJobsModel under QAbstractItemModelTester while real builds run, with earlier
// sessions' jobs from the history; BuildSession's per-variant state for grid overlays.

#include "buildfixture.h"
#include "builds/buildhistory.h"
#include "builds/buildqueue.h"
#include "builds/logstore.h"
#include "builds/nixbackend.h"
#include "itemmodels/buildjobsmodel.h"
#include "sessions/buildsession.h"

#include <QAbstractItemModelTester>
#include <QGuiApplication>
#include <QRegularExpression>
#include <QSignalSpy>

using namespace rg;

class TestBuildJobsModel : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        test::configureNix();
        // The queue holds Nix jobs until it knows which command line works; answered here,
        // the first job runs as it is queued, which the model's rows are checked against.
        NixBackend::hasNewCli();
        QVERIFY(NixBackend::knownNewCli());
    }
    // The model tester's role checks must find every type they use registered.
    void init() { QTest::failOnWarning(QRegularExpression(QStringLiteral("invalid type"))); }

    void modelFollowsQueueAndHistory()
    {
        QTemporaryDir dir;
        const QString repo = dir.filePath("repo");
        QVERIFY(test::copyFixtureRepo(repo, 1));
        // One job from an earlier session.
        {
            BuildHistory earlier(dir.filePath("history.json"));
            QVERIFY(test::addEarlierJob(earlier, QStringLiteral("pytorch-python313-cpu-avx2"),
                                        JobState::Succeeded, 3, 42,
                                        QStringLiteral("flox build pytorch-python313-cpu-avx2")));
        }
        BuildHistory history(dir.filePath("history.json"));
        LogStore logs(dir.filePath("logs"));
        BuildQueue queue;
        queue.setHistory(&history);
        queue.setLogStore(&logs);
        BuildSettings s;
        s.backend = BackendKind::Nix;
        queue.setSettings(s);
        BuildJobsModel model(&queue, &history);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.columnCount(), int(BuildJobsModel::ColumnCount));
        QCOMPARE(model.index(0, BuildJobsModel::DurationColumn).data().toString(),
                 QStringLiteral("42s"));
        QCOMPARE(model.index(0, 0).data(BuildJobsModel::IsLiveRole), QVariant(false));
        // An earlier day's job shows its date; the tooltip has the second.
        const QDateTime oldStart = history.records().front().startedAt.toLocalTime();
        QCOMPARE(model.index(0, BuildJobsModel::StartedColumn).data().toString(),
                 oldStart.toString(QStringLiteral("yyyy-MM-dd HH:mm")));
        QCOMPARE(model.index(0, BuildJobsModel::StartedColumn).data(Qt::ToolTipRole).toString(),
                 oldStart.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));

        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        auto target = [&](const QString& v) {
            return *BuildTarget::resolve(repo, v, QStringLiteral(".flox/pkgs"), nullptr);
        };
        const quint64 a = queue.enqueue(target("sleeper-a"));
        const quint64 b = queue.enqueue(target("pytorch-python313-cuda12_9-sm90-avx512"));
        QCOMPARE(inserted.size(), 2);
        QCOMPARE(model.rowCount(), 3);
        // Newest first.
        QCOMPARE(model.jobId(0), b);
        QCOMPARE(model.jobId(1), a);
        QCOMPARE(model.index(0, 0).data(BuildJobsModel::StateRole).toInt(), int(JobState::Queued));
        QCOMPARE(model.index(1, BuildJobsModel::StateColumn).data().toString(),
                 QStringLiteral("running"));
        // Today's job shows its time alone.
        QCOMPARE(model.index(1, BuildJobsModel::StartedColumn).data().toString(),
                 queue.job(a)->startedAt.toLocalTime().toString(QStringLiteral("HH:mm:ss")));
        // A queued job gets an ETA from the earlier session's 42 s build.
        QCOMPARE(model.index(0, BuildJobsModel::DurationColumn).data().toString(),
                 QStringLiteral("~42s"));
        QVERIFY(model.index(0, 0).data(BuildJobsModel::IsLiveRole).toBool());

        QVERIFY(QTest::qWaitFor([&] { return queue.job(b)->isFinished(); }, 60000));
        QVERIFY(changed.size() > 0);
        const int row = model.rowOf(b);
        QCOMPARE(row, 0);
        QCOMPARE(model.index(row, BuildJobsModel::StateColumn).data().toString(),
                 QStringLiteral("succeeded"));
        QCOMPARE(model.index(row, BuildJobsModel::ProgressColumn).data().toString(),
                 QStringLiteral("3000/3000 (100%)"));
        QCOMPARE(model.index(row, 0).data(BuildJobsModel::ProgressRole).toDouble(), 1.0);
        QCOMPARE(model.index(row, BuildJobsModel::VerificationColumn).data().toString(),
                 QStringLiteral("passed"));
        QVERIFY(!model.index(row, BuildJobsModel::ClosureSizeColumn).data().toString().isEmpty());
        QCOMPARE(model.index(row, 0).data(BuildJobsModel::LogPathRole).toString(), logs.logPath(b));
        QCOMPARE(model.rowCount(), 3); // finishing does not add rows
    }

    void sessionReportsVariantState()
    {
        QTemporaryDir dir;
        const QString repo = dir.filePath("repo");
        QVERIFY(test::copyFixtureRepo(repo, 1));
        const QString variant = QStringLiteral("pytorch-python313-cuda12_9-sm90-avx512");
        quint64 firstId = 0;
        {
            BuildSession session(dir.filePath("data"));
            BuildJobsModel jobs(session.queue(), session.history());
            BuildSettings s;
            s.backend = BackendKind::Nix;
            s.concurrency = 1;
            session.setSettings(s);
            session.setExpectedTorchVersion(QStringLiteral("2.9.1"));
            QVERIFY(!session.recipeState(repo, variant).hasResult());
            QSignalSpy stateChanged(&session, &BuildSession::variantStateChanged);
            QStringList errors;
            const auto ids = session.build(
                repo, {QStringLiteral("sleeper-a"), variant, QStringLiteral("nope")}, &errors);
            QCOMPARE(ids.size(), 2);
            QCOMPARE(errors.size(), 1);
            QVERIFY(errors.first().contains(QLatin1String("no recipe for variant 'nope'")));
            firstId = ids.at(1);
            VariantBuildState st = session.recipeState(repo, variant);
            QVERIFY(st.queued);
            QVERIFY(!st.running);
            QCOMPARE(st.currentJobId, ids.at(1));
            QVERIFY(session.hasRunningJobs());

            bool sawRunning = false;
            connect(&session, &BuildSession::variantStateChanged, this, [&](const QString& v) {
                if (v == variant && session.recipeState(repo, v).running)
                    sawRunning = true;
            });
            QVERIFY(QTest::qWaitFor([&] { return !session.hasRunningJobs(); }, 60000));
            QVERIFY(sawRunning);
            QVERIFY(stateChanged.size() >= 4);
            st = session.recipeState(repo, variant);
            QVERIFY(!st.queued && !st.running);
            QVERIFY(st.hasResult());
            QCOMPARE(st.lastJobId, firstId);
            QCOMPARE(st.lastState, JobState::Succeeded);
            QVERIFY(st.lastDurationMs >= 0);
            QCOMPARE(st.lastVerification.status, VerificationResult::Status::Passed);
            QCOMPARE(jobs.rowCount(), 2);
            QVERIFY(QFileInfo::exists(dir.filePath("data/logs/job-1.log")));
        }
        // A new session (an app restart) remembers the result.
        BuildSession restarted(dir.filePath("data"));
        QVERIFY(restarted.historyError().isEmpty());
        const VariantBuildState st = restarted.recipeState(repo, variant);
        QCOMPARE(st.lastJobId, firstId);
        QCOMPARE(st.lastVerification.status, VerificationResult::Status::Passed);
        QCOMPARE(BuildJobsModel(restarted.queue(), restarted.history()).rowCount(), 2);

        // Publishing needs an organisation; with one it queues `flox publish`.
        QString error;
        QCOMPARE(restarted.publish(repo, variant, &error), quint64(0));
        QVERIFY(error.contains(QLatin1String("organisation")));
        BuildSettings s = restarted.settings();
        s.publishOrg = QStringLiteral("acme");
        s.customCommand.clear();
        restarted.setSettings(s);
        const QByteArray savedPath = qgetenv("PATH");
        qputenv("PATH", QByteArray(RG_FIXTURES_DIR "/build/fake-flox:") + savedPath);
        auto restore = qScopeGuard([&] { qputenv("PATH", savedPath); });
        const quint64 pub = restarted.publish(repo, variant, &error);
        QVERIFY2(pub != 0, qPrintable(error));
        QString log;
        connect(restarted.queue(), &BuildQueue::jobLogAppended, this,
                [&](quint64, const QString& t) { log += t; });
        QVERIFY(QTest::qWaitFor([&] { return !restarted.hasRunningJobs(); }, 20000));
        QCOMPARE(restarted.queue()->job(pub)->kind, JobKind::Publish);
        QCOMPARE(restarted.queue()->job(pub)->state, JobState::Succeeded);
        QVERIFY2(log.contains("fake flox: publish -o acme " + variant), qPrintable(log));
        // Publishing does not replace the variant's last build result.
        QCOMPARE(restarted.recipeState(repo, variant).lastJobId, firstId);
    }
};

QTEST_MAIN(TestBuildJobsModel) // a QGuiApplication: QtGui loaded, its types registered
#include "tst_buildjobsmodel.moc"
