// The docks at a usual screen size: each shows several rows of its content without being
// resized by hand, and a size the user gave a dock is there again when the window reopens.

#include "../recipes/testrepository.h"
#include "ansilogview.h"
#include "detailspanel.h"
#include "dockfitter.h"
#include "filterbar.h"
#include "guitestsupport.h"
#include "itemmodels/alignmentmodel.h"
#include "logpane.h"
#include "mainwindow.h"
#include "matrixview.h"
#include "pinactions.h"
#include "sessions/buildsession.h"
#include "sessions/repositorysession.h"

#include <QAbstractItemView>
#include <QDockWidget>
#include <QHeaderView>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScreen>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTextEdit>
#include <QTreeView>

using namespace rg;
using namespace rg::test;

namespace {

constexpr int slowly = 30000;
constexpr int severalRows = 5;

// What a dock is read through: its list or table, else its text.
QAbstractScrollArea* contentOf(QDockWidget* dock)
{
    auto views = dock->widget()->findChildren<QAbstractItemView*>();
    if (auto* view = qobject_cast<QAbstractItemView*>(dock->widget()))
        views.prepend(view);
    for (QAbstractItemView* view : views)
        if (view->isVisible() && !qobject_cast<QHeaderView*>(view))
            return view;
    const auto texts = dock->widget()->findChildren<QAbstractScrollArea*>();
    for (QAbstractScrollArea* text : texts)
        if (text->isVisible())
            return text;
    return qobject_cast<QAbstractScrollArea*>(dock->widget());
}

// The height of one row as the view draws it (or would, while it is empty).
int rowHeight(QAbstractScrollArea* area)
{
    auto* view = qobject_cast<QAbstractItemView*>(area);
    if (!view)
        return area->fontMetrics().lineSpacing();
    if (view->model() && view->model()->rowCount() > 0)
        return view->visualRect(view->model()->index(0, 0)).height();
    if (auto* table = qobject_cast<QTableView*>(view))
        return table->verticalHeader()->defaultSectionSize();
    return view->fontMetrics().height() + 4;
}

// The height `rows` rows take: each row's own (a wrapped finding is several lines tall), or, for
// a text view or a list without rows, `rows` times one.
int heightOfRows(QAbstractScrollArea* area, int rows)
{
    auto* view = qobject_cast<QAbstractItemView*>(area);
    if (!view || !view->model() || view->model()->rowCount() == 0)
        return rows * rowHeight(area);
    int height = 0;
    for (int row = 0; row < std::min(rows, view->model()->rowCount()); ++row)
        height += view->visualRect(view->model()->index(row, 0)).height();
    return height;
}

void screenshot(QWidget* widget, const QString& name)
{
    // By default a folder of this run's own, kept for a person to look at and named once; a fixed
    // one would mix two runs' pictures.
    static const QString directory = [] {
        QString chosen = qEnvironmentVariable("RG_SCREENSHOTS");
        if (chosen.isEmpty()) {
            QTemporaryDir made(QDir::tempPath() + QStringLiteral("/recipegrid-screenshots-XXXXXX"));
            made.setAutoRemove(false);
            chosen = made.path();
        }
        qInfo("screenshots: %s", qPrintable(chosen));
        return chosen;
    }();
    QVERIFY(QDir().mkpath(directory));
    QTest::qWait(50); // layouts settle
    QVERIFY(widget->grab().save(directory + QLatin1Char('/') + name));
}

// seed001-start with a second branch, and its canonical recipe copied to other Pythons and
// CUDA versions: the Pin Alignment dock gets a row per Python × accelerator, more than fit.
void makeRepository(const TestRepository& repo)
{
    repo.copyFrom(QStringLiteral(RG_FIXTURES_DIR "/seed001-start"));
    const QByteArray canonical =
        readAll(repo.root() + "/" + recipe("pytorch-python313-cuda13_0-sm120-avx512"));
    for (const char* python : {"python311", "python312"})
        for (const char* cuda : {"cuda12_6", "cuda12_8", "cuda12_9", "cuda13_0"})
            repo.writeRecipe(QStringLiteral("pytorch-%1-%2-sm120-avx512.nix")
                                 .arg(QLatin1String(python), QLatin1String(cuda)),
                             canonical);
    repo.git({QStringLiteral("init"), QStringLiteral("-q")});
    repo.commitAll(QStringLiteral("seed 001"));
    repo.git({QStringLiteral("branch"), QStringLiteral("cuda-12_9")});
}

bool openAndWait(MainWindow& window, const QString& path)
{
    QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
    window.openRepository(path);
    return changed.wait(slowly);
}

// The window at 1600 × 1000, shown, with `path` opened and analysed.
bool openOnADesktop(MainWindow& window, const QString& path)
{
    window.resize(1600, 1000);
    window.show();
    return QTest::qWaitForWindowExposed(&window) && openAndWait(window, path);
}

// Opens the fixture in `window` and builds its one sound recipe (without the redundant -magma
// copy beside it, so no question comes first) with a command that prints 40 lines; the
// build's log pane, or null.
LogPane* buildFortyLines(MainWindow& window, const TestRepository& repo)
{
    makeRepository(repo);
    if (!QFile::remove(repo.root() + "/" +
                       recipe("pytorch-python313-cuda13_0-sm120-avx512-magma")) ||
        !openOnADesktop(window, repo.root()))
        return nullptr;
    BuildSettings settings = window.builds()->settings();
    settings.backend = BackendKind::Custom;
    settings.customCommand = QStringLiteral("seq 1 40");
    settings.verify = false;
    window.builds()->setSettings(settings);
    if (!window.selectCell(CellSelector("pytorch-python313-cuda13_0-sm120-avx512")))
        return nullptr;
    window.buildAction()->trigger();
    if (!QTest::qWaitFor([&] { return window.logTabs()->count() == 1; }, slowly))
        return nullptr;
    return qobject_cast<LogPane*>(window.logTabs()->currentWidget());
}

} // namespace

