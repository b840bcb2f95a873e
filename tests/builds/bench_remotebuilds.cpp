// Many variants over real remote builders (builderhosts.h): twelve fixture variants that each
// build for 2 s, over three builders with two slots each, through BuildQueue as the window
// queues them. The ideal is two rounds of 2 s; the target is 1.5 times that. Counters:
//   ratio_to_ideal       the wall time over 4 s
//   nix_per_variant_ms   one variant's Nix run, start to exit (ssh, copies, the 2 s build)
//   queue_per_variant_ms how long a job waited for the queue once it could run: from its
//                        enqueue (first round) or the slot's previous job ending (second round)
//                        to its process starting
// Runs under tests/tools/in_builder_namespace.sh (bench_remotebuilds_smoke does).

#include "../benchsupport.h"
#include "builderhosts.h"
#include "builds/buildqueue.h"
#include "builds/nixbackend.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <algorithm>
#include <benchmark/benchmark.h>
#include <cmath>
#include <memory>

using namespace rg;

namespace {

constexpr int buildSeconds = 2;

test::BuilderHosts* hosts(benchmark::State& state, int count, int jobs)
{
    static std::unique_ptr<test::BuilderHosts> started;
    if (!started) {
        started = std::make_unique<test::BuilderHosts>();
        QString error;
        if (!started->start(count, jobs, {}, &error)) {
            bench::fail(state, "builder hosts: " + error.toStdString());
            started.reset();
        }
    }
    return started.get();
}

// Mean of (start − the moment it could start) over the jobs, in ms: the first `slotCount` jobs could
// start at enqueue, each later one when the n-th earliest job before it ended.
double queueWaitMs(const QList<const BuildRecord*>& jobs, int slotCount)
{
    QList<QDateTime> freed;
    for (const BuildRecord* j : jobs)
        freed << j->finishedAt;
    std::sort(freed.begin(), freed.end());
    double total = 0;
    for (int i = 0; i < jobs.size(); ++i) {
        const QDateTime could = i < slotCount ? jobs[i]->queuedAt : freed[i - slotCount];
        total += double(std::max<qint64>(0, could.msecsTo(jobs[i]->startedAt)));
    }
    return total / double(jobs.size());
}

void BM_TwelveOverThreeBuilders(benchmark::State& state)
{
    const int variants = int(state.range(0));
    constexpr int builders = 3;
    constexpr int slotsEach = 2;
    test::BuilderHosts* farm = hosts(state, builders, slotsEach);
    if (!farm)
        return;
    QTemporaryDir dir;
    double nixMs = 0;
    double queueMs = 0;
    double wallMs = 0;
    int rounds = 0;
    for (auto _ : state) {
        state.PauseTiming();
        BuildQueue queue;
        BuildSettings settings;
        settings.backend = BackendKind::Nix;
        settings.builders = farm->machines();
        settings.maxJobs = 0;
        settings.verify = false;
        settings.concurrency = builders * slotsEach;
        queue.setSettings(settings);
        QList<BuildTarget> targets;
        for (int i = 0; i < variants; ++i) {
            BuildTarget t;
            t.variant = t.pname = QStringLiteral("bench-%1").arg(i);
            t.repository = dir.path();
            t.recipeFile = dir.filePath(QStringLiteral(".flox/pkgs/%1.nix").arg(t.variant));
            if (!farm->writeRecipe(t.recipeFile, t.variant, buildSeconds))
                return bench::fail(state, "cannot write the fixture recipes");
            targets << t;
        }
        state.ResumeTiming();
        QElapsedTimer wall;
        wall.start();
        QStringList errors;
        const QList<quint64> ids = queue.enqueue(targets, &errors);
        if (ids.size() != variants)
            return bench::fail(state, "queueing: " + errors.join(QLatin1Char(' ')).toStdString());
        const bool done = QTest::qWaitFor(
            [&] {
                return std::all_of(ids.begin(), ids.end(),
                                   [&](quint64 id) { return queue.job(id)->isFinished(); });
            },
            300000);
        wallMs += double(wall.elapsed());
        state.PauseTiming();
        QList<const BuildRecord*> jobs;
        for (quint64 id : ids) {
            const BuildRecord* job = queue.job(id);
            if (!done || job->state != JobState::Succeeded || !job->builtOn() ||
                !job->builtOn()->isRemote())
                return bench::fail(state, "a variant did not build on a builder: " +
                                              job->error.toStdString());
            nixMs += double(job->durationMs());
            jobs << job;
        }
        queueMs += queueWaitMs(jobs, builders * slotsEach);
        ++rounds;
        state.ResumeTiming();
    }
    const double ideal =
        double(buildSeconds) * std::ceil(double(variants) / (builders * slotsEach));
    state.counters["ideal_s"] = ideal;
    state.counters["ratio_to_ideal"] = wallMs / double(rounds) / (ideal * 1000.0);
    state.counters["nix_per_variant_ms"] = nixMs / (double(rounds) * variants);
    state.counters["queue_per_variant_ms"] = queueMs / double(rounds);
}
BENCHMARK(BM_TwelveOverThreeBuilders)
    ->Arg(12)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    test::configureNix();
    NixBackend::hasNewCli();
    return bench::runAll(argc, argv);
}
