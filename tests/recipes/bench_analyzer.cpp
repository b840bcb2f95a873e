// Speed of the analysis pipeline on generated repositories (tests/tools/make_repo.py):
//   BM_Parse / BM_Extract     parser alone, parser + fact extraction, one thread
//   BM_Analyze                the whole Analyzer (parallel), in process
//   BM_CheckProcess           `recipegrid check` as a user runs it: wall time and peak RSS
//   BM_NixInstantiateParse    the reference parser over the same files in one process
//   BM_ContentKeys            RecipeContentKey::keyAll, what a scan adds to key every recipe
//                             for build state: read + SHA-256 of each recipe and
//                             the modules it imports (each module once per scan)
//   BM_ContentKeyOfOneRecipe  one recipe's key as a build computes it: from the facts, and
//                             from the file alone (extracting its facts first)
//   BM_RecipeDigests          SHA-256 of every recipe's bytes, one thread: what the scan adds
//                             (in parallel) so that keyAll need not read a recipe again
// Targets: check of 2,000 recipes < 0.3 s, 20,000 < 3 s and < 500 MB, linear.
// Run: bench_analyzer [--benchmark_filter=…]; repositories are generated once per run in a
// temporary folder, or kept under $RG_BENCH_DIR when it is set.

#include "../benchsupport.h"
#include "analysis/analyzer.h"
#include "analysis/recipecontentkey.h"
#include "nix/syntaxtree.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <algorithm>
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <map>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

// $RG_BENCH_DIR, to keep the generated repositories between runs; otherwise a temporary folder
// of this run's own, removed at exit.
QString benchDir()
{
    const QByteArray env = qgetenv("RG_BENCH_DIR");
    if (!env.isEmpty())
        return QString::fromLocal8Bit(env);
    static QTemporaryDir own(QDir::tempPath() + QStringLiteral("/recipegrid-bench-XXXXXX"));
    if (!own.isValid())
        qFatal("cannot make a temporary folder: %s", qPrintable(own.errorString()));
    return own.path();
}

// The generated repository of `count` recipes, made on first use, then reused. It is generated
// beside its final place and renamed into it when complete, so an interrupted generation is
// never taken for a repository; one kept from an earlier run is reused only whole.
QString repository(int count)
{
    const QString path = benchDir() + QStringLiteral("/repo%1").arg(count);
    const QString pkgs = path + QStringLiteral("/.flox/pkgs");
    if (QDir(pkgs).exists()) {
        const qsizetype found = QDir(pkgs).entryList({QStringLiteral("*.nix")}, QDir::Files).size();
        if (found >= count)
            return path;
        qWarning("%s holds %lld of %d recipes: generating it again", qPrintable(path),
                 static_cast<long long>(found), count);
        QDir(path).removeRecursively();
    }
    const QString partial = path + QStringLiteral(".partial");
    QDir(partial).removeRecursively();
    QDir().mkpath(benchDir());
    QProcess generator;
    generator.start(QStringLiteral("python3"),
                    {QStringLiteral(RG_SOURCE_DIR "/tests/tools/make_repo.py"),
                     QString::number(count), partial});
    if (!generator.waitForFinished(-1) || generator.exitStatus() != QProcess::NormalExit ||
        generator.exitCode() != 0)
        qFatal("make_repo.py failed: %s", generator.readAllStandardError().constData());
    const qsizetype made = QDir(partial + QStringLiteral("/.flox/pkgs"))
                               .entryList({QStringLiteral("*.nix")}, QDir::Files)
                               .size();
    if (made < count)
        qFatal("make_repo.py made %lld of %d recipes", static_cast<long long>(made), count);
    if (!QDir().rename(partial, path))
        qFatal("cannot rename %s to %s", qPrintable(partial), qPrintable(path));
    return path;
}

struct Corpus
{
    std::vector<std::string> paths;
    std::vector<std::string> contents;
    size_t bytes = 0;
};

