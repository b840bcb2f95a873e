// Change sets from the window, as a user makes them: click a missing cell, Create Recipe from
// its context menu, review, Apply, see the cell turn ok; Undo; delete a redundant recipe with
// the Delete key; complete the whole matrix; undo refused when a file changed since; commit
// after applying in a git work tree. Real files in a temporary copy of seed001-start.

#include "../recipes/testrepository.h"
#include "analysis/matrixcounts.h"
#include "changeactions.h"
#include "changesetreviewdialog.h"
#include "diffview.h"
#include "guitestsupport.h"
#include "itemmodels/branchoverviewmodel.h"
#include "itemmodels/matrixmodel.h"
#include "mainwindow.h"
#include "matrixview.h"
#include "messagebanner.h"
#include "sessions/changesession.h"
#include "sessions/repositorysession.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QMap>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QSet>
#include <QSignalSpy>
#include <QTimer>
#include <QTreeWidget>
#include <algorithm>
#include <memory>

using namespace rg;
using namespace rg::test;

namespace {

const char* const sm90avx512 = "pytorch-python313-cuda13_0-sm90-avx512";
const char* const magma = "pytorch-python313-cuda13_0-sm120-avx512-magma";
const char* const armv9 = "pytorch-python313-cuda13_0-sm110-armv9"; // broken: the pin among others
const QByteArray armv9Pin = "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3";
const QByteArray specPin = "6a030d535719c5190187c4cec156f335e95e3211";
constexpr int slowly = 30000; // planning, applying and re-scanning on a loaded CI machine

QModelIndex cellOf(MainWindow& window, const char* row, const char* column)
{
    MatrixModel* model = window.matrixModel();
    for (int r = 0; r < model->rowCount(); ++r)
        for (int c = 0; c < model->columnCount(); ++c)
            if (model->rowId(r) == row && model->columnId(c) == column)
                return model->index(r, c);
    return {};
}

// The status of the cell's first slice (seed001-start has one), NoStatus when it is empty.
int statusOf(MainWindow& window, const char* row, const char* column)
{
    const QVariantList statuses =
        cellOf(window, row, column).data(MatrixModel::StatusesRole).toList();
    return statuses.isEmpty() ? MatrixModel::NoStatus : statuses.front().toInt();
}

void click(MainWindow& window, const QModelIndex& index)
{
    MatrixView* view = window.matrixView();
    view->scrollTo(index);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(index).center());
}

bool openAndWait(MainWindow& window, const QString& path)
{
    QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
    window.openRepository(path);
    return changed.wait(10000);
}

bool activate(QWidget& window)
{
    window.activateWindow();
    return QTest::qWaitForWindowActive(&window);
}

ChangeSetReviewDialog* waitForReview()
{
    return waitForModal<ChangeSetReviewDialog>(slowly);
}

// Opens the cell's context menu with a right click and chooses the action named `objectName`
// with the keyboard; false when the menu does not offer it. `offered` gets the menu's actions.
bool chooseFromCellMenu(MainWindow& window, const QModelIndex& cell, const QString& objectName,
                        QStringList* offered = nullptr)
{
    bool found = false;
    const QMetaObject::Connection connection =
        QObject::connect(&window, &MainWindow::cellMenuAboutToShow, &window,
                         [&](QMenu* menu, const QModelIndexList&) {
                             QAction* chosen = nullptr;
                             for (QAction* action : menu->actions()) {
                                 if (offered && !action->isSeparator())
                                     offered->append(action->objectName());
                                 if (action->objectName() == objectName && action->isEnabled())
                                     chosen = action;
                             }
                             found = chosen != nullptr;
                             QTimer::singleShot(0, menu, [menu, chosen] {
                                 if (chosen)
                                     menu->setActiveAction(chosen);
                                 QTest::keyClick(menu, chosen ? Qt::Key_Return : Qt::Key_Escape);
                             });
                         });
    MatrixView* view = window.matrixView();
    const QPoint at = view->visualRect(cell).center();
    QContextMenuEvent event(QContextMenuEvent::Mouse, at, view->viewport()->mapToGlobal(at));
    QApplication::sendEvent(view->viewport(), &event);
    QObject::disconnect(connection);
    return found;
}

bool git(const QString& directory, const QStringList& arguments, QByteArray* output = nullptr)
{
    QProcess process;
    process.setWorkingDirectory(directory);
    process.start(QStringLiteral("git"), arguments);
    if (!process.waitForFinished(30000) || process.exitCode() != 0) {
        qWarning("git %s: %s", qPrintable(arguments.join(QLatin1Char(' '))),
                 process.readAllStandardError().constData());
        return false;
    }
    if (output)
        *output = process.readAllStandardOutput();
    return true;
}

