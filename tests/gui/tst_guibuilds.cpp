// Builds from the window, for real (nix-build of the self-contained fixture recipes): the
// Build action on the selection, a log tab per job, the cell's build badge, running counts in
// the status bar, and the question before quitting with builds still running. Build state
// belongs to the recipe's content: clones share it, an edit makes it an older
// version's, a fresh demo copy shows no build of another copy's edited recipe.

#include "../builds/buildfixture.h"
#include "../recipes/testrepository.h"
#include "ansilogview.h"
#include "buildjobsview.h"
#include "builds/buildqueue.h"
#include "builds/nixbackend.h"
#include "buildsettingsdialog.h"
#include "detailspanel.h"
#include "guitestsupport.h"
#include "itemmodels/buildjobsmodel.h"
#include "itemmodels/matrixmodel.h"
#include "logpane.h"
#include "mainwindow.h"
#include "matrixview.h"
#include "messagebanner.h"
#include "responsivenessprobe.h"
#include "sessions/buildsession.h"
#include "sessions/repositorysession.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <arpa/inet.h>
#include <functional>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace rg;
using namespace rg::test;

namespace {

// Opens Build Settings, types `builders`, clicks Test Connections, hands the dialog and the
// button to `whileOpen`, then cancels the dialog. False when the action, the dialog or the
// button is missing.
bool testConnections(MainWindow& window, const QString& builders,
                     const std::function<void(BuildSettingsDialog*, QPushButton*)>& whileOpen)
{
    QAction* settingsAction = nullptr;
    for (QAction* action : window.findChildren<QAction*>())
        if (action->text() == QStringLiteral("Build &Settings\u2026"))
            settingsAction = action;
    if (!settingsAction)
        return false;
    bool tested = false;
    QTimer::singleShot(0, &window, [&] {
        auto* dialog = qobject_cast<BuildSettingsDialog*>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        dialog->findChild<QPlainTextEdit*>(QStringLiteral("builders"))->setPlainText(builders);
        for (QPushButton* button : dialog->findChildren<QPushButton*>()) {
            if (button->text() == QStringLiteral("&Test Connections")) {
                QTest::mouseClick(button, Qt::LeftButton);
                whileOpen(dialog, button);
                tested = true;
            }
        }
        QTest::mouseClick(dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Cancel),
                          Qt::LeftButton);
    });
    settingsAction->trigger();
    return tested;
}

// The Test Connections answers once one says a builder is down ("\u2717"); "" before.
QString healthWithADownBuilder(BuildSettingsDialog* dialog)
{
    for (QLabel* label : dialog->findChildren<QLabel*>())
        if (label->isVisible() && label->text().contains(QStringLiteral("\u2717")))
            return label->text();
    return {};
}

QModelIndex select(MainWindow& window, const QString& variant)
{
    if (!window.selectCell(CellSelector(variant.toStdString())))
        return {};
    return window.matrixView()->currentIndex();
}

// Builds with the Nix backend, then opens `path` and waits for its analysis.
bool openWithNix(MainWindow& window, const QString& path)
{
    BuildSettings settings = window.builds()->settings();
    settings.backend = BackendKind::Nix;
    window.builds()->setSettings(settings);
    QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
    window.openRepository(path);
    return changed.wait(10000);
}

int lastResult(const QModelIndex& index)
{
    return index.data(MatrixModel::BuildStateRole).toList().value(0).toMap().value("last").toInt();
}

QString tooltip(MainWindow& window)
{
    return window.matrixView()->currentIndex().data(Qt::ToolTipRole).toString();
}

bool appendLine(const QString& path, const QByteArray& line)
{
    QFile file(path);
    return file.open(QIODevice::Append) && file.write(line) == line.size();
}

// Opens `path` (or the demo when empty) and waits for its first analysis.
bool openAndWait(MainWindow& window, const QString& path)
{
    QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
    if (path.isEmpty()) {
        if (!window.openDemo())
            return false;
    } else {
        window.openRepository(path);
    }
    return changed.wait(20000);
}

// Changes a file of the open repository and waits for the re-scan that follows.
bool editAndWait(MainWindow& window, const QString& file, const QByteArray& line)
{
    QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
    return appendLine(file, line) && changed.wait(20000);
}

BuildSettings nixBuilds(MainWindow& window)
{
    BuildSettings settings = window.builds()->settings();
    settings.backend = BackendKind::Nix;
    return settings;
}

// What a stage-by-stage build does, as a custom command: writes its pid to CHILD_PID, prints
// a line, leaves a grandchild that ignores SIGTERM (its pid in GRANDCHILD_PID) when asked,
// waits while GATE exists, prints a last line. "sh SCRIPT DIR hold|spawn" with the files in DIR.
const QByteArray stagedBuild = "#!/bin/sh\n"
                               "echo $$ > \"$1/child.pid\"\n"
                               "if [ \"$2\" = spawn ]; then\n"
                               "  (trap '' TERM; exec sleep 600) &\n"
                               "  echo $! > \"$1/grandchild.pid\"\n"
                               "fi\n"
                               "echo \"compiling: first line\"\n"
                               "while [ -e \"$1/gate\" ]; do sleep 0.05; done\n"
                               "echo \"gate opened: last line\"\n";