const Corpus& corpus(int count)
{
    static std::map<int, Corpus> cache;
    auto it = cache.find(count);
    if (it != cache.end())
        return it->second;
    Corpus corpus;
    const QString dir = repository(count) + "/.flox/pkgs";
    for (const QString& name :
         QDir(dir).entryList({QStringLiteral("*.nix")}, QDir::Files, QDir::Name)) {
        QFile file(dir + "/" + name);
        if (!file.open(QIODevice::ReadOnly))
            qFatal("cannot read %s", qPrintable(file.fileName()));
        corpus.paths.push_back((dir + "/" + name).toStdString());
        corpus.contents.push_back(file.readAll().toStdString());
        corpus.bytes += corpus.contents.back().size();
    }
    return cache.emplace(count, std::move(corpus)).first->second;
}

void BM_Parse(benchmark::State& state)
{
    const Corpus& files = corpus(static_cast<int>(state.range(0)));
    for (auto _ : state)
        for (const std::string& text : files.contents) {
            auto tree = rg::nix::SyntaxTree::parse(text);
            // A parse that fails fast would time an error path, not the parser.
            if (!tree.root()) {
                rg::bench::fail(state, "a generated recipe did not parse");
                return;
            }
            benchmark::DoNotOptimize(tree.root());
        }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(files.bytes));
    state.counters["files"] = double(files.contents.size());
}
BENCHMARK(BM_Parse)->Arg(2000)->Unit(benchmark::kMillisecond);

void BM_Extract(benchmark::State& state)
{
    const Corpus& files = corpus(static_cast<int>(state.range(0)));
    const rg::Analyzer analyzer;
    for (auto _ : state)
        for (size_t i = 0; i < files.contents.size(); ++i) {
            auto facts = analyzer.extract(files.paths[i], files.contents[i]);
            benchmark::DoNotOptimize(facts.pins.data());
        }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(files.bytes));
}
BENCHMARK(BM_Extract)->Arg(2000)->Unit(benchmark::kMillisecond);

