// History persistence across instances, corrupt files, ETA medians; the log store.

#include "buildfixture.h"
#include "builds/buildhistory.h"
#include "builds/logstore.h"

#include <QTimeZone>

using namespace rg;

namespace {

BuildRecord record(quint64 id, const QString& variant, JobState state, qint64 seconds)
{
    BuildRecord r;
    r.id = id;
    r.variant = variant;
    r.repository = QStringLiteral("/repo");
    r.backend = BackendKind::Flox;
    r.program = QStringLiteral("flox");
    r.arguments = {QStringLiteral("build"), variant};
    r.command = QStringLiteral("flox build ") + variant;
    r.state = state;
    // QTimeZone::utc(): the Qt::TimeSpec constructor is deprecated in Qt 6.8, and the
    // QTimeZone::UTC initialization it recommends does not exist in Qt 6.4.
    r.queuedAt = QDateTime(QDate(2026, 11, 20), QTime(10, 0), QTimeZone::utc());
    r.startedAt = r.queuedAt.addSecs(5);
    r.finishedAt = r.startedAt.addSecs(seconds);
    r.exitCode = state == JobState::Succeeded ? 0 : 1;
    r.logPath = QStringLiteral("/logs/job-%1.log").arg(id);
    r.resultPath = QStringLiteral("/repo/result-") + variant;
    r.verification.status = VerificationResult::Status::Failed;
    r.verification.reason = QStringLiteral("CUDA 12.8, expected 12.9 \"quoted\" ünïcode");
    r.verification.torch = QStringLiteral("2.9.1");
    r.verification.cuda = QStringLiteral("12.8");
    r.verification.python = QStringLiteral("3.13.1");
    r.closureSize = 5'000'000'000;
    return r;
}

} // namespace

