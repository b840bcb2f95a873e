// Behaviour held still while the engine is restructured: `recipegrid check --format json` and
// the change set `recipegrid complete --dry-run --diff` plans, on every fixture repository,
// the bundled demo and a generated 2,000-recipe repository, compared byte for byte with the
// snapshots under tests/snapshots/. A snapshot changes only with a change of behaviour that is
// meant; RG_UPDATE_SNAPSHOTS=1 rewrites them, and the commit names why they changed.

#include "recipegridrun.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using rg::test::Run;

namespace {

const QString snapshotDir = QStringLiteral(RG_SOURCE_DIR "/tests/snapshots");

// Every directory with recipes under the fixtures, and the demo, by a name fit for a file.
QList<std::pair<QString, QString>> repositories()
{
    QList<std::pair<QString, QString>> found;
    const QString fixtures = QStringLiteral(RG_FIXTURES_DIR);
    QDirIterator it(fixtures, {QStringLiteral("pkgs")}, QDir::Dirs | QDir::Hidden,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString pkgs = it.next();
        if (!pkgs.endsWith(QStringLiteral("/.flox/pkgs")))
            continue;
        const QString repo = pkgs.chopped(QStringLiteral("/.flox/pkgs").size());
        QString name = QDir(fixtures).relativeFilePath(repo);
        found.append({name.replace(QLatin1Char('/'), QLatin1Char('-')), repo});
    }
    found.append(
        {QStringLiteral("demo"), QStringLiteral(RG_SOURCE_DIR "/resources/demo/repository")});
    std::sort(found.begin(), found.end());
    return found;
}

// A copy the change commands may treat as their own work tree; the fixtures stay untouched.
bool copyTree(const QString& from, const QString& to)
{
    QDirIterator it(from, QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString file = it.next();
        const QString target = to + "/" + QDir(from).relativeFilePath(file);
        if (!QDir().mkpath(QFileInfo(target).path()) || !QFile::copy(file, target))
            return false;
    }
    return true;
}

// The exit code, the output and the errors, with the path that differs from run to run fixed.
QByteArray recorded(const Run& run, const QString& repository)
{
    QByteArray all = "exit " + QByteArray::number(run.exitCode) + "\n" + run.out;
    if (!run.err.isEmpty())
        all += "--- stderr\n" + run.err;
    return all.replace(repository.toUtf8(), "REPO");
}

// The first line where the two differ, for a failure message a reader can act on.
QByteArray firstDifference(const QByteArray& expected, const QByteArray& actual)
{
    const QList<QByteArray> a = expected.split('\n');
    const QList<QByteArray> b = actual.split('\n');
    for (qsizetype i = 0; i < std::max(a.size(), b.size()); ++i) {
        const QByteArray left = i < a.size() ? a[i] : QByteArray("<end>");
        const QByteArray right = i < b.size() ? b[i] : QByteArray("<end>");
        if (left != right)
            return "line " + QByteArray::number(i + 1) + ":\n  snapshot: " + left +
                   "\n  now:      " + right;
    }
    return {};
}

void compareWithSnapshot(const QString& name, const QByteArray& actual)
{
    const QString path = snapshotDir + "/" + name;
    if (qEnvironmentVariableIntValue("RG_UPDATE_SNAPSHOTS") == 1) {
        QDir().mkpath(snapshotDir);
        QFile file(path);
        QVERIFY2(file.open(QIODevice::WriteOnly), qPrintable(path));
        file.write(actual);
        return;
    }
    QFile file(path);
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable("no snapshot " + path));
    const QByteArray expected = file.readAll();
    QVERIFY2(expected == actual,
             (name.toUtf8() + " differs from its snapshot at " + firstDifference(expected, actual))
                 .constData());
}

} // namespace

class TestSnapshots : public QObject
{
    Q_OBJECT

private slots:
    void check_data()
    {
        QTest::addColumn<QString>("repository");
        const auto found = repositories();
        QVERIFY2(found.size() >= 20, "the fixture repositories were not found");
        for (const auto& [name, repo] : found)
            QTest::newRow(qPrintable(name)) << repo;
    }

    void check()
    {
        QFETCH(QString, repository);
        const Run run = rg::test::runRecipegrid({"check", repository, "--format", "json"});
        QVERIFY2(run.exitCode == 0 || run.exitCode == 1, run.err.constData());
        compareWithSnapshot(QStringLiteral("check-%1.json").arg(QTest::currentDataTag()),
                            recorded(run, repository));
    }

    void completePlan_data() { check_data(); }

    // The whole change set Complete would write, file by file, without writing it.
    void completePlan()
    {
        QFETCH(QString, repository);
        QTemporaryDir copy;
        QVERIFY(copy.isValid());
        QVERIFY(copyTree(repository, copy.path()));
        const Run run = rg::test::runRecipegrid(
            {"complete", copy.path(), "--dry-run", "--diff", "--no-readme"});
        QVERIFY2(run.exitCode >= 0, run.err.constData());
        compareWithSnapshot(QStringLiteral("complete-%1.txt").arg(QTest::currentDataTag()),
                            recorded(run, copy.path()));
    }

    // The benchmark repository: every recipe of 48 packages' matrices, all of them sound.
    void generatedRepository()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString repo = dir.path() + "/repo";
        QProcess generator;
        generator.start(QStringLiteral("python3"),
                        {QStringLiteral(RG_SOURCE_DIR "/tests/tools/make_repo.py"),
                         QStringLiteral("2000"), repo});
        QVERIFY(generator.waitForFinished(120000));
        QVERIFY2(generator.exitCode() == 0, generator.readAllStandardError().constData());
        const Run run = rg::test::runRecipegrid({"check", repo, "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        compareWithSnapshot(QStringLiteral("check-generated-2000.json"), recorded(run, repo));
    }
};

QTEST_GUILESS_MAIN(TestSnapshots)
#include "tst_snapshots.moc"
