#pragma once

// Shared by the benchmarks: a benchmark that cannot measure what it says stops with an error,
// and the executable then exits non-zero. Google Benchmark itself reports an errored run and
// still exits 0, which would let a smoke run in CI pass over a benchmark that timed a failure.

#include <benchmark/benchmark.h>
#include <cstdio>
#include <string>

namespace rg::bench {

inline bool& anyFailed()
{
    static bool failed = false;
    return failed;
}

// Stops `state`'s benchmark with `why`; the caller leaves its loop (return or break) at once.
inline void fail(benchmark::State& state, const std::string& why)
{
    anyFailed() = true;
    state.SkipWithError(why.c_str());
}

// Runs the benchmarks the command line selects; 1 if any of them failed, 2 on a bad argument.
inline int runAll(int argc, char** argv)
{
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 2;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    if (anyFailed())
        std::fprintf(stderr, "%s: a benchmark stopped with an error (see above)\n", argv[0]);
    return anyFailed() ? 1 : 0;
}

} // namespace rg::bench