class TestBuildHistory : public QObject
{
    Q_OBJECT

private slots:
    void survivesARestart()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("sub/build-history.json");
        {
            BuildHistory history(file);
            QVERIFY(history.loadError().isEmpty());
            QCOMPARE(history.nextJobId(), quint64(1));
            QVERIFY(history.add(record(1, "a", JobState::Succeeded, 100)));
            QVERIFY(history.add(record(2, "b", JobState::Failed, 50)));
            BuildRecord replaced = record(1, "a", JobState::Succeeded, 120);
            QVERIFY(history.add(replaced)); // same id: replaces, does not duplicate
            QCOMPARE(history.records().size(), std::size_t(2));
        }
        BuildHistory again(file);
        QVERIFY2(again.loadError().isEmpty(), qPrintable(again.loadError()));
        QCOMPARE(again.records().size(), std::size_t(2));
        QCOMPARE(*again.record(1), record(1, "a", JobState::Succeeded, 120));
        QCOMPARE(*again.record(2), record(2, "b", JobState::Failed, 50));
        QCOMPARE(again.nextJobId(), quint64(3));
        QCOMPARE(again.latest("a")->id, quint64(1));
        QVERIFY(!again.latest("zzz"));
        // No temporary files left behind by the atomic writes.
        QCOMPARE(QDir(dir.filePath("sub")).entryList(QDir::Files),
                 QStringList({"build-history.json"}));
    }

    void toleratesACorruptFile_data()
    {
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<QString>("where");
        QTest::newRow("truncated")
            << QByteArray("{\"schema\": 1, \"jobs\": [\n  {\"id\": 1,\n") << "line 3";
        QTest::newRow("garbage") << QByteArray("\x01\x02not json") << "line 1";
        QTest::newRow("wrong shape") << QByteArray("[1, 2, 3]") << "not a build history";
        QTest::newRow("bad state")
            << QByteArray("{\"schema\": 1, \"jobs\": [{\"id\": 1, \"state\": \"exploded\"}]}")
            << "/jobs/0";
        QTest::newRow("wrong type")
            << QByteArray("{\"schema\": 1, \"jobs\": [{\"id\": \"one\", \"state\": \"failed\"}]}")
            << "/jobs/0";
        QTest::newRow("future schema")
            << QByteArray("{\"schema\": 9, \"jobs\": []}") << "unsupported schema 9";
    }
    void toleratesACorruptFile()
    {
        QFETCH(QByteArray, contents);
        QFETCH(QString, where);
        QTemporaryDir dir;
        const QString file = dir.filePath("build-history.json");
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(contents);
        }
        BuildHistory history(file);
        QVERIFY(history.records().empty());
        QVERIFY2(history.loadError().startsWith(file + ": "), qPrintable(history.loadError()));
        QVERIFY2(history.loadError().contains(where), qPrintable(history.loadError()));
        QVERIFY(history.loadError().contains(history.backupPath()));
        QCOMPARE(test::readFile(history.backupPath()), contents); // kept for the user
        QVERIFY(!QFileInfo::exists(file));
        // It starts fresh and writes a valid file.
        QVERIFY(history.add(record(7, "x", JobState::Succeeded, 10)));
        BuildHistory again(file);
        QVERIFY(again.loadError().isEmpty());
        QCOMPARE(again.records().size(), std::size_t(1));
    }

    void reportsSaveErrors()
    {
        QTemporaryDir dir;
        QFile blocker(dir.filePath("file"));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        BuildHistory history(dir.filePath("file/history.json")); // parent is a file
        QVERIFY(!history.add(record(1, "a", JobState::Succeeded, 1)));
        QVERIFY(history.saveError().contains(QLatin1String("file/history.json")));
    }

    void estimatesDurations()
    {
        QTemporaryDir dir;
        BuildHistory history(dir.filePath("h.json"));
        QVERIFY(!history.estimatedDurationMs("a"));
        history.add(record(1, "a", JobState::Succeeded, 100));
        history.add(record(2, "a", JobState::Succeeded, 300));
        history.add(record(3, "a", JobState::Succeeded, 200));
        history.add(record(4, "a", JobState::Failed, 5)); // failures say nothing of duration
        history.add(record(5, "b", JobState::Succeeded, 1000));
        QCOMPARE(*history.estimatedDurationMs("a"), qint64(200'000));
        QCOMPARE(*history.estimatedDurationMs("b"), qint64(1'000'000));
        // Unknown variant: median of everything (100, 200, 300, 1000 → 250).
        QCOMPARE(*history.estimatedDurationMs("c"), qint64(250'000));
    }

    void storesLogs()
    {
        QTemporaryDir dir;
        LogStore store(dir.filePath("logs"));
        QCOMPARE(store.logPath(42), dir.filePath("logs/job-42.log"));
        QByteArray all;
        for (int i = 1; i <= 1000; ++i) {
            const QByteArray line = "line " + QByteArray::number(i) + "\n";
            all += line;
            QVERIFY(store.append(42, line));
        }
        store.append(42, "partial");
        store.flush(42);
        QCOMPARE(test::readFile(store.logPath(42)), all + "partial");
        store.close(42);
        store.append(42, " end\n"); // reopens in append mode
        store.close(42);
        QCOMPARE(LogStore::readTail(store.logPath(42), 2),
                 QStringLiteral("line 1000\npartial end\n"));
        QCOMPARE(LogStore::readTail(store.logPath(42), 5000).count('\n'), 1001);
        QVERIFY(LogStore::readTail(dir.filePath("missing.log"), 10).isEmpty());

        QString error;
        QVERIFY2(LogStore::exportTo(store.logPath(42), dir.filePath("copy.log"), &error),
                 qPrintable(error));
        QCOMPARE(test::readFile(dir.filePath("copy.log")), test::readFile(store.logPath(42)));
        QVERIFY(!LogStore::exportTo(dir.filePath("missing.log"), dir.filePath("x.log"), &error));
        QVERIFY(error.contains(QLatin1String("missing.log")));
        QVERIFY(!QFileInfo::exists(dir.filePath("x.log")));
    }

    void readsTailsOfLargeLogs()
    {
        QTemporaryDir dir;
        LogStore store(dir.filePath("logs"));
        QByteArray chunk;
        for (int i = 0; i < 100000; ++i)
            chunk += "a fairly long log line number " + QByteArray::number(i) + "\n";
        QVERIFY(store.append(1, chunk));
        store.close(1);
        const QString tail = LogStore::readTail(store.logPath(1), 3);
        QCOMPARE(tail, QStringLiteral("a fairly long log line number 99997\n"
                                      "a fairly long log line number 99998\n"
                                      "a fairly long log line number 99999\n"));
    }
};

QTEST_GUILESS_MAIN(TestBuildHistory)
#include "tst_buildhistory.moc"
