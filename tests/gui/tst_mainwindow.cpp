// The window driven like a user would: open, click cells, read the details and the preview,
// click a finding, filter, use the keyboard, edit and delete files under the selection,
// open folders without recipes and repositories with a malformed spec.

#include "../recipes/testrepository.h"
#include "aboutdialog.h"
#include "branchoverviewview.h"
#include "detailspanel.h"
#include "emptystatepage.h"
#include "filterbar.h"
#include "guitestsupport.h"
#include "itemmodels/branchoverviewmodel.h"
#include "itemmodels/findingsmodel.h"
#include "itemmodels/matrixmodel.h"
#include "mainwindow.h"
#include "matrixview.h"
#include "messagebanner.h"
#include "recipepreview.h"
#include "sessions/repositorysession.h"
#include "statusstyle.h"
#include "stuckrefs.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMap>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSyntaxHighlighter>
#include <QTextBlock>
#include <QTextLayout>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>

#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/SyntaxHighlighter>
#endif

using namespace rg;
using namespace rg::test;

namespace {

const QString armv9 = QStringLiteral("pytorch-python313-cuda13_0-sm110-armv9");
const QByteArray oldPin = "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3";
const QByteArray specPin = "6a030d535719c5190187c4cec156f335e95e3211";

QModelIndex cellOf(MainWindow& window, const char* row, const char* column)
{
    MatrixModel* model = window.matrixModel();
    for (int r = 0; r < model->rowCount(); ++r)
        for (int c = 0; c < model->columnCount(); ++c)
            if (model->rowId(r) == row && model->columnId(c) == column)
                return model->index(r, c);
    return {};
}

// Every position of the grid, row by row, where `holds` is true.
template <typename Predicate>
QModelIndexList positionsWhere(MatrixModel* model, const Predicate& holds)
{
    QModelIndexList found;
    for (int r = 0; r < model->rowCount(); ++r)
        for (int c = 0; c < model->columnCount(); ++c)
            if (holds(model->index(r, c)))
                found << model->index(r, c);
    return found;
}

// A cell's own recipe or another in it is broken (sm121 × armv9 holds a broken "-nightly" copy).
bool holdsBroken(const QModelIndex& index)
{
    QVariantList statuses = index.data(MatrixModel::StatusesRole).toList();
    for (const QVariant& slice : index.data(MatrixModel::ExtraStatusesRole).toList())
        statuses += slice.toList();
    return statuses.contains(int(CellStatus::Broken));
}

bool holdsRecipe(const QModelIndex& index)
{
    return !index.data(MatrixModel::PathsRole).toStringList().isEmpty();
}

// The Details pane shows a broken recipe.
bool showsBrokenRecipe(MainWindow& window)
{
    const QString shown = window.detailsPanel()->currentVariantName();
    for (const Cell& cell : window.session()->analysis()->cells)
        if (QString::fromStdString(cell.variant.toString()) == shown)
            return cell.recipe && cell.status == CellStatus::Broken;
    return false;
}

QAction* actionNamed(MainWindow& window, const char* text)
{
    for (QAction* action : window.findChildren<QAction*>())
        if (action->text().remove(QLatin1Char('&')) == QLatin1String(text))
            return action;
    return nullptr;
}

void click(MainWindow& window, const QModelIndex& index, Qt::KeyboardModifiers modifiers = {})
{
    MatrixView* view = window.matrixView();
    view->scrollTo(index);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, modifiers,
                      view->visualRect(index).center());
}

bool openAndWait(MainWindow& window, const QString& path)
{
    QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
    window.openRepository(path);
    return changed.wait(10000);
}

// The File menu's action whose shortcut is `key`.
QAction* fileAction(MainWindow& window, QKeySequence::StandardKey key)
{
    QMenu* file = window.menuBar()->actions().value(0)->menu();
    for (QAction* action : file ? file->actions() : QList<QAction*>())
        if (action->shortcut() == QKeySequence(key))
            return action;
    return nullptr;
}

// Answers the next folder dialog the window opens with `path`, typed as a user types it.
// The page's message: the label holding its text.
QLabel* messageLabel(const EmptyStatePage& page)
{
    for (QLabel* label : page.findChildren<QLabel*>())
        if (label->text() == page.message())
            return label;
    return nullptr;
}

