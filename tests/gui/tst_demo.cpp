// `recipegrid --demo`: the bundled repository becomes a git work tree with two branches and a
// cell of every status; the window renders it (saved as a PNG beside the build for a look)
// and the branch overview analyses both branches from git.

#include "branchoverviewview.h"
#include "demorepository.h"
#include "guitestsupport.h"
#include "itemmodels/branchoverviewmodel.h"
#include "itemmodels/matrixmodel.h"
#include "mainwindow.h"
#include "matrixview.h"
#include "messagebanner.h"
#include "sessions/repositorysession.h"
#include "statusstyle.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QSignalSpy>
#include <set>

using namespace rg;
using namespace rg::test;

namespace {

int pixelsNear(const QImage& image, const QColor& color, int tolerance = 24)
{
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (std::abs(c.red() - color.red()) + std::abs(c.green() - color.green()) +
                    std::abs(c.blue() - color.blue()) <
                tolerance)
                ++n;
        }
    return n;
}

} // namespace

class TestDemo : public QObject
{
    Q_OBJECT
    QStringList m_demos; // temporary work trees openDemo() made: each went with its window

private slots:
    void initTestCase() { isolateSettings(); }
    void cleanupTestCase()
    {
        for (const QString& demo : std::as_const(m_demos)) {
            const bool left = QFileInfo::exists(demo);
            QDir(demo).removeRecursively();
            QVERIFY2(!left, qPrintable(demo + QStringLiteral(" outlived its window")));
        }
    }

    // The demo is a temporary copy, never in the recent list: a second demo replaces the
    // first, and closing the window removes it, edits and all.
    void demoCopyGoesWithItsWindow()
    {
        QString first;
        QString second;
        {
            MainWindow window;
            QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
            QVERIFY(window.openDemo());
            first = window.demoPath();
            QVERIFY(changed.wait(10000));
            QVERIFY(QFileInfo(first + QStringLiteral("/.git")).isDir());
            QVERIFY(writeAll(first + QStringLiteral("/notes.txt"), "an edit\n"));
            QVERIFY(window.openDemo());
            second = window.demoPath();
            QVERIFY(second != first);
            QVERIFY(!QFileInfo::exists(first));
            QVERIFY(changed.wait(10000));
            QCOMPARE(window.session()->rootPath(), second);
            QVERIFY(window.session()->analysis());
            QVERIFY(!window.session()->analysis()->cells.empty());
        }
        QVERIFY(!QFileInfo::exists(second));
    }

    void demoIsAGitRepositoryWithTwoBranches()
    {
        QVERIFY(DemoRepository::files().contains(QStringLiteral(".flox/recipegrid.json")));
        QTemporaryDir parent;
        QString error;
        const QString root = DemoRepository::create(&error, parent.path());
        QVERIFY2(!root.isEmpty(), qPrintable(error));
        QVERIFY(root.startsWith(parent.path()));
        const SessionGitInfo git = SessionGitInfo::read(root.toStdString());
        QVERIFY(git.isRepository);
        QCOMPARE(git.branch, std::string("cuda-13_0"));
        QVERIFY(!git.dirty);
        QCOMPARE(SessionGitInfo::localBranches(root.toStdString(), nullptr),
                 (std::vector<std::string>{"cuda-13_0", "main"}));
        for (const QString& file : DemoRepository::files())
            QVERIFY2(QFileInfo::exists(root + "/" + file), qPrintable(file));
    }

    void demoWindowShowsEveryStatus()
    {
        MainWindow window;
        window.resize(1500, 920);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
        QVERIFY(window.openDemo());
        m_demos << window.demoPath();
        QVERIFY(changed.wait(10000));
        QVERIFY(window.isShowingGrid());
        const auto analysis = window.session()->analysis();
        const auto counts = analysis->counts();
        // The demo has a spec, and gaps exist only without one (a spec says what is missing).
        // Unchecked takes a recipe nested deeper than RecipeGrid reads, which no demo should
        // hold (tst_rules and tst_checkcommand show it).
        const auto specStatuses = [](int i) {
            return CellStatus(i) != CellStatus::Gap && CellStatus(i) != CellStatus::Unchecked;
        };
        for (int i = 0; i < cellStatusCount; ++i)
            if (specStatuses(i))
                QVERIFY2(counts[size_t(i)] > 0, cellStatusId(CellStatus(i)).data());
        QCOMPARE(counts[size_t(CellStatus::Gap)], 0);
        QVERIFY(window.gitText().contains(QStringLiteral("cuda-13_0")));
        QVERIFY(window.gitText().contains(QStringLiteral("clean")));

        // Every status is somewhere in the grid, not only in the counts.
        std::set<int> shown;
        MatrixModel* model = window.matrixModel();
        for (int r = 0; r < model->rowCount(); ++r)
            for (int c = 0; c < model->columnCount(); ++c) {
                const QModelIndex index = model->index(r, c);
                for (const QVariant& status : index.data(MatrixModel::StatusesRole).toList())
                    shown.insert(status.toInt());
                for (const QVariant& extras : index.data(MatrixModel::ExtraStatusesRole).toList())
                    for (const QVariant& status : extras.toList())
                        shown.insert(status.toInt());
            }
        for (int i = 0; i < cellStatusCount; ++i)
            if (specStatuses(i))
                QVERIFY2(shown.count(i), cellStatusId(CellStatus(i)).data());

        QVERIFY(window.selectCell(CellSelector("pytorch-python313-cuda13_0-sm89-avx2")));
        QSignalSpy preview(&window, &MainWindow::previewUpdated);
        QVERIFY(preview.count() > 0 || preview.wait(5000));

        const QImage image = window.grab().toImage().convertToFormat(QImage::Format_RGB32);
        const QString png = QStringLiteral(RG_BINARY_DIR "/screenshots/demo-window.png");
        QDir().mkpath(QFileInfo(png).absolutePath());
        QVERIFY(image.save(png));
        QVERIFY(image.width() >= 1000 && image.height() >= 600);
        std::set<QRgb> distinct;
        for (int y = 0; y < image.height(); y += 2)
            for (int x = 0; x < image.width(); x += 2)
                distinct.insert(image.pixel(x, y));
        QVERIFY2(distinct.size() > 200, qPrintable(QString::number(distinct.size())));
        const QImage grid = window.matrixView()->viewport()->grab().toImage();
        for (CellStatus status :
             {CellStatus::Ok, CellStatus::Broken, CellStatus::Redundant, CellStatus::Missing,
              CellStatus::Unexpected, CellStatus::Impossible})
            QVERIFY2(pixelsNear(grid, StatusStyle::color(status, window.palette())) > 30,
                     cellStatusId(status).data());
    }

