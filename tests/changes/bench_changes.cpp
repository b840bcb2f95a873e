// Speed of the change-set write path on recipe-sized files (~4 KB):
//   BM_Apply250   ChangeSetApplier writing 250 created recipes into an empty directory
//   BM_Diff250    UnifiedDiff of 250 one-line modifications
//   BM_PlanCreate1000  ChangePlanner generating ~1,000 missing recipes of a synthetic
//                      repository (tests/tools/make_repo.py) from the canonical recipe left
//                      in each group, then re-analysing the planned repository
// Targets: an apply of 250 files < 1 s (a "complete the matrix" change set is of that size);
// generating and re-analysing 1,000 recipes < 1 s.

#include "changes/changeplanner.h"
#include "changes/changesetapplier.h"
#include "changes/overlaysource.h"
#include "changes/unifieddiff.h"
#include "recipes/analyzer.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <benchmark/benchmark.h>
#include <set>

namespace {

constexpr int fileCount = 250;

std::string recipe(int index, const std::string& python)
{
    std::string text = "# pytorch variant " + std::to_string(index) + "\n{ pkgs, lib }:\nlet\n";
    text += "  python = pkgs." + python + ";\n";
    while (text.size() < 4000)
        text += "  # " + std::to_string(text.size()) +
                ": cudaCapabilities = [ \"8.9\" ]; TORCH_CUDA_ARCH_LIST = \"8.9\";\n";
    return text + "in\npython.pkgs.torch\n";
}

std::string recipePath(int index)
{
    return ".flox/pkgs/pytorch-python313-cuda12_8-sm" + std::to_string(index) + ".nix";
}

void BM_Apply250(benchmark::State& state)
{
    rg::ChangeSet changes;
    for (int i = 0; i < fileCount; ++i) {
        rg::FileOperation op;
        op.kind = rg::FileOperationKind::Create;
        op.path = recipePath(i);
        op.after = recipe(i, "python313");
        changes.operations.push_back(std::move(op));
    }
    QTemporaryDir base;
    int round = 0;
    for (auto _ : state) {
        state.PauseTiming();
        const QString root = base.filePath(QString::number(round++));
        QDir().mkpath(root);
        state.ResumeTiming();
        const rg::ApplyResult result = rg::ChangeSetApplier(root.toStdString()).apply(changes);
        state.PauseTiming();
        if (!result.applied)
            state.SkipWithError(result.error.c_str());
        QDir(root).removeRecursively();
        state.ResumeTiming();
    }
    state.SetItemsProcessed(state.iterations() * fileCount);
}
BENCHMARK(BM_Apply250)->Unit(benchmark::kMillisecond);

void BM_Diff250(benchmark::State& state)
{
    std::vector<rg::FileOperation> operations;
    for (int i = 0; i < fileCount; ++i) {
        rg::FileOperation op;
        op.kind = rg::FileOperationKind::Modify;
        op.path = recipePath(i);
        op.before = recipe(i, "python312");
        op.after = recipe(i, "python313");
        operations.push_back(std::move(op));
    }
    for (auto _ : state) {
        size_t bytes = 0;
        for (const rg::FileOperation& op : operations)
            bytes += rg::UnifiedDiff::of(op).size();
        benchmark::DoNotOptimize(bytes);
    }
    state.SetItemsProcessed(state.iterations() * fileCount);
}
BENCHMARK(BM_Diff250)->Unit(benchmark::kMillisecond);

} // namespace

// The synthetic repository with every recipe but each group's canonical one removed: the
// planner then has ~1,000 cells to create by cloning.
void BM_PlanCreate1000(benchmark::State& state)
{
    QTemporaryDir dir;
    const QString root = dir.filePath("repo");
    QProcess make;
    make.start("python3", {RG_SOURCE_DIR "/tests/tools/make_repo.py", "1100", root});
    if (!make.waitForFinished(120000) || make.exitCode() != 0) {
        state.SkipWithError(make.readAllStandardError().constData());
        return;
    }
    auto full = std::shared_ptr<const rg::RepositorySource>(rg::openWorkTree(root.toStdString()));
    const rg::Analysis whole = rg::Analyzer().analyze(*full);
    std::set<std::string> keep;
    for (const rg::RecipeGroup& group : whole.groups)
        keep.insert(whole.recipeDir + "/" + group.profile.canonical);
    auto reduced = std::make_shared<rg::OverlaySource>(full);
    rg::ChangeRequest request;
    request.action = rg::ChangeAction::Create;
    request.updateReadme = false;
    for (const rg::MatrixEntry& entry : whole.entries)
        if (entry.recipe && !keep.count(entry.recipe->path)) {
            reduced->remove(entry.recipe->path);
            request.cells.push_back(entry.variant.toString());
        }
    std::shared_ptr<const rg::RepositorySource> source = reduced;
    auto analysis = std::make_shared<const rg::Analysis>(rg::Analyzer().analyze(*source));
    size_t created = 0;
    for (auto _ : state) {
        const rg::ChangeSet changes = rg::ChangePlanner(source, analysis).plan(request);
        created = changes.operations.size();
        if (created < request.cells.size() * 9 / 10)
            state.SkipWithError(("only " + std::to_string(created) + " of " +
                                 std::to_string(request.cells.size()) + " created")
                                    .c_str());
    }
    state.counters["created"] = static_cast<double>(created);
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(created));
}
BENCHMARK(BM_PlanCreate1000)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
