// Pins from the window, as a user works them on a copy of seed000 (66 recipes on 6a030d5, a
// git work tree): colour the grid by pin and read the legend; Bump Pin… to 0182a36 with the
// hashes marked, review (66 recipes, plus the README when asked), apply, see the legend move,
// undo; prefetching through a stand-in nix-prefetch-url that fails as offline and then
// answers; the alignment against a second repository on the other pin, with a path that is
// not a repository beside it, and "Align to…" opening the review of the bump. Screenshots of
// what the user sees go to $RG_SCREENSHOTS (default: the build's screenshots/).

#include "alignmentview.h"
#include "changeactions.h"
#include "changesetreviewdialog.h"
#include "guitestsupport.h"
#include "itemmodels/alignmentmodel.h"
#include "itemmodels/matrixmodel.h"
#include "itemmodels/pinsmodel.h"
#include "mainwindow.h"
#include "matrixview.h"
#include "messagebanner.h"
#include "pinactions.h"
#include "pinbumpdialog.h"
#include "pinlegend.h"
#include "pinsview.h"
#include "sessions/changesession.h"
#include "sessions/repositorysession.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTreeView>

using namespace rg;
using namespace rg::test;

namespace {

const QByteArray oldPin = "6a030d535719c5190187c4cec156f335e95e3211";
const QByteArray newPin = "0182a361324364ae3f436a63005877674cf45efb";
const char* const sm90 = "pytorch-python313-cuda12_9-sm90-avx512";
constexpr int slowly = 30000; // planning, applying and re-scanning on a loaded CI machine

bool git(const QString& directory, const QStringList& arguments)
{
    QProcess process;
    process.setWorkingDirectory(directory);
    process.start(QStringLiteral("git"),
                  QStringList{QStringLiteral("-c"), QStringLiteral("user.name=Release Engineer"),
                              QStringLiteral("-c"), QStringLiteral("user.email=re@example.org"),
                              QStringLiteral("-c"), QStringLiteral("init.defaultBranch=main"),
                              QStringLiteral("-c"), QStringLiteral("commit.gpgsign=false")} +
                      arguments);
    if (!process.waitForFinished(30000) || process.exitCode() != 0) {
        qWarning("git %s: %s", qPrintable(arguments.join(QLatin1Char(' '))),
                 process.readAllStandardError().constData());
        return false;
    }
    return true;
}

// seed000 (hidden .flox included) as a git work tree on "main"; with `pin`, every recipe is
// moved to it first (the other side of seed 000).
bool makeRepository(const QString& root, const QByteArray& pin = {})
{
    if (!copyFixture(QStringLiteral("seed000"), root))
        return false;
    if (!pin.isEmpty()) {
        QDirIterator it(root + QStringLiteral("/.flox/pkgs"), {QStringLiteral("*.nix")});
        while (it.hasNext()) {
            const QString file = it.next();
            if (!writeAll(file, readAll(file).replace(oldPin, pin)))
                return false;
        }
    }
    return git(root, {QStringLiteral("init"), QStringLiteral("-q")}) &&
           git(root, {QStringLiteral("add"), QStringLiteral("-A")}) &&
           git(root, {QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("-m"),
                      QStringLiteral("seed")});
}

bool openAndWait(MainWindow& window, const QString& path)
{
    QSignalSpy listed(window.pinActions(), &PinActions::inventoryChanged);
    window.openRepository(path);
    return listed.wait(slowly);
}

void screenshot(QWidget* widget, const char* name)
{
    const QString directory =
        qEnvironmentVariable("RG_SCREENSHOTS", QStringLiteral(RG_BINARY_DIR "/screenshots"));
    QDir().mkpath(directory);
    QTest::qWait(50); // layouts settle
    QVERIFY(widget->grab().save(directory + QLatin1Char('/') + QLatin1String(name)));
}

QString legendText(MainWindow& window)
{
    return window.pinActions()->legend()->text();
}

// The bump dialog from the Pins menu, bumping every recipe to the new pin with the hashes
// marked as needing a new one.
PinBumpDialog* openBump(MainWindow& window, bool readme)
{
    QAction* bump = menuAction(window, QStringLiteral("bumpPinAction"));
    if (!bump || !bump->isEnabled())
        return nullptr;
    bump->trigger();
    auto* dialog = waitForModal<PinBumpDialog>();
    if (!dialog)
        return nullptr;
    dialog->toEdit()->setFocus();
    QTest::keyClicks(dialog->toEdit(), QString::fromLatin1(newPin));
    dialog->markButton()->setChecked(true);
    dialog->readmeBox()->setChecked(readme);
    dialog->docsBox()->setChecked(false);
    return dialog;
}

int recipeOperations(const ChangeSet& changes)
{
    return static_cast<int>(std::count_if(
        changes.operations.begin(), changes.operations.end(), [](const FileOperation& op) {
            return op.kind == FileOperationKind::Modify && op.path.ends_with(".nix");
        }));
}

} // namespace