    void darkPaletteFollows()
    {
        const QPalette light = QApplication::palette();
        QPalette dark = light;
        dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
        dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
        dark.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
        dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
        dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
        dark.setColor(QPalette::Button, QColor(0x33, 0x33, 0x33));
        dark.setColor(QPalette::ButtonText, QColor(0xe0, 0xe0, 0xe0));
        QApplication::setPalette(dark);
        {
            MainWindow window;
            window.resize(1500, 920);
            window.show();
            QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
            QVERIFY(window.openDemo());
            m_demos << window.demoPath();
            QVERIFY(changed.wait(10000));
            QVERIFY(window.selectCell(CellSelector("pytorch-python313-cuda13_0-sm110-armv9")));
            QSignalSpy preview(&window, &MainWindow::previewUpdated);
            QVERIFY(preview.count() > 0 || preview.wait(5000));
            const QImage image = window.grab().toImage().convertToFormat(QImage::Format_RGB32);
            QVERIFY(image.save(QStringLiteral(RG_BINARY_DIR "/screenshots/demo-window-dark.png")));
            // Dark palette → the light variants of the status colours, on a dark grid.
            const QImage grid = window.matrixView()->viewport()->grab().toImage();
            QVERIFY(StatusStyle::isDark(window.matrixView()->palette()));
            for (CellStatus status : {CellStatus::Ok, CellStatus::Broken, CellStatus::Missing})
                QVERIFY2(pixelsNear(grid, StatusStyle::color(status, dark)) > 30,
                         cellStatusId(status).data());
            QVERIFY(pixelsNear(grid, QColor(0x1e, 0x1e, 0x1e), 4) >
                    grid.width() * grid.height() / 4);
        }
        QApplication::setPalette(light);
    }

    void branchOverviewOpensRevisionsReadOnly()
    {
        MainWindow window;
        window.show();
        QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
        QVERIFY(window.openDemo());
        m_demos << window.demoPath();
        QVERIFY(changed.wait(10000));
        BranchOverviewModel* branches = window.branchModel();
        QAbstractItemModelTester tester(branches,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_VERIFY_WITH_TIMEOUT(!branches->isLoading(), 10000);
        QCOMPARE(branches->rowCount(), 2);
        const auto countOf = [&](int row, CellStatus status) {
            return branches->index(row, BranchOverviewModel::FirstStatusColumn + int(status))
                .data()
                .toInt();
        };
        QCOMPARE(branches->index(0, 0).data(BranchOverviewModel::BranchRole).toString(),
                 QStringLiteral("cuda-13_0"));
        QVERIFY(branches->index(0, 0).data().toString().contains(QStringLiteral("checked out")));
        QCOMPARE(countOf(1, CellStatus::Ok), 1);     // main: seed 001's one correct recipe
        QCOMPARE(countOf(1, CellStatus::Broken), 4); // sm110 ×2, nightly, stray sm120-avx
        QCOMPARE(countOf(1, CellStatus::Unexpected), 0);
        QCOMPARE(countOf(0, CellStatus::Ok), window.session()->analysis()->counts()[0]);

        // Activating a branch row (Enter / double-click) opens that branch from git.
        auto* view = window.findChild<BranchOverviewView*>();
        QVERIFY(view);
        emit view->activated(branches->index(1, 0));
        QVERIFY(changed.wait(10000));
        QVERIFY(window.session()->isReadOnly());
        QVERIFY(window.windowTitle().contains(QStringLiteral("main")));
        QCOMPARE(window.banner()->kind(), MessageBanner::Kind::Info);
        QVERIFY(window.banner()->text().contains(QStringLiteral("read-only")));
        QCOMPARE(window.session()->analysis()->counts()[size_t(CellStatus::Ok)], 1);
    }
};

QTEST_MAIN(TestDemo)
#include "tst_demo.moc"