// The window shown on `root`, with the review of creating sm90 × avx512 open and its commit
// box checked; nullptr, with a warning saying where, when a step fails.
ChangeSetReviewDialog* reviewCommittedCreation(MainWindow& window, const QString& root)
{
    window.show();
    if (!activate(window) || !openAndWait(window, root)) {
        qWarning("the window did not open %s", qPrintable(root));
        return nullptr;
    }
    click(window, cellOf(window, "sm90", "avx512"));
    window.changeActions()->createAction()->trigger();
    ChangeSetReviewDialog* review = waitForReview();
    if (!review || !review->commitBox()->isVisibleTo(review)) {
        qWarning("no review with a commit box: %s", qPrintable(window.banner()->text()));
        return nullptr;
    }
    review->commitBox()->setChecked(true);
    return review;
}

// Every file below `root` (hidden ones included) by relative path, with its bytes.
QMap<QString, QByteArray> snapshot(const QString& root)
{
    QMap<QString, QByteArray> files;
    QDirIterator it(root, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        files.insert(path.mid(root.size() + 1), readAll(path));
    }
    return files;
}

// Complete Matrix for the whole package, as from the menu; the review it opens.
ChangeSetReviewDialog* reviewComplete(MainWindow& window)
{
    window.matrixView()->clearSelection();
    QAction* complete = menuAction(window, "completeMatrixAction");
    if (!complete || !complete->isEnabled())
        return nullptr;
    complete->trigger();
    return waitForReview();
}

// Creates sm90 × avx512's recipe as a user does: the cell, Ctrl+N, the review's Apply. "" when
// it was applied, else what went wrong.
QString createSm90Avx512(MainWindow& window)
{
    click(window, cellOf(window, "sm90", "avx512"));
    QTest::keyClick(window.matrixView(), Qt::Key_N, Qt::ControlModifier);
    ChangeSetReviewDialog* review = waitForReview();
    if (!review)
        return QStringLiteral("no review: ") + window.banner()->text();
    QSignalSpy applied(window.changeActions()->session(), &ChangeSession::applied);
    QTest::mouseClick(review->applyButton(), Qt::LeftButton);
    return applied.wait(slowly) ? QString()
                                : QStringLiteral("not applied: ") + window.banner()->text();
}

// Whether `files` (a snapshot taken after `changes` was applied, or not) holds every selected
// operation either as before or as after, all of them the same way, and nothing else changed:
// no file half-written, no temporary file left beside one. Empty when so, else what is wrong.
QString wholeOrUntouched(const ChangeSet& changes, const QMap<QString, QByteArray>& before,
                         const QMap<QString, QByteArray>& files)
{
    int asBefore = 0;
    int asAfter = 0;
    QSet<QString> touched;
    for (const FileOperation& op : changes.operations) {
        if (!op.selected)
            continue;
        const QString path = QString::fromStdString(op.path);
        touched.insert(path);
        const bool present = files.contains(path);
        const bool old = op.kind == FileOperationKind::Create
                             ? !present
                             : present && files.value(path) == before.value(path);
        const bool fresh =
            op.kind == FileOperationKind::Delete
                ? !present
                : present && files.value(path) == QByteArray::fromStdString(op.after);
        if (!old && !fresh)
            return path + QStringLiteral(": neither the old content nor the new");
        asBefore += old;
        asAfter += fresh;
    }
    if (asBefore != touched.size() && asAfter != touched.size())
        return QStringLiteral("%1 of %2 files applied").arg(asAfter).arg(touched.size());
    for (auto it = files.begin(); it != files.end(); ++it)
        if (!touched.contains(it.key()) && before.value(it.key()) != it.value())
            return it.key() + (before.contains(it.key()) ? QStringLiteral(": changed")
                                                         : QStringLiteral(": left behind"));
    return {};
}

} // namespace