class TestPins : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(); }

    void colourByPin()
    {
        QTemporaryDir dir;
        QVERIFY(makeRepository(dir.path()));
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openAndWait(window, dir.path()));

        QAction* colour = menuAction(window, QStringLiteral("colourByPinAction"));
        QVERIFY(colour && colour->isEnabled());
        QVERIFY(!window.pinActions()->legend()->isVisible());
        colour->trigger();
        QVERIFY(window.pinActions()->legend()->isVisible());
        QCOMPARE(window.pinActions()->legend()->entries().size(), size_t(1));
        QCOMPARE(legendText(window), QStringLiteral("6a030d5: 66 recipes"));
        const QModelIndex cell = window.matrixModel()->indexOf(CellSelector(sm90));
        const QVariantMap pin = cell.data(MatrixModel::PinsRole).toList().value(0).toMap();
        QCOMPARE(pin.value(QStringLiteral("index")).toInt(), 0);
        QCOMPARE(pin.value(QStringLiteral("label")).toString(), QStringLiteral("6a030d5"));
        menuAction(window, QStringLiteral("pinsViewAction"))->trigger();
        screenshot(&window, "pins-window.png");
        screenshot(window.pinActions()->pinsView(), "pins-dock.png");
        // A pin's "Select Its Recipes in the Grid": every cell on it, the bump's selection scope.
        emit window.pinActions()->pinsView()->selectRecipesRequested(QString::fromLatin1(oldPin));
        QCOMPARE(window.matrixView()->selectedCells().size(), 66);
        PinBumpDialog* dialog = openBump(window, false);
        QVERIFY(dialog);
        QCOMPARE(dialog->scopeButton(PinBumpDialog::Scope::Selection)->text(),
                 QStringLiteral("The &selection (66 cells)"));
        dialog->reject();

        colour->trigger(); // off: the grid shows statuses again
        QVERIFY(!window.pinActions()->legend()->isVisible());
        QVERIFY(cell.data(MatrixModel::PinsRole).toList().isEmpty());
    }

    void bumpApplyUndo()
    {
        QTemporaryDir dir;
        QVERIFY(makeRepository(dir.path()));
        const QByteArray before = readAll(dir.filePath(recipe(sm90)));
        const QByteArray readme = readAll(dir.filePath(QStringLiteral("README.md")));
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openAndWait(window, dir.path()));
        menuAction(window, QStringLiteral("colourByPinAction"))->trigger();

        // Without the README: the 66 recipes, nothing else.
        PinBumpDialog* dialog = openBump(window, false);
        QVERIFY(dialog);
        QCOMPARE(dialog->fromCombo()->currentData().toByteArray(), oldPin);
        QVERIFY2(dialog->okButton()->isEnabled(), qPrintable(dialog->validationText()));
        screenshot(dialog, "pins-bump-dialog.png");
        QTest::mouseClick(dialog->okButton(), Qt::LeftButton);
        auto* review = waitForModal<ChangeSetReviewDialog>();
        QVERIFY2(review, qPrintable(window.banner()->text()));
        QCOMPARE(review->countsText(), QStringLiteral("66 modify"));
        review->reject();
        QTRY_VERIFY(QApplication::activeModalWidget() == nullptr);
        QCOMPARE(readAll(dir.filePath(recipe(sm90))), before);

        // With it: one more file, each hash marked as needing the new one.
        dialog = openBump(window, true);
        QVERIFY(dialog);
        QTest::mouseClick(dialog->okButton(), Qt::LeftButton);
        review = waitForModal<ChangeSetReviewDialog>();
        QVERIFY2(review, qPrintable(window.banner()->text()));
        QCOMPARE(review->countsText(), QStringLiteral("67 modify"));
        const ChangeSet& changes = review->changeSet();
        QCOMPARE(recipeOperations(changes), 66);
        QVERIFY(std::any_of(changes.operations.begin(), changes.operations.end(),
                            [](const FileOperation& op) { return op.path == "README.md"; }));
        for (const FileOperation& op : changes.operations)
            if (op.path.ends_with(".nix"))
                QVERIFY2(op.reason.find("new hash") != std::string::npos, op.reason.c_str());
        screenshot(review, "pins-review.png");

        QSignalSpy applied(window.changeActions()->session(), &ChangeSession::applied);
        QTest::mouseClick(review->applyButton(), Qt::LeftButton);
        QVERIFY2(applied.wait(slowly), qPrintable(window.banner()->text()));
        QTRY_COMPARE_WITH_TIMEOUT(legendText(window), QStringLiteral("0182a36: 66 recipes"),
                                  slowly);
        QVERIFY(readAll(dir.filePath(recipe(sm90))).contains(newPin));
        QVERIFY(!readAll(dir.filePath(recipe(sm90))).contains(oldPin));
        QTRY_COMPARE_WITH_TIMEOUT(window.matrixModel()
                                      ->indexOf(CellSelector(sm90))
                                      .data(MatrixModel::PinsRole)
                                      .toList()
                                      .value(0)
                                      .toMap()
                                      .value(QStringLiteral("label"))
                                      .toString(),
                                  QStringLiteral("0182a36"), slowly);

        QAction* undo = window.changeActions()->undoAction();
        QVERIFY(undo->isEnabled());
        undo->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(legendText(window), QStringLiteral("6a030d5: 66 recipes"),
                                  slowly);
        QCOMPARE(readAll(dir.filePath(recipe(sm90))), before);
        QCOMPARE(readAll(dir.filePath(QStringLiteral("README.md"))), readme);
    }

    // Pin colours are text and borders: each must stand off the base it is drawn on, in a
    // light and a dark palette, and neighbours must differ.
    void pinColoursReadOnBothPalettes()
    {
        const QPalette light = QApplication::palette();
        QPalette dark = light;
        dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
        dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
        dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
        dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
        for (const QPalette& palette : {light, dark}) {
            const int base = palette.color(QPalette::Base).lightness();
            for (int i = 0; i < 16; ++i) {
                const QColor color = PinLegend::color(i, palette);
                QVERIFY2(std::abs(color.lightness() - base) > 90,
                         qPrintable(QStringLiteral("pin %1: %2 on %3")
                                        .arg(i)
                                        .arg(color.name(), palette.color(QPalette::Base).name())));
                QVERIFY(color != PinLegend::color(i + 1, palette));
            }
        }

        QTemporaryDir dir;
        QVERIFY(makeRepository(dir.path()));
        QDirIterator it(dir.path() + QStringLiteral("/.flox/pkgs"), {QStringLiteral("*sm90*.nix")});
        while (it.hasNext()) { // a second pin, so the picture shows two colours
            const QString file = it.next();
            QVERIFY(writeAll(file, readAll(file).replace(oldPin, newPin)));
        }
        QApplication::setPalette(dark);
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openAndWait(window, dir.path()));
        menuAction(window, QStringLiteral("colourByPinAction"))->trigger();
        QCOMPARE(legendText(window), QStringLiteral("6a030d5: 59 recipes; 0182a36: 7 recipes"));
        screenshot(&window, "pins-window-dark.png");
        QApplication::setPalette(light);
    }

    void prefetchSaysWhenOfflineThenUsesTheHash()
    {
        QTemporaryDir dir;
        QVERIFY(makeRepository(dir.path()));
        QTemporaryDir bin;
        const QString program = bin.filePath(QStringLiteral("nix-prefetch-url"));
        const QByteArray hash = "0hvq5dmvwn3cp9c0r1ab29qk2a8ki6b4cn7r2i3fjyjl4a47v8xz";
        const auto stub = [&](const QByteArray& body) {
            QVERIFY(writeAll(program, "#!/bin/sh\n" + body));
            QFile::setPermissions(program, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        };
        stub("echo \"error: unable to download '$3': Couldn't resolve host name (6)\" >&2\n"
             "exit 1\n");
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openAndWait(window, dir.path()));
        QSignalSpy listed(window.pinActions(), &PinActions::inventoryChanged);
        window.pinActions()->setPrefetchProgram(program);
        QVERIFY(listed.wait(slowly));

        PinBumpDialog* dialog = openBump(window, false);
        QVERIFY(dialog);
        dialog->prefetchButton()->setChecked(true);
        QTest::mouseClick(dialog->okButton(), Qt::LeftButton);
        QVERIFY(dialog->isPrefetching());
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->isPrefetching(), slowly);
        QVERIFY(dialog->isVisible()); // stays open, says why
        QVERIFY2(dialog->errorLabel()->text().contains(QStringLiteral("Couldn't resolve host")),
                 qPrintable(dialog->errorLabel()->text()));
        QVERIFY2(dialog->errorLabel()->text().contains(QString::fromLatin1(newPin)),
                 qPrintable(dialog->errorLabel()->text())); // the URL it could not download
        screenshot(dialog, "pins-bump-offline.png");

        // The download waits while a gate file exists: the progress bar is looked at while the
        // prefetch is known to be running, then the gate is removed to let the hash through.
        const QString gate = bin.filePath(QStringLiteral("gate"));
        QVERIFY(writeAll(gate, "closed"));
        stub("while [ -e '" + QFile::encodeName(gate) + "' ]; do sleep 0.05; done\necho " + hash +
             "\n");
        QTest::mouseClick(dialog->okButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->progressBar()->isVisible(), slowly);
        QVERIFY(dialog->isPrefetching());
        QVERIFY(QFile::remove(gate));
        auto* review = waitForModal<ChangeSetReviewDialog>();
        QVERIFY2(review, qPrintable(window.banner()->text()));
        QCOMPARE(recipeOperations(review->changeSet()), 66);
        for (const FileOperation& op : review->changeSet().operations) {
            if (!op.path.ends_with(".nix"))
                continue;
            QVERIFY2(op.after.find(hash.toStdString()) != std::string::npos, op.path.c_str());
            QVERIFY2(op.reason.find("needs a new hash") == std::string::npos, op.reason.c_str());
        }
        review->reject();
    }

    void alignToTheOtherRepository()
    {
        QTemporaryDir dir, other, plain;
        QVERIFY(makeRepository(dir.path()));
        QVERIFY(makeRepository(other.path(), newPin));
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openAndWait(window, dir.path()));

        // Behind the Branches tab, nothing is read: every branch is a libgit2 read.
        QCOMPARE(window.pinActions()->alignmentModel()->columnCount(), 0);
        QSignalSpy loaded(window.pinActions(), &PinActions::alignmentLoaded);
        menuAction(window, QStringLiteral("pinAlignmentAction"))->trigger();
        QVERIFY(loaded.wait(slowly));
        AlignmentView* view = window.pinActions()->alignmentView();
        AlignmentModel* model = window.pinActions()->alignmentModel();
        QCOMPARE(model->columnCount(), 2); // the name, main (work tree)
        QCOMPARE(model->mismatchCount(), 0);

        // A folder that is not a repository, then the other side.
        for (const QString& path : {plain.path(), other.path()}) {
            view->pathEdit()->setText(path);
            view->revisionEdit()->setText(path == other.path() ? QStringLiteral("main")
                                                               : QString());
            loaded.clear();
            QTest::mouseClick(view->addButton(), Qt::LeftButton);
            QVERIFY(loaded.wait(slowly));
        }
        QCOMPARE(model->columnCount(), 4);
        QVERIFY(view->messageLabel()->isVisible());
        QVERIFY2(view->messageLabel()->text().contains(QFileInfo(plain.path()).fileName()),
                 qPrintable(view->messageLabel()->text()));
        QCOMPARE(model->rowCount(), 3);
        QCOMPARE(model->mismatchCount(), 3);
        QCOMPARE(window.pinActions()->comparedRepositories().size(), 2);

        int cuda = -1;
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->index(r, 0).data().toString().contains(QStringLiteral("CUDA 12.9")))
                cuda = r;
        QVERIFY(cuda >= 0);
        const QModelIndex theirs = model->index(cuda, AlignmentModel::modelColumn(2));
        QCOMPARE(theirs.data().toString(), QStringLiteral("0182a36"));
        QVERIFY(theirs.data(AlignmentModel::CanAlignRole).toBool());
        QVERIFY(!view->alignAction()->isEnabled());
        view->tableView()->setCurrentIndex(theirs);
        QVERIFY(view->alignAction()->isEnabled());
        window.findChild<QDockWidget*>(QStringLiteral("alignmentDock"))->raise();
        screenshot(view, "pins-alignment.png");
        screenshot(&window, "pins-alignment-window.png");

        view->alignAction()->trigger();
        auto* review = waitForModal<ChangeSetReviewDialog>();
        QVERIFY2(review, qPrintable(window.banner()->text()));
        // Seed 000 in one click: every recipe, the README and the plan that quote the pin.
        QCOMPARE(recipeOperations(review->changeSet()), 66);
        QVERIFY(std::any_of(review->changeSet().operations.begin(),
                            review->changeSet().operations.end(),
                            [](const FileOperation& op) { return op.path == "README.md"; }));
        QVERIFY2(review->changeSet().title.find("0182a36") != std::string::npos,
                 review->changeSet().title.c_str());
        review->reject();

        // The folder that is not a repository leaves the comparison (its header's menu asks
        // for column 1, the first compared), its message with it, and the settings too.
        loaded.clear();
        emit view->removeRequested(1);
        QVERIFY(loaded.wait(slowly));
        QCOMPARE(model->columnCount(), 3);
        const QStringList left{other.path() + QStringLiteral("\tmain")};
        QCOMPARE(window.pinActions()->comparedRepositories(), left);
        QVERIFY(!view->messageLabel()->text().contains(QFileInfo(plain.path()).fileName()));
        QCOMPARE(QSettings()
                     .value(QStringLiteral("pins/comparedRepositories"))
                     .toMap()
                     .value(window.session()->rootPath())
                     .toStringList(),
                 left);
    }
};

QTEST_MAIN(TestPins)
#include "tst_pins.moc"
