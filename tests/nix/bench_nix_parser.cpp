// Parse throughput on recipe-like input (target: at least 100 MB/s on one core).

#include "../benchsupport.h"
#include "nix/syntaxtree.h"
#include "recipegenerator.h"

#include <benchmark/benchmark.h>
#include <vector>

namespace {

const std::vector<std::string>& recipes()
{
    static const std::vector<std::string> all = [] {
        std::vector<std::string> v;
        for (int i = 0; i < 90; ++i)
            v.push_back(rg::nix::testing::generateRecipe(i));
        return v;
    }();
    return all;
}

void BM_ParseRecipes(benchmark::State& state)
{
    int64_t bytes = 0;
    for (auto _ : state) {
        for (const std::string& recipe : recipes()) {
            auto tree = rg::nix::SyntaxTree::parse(recipe);
            benchmark::DoNotOptimize(tree.root());
            if (!tree.root())
                rg::bench::fail(state, "generated recipe failed to parse");
            bytes += static_cast<int64_t>(recipe.size());
        }
    }
    state.SetBytesProcessed(bytes);
    state.counters["files"] = static_cast<double>(recipes().size());
}
BENCHMARK(BM_ParseRecipes)->Unit(benchmark::kMicrosecond);

void BM_ParseOneLargeFile(benchmark::State& state)
{
    // All recipes as one list: exercises the same code without per-file setup costs.
    std::string big = "[\n";
    for (const std::string& recipe : recipes())
        big += "(let f = " + recipe + "; in f)\n";
    big += "]\n";
    for (auto _ : state) {
        auto tree = rg::nix::SyntaxTree::parse(big);
        benchmark::DoNotOptimize(tree.root());
        if (!tree.root())
            rg::bench::fail(state, tree.error()->message.c_str());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(big.size()));
}
BENCHMARK(BM_ParseOneLargeFile)->Unit(benchmark::kMillisecond);

void BM_PrintParseNotation(benchmark::State& state)
{
    const auto tree = rg::nix::SyntaxTree::parse(recipes().front());
    for (auto _ : state)
        benchmark::DoNotOptimize(tree.toNixParseNotation("/base"));
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(recipes().front().size()));
}
BENCHMARK(BM_PrintParseNotation)->Unit(benchmark::kMicrosecond);

} // namespace

int main(int argc, char** argv)
{
    return rg::bench::runAll(argc, argv);
}
