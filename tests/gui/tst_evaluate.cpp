// Evaluate from the window, with the real Nix against the stand-in nixpkgs: a copy of the demo
// repository, its pins mapped to tests/fixtures/nixpkgs-standin/older through the build
// settings. Progress arrives while the GUI thread keeps answering; afterwards the defects only
// Nix shows make their cells broken, sound cells say "evaluated ✓", and the details show Nix's
// answer; the answers survive a rescan of unchanged files and leave a changed one; Cancel
// leaves no Nix process and no answer; the local sources are kept with the build settings. The
// Bump Pin dialog compares what two pins contain, as Nix reads them, and the bump's review
// shows, before anything is written, which recipes would stop evaluating on the new pin. After
// an evaluation each cell says whether its output is built, and Build What Needs It queues
// exactly the ones that are not.

#include "../processes.h"
#include "buildactions.h"
#include "builds/buildqueue.h"
#include "builds/buildsettings.h"
#include "buildsettingsdialog.h"
#include "changeactions.h"
#include "changesetreviewdialog.h"
#include "detailspanel.h"
#include "eval/evaluationmerge.h"
#include "evalactions.h"
#include "guitestsupport.h"
#include "itemmodels/matrixmodel.h"
#include "itemmodels/pinsmodel.h"
#include "mainwindow.h"
#include "matrixview.h"
#include "messagebanner.h"
#include "pinactions.h"
#include "pinbumpdialog.h"
#include "pincontentspane.h"
#include "pinsview.h"
#include "responsivenessprobe.h"
#include "sessions/buildsession.h"
#include "sessions/evaluationsession.h"
#include "sessions/qtext.h"
#include "sessions/repositorysession.h"

#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTreeWidget>
#include <QUuid>

using namespace rg;
using namespace rg::test;

namespace {

constexpr int slowly = 240000; // 20 recipes on two cores, with the first use of a store

const QString standin = QStringLiteral(RG_FIXTURES_DIR "/nixpkgs-standin/older");
// The revisions the demo's recipes pin (grep -o '[0-9a-f]\{40\}' over its recipes).
const char* const demoRevisions[] = {"6a030d535719c5190187c4cec156f335e95e3211",
                                     "235aefb7b064954fce09d035c69907ba8a87cbcd",
                                     "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"};

bool git(const QString& directory, const QStringList& arguments)
{
    QProcess process;
    process.setWorkingDirectory(directory);
    process.start(QStringLiteral("git"), arguments);
    return process.waitForFinished(30000) && process.exitCode() == 0;
}

// The demo repository, copied and committed: a work tree of its own the test may edit.
bool copyDemo(const QString& target)
{
    const QString source = QStringLiteral(RG_SOURCE_DIR "/resources/demo/repository");
    QDirIterator it(source, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    int copied = 0;
    while (it.hasNext()) {
        const QString from = it.next();
        if (!writeAll(target + from.mid(source.size()), readAll(from)))
            return false;
        ++copied;
    }
    return copied > 0 && git(target, {QStringLiteral("init"), QStringLiteral("-q")}) &&
           git(target, {QStringLiteral("add"), QStringLiteral("-A")}) &&
           git(target, {QStringLiteral("-c"), QStringLiteral("user.name=t"), QStringLiteral("-c"),
                        QStringLiteral("user.email=t@t"), QStringLiteral("commit"),
                        QStringLiteral("-q"), QStringLiteral("-m"), QStringLiteral("demo")});
}

// Answers from an earlier test must not make a later one's run instant: a cache of its own.
void useFreshCache(QTemporaryDir& cache)
{
    qputenv("XDG_CACHE_HOME", QFile::encodeName(cache.path()));
}

struct Opened
{
    QTemporaryDir repository;
    QTemporaryDir store; // Nix's store for this test: instantiation writes .drv files
    MainWindow window;
};

bool open(Opened& opened)
{
    if (!opened.repository.isValid() || !copyDemo(opened.repository.path()))
        return false;
    BuildSettings settings = opened.window.builds()->settings();
    for (const char* revision : demoRevisions)
        settings.nixpkgsSources[QString::fromLatin1(revision)] = standin;
    settings.defaultNixpkgs = standin;
    settings.store = QStringLiteral("local?root=") + opened.store.path();
    opened.window.builds()->setSettings(settings);
    opened.window.resize(1400, 900);
    opened.window.show();
    QSignalSpy changed(opened.window.session(), &RepositorySession::analysisChanged);
    opened.window.openRepository(opened.repository.path());
    return changed.wait(20000) && opened.window.session()->analysis();
}

const Cell* entryOf(MainWindow& window, const char* variant)
{
    const auto analysis = window.session()->analysis();
    for (const Cell& entry : analysis->cells)
        if (entry.variant.toString() == variant)
            return &entry;
    return nullptr;
}

bool hasFinding(const Cell* entry, std::string_view rule)
{
    for (const Finding& finding : entry->findings)
        if (finding.ruleId == rule)
            return true;
    return false;
}

QVariantMap evaluationAt(MainWindow& window, const char* variant)
{
    const QModelIndex cell = window.matrixModel()->indexOf(CellSelector(variant));
    return cell.data(MatrixModel::EvaluationRole).toList().value(0).toMap();
}

int evaluatedEntries(MainWindow& window)
{
    int count = 0;
    for (const Cell& entry : window.session()->analysis()->cells)
        count += entry.evaluation ? 1 : 0;
    return count;
}

// Makes Nix count n × n before it evaluates `variant`'s recipe in `opened`, and waits for the
// rescan: the stand-in evaluates the demo in well under a second, too fast on a quick machine
// for a run to be watched (n = 3000: about a second) or stopped midway (n = 50000: minutes).
bool slowDown(Opened& opened, const char* variant, int n)
{
    const QString file = opened.repository.filePath(QLatin1String(recipe(variant)));
    QSignalSpy rescanned(opened.window.session(), &RepositorySession::analysisChanged);
    const QByteArray count = QByteArray::number(n);
    return writeAll(file, "builtins.seq (builtins.foldl' (a: i: builtins.foldl' (b: j: b + j) a "
                          "(builtins.genList (x: x) " +
                              count + ")) 0 (builtins.genList (x: x) " + count + "))\n(" +
                              readAll(file) + ")\n") &&
           rescanned.wait(20000);
}

const char* const cudaDefects[] = {"pytorch-python313-cuda13_0-sm110-armv8_2",
                                   "pytorch-python313-cuda13_0-sm110-armv9",
                                   "pytorch-python313-cuda13_0-sm120-avx"};
const char* const archDefect = "pytorch-python313-cuda13_0-sm89-avx2";
const char* const sound = "pytorch-python313-cuda13_0-sm120-avx2";

} // namespace

class TestEvaluate : public QObject
{
    Q_OBJECT

