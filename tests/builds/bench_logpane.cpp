// LogPane ingest from a real child process through BuildQueue, against a naive
// appendPlainText-per-line view; and the memory of a pane fed 5,000,000 lines.
// Run: QT_QPA_PLATFORM=offscreen ./bench_logpane
// Counters: lines/s, MB/s, the longest event-loop stall seen by a 5 ms timer probe, peak RSS.

#include "../benchsupport.h"
#include "ansilogview.h"
#include "builds/buildqueue.h"
#include "builds/logstore.h"
#include "logpane.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTimer>
#include <benchmark/benchmark.h>
#include <sys/resource.h>

using namespace rg;

namespace {

// The longest gap between 5 ms ticks beyond the 5 ms, while it lives.
class StallProbe
{
public:
    StallProbe()
    {
        m_timer.setInterval(5);
        m_timer.setTimerType(Qt::PreciseTimer);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            if (m_last >= 0)
                m_maxLateNs = std::max(m_maxLateNs, now - m_last - 5'000'000);
            m_last = now;
        });
        m_clock.start();
        m_timer.start();
    }
    double maxStallMs() const { return double(m_maxLateNs) / 1e6; }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = -1;
    qint64 m_maxLateNs = 0;
};

long peakRssKb()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').first().toLong();
    }
    return -1;
}

long rssKb()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLong();
    }
    return -1;
}

// A build-like log: ninja progress, colours, ~90 bytes a line.
ProcessSpec generator(int lines, bool colours)
{
    ProcessSpec spec;
    spec.program = QStringLiteral("awk");
    const QString format = colours
                               ? QStringLiteral("[%d/%d] \\033[32mBuilding CXX object\\033[0m "
                                                "caffe2/CMakeFiles/torch_cpu.dir/file_%d.cpp.o\\n")
                               : QStringLiteral("[%d/%d] Building CXX object "
                                                "caffe2/CMakeFiles/torch_cpu.dir/file_%d.cpp.o\\n");
    spec.arguments = {
        QStringLiteral("-v"), QStringLiteral("n=%1").arg(lines),
        QStringLiteral("BEGIN { for (i = 1; i <= n; i++) printf \"%1\", i, n, i }").arg(format)};
    spec.workingDirectory = QDir::tempPath();
    return spec;
}

double cpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
           (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

struct Run
{
    double cpu = 0; // this process only (the generator is a child)
    double seconds = 0;
    double stallMs = 0;
    qint64 bytes = 0;
    std::string error; // the stream did not complete: nothing was measured
};

// Streams `lines` lines from a child through BuildQueue into `sink`; returns when the queue
// is idle and the sink has shown everything (`done`), or with an error when the generator
// failed or the sink did not show everything within a minute of the job's end.
template <typename Attach, typename Done>
Run stream(int lines, bool colours, Attach attach, Done done)
{
    QTemporaryDir dir;
    LogStore logs(dir.filePath("logs"));
    BuildQueue queue;
    queue.setLogStore(&logs);
    BuildTarget target;
    target.variant = QStringLiteral("bench");
    StallProbe probe;
    QElapsedTimer clock;
    clock.start();
    const double cpuStart = cpuSeconds();
    const quint64 id = queue.enqueueProcess(target, generator(lines, colours), JobKind::Build,
                                            BackendKind::Custom, false);
    attach(queue, id);
    Run run;
    QElapsedTimer sinceFinished;
    while (!queue.job(id)->isFinished() || !done()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        if (!queue.job(id)->isFinished())
            continue;
        if (queue.job(id)->state != JobState::Succeeded) {
            run.error = "the log generator failed (" +
                        jobStateName(queue.job(id)->state).toStdString() + ")";
            return run;
        }
        if (!sinceFinished.isValid())
            sinceFinished.start();
        if (sinceFinished.elapsed() > 60000) {
            run.error = "the sink had not shown every line a minute after the job ended";
            return run;
        }
    }
    run.seconds = clock.nsecsElapsed() / 1e9;
    run.cpu = cpuSeconds() - cpuStart;
    run.stallMs = probe.maxStallMs();
    run.bytes = QFileInfo(logs.logPath(id)).size();
    return run;
}

// false, with the benchmark stopped, when the run measured nothing.
bool report(benchmark::State& state, const Run& run, int lines)
{
    if (!run.error.empty()) {
        rg::bench::fail(state, run.error);
        return false;
    }
    state.SetIterationTime(run.seconds);
    state.counters["lines_per_s"] = lines / run.seconds;
    state.counters["MB_per_s"] = run.bytes / run.seconds / 1e6;
    state.counters["max_stall_ms"] = run.stallMs;
    state.counters["seconds"] = run.seconds;
    // The machine may be shared: lines per CPU-second of this process is the rate it could
    // sustain with a core to itself.
    state.counters["lines_per_cpu_s"] = lines / run.cpu;
    return true;
}

void BM_LogPaneIngest(benchmark::State& state)
{
    const int lines = int(state.range(0));
    const bool colours = state.range(1) != 0;
    for (auto _ : state) {
        LogPane pane;
        pane.resize(1200, 700);
        pane.show();
        const QString last = QStringLiteral("file_%1.cpp.o").arg(lines);
        const Run run = stream(
            lines, colours, [&](BuildQueue& q, quint64 id) { pane.attachJob(&q, id); },
            [&] { return pane.textView()->lineText(pane.lineCount() - 1).endsWith(last); });
        if (!report(state, run, lines))
            return;
        state.counters["lines_shown"] = pane.lineCount();
    }
}

void BM_NaiveAppendPerLine(benchmark::State& state)
{
    const int lines = int(state.range(0));
    for (auto _ : state) {
        QPlainTextEdit view;
        view.setReadOnly(true);
        view.setMaximumBlockCount(50000);
        view.setLineWrapMode(QPlainTextEdit::NoWrap);
        view.resize(1200, 700);
        view.show();
        QString partial;
        int received = 0;
        const Run run = stream(
            lines, false,
            [&](BuildQueue& q, quint64) {
                QObject::connect(&q, &BuildQueue::jobLogAppended, &view,
                                 [&](quint64, const QString& text) {
                                     partial += text;
                                     const qsizetype end = partial.lastIndexOf('\n');
                                     if (end < 0)
                                         return;
                                     for (const QString& line : partial.left(end).split('\n')) {
                                         view.appendPlainText(line);
                                         ++received;
                                     }
                                     partial.remove(0, end + 1);
                                 });
            },
            [&] { return received >= lines; });
        if (!report(state, run, lines))
            return;
    }
}

// Ingest alone, without a process: the pane's own cost per line.
void BM_LogPaneDirect(benchmark::State& state)
{
    const int lines = int(state.range(0));
    const bool colours = state.range(1) != 0;
    QString text;
    for (int j = 0; j < lines; ++j)
        text += (colours ? QStringLiteral(
                               "[%1/%2] \x1b[32mBuilding CXX object\x1b[0m caffe2/file_%1.cpp.o\n")
                         : QStringLiteral("[%1/%2] Building CXX object caffe2/file_%1.cpp.o\n"))
                    .arg(j + 1)
                    .arg(lines);
    for (auto _ : state) {
        LogPane pane;
        pane.resize(1200, 700);
        pane.show();
        QElapsedTimer clock;
        clock.start();
        pane.appendText(text);
        pane.flush();
        state.SetIterationTime(clock.nsecsElapsed() / 1e9);
        state.counters["lines_per_s"] = lines / (clock.nsecsElapsed() / 1e9);
    }
}

// The queue alone: child → QProcess → LogStore → batched signals.
void BM_QueueOnly(benchmark::State& state)
{
    const int lines = int(state.range(0));
    for (auto _ : state) {
        qint64 chars = 0;
        const Run run = stream(
            lines, true,
            [&](BuildQueue& q, quint64) {
                QObject::connect(&q, &BuildQueue::jobLogAppended, &q,
                                 [&](quint64, const QString& text) { chars += text.size(); });
            },
            [] { return true; });
        if (!report(state, run, lines))
            return;
    }
}

// Small appends into a full pane, as a live build does once 50,000 lines are shown.
void BM_LogPaneSmallAppendsWhenFull(benchmark::State& state)
{
    const int lines = int(state.range(0));
    for (auto _ : state) {
        LogPane pane;
        pane.resize(1200, 700);
        pane.show();
        QString fill;
        for (int j = 0; j < 50000; ++j)
            fill += QStringLiteral("fill line %1\n").arg(j);
        pane.appendText(fill);
        pane.flush();
        QElapsedTimer clock;
        clock.start();
        const int batch = int(state.range(1));
        if (state.range(2))
            pane.hide();
        for (int i = 0; i < lines; i += batch) {
            QString chunk;
            for (int j = i; j < i + batch; ++j)
                chunk += QStringLiteral("[%1/%2] Building CXX object caffe2/file_%1.cpp.o\n")
                             .arg(j)
                             .arg(lines);
            pane.appendText(chunk);
            pane.flush();
        }
        state.SetIterationTime(clock.nsecsElapsed() / 1e9);
        state.counters["lines_per_s"] = lines / (clock.nsecsElapsed() / 1e9);
    }
}

void BM_LogPaneMemory(benchmark::State& state)
{
    const int lines = int(state.range(0));
    for (auto _ : state) {
        const long before = rssKb();
        LogPane pane;
        pane.resize(1200, 700);
        pane.show();
        QElapsedTimer clock;
        clock.start();
        // Fed as a queue would: batches of ~3,000 lines per tick.
        constexpr int batch = 3000;
        QString chunk;
        for (int i = 0; i < lines; i += batch) {
            chunk.clear();
            for (int j = i; j < std::min(lines, i + batch); ++j)
                chunk += QStringLiteral(
                             "[%1/%2] \x1b[32mBuilding CXX object\x1b[0m caffe2/file_%1.cpp.o\n")
                             .arg(j + 1)
                             .arg(lines);
            pane.appendText(chunk);
            QCoreApplication::processEvents();
        }
        pane.flush();
        state.SetIterationTime(clock.nsecsElapsed() / 1e9);
        state.counters["rss_MB"] = rssKb() / 1024.0;
        state.counters["rss_growth_MB"] = (rssKb() - before) / 1024.0;
        state.counters["peak_rss_MB"] = peakRssKb() / 1024.0;
        state.counters["lines_shown"] = pane.lineCount();
    }
}

} // namespace

// 200,000 plain lines: the same stream the naive baseline below gets, for a fair comparison.
BENCHMARK(BM_LogPaneIngest)
    ->Args({200'000, 0})
    ->Args({1'000'000, 1})
    ->Args({1'000'000, 0})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NaiveAppendPerLine)
    ->Arg(200'000)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LogPaneDirect)
    ->Args({400'000, 0})
    ->Args({400'000, 1})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QueueOnly)
    ->Arg(1'000'000)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LogPaneSmallAppendsWhenFull)
    ->Args({200'000, 500, 0})
    ->Args({200'000, 5000, 0})
    ->Args({200'000, 500, 1})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LogPaneMemory)
    ->Arg(5'000'000)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM",
            qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    return rg::bench::runAll(argc, argv);
}