class TestDocks : public QObject
{
    Q_OBJECT
private slots:
    void init() { isolateSettings(); } // each test starts as a new user

    // A first start on a 1600 × 1000 screen: the window fits the screen, the demo's grid shows
    // every ISA column without scrolling sideways, and a broken cell's findings get the larger
    // part of the Details dock, several rows of them.
    void firstWindowFitsTheScreen()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
        QVERIFY(window.openDemo());
        QVERIFY(changed.wait(slowly));
        QTest::qWait(200);
        // Sizes only: without a window manager, Xvfb puts the frame a pixel off the screen.
        const QSize screen = window.screen()->availableGeometry().size();
        const QSize frame = window.frameGeometry().size();
        QVERIFY2(frame.width() <= screen.width() && frame.height() <= screen.height() &&
                     frame.width() >= screen.width() * 9 / 10,
                 qPrintable(QStringLiteral("%1x%2 on %3x%4")
                                .arg(frame.width())
                                .arg(frame.height())
                                .arg(screen.width())
                                .arg(screen.height())));
        MatrixView* grid = window.matrixView();
        QVERIFY(grid->model()->columnCount() >= 7);
        QVERIFY2(!grid->horizontalScrollBar()->isVisible(),
                 qPrintable(QStringLiteral("the grid needs %1 px, its viewport has %2")
                                .arg(grid->horizontalHeader()->length())
                                .arg(grid->viewport()->width())));
        QVERIFY(window.selectCell(CellSelector("pytorch-python313-cuda13_0-sm89-avx2")));
        QTest::qWait(100);
        QTreeView* findings = window.detailsPanel()->findingsView();
        const int rowHeight = findings->fontMetrics().height();
        QVERIFY2(findings->viewport()->height() >= 6 * rowHeight,
                 qPrintable(QStringLiteral("findings %1 px for rows of %2 px")
                                .arg(findings->viewport()->height())
                                .arg(rowHeight)));
    }

    // At 1600 × 1000, a first start: every dock, brought to the front, shows several rows of
    // its list (all of them when it has fewer), the text docks several lines.
    void everyDockShowsSeveralRows()
    {
        TestRepository repo;
        makeRepository(repo);
        MainWindow window;
        QVERIFY(openOnADesktop(window, repo.root()));
        QSignalSpy loaded(window.pinActions(), &PinActions::alignmentLoaded);
        // Its tab clicked, as a user finds it: behind Branches until then.
        window.findChild<QDockWidget*>(QStringLiteral("alignmentDock"))->raise();
        QVERIFY(loaded.wait(slowly));
        QVERIFY2(window.pinActions()->alignmentModel()->rowCount() > severalRows,
                 "too few rows for the test to mean anything");

        const auto docks = window.findChildren<QDockWidget*>();
        QVERIFY(docks.size() >= 6);
        for (QDockWidget* dock : docks) {
            dock->show();
            dock->raise();
            QAbstractScrollArea* content = contentOf(dock);
            QVERIFY2(content, qPrintable(dock->objectName()));
            auto* list = qobject_cast<QAbstractItemView*>(content);
            const int rows = list ? std::min(list->model()->rowCount(), severalRows) : severalRows;
            // A raised dock is laid out by queued events: wait for the layout to give it its
            // rows (on a busy machine that takes longer than any fixed pause), and fail with
            // the height it kept if it never does.
            const auto showsRows = [&] {
                return rowHeight(content) > 0 &&
                       content->viewport()->height() >= heightOfRows(content, rows);
            };
            QTRY_VERIFY2_WITH_TIMEOUT(
                showsRows(),
                qPrintable(QStringLiteral("%1 (%2): %3 px for %4 rows of %5 px in all")
                               .arg(dock->objectName(),
                                    QString::fromLatin1(content->metaObject()->className()))
                               .arg(content->viewport()->height())
                               .arg(rows)
                               .arg(heightOfRows(content, rows))),
                5000);
            screenshot(&window, dock->objectName() + QStringLiteral(".png"));
        }
    }

    // A build started from the window at 1600 × 1000: its log, in the Builds dock, shows
    // several lines without a resize (it showed four), and the jobs table keeps its row.
    void aBuildLogShowsSeveralLines()
    {
        TestRepository repo;
        MainWindow window;
        LogPane* pane = buildFortyLines(window, repo);
        QVERIFY(pane);
        QTRY_VERIFY2_WITH_TIMEOUT(
            pane->textView()->visibleLineCount() >= DockFitter::severalLogLines,
            qPrintable(
                QStringLiteral("%1 lines in sight").arg(pane->textView()->visibleLineCount())),
            5000);
        auto* jobs = window.findChild<QDockWidget*>(QStringLiteral("buildsDock"))
                         ->findChild<QAbstractItemView*>();
        QVERIFY(jobs && jobs->model()->rowCount() == 1);
        QVERIFY2(jobs->viewport()->height() >= rowHeight(jobs),
                 qPrintable(QString::number(jobs->viewport()->height())));
        screenshot(&window, QStringLiteral("build-log.png"));
        // The grid keeps the larger part of the window.
        QVERIFY2(window.matrixView()->height() >= window.height() / 3,
                 qPrintable(QString::number(window.matrixView()->height())));
    }

    // Ctrl+F searches the log while a log pane has the focus, and focuses the grid's filter
    // elsewhere; F3 finds the next match in the log. Qt drops a key that two shortcuts claim
    // at once, so neither may take the other's place.
    void findKeysGoWhereTheFocusIs()
    {
        TestRepository repo;
        MainWindow window;
        LogPane* pane = buildFortyLines(window, repo);
        QVERIFY(pane);
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTRY_VERIFY_WITH_TIMEOUT(pane->lineCount() >= 40, slowly);
        auto* search = pane->findChild<QLineEdit*>();
        QVERIFY(search);

        pane->textView()->setFocus();
        QTest::keyClick(pane->textView(), Qt::Key_F, Qt::ControlModifier);
        QCOMPARE(QApplication::focusWidget(), search);
        QTest::keyClicks(search, QStringLiteral("17"));
        QTest::keyClick(search, Qt::Key_F3);
        QCOMPARE(pane->textView()->selectedText(), QStringLiteral("17"));

        window.matrixView()->setFocus();
        QTest::keyClick(window.matrixView(), Qt::Key_F, Qt::ControlModifier);
        QCOMPARE(QApplication::focusWidget(), window.filterBar()->lineEdit());
    }

    // A dock the user made taller, and one made wider, keep their sizes across a restart.
    void resizedDocksSurviveARestart()
    {
        int alignmentHeight = 0;
        int detailsWidth = 0;
        {
            MainWindow window;
            window.resize(1600, 1000);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            auto* alignment = window.findChild<QDockWidget*>(QStringLiteral("alignmentDock"));
            auto* details = window.findChild<QDockWidget*>(QStringLiteral("detailsDock"));
            QVERIFY(alignment && details);
            alignment->raise();
            window.resizeDocks({alignment}, {430}, Qt::Vertical);
            window.resizeDocks({details}, {700}, Qt::Horizontal);
            QTest::qWait(50);
            alignmentHeight = alignment->height();
            detailsWidth = details->width();
            QVERIFY2(alignmentHeight > 380, qPrintable(QString::number(alignmentHeight)));
            QVERIFY2(detailsWidth > 650, qPrintable(QString::number(detailsWidth)));
            QVERIFY(window.close());
        }
        MainWindow again;
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        // Qt 6.8 restores the frame geometry and, without a window manager, guesses the frame:
        // the restored size may be off by a guessed title bar.
        QVERIFY2(qAbs(again.width() - 1600) <= 30 && qAbs(again.height() - 1000) <= 30,
                 qPrintable(QStringLiteral("%1x%2").arg(again.width()).arg(again.height())));
        again.resize(1600, 1000);
        auto* alignment = again.findChild<QDockWidget*>(QStringLiteral("alignmentDock"));
        auto* details = again.findChild<QDockWidget*>(QStringLiteral("detailsDock"));
        alignment->raise();
        QTest::qWait(50);
        QVERIFY2(
            qAbs(alignment->height() - alignmentHeight) <= 2,
            qPrintable(QStringLiteral("%1 then %2").arg(alignmentHeight).arg(alignment->height())));
        QVERIFY2(qAbs(details->width() - detailsWidth) <= 2,
                 qPrintable(QStringLiteral("%1 then %2").arg(detailsWidth).arg(details->width())));
    }
};

QTEST_MAIN(TestDocks)
#include "tst_docks.moc"