    QTemporaryDir m_cache;

private slots:
    void initTestCase()
    {
        isolateSettings();
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("nix-instantiate")).isEmpty(),
                 "these tests evaluate with the real Nix: nix-instantiate must be on PATH");
    }

    void evaluateTheBranch();
    void cancelLeavesNoProcessAndNoAnswer();
    void localSourcesPersistWithTheBuildSettings();
    void bumpDialogComparesWhatThePinsContain();
    void pinsDockShowsWhatAPinContains();
    void bumpReviewShowsWhatTheBumpBreaks();
    void evaluationSaysWhatNeedsABuild();
};

void TestEvaluate::evaluateTheBranch()
{
    useFreshCache(m_cache);
    Opened opened;
    QVERIFY(open(opened));
    MainWindow& window = opened.window;
    // A run long enough to watch the GUI thread through; no recipe this test looks at.
    QVERIFY(slowDown(opened, "pytorch-python313-cpu-avx2", 3000));
    EvaluationSession* evaluation = window.evalActions()->evaluation();
    QSignalSpy progress(evaluation, &EvaluationSession::progress);
    QSignalSpy finished(evaluation, &EvaluationSession::finished);
    QSignalSpy analysed(window.session(), &RepositorySession::analysisChanged);
    const int recipes =
        static_cast<int>(EvaluationMerge::itemsOf(*window.session()->analysis()).size());
    QCOMPARE(recipes, 20);

    // The window's first paint is not what is measured.
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCoreApplication::processEvents();
    ResponsivenessProbe probe;
    probe.start();
    window.evalActions()->evaluateBranchAction()->trigger();
    QVERIFY(evaluation->isRunning());
    QVERIFY(window.evalActions()->statusWidget()->isVisible());
    QVERIFY(!window.evalActions()->evaluateAction()->isEnabled()); // one run at a time
    QVERIFY(window.evalActions()->cancelAction()->isEnabled());
    QVERIFY(runEventLoopUntil([&] { return finished.count() == 1; }, slowly));
    probe.stop();
    QVERIFY2(probe.maxLatenessMs() < ResponsivenessProbe::budgetMs,
             qPrintable(QStringLiteral("GUI thread late by %1 ms, %2 ms after Evaluate")
                            .arg(probe.maxLatenessMs())
                            .arg(probe.worstAtMs())));
    QVERIFY(probe.ticks() > 10);

    QCOMPARE(finished.at(0).at(1).toBool(), false);
    // done rises to the total, never back; some report names the recipe Nix began.
    QVERIFY(progress.count() >= 3);
    int last = -1;
    bool named = false;
    for (const QList<QVariant>& report : progress) {
        QVERIFY(report.at(0).toInt() >= last);
        last = report.at(0).toInt();
        QCOMPARE(report.at(1).toInt(), recipes);
        named = named || report.at(2).toString().endsWith(QStringLiteral(".nix"));
    }
    QCOMPARE(last, recipes);
    QVERIFY(named);
    QVERIFY(!window.evalActions()->statusWidget()->isVisible());

    // The answers come in through the session: a refined analysis follows.
    QTRY_VERIFY_WITH_TIMEOUT(evaluatedEntries(window) == recipes, 20000);
    QVERIFY(analysed.count() >= 1);
    for (const char* variant : cudaDefects) {
        const Cell* entry = entryOf(window, variant);
        QVERIFY2(entry && hasFinding(entry, "eval-cuda-mismatch"), variant);
        QCOMPARE(entry->status, CellStatus::Broken);
        QCOMPARE(evaluationAt(window, variant).value(QStringLiteral("state")).toString(),
                 QStringLiteral("findings"));
    }
    const Cell* arch = entryOf(window, archDefect);
    QVERIFY(arch && hasFinding(arch, "eval-arch-mismatch"));
    QCOMPARE(arch->status, CellStatus::Broken);

    const QModelIndex soundCell = window.matrixModel()->indexOf(CellSelector(sound));
    QVERIFY(soundCell.isValid());
    QCOMPARE(entryOf(window, sound)->status, CellStatus::Ok);
    QCOMPARE(evaluationAt(window, sound).value(QStringLiteral("state")).toString(),
             QStringLiteral("agrees"));
    QVERIFY(
        soundCell.data(Qt::ToolTipRole).toString().contains(QStringLiteral("evaluated \u2713")));
    QVERIFY(soundCell.data(Qt::ToolTipRole).toString().contains(QStringLiteral("pin 6a030d5")));

    // The details: Nix's answer beside what the static reading found.
    window.matrixView()->setCurrentIndex(soundCell);
    QTRY_COMPARE(window.detailsPanel()->currentVariantName(), QString::fromLatin1(sound));
    const QString answer = window.detailsPanel()->evaluationText();
    for (const char* words :
         {"evaluated \u2713", "torch", "2.10.0", "CUDA", "13.0", "Python", "3.13", "Arch list",
          "12.0", "drvPath", ".drv", "Pin", "6a030d535719c5190187c4cec156f335e95e3211"})
        QVERIFY2(answer.contains(QString::fromUtf8(words)),
                 qPrintable(QStringLiteral("%1 not in: %2").arg(QString::fromUtf8(words), answer)));

    // RG_EVAL_SCREENSHOT=FILE: the window with a defect Nix found in the details, for a look.
    if (const QString shot = qEnvironmentVariable("RG_EVAL_SCREENSHOT"); !shot.isEmpty()) {
        window.matrixView()->setCurrentIndex(
            window.matrixModel()->indexOf(CellSelector(cudaDefects[1])));
        QTRY_COMPARE(window.detailsPanel()->currentVariantName(),
                     QString::fromLatin1(cudaDefects[1]));
        QVERIFY(window.grab().save(shot));
    }

    // An unrelated file changes: the rescan keeps every answer.
    const int scans = window.session()->scanCount();
    QVERIFY(writeAll(opened.repository.filePath(QStringLiteral(".flox/pkgs/notes.txt")), "x\n"));
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->scanCount() > scans, 20000);
    QCOMPARE(evaluatedEntries(window), recipes);
    QVERIFY(hasFinding(entryOf(window, archDefect), "eval-arch-mismatch"));
    QCOMPARE(evaluationAt(window, sound).value(QStringLiteral("state")).toString(),
             QStringLiteral("agrees"));

    // A recipe changes: its answer goes (Nix has not seen this text), the others stay.
    const QString changed = opened.repository.filePath(
        QStringLiteral(".flox/pkgs/") + QString::fromLatin1(archDefect) + QStringLiteral(".nix"));
    QVERIFY(writeAll(changed, readAll(changed) + "\n# edited\n"));
    QTRY_VERIFY_WITH_TIMEOUT(!entryOf(window, archDefect)->evaluation, 20000);
    QVERIFY(!hasFinding(entryOf(window, archDefect), "eval-arch-mismatch"));
    QCOMPARE(evaluatedEntries(window), recipes - 1);
    QVERIFY(evaluationAt(window, archDefect).value(QStringLiteral("state")).toString().isEmpty());
    QVERIFY(hasFinding(entryOf(window, cudaDefects[0]), "eval-cuda-mismatch"));
}

