// The application as a user starts and meets it, outside what the window's own suites set up:
// the real `recipegrid` binary started on a repository and with --demo (offscreen, proved by
// its --screenshot and --select), and a commit asked for from the review on a machine without
// a git identity. Every run has its own HOME, settings, data and temporary folders: the suite
// points HOME at an empty folder before anything reads git's configuration.

#include "changeactions.h"
#include "changes/gitcommitter.h"
#include "changesetreviewdialog.h"
#include "guitestsupport.h"
#include "mainwindow.h"
#include "sessions/changesession.h"
#include "sessions/repositorysession.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QFileSystemWatcher>
#include <QImage>
#include <QLabel>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>

using namespace rg;
using namespace rg::test;

namespace {

const char* const sm90avx512 = "pytorch-python313-cuda13_0-sm90-avx512";
const char* const armv9 = "pytorch-python313-cuda13_0-sm110-armv9";
constexpr int slowly = 30000; // planning, applying and re-scanning on a loaded CI machine

// git as the test's own tool: its identity is given on the command line, never configured.
QByteArray git(const QString& directory, const QStringList& arguments, bool* ok)
{
    QProcess process;
    process.setWorkingDirectory(directory);
    process.start(QStringLiteral("git"),
                  QStringList{QStringLiteral("-c"), QStringLiteral("user.name=Seeder"),
                              QStringLiteral("-c"), QStringLiteral("user.email=seed@example.org"),
                              QStringLiteral("-c"), QStringLiteral("commit.gpgsign=false")} +
                      arguments);
    *ok = process.waitForFinished(30000) && process.exitStatus() == QProcess::NormalExit &&
          process.exitCode() == 0;
    if (!*ok)
        qWarning("git %s: %s", qPrintable(arguments.join(QLatin1Char(' '))),
                 process.readAllStandardError().constData());
    return process.readAllStandardOutput();
}

struct Run
{
    int exitCode = -1;
    QString errors; // what it printed on stderr
    QImage screenshot;
};

} // namespace

class TestFlows : public QObject
{
    Q_OBJECT
    QTemporaryDir m_home;
    QTemporaryDir m_tmp; // TMPDIR of the binaries started: where --demo copies the demo

    // `recipegrid ARGUMENTS --screenshot PNG` on an offscreen screen of 1600 × 1000, with this
    // suite's HOME, settings and TMPDIR.
    Run runBinary(const QStringList& arguments)
    {
        QTemporaryDir out;
        const QString png = out.filePath(QStringLiteral("window.png"));
        const QString screen = out.filePath(QStringLiteral("screen.json"));
        if (!writeAll(screen, R"({"screens": [{"name": "desk", "x": 0, "y": 0, "width": 1600,
                                 "height": 1000, "logicalDpi": 96, "dpr": 1}]})"))
            return {};
        QProcess app;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"),
                           QStringLiteral("offscreen:configfile=") + screen);
        environment.insert(QStringLiteral("TMPDIR"), m_tmp.path());
        app.setProcessEnvironment(environment);
        app.start(QStringLiteral(RG_BINARY_DIR "/app/recipegrid"),
                  arguments + QStringList{QStringLiteral("--screenshot"), png});
        Run run;
        if (!app.waitForFinished(90000)) {
            app.kill();
            app.waitForFinished();
            run.errors = QStringLiteral("did not finish in 90 s");
            return run;
        }
        run.exitCode = app.exitStatus() == QProcess::NormalExit ? app.exitCode() : -1;
        run.errors = QString::fromUtf8(app.readAllStandardError());
        if (!run.errors.contains(QStringLiteral("recipegrid: saved ") + png))
            run.errors += QStringLiteral("\n(no word of the screenshot)");
        run.screenshot.load(png);
        return run;
    }

    // A first start fills the screen's free area, less room for a window manager's frame
    // (16 × 48): on the 1600 × 1000 screen runBinary gives it.
    static QSize expectedWindowSize() { return QSize(1600 - 16, 1000 - 48); }

