// Speed of the change-set write path on recipe-sized files (~4 KB):
//   BM_Apply250   ChangeSetApplier writing 250 created recipes into an empty directory
//   BM_Diff250    UnifiedDiff of 250 one-line modifications
//   BM_PlanCreate1000  ChangePlanner generating ~1,000 missing recipes of a synthetic
//                      repository (tests/tools/make_repo.py) from the canonical recipe left
//                      in each group, then re-analysing the planned repository
//   BM_PlanFixCudaSet  ChangePlanner fixing the ~1,000 CUDA recipes of the synthetic
//                      repository that each carry one wrong token (the CUDA set of their
//                      overlay) in place, then re-analysing the planned repository
//   BM_PlanFixOne      the same fix of one recipe of the ~1,100, as a cell's Fix plans it
//   BM_MergeRegenerated  RecipeMerge of a regenerated ~4 KB recipe into the author's (the
//                      regeneration of a recipe that lacks an overlay)
// Targets: an apply of 250 files < 1 s (a "complete the matrix" change set is of that size);
// generating and re-analysing 1,000 recipes < 1 s; fixing 1,000 in place < 1 s, as creating
// them; fixing one among them < 100 ms, so that Fix from a cell answers at once; one merge
// < 1 ms.

#include "../benchsupport.h"
#include "analysis/analyzer.h"
#include "changes/changeplanner.h"
#include "changes/changesetapplier.h"
#include "changes/overlaysource.h"
#include "changes/recipemerge.h"
#include "changes/unifieddiff.h"

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
        if (!result.applied) {
            rg::bench::fail(state, result.error);
            return;
        }
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

// The synthetic repository of ~1,100 recipes (tests/tools/make_repo.py) in `dir`; null, with
// the benchmark skipped, when it cannot be made.
std::shared_ptr<const rg::RepositorySource> syntheticRepository(const QTemporaryDir& dir,
                                                                benchmark::State& state)
{
    const QString root = dir.filePath("repo");
    QProcess make;
    make.start("python3", {RG_SOURCE_DIR "/tests/tools/make_repo.py", "1100", root});
    if (!make.waitForFinished(120000) || make.exitCode() != 0) {
        rg::bench::fail(state, make.readAllStandardError().constData());
        return nullptr;
    }
    return std::shared_ptr<const rg::RepositorySource>(rg::openWorkTree(root.toStdString()));
}

// Plans `request` on `source` per iteration; every one of its cells must get a file (a plan
// that skips cells is faster for doing less, and would be timed as a success).
void planEach(benchmark::State& state, const std::shared_ptr<const rg::RepositorySource>& source,
              const rg::ChangeRequest& request, const char* done)
{
    auto analysis = std::make_shared<const rg::Analysis>(rg::Analyzer().analyze(*source));
    size_t written = 0;
    for (auto _ : state) {
        const rg::ChangeSet changes = rg::ChangePlanner(source, analysis).plan(request);
        written = changes.operations.size();
        if (written != request.cells.size() || !changes.skipped.empty()) {
            rg::bench::fail(state, std::to_string(written) + " of " +
                                       std::to_string(request.cells.size()) + " " + done +
                                       (changes.skipped.empty()
                                            ? std::string()
                                            : "; skipped " + changes.skipped.front().subject +
                                                  ": " + changes.skipped.front().why));
            return;
        }
    }
    state.counters[done] = static_cast<double>(written);
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(written));
}

// The synthetic repository with every recipe but each group's canonical one removed: the
// planner then has ~1,000 cells to create by cloning.
void BM_PlanCreate1000(benchmark::State& state)
{
    QTemporaryDir dir;
    const auto full = syntheticRepository(dir, state);
    if (!full)
        return;
    const rg::Analysis whole = rg::Analyzer().analyze(*full);
    std::set<std::string> keep;
    for (const rg::RecipeGroup& group : whole.groups)
        keep.insert(whole.recipeDir + "/" + group.profile.canonical);
    auto reduced = std::make_shared<rg::OverlaySource>(full);
    rg::ChangeRequest request;
    request.action = rg::ChangeAction::Create;
    request.updateReadme = false;
    for (const rg::Cell& entry : whole.cells)
        if (entry.recipe && !keep.count(entry.recipe->path)) {
            reduced->remove(entry.recipe->path);
            request.cells.push_back(entry.variant.toString());
        }
    planEach(state, reduced, request, "created");
}
BENCHMARK(BM_PlanCreate1000)->Unit(benchmark::kMillisecond);

// The synthetic repository with the overlay's CUDA set one version off in `count` of its
// recipes (all of them when 0), and the request to fix those in place.
void planCudaSetFix(benchmark::State& state, size_t count)
{
    QTemporaryDir dir;
    const auto full = syntheticRepository(dir, state);
    if (!full)
        return;
    const rg::Analysis whole = rg::Analyzer().analyze(*full);
    auto broken = std::make_shared<rg::OverlaySource>(full);
    rg::ChangeRequest request;
    request.action = rg::ChangeAction::Fix;
    request.updateReadme = false;
    for (const rg::Cell& entry : whole.cells) {
        if (!entry.recipe || (count > 0 && request.cells.size() == count))
            continue;
        std::string text = full->read(entry.recipe->path, 1 << 20).bytes;
        // The overlay's set, one version off: final.cudaPackages_12_8 → final.cudaPackages_11_8.
        const size_t at = text.find("final.cudaPackages_");
        if (at == std::string::npos)
            continue;
        const size_t version = at + 19;
        const size_t end = text.find_first_of("; )", version);
        const std::string other = text.compare(version, 4, "11_8") == 0 ? "12_8" : "11_8";
        text.replace(version, end - version, other);
        broken->write(entry.recipe->path, text);
        request.cells.push_back(entry.recipe->path);
    }
    planEach(state, broken, request, "fixed");
}

// Every CUDA recipe of the synthetic repository: the planner renames the set in place in each,
// and re-analyses the result.
void BM_PlanFixCudaSet(benchmark::State& state)
{
    planCudaSetFix(state, 0);
}
BENCHMARK(BM_PlanFixCudaSet)->Unit(benchmark::kMillisecond);

// One recipe among ~1,100, as Fix from a cell's menu: only the fixed file is parsed again, the
// others' facts are the analysis' own.
void BM_PlanFixOne(benchmark::State& state)
{
    planCudaSetFix(state, 1);
}
BENCHMARK(BM_PlanFixOne)->Unit(benchmark::kMillisecond);

void BM_MergeRegenerated(benchmark::State& state)
{
    const std::string theirs = recipe(1, "python313Packages");
    std::string ours = theirs;
    // The author's recipe lacks a line of the pattern and carries two of its own.
    const size_t line = ours.find('\n', ours.size() / 2);
    ours.erase(line + 1, ours.find('\n', line + 1) - line);
    ours.insert(ours.find('\n', ours.size() / 3) + 1,
                "  # ours: no FBGEMM\n  USE_FBGEMM = \"0\";\n");
    for (auto _ : state)
        benchmark::DoNotOptimize(rg::RecipeMerge::merge(ours, theirs, {}));
}
BENCHMARK(BM_MergeRegenerated)->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv)
{
    return rg::bench::runAll(argc, argv);
}