void TestEvaluate::cancelLeavesNoProcessAndNoAnswer()
{
    QTemporaryDir cache;
    useFreshCache(cache); // nothing answered before: Nix must run
    Opened opened;
    QVERIFY(open(opened));
    MainWindow& window = opened.window;
    QVERIFY(slowDown(opened, sound, 50000)); // Nix at work until the cancel
    EvaluationSession* evaluation = window.evalActions()->evaluation();
    QSignalSpy finished(evaluation, &EvaluationSession::finished);
    QCOMPARE(window.evalActions()->evaluate(true), 20);
    // A second request while it runs is refused, not queued.
    QCOMPARE(window.evalActions()->evaluate(true), 0);
    QVERIFY(!evaluation->start(window.evalActions()->settingsFor(opened.repository.path()),
                               {EvalItem{"x.nix", "", ""}}));

    const QByteArray marker = opened.repository.path().toUtf8();
    QTRY_VERIFY_WITH_TIMEOUT(processesMentioning(marker) >= 1, 60000); // Nix is at work
    window.evalActions()->cancelAction()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 60000);
    QCOMPARE(finished.at(0).at(1).toBool(), true);
    QTRY_COMPARE_WITH_TIMEOUT(processesMentioning(marker), 0, 5000); // killed: gone soon after
    const auto results = finished.at(0).at(0).value<std::vector<EvaluatedRecipe>>();
    int unanswered = 0;
    for (const EvaluatedRecipe& result : results)
        unanswered += result.transient ? 1 : 0;
    QVERIFY2(unanswered > 0, "the cancel came after the last answer: not mid-run");

    QCOMPARE(evaluation->answerCount(), 0);
    QCOMPARE(evaluatedEntries(window), 0);
    QVERIFY(evaluationAt(window, sound).value(QStringLiteral("state")).toString().isEmpty());
    QVERIFY(!window.matrixModel()
                 ->indexOf(CellSelector(sound))
                 .data(Qt::ToolTipRole)
                 .toString()
                 .contains(QStringLiteral("evaluated")));
    QVERIFY(window.evalActions()->evaluateBranchAction()->isEnabled());
    QVERIFY(!window.evalActions()->statusWidget()->isVisible());
}

