// Evaluation with the real Nix against the stand-in nixpkgs (README targets: 250 recipes on one
// pin under 3 s on 2 cores and at least 10x faster than one nix-instantiate per recipe; a second
// evaluation of an unchanged branch under 100 ms). Every run checks that all recipes evaluated.

#include "../benchsupport.h"
#include "eval/evalbatch.h"
#include "eval/recipeevaluator.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>
#include <memory>

using namespace rg;

namespace {

const char* const pin = "6a030d535719c5190187c4cec156f335e95e3211";

// `count` recipes on seed000's pin: its 66 files copied into numbered folders until there are
// enough, each keyed by its own path and bytes.
struct Branch
{
    QTemporaryDir dir;
    QTemporaryDir store;
    std::vector<EvalItem> items;

    explicit Branch(int count)
    {
        QStringList files;
        QDirIterator it(QStringLiteral(RG_FIXTURES_DIR "/seed000/.flox/pkgs"),
                        {QStringLiteral("*.nix")});
        while (it.hasNext())
            files << it.next();
        files.sort();
        for (int i = 0; i < count; ++i) {
            const QString relative = QStringLiteral("pkgs/%1/%2")
                                         .arg(i / files.size())
                                         .arg(QFileInfo(files[i % files.size()]).fileName());
            QDir().mkpath(QFileInfo(dir.filePath(relative)).absolutePath());
            QFile::copy(files[i % files.size()], dir.filePath(relative));
            items.push_back({relative.toStdString(), pin,
                             "content:" + QCryptographicHash::hash(relative.toUtf8(),
                                                                   QCryptographicHash::Sha256)
                                              .toHex()
                                              .toStdString()});
        }
    }

    EvalSettings settings(const QString& cacheDir = {}) const
    {
        EvalSettings settings;
        settings.repoRoot = dir.path().toStdString();
        settings.sources[pin] = RG_FIXTURES_DIR "/nixpkgs-standin/older";
        settings.store = "local?root=" + store.path().toStdString();
        settings.jobs = 2;
        settings.cacheDir = cacheDir.toStdString();
        return settings;
    }
};

bool allEvaluated(benchmark::State& state, const std::vector<EvaluatedRecipe>& results,
                  size_t count)
{
    if (results.size() != count) {
        bench::fail(state, "wrong number of results");
        return false;
    }
    for (const EvaluatedRecipe& result : results)
        if (!result.evaluated) {
            bench::fail(state, result.path + ": " + result.error.message);
            return false;
        }
    return true;
}

// One process per batch, two at once.
void BM_Batched(benchmark::State& state)
{
    const Branch branch(int(state.range(0)));
    const RecipeEvaluator evaluator(branch.settings());
    for (auto _ : state)
        if (!allEvaluated(state, evaluator.evaluate(branch.items), branch.items.size()))
            return;
    state.counters["recipes"] = double(branch.items.size());
}
BENCHMARK(BM_Batched)
    ->Arg(1)
    ->Arg(66)
    ->Arg(250)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

// The way without batches: one nix-instantiate per recipe, two at once.
void BM_OneProcessPerRecipe(benchmark::State& state)
{
    const Branch branch(int(state.range(0)));
    const EvalSettings settings = branch.settings();
    const NixInstallation nix = NixInstallation::find();
    const std::atomic<bool> never{false};
    RecipeEvaluator(settings).evaluate({branch.items.front()}); // the store exists before the race
    for (auto _ : state) {
        std::vector<EvaluatedRecipe> results(branch.items.size());
        QThreadPool pool;
        pool.setMaxThreadCount(2);
        std::vector<QFuture<void>> running;
        for (size_t i = 0; i < branch.items.size(); ++i)
            running.push_back(QtConcurrent::run(&pool, [&, i] {
                EvalBatch(nix, settings, never)
                    .run(
                        {branch.items[i]}, [](const std::string&) {},
                        [&results, i](EvaluatedRecipe result) { results[i] = std::move(result); });
            }));
        for (QFuture<void>& future : running)
            future.waitForFinished();
        if (!allEvaluated(state, results, branch.items.size()))
            return;
    }
}
BENCHMARK(BM_OneProcessPerRecipe)
    ->Arg(250)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

// The branch evaluated before: every answer from the cache, no Nix process.
void BM_UnchangedBranchAgain(benchmark::State& state)
{
    const Branch branch(int(state.range(0)));
    QTemporaryDir cache;
    const RecipeEvaluator evaluator(branch.settings(cache.path()));
    if (!allEvaluated(state, evaluator.evaluate(branch.items), branch.items.size()))
        return;
    for (auto _ : state) {
        const std::vector<EvaluatedRecipe> results = evaluator.evaluate(branch.items);
        if (!allEvaluated(state, results, branch.items.size()))
            return;
        if (!std::all_of(results.begin(), results.end(),
                         [](const auto& r) { return r.fromCache; })) {
            bench::fail(state, "a recipe was evaluated again");
            return;
        }
    }
}
BENCHMARK(BM_UnchangedBranchAgain)->Arg(250)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    return bench::runAll(argc, argv);
}
