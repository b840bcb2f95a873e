// Speed targets of the window (run by hand, reported; CTest only builds this):
//   open a 250-recipe repository to the first painted grid   < 1 s
//   re-scan after one file changed                           < 50 ms
//   full repaint of the grid of a 2,000-recipe repository    < 16 ms
// Repositories come from tests/tools/make_repo.py (deterministic, realistic ~5 KB recipes).

#include "../benchsupport.h"
#include "itemmodels/matrixmodel.h"
#include "mainwindow.h"
#include "matrixview.h"
#include "sessions/repositorysession.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>
#include <benchmark/benchmark.h>
#include <map>
#include <memory>

using namespace rg;

namespace {

// One generated repository per size for the whole run.
QString repository(int recipes)
{
    static std::map<int, std::unique_ptr<QTemporaryDir>> made;
    auto& dir = made[recipes];
    if (!dir) {
        dir = std::make_unique<QTemporaryDir>();
        const QString out = dir->filePath(QStringLiteral("repo"));
        QProcess process;
        process.start(QStringLiteral("python3"),
                      {QStringLiteral(RG_SOURCE_DIR "/tests/tools/make_repo.py"),
                       QString::number(recipes), out});
        if (!process.waitForFinished(120000) || process.exitCode() != 0)
            qFatal("make_repo.py failed: %s", process.readAllStandardError().constData());
    }
    return dir->filePath(QStringLiteral("repo"));
}

// Runs the event loop until the session delivers its next analysis.
bool waitForAnalysis(RepositorySession* session, int timeoutMs = 60000)
{
    QEventLoop loop;
    bool arrived = false;
    const auto connection =
        QObject::connect(session, &RepositorySession::analysisChanged, &loop, [&] {
            arrived = true;
            loop.quit();
        });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    loop.exec();
    QObject::disconnect(connection);
    return arrived;
}

void BM_OpenToFirstPaintedGrid(benchmark::State& state)
{
    const QString path = repository(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        MainWindow window;
        window.resize(1500, 920);
        window.show();
        QCoreApplication::processEvents();
        QElapsedTimer timer;
        timer.start();
        window.openRepository(path);
        if (!waitForAnalysis(window.session())) {
            rg::bench::fail(state, "no analysis");
            return;
        }
        window.matrixView()->viewport()->repaint(); // the first painted grid
        state.SetIterationTime(static_cast<double>(timer.nsecsElapsed()) / 1e9);
    }
    state.counters["recipes"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_OpenToFirstPaintedGrid)
    ->Arg(250)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);

void BM_RescanAfterOneFileChanged(benchmark::State& state)
{
    const QString path = repository(static_cast<int>(state.range(0)));
    RepositorySession session;
    session.setDebounceInterval(600000); // reload() below, not the watcher, starts each scan
    session.openWorkTree(path);
    if (!waitForAnalysis(&session)) {
        rg::bench::fail(state, "no analysis");
        return;
    }
    const auto analysis = session.analysis();
    QString file;
    for (const Cell& entry : analysis->cells)
        if (entry.recipe) {
            file = session.absolutePath(QString::fromStdString(entry.recipe->path));
            break;
        }
    int round = 0;
    for (auto _ : state) {
        QFile out(file);
        out.open(QIODevice::Append);
        out.write(QByteArray("# edit ") + QByteArray::number(++round) + '\n');
        out.close();
        QElapsedTimer timer;
        timer.start();
        session.reload();
        if (!waitForAnalysis(&session)) {
            rg::bench::fail(state, "no re-scan");
            return;
        }
        state.SetIterationTime(static_cast<double>(timer.nsecsElapsed()) / 1e9);
        if (session.lastParsedCount() != 1) {
            rg::bench::fail(state, "more than the changed file was parsed");
            return;
        }
    }
    state.counters["parsed"] = session.lastParsedCount();
}
BENCHMARK(BM_RescanAfterOneFileChanged)
    ->Arg(250)
    ->Arg(2000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_FullGridRepaint(benchmark::State& state)
{
    const QString path = repository(static_cast<int>(state.range(0)));
    const bool allSlices = state.range(1) != 0;
    RepositorySession session;
    session.openWorkTree(path);
    if (!waitForAnalysis(&session)) {
        rg::bench::fail(state, "no analysis");
        return;
    }
    MatrixModel model;
    const auto slices = MatrixSlice::slicesOf(*session.analysis());
    model.setSlices(
        allSlices ? slices : std::vector<MatrixSlice>{*MatrixSlice::busiest(*session.analysis())});
    model.setAnalysis(session.analysis());
    MatrixView view;
    view.setModel(&model);
    view.resize(1600, 1000);
    view.show();
    QCoreApplication::processEvents();
    for (auto _ : state) {
        QElapsedTimer timer;
        timer.start();
        view.viewport()->repaint();
        state.SetIterationTime(static_cast<double>(timer.nsecsElapsed()) / 1e9);
    }
    state.counters["cells"] = model.rowCount() * model.columnCount();
    state.counters["slices"] = static_cast<double>(model.slices().size());
}
BENCHMARK(BM_FullGridRepaint)
    ->Args({2000, 0})
    ->Args({2000, 1})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // The window's settings and build history in a folder of this run's own, not the user's.
    QTemporaryDir settings;
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(settings.filePath(QStringLiteral("config"))));
    qputenv("XDG_DATA_HOME", QFile::encodeName(settings.filePath(QStringLiteral("data"))));
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("RecipeGridBench"));
    return rg::bench::runAll(argc, argv);
}
