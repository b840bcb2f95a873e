// Many variants over real remote builders (builderhosts.h): twelve fixture variants that each
// build for 2 s, over three builders with two slots each, through BuildQueue as the window
// queues them. The ideal is two rounds of 2 s; the target is 1.5 times that. Two cases:
//   asked_ahead:0  a queue that has never asked the builders: the batch waits for their check
//                  (the command line's case, and the window's first batch within a moment of
//                  getting the builders)
//   asked_ahead:1  the builders answered shortly before, as the window asks them when it gets
//                  them and as the user selects what to build: the batch starts at once
// Counters:
//   ratio_to_ideal       the wall time over 4 s
//   nix_per_variant_ms   one variant's Nix run, start to exit (ssh, copies, the 2 s build)
//   queue_per_variant_ms how long a job waited for the queue once a slot was free: from its
//                        enqueue (first round) or the slot's previous job ending (second round)
//                        to its process starting. It includes the wait for the builders' check at
//                        the batch's start (until a builder has answered up; asked_ahead:0
//                        only), and the wait for a
//                        core: the queue starts no more Nix jobs at once than there are cores,
//                        each holding one until Nix has placed its build, which gets every
//                        variant to its builder sooner than starting all at once
// BM_NixAlone runs the same twelve Nix commands (NixBackend's, with the same builders) six at a
// time by itself, without the queue, its builder check or its log handling: what Nix and the
// hosts cost on this machine. The queue's own cost is the difference between the two.
// Runs under tests/tools/in_builder_namespace.sh (bench_remotebuilds_smoke does).

#include "../benchsupport.h"
#include "builderhosts.h"
#include "builds/buildqueue.h"
#include "builds/nixbackend.h"
#include "builds/processspec.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
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

// Mean of (start − the moment it could start) over the jobs, in ms: the first `slotCount` jobs
// could start at enqueue, each later one when the n-th earliest job before it ended.
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

constexpr int builderCount = 3;
constexpr int slotsEach = 2;

BuildSettings farmSettings(const test::BuilderHosts& farm)
{
    BuildSettings settings;
    settings.backend = BackendKind::Nix;
    settings.builders = farm.machines();
    settings.maxJobs = 0;
    settings.verify = false;
    settings.concurrency = builderCount * slotsEach;
    return settings;
}

// `variants` fixture recipes in `dir`, each a 2-second build with a fresh nonce (never built).
QList<BuildTarget> freshTargets(const test::BuilderHosts& farm, const QString& dir, int variants)
{
    QList<BuildTarget> targets;
    for (int i = 0; i < variants; ++i) {
        BuildTarget t;
        t.variant = t.pname = QStringLiteral("bench-%1").arg(i);
        t.repository = dir;
        t.recipeFile = dir + QStringLiteral("/.flox/pkgs/%1.nix").arg(t.variant);
        if (!farm.writeRecipe(t.recipeFile, t.variant, buildSeconds))
            return {};
        targets << t;
    }
    return targets;
}

double idealSeconds(int variants)
{
    return double(buildSeconds) * std::ceil(double(variants) / (builderCount * slotsEach));
}

// Asks the builders as the window does before the user builds; false unless all answer up.
bool askAhead(BuildQueue& queue)
{
    QSignalSpy checked(&queue, &BuildQueue::buildersChecked);
    queue.refreshBuilderHealth();
    if (!checked.wait(30000))
        return false;
    const QList<BuilderHealth>& health = queue.builderHealth();
    return std::all_of(health.begin(), health.end(), [](const BuilderHealth& h) { return h.up; });
}

void BM_TwelveOverThreeBuilders(benchmark::State& state)
{
    const int variants = int(state.range(0));
    const bool askedAhead = state.range(1) != 0;
    test::BuilderHosts* farm = hosts(state, builderCount, slotsEach);
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
        queue.setSettings(farmSettings(*farm));
        const QList<BuildTarget> targets = freshTargets(*farm, dir.path(), variants);
        if (targets.isEmpty())
            return bench::fail(state, "cannot write the fixture recipes");
        if (askedAhead && !askAhead(queue))
            return bench::fail(state, "a builder did not answer up when asked ahead");
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
        queueMs += queueWaitMs(jobs, builderCount * slotsEach);
        ++rounds;
        state.ResumeTiming();
    }
    const double ideal = idealSeconds(variants);
    state.counters["ideal_s"] = ideal;
    state.counters["ratio_to_ideal"] = wallMs / double(rounds) / (ideal * 1000.0);
    state.counters["nix_per_variant_ms"] = nixMs / (double(rounds) * variants);
    state.counters["queue_per_variant_ms"] = queueMs / double(rounds);
}
BENCHMARK(BM_TwelveOverThreeBuilders)
    ->ArgNames({"variants", "asked_ahead"})
    ->Args({12, 0})
    ->Args({12, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

// The same Nix commands, `slotsEach` × builders at a time, each started as one ends.
void BM_NixAlone(benchmark::State& state)
{
    const int variants = int(state.range(0));
    test::BuilderHosts* farm = hosts(state, builderCount, slotsEach);
    if (!farm)
        return;
    QTemporaryDir dir;
    const BuildSettings settings = farmSettings(*farm);
    double wallMs = 0;
    int rounds = 0;
    for (auto _ : state) {
        state.PauseTiming();
        QList<ProcessSpec> specs;
        for (const BuildTarget& t : freshTargets(*farm, dir.path(), variants))
            specs << NixBackend().buildProcessWith(t, settings, NixBackend::hasNewCli());
        if (specs.size() != variants)
            return bench::fail(state, "cannot write the fixture recipes");
        state.ResumeTiming();
        QElapsedTimer wall;
        wall.start();
        std::vector<std::unique_ptr<QProcess>> running;
        int next = 0;
        int failed = 0;
        int done = 0;
        const auto startOne = [&] {
            const ProcessSpec& spec = specs[next++];
            auto p = std::make_unique<QProcess>();
            p->setWorkingDirectory(spec.workingDirectory);
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            for (auto it = spec.environment.begin(); it != spec.environment.end(); ++it)
                env.insert(it.key(), it.value());
            p->setProcessEnvironment(env);
            QObject::connect(
                p.get(), &QProcess::finished, [&, q = p.get()](int code, QProcess::ExitStatus how) {
                    // Built on a builder, as the queue's jobs must be.
                    const bool remote = q->readAllStandardError().contains(" on 'ssh://");
                    failed += (code != 0 || how != QProcess::NormalExit || !remote);
                    ++done;
                });
            p->start(spec.program, spec.arguments);
            running.push_back(std::move(p));
        };
        const bool finished = QTest::qWaitFor(
            [&] { // starts the first ones too: qWaitFor asks at once
                while (next < variants && next - done < settings.concurrency)
                    startOne();
                return done == variants;
            },
            300000);
        wallMs += double(wall.elapsed());
        if (!finished || failed > 0)
            return bench::fail(state, std::to_string(failed) + " Nix builds failed or ran locally");
        ++rounds;
    }
    state.counters["ratio_to_ideal"] = wallMs / double(rounds) / (idealSeconds(variants) * 1000.0);
}
BENCHMARK(BM_NixAlone)->Arg(12)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    test::configureNix();
    NixBackend::hasNewCli();
    return bench::runAll(argc, argv);
}