class TestChanges : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(); }

    void createFromTheCellMenuThenUndo()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        const QString file = dir.filePath(recipe(sm90avx512));
        MainWindow window;
        window.show();
        QVERIFY(activate(window));
        QVERIFY(openAndWait(window, dir.path()));
        QCOMPARE(statusOf(window, "sm90", "avx512"), int(CellStatus::Missing));

        click(window, cellOf(window, "sm90", "avx512"));
        QStringList offered;
        QVERIFY(chooseFromCellMenu(window, cellOf(window, "sm90", "avx512"),
                                   QStringLiteral("createRecipeAction"), &offered));
        // A missing cell has nothing to fix or delete.
        QVERIFY(!offered.contains(QStringLiteral("fixRecipeAction")));
        QVERIFY(!offered.contains(QStringLiteral("deleteRecipeAction")));

        ChangeSetReviewDialog* review = waitForReview();
        QVERIFY2(review, qPrintable(window.banner()->text()));
        const ChangeSet& changes = review->changeSet();
        const auto created =
            std::find_if(changes.operations.begin(), changes.operations.end(),
                         [](const FileOperation& op) { return op.path == recipe(sm90avx512); });
        QVERIFY(created != changes.operations.end());
        QCOMPARE(created->kind, FileOperationKind::Create);
        review->setCurrentOperation(int(created - changes.operations.begin()));
        QVERIFY(review->diffView()->diff().contains(QStringLiteral("+++ b/") + recipe(sm90avx512)));
        QVERIFY(!QFileInfo::exists(file)); // nothing is written before Apply

        QSignalSpy applied(window.changeActions()->session(), &ChangeSession::applied);
        QTest::mouseClick(review->applyButton(), Qt::LeftButton);
        QVERIFY2(applied.wait(slowly), qPrintable(window.banner()->text()));
        QTRY_COMPARE_WITH_TIMEOUT(statusOf(window, "sm90", "avx512"), int(CellStatus::Ok), slowly);
        QVERIFY(QFileInfo::exists(file));
        QVERIFY(window.changeActions()->undoAction()->isEnabled());

        QVERIFY(activate(window));
        window.matrixView()->setFocus();
        QTest::keyClick(window.matrixView(), Qt::Key_Z, Qt::ControlModifier);
        QTRY_VERIFY_WITH_TIMEOUT(!QFileInfo::exists(file), slowly);
        QTRY_COMPARE_WITH_TIMEOUT(statusOf(window, "sm90", "avx512"), int(CellStatus::Missing),
                                  slowly);
        QVERIFY(!window.changeActions()->undoAction()->isEnabled()); // one level of undo
    }

    void deleteKeyRemovesARedundantRecipe()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        const QString file = dir.filePath(recipe(magma));
        MainWindow window;
        window.show();
        QVERIFY(activate(window));
        QVERIFY(openAndWait(window, dir.path()));
        click(window, cellOf(window, "sm120", "avx512"));
        QVERIFY(window.changeActions()->deleteAction()->isEnabled());
        QVERIFY(!window.changeActions()->createAction()->isEnabled());
        window.matrixView()->setFocus();
        QTest::keyClick(window.matrixView(), Qt::Key_Delete);

        // The review is the confirmation: nothing is gone before Apply, Cancel keeps the file.
        ChangeSetReviewDialog* review = waitForReview();
        QVERIFY2(review, qPrintable(window.banner()->text()));
        QVERIFY2(review->countsText().endsWith(QStringLiteral("1 delete")),
                 qPrintable(review->countsText()));
        for (const FileOperation& op : review->changeSet().operations)
            QVERIFY2(op.kind == FileOperationKind::Delete ? op.path == recipe(magma)
                                                          : op.path == "README.md",
                     op.path.c_str()); // the README's matrix section may follow
        QTest::keyClick(review, Qt::Key_Escape);
        QTRY_VERIFY(QApplication::activeModalWidget() == nullptr);
        QVERIFY(QFileInfo::exists(file));

        QVERIFY(activate(window));
        window.matrixView()->setFocus();
        QTest::keyClick(window.matrixView(), Qt::Key_Delete);
        review = waitForReview();
        QVERIFY(review);
        QSignalSpy applied(window.changeActions()->session(), &ChangeSession::applied);
        QTest::mouseClick(review->applyButton(), Qt::LeftButton);
        QVERIFY2(applied.wait(slowly), qPrintable(window.banner()->text()));
        QVERIFY(!QFileInfo::exists(file));
        QTRY_VERIFY2_WITH_TIMEOUT(!window.summaryText().contains(QStringLiteral("redundant")),
                                  qPrintable(window.summaryText()), slowly);
    }

    // seed001-start's sm120-avx is broken and outside the spec: Complete would delete it, and
    // so may the user, from the menu and the context menu.
    void brokenRecipeOutsideTheSpecCanBeDeleted()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        MainWindow window;
        window.show();
        QVERIFY(activate(window));
        QVERIFY(openAndWait(window, dir.path()));
        const QModelIndex avx = cellOf(window, "sm120", "avx");
        QVERIFY(avx.isValid());
        QCOMPARE(statusOf(window, "sm120", "avx"), int(CellStatus::Broken));
        click(window, avx);
        QVERIFY(window.changeActions()->deleteAction()->isEnabled());
        QVERIFY(window.changeActions()->fixAction()->isEnabled());
        QStringList offered;
        QVERIFY(chooseFromCellMenu(window, avx, QStringLiteral("deleteRecipeAction"), &offered));
        ChangeSetReviewDialog* review = waitForReview();
        QVERIFY2(review, qPrintable(window.banner()->text()));
        bool deletes = false;
        for (const FileOperation& op : review->changeSet().operations)
            deletes = deletes || (op.kind == FileOperationKind::Delete &&
                                  op.path == recipe("pytorch-python313-cuda13_0-sm120-avx"));
        QVERIFY(deletes);
        review->reject();
        QTRY_VERIFY(QApplication::activeModalWidget() == nullptr);

        // A broken recipe the spec asks for is fixed, not deleted.
        click(window, cellOf(window, "sm110", "armv9"));
        QCOMPARE(statusOf(window, "sm110", "armv9"), int(CellStatus::Broken));
        QVERIFY(!window.changeActions()->deleteAction()->isEnabled());
    }

    void completeMatrixThenUndo()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        const QByteArray readme = readAll(dir.filePath(QStringLiteral("README.md")));
        const QByteArray armv9 =
            readAll(dir.filePath(recipe("pytorch-python313-cuda13_0-sm110-armv9")));
        MainWindow window;
        window.show();
        QVERIFY(activate(window));
        QVERIFY(openAndWait(window, dir.path()));
        const QString before = window.summaryText();

        QAction* complete = menuAction(window, "completeMatrixAction");
        QVERIFY(complete);
        QVERIFY(complete->isEnabled());
        // A selected cell: the slices shown (seed001-start has one, so the same 41 files).
        click(window, cellOf(window, "sm90", "avx2"));
        complete->trigger();
        ChangeSetReviewDialog* review = waitForReview();
        QVERIFY2(review, qPrintable(window.banner()->text()));
        QVERIFY2(review->countsText().startsWith(QStringLiteral("41 create")),
                 qPrintable(review->countsText()));
        review->reject();
        QTRY_VERIFY(QApplication::activeModalWidget() == nullptr);
        QCOMPARE(window.summaryText(), before); // cancelled: nothing written

        window.matrixView()->clearSelection(); // nothing selected: the whole package
        complete->trigger();
        review = waitForReview();
        QVERIFY2(review, qPrintable(window.banner()->text()));
        QVERIFY2(review->countsText().startsWith(QStringLiteral("41 create")),
                 qPrintable(review->countsText()));
        // A fix shows a real diff; the picture is for people reviewing the review.
        for (size_t i = 0; i < review->changeSet().operations.size(); ++i)
            if (review->changeSet().operations[i].path ==
                recipe("pytorch-python313-cuda13_0-sm110-armv9"))
                review->setCurrentOperation(int(i));
        QVERIFY(review->diffView()->diff().contains(QStringLiteral("@@")));
        const QString png = QStringLiteral(RG_BINARY_DIR "/screenshots/change-review.png");
        QDir().mkpath(QFileInfo(png).absolutePath());
        QTest::qWait(50); // the layout follows the new file's header
        QVERIFY(review->grab().toImage().save(png));
        QSignalSpy applied(window.changeActions()->session(), &ChangeSession::applied);
        QTest::mouseClick(review->applyButton(), Qt::LeftButton);
        QVERIFY2(applied.wait(slowly), qPrintable(window.banner()->text()));
        QTRY_VERIFY2_WITH_TIMEOUT(window.summaryText().contains(QStringLiteral("44 ok")),
                                  qPrintable(window.summaryText()), slowly);
        QVERIFY2(!window.summaryText().contains(QStringLiteral("missing")),
                 qPrintable(window.summaryText()));

        // Undo puts every file back byte for byte.
        QVERIFY(window.changeActions()->undoAction()->isEnabled());
        window.changeActions()->undoAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window.summaryText(), before, slowly);
        QCOMPARE(readAll(dir.filePath(QStringLiteral("README.md"))), readme);
        QCOMPARE(readAll(dir.filePath(recipe("pytorch-python313-cuda13_0-sm110-armv9"))), armv9);
        QVERIFY(!QFileInfo::exists(dir.filePath(recipe(sm90avx512))));
    }

    // Complete on the demo: its working sm75-avx2 is offered for deletion unchecked, with the
    // reason in red; after Apply the checked-out branch's row of the Branches dock and the
    // status bar tell the re-analysed work tree, not the last commit or the watcher's echo.
    void completeOnTheDemoShowsTheNewState()
    {
        MainWindow window;
        window.show();
        QVERIFY(activate(window));
        QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
        QVERIFY(window.openDemo());
        auto removeDemo = qScopeGuard([&] { QDir(window.demoPath()).removeRecursively(); });
        QVERIFY(changed.wait(slowly));
        BranchOverviewModel* branches = window.branchModel();
        const auto checkedOut = [&] {
            for (int r = 0; r < branches->rowCount(); ++r)
                if (branches->index(r, 0).data(BranchOverviewModel::BranchRole).toString() ==
                    QStringLiteral("cuda-13_0"))
                    return r;
            return -1;
        };
        QTRY_VERIFY_WITH_TIMEOUT(checkedOut() >= 0, slowly);
        const auto countsShown = [&] {
            QVariantList counts;
            for (int s = 0; s < cellStatusCount; ++s)
                counts << branches->index(checkedOut(), BranchOverviewModel::FirstStatusColumn + s)
                              .data()
                              .toInt();
            return counts;
        };
        const auto countsAnalysed = [&] {
            QVariantList counts;
            for (int count : MatrixCounts::of(*window.session()->analysis()).byStatus())
                counts << count;
            return counts;
        };
        QTRY_VERIFY_WITH_TIMEOUT(!branches->isLoading(), slowly);
        QCOMPARE(countsShown(), countsAnalysed());

        QAction* complete = menuAction(window, "completeMatrixAction");
        QVERIFY(complete);
        window.matrixView()->clearSelection();
        complete->trigger();
        ChangeSetReviewDialog* review = waitForReview();
        QVERIFY2(review, qPrintable(window.banner()->text()));
        const QString sm75 = recipe("pytorch-python313-cuda13_0-sm75-avx2");
        QTreeWidgetItem* held = nullptr;
        for (QTreeWidget* tree : review->findChildren<QTreeWidget*>())
            for (QTreeWidgetItem* item :
                 tree->findItems(QFileInfo(sm75).fileName(), Qt::MatchEndsWith, 0))
                held = item;
        QVERIFY(held);
        QCOMPARE(held->checkState(0), Qt::Unchecked);
        bool reasonInRed = false;
        for (int column = 1; column < held->columnCount(); ++column)
            if (held->text(column).contains(QStringLiteral("a working recipe"))) {
                const QBrush brush = held->foreground(column);
                reasonInRed = brush.style() != Qt::NoBrush &&
                              brush.color().red() > brush.color().green() + 60;
            }
        QVERIFY(reasonInRed);
        QSignalSpy applied(window.changeActions()->session(), &ChangeSession::applied);
        QTest::mouseClick(review->applyButton(), Qt::LeftButton);
        QVERIFY2(applied.wait(slowly), qPrintable(window.banner()->text()));
        QVERIFY(QFileInfo::exists(window.demoPath() + "/" + sm75)); // kept: it was unchecked
        // The re-analysis after Apply, and whatever echo of the written files follows.
        QTRY_VERIFY_WITH_TIMEOUT(!window.session()->isScanning() &&
                                     !window.summaryText().contains(QStringLiteral("missing")),
                                 slowly);
        QCOMPARE(countsShown(), countsAnalysed());
        const QString scanned = window.scanText();
        QVERIFY2(!scanned.startsWith(QStringLiteral("0 file")), qPrintable(scanned));
        // The file watcher's echo of the written files is a scan that finds nothing changed;
        // made here at once rather than waited for. The line still tells the re-analysis.
        QSignalSpy rescanned(window.session(), &RepositorySession::analysisChanged);
        window.session()->reload();
        QVERIFY(rescanned.wait(slowly));
        QCOMPARE(window.session()->lastParsedCount(), 0);
        QCOMPARE(window.scanText(), scanned);
        QCOMPARE(countsShown(), countsAnalysed());
        QVERIFY2(branches->index(checkedOut(), 0)
                     .data(Qt::ToolTipRole)
                     .toString()
                     .contains(QStringLiteral("work tree")),
                 qPrintable(branches->index(checkedOut(), 0).data(Qt::ToolTipRole).toString()));
    }

    // seed001-start's README documents the recipes by hand, without the markers: Complete
    // offers no generated section unless "Add a Variant-Matrix Section" is checked (off by
    // default).
    void completeAddsAReadmeSectionOnlyWhenAsked()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        MainWindow window;
        window.show();
        QVERIFY(activate(window));
        QVERIFY(openAndWait(window, dir.path()));
        QAction* complete = menuAction(window, "completeMatrixAction");
        QAction* section = menuAction(window, "readmeSectionAction");
        QVERIFY(complete);
        const auto readmeOperations = [](const ChangeSetReviewDialog* review) {
            return std::count_if(review->changeSet().operations.begin(),
                                 review->changeSet().operations.end(),
                                 [](const FileOperation& op) { return op.path == "README.md"; });
        };

        complete->trigger();
        ChangeSetReviewDialog* review = waitForReview();
        QVERIFY2(review, qPrintable(window.banner()->text()));
        QVERIFY2(review->countsText().startsWith(QStringLiteral("41 create")),
                 qPrintable(review->countsText()));
        QCOMPARE(readmeOperations(review), 0);
        review->reject();
        QTRY_VERIFY(QApplication::activeModalWidget() == nullptr);

        QVERIFY2(section, "no README section checkbox in the menus");
        QVERIFY(section->isCheckable());
        QVERIFY(!section->isChecked());
        section->setChecked(true);
        complete->trigger();
        review = waitForReview();
        QVERIFY2(review, qPrintable(window.banner()->text()));
        QCOMPARE(readmeOperations(review), 1);
        review->reject();
        QTRY_VERIFY(QApplication::activeModalWidget() == nullptr);
    }

    void undoRefusedWhenTheFileChangedSince()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        const QString file = dir.filePath(recipe(sm90avx512));
        MainWindow window;
        window.show();
        QVERIFY(activate(window));
        QVERIFY(openAndWait(window, dir.path()));
        const QString notCreated = createSm90Avx512(window);
        QVERIFY2(notCreated.isEmpty(), qPrintable(notCreated));
        QVERIFY(QFileInfo::exists(file));

        const QByteArray edited = readAll(file) + "\n# edited by hand\n";
        QVERIFY(writeAll(file, edited));
        QSignalSpy failed(window.changeActions()->session(), &ChangeSession::applyFailed);
        window.changeActions()->undoAction()->trigger();
        QVERIFY(failed.wait(slowly));
        const QString message = failed.front().front().toString();
        QVERIFY2(message.contains(QString::fromLatin1(recipe(sm90avx512))), qPrintable(message));
        // Said in a message box: a re-scan (the edit is watched) would redraw a banner.
        QMessageBox* box = nullptr;
        QTRY_VERIFY((box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())));
        QCOMPARE(box->text(), message);
        box->accept();
        QCOMPARE(readAll(file), edited); // the user's edit is kept
        QVERIFY(QFileInfo::exists(file));
    }

    // Undo belongs to the repository it was made in: opening another one forgets it, so it can
    // never put back or remove files there. The other repository is a copy of the first after
    // the change, holding the created file an Undo would delete.
    void undoIsForgottenWhenAnotherRepositoryOpens()
    {
        QTemporaryDir first;
        QTemporaryDir second;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), first.path()));
        MainWindow window;
        window.show();
        QVERIFY(activate(window));
        QVERIFY(openAndWait(window, first.path()));
        const QString notCreated = createSm90Avx512(window);
        QVERIFY2(notCreated.isEmpty(), qPrintable(notCreated));
        QVERIFY(window.changeActions()->undoAction()->isEnabled());

        QVERIFY(copyFixture(QStringLiteral("seed001-start"), second.path()));
        const QByteArray created = readAll(first.filePath(recipe(sm90avx512)));
        QVERIFY(!created.isEmpty());
        QVERIFY(writeAll(second.filePath(recipe(sm90avx512)), created));
        QVERIFY(openAndWait(window, second.path()));
        QVERIFY(!window.changeActions()->undoAction()->isEnabled());
        QSignalSpy failed(window.changeActions()->session(), &ChangeSession::applyFailed);
        QVERIFY(!window.changeActions()->session()->undo());
        QCOMPARE(failed.size(), 1);
        QCOMPARE(failed.front().front().toString(), QStringLiteral("Nothing to undo"));
        QCOMPARE(readAll(second.filePath(recipe(sm90avx512))), created);
        QCOMPARE(readAll(first.filePath(recipe(sm90avx512))), created);
    }

    // A broken cell's context menu offers Fix; the review shows the rewrite, Apply writes
    // exactly what was reviewed and the cell turns ok.
    void fixFromTheCellMenu()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        const QString file = dir.filePath(recipe(armv9));
        const QByteArray before = readAll(file);
        QVERIFY(before.contains(armv9Pin));
        MainWindow window;
        window.show();
        QVERIFY(activate(window));
        QVERIFY(openAndWait(window, dir.path()));
        const QModelIndex cell = cellOf(window, "sm110", "armv9");
        QCOMPARE(statusOf(window, "sm110", "armv9"), int(CellStatus::Broken));

        click(window, cell);
        QStringList offered;
        QVERIFY(chooseFromCellMenu(window, cell, QStringLiteral("fixRecipeAction"), &offered));
        QVERIFY(!offered.contains(QStringLiteral("createRecipeAction"))); // it has a file
        ChangeSetReviewDialog* review = waitForReview();
        QVERIFY2(review, qPrintable(window.banner()->text()));
        const ChangeSet changes = review->changeSet();
        const auto fixed =
            std::find_if(changes.operations.begin(), changes.operations.end(),
                         [](const FileOperation& op) { return op.path == recipe(armv9); });
        QVERIFY(fixed != changes.operations.end());
        QCOMPARE(fixed->kind, FileOperationKind::Modify);
        QVERIFY(fixed->selected);
        QCOMPARE(readAll(file), before); // nothing is written before Apply

        QSignalSpy applied(window.changeActions()->session(), &ChangeSession::applied);
        QTest::mouseClick(review->applyButton(), Qt::LeftButton);
        QVERIFY2(applied.wait(slowly), qPrintable(window.banner()->text()));
        QCOMPARE(readAll(file), QByteArray::fromStdString(fixed->after));
        QVERIFY(!readAll(file).contains(armv9Pin));
        QVERIFY(readAll(file).contains(specPin));
        QTRY_COMPARE_WITH_TIMEOUT(statusOf(window, "sm110", "armv9"), int(CellStatus::Ok), slowly);
    }

    // A recipe edited by hand while its fix is under review: Apply refuses, names the file, and
    // writes nothing at all (Complete's 41 creations and its deletions included).
    void applyRefusedWhenAFileChangedDuringReview()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        const QMap<QString, QByteArray> before = snapshot(dir.path());
        MainWindow window;
        window.show();
        QVERIFY(activate(window));
        QVERIFY(openAndWait(window, dir.path()));
        ChangeSetReviewDialog* review = reviewComplete(window);
        QVERIFY2(review, qPrintable(window.banner()->text()));
        QVERIFY2(review->countsText().startsWith(QStringLiteral("41 create")),
                 qPrintable(review->countsText()));
        const bool fixesArmv9 = std::any_of(
            review->changeSet().operations.begin(), review->changeSet().operations.end(),
            [](const FileOperation& op) { return op.path == recipe(armv9) && op.selected; });
        QVERIFY(fixesArmv9);

        const QByteArray edited = before.value(recipe(armv9)) + "\n# tuned by hand\n";
        QVERIFY(writeAll(dir.filePath(recipe(armv9)), edited));
        QSignalSpy applied(window.changeActions()->session(), &ChangeSession::applied);
        QSignalSpy failed(window.changeActions()->session(), &ChangeSession::applyFailed);
        QTest::mouseClick(review->applyButton(), Qt::LeftButton);
        QVERIFY(failed.wait(slowly));
        const QString message = failed.front().front().toString();
        QVERIFY2(message.contains(QString::fromLatin1(recipe(armv9))) &&
                     message.contains(QStringLiteral("changed on disk")),
                 qPrintable(message));
        QMessageBox* box = nullptr;
        QTRY_VERIFY((box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())));
        QCOMPARE(box->text(), message);
        box->accept();
        QVERIFY(applied.isEmpty());
        QMap<QString, QByteArray> expected = before;
        expected.insert(recipe(armv9), edited);
        const QMap<QString, QByteArray> after = snapshot(dir.path());
        QCOMPARE(after.keys(), expected.keys()); // nothing created, nothing deleted
        QVERIFY(after == expected);              // nothing rewritten, the edit kept
    }

    // The window closed (and destroyed, as quitting does) while Complete is planned, then while
    // it is applied: every file is its old or its new content, all of them the same way, and
    // nothing is left beside them.
    void closingWhilePlanningOrApplying_data()
    {
        QTest::addColumn<bool>("applying");
        QTest::newRow("planning") << false;
        QTest::newRow("applying") << true;
    }
    void closingWhilePlanningOrApplying()
    {
        QFETCH(bool, applying);
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        const QMap<QString, QByteArray> before = snapshot(dir.path());
        auto window = std::make_unique<MainWindow>();
        window->show();
        QVERIFY(activate(*window));
        QVERIFY(openAndWait(*window, dir.path()));
        ChangeSession* session = window->changeActions()->session();
        ChangeSet changes;
        if (applying) {
            ChangeSetReviewDialog* review = reviewComplete(*window);
            QVERIFY2(review, qPrintable(window->banner()->text()));
            changes = review->changeSet();
            QTest::mouseClick(review->applyButton(), Qt::LeftButton);
        } else {
            window->matrixView()->clearSelection();
            window->changeActions()->completeAction()->trigger();
        }
        QVERIFY(session->isBusy()); // closed in the middle of it
        QVERIFY(window->close());
        window.reset();

        const QMap<QString, QByteArray> after = snapshot(dir.path());
        if (!applying) {
            QCOMPARE(after.keys(), before.keys());
            QVERIFY(after == before);
            return;
        }
        const QString problem = wholeOrUntouched(changes, before, after);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void commitAfterApplying()
    {
        TestRepository repo;
        repo.commitFixture(QStringLiteral(RG_FIXTURES_DIR "/seed001-start"),
                           QStringLiteral("seed"));
        repo.setCommitter();
        const QString root = repo.root();
        MainWindow window;
        ChangeSetReviewDialog* review = reviewCommittedCreation(window, root);
        QVERIFY(review);
        QVERIFY(review->messageEdit()->toPlainText().contains(QString::fromLatin1(sm90avx512)));

        QSignalSpy committed(window.changeActions()->session(), &ChangeSession::committed);
        QSignalSpy commitFailed(window.changeActions()->session(), &ChangeSession::commitFailed);
        QTest::mouseClick(review->applyButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(committed.count() + commitFailed.count() > 0, slowly);
        QVERIFY2(commitFailed.isEmpty(),
                 qPrintable(commitFailed.isEmpty() ? QString()
                                                   : commitFailed.front().front().toString()));
        QByteArray log;
        QVERIFY(git(root,
                    {QStringLiteral("log"), QStringLiteral("-1"), QStringLiteral("--name-only"),
                     QStringLiteral("--format=%H%n%B")},
                    &log));
        QVERIFY2(log.startsWith(committed.front().front().toString().toLatin1()), log.constData());
        QVERIFY2(log.contains(recipe(sm90avx512)), log.constData());
        QByteArray status;
        QVERIFY(git(root, {QStringLiteral("status"), QStringLiteral("--porcelain")}, &status));
        QVERIFY2(status.trimmed().isEmpty(), status.constData()); // everything it wrote is in
    }

    // Git refuses the commit after the files were written (the branch is locked, as by a git
    // running beside): the change stays on disk, uncommitted, and the window says both.
    void aCommitGitRefusesLeavesTheChangeAndSaysSo()
    {
        TestRepository repo;
        repo.commitFixture(QStringLiteral(RG_FIXTURES_DIR "/seed001-start"),
                           QStringLiteral("seed"));
        repo.setCommitter();
        const QString root = repo.root();
        const QByteArray branch =
            repo.git({QStringLiteral("symbolic-ref"), QStringLiteral("HEAD")});
        QFile lock(root + QStringLiteral("/.git/") + QString::fromLatin1(branch) +
                   QStringLiteral(".lock"));
        QVERIFY(lock.open(QIODevice::WriteOnly));
        lock.close();
        MainWindow window;
        ChangeSetReviewDialog* review = reviewCommittedCreation(window, root);
        QVERIFY(review);

        QSignalSpy applied(window.changeActions()->session(), &ChangeSession::applied);
        QSignalSpy commitFailed(window.changeActions()->session(), &ChangeSession::commitFailed);
        QTest::mouseClick(review->applyButton(), Qt::LeftButton);
        auto* box = waitForModal<QMessageBox>(slowly);
        QVERIFY(box);
        QCOMPARE(box->windowTitle(), QStringLiteral("Commit failed"));
        QVERIFY2(box->text().startsWith(
                     QStringLiteral("The files were changed but not committed: cannot commit: ")),
                 qPrintable(box->text()));
        QVERIFY2(box->text().contains(QStringLiteral(".lock")), qPrintable(box->text()));
        QCOMPARE(applied.count(), 1);
        QCOMPARE(commitFailed.count(), 1);
        box->accept();

        QVERIFY(QFileInfo::exists(root + QLatin1Char('/') + recipe(sm90avx512)));
        QByteArray commits;
        QVERIFY(git(
            root, {QStringLiteral("rev-list"), QStringLiteral("--count"), QStringLiteral("--all")},
            &commits));
        QCOMPARE(commits.trimmed(), QByteArray("1"));
        QByteArray status;
        QVERIFY(git(root, {QStringLiteral("status"), QStringLiteral("--porcelain")}, &status));
        QVERIFY2(status.contains(recipe(sm90avx512)), status.constData());
    }
};

QTEST_MAIN(TestChanges)
#include "tst_changes.moc"