void TestEvaluate::localSourcesPersistWithTheBuildSettings()
{
    isolateSettings();
    const QString revision = QString::fromLatin1(demoRevisions[0]);
    {
        MainWindow window;
        BuildSettingsDialog dialog(window.builds()->settings());
        dialog.nixpkgsSourcesEdit()->setPlainText(QStringLiteral("not-a-revision=/x"));
        dialog.defaultNixpkgsEdit()->setText(standin);
        dialog.accept();
        QCOMPARE(dialog.result(), int(QDialog::Rejected)); // a line that is not REV=PATH
        dialog.nixpkgsSourcesEdit()->setPlainText(revision.toUpper() + QStringLiteral(" = ") +
                                                  standin + QStringLiteral("\n\n"));
        dialog.accept();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        const BuildSettings chosen = dialog.settings();
        QCOMPARE(chosen.nixpkgsSources.value(revision), standin);
        QCOMPARE(chosen.nixpkgsSources.size(), 1);
        window.findChild<BuildActions*>()->applyBuildSettings(chosen);
    }
    MainWindow again; // reads the settings as the next start of the app does
    const BuildSettings loaded = again.builds()->settings();
    QCOMPARE(loaded.nixpkgsSources.value(revision), standin);
    QCOMPARE(loaded.defaultNixpkgs, standin);
    // …and evaluation gets them, with the CLI's cache folder.
    const EvalSettings eval = again.evalActions()->settingsFor(QStringLiteral("/repo"));
    QCOMPARE(eval.sources.at(revision.toStdString()), QDir::cleanPath(standin).toStdString());
    QCOMPARE(eval.defaultNixpkgs, QDir::cleanPath(standin).toStdString());
    QCOMPARE(eval.repoRoot, std::string("/repo"));
    QVERIFY(QString::fromStdString(eval.cacheDir).endsWith(QStringLiteral("/recipegrid/eval")));
}

