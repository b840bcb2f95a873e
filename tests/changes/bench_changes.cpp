// Speed of the change-set write path on recipe-sized files (~4 KB):
//   BM_Apply250   ChangeSetApplier writing 250 created recipes into an empty directory
//   BM_Diff250    UnifiedDiff of 250 one-line modifications
// Target: an apply of 250 files < 1 s (a "complete the matrix" change set is of that size).

#include "changes/changesetapplier.h"
#include "changes/unifieddiff.h"

#include <QDir>
#include <QTemporaryDir>
#include <benchmark/benchmark.h>

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

BENCHMARK_MAIN();