// Builds the fixture's CPU-only cell in `repository` with `stagedBuild` run in `dir` (its gate
// closed), from the window's Build action: the job is started when this returns true.
bool startStagedBuild(MainWindow& window, const QString& repository, const QTemporaryDir& dir,
                      const char* mode)
{
    if (!copyFixtureRepo(repository) ||
        !writeAll(dir.filePath(QStringLiteral("build.sh")), stagedBuild) ||
        !writeAll(dir.filePath(QStringLiteral("gate")), {}))
        return false;
    BuildSettings settings = window.builds()->settings();
    settings.backend = BackendKind::Custom;
    settings.verify = false;
    settings.customCommand =
        QStringLiteral("sh %1 %2 %3")
            .arg(dir.filePath(QStringLiteral("build.sh")), dir.path(), QLatin1String(mode));
    window.builds()->setSettings(settings);
    return openAndWait(window, repository) &&
           select(window, QStringLiteral("pytorch-python313-cpu-avx2")).isValid() &&
           window.buildSelection() == 1;
}

// The state letter of /proc/PID/stat and its process group; ' ' when there is no such process.
std::pair<char, qint64> procState(qint64 pid)
{
    const QByteArray stat = readAll(QStringLiteral("/proc/%1/stat").arg(pid));
    const qsizetype close = stat.lastIndexOf(')'); // the command name may hold spaces
    if (close < 0)
        return {' ', 0};
    const QList<QByteArray> fields = stat.mid(close + 2).split(' '); // state ppid pgrp …
    const QByteArray state = fields.value(0);
    return {state.isEmpty() ? ' ' : state.front(), fields.value(2).toLongLong()};
}

// A zombie has ended: only its parent has not collected its status yet.
bool running(qint64 pid)
{
    const char state = procState(pid).first;
    return state != ' ' && state != 'Z';
}

// The processes of `group` that still run.
QList<qint64> runningIn(qint64 group)
{
    QList<qint64> members;
    for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool number = false;
        const qint64 pid = entry.toLongLong(&number);
        if (number && procState(pid).second == group && running(pid))
            members << pid;
    }
    return members;
}

} // namespace