void BM_Analyze(benchmark::State& state)
{
    auto source = rg::openWorkTree(repository(static_cast<int>(state.range(0))).toStdString());
    rg::AnalyzerOptions options;
    options.threads = static_cast<int>(state.range(1));
    const size_t recipes =
        size_t(QDir(repository(static_cast<int>(state.range(0))) + QStringLiteral("/.flox/pkgs"))
                   .entryList({QStringLiteral("*.nix")}, QDir::Files)
                   .size());
    int problems = 0;
    for (auto _ : state) {
        const rg::Analysis analysis = rg::Analyzer().analyze(*source, options);
        // An analysis that could not read the repository, or read part of it, is faster for
        // doing less: stop instead of timing it.
        if (!analysis.sourceError.empty() || analysis.files.size() != recipes) {
            rg::bench::fail(state, "analysed " + std::to_string(analysis.files.size()) + " of " +
                                       std::to_string(recipes) + " recipes " +
                                       analysis.sourceError);
            return;
        }
        problems = analysis.findingCount();
        benchmark::DoNotOptimize(analysis.cells.data());
    }
    state.counters["findings"] = problems; // 0 on a generated repository: all ok
}
BENCHMARK(BM_Analyze)
    ->Args({200, 0})
    ->Args({2000, 0})
    ->Args({20000, 0})
    ->Args({2000, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// `count` recipes that each call one builder module of the repository, which reads a JSON
// pin: the shape where a module's bytes belong to every recipe's key.
QString modularRepository(int count)
{
    const QString path = benchDir() + QStringLiteral("/modular%1").arg(count);
    if (QDir(path + "/.flox/pkgs").exists())
        return path;
    QDir().mkpath(path + "/.flox/pkgs");
    QDir().mkpath(path + "/.flox/lib");
    auto write = [](const QString& file, const QByteArray& bytes) {
        QFile out(file);
        if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(file));
    };
    QByteArray module =
        "{ name, capability ? \"9.0\", cpuFlags ? [ ] }:\n"
        "let\n"
        "  pin = builtins.fromJSON (builtins.readFile ./pin.json);\n"
        "  nixpkgs = import (builtins.fetchTarball {\n"
        "    url = \"https://github.com/NixOS/nixpkgs/archive/${pin.rev}.tar.gz\";\n"
        "    sha256 = pin.sha256;\n"
        "  }) { config.allowUnfree = true; };\n"
        "in\n"
        "nixpkgs.python3Packages.torch.override {\n"
        "  gpuTargets = [ capability ];\n"
        "}\n";
    module += QByteArray(1500, '#') + "\n";
    write(path + "/.flox/lib/mk.nix", module);
    write(path + "/.flox/lib/pin.json",
          "{ \"rev\": \"6a030d535719c5190187c4cec156f335e95e3211\", \"sha256\": \"\" }\n");
    const QStringList archs = {"sm80", "sm86", "sm89", "sm90", "sm100", "sm120"};
    const QStringList isas = {"avx2", "avx512", "avx512bf16", "avx512vnni"};
    for (int i = 0; i < count; ++i) {
        const QString name =
            QStringLiteral("pkg%1-python313-cuda12_9-%2-%3")
                .arg(i / int(archs.size() * isas.size()))
                .arg(archs[i % archs.size()], isas[(i / archs.size()) % isas.size()]);
        write(path + "/.flox/pkgs/" + name + ".nix",
              QStringLiteral("# %1\nimport ../lib/mk.nix {\n  name = \"%1\";\n"
                             "  capability = \"9.0\";\n  cpuFlags = [ \"-mavx2\" ];\n}\n")
                  .arg(name)
                  .toUtf8());
    }
    return path;
}

void BM_ContentKeys(benchmark::State& state)
{
    const int count = static_cast<int>(state.range(0));
    const bool modular = state.range(2) != 0;
    auto source =
        rg::openWorkTree((modular ? modularRepository(count) : repository(count)).toStdString());
    rg::Analysis analysis = rg::Analyzer().analyze(*source);
    int keyed = 0;
    for (auto _ : state) {
        rg::RecipeContentKey::keyAll(analysis, *source, static_cast<int>(state.range(1)));
        keyed = static_cast<int>(
            std::count_if(analysis.cells.begin(), analysis.cells.end(),
                          [](const rg::Cell& e) { return !e.contentKey.empty(); }));
    }
    state.counters["recipes"] = keyed;
    state.counters["files/recipe"] =
        analysis.cells.empty() || !analysis.cells.front().recipe
            ? 0
            : double(rg::RecipeContentKey::files(*analysis.cells.front().recipe).size());
}
BENCHMARK(BM_ContentKeys)
    ->Args({2000, 0, 0})
    ->Args({2000, 1, 0})
    ->Args({2000, 0, 1})
    ->Args({2000, 1, 1})
    ->ArgNames({"recipes", "threads", "modular"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_RecipeDigests(benchmark::State& state)
{
    const Corpus& files = corpus(static_cast<int>(state.range(0)));
    for (auto _ : state)
        for (const std::string& text : files.contents) {
            const std::string digest = rg::RecipeContentKey::digestOf(text);
            benchmark::DoNotOptimize(digest.data());
        }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(files.bytes));
}
BENCHMARK(BM_RecipeDigests)->Arg(2000)->Unit(benchmark::kMillisecond);

void BM_ContentKeyOfOneRecipe(benchmark::State& state)
{
    auto source = rg::openWorkTree(modularRepository(2000).toStdString());
    const rg::Analysis analysis = rg::Analyzer().analyze(*source);
    const rg::Cell* entry = nullptr;
    for (const rg::Cell& e : analysis.cells)
        if (e.recipe && !entry)
            entry = &e;
    if (!entry) {
        state.SkipWithError("no recipe");
        return;
    }
    const bool fromFile = state.range(0) != 0;
    for (auto _ : state) {
        const rg::RecipeContentKey key =
            fromFile ? rg::RecipeContentKey::computeForFile(*source, entry->recipe->path)
                     : rg::RecipeContentKey::compute(*source, *entry->recipe);
        benchmark::DoNotOptimize(key.value().data());
    }
}
BENCHMARK(BM_ContentKeyOfOneRecipe)
    ->Arg(0)
    ->Arg(1)
    ->ArgNames({"fromFile"})
    ->Unit(benchmark::kMicrosecond);

// Wall time of the whole process and its peak RSS. A direct child's ru_maxrss also counts the
// benchmark's own memory at fork time (Linux keeps the maximum across exec), so the peak is
// taken from /usr/bin/time, which forks recipegrid from a small process; without it, wait4's
// figure is reported as an upper bound.
void BM_CheckProcess(benchmark::State& state)
{
    const std::string repo = repository(static_cast<int>(state.range(0))).toStdString();
    const std::string binary = RG_BINARY_DIR "/app/recipegrid";
    const std::string timeTool = "/usr/bin/time";
    const bool haveTime = ::access(timeTool.c_str(), X_OK) == 0;
    const std::string rssFile = (benchDir() + "/peak-rss.txt").toStdString();
    std::vector<std::string> arguments;
    if (haveTime)
        arguments = {timeTool, "-f", "%M", "-o", rssFile};
    arguments.insert(arguments.end(), {binary, "check", "--format", "json", repo});
    std::vector<char*> argv;
    for (std::string& argument : arguments)
        argv.push_back(argument.data());
    argv.push_back(nullptr);
    long peakKb = 0;
    int exitCode = -1;
    for (auto _ : state) {
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        pid_t pid = 0;
        const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        if (spawned != 0) {
            rg::bench::fail(state, "cannot start recipegrid");
            break;
        }
        int status = 0;
        struct rusage usage;
        wait4(pid, &status, 0, &usage);
        exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        // 0 (clean) and 1 (findings) are analyses; anything else timed a failure.
        if (exitCode != 0 && exitCode != 1) {
            rg::bench::fail(state, "recipegrid check failed (killed, or exit 2)");
            break;
        }
        long kb = usage.ru_maxrss;
        if (haveTime) {
            QFile file(QString::fromStdString(rssFile));
            if (file.open(QIODevice::ReadOnly))
                kb = file.readAll().trimmed().split('\n').last().toLong();
        }
        peakKb = std::max(peakKb, kb);
    }
    state.counters["peak_rss_MB"] = double(peakKb) / 1024.0;
    state.counters["exit"] = exitCode;
}
BENCHMARK(BM_CheckProcess)
    ->Arg(200)
    ->Arg(2000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The reference: nix-instantiate --parse of the same files in one process.
void BM_NixInstantiateParse(benchmark::State& state)
{
    const Corpus& files = corpus(static_cast<int>(state.range(0)));
    QStringList arguments{QStringLiteral("--parse")};
    for (const std::string& path : files.paths)
        arguments << QString::fromStdString(path);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("NIX_CONFIG"),
                       QStringLiteral("build-users-group =\nsandbox = false\nsubstituters =\n"
                                      "experimental-features = nix-command"));
    for (auto _ : state) {
        QProcess process;
        process.setProcessEnvironment(environment);
        process.setStandardOutputFile(QProcess::nullDevice());
        process.start(QStringLiteral("nix-instantiate"), arguments);
        process.waitForFinished(-1);
        if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
            rg::bench::fail(state, "nix-instantiate --parse failed: " +
                                       process.readAllStandardError().toStdString());
            return;
        }
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(files.bytes));
}
BENCHMARK(BM_NixInstantiateParse)->Arg(2000)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

int main(int argc, char** argv)
{
    return rg::bench::runAll(argc, argv);
}
