// Speed of the matrix layer on repository-sized inputs: every recipe of a scan goes through
// VariantName::parse and MatrixSpec::expects, and the grid asks for expectedVariants.

#include "../benchsupport.h"
#include "matrix/matrixspec.h"

#include <benchmark/benchmark.h>
#include <filesystem>
#include <string>
#include <vector>

using namespace rg;

namespace {

// The seed 000 spec repeated over `packages` package words, with a few exclusions.
MatrixSpec wideSpec(int packages)
{
    SpecError error;
    auto spec = MatrixSpec::load(std::filesystem::path(RG_FIXTURES_DIR) / "seed000" /
                                     MatrixSpec::defaultPath,
                                 Catalog::builtin(), &error);
    if (!spec)
        std::abort();
    for (int i = 1; i < packages; ++i)
        spec->extraPackages.push_back("pkg" + std::to_string(i));
    for (const char* isa : {"avx", "armv8_2"}) {
        VariantFilter f;
        f.package = spec->package;
        f.isa = isa;
        spec->excludes.push_back(f);
    }
    return *spec;
}

std::vector<std::string> fileNames(const MatrixSpec& spec)
{
    std::vector<std::string> names;
    for (const auto& v : spec.expectedVariants())
        names.push_back(v.toString() + ".nix");
    return names;
}

void BM_ParseNames(benchmark::State& state)
{
    const auto names = fileNames(wideSpec(static_cast<int>(state.range(0))));
    for (auto _ : state)
        for (const auto& n : names)
            benchmark::DoNotOptimize(VariantName::parse(n));
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(names.size()));
}
BENCHMARK(BM_ParseNames)->Arg(4)->Arg(40)->Arg(300);

void BM_Expects(benchmark::State& state)
{
    const MatrixSpec spec = wideSpec(static_cast<int>(state.range(0)));
    std::vector<VariantName> names;
    for (const auto& n : fileNames(spec))
        names.push_back(*VariantName::parse(n));
    for (auto _ : state)
        for (const auto& n : names)
            benchmark::DoNotOptimize(spec.expects(n));
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(names.size()));
}
BENCHMARK(BM_Expects)->Arg(4)->Arg(40)->Arg(300);

void BM_ExpectedVariants(benchmark::State& state)
{
    const MatrixSpec spec = wideSpec(static_cast<int>(state.range(0)));
    for (auto _ : state)
        benchmark::DoNotOptimize(spec.expectedVariants());
}
BENCHMARK(BM_ExpectedVariants)->Arg(4)->Arg(40)->Arg(300);

void BM_SpecFromJson(benchmark::State& state)
{
    const std::string text = wideSpec(static_cast<int>(state.range(0))).toJson();
    SpecError error;
    for (auto _ : state)
        benchmark::DoNotOptimize(
            MatrixSpec::fromJson(text, "spec.json", Catalog::builtin(), &error));
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_SpecFromJson)->Arg(4)->Arg(300);

} // namespace

int main(int argc, char** argv)
{
    return rg::bench::runAll(argc, argv);
}