class TestGuiBuilds : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        isolateSettings();
        configureNix();
    }

    void buildSelectedCellsWithLiveLogs()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixtureRepo(dir.path()));
        MainWindow window;
        window.show();
        QVERIFY(openWithNix(window, dir.path()));

        const QModelIndex ok = select(window, QStringLiteral("pytorch-python313-cpu-avx2"));
        QVERIFY(ok.isValid());
        QCOMPARE(lastResult(ok), int(CellBuildState::Result::None));
        QSignalSpy finished(window.builds()->queue(), &BuildQueue::jobFinished);
        QSignalSpy started(window.builds()->queue(), &BuildQueue::jobQueued);
        // As a user starts it: the toolbar's Build button.
        QToolButton* button = nullptr;
        for (QToolBar* toolbar : window.findChildren<QToolBar*>())
            if (auto* candidate =
                    qobject_cast<QToolButton*>(toolbar->widgetForAction(window.buildAction())))
                button = candidate;
        QVERIFY(button && button->isEnabled());
        QTest::mouseClick(button, Qt::LeftButton);
        QCOMPARE(started.count(), 1);
        QVERIFY(window.buildsText().contains(QStringLiteral("1 queued")) ||
                window.buildsText().contains(QStringLiteral("1 running")));
        QVERIFY(finished.wait(180000));
        // A log tab opened for the job and holds its output.
        QCOMPARE(window.logTabs()->count(), 1);
        auto* pane = qobject_cast<LogPane*>(window.logTabs()->widget(0));
        QVERIFY(pane);
        pane->flush();
        // What ran and where, then the builder's own words.
        const QString log = pane->textView()->toPlainText();
        QVERIFY2(pane->textView()->lineText(0).startsWith(QStringLiteral("$ nix")),
                 qPrintable(log));
        QVERIFY2(pane->textView()->lineText(0).contains(
                     QStringLiteral(".flox/pkgs/pytorch-python313-cpu-avx2.nix")),
                 qPrintable(log));
        QCOMPARE(pane->textView()->lineText(1), QStringLiteral("# in ") + dir.path());
        QVERIFY2(log.contains(QStringLiteral("building the CPU-only variant")), qPrintable(log));
        QCOMPARE(window.logTabs()->tabText(0), QStringLiteral("pytorch-python313-cpu-avx2"));
        // The cell's badge reports the result; the tooltip says it in words.
        QTRY_COMPARE_WITH_TIMEOUT(lastResult(window.matrixView()->currentIndex()),
                                  int(CellBuildState::Result::Succeeded), 30000);
        QVERIFY(window.matrixView()
                    ->currentIndex()
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains("build: succeeded"));
        QTRY_VERIFY_WITH_TIMEOUT(window.buildsText().isEmpty(), 30000);

        // A recipe whose builder fails: the badge says failed.
        const QModelIndex failing =
            select(window, QStringLiteral("pytorch-python313-cuda12_9-sm80-avx2"));
        QVERIFY(failing.isValid());
        // Ctrl+B on the grid.
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        window.matrixView()->setFocus();
        QTest::keyClick(window.matrixView(), Qt::Key_B, Qt::ControlModifier);
        QCOMPARE(started.count(), 2);
        QVERIFY(finished.wait(180000));
        QTRY_COMPARE_WITH_TIMEOUT(lastResult(window.matrixView()->currentIndex()),
                                  int(CellBuildState::Result::Failed), 30000);
        QCOMPARE(window.logTabs()->count(), 2);

        // Publishing from the cell: only a variant whose last build succeeded, and only with an
        // organisation in the settings; then `flox publish -o ORG PNAME` runs as a job.
        QAction* publish = window.publishAction();
        publish->trigger(); // the failed one
        QCOMPARE(started.count(), 2);
        QVERIFY(select(window, QStringLiteral("pytorch-python313-cpu-avx2")).isValid());
        publish->trigger(); // no organisation yet
        QCOMPARE(started.count(), 2);
        QVERIFY(window.banner()->text().contains(QStringLiteral("organisation")));
        // The organisation is typed into the Build Settings dialog and confirmed with OK.
        QAction* settingsAction = nullptr;
        for (QAction* action : window.findChildren<QAction*>())
            if (action->text() == QStringLiteral("Build &Settings\u2026"))
                settingsAction = action;
        QVERIFY(settingsAction);
        bool typed = false;
        QTimer::singleShot(0, this, [&] {
            auto* dialog = qobject_cast<BuildSettingsDialog*>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            for (QLineEdit* edit : dialog->findChildren<QLineEdit*>())
                if (edit->placeholderText().contains(QStringLiteral("flox publish"))) {
                    edit->setText(QStringLiteral("acme"));
                    typed = true;
                }
            QTest::mouseClick(dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok),
                              Qt::LeftButton);
        });
        settingsAction->trigger();
        QVERIFY(typed);
        QCOMPARE(window.builds()->settings().publishOrg, QStringLiteral("acme"));
        QSettings stored;
        QCOMPARE(BuildSettings::load(stored).publishOrg, QStringLiteral("acme")); // persisted
        const QByteArray savedPath = qgetenv("PATH");
        qputenv("PATH", QByteArray(RG_FIXTURES_DIR "/build/fake-flox:") + savedPath);
        auto restorePath = qScopeGuard([&] { qputenv("PATH", savedPath); });
        QString publishLog;
        connect(window.builds()->queue(), &BuildQueue::jobLogAppended, this,
                [&](quint64, const QString& text) { publishLog += text; });
        publish->trigger();
        QCOMPARE(started.count(), 3);
        QVERIFY(finished.wait(60000));
        QVERIFY2(publishLog.contains("fake flox: publish -o acme pytorch-python313-cpu-avx2"),
                 qPrintable(publishLog));

        // A cell without a recipe file has nothing to build.
        MatrixModel* model = window.matrixModel();
        QModelIndex empty;
        for (int r = 0; r < model->rowCount() && !empty.isValid(); ++r)
            for (int c = 0; c < model->columnCount() && !empty.isValid(); ++c)
                if (model->index(r, c).data(MatrixModel::PathsRole).toStringList().isEmpty())
                    empty = model->index(r, c);
        QVERIFY(empty.isValid());
        window.matrixView()->selectionModel()->setCurrentIndex(empty,
                                                               QItemSelectionModel::ClearAndSelect);
        window.buildAction()->trigger();
        QCOMPARE(started.count(), 3);
    }

    // Which nix command line works is probed by running `nix eval`; a nix that takes 2 s to
    // answer must not hold the GUI: the job waits in the queue, the window keeps painting.
    void enqueueingDoesNotWaitForNix()
    {
        QTemporaryDir fakeBin;
        const QString realNix = QStandardPaths::findExecutable(QStringLiteral("nix"));
        QVERIFY(!realNix.isEmpty());
        QVERIFY(writeAll(fakeBin.filePath(QStringLiteral("nix")),
                         "#!/bin/sh\n"
                         "if [ \"$1\" = eval ]; then sleep 2; fi\n"
                         "exec " +
                             realNix.toUtf8() + " \"$@\"\n"));
        QVERIFY(QFile::setPermissions(fakeBin.filePath(QStringLiteral("nix")),
                                      QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        const QByteArray savedPath = qgetenv("PATH");
        // A PATH never probed before: the probe runs again for it.
        qputenv("PATH", fakeBin.path().toUtf8() + ':' + savedPath);
        auto restorePath = qScopeGuard([&] { qputenv("PATH", savedPath); });
        QVERIFY(!NixBackend::knownNewCli());

        QTemporaryDir dir;
        QVERIFY(copyFixtureRepo(dir.path()));
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openWithNix(window, dir.path()));
        QVERIFY(select(window, QStringLiteral("pytorch-python313-cpu-avx2")).isValid());
        QSignalSpy queued(window.builds()->queue(), &BuildQueue::jobQueued);
        QSignalSpy started(window.builds()->queue(), &BuildQueue::jobStarted);
        QSignalSpy finished(window.builds()->queue(), &BuildQueue::jobFinished);

        // The Builds dock comes to the front with the first build; its first layout is GUI work
        // of its own (tens of ms on a loaded machine), not a wait on nix: done before measuring.
        auto* dock = window.findChild<QDockWidget*>(QStringLiteral("buildsDock"));
        QVERIFY(dock);
        dock->show();
        dock->raise();
        QTRY_VERIFY(!dock->widget()->visibleRegion().isEmpty());
        QCoreApplication::sendPostedEvents(); // the layout requests the raise posted
        QCoreApplication::processEvents();
        ResponsivenessProbe probe;
        probe.start();
        QElapsedTimer clock;
        clock.start();
        window.buildAction()->trigger();
        QCOMPARE(queued.count(), 1);
        QCOMPARE(started.count(), 0); // waits for the probe's answer
        QVERIFY(started.wait(30000));
        const qint64 startedAfter = clock.elapsed();
        // It started once nix had answered, not before.
        QVERIFY2(startedAfter >= 1900, qPrintable(QString::number(startedAfter)));
        probe.stop();
        QVERIFY2(probe.maxLatenessMs() < ResponsivenessProbe::budgetMs,
                 qPrintable(QStringLiteral("the GUI thread stalled for %1 ms, %2 ms after the "
                                           "build was asked for; the job started after %3 ms")
                                .arg(probe.maxLatenessMs())
                                .arg(probe.worstAtMs())
                                .arg(startedAfter)));
        QVERIFY(probe.ticks() > 100);
        QVERIFY(NixBackend::knownNewCli().value_or(false)); // the fake answers as nix does
        const BuildRecord* job = window.builds()->queue()->job(queued.at(0).at(0).toULongLong());
        QVERIFY(job);
        QCOMPARE(job->program, QStringLiteral("nix"));
        QCOMPARE(job->arguments.value(0), QStringLiteral("build"));
        QVERIFY(finished.wait(180000));
        QCOMPARE(window.builds()->queue()->job(job->id)->state, JobState::Succeeded);
    }

    // One recipe, two clones: built in one, its success shows in the other, saying where. An
    // edit in the clone is another recipe (no build); an edit where it was built makes the
    // success an older version's.
    void buildStateFollowsTheRecipeContent()
    {
        TestRepository origin;
        QVERIFY(copyFixtureRepo(origin.root(), 1));
        origin.git({"init", "-q"});
        origin.commitAll("fixture");
        const QString head = QString::fromUtf8(origin.git({"rev-parse", "HEAD"}));
        QTemporaryDir elsewhere;
        const QString clone = elsewhere.filePath("clone");
        origin.git({"clone", "-q", origin.root(), clone});
        const QString variant = QStringLiteral("pytorch-python313-cpu-avx2");
        const QString recipeFile = QStringLiteral("/.flox/pkgs/") + variant + ".nix";

        MainWindow window;
        window.show();
        window.builds()->setSettings(nixBuilds(window));
        QVERIFY(openAndWait(window, origin.root()));
        QVERIFY(select(window, variant).isValid());
        QCOMPARE(lastResult(window.matrixView()->currentIndex()),
                 int(CellBuildState::Result::None));
        QSignalSpy finished(window.builds()->queue(), &BuildQueue::jobFinished);
        QCOMPARE(window.buildSelection(), 1);
        QVERIFY(finished.wait(180000));
        QTRY_COMPARE_WITH_TIMEOUT(lastResult(window.matrixView()->currentIndex()),
                                  int(CellBuildState::Result::Succeeded), 30000);
        const QDateTime builtAt =
            window.builds()->queue()->job(finished.at(0).at(0).toULongLong())->finishedAt;
        // The jobs list says where it ran.
        BuildJobsModel* jobs = window.buildJobs();
        QCOMPARE(jobs->index(0, BuildJobsModel::SourceColumn).data().toString(),
                 QFileInfo(origin.root()).fileName() + QStringLiteral(" @ main \u00b7 ") +
                     head.left(7));

        // The clone holds the same bytes: the same build, from the other work tree.
        QVERIFY(openAndWait(window, clone));
        QVERIFY(select(window, variant).isValid());
        QCOMPARE(lastResult(window.matrixView()->currentIndex()),
                 int(CellBuildState::Result::Succeeded));
        QVERIFY2(tooltip(window).contains(QStringLiteral("build: succeeded")) &&
                     tooltip(window).contains(QFileInfo(origin.root()).canonicalFilePath()),
                 qPrintable(tooltip(window)));
        // Edited there, it is a recipe nobody built.
        QVERIFY(editAndWait(window, clone + recipeFile, "# tuned in the clone\n"));
        QVERIFY(select(window, variant).isValid());
        QCOMPARE(lastResult(window.matrixView()->currentIndex()),
                 int(CellBuildState::Result::None));
        QVERIFY(!tooltip(window).contains(QStringLiteral("build:")));

        // Edited where it was built: that success was of an older version, and says when.
        QVERIFY(openAndWait(window, origin.root()));
        QVERIFY(editAndWait(window, origin.root() + recipeFile, " "));
        QVERIFY(select(window, variant).isValid());
        QCOMPARE(lastResult(window.matrixView()->currentIndex()),
                 int(CellBuildState::Result::Outdated));
        const QString older = QStringLiteral("built from an older version: succeeded ") +
                              builtAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm"));
        QVERIFY2(tooltip(window).contains(QStringLiteral("build: ") + older),
                 qPrintable(tooltip(window)));
        // The details say it too.
        QVERIFY2(window.detailsPanel()->factsText().contains(QStringLiteral("Build: ") + older),
                 qPrintable(window.detailsPanel()->factsText()));
        // Nothing to publish: the recipe there now was never built.
        QCOMPARE(window.publishSelection(), 0);
    }

    // `--demo` makes a fresh copy each time. A build that failed in one copy, of its edited
    // recipe, is no build of the other copy's recipe: the other shows none. (An unedited
    // recipe is the same content in every copy, so its build shows in both.)
    void demoCopiesDoNotShowAnotherCopysFailure()
    {
        MainWindow window;
        window.show();
        BuildSettings settings = window.builds()->settings();
        settings.backend = BackendKind::Custom;
        settings.verify = false;
        const QString failing = QStringLiteral("pytorch-python313-cuda13_0-sm90-avx2");
        const QString passing = QStringLiteral("pytorch-python313-cuda13_0-sm90-avx512");
        settings.customCommand = QStringLiteral("sh -c \"test {variant} != %1\"").arg(failing);
        window.builds()->setSettings(settings);

        QVERIFY(openAndWait(window, {}));
        const QString first = window.session()->rootPath();
        auto removeFirst = qScopeGuard([&] { QDir(first).removeRecursively(); });
        QVERIFY(editAndWait(window, first + QStringLiteral("/.flox/pkgs/") + failing + ".nix",
                            "# trying a fix\n"));
        QSignalSpy finished(window.builds()->queue(), &BuildQueue::jobFinished);
        for (const QString& variant : {failing, passing}) {
            QVERIFY(select(window, variant).isValid());
            QCOMPARE(window.buildSelection(), 1);
            QVERIFY(finished.wait(60000));
        }
        QVERIFY(select(window, failing).isValid());
        QTRY_COMPARE_WITH_TIMEOUT(lastResult(window.matrixView()->currentIndex()),
                                  int(CellBuildState::Result::Failed), 10000);

        QVERIFY(openAndWait(window, {}));
        const QString second = window.session()->rootPath();
        auto removeSecond = qScopeGuard([&] { QDir(second).removeRecursively(); });
        QVERIFY(second != first);
        QVERIFY(select(window, failing).isValid());
        QCOMPARE(lastResult(window.matrixView()->currentIndex()),
                 int(CellBuildState::Result::None));
        QVERIFY2(!tooltip(window).contains(QStringLiteral("build:")), qPrintable(tooltip(window)));
        QVERIFY(select(window, passing).isValid());
        QCOMPARE(lastResult(window.matrixView()->currentIndex()),
                 int(CellBuildState::Result::Succeeded));
        QVERIFY2(tooltip(window).contains(QFileInfo(first).canonicalFilePath()),
                 qPrintable(tooltip(window)));
    }

    // Its log lines show while the build runs: the child prints, then waits on a gate file
    // that is removed only once the line is seen in the window.
    // A recipe with an error builds only once the user has said so: the question names each
    // error, and its answers build all, only the sound ones, or nothing. Sound recipes alone
    // build without a question.
    void recipesWithErrorsBuildOnlyWhenConfirmed()
    {
        MainWindow window;
        window.show();
        BuildSettings settings = window.builds()->settings();
        settings.backend = BackendKind::Custom;
        settings.customCommand = QStringLiteral("true");
        settings.verify = false;
        window.builds()->setSettings(settings);
        QVERIFY(openAndWait(window, {}));
        const QString broken = QStringLiteral("pytorch-python313-cuda13_0-sm89-avx2");
        const QString sound = QStringLiteral("pytorch-python313-cuda13_0-sm90-avx2");
        const QModelIndex brokenCell = select(window, broken);
        const QModelIndex soundCell = select(window, sound);
        QVERIFY(brokenCell.isValid() && soundCell.isValid());
        QSignalSpy queued(window.builds()->queue(), &BuildQueue::jobQueued);
        const auto queuedVariants = [&] {
            QStringList variants;
            for (const QList<QVariant>& signal : queued)
                variants << window.builds()->queue()->job(signal.at(0).toULongLong())->variant;
            variants.sort();
            return variants;
        };
        // Builds both cells and answers the question with the button whose text is `answer`.
        const auto buildBothAnswering = [&](const QString& answer) {
            QItemSelection both(brokenCell, brokenCell);
            both.select(soundCell, soundCell);
            window.matrixView()->selectionModel()->select(both,
                                                          QItemSelectionModel::ClearAndSelect);
            QCOMPARE(window.buildSelection(), 0); // asks first
            QMessageBox* box = nullptr;
            QTRY_VERIFY((box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())));
            QCOMPARE(box->objectName(), QStringLiteral("buildErrorsQuestion"));
            QVERIFY2(
                box->text().startsWith(QStringLiteral("Errors in 1 of the 2 recipe(s) to build")),
                qPrintable(box->text()));
            QVERIFY2(box->informativeText().startsWith(
                         broken + QStringLiteral(" \u2014 gpu-arch-mismatch (line 55): ")),
                     qPrintable(box->informativeText()));
            QVERIFY(!box->informativeText().contains(sound));
            QAbstractButton* button = nullptr;
            for (QAbstractButton* b : box->buttons())
                if (b->text() == answer)
                    button = b;
            QVERIFY2(button, qPrintable(answer));
            QTest::mouseClick(button, Qt::LeftButton);
            QTRY_VERIFY(QApplication::activeModalWidget() == nullptr);
        };

        buildBothAnswering(QStringLiteral("Cancel"));
        QCOMPARE(queuedVariants(), QStringList());
        buildBothAnswering(QStringLiteral("Build Only the 1 Without Errors"));
        QCOMPARE(queuedVariants(), QStringList{sound});
        buildBothAnswering(QStringLiteral("Build All"));
        QCOMPARE(queuedVariants(), (QStringList{broken, sound, sound}));

        queued.clear();
        QVERIFY(select(window, sound).isValid());
        QCOMPARE(window.buildSelection(), 1);
        QCOMPARE(QApplication::activeModalWidget(), nullptr);
        QCOMPARE(queuedVariants(), QStringList{sound});
    }

    void logLinesArriveWhileTheBuildRuns()
    {
        QTemporaryDir dir;
        QTemporaryDir stage;
        MainWindow window;
        window.show();
        QSignalSpy finished(window.builds()->queue(), &BuildQueue::jobFinished);
        QVERIFY(startStagedBuild(window, dir.path(), stage, "hold"));
        QTRY_COMPARE(window.logTabs()->count(), 1);
        auto* pane = qobject_cast<LogPane*>(window.logTabs()->widget(0));
        QVERIFY(pane);
        const quint64 id = pane->jobId();
        QTRY_VERIFY_WITH_TIMEOUT(
            pane->textView()->toPlainText().contains(QStringLiteral("compiling: first line")),
            20000);
        // Still running: the line came live, not with the end of the build.
        QCOMPARE(window.builds()->queue()->job(id)->state, JobState::Running);
        QVERIFY(finished.isEmpty());
        QVERIFY(!pane->textView()->toPlainText().contains(QStringLiteral("last line")));

        QVERIFY(QFile::remove(stage.filePath(QStringLiteral("gate"))));
        QVERIFY(finished.wait(20000));
        QCOMPARE(window.builds()->queue()->job(id)->state, JobState::Succeeded);
        QTRY_VERIFY(
            pane->textView()->toPlainText().contains(QStringLiteral("gate opened: last line")));
    }

    // The window asks the builders as soon as a repository it can build is open, before
    // anything is built (not at start, when nothing can be): a builder down is named in the
    // status bar at once. Selecting what to build asks again only when
    // the answers do not stand for the builders (aged, or for other builders).
    void theWindowAsksTheBuildersAhead()
    {
        QSettings stored;
        const BuildSettings before = BuildSettings::load(stored);
        auto restore = qScopeGuard([&] {
            QSettings settings;
            before.save(settings);
        });
        BuildSettings withBuilders = before;
        withBuilders.backend = BackendKind::Nix;
        withBuilders.builders = QStringLiteral("ssh://root@127.0.0.1:1 - - 1");
        withBuilders.save(stored);
        stored.sync();
        QTemporaryDir dir;
        QVERIFY(copyFixtureRepo(dir.path()));
        MainWindow window;
        window.show();
        BuildQueue* queue = window.builds()->queue();
        QVERIFY(queue->builderHealth().isEmpty());
        QVERIFY(openAndWait(window, dir.path()));
        QTRY_VERIFY_WITH_TIMEOUT(queue->builderHealth().value(0).answered, 60000);
        QVERIFY(!queue->builderHealth().value(0).up);
        QVERIFY2(window.statusBar()->currentMessage().startsWith(
                     QStringLiteral("Builders down, nothing goes to them: root@127.0.0.1:1 (")),
                 qPrintable(window.statusBar()->currentMessage()));
        QVERIFY(select(window, QStringLiteral("pytorch-python313-cpu-avx2")).isValid());
        QVERIFY(window.buildAction()->isEnabled());
        QVERIFY(queue->builderHealth().value(0).answered); // not being asked again

        withBuilders.builders = QStringLiteral("ssh://root@127.0.0.1:1 - - 2");
        window.builds()->setSettings(withBuilders);
        QVERIFY(queue->builderHealth().value(0).answered);
        QSignalSpy checked(queue, &BuildQueue::buildersChecked);
        QVERIFY(select(window, QStringLiteral("pytorch-python313-cuda12_9-sm80-avx2")).isValid());
        QVERIFY(checked.wait(60000));
        QVERIFY(!queue->builderHealth().value(0).up);
    }

    // A builder that does not answer when a build starts is named in the status bar and in
    // the job's log, and nothing goes to it: the build is made here.
    void aBuilderDownIsNamedAndGetsNothing()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixtureRepo(dir.path()));
        MainWindow window;
        window.show();
        BuildSettings settings = nixBuilds(window);
        settings.builders = QStringLiteral("ssh://root@127.0.0.1:1 - - 1");
        window.builds()->setSettings(settings);
        QVERIFY(openAndWait(window, dir.path()));
        QVERIFY(select(window, QStringLiteral("pytorch-python313-cpu-avx2")).isValid());
        BuildQueue* queue = window.builds()->queue();
        QString said;
        connect(queue, &BuildQueue::buildersChecked, this,
                [&] { said = window.statusBar()->currentMessage(); });
        QSignalSpy finished(queue, &BuildQueue::jobFinished);
        QCOMPARE(window.buildSelection(), 1);
        QVERIFY(finished.wait(180000));
        const BuildRecord* job = queue->job(finished.at(0).at(0).toULongLong());
        QVERIFY2(job->state == JobState::Succeeded, qPrintable(job->error));
        QVERIFY2(said.startsWith(
                     QStringLiteral("Builders down, nothing goes to them: root@127.0.0.1:1 (")),
                 qPrintable(said));
        QVERIFY2(!job->command.contains(QStringLiteral("127.0.0.1:1")), qPrintable(job->command));
        auto* pane = qobject_cast<LogPane*>(window.logTabs()->widget(0));
        QVERIFY(pane);
        pane->flush();
        QVERIFY2(pane->textView()->toPlainText().contains(
                     QStringLiteral("# root@127.0.0.1:1 is down (")),
                 qPrintable(pane->textView()->toPlainText()));
    }

    // Build Settings' Test Connections asks Nix to reach each builder typed there and says,
    // per builder, what Nix and ssh answered; the dialog stays usable meanwhile.
    void testConnectionsAsksEachBuilder()
    {
        MainWindow window;
        window.show();
        QString health;
        QString tableHealth;
        bool answered = false;
        QVERIFY(testConnections(
            window, QStringLiteral("ssh://root@127.0.0.1:1 - - 1"),
            [&](BuildSettingsDialog* dialog, QPushButton* test) {
                answered = QTest::qWaitFor(
                    [&] {
                        health = healthWithADownBuilder(dialog);
                        return !health.isEmpty() && test->isEnabled();
                    },
                    60000);
                if (auto* table = dialog->findChild<QTableView*>(QStringLiteral("builderTable")))
                    tableHealth = table->model()
                                      ->index(0, 8) // Health
                                      .data()
                                      .toString();
                dialog->grab().save(QStringLiteral(
                    RG_BINARY_DIR "/screenshots/build-settings-test-connections.png"));
            }));
        QVERIFY(answered);
        // The builder, then Nix's words (which differ by version), then ssh's reason.
        QVERIFY2(health.contains(QStringLiteral("root@127.0.0.1:1: ")) &&
                     health.contains(QStringLiteral("Could not resolve hostname 127.0.0.1:1")),
                 qPrintable(health));
        QCOMPARE(tableHealth, QStringLiteral("\u2717 down"));
        QVERIFY(window.builds()->settings().builders.isEmpty()); // cancelled: nothing kept
    }

    // Test Connections shows each builder's answer as it comes: one that accepts the connection
    // and never answers (a hung host: a listening socket nobody serves) keeps only its own line
    // waiting, and the button stays off until it has answered.
    void testConnectionsShowsEachAnswerAsItComes()
    {
        // The kernel completes the connection into the listening socket's backlog.
        const int silent = ::socket(AF_INET, SOCK_STREAM, 0);
        QVERIFY(silent >= 0);
        auto close = qScopeGuard([silent] { ::close(silent); });
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(0x7f000002); // 127.0.0.2
        socklen_t length = sizeof address;
        QVERIFY(::bind(silent, reinterpret_cast<sockaddr*>(&address), length) == 0);
        QVERIFY(::listen(silent, 4) == 0);
        QVERIFY(::getsockname(silent, reinterpret_cast<sockaddr*>(&address), &length) == 0);
        // Both builders on the silent socket's port: nothing listens there on 127.0.0.3.
        qputenv("NIX_SSHOPTS", QStringLiteral("-p %1 -o ConnectTimeout=60 -o BatchMode=yes")
                                   .arg(ntohs(address.sin_port))
                                   .toUtf8());
        auto restore = qScopeGuard([] { qunsetenv("NIX_SSHOPTS"); });
        MainWindow window;
        window.show();
        QString health;
        bool answered = false;
        bool buttonOn = true;
        // Cancelled while the silent one is still asked: its check ends with the dialog.
        QVERIFY(testConnections(
            window, QStringLiteral("ssh://root@127.0.0.3 - - 1\nssh://root@127.0.0.2 - - 1"),
            [&](BuildSettingsDialog* dialog, QPushButton* test) {
                answered = QTest::qWaitFor(
                    [&] {
                        health = healthWithADownBuilder(dialog);
                        return !health.isEmpty();
                    },
                    30000);
                buttonOn = test->isEnabled();
            }));
        QVERIFY(answered);
        QVERIFY2(health.contains(QStringLiteral("root@127.0.0.3: ")) &&
                     health.contains(QStringLiteral("Connection refused")),
                 qPrintable(health));
        QVERIFY2(health.contains(QStringLiteral("\u2026 root@127.0.0.2: asking")),
                 qPrintable(health));
        QVERIFY(!buttonOn);
    }

    // Cancelled from the Builds dock (Delete on the job's row) while the child waits and its
    // own child ignores SIGTERM: the job says cancelled and no process of its tree runs.
    void cancellingFromTheWindowEndsTheProcessTree()
    {
        QTemporaryDir dir;
        QTemporaryDir stage;
        MainWindow window;
        window.show();
        QSignalSpy finished(window.builds()->queue(), &BuildQueue::jobFinished);
        QVERIFY(startStagedBuild(window, dir.path(), stage, "spawn"));
        const QString grandchildFile = stage.filePath(QStringLiteral("grandchild.pid"));
        QTRY_VERIFY_WITH_TIMEOUT(!readAll(grandchildFile).trimmed().isEmpty(), 20000);
        const qint64 child = readAll(stage.filePath(QStringLiteral("child.pid"))).toLongLong();
        const qint64 grandchild = readAll(grandchildFile).trimmed().toLongLong();
        const quint64 id = window.builds()->queue()->jobIds().value(0);
        const qint64 group = window.builds()->queue()->processGroup(id);
        QVERIFY(child > 0 && grandchild > 0 && group > 0);
        QVERIFY(running(child) && running(grandchild));
        QCOMPARE(procState(grandchild).second, group);

        BuildJobsView* jobs = window.findChild<BuildJobsView*>();
        QVERIFY(jobs);
        window.showBuildsDock();
        for (int row = 0; row < jobs->model()->rowCount(); ++row)
            if (jobs->model()->index(row, 0).data(BuildJobsModel::JobIdRole).toULongLong() == id)
                jobs->setCurrentIndex(jobs->model()->index(row, 0));
        QCOMPARE(jobs->currentJobId(), id);
        jobs->setFocus();
        QTest::keyClick(jobs, Qt::Key_Delete);
        QVERIFY(finished.wait(20000));
        QCOMPARE(window.builds()->queue()->job(id)->state, JobState::Cancelled);
        QTRY_VERIFY_WITH_TIMEOUT(!running(child) && !running(grandchild), 10000);
        QVERIFY2(runningIn(group).isEmpty(),
                 qPrintable(QStringLiteral("%1 process(es) of the build still run")
                                .arg(runningIn(group).size())));
        QVERIFY(QFileInfo::exists(stage.filePath(QStringLiteral("gate")))); // it never finished
    }

    void quittingWithRunningBuildsAsks()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixtureRepo(dir.path()));
        MainWindow window;
        window.show();
        QVERIFY(openWithNix(window, dir.path()));
        QVERIFY(select(window, QStringLiteral("pytorch-python313-cuda12_9-sm90-avx512")).isValid());
        QCOMPARE(window.buildSelection(), 1);
        int asked = 0;
        window.setQuitConfirmation([&](int running) {
            ++asked;
            return running < 0; // "No"
        });
        QVERIFY(!window.close());
        QCOMPARE(asked, 1);
        QVERIFY(window.isVisible());
        QVERIFY(window.builds()->hasRunningJobs());
        window.setQuitConfirmation([&](int running) {
            ++asked;
            return running == 1; // "Yes": cancel and quit
        });
        QVERIFY(window.close());
        QCOMPARE(asked, 2);
        QTRY_VERIFY_WITH_TIMEOUT(!window.builds()->hasRunningJobs(), 30000);
    }
};

QTEST_MAIN(TestGuiBuilds)
#include "tst_guibuilds.moc"