private slots:
    void initTestCase()
    {
        isolateSettings();
        QVERIFY(m_home.isValid() && m_tmp.isValid());
        // No identity anywhere git or libgit2 looks: HOME and XDG_CONFIG_HOME (the settings
        // folder isolateSettings made) are empty, the system file is not read.
        QVERIFY(!QFileInfo::exists(qEnvironmentVariable("XDG_CONFIG_HOME") + "/git/config"));
        qputenv("HOME", QFile::encodeName(m_home.path()));
        qputenv("GIT_CONFIG_NOSYSTEM", "1");
        for (const char* name : {"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                                 "GIT_COMMITTER_EMAIL", "EMAIL"})
            qunsetenv(name);
    }

    // Started on a repository, the window opens on it: the variant asked for with --select is
    // in its grid (the binary says when it is not, as it does on the welcome page below).
    void binaryOpensTheRepositoryGiven()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        const QStringList select = {QStringLiteral("--select"), QString::fromLatin1(armv9)};
        const Run opened = runBinary(QStringList{dir.path()} + select);
        QVERIFY2(opened.exitCode == 0, qPrintable(opened.errors));
        QVERIFY2(!opened.errors.contains(QStringLiteral("not in the grid")),
                 qPrintable(opened.errors));
        QVERIFY(!opened.screenshot.isNull());
        QCOMPARE(opened.screenshot.size(), expectedWindowSize());

        // Without a repository the same request finds no such cell: the check above can fail.
        const Run welcome = runBinary(select);
        QVERIFY2(welcome.exitCode == 0, qPrintable(welcome.errors));
        QVERIFY2(welcome.errors.contains(QStringLiteral("variant not in the grid: ") +
                                         QLatin1String(armv9)),
                 qPrintable(welcome.errors));
        QCOMPARE(welcome.screenshot.size(), expectedWindowSize());
        QVERIFY(welcome.screenshot != opened.screenshot);
    }

    // --demo copies the demo into a temporary git work tree (under TMPDIR) and opens it; the
    // copy goes when the app exits.
    void binaryOpensTheDemo()
    {
        const QDir tmp(m_tmp.path());
        const auto demoCopies = [&] {
            return tmp.entryList({QStringLiteral("recipegrid-demo-*")},
                                 QDir::Dirs | QDir::NoDotAndDotDot);
        };
        const QStringList demosBefore = demoCopies();
        QFileSystemWatcher watcher({tmp.path()});
        QSignalSpy tmpChanged(&watcher, &QFileSystemWatcher::directoryChanged);
        const Run demo = runBinary({QStringLiteral("--demo"), QStringLiteral("--select"),
                                    QStringLiteral("pytorch-python313-cuda13_0-sm89-avx2")});
        QVERIFY2(demo.exitCode == 0, qPrintable(demo.errors));
        QVERIFY2(!demo.errors.contains(QStringLiteral("not in the grid")), qPrintable(demo.errors));
        QCOMPARE(demo.screenshot.size(), expectedWindowSize());
        QTRY_VERIFY_WITH_TIMEOUT(!tmpChanged.isEmpty(), 5000); // the copy was made there
        QCOMPARE(demoCopies(), demosBefore);                   // and is gone
    }

    // Without a git identity the review says so before Apply: the commit option is off and
    // disabled, with the reason. A commit asked for anyway (the identity removed after the
    // plan) is refused before anything is written: the files, HEAD and the index as before.
    void commitWithoutAGitIdentityIsRefusedBeforeWriting()
    {
        QTemporaryDir dir;
        const QString root = dir.path();
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), root));
        bool ok = false;
        git(root, {QStringLiteral("init"), QStringLiteral("-q")}, &ok);
        QVERIFY(ok);
        git(root, {QStringLiteral("add"), QStringLiteral("-A")}, &ok);
        QVERIFY(ok);
        git(root,
            {QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("-m"),
             QStringLiteral("seed")},
            &ok);
        QVERIFY(ok);
        const QByteArray head =
            git(root, {QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, &ok);
        QVERIFY(ok);
        const std::string why = GitCommitter::precondition(root.toStdString());
        QVERIFY2(why.find("no git identity") != std::string::npos, why.c_str()); // as set up

        MainWindow window;
        window.show();
        QSignalSpy analysed(window.session(), &RepositorySession::analysisChanged);
        window.openRepository(root);
        QVERIFY(analysed.wait(slowly));
        QVERIFY(window.selectCell(CellSelector(sm90avx512)));
        window.changeActions()->createAction()->trigger();
        auto* review = waitForModal<ChangeSetReviewDialog>(slowly);
        QVERIFY(review);
        QVERIFY(review->commitBox()->isVisibleTo(review));
        QVERIFY(!review->commitBox()->isEnabled());
        QVERIFY(!review->commitRequested());
        QVERIFY2(review->commitBlockedLabel()->text().contains(QStringLiteral("user.email")),
                 qPrintable(review->commitBlockedLabel()->text()));
        const std::shared_ptr<const ChangeSet> changes = review->sharedChangeSet();
        review->reject();

        // The session refuses a commit it cannot make, whoever asks.
        ChangeSession* session = window.changeActions()->session();
        QSignalSpy applied(session, &ChangeSession::applied);
        QSignalSpy failed(session, &ChangeSession::applyFailed);
        QVERIFY(session->apply(changes, true, QStringLiteral("Add sm90")));
        QVERIFY(failed.wait(slowly));
        QVERIFY(applied.isEmpty());
        const QString message = failed.front().front().toString();
        QVERIFY2(message.contains(QStringLiteral("no git identity")) &&
                     message.contains(QStringLiteral("user.email")),
                 qPrintable(message));
        auto* box = waitForModal<QMessageBox>(slowly);
        QVERIFY(box);
        QCOMPARE(box->text(), message);
        box->accept();

        for (const FileOperation& op : changes->operations)
            if (op.selected && op.kind == FileOperationKind::Create)
                QVERIFY2(!QFileInfo::exists(dir.filePath(QString::fromStdString(op.path))),
                         op.path.c_str());
        QCOMPARE(git(root, {QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, &ok), head);
        QCOMPARE(git(root, {QStringLiteral("status"), QStringLiteral("--porcelain")}, &ok),
                 QByteArray());
        QVERIFY(!window.changeActions()->undoAction()->isEnabled());
    }
};

QTEST_MAIN(TestFlows)
#include "tst_flows.moc"
