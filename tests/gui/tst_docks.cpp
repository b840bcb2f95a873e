// The docks at a usual screen size: each shows several rows of its content without being
// resized by hand, and a size the user gave a dock is there again when the window reopens.

#include "../recipes/testrepository.h"
#include "guitestsupport.h"
#include "mainwindow.h"
#include "pinactions.h"
#include "recipes/repositorysession.h"

#include <QAbstractItemView>
#include <QDockWidget>
#include <QHeaderView>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTextEdit>

using namespace rg;
using namespace rg::test;

namespace {

constexpr int slowly = 30000;
constexpr int severalRows = 5;

QAction* menuAction(MainWindow& window, const QString& objectName)
{
    for (QAction* menu : window.menuBar()->actions())
        if (menu->menu())
            for (QAction* action : menu->menu()->actions())
                if (action->objectName() == objectName)
                    return action;
    return nullptr;
}

// What a dock is read through: its list or table, else its text.
QAbstractScrollArea* contentOf(QDockWidget* dock)
{
    const auto views = dock->widget()->findChildren<QAbstractItemView*>();
    for (QAbstractItemView* view : views)
        if (view->isVisible())
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

void screenshot(QWidget* widget, const QString& name)
{
    const QString directory =
        qEnvironmentVariable("RG_SCREENSHOTS", QStringLiteral("/tmp/recipegrid-screenshots"));
    QDir().mkpath(directory);
    QTest::qWait(50); // layouts settle
    QVERIFY(widget->grab().save(directory + QLatin1Char('/') + name));
}

// seed001-start with a second branch, so the Branches and Pin Alignment docks have rows.
void makeRepository(const TestRepository& repo)
{
    repo.copyFrom(QStringLiteral(RG_FIXTURES_DIR "/seed001-start"));
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

} // namespace

class TestDocks : public QObject
{
    Q_OBJECT
private slots:
    void init() { isolateSettings(); } // each test starts as a new user

    // At 1600 × 1000, a first start: every dock, brought to the front, shows several rows.
    void everyDockShowsSeveralRows()
    {
        TestRepository repo;
        makeRepository(repo);
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openAndWait(window, repo.root()));
        QSignalSpy loaded(window.pinActions(), &PinActions::alignmentLoaded);
        menuAction(window, QStringLiteral("pinAlignmentAction"))->trigger();
        QVERIFY(loaded.wait(slowly));

        const auto docks = window.findChildren<QDockWidget*>();
        QVERIFY(docks.size() >= 6);
        for (QDockWidget* dock : docks) {
            dock->show();
            dock->raise();
            QTest::qWait(50);
            QAbstractScrollArea* content = contentOf(dock);
            QVERIFY2(content, qPrintable(dock->objectName()));
            const int row = rowHeight(content);
            QVERIFY(row > 0);
            const int shown = content->viewport()->height();
            QVERIFY2(shown >= severalRows * row,
                     qPrintable(QStringLiteral("%1: %2 px for rows of %3 px")
                                    .arg(dock->objectName())
                                    .arg(shown)
                                    .arg(row)));
            screenshot(&window, dock->objectName() + QStringLiteral(".png"));
        }
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
        QCOMPARE(again.size(), QSize(1600, 1000));
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