void answerFolderDialog(QObject* context, const QString& path, bool* answered)
{
    auto* poll = new QTimer(context);
    QObject::connect(poll, &QTimer::timeout, context, [poll, path, answered] {
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        poll->deleteLater();
        auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
        if (!name)
            return dialog->reject();
        name->setText(path);
        *answered = dialog->fileMode() == QFileDialog::Directory;
        QTest::keyClick(name, Qt::Key_Return);
    });
    poll->start(20);
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(); }

    void clickingCellsShowsDetailsAndPreview()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        MainWindow window;
        // A first window fits its screen, and the offscreen platform's is 800 × 600: the size
        // of a desktop, so that the findings and the preview have their room.
        window.resize(1500, 920);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(!window.isShowingGrid()); // welcome page first
        QVERIFY(openAndWait(window, dir.path()));
        QVERIFY(window.isShowingGrid());
        QCOMPARE(window.summaryText(),
                 QStringLiteral("44 expected (1 ok \u00b7 2 broken \u00b7 41 missing) \u00b7 3 not "
                                "expected (2 broken \u00b7 1 redundant) \u00b7 4 with warnings"));
        QVERIFY(window.windowTitle().contains(QFileInfo(dir.path()).fileName()));

        QSignalSpy preview(&window, &MainWindow::previewUpdated);
        click(window, cellOf(window, "sm110", "armv9"));
        QCOMPARE(window.detailsPanel()->currentVariantName(), armv9);
        const QString facts = window.detailsPanel()->factsText();
        QVERIFY2(facts.contains(QString::fromLatin1(oldPin)), qPrintable(facts));
        QVERIFY(facts.contains(QStringLiteral("broken")));
        QVERIFY(facts.contains(QStringLiteral("11.0"))); // gpuArchSM
        QVERIFY(facts.contains(QStringLiteral("-march=armv9")));
        QVERIFY(facts.contains(QStringLiteral("aarch64-linux")));
        QVERIFY(facts.contains(QStringLiteral("pytorch"))); // torch attribute (deprecated)
        QVERIFY(preview.wait(5000));
        const QByteArray bytes = readAll(dir.filePath(recipe(armv9.toLatin1())));
        QCOMPARE(window.preview()->toPlainText(), QString::fromUtf8(bytes));
        QCOMPARE(window.preview()->path(), QString::fromLatin1(recipe(armv9.toLatin1())));

        // Clicking a finding highlights exactly its range in the preview.
        QTreeView* findings = window.detailsPanel()->findingsView();
        QVERIFY(findings->model()->rowCount() >= 3);
        int pinRow = -1;
        for (int r = 0; r < findings->model()->rowCount(); ++r)
            if (findings->model()->index(r, 0).data(FindingsModel::RuleRole).toString() ==
                "pin-mismatch")
                pinRow = r;
        QVERIFY(pinRow >= 0);
        const QModelIndex pinIndex = findings->model()->index(pinRow, FindingsModel::MessageColumn);
        const int begin = pinIndex.data(FindingsModel::RangeBeginRole).toInt();
        const int end = pinIndex.data(FindingsModel::RangeEndRole).toInt();
        QVERIFY(end > begin);
        findings->scrollTo(pinIndex);
        QTest::mouseClick(findings->viewport(), Qt::LeftButton, {},
                          findings->visualRect(pinIndex).center());
        QCOMPARE(window.preview()->highlightedText(),
                 QString::fromUtf8(bytes.mid(begin, end - begin)));
        QVERIFY(window.preview()->highlightedText().contains(QString::fromLatin1(oldPin)));
        QCOMPARE(window.preview()->highlightedLine(),
                 pinIndex.data(FindingsModel::LineRole).toInt());

        // A missing cell: no file, the preview says what the spec expects.
        click(window, cellOf(window, "sm90", "avx512"));
        QCOMPARE(window.detailsPanel()->currentEntry()->status, CellStatus::Missing);
        QVERIFY(!window.preview()->hasRecipe());
        QVERIFY(
            window.preview()->toPlainText().contains("pytorch-python313-cuda13_0-sm90-avx512.nix"));

        // A cell with no recipe that the spec does not expect: the preview says so, as the
        // details do, instead of asking for a cell to be selected.
        const auto emptyCell = [model = window.matrixModel()](bool impossible) {
            for (int r = 0; r < model->rowCount(); ++r)
                for (int c = 0; c < model->columnCount(); ++c)
                    if (const QModelIndex at = model->index(r, c);
                        at.data(MatrixModel::EntryIndexesRole).toList().isEmpty() &&
                        at.data(MatrixModel::ImpossibleRole).toBool() == impossible)
                        return at;
            return QModelIndex();
        };
        const QModelIndex empty = emptyCell(false);
        QVERIFY(empty.isValid());
        click(window, empty);
        QVERIFY(!window.detailsPanel()->currentEntry());
        QVERIFY(!window.preview()->hasRecipe());
        QVERIFY2(window.preview()->toPlainText().contains(QStringLiteral("does not expect")),
                 qPrintable(window.preview()->toPlainText()));
        // An impossible one says why no recipe can be there (an ARM SoC has no x86 ISA), in
        // the details and the preview alike.
        const QModelIndex impossible = emptyCell(true);
        QVERIFY(impossible.isValid());
        click(window, impossible);
        QVERIFY(!window.detailsPanel()->currentEntry());
        for (const QString& said :
             {window.detailsPanel()->factsText(), window.preview()->toPlainText()}) {
            QVERIFY2(said.contains(QStringLiteral("impossible \u2014 ")) &&
                         said.contains(QStringLiteral("is an ARM SoC")),
                     qPrintable(said));
            QVERIFY2(!said.contains(QStringLiteral("does not expect")), qPrintable(said));
        }

        // The -magma recipe shares the canonical recipe's cell; the chooser shows both.
        click(window, cellOf(window, "sm120", "avx512"));
        QVERIFY(
            window.detailsPanel()->selectVariant("pytorch-python313-cuda13_0-sm120-avx512-magma"));
        QCOMPARE(window.detailsPanel()->currentEntry()->status, CellStatus::Redundant);
    }

    void keyboardAndSelection()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // Keyboard focus needs the active window; an X server without a window manager
        // activates nothing by itself.
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(openAndWait(window, dir.path()));
        MatrixView* view = window.matrixView();
        view->setFocus();
        view->setCurrentIndex(cellOf(window, "sm110", "armv9"));
        QCOMPARE(window.detailsPanel()->currentVariantName(), armv9);
        QTest::keyClick(view, Qt::Key_Left);
        QCOMPARE(window.detailsPanel()->currentVariantName(),
                 QStringLiteral("pytorch-python313-cuda13_0-sm110-armv8_2"));
        // Enter goes on to the findings, Enter on a finding highlights it in the recipe.
        QSignalSpy preview(&window, &MainWindow::previewUpdated);
        QTest::keyClick(view, Qt::Key_Return);
        QTreeView* findings = window.detailsPanel()->findingsView();
        QTRY_VERIFY(findings->hasFocus());
        QVERIFY(preview.count() > 0 || preview.wait(5000));
        int positioned = -1;
        for (int r = 0; r < findings->model()->rowCount() && positioned < 0; ++r)
            if (findings->model()->index(r, 0).data(FindingsModel::LineRole).toInt() > 0)
                positioned = r;
        QVERIFY(positioned >= 0);
        findings->setCurrentIndex(findings->model()->index(positioned, 0));
        QTest::keyClick(findings, Qt::Key_Return);
        QCOMPARE(window.preview()->highlightedLine(),
                 findings->model()->index(positioned, 0).data(FindingsModel::LineRole).toInt());
        // The arrow keys move the highlight along with the current finding, no Enter needed.
        const auto lineAt = [&](int row) {
            return findings->model()->index(row, 0).data(FindingsModel::LineRole).toInt();
        };
        int next = -1;
        for (int r = positioned + 1; r < findings->model()->rowCount() && next < 0; ++r)
            if (lineAt(r) > 0 && lineAt(r) != lineAt(positioned))
                next = r;
        QVERIFY(next > positioned);
        for (int r = positioned; r < next; ++r)
            QTest::keyClick(findings, Qt::Key_Down);
        QCOMPARE(findings->currentIndex().row(), next);
        QCOMPARE(window.preview()->highlightedLine(), lineAt(next));
        view->setFocus();
        QTest::keyClick(view, Qt::Key_Right, Qt::ShiftModifier);
        QCOMPARE(view->selectedCells().size(), 2);
        // Both recipes are in the chooser; Ctrl+C copies both names.
        QApplication::clipboard()->clear();
        for (QAction* action : view->actions())
            if (action->shortcut() == QKeySequence::Copy)
                action->trigger();
        const QString copied = QApplication::clipboard()->text();
        QVERIFY2(copied.contains(armv9) && copied.contains("sm110-armv8_2"), qPrintable(copied));
        // Whole row by a click on its header.
        QHeaderView* rows = view->verticalHeader();
        const int row = cellOf(window, "sm120", "avx").row();
        QTest::mouseClick(rows->viewport(), Qt::LeftButton, {},
                          QPoint(rows->width() / 2,
                                 rows->sectionViewportPosition(row) + rows->sectionSize(row) / 2));
        QCOMPARE(view->selectedCells().size(), window.matrixModel()->columnCount());
        QVERIFY(window.detailsPanel()->factsText().size() > 0);
        // Accessible names of cells say row, column, slice, status and reason.
        const QString name =
            cellOf(window, "sm110", "armv9").data(Qt::AccessibleTextRole).toString();
        QVERIFY2(
            name.startsWith(QStringLiteral("sm110 \u00d7 armv9, Python 3.13, CUDA 13.0: broken, 1 "
                                           "warning \u2014 ")),
            qPrintable(name));
        // The context menu offers room for more actions.
        QMenu* offered = nullptr;
        connect(&window, &MainWindow::cellMenuAboutToShow, this,
                [&](QMenu* menu, const QModelIndexList& cells) {
                    offered = menu;
                    QTimer::singleShot(0, menu, &QMenu::close); // before a check can fail
                    QVERIFY(!cells.isEmpty());
                });
        QContextMenuEvent event(QContextMenuEvent::Keyboard, QPoint(), QPoint());
        QApplication::sendEvent(view->viewport(), &event);
        QVERIFY(offered != nullptr);
    }

    void filterHidesCells()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, dir.path()));
        QTest::keyClicks(window.filterBar()->lineEdit(), QStringLiteral("deprecated"));
        QVERIFY(cellOf(window, "sm110", "armv9").data(MatrixModel::MatchesFilterRole).toBool());
        QVERIFY(!cellOf(window, "sm120", "avx512").data(MatrixModel::MatchesFilterRole).toBool());
        QVERIFY(!cellOf(window, "sm90", "avx2").data(MatrixModel::MatchesFilterRole).toBool());
        window.filterBar()->lineEdit()->clear();
        window.filterBar()->statusButton(CellStatus::Missing)->click();
        QVERIFY(!cellOf(window, "sm90", "avx2").data(MatrixModel::MatchesFilterRole).toBool());
        QVERIFY(cellOf(window, "sm120", "avx512").data(MatrixModel::MatchesFilterRole).toBool());
    }

    void recipeRewrittenOrDeletedWhileSelected()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        MainWindow window;
        window.session()->setDebounceInterval(30);
        window.show();
        QVERIFY(openAndWait(window, dir.path()));
        QSignalSpy preview(&window, &MainWindow::previewUpdated);
        click(window, cellOf(window, "sm110", "armv9"));
        QVERIFY(preview.wait(5000));
        QVERIFY(window.detailsPanel()->factsText().contains(QString::fromLatin1(oldPin)));

        const QString path = dir.filePath(recipe(armv9.toLatin1()));
        QByteArray bytes = readAll(path);
        bytes.replace(oldPin, specPin);
        QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
        QVERIFY(writeAll(path, bytes));
        QVERIFY(changed.wait(10000));
        // Same cell, same recipe, new facts and text.
        QCOMPARE(window.detailsPanel()->currentVariantName(), armv9);
        QTRY_VERIFY_WITH_TIMEOUT(
            window.preview()->toPlainText().contains(QString::fromLatin1(specPin)), 5000);
        QVERIFY(!window.detailsPanel()->factsText().contains(QString::fromLatin1(oldPin)));
        QVERIFY(window.matrixView()->selectedCells().contains(cellOf(window, "sm110", "armv9")));

        QVERIFY(QFile::remove(path));
        QVERIFY(changed.wait(10000));
        QCOMPARE(window.detailsPanel()->currentVariantName(), armv9);
        QCOMPARE(window.detailsPanel()->currentEntry()->status, CellStatus::Missing);
        QTRY_VERIFY_WITH_TIMEOUT(!window.preview()->hasRecipe(), 5000);
        QVERIFY(window.preview()->toPlainText().contains(QStringLiteral("No recipe file")));
    }

    // The toolbar's actions are on only when they have something to act on, so a click on
    // one never does nothing; they follow the selection, a re-scan and a cell menu.
    void actionsFollowWhatTheyActOn()
    {
        MainWindow window;
        window.session()->setDebounceInterval(30);
        window.show();
        const auto enabled = [&window](const char* text) {
            const QAction* action = actionNamed(window, text);
            if (!action)
                qWarning("no action %s", text);
            return action && action->isEnabled();
        };
        const QStringList all = {"Reload",         "Build",     "Build What Needs It", "Publish",
                                 "Open in Editor", "Copy Path", "Copy Variant Name",   "Evaluate",
                                 "Evaluate Branch"};
        for (const QString& text : all)
            QVERIFY2(!enabled(qPrintable(text)), qPrintable(text + " is on with nothing open"));

        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        QVERIFY(openAndWait(window, dir.path()));
        QVERIFY(enabled("Reload"));
        QVERIFY(enabled("Build What Needs It"));
        click(window, cellOf(window, "sm110", "armv9"));
        for (const char* text : {"Build", "Open in Editor", "Copy Path", "Copy Variant Name",
                                 "Evaluate", "Evaluate Branch"})
            QVERIFY2(enabled(text), text);

        const QModelIndex missing = cellOf(window, "sm90", "avx512bf16");
        QVERIFY(missing.data(MatrixModel::PathsRole).toStringList().isEmpty());
        click(window, missing);
        for (const char* text : {"Build", "Open in Editor", "Copy Path", "Evaluate"})
            QVERIFY2(!enabled(text), text);
        QVERIFY(enabled("Copy Variant Name"));
        QVERIFY(enabled("Evaluate Branch"));

        // Only the current cell, nothing selected: Build acts on it, Evaluate on the branch.
        window.matrixView()->selectionModel()->clearSelection();
        window.matrixView()->selectionModel()->setCurrentIndex(missing,
                                                               QItemSelectionModel::NoUpdate);
        QVERIFY(window.selectedCells().isEmpty());
        QVERIFY(!enabled("Build"));
        QVERIFY(enabled("Evaluate"));
        window.matrixView()->selectionModel()->setCurrentIndex(cellOf(window, "sm110", "armv9"),
                                                               QItemSelectionModel::NoUpdate);
        QVERIFY(enabled("Build"));

        // The selected recipe deleted behind the app: the re-scan takes Build away.
        click(window, cellOf(window, "sm110", "armv9"));
        QVERIFY(enabled("Build"));
        QSignalSpy rescanned(window.session(), &RepositorySession::analysisChanged);
        QVERIFY(QFile::remove(dir.filePath(recipe(armv9.toLatin1()))));
        QVERIFY(rescanned.wait(10000));
        QVERIFY(!enabled("Build"));
        QVERIFY(!enabled("Open in Editor"));
    }

    // A repository opens on the first broken recipe, row by row, with its findings shown and the
    // actions on it ready; with none broken, on the first recipe.
    void opensOnTheFirstBrokenRecipe()
    {
        QTemporaryDir start;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), start.path()));
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, start.path()));
        const QModelIndex firstBroken = positionsWhere(window.matrixModel(), holdsBroken).value(0);
        QVERIFY(firstBroken.isValid());
        QVERIFY(firstBroken != window.matrixModel()->index(0, 0)); // else the test proves nothing
        QCOMPARE(window.matrixView()->currentIndex(), firstBroken);
        // The details show the broken recipe, also where it stands beside the cell's missing one.
        QVERIFY2(showsBrokenRecipe(window),
                 qPrintable(window.detailsPanel()->currentVariantName()));
        QVERIFY(actionNamed(window, "Build")->isEnabled());

        QTemporaryDir target;
        QVERIFY(copyFixture(QStringLiteral("seed001-target"), target.path()));
        // Without the first row's recipes (sm121's), so that the first recipe is not the first
        // cell.
        QDir recipes(target.filePath(QStringLiteral(".flox/pkgs")));
        for (const QString& file :
             recipes.entryList({QStringLiteral("pytorch-python313-cuda13_0-sm121-*.nix")}))
            QVERIFY(recipes.remove(file));
        // A fresh window: one that had a repository open keeps its selected cells.
        MainWindow second;
        second.show();
        QVERIFY(openAndWait(second, target.path()));
        QVERIFY(positionsWhere(second.matrixModel(), holdsBroken).isEmpty());
        const QModelIndex firstRecipe = positionsWhere(second.matrixModel(), holdsRecipe).value(0);
        QVERIFY(firstRecipe.isValid() && firstRecipe != second.matrixModel()->index(0, 0));
        QCOMPARE(second.matrixView()->currentIndex(), firstRecipe);
        QVERIFY(!actionNamed(second, "Next Broken Recipe")->isEnabled()); // nothing to go to
    }

    // F8 goes from broken recipe to broken recipe row by row, round to the first after the last;
    // Shift+F8 goes back.
    void f8StepsThroughBrokenRecipes()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        MainWindow window;
        window.show();
        window.activateWindow(); // shortcuts reach the active window only
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(openAndWait(window, dir.path()));
        const QModelIndexList broken = positionsWhere(window.matrixModel(), holdsBroken);
        QVERIFY2(broken.size() >= 3, qPrintable(QString::number(broken.size())));
        QCOMPARE(window.matrixView()->currentIndex(), broken.first());
        QVERIFY(actionNamed(window, "Next Broken Recipe")->isEnabled());
        window.matrixView()->setFocus();
        for (int step = 1; step <= broken.size(); ++step) {
            QTest::keyClick(window.matrixView(), Qt::Key_F8);
            QCOMPARE(window.matrixView()->currentIndex(), broken.value(step % broken.size()));
            QVERIFY2(showsBrokenRecipe(window),
                     qPrintable(window.detailsPanel()->currentVariantName()));
        }
        QTest::keyClick(window.matrixView(), Qt::Key_F8, Qt::ShiftModifier);
        QCOMPARE(window.matrixView()->currentIndex(), broken.last());
        // From a cell clicked, Shift+F8 finds the broken recipe before it.
        window.matrixView()->setCurrentIndex(broken[1]);
        QTest::keyClick(window.matrixView(), Qt::Key_F8, Qt::ShiftModifier);
        QCOMPARE(window.matrixView()->currentIndex(), broken[0]);
    }

    // Cells are named by path, cell key or variant name alike, and the selection stays on its
    // cells when a re-scan moves them to other rows.
    void selectionFollowsItsCells()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        MainWindow window;
        window.session()->setDebounceInterval(30);
        window.show();
        QVERIFY(openAndWait(window, dir.path()));
        const char* avx = "pytorch-python313-cuda13_0-sm120-avx";
        QVERIFY(window.selectCell(CellSelector(recipe(avx))));
        QCOMPARE(window.matrixView()->currentIndex(), cellOf(window, "sm120", "avx"));
        QCOMPARE(window.detailsPanel()->currentVariantName(), QString::fromLatin1(avx));
        QVERIFY(window.selectCell(CellSelector("pytorch:python313-cuda13_0-sm110-armv9")));
        QCOMPARE(window.matrixView()->currentIndex(), cellOf(window, "sm110", "armv9"));
        QVERIFY(!window.selectCell(CellSelector("pytorch:python313-cuda13_0-sm999-avx")));

        QItemSelection both(cellOf(window, "sm110", "armv9"), cellOf(window, "sm110", "armv9"));
        both.select(cellOf(window, "sm120", "avx512"), cellOf(window, "sm120", "avx512"));
        window.matrixView()->selectionModel()->select(both, QItemSelectionModel::ClearAndSelect);
        const int armColumn = cellOf(window, "sm110", "armv9").column();
        // The avx column, first of all, holds only the sm120 recipe: without it every
        // selected position moves left. A Python 3.12 recipe makes a slice that is not shown.
        const QByteArray bytes = readAll(dir.filePath(recipe(avx)));
        QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
        QVERIFY(QFile::remove(dir.filePath(recipe(avx))));
        QVERIFY(writeAll(dir.filePath(recipe("pytorch-python312-cuda13_0-sm120-avx2")), bytes));
        QTRY_VERIFY_WITH_TIMEOUT(!cellOf(window, "sm120", "avx").isValid(), 10000);
        QCOMPARE(cellOf(window, "sm110", "armv9").column(), armColumn - 1);
        const QModelIndexList selected = window.matrixView()->selectedCells();
        QCOMPARE(selected.size(), 2);
        QVERIFY(selected.contains(cellOf(window, "sm110", "armv9")));
        QVERIFY(selected.contains(cellOf(window, "sm120", "avx512")));

        // A recipe of a slice not shown brings its slice.
        QCOMPARE(window.shownSlices().front().python, std::string("313"));
        QVERIFY(window.selectCell(CellSelector("pytorch-python312-cuda13_0-sm120-avx2")));
        QCOMPARE(window.shownSlices().front().python, std::string("312"));
        QCOMPARE(window.detailsPanel()->currentVariantName(),
                 QStringLiteral("pytorch-python312-cuda13_0-sm120-avx2"));
    }

    void unreadableRecipeIsShownAsSuch()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        MainWindow window;
        window.session()->setDebounceInterval(60000); // the file vanishes before any re-scan
        window.show();
        QVERIFY(openAndWait(window, dir.path()));
        QVERIFY(QFile::remove(dir.filePath(recipe(armv9.toLatin1()))));
        QSignalSpy preview(&window, &MainWindow::previewUpdated);
        click(window, cellOf(window, "sm110", "armv9"));
        QVERIFY(preview.wait(5000));
        QVERIFY(!window.preview()->hasRecipe());
        QVERIFY2(
            window.preview()->toPlainText().contains(QStringLiteral("Cannot read this recipe")),
            qPrintable(window.preview()->toPlainText()));
    }

    void folderWithoutRecipesShowsWhatIsLookedFor()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, dir.path()));
        QVERIFY(!window.isShowingGrid());
        QCOMPARE(window.emptyState()->title(), QStringLiteral("No recipes here"));
        QVERIFY(window.emptyState()->message().contains(QStringLiteral(".flox/pkgs/*.nix")));
        // Every line of it is on screen: the example name and what to do came last, and a
        // label sized for a guessed width cut them off.
        QLabel* message = messageLabel(*window.emptyState());
        QVERIFY(message);
        QTRY_VERIFY(message->height() >= message->heightForWidth(message->width()));
        QVERIFY2(message->heightForWidth(message->width()) > 4 * message->fontMetrics().height(),
                 "the text is expected to wrap onto more than four lines");
        // Nothing was found to infer a spec from: no banner about an inferred spec.
        QVERIFY(!window.banner()->isVisibleTo(&window));
        // A path that is no folder at all: an error, no crash, nothing opened.
        window.openRepository(dir.filePath(QStringLiteral("missing")));
        QVERIFY(window.banner()->isVisibleTo(&window));
        QVERIFY2(window.banner()->text().contains(QStringLiteral("missing")),
                 qPrintable(window.banner()->text()));
        QVERIFY(!window.isShowingGrid());
    }

    void malformedSpecShowsItsPosition()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        // A comma lost at the end of line 5: the parser stops at line 6.
        QByteArray spec = readAll(dir.filePath(".flox/recipegrid.json"));
        QCOMPARE(spec.split('\n').value(4).trimmed(), QByteArray("\"torchVersion\": \"2.10.0\","));
        spec.replace("\"2.10.0\",", "\"2.10.0\"");
        QVERIFY(writeAll(dir.filePath(".flox/recipegrid.json"), spec));
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, dir.path()));
        QVERIFY(window.isShowingGrid());
        QVERIFY(window.banner()->isVisibleTo(&window));
        QCOMPARE(window.banner()->kind(), MessageBanner::Kind::Error);
        QVERIFY2(window.banner()->text().contains(QStringLiteral(".flox/recipegrid.json:6:")),
                 qPrintable(window.banner()->text()));
    }

    // Seed 001's spec asks for sm110 and sm121 with x86 ISAs: the window says so above the grid,
    // where a spec's other troubles show, and the cells stay missing.
    void aSpecAskingForWhatCannotWorkIsSaid()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, dir.path()));
        QVERIFY(window.banner()->isVisibleTo(&window));
        QCOMPARE(window.banner()->kind(), MessageBanner::Kind::Warning);
        QVERIFY2(window.banner()->text().startsWith(
                     QStringLiteral("The spec asks for pytorch-python313-cuda13_0-sm110-avx2, "
                                    "which cannot work: sm110 (NVIDIA DRIVE Thor) is an ARM SoC; "
                                    "avx2 is an x86 ISA (it stays expected), and 7 more like it.")),
                 qPrintable(window.banner()->text()));
        QVERIFY(window.selectCell(CellSelector("pytorch-python313-cuda13_0-sm121-avx2")));
        QCOMPARE(window.matrixView()->currentIndex().data(MatrixModel::StatusesRole).toList(),
                 QVariantList{int(CellStatus::Missing)});
        const QString cannotWork = QStringLiteral(
            "Cannot work: sm121 (NVIDIA DGX Spark (GB10)) is an ARM SoC; avx2 is an x86 ISA. The "
            "spec asks for it.");
        QVERIFY2(window.detailsPanel()->factsText().contains(cannotWork),
                 qPrintable(window.detailsPanel()->factsText()));
        QVERIFY(window.selectCell(CellSelector("pytorch-python313-cuda13_0-sm121-armv9")));
        QVERIFY(!window.detailsPanel()->factsText().contains(QStringLiteral("Cannot work")));

        // Without those asks, the banner goes.
        QByteArray spec = readAll(dir.filePath(".flox/recipegrid.json"));
        QVERIFY(spec.contains("\"sm110\", \"sm120\", \"sm121\""));
        spec.replace("\"sm110\", \"sm120\", \"sm121\"", "\"sm120\"");
        QVERIFY(writeAll(dir.filePath(".flox/recipegrid.json"), spec));
        QVERIFY(openAndWait(window, dir.path()));
        QVERIFY2(!window.banner()->isVisibleTo(&window), qPrintable(window.banner()->text()));
    }

    void dropFolderAndSettings()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        {
            MainWindow window;
            window.show();
            QMimeData mime;
            mime.setUrls({QUrl::fromLocalFile(dir.path())});
            QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, {});
            QApplication::sendEvent(&window, &enter);
            QVERIFY(enter.isAccepted());
            QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
            QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, {});
            QApplication::sendEvent(&window, &drop);
            QVERIFY(changed.wait(10000));
            QCOMPARE(window.session()->rootPath(),
                     QDir::cleanPath(QFileInfo(dir.path()).absoluteFilePath()));
            QVERIFY(window.isShowingGrid());
            window.close(); // saves geometry, dock layout and slices
        }
        QSettings settings;
        QVERIFY(settings.value("recentRepositories")
                    .toStringList()
                    .contains(QDir::cleanPath(dir.path())));
        QVERIFY(!settings.value("window/state").toByteArray().isEmpty());
        QCOMPARE(settings.value("grid/slices").toStringList(), QStringList{"313/13.0"});
        MainWindow again;
        QVERIFY(again.findChild<EmptyStatePage*>()->findChild<QListWidget*>() != nullptr);
    }

    // A recent repository whose folder is gone leaves File > Open Recent, the welcome page and
    // the settings once opening it fails; one that fails to open but is there stays.
    void aVanishedRecentRepositoryLeavesTheList()
    {
        auto gone = std::make_unique<QTemporaryDir>();
        QTemporaryDir parent;
        const QString kept = parent.filePath(QStringLiteral("kept"));
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), gone->path()));
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), kept));
        const QString gonePath = QDir::cleanPath(gone->path());
        QSettings().remove(QStringLiteral("recentRepositories")); // earlier tests opened others
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, kept));
        QVERIFY(openAndWait(window, gonePath));
        QMenu* recentMenu = nullptr;
        for (QMenu* menu : window.findChildren<QMenu*>())
            if (menu->title() == QStringLiteral("Open &Recent"))
                recentMenu = menu;
        QVERIFY(recentMenu);
        const auto inMenu = [&] {
            QStringList paths;
            for (const QAction* action : recentMenu->actions())
                paths << action->text();
            return paths;
        };
        const auto onWelcomePage = [&] {
            const QListWidget* list = window.emptyState()->findChild<QListWidget*>();
            QStringList paths;
            for (int i = 0; i < list->count(); ++i)
                paths << list->item(i)->text();
            return paths;
        };
        const auto open = [&](const QString& path) {
            for (QAction* action : recentMenu->actions())
                if (action->text() == path)
                    return action->trigger(), true;
            return false;
        };
        QCOMPARE(inMenu(), (QStringList{gonePath, kept}));
        QCOMPARE(onWelcomePage(), inMenu());

        // `kept` is a file now: not a folder, but there; the user may put it right.
        QVERIFY(QDir(kept).removeRecursively());
        QVERIFY(writeAll(kept, "not a folder"));
        QVERIFY(open(kept));
        QVERIFY(window.banner()->text().contains(QStringLiteral("not a folder")));
        QCOMPARE(inMenu(), (QStringList{gonePath, kept}));

        gone.reset();
        QVERIFY(open(gonePath));
        QVERIFY2(window.banner()->text().contains(QStringLiteral("no such folder")),
                 qPrintable(window.banner()->text()));
        QCOMPARE(inMenu(), QStringList{kept});
        QCOMPARE(onWelcomePage(), QStringList{kept});
        window.close(); // waits for the settings to be written
        const QStringList stored = QSettings().value("recentRepositories").toStringList();
        QCOMPARE(stored.value(0), kept);
        QVERIFY(!stored.contains(gonePath));
    }

    // A recipe that does not parse: the preview shows its text as it is, and its finding says
    // where, which the preview highlights when clicked.
    void syntaxErrorShownInThePreview()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        const QString file = dir.filePath(recipe(armv9.toLatin1()));
        QByteArray bytes = readAll(file);
        QVERIFY(bytes.contains("\n  gpuArchNum = \"110\";\n")); // line 16
        bytes.replace("\n  gpuArchNum = \"110\";\n", "\n  gpuArchNum = ;\n");
        QVERIFY(writeAll(file, bytes));
        MainWindow window;
        window.resize(1500, 920);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openAndWait(window, dir.path()));
        QSignalSpy preview(&window, &MainWindow::previewUpdated);
        click(window, cellOf(window, "sm110", "armv9"));
        QCOMPARE(window.detailsPanel()->currentEntry()->status, CellStatus::Broken);
        QVERIFY(preview.count() > 0 || preview.wait(5000));
        QVERIFY(window.preview()->hasRecipe());
        QCOMPARE(window.preview()->toPlainText(), QString::fromUtf8(bytes));

        QTreeView* findings = window.detailsPanel()->findingsView();
        QModelIndex syntax;
        for (int r = 0; r < findings->model()->rowCount(); ++r)
            if (findings->model()->index(r, 0).data(FindingsModel::RuleRole).toString() ==
                QStringLiteral("syntax-error"))
                syntax = findings->model()->index(r, FindingsModel::MessageColumn);
        QVERIFY2(syntax.isValid(), qPrintable(window.detailsPanel()->factsText()));
        QCOMPARE(syntax.data(FindingsModel::FileRole).toString(),
                 QString::fromLatin1(recipe(armv9.toLatin1())));
        QCOMPARE(syntax.data(FindingsModel::LineRole).toInt(), 16);
        QVERIFY2(syntax.data().toString().startsWith(QStringLiteral("syntax error at 16:")),
                 qPrintable(syntax.data().toString()));
        QVERIFY(syntax.siblingAtColumn(FindingsModel::LocationColumn)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("16:")));
        findings->scrollTo(syntax);
        QTest::mouseClick(findings->viewport(), Qt::LeftButton, {},
                          findings->visualRect(syntax).center());
        QCOMPARE(window.preview()->highlightedLine(), 16);
    }

    // File › Open asks for a folder and opens it; the next window's welcome page lists it
    // among the recent repositories, and activating an entry opens that one.
    void fileOpenAndTheRecentList()
    {
        isolateSettings(); // a new user: no recent repository from the tests before
        QApplication::setAttribute(Qt::AA_DontUseNativeDialogs); // a dialog the test can fill
        QTemporaryDir dir;
        const QString first = QDir::cleanPath(dir.filePath(QStringLiteral("first")));
        const QString second = QDir::cleanPath(dir.filePath(QStringLiteral("second")));
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), first));
        QVERIFY(copyFixture(QStringLiteral("seed000"), second));
        {
            MainWindow window;
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QAction* open = fileAction(window, QKeySequence::Open);
            QVERIFY(open);
            for (const QString& path : {first, second}) {
                bool answered = false;
                QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
                answerFolderDialog(&window, path, &answered);
                open->trigger();
                QVERIFY(answered);
                QVERIFY(changed.count() > 0 || changed.wait(10000));
                QCOMPARE(window.session()->rootPath(), path);
                QVERIFY(window.isShowingGrid());
            }
            QVERIFY(window.close());
        }
        MainWindow again;
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QVERIFY(!again.isShowingGrid());
        auto* recent = again.emptyState()->findChild<QListWidget*>();
        QVERIFY(recent && recent->isVisible());
        QCOMPARE(recent->count(), 2);
        QCOMPARE(recent->item(0)->text(), second); // newest first
        QListWidgetItem* older = recent->item(1);
        QCOMPARE(older->text(), first);
        QSignalSpy changed(again.session(), &RepositorySession::analysisChanged);
        const QPoint at = recent->visualItemRect(older).center();
        QTest::mouseClick(recent->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseDClick(recent->viewport(), Qt::LeftButton, {}, at);
        QVERIFY(changed.wait(10000));
        QCOMPARE(again.session()->rootPath(), first);
        QVERIFY(again.isShowingGrid());
        QCOMPARE(again.summaryText().left(12), QStringLiteral("44 expected ")); // seed001-start
    }

    // Without a spec: a hole among the demo's recipes is a gap, a deprecated attribute is a
    // warning on an ok cell; the filter bar, the details and the grid say so.
    void specLessRepositoryShowsGapsAndWarnings()
    {
        QTemporaryDir dir;
        const QString from =
            QStringLiteral(":/demo/repository/.flox/pkgs/pytorch-python313-cuda13_0-");
        for (const char* cell :
             {"sm90-avx2", "sm90-avx512", "sm89-avx512", "sm120-avx2", "sm120-avx512"}) {
            const QString name = QStringLiteral("pytorch-python313-cuda13_0-%1.nix").arg(cell);
            QVERIFY(writeAll(dir.filePath(".flox/pkgs/" + name),
                             readAll(from + QString::fromLatin1(cell) + ".nix")));
        }
        const QString deprecated = dir.filePath(recipe("pytorch-python313-cuda13_0-sm90-avx512"));
        QByteArray bytes = readAll(deprecated);
        QVERIFY(bytes.contains("python3Packages.torch.override"));
        bytes.replace("python3Packages.torch.override", "python3Packages.pytorch.override");
        QVERIFY(writeAll(deprecated, bytes));

        MainWindow window;
        window.resize(1500, 920);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openAndWait(window, dir.path()));
        QCOMPARE(window.summaryText(), QStringLiteral("5 expected (5 ok) \u00b7 1 gap "
                                                      "\u00b7 1 with warnings"));
        QVERIFY(window.banner()->text().contains(QStringLiteral("gaps")));

        const QModelIndex gap = cellOf(window, "sm89", "avx2");
        QCOMPARE(gap.data(MatrixModel::StatusesRole).toList(), QVariantList{int(CellStatus::Gap)});
        const QModelIndex warned = cellOf(window, "sm90", "avx512");
        QCOMPARE(warned.data(MatrixModel::StatusesRole).toList(),
                 QVariantList{int(CellStatus::Ok)});
        QCOMPARE(warned.data(MatrixModel::WarningCountsRole).toList(), QVariantList{1});
        QVERIFY2(warned.data(Qt::AccessibleTextRole)
                     .toString()
                     .contains(QStringLiteral("ok, 1 warning: deprecated pytorch attribute")),
                 qPrintable(warned.data(Qt::AccessibleTextRole).toString()));

        // Toggles for what is there: gap and warnings; none for statuses nobody has.
        FilterBar* bar = window.filterBar();
        QCOMPARE(bar->statusButton(CellStatus::Gap)->text(), QStringLiteral("1 gap"));
        QVERIFY(!bar->statusButton(CellStatus::Gap)->isHidden());
        QVERIFY(bar->statusButton(CellStatus::Broken)->isHidden());
        QCOMPARE(bar->warningsButton()->text(), QStringLiteral("1 with warnings"));
        bar->warningsButton()->click();
        QVERIFY(window.matrixModel()->warningsOnly());
        QVERIFY(warned.data(MatrixModel::MatchesFilterRole).toBool());
        QVERIFY(!cellOf(window, "sm90", "avx2").data(MatrixModel::MatchesFilterRole).toBool());
        QVERIFY(!gap.data(MatrixModel::MatchesFilterRole).toBool());
        bar->warningsButton()->click();
        bar->statusButton(CellStatus::Gap)->click();
        QVERIFY(!gap.data(MatrixModel::MatchesFilterRole).toBool());
        QVERIFY(warned.data(MatrixModel::MatchesFilterRole).toBool());
        bar->statusButton(CellStatus::Gap)->click();

        // The details read the facts by flow and name the recipe's group.
        QSignalSpy preview(&window, &MainWindow::previewUpdated);
        QVERIFY(window.selectCell(CellSelector("pytorch-python313-cuda13_0-sm90-avx512")));
        QVERIFY(preview.count() > 0 || preview.wait(5000));
        const QString facts = window.detailsPanel()->factsText();
        QVERIFY2(facts.contains(QStringLiteral("gpuTargets \u2190 \"9.0\" via gpuArchSM (line ")),
                 qPrintable(facts));
        QVERIFY(facts.contains(QStringLiteral("1 warning")));
        QVERIFY(facts.contains(QStringLiteral("enables ")));
        QVERIFY(facts.contains(QStringLiteral("pytorch \u00b7 CUDA 13.0")));
        QVERIFY(facts.contains(QStringLiteral("canonical")));

        // A gap is a suggestion, not something a spec expects.
        preview.clear();
        QVERIFY(window.selectCell(CellSelector("pytorch-python313-cuda13_0-sm89-avx2")));
        QVERIFY(preview.count() > 0 || preview.wait(5000));
        const QString gapFacts = window.detailsPanel()->factsText();
        QVERIFY2(gapFacts.contains(QStringLiteral("the recipes around it suggest")),
                 qPrintable(gapFacts));
        QVERIFY(!gapFacts.contains(QStringLiteral("spec expects")));
        QVERIFY(!gapFacts.contains(QStringLiteral("Not in the matrix spec")));
        QVERIFY(window.preview()->toPlainText().contains(QStringLiteral("No spec asks for it")));
        QVERIFY(window.selectCell(CellSelector("pytorch-python313-cuda13_0-sm90-avx512")));

        // The grid shows both: the amber sign and the gap's colour.
        const QImage grid = window.matrixView()->viewport()->grab().toImage();
        int amber = 0, gapColour = 0;
        const QColor warningColor = StatusStyle::warningColor(window.palette());
        const QColor gapColor = StatusStyle::color(CellStatus::Gap, window.palette());
        for (int y = 0; y < grid.height(); ++y)
            for (int x = 0; x < grid.width(); ++x) {
                const QColor c = grid.pixelColor(x, y);
                const auto near = [&](const QColor& o) {
                    return std::abs(c.red() - o.red()) + std::abs(c.green() - o.green()) +
                               std::abs(c.blue() - o.blue()) <
                           30;
                };
                amber += near(warningColor) ? 1 : 0;
                gapColour += near(gapColor) ? 1 : 0;
            }
        QVERIFY(amber > 12);
        QVERIFY(gapColour > 20);
        const QString png = QStringLiteral(RG_BINARY_DIR "/screenshots/spec-less-window.png");
        QDir().mkpath(QFileInfo(png).absolutePath());
        QVERIFY(window.grab().save(png));
        // The facts in full, scrolled out of view or not, for a look at the rows by flow.
        for (QLabel* label : window.detailsPanel()->findChildren<QLabel*>())
            if (label->accessibleName() == QStringLiteral("Recipe facts"))
                QVERIFY(label->grab().save(
                    QStringLiteral(RG_BINARY_DIR "/screenshots/spec-less-facts.png")));
    }

    // A branch without a spec whose torchvision/torchaudio recipes sit beside pytorch: the
    // status bar and the Branches dock say the same, and their numbers add up.
    void countsAddUpInTheSummaryAndTheBranchesDock()
    {
        TestRepository repo;
        repo.commitFixture(QStringLiteral(RG_FIXTURES_DIR "/realworld/companion"),
                           QStringLiteral("companions"));
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openAndWait(window, repo.root()));
        const QString summary =
            QString::fromUtf8("3 expected (3 ok) \u00b7 3 not expected (2 ok \u00b7 1 broken)");
        QVERIFY2(window.summaryText().startsWith(summary), qPrintable(window.summaryText()));

        BranchOverviewModel* branches = window.branchModel();
        QTRY_VERIFY_WITH_TIMEOUT(branches->rowCount() == 1 && !branches->isLoading(), 10000);
        int expectedColumn = -1;
        int outsideColumn = -1;
        int statusTotal = 0;
        for (int column = 0; column < branches->columnCount(); ++column) {
            const QString header = branches->headerData(column, Qt::Horizontal).toString();
            const int value = branches->index(0, column).data().toInt();
            if (header == QStringLiteral("expected"))
                expectedColumn = column;
            else if (header == QStringLiteral("not expected"))
                outsideColumn = column;
            else if (column != BranchOverviewModel::BranchColumn)
                statusTotal += value; // every status column, gaps included
            QVERIFY2(
                !branches->headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty(),
                qPrintable(header)); // each column says which cells it counts
        }
        QVERIFY(expectedColumn > 0);
        QVERIFY2(outsideColumn > 0, "no column for the recipes outside the expected matrix");
        const int expected = branches->index(0, expectedColumn).data().toInt();
        const int outside = branches->index(0, outsideColumn).data().toInt();
        QCOMPARE(expected, 3);
        QCOMPARE(outside, 3);
        const std::shared_ptr<const Analysis> analysis = window.session()->analysis();
        int gaps = 0;
        for (const Cell& entry : analysis->cells)
            gaps += entry.status == CellStatus::Gap ? 1 : 0;
        QCOMPARE(statusTotal, expected + outside + gaps);
        QVERIFY2(branches->index(0, 0).data(Qt::ToolTipRole).toString().contains(summary),
                 qPrintable(branches->index(0, 0).data(Qt::ToolTipRole).toString()));
    }

    // The Branches dock says why it has no rows: a folder outside git, a repository whose
    // branch has no commit yet; it lists the branch once there is one.
    void branchesDockSaysWhyItIsEmpty()
    {
        TestRepository repo;
        repo.copyFrom(QStringLiteral(RG_FIXTURES_DIR "/seed001-start"));
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openAndWait(window, repo.root()));
        BranchOverviewModel* branches = window.branchModel();
        QCOMPARE(branches->rowCount(), 0);
        QVERIFY2(branches->emptyText().contains(QStringLiteral("not in a git repository")),
                 qPrintable(branches->emptyText()));
        auto* view = window.findChild<BranchOverviewView*>();
        QVERIFY(view);
        view->parentWidget()->raise();
        const QImage shown = view->viewport()->grab().toImage();
        const QRgb base = view->palette().color(QPalette::Base).rgb();
        int written = 0;
        for (int y = 0; y < shown.height(); ++y)
            for (int x = 0; x < shown.width(); ++x)
                written += shown.pixel(x, y) != base ? 1 : 0;
        QVERIFY2(written > 100, qPrintable(QString::number(written))); // the text is drawn

        repo.git({QStringLiteral("init"), QStringLiteral("-q")});
        QVERIFY(openAndWait(window, repo.root()));
        QTRY_VERIFY2_WITH_TIMEOUT(
            branches->emptyText().contains(QStringLiteral("has a commit yet")),
            qPrintable(branches->emptyText()), 10000);

        repo.commitAll(QStringLiteral("start"));
        QVERIFY(openAndWait(window, repo.root()));
        QTRY_COMPARE_WITH_TIMEOUT(branches->rowCount(), 1, 10000);
        QVERIFY(branches->emptyText().isEmpty());
    }

    // Listing a repository's branches reads its refs, so it happens off the GUI thread: when
    // setRepository returns, the model has no rows yet and says it is listing.
    void branchesAreListedOffTheGuiThread()
    {
        TestRepository repo;
        repo.commitFixture(QStringLiteral(RG_FIXTURES_DIR "/seed001-start"),
                           QStringLiteral("start"));
        repo.git({QStringLiteral("branch"), QStringLiteral("second")});
        BranchOverviewModel branches;
        QAbstractItemModelTester tester(&branches,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy finished(&branches, &BranchOverviewModel::loadingFinished);
        branches.setRepository(repo.root());
        QCOMPARE(branches.rowCount(), 0);
        QVERIFY(branches.isLoading());
        QVERIFY2(branches.emptyText().startsWith(QStringLiteral("Listing the branches of ")),
                 qPrintable(branches.emptyText()));
        QVERIFY(finished.wait(10000));
        QCOMPARE(branches.rowCount(), 2);
        QVERIFY(!branches.isLoading());
        QVERIFY(branches.emptyText().isEmpty());

        // What git says when it cannot list them is kept for the dock to show.
        branches.setRepository(repo.root() + QStringLiteral("/no-such-folder"));
        QVERIFY(finished.wait(10000));
        QCOMPARE(branches.rowCount(), 0);
        QVERIFY2(branches.emptyText().contains(QStringLiteral("cannot be listed")),
                 qPrintable(branches.emptyText()));
    }

    // Opening another repository does not wait for the previous one's branches, here stuck in
    // git's listing of the first.
    void reopeningDoesNotWaitForTheOldListing()
    {
        TestRepository stuck;
        stuck.commitFixture(QStringLiteral(RG_FIXTURES_DIR "/seed001-start"),
                            QStringLiteral("start"));
        StuckRefs refs(stuck.root());
        QVERIFY(refs.isValid());
        TestRepository other;
        other.commitFixture(QStringLiteral(RG_FIXTURES_DIR "/seed001-target"),
                            QStringLiteral("target"));
        other.git({QStringLiteral("branch"), QStringLiteral("second")});

        BranchOverviewModel branches;
        QSignalSpy finished(&branches, &BranchOverviewModel::loadingFinished);
        const bool promptly = returnsWithin(10, refs, [&] {
            branches.setRepository(stuck.root());
            branches.setRepository(other.root());
        });
        refs.release();
        QVERIFY2(promptly, "opening the second repository waited for the first's git");
        QVERIFY(finished.wait(20000));
        QCOMPARE(branches.repositoryPath(), other.root());
        QCOMPARE(branches.rowCount(), 2);
        QCOMPARE(finished.size(), 1); // the first repository's rows never came
    }

    // A key that two of the window's actions share does neither: Qt calls it ambiguous and
    // drops it (Ctrl+E was Open in Editor's and Evaluate's).
    void noTwoActionsShareAKey()
    {
        MainWindow window;
        window.show();
        QMap<QString, QStringList> owners;
        for (const QAction* action : window.findChildren<QAction*>())
            if (action->shortcutContext() == Qt::WindowShortcut ||
                action->shortcutContext() == Qt::ApplicationShortcut)
                for (const QKeySequence& key : action->shortcuts())
                    owners[key.toString()] << action->text().remove(QLatin1Char('&'));
        QVERIFY(owners.size() > 10);
        for (auto it = owners.cbegin(); it != owners.cend(); ++it)
            QVERIFY2(it.value().size() == 1,
                     qPrintable(it.key() + QStringLiteral(": ") + it.value().join(u", ")));
    }

    // Within a menu, a mnemonic (the underlined letter) that two items share only moves
    // between them: Alt+letter no longer triggers either.
    void noTwoItemsOfAMenuShareAMnemonic()
    {
        MainWindow window;
        window.show();
        QStringList shared;
        const auto check = [&shared](const QList<QAction*>& actions, const QString& where) {
            QMap<QChar, QStringList> owners;
            for (const QAction* action : actions) {
                const QString text = action->text();
                const qsizetype at = text.indexOf(QRegularExpression(QStringLiteral("&[^&]")));
                if (at >= 0)
                    owners[text.at(at + 1).toLower()] << text;
            }
            for (auto it = owners.cbegin(); it != owners.cend(); ++it)
                if (it.value().size() > 1)
                    shared << where + QStringLiteral(": ") + it.value().join(u", ");
        };
        check(window.menuBar()->actions(), QStringLiteral("menu bar"));
        int menus = 0;
        for (const QAction* entry : window.menuBar()->actions())
            if (entry->menu()) {
                ++menus;
                check(entry->menu()->actions(), entry->text());
            }
        QVERIFY(menus >= 5);

        // A cell's menu holds the grid's, the builds' and the change sets' items together.
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        QVERIFY(openAndWait(window, dir.path()));
        int cellMenus = 0;
        connect(&window, &MainWindow::cellMenuAboutToShow, this, [&](QMenu* menu) {
            ++cellMenus;
            QTimer::singleShot(0, menu, [&check, menu] {
                const QList<QAction*> items = menu->actions();
                menu->close(); // first: a failed check must not leave the menu waiting
                QVERIFY(items.size() >= 6);
                check(items, QStringLiteral("cell menu"));
            });
        });
        for (const QModelIndex& cell :
             {cellOf(window, "sm90", "avx512bf16"), cellOf(window, "sm110", "armv9")}) {
            window.matrixView()->setCurrentIndex(cell);
            QContextMenuEvent event(QContextMenuEvent::Keyboard, QPoint(), QPoint());
            QApplication::sendEvent(window.matrixView()->viewport(), &event);
        }
        QCOMPARE(cellMenus, 2);
        QVERIFY2(shared.isEmpty(), qPrintable(shared.join(u"; ")));
    }

    // About names the highlighter the preview really has: the one found on the preview's
    // document, told by its class, not what the product says it would pick.
    void aboutNamesTheHighlighter()
    {
        MainWindow window;
        window.preview()->showRecipe(
            QStringLiteral("pkgs/x.nix"),
            "{ pkgs }:\n# a comment\npkgs.hello.override { x = \"s\"; }\n");
        const QList<QSyntaxHighlighter*> highlighters =
            window.preview()->document()->findChildren<QSyntaxHighlighter*>();
        QCOMPARE(highlighters.size(), 1);
        const QString className =
            QString::fromLatin1(highlighters.front()->metaObject()->className());
        // It highlights: the comment line is formatted.
        QVERIFY(!window.preview()->document()->findBlockByNumber(1).layout()->formats().isEmpty());
        QString expected;
        if (className == QLatin1String("rg::NixHighlighter")) {
            expected = QStringLiteral("built-in Nix highlighter");
        } else {
#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
            auto* ksyntax =
                qobject_cast<KSyntaxHighlighting::SyntaxHighlighter*>(highlighters.front());
            QVERIFY2(ksyntax, qPrintable(className));
            QCOMPARE(ksyntax->definition().name(), QStringLiteral("Nix"));
            // The library by name and version, as the build found it (6.x from KF6).
            expected = QStringLiteral("KSyntaxHighlighting " RG_KSYNTAXHIGHLIGHTING_VERSION
                                      " (Nix definition)");
            QVERIFY(QStringLiteral(RG_KSYNTAXHIGHLIGHTING_VERSION)
                        .contains(QRegularExpression(QStringLiteral("^[56]\\.[0-9]+\\.[0-9]+$"))));
#else
            QFAIL(qPrintable(QStringLiteral("the preview has a highlighter of an unknown class: ") +
                             className));
#endif
        }
        AboutDialog dialog;
        QVERIFY2(dialog.text().contains(expected.toHtmlEscaped()),
                 qPrintable(className + QStringLiteral(": ") + dialog.text()));
        QVERIFY(dialog.text().contains(QStringLiteral(RG_VERSION)));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