// The demo's pin (older) against a pin mapped to the stand-in's newer revision: the rows come
// back from Nix while the dialog stays usable, torch and the default CUDA marked as changing;
// another to-pin clears them; a pin Nix cannot read says so, naming it.
void TestEvaluate::bumpDialogComparesWhatThePinsContain()
{
    Opened opened;
    QVERIFY(open(opened));
    MainWindow& window = opened.window;
    const QString newerPin = QStringLiteral("0182a361324364ae3f436a63005877674cf45efb");
    const QString missingPin = QStringLiteral("9f3c1d2a45b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0");
    BuildSettings settings = window.builds()->settings();
    settings.nixpkgsSources[newerPin] = QStringLiteral(RG_FIXTURES_DIR "/nixpkgs-standin/newer");
    settings.nixpkgsSources[missingPin] = opened.store.filePath(QStringLiteral("no-such-nixpkgs"));
    window.builds()->setSettings(settings);
    QSignalSpy listed(window.pinActions(), &PinActions::inventoryChanged);
    QVERIFY(window.pinActions()->inventory() || listed.wait(20000));

    window.pinActions()->openBumpDialog(demoRevisions[0]);
    auto* dialog = waitForModal<PinBumpDialog>(20000);
    QVERIFY(dialog);
    PinContentsPane* pane = dialog->contentsPane();
    QVERIFY(!pane->compareButton()->isEnabled()); // no to-pin yet
    dialog->setToPin(newerPin);
    QVERIFY(pane->compareButton()->isEnabled());
    QTest::mouseClick(pane->compareButton(), Qt::LeftButton);
    QCOMPARE(pane->compareButton()->text(), QStringLiteral("&Stop")); // while Nix is asked
    QCOMPARE(pane->statusLabel()->text(), QStringLiteral("Asking Nix\u2026"));
    QTRY_VERIFY_WITH_TIMEOUT(pane->tree()->isVisible(), slowly);
    std::map<QString, QStringList> rows;
    for (int i = 0; i < pane->tree()->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* item = pane->tree()->topLevelItem(i);
        rows[item->text(0)] = {item->text(1), item->text(2),
                               item->font(2).bold() ? QStringLiteral("changed") : QString()};
    }
    const QStringList torch = {QStringLiteral("2.9.1"), QStringLiteral("2.10.0"),
                               QStringLiteral("changed")};
    QCOMPARE(rows[QStringLiteral("torch (python3Packages)")], torch);
    const QStringList cuda = {QStringLiteral("12.8"), QStringLiteral("12.9"),
                              QStringLiteral("changed")};
    QCOMPARE(rows[QStringLiteral("default CUDA")], cuda);
    const QStringList python = {QStringLiteral("3.13.9"), QStringLiteral("3.13.11"),
                                QStringLiteral("changed")};
    QCOMPARE(rows[QStringLiteral("Python (python3Packages)")], python);
    QVERIFY2(pane->statusLabel()->text().contains(QStringLiteral("values change")),
             qPrintable(pane->statusLabel()->text()));
    QVERIFY(pane->compareButton()->isEnabled());
    QVERIFY(
        dialog->grab().save(QStringLiteral(RG_BINARY_DIR "/screenshots/bump-pin-contents.png")));

    dialog->setToPin(missingPin);
    QVERIFY(!pane->tree()->isVisible());
    QVERIFY(pane->statusLabel()->text().isEmpty());
    QTest::mouseClick(pane->compareButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(pane->compareButton()->text(), QStringLiteral("Compare &with Nix"),
                              slowly);
    QVERIFY2(pane->statusLabel()->text().startsWith(QStringLiteral("Nix cannot read 9f3c1d2")),
             qPrintable(pane->statusLabel()->text()));
    QVERIFY(!pane->tree()->isVisible());
    dialog->reject();
}

void TestEvaluate::pinsDockShowsWhatAPinContains()
{
    Opened opened;
    QVERIFY(open(opened));
    MainWindow& window = opened.window;
    QSignalSpy listed(window.pinActions(), &PinActions::inventoryChanged);
    QVERIFY(window.pinActions()->inventory() || listed.wait(20000));
    window.pinActions()->pinsViewAction()->trigger();
    PinsView* view = window.pinActions()->pinsView();
    PinContentsPane* pane = view->contentsPane();
    QVERIFY(!pane->compareButton()->isEnabled()); // no pin chosen yet
    const QAbstractItemModel* model = view->treeView()->model();
    const QModelIndexList pins = model->match(model->index(0, 0), PinsModel::RevisionRole,
                                              QString::fromLatin1(demoRevisions[0]), 1,
                                              Qt::MatchExactly | Qt::MatchRecursive);
    QCOMPARE(pins.size(), 1);
    const QModelIndex pin = pins.front();
    QVERIFY(!pin.parent().data(PinsModel::RevisionRole).isValid() ||
            pin.parent().data(PinsModel::RevisionRole).toString().isEmpty()); // a group row
    view->treeView()->setCurrentIndex(pin);
    QVERIFY(pane->compareButton()->isEnabled());
    QTest::mouseClick(pane->compareButton(), Qt::LeftButton);
    QCOMPARE(pane->compareButton()->text(), QStringLiteral("&Stop"));
    QTRY_VERIFY_WITH_TIMEOUT(!pane->tree()->isHidden(), slowly);
    QCOMPARE(pane->tree()->columnCount(), 2); // the one pin, no from / to
    std::map<QString, QString> rows;
    for (int i = 0; i < pane->tree()->topLevelItemCount(); ++i)
        rows[pane->tree()->topLevelItem(i)->text(0)] = pane->tree()->topLevelItem(i)->text(1);
    QCOMPARE(rows[QStringLiteral("torch (python3Packages)")], QStringLiteral("2.9.1"));
    QCOMPARE(rows[QStringLiteral("default CUDA")], QStringLiteral("12.8"));
    QCOMPARE(rows[QStringLiteral("Python (python3Packages)")], QStringLiteral("3.13.9"));
    QVERIFY2(pane->statusLabel()->text().startsWith(QStringLiteral("6a030d535719")),
             qPrintable(pane->statusLabel()->text()));
    QVERIFY(
        window.grab().save(QStringLiteral(RG_BINARY_DIR "/screenshots/pins-dock-contents.png")));

    // A group row names no pin: the answer for the earlier one goes.
    view->treeView()->setCurrentIndex(pin.parent());
    QVERIFY(!pane->compareButton()->isEnabled());
    QVERIFY(pane->tree()->isHidden());
    QVERIFY(pane->statusLabel()->text().isEmpty());

    // Stop, while a Nix that never answers (a hanging download) is asked: it goes, with what
    // it started, and the pane says so.
    QTemporaryDir bin;
    QVERIFY(!test::hangingNix(bin).isEmpty());
    const QByteArray path = qgetenv("PATH");
    qputenv("PATH", bin.path().toUtf8() + ':' + path);
    view->treeView()->setCurrentIndex(pin);
    QTest::mouseClick(pane->compareButton(), Qt::LeftButton);
    const QByteArray marker = bin.path().toUtf8();
    QTRY_VERIFY_WITH_TIMEOUT(test::processesMentioning(marker) >= 2, 20000);
    qputenv("PATH", path);
    QCOMPARE(pane->compareButton()->text(), QStringLiteral("&Stop"));
    QTest::mouseClick(pane->compareButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(pane->statusLabel()->text(),
                              QStringLiteral("Stopped before Nix answered."), 20000);
    QTRY_COMPARE_WITH_TIMEOUT(test::processesMentioning(marker), 0, 5000);
    QCOMPARE(pane->compareButton()->text(), QStringLiteral("Ask &Nix"));
    QVERIFY(pane->compareButton()->isEnabled());
    QVERIFY(pane->tree()->isHidden());
}

// The stand-in's newer revision renames torch's gpuTargets: the demo's CUDA recipes on the
// bumped pin stop evaluating there, its CPU recipes still evaluate, and the review says so per
// file, with Nix's words and position, before Apply.
void TestEvaluate::bumpReviewShowsWhatTheBumpBreaks()
{
    Opened opened;
    QVERIFY(open(opened));
    MainWindow& window = opened.window;
    const QString newerPin = QStringLiteral("0182a361324364ae3f436a63005877674cf45efb");
    BuildSettings settings = window.builds()->settings();
    settings.nixpkgsSources[newerPin] = QStringLiteral(RG_FIXTURES_DIR "/nixpkgs-standin/newer");
    window.builds()->setSettings(settings);
    QSignalSpy listed(window.pinActions(), &PinActions::inventoryChanged);
    QVERIFY(window.pinActions()->inventory() || listed.wait(20000));
    const QByteArray cuda = readAll(opened.repository.filePath(QLatin1String(recipe(sound))));

    window.pinActions()->openBumpDialog(demoRevisions[0]);
    auto* bump = waitForModal<PinBumpDialog>(20000);
    QVERIFY(bump);
    bump->setToPin(newerPin);
    QVERIFY2(bump->okButton()->isEnabled(), qPrintable(bump->validationText()));
    QTest::mouseClick(bump->okButton(), Qt::LeftButton);
    auto* review = waitForModal<ChangeSetReviewDialog>(slowly);
    QVERIFY2(review, qPrintable(window.banner()->text()));
    QVERIFY(review->nixButton()->isVisible());
    QVERIFY(review->operationsView()->isColumnHidden(ChangeSetReviewDialog::NixColumn));
    QTest::mouseClick(review->nixButton(), Qt::LeftButton);
    QCOMPARE(review->nixButton()->text(), QStringLiteral("&Stop"));
    QTRY_VERIFY_WITH_TIMEOUT(
        !review->operationsView()->isColumnHidden(ChangeSetReviewDialog::NixColumn), slowly);
    QCOMPARE(review->nixButton()->text(), QStringLiteral("What It &Breaks (Ask Nix)"));

    // Per file: each recipe's verdict, as the evaluation on each pin has it.
    std::map<std::string, QString> verdicts;
    int cudaFiles = 0, cpuFiles = 0;
    for (int i = 0; i < review->operationsView()->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = review->operationsView()->topLevelItem(i);
        const std::string& path = review->changeSet().operations[size_t(i)].path;
        verdicts[path] = item->text(ChangeSetReviewDialog::NixColumn);
        if (path.find("-cuda") != std::string::npos) {
            ++cudaFiles;
            QCOMPARE(verdicts[path], QStringLiteral("\u2717 breaks"));
            QVERIFY2(item->toolTip(ChangeSetReviewDialog::NixColumn)
                         .contains(QStringLiteral("unexpected argument 'gpuTargets'")),
                     qPrintable(item->toolTip(ChangeSetReviewDialog::NixColumn)));
        } else if (path.find("-cpu-") != std::string::npos) {
            ++cpuFiles;
            QCOMPARE(verdicts[path], QStringLiteral("\u2713 evaluates"));
        }
    }
    QVERIFY(cudaFiles > 0);
    QVERIFY(cpuFiles > 0);
    QVERIFY2(review->nixSummaryLabel()->text().startsWith(
                 QStringLiteral("%1 of %2 recipe(s) would stop evaluating with the change")
                     .arg(cudaFiles)
                     .arg(cudaFiles + cpuFiles)),
             qPrintable(review->nixSummaryLabel()->text()));

    // The current file's verdict, with Nix's position in the repository.
    for (int i = 0; i < review->operationsView()->topLevelItemCount(); ++i)
        if (review->changeSet().operations[size_t(i)].path.find("-cuda") != std::string::npos) {
            review->setCurrentOperation(i);
            break;
        }
    const QString verdict = review->nixVerdictLabel()->text();
    QVERIFY(review->nixVerdictLabel()->isVisible());
    QVERIFY2(verdict.startsWith(QStringLiteral("Nix: stops evaluating with the change: ")),
             qPrintable(verdict));
    QVERIFY2(verdict.contains(QStringLiteral("(.flox/pkgs/")), qPrintable(verdict));
    for (int i = 0; i < review->operationsView()->topLevelItemCount(); ++i)
        if (review->changeSet().operations[size_t(i)].path.find("-cpu-") != std::string::npos) {
            review->setCurrentOperation(i);
            break;
        }
    // The demo's CPU recipes build their own torch 2.10.0 on either pin: a new derivation, and
    // no key version that changes.
    QCOMPARE(review->nixVerdictLabel()->text(),
             QStringLiteral("Nix: evaluates before and after the change \u00b7 new derivation"));
    QVERIFY(review->grab().save(QStringLiteral(RG_BINARY_DIR "/screenshots/bump-review-nix.png")));

    // Stop, while a Nix that never answers is asked: it goes, with what it started.
    QTemporaryDir bin;
    QVERIFY(!test::hangingNix(bin).isEmpty());
    const QByteArray path = qgetenv("PATH");
    qputenv("PATH", bin.path().toUtf8() + ':' + path);
    QTest::mouseClick(review->nixButton(), Qt::LeftButton);
    const QByteArray marker = bin.path().toUtf8();
    QTRY_VERIFY_WITH_TIMEOUT(test::processesMentioning(marker) >= 2, 20000);
    qputenv("PATH", path);
    QTest::mouseClick(review->nixButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(review->nixSummaryLabel()->text(),
                              QStringLiteral("Stopped before Nix answered."), 20000);
    QTRY_COMPARE_WITH_TIMEOUT(test::processesMentioning(marker), 0, 5000);

    // Asking wrote nothing; the review still decides.
    review->reject();
    QCOMPARE(readAll(opened.repository.filePath(QLatin1String(recipe(sound)))), cuda);
}

// The build fixture's self-contained recipes with a nonce of this run's, so no earlier run's
// output answers for them: the CPU one built into the store, the others never built.
void TestEvaluate::evaluationSaysWhatNeedsABuild()
{
    QTemporaryDir repository;
    const QString source = QStringLiteral(RG_FIXTURES_DIR "/build/repo");
    const QByteArray nonce = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
    QDirIterator it(source, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString from = it.next();
        QByteArray text = readAll(from).replace("@NONCE@", nonce).replace("@SECONDS@", "30");
        text.replace("@PIDFILE@", repository.filePath(QStringLiteral("pids")).toUtf8());
        QVERIFY(writeAll(repository.path() + from.mid(source.size()), text));
    }
    const char* const cpu = "pytorch-python313-cpu-avx2";
    QProcess build;
    build.start(QStringLiteral("nix-build"),
                {repository.filePath(QLatin1String(recipe(cpu))), QStringLiteral("--no-out-link")});
    QVERIFY(build.waitForFinished(120000) && build.exitCode() == 0);

    MainWindow window;
    BuildSettings settings = window.builds()->settings();
    settings.store.clear(); // where nix-build put it
    settings.backend = BackendKind::Nix;
    window.builds()->setSettings(settings);
    window.resize(1400, 900);
    window.show();
    QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
    window.openRepository(repository.path());
    QVERIFY(changed.wait(20000));
    QAction* buildNeeded = menuAction(window, QStringLiteral("buildNeededAction"));
    QVERIFY(buildNeeded);
    buildNeeded->trigger(); // nothing asked yet: nothing known to need a build
    QCOMPARE(window.builds()->queue()->jobIds().size(), 0);
    QVERIFY2(window.statusBar()->currentMessage().startsWith(
                 QStringLiteral("Nothing known to need a build: evaluate first")),
             qPrintable(window.statusBar()->currentMessage()));

    QSignalSpy finished(window.evalActions()->evaluation(), &EvaluationSession::finished);
    QCOMPARE(window.evalActions()->evaluate(true), 4);
    QVERIFY(finished.wait(slowly));
    QTRY_VERIFY_WITH_TIMEOUT(evaluatedEntries(window) == 4, 20000);
    std::map<QString, QString> outputs;
    for (const Cell& cell : window.session()->analysis()->cells)
        if (cell.recipe)
            outputs[qs(cell.variant.toString())] =
                evaluationAt(window, cell.variant.toString().c_str())
                    .value(QStringLiteral("output"))
                    .toString();
    const std::map<QString, QString> expected = {
        {QLatin1String(cpu), QStringLiteral("built")},
        {QStringLiteral("pytorch-python313-cuda12_9-sm80-avx2"), QStringLiteral("missing")},
        {QStringLiteral("pytorch-python313-cuda12_9-sm86-avx2"), QStringLiteral("missing")},
        {QStringLiteral("pytorch-python313-cuda12_9-sm90-avx512"), QStringLiteral("missing")}};
    QCOMPARE(outputs, expected);
    QVERIFY(evaluationAt(window, cpu)
                .value(QStringLiteral("text"))
                .toString()
                .endsWith(QStringLiteral(" \u00b7 output built")));
    QVERIFY(window.selectCell(CellSelector(cpu)));
    QTRY_COMPARE(window.detailsPanel()->currentVariantName(), QString::fromLatin1(cpu));
    QVERIFY2(window.detailsPanel()->evaluationText().contains(QStringLiteral("Output")),
             qPrintable(window.detailsPanel()->evaluationText()));
    QVERIFY(window.grab().save(QStringLiteral(RG_BINARY_DIR "/screenshots/evaluate-outputs.png")));

    buildNeeded->trigger();
    QList<QString> queued;
    for (quint64 id : window.builds()->queue()->jobIds())
        queued << window.builds()->queue()->job(id)->variant;
    std::sort(queued.begin(), queued.end());
    QCOMPARE(queued, (QList<QString>{QStringLiteral("pytorch-python313-cuda12_9-sm80-avx2"),
                                     QStringLiteral("pytorch-python313-cuda12_9-sm86-avx2"),
                                     QStringLiteral("pytorch-python313-cuda12_9-sm90-avx512")}));
    QVERIFY2(window.statusBar()->currentMessage().startsWith(QStringLiteral("3 build(s) queued")),
             qPrintable(window.statusBar()->currentMessage()));
    window.builds()->cancelAll();
    QTRY_VERIFY_WITH_TIMEOUT(!window.builds()->hasRunningJobs(), 30000);
}

QTEST_MAIN(TestEvaluate)
#include "tst_evaluate.moc"
