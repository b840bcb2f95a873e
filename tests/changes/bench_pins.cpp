// Speed of pin bumps and pin alignment on synthetic repositories (tests/tools/make_repo.py):
//   BM_PlanPinBump2000   PinBumpPlanner over 2,000 recipes, all on one pin (each recipe read,
//                        its pin and sha256 rewritten where the analysis found them; README and
//                        docs scanned)
//   BM_Analyze2000       for scale: the analysis a bump is planned from (done once by the
//                        session, not part of the bump)
//   BM_Alignment10x250   PinAlignment over the 10 local branches of a 250-recipe repository,
//                        every branch read through libgit2; branches share most files, as
//                        real ones do, so a file already read on one branch is not parsed again
//   BM_Alignment10x250/distinct  the worst case: every file differs on every branch (a
//                        comment naming the branch), so all 2,500 recipes are parsed
// Targets: planning < 0.5 s; the alignment view < 1 s.

#include "../benchsupport.h"
#include "analysis/analyzer.h"
#include "changes/pinbumpplanner.h"
#include "pins/pinalignment.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <benchmark/benchmark.h>

namespace {

const std::string fromPin = "6a030d535719c5190187c4cec156f335e95e3211";
const std::string toPin = "0182a361324364ae3f436a63005877674cf45efb";

QString makeRepo(const QTemporaryDir& dir, int recipes, QStringList extra = {})
{
    const QString root = dir.filePath("repo");
    QProcess make;
    make.start("python3", QStringList{RG_SOURCE_DIR "/tests/tools/make_repo.py",
                                      QString::number(recipes), root} +
                              extra);
    if (!make.waitForFinished(300000) || make.exitCode() != 0)
        return {};
    return root;
}

// Replaces every pin the spec names by `pin` in every recipe, so that one bump covers them all.
bool onePin(const QString& root, const std::string& pin)
{
    QFile specFile(root + "/.flox/recipegrid.json");
    if (!specFile.open(QIODevice::ReadOnly))
        return false;
    const QJsonObject pins =
        QJsonDocument::fromJson(specFile.readAll()).object()["pins"].toObject();
    QDirIterator it(root + "/.flox/pkgs", {"*.nix"}, QDir::Files);
    while (it.hasNext()) {
        QFile file(it.next());
        if (!file.open(QIODevice::ReadWrite))
            return false;
        QByteArray text = file.readAll();
        for (const QJsonValue& value : pins)
            text.replace(value.toString().toUtf8(), QByteArray::fromStdString(pin));
        file.resize(0);
        file.write(text);
    }
    return true;
}

// A git command in setup; false when it fails.
bool git(const QString& root, const QStringList& arguments)
{
    QProcess process;
    process.setWorkingDirectory(root);
    process.start("git", QStringList{"-c", "user.name=Bench", "-c", "user.email=bench@invalid",
                                     "-c", "commit.gpgsign=false"} +
                             arguments);
    return process.waitForFinished(60000) && process.exitCode() == 0;
}

} // namespace

void BM_PlanPinBump2000(benchmark::State& state)
{
    QTemporaryDir dir;
    const QString root = makeRepo(dir, 2000);
    if (root.isEmpty() || !onePin(root, fromPin)) {
        rg::bench::fail(state, "cannot generate the repository");
        return;
    }
    QFile readme(root + "/README.md");
    readme.open(QIODevice::Append);
    readme.write(("\n| Nixpkgs pin | [**`6a030d5`**](https://github.com/NixOS/nixpkgs/tree/" +
                  fromPin + ") |\n")
                     .c_str());
    readme.close();
    std::shared_ptr<const rg::RepositorySource> source = rg::openWorkTree(root.toStdString());
    auto analysis = std::make_shared<const rg::Analysis>(rg::Analyzer().analyze(*source));
    if (!analysis->sourceError.empty() || analysis->files.size() != 2000) {
        rg::bench::fail(state, "analysed " + std::to_string(analysis->files.size()) +
                                   " of 2000 recipes " + analysis->sourceError);
        return;
    }
    rg::PinBumpRequest request;
    request.from = fromPin;
    request.to = toPin;
    request.readme = request.docs = true;
    request.newHashes[toPin] = "0mdqa9w1p6cmli6976v4wi0sw9r4p5prkj7lzfd1877wk11c9c73";
    int recipes = 0;
    for (auto _ : state) {
        const rg::PinBumpPlan plan = rg::PinBumpPlanner(source, analysis).plan(request);
        recipes = plan.recipes;
        if (recipes != 2000) {
            rg::bench::fail(state, "bumped " + std::to_string(recipes) + " " + plan.error);
            return;
        }
    }
    state.counters["recipes"] = recipes;
    state.SetItemsProcessed(state.iterations() * recipes);
}
BENCHMARK(BM_PlanPinBump2000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Analyze2000(benchmark::State& state)
{
    QTemporaryDir dir;
    const QString root = makeRepo(dir, 2000);
    if (root.isEmpty()) {
        rg::bench::fail(state, "cannot generate the repository");
        return;
    }
    const auto source = rg::openWorkTree(root.toStdString());
    for (auto _ : state) {
        const rg::Analysis analysis = rg::Analyzer().analyze(*source);
        // An analysis that could not read the repository would be timed as a fast one.
        if (!analysis.sourceError.empty() || analysis.files.size() != 2000) {
            rg::bench::fail(state, "analysed " + std::to_string(analysis.files.size()) +
                                       " of 2000 recipes " + analysis.sourceError);
            return;
        }
        benchmark::DoNotOptimize(analysis.cells.size());
    }
}
BENCHMARK(BM_Analyze2000)->Unit(benchmark::kMillisecond)->UseRealTime();

// Ten branches: main as generated, then each with a tenth more of its recipes on another pin;
// with state.range(0), every recipe of every branch also carries the branch's name.
void BM_Alignment10x250(benchmark::State& state)
{
    const bool distinct = state.range(0) != 0;
    QTemporaryDir dir;
    const QString root = makeRepo(dir, 250, {"--git"});
    if (root.isEmpty()) {
        rg::bench::fail(state, "cannot generate the repository");
        return;
    }
    const QStringList files = QDir(root + "/.flox/pkgs").entryList({"*.nix"}, QDir::Files);
    for (int b = 1; b < 10; ++b) {
        const QString branch = QStringLiteral("branch-%1").arg(b);
        bool ok = git(root, {"checkout", "-q", "-b", branch, "main"}) && onePin(root, fromPin);
        for (int i = 0; ok && i < files.size(); ++i) {
            if (!distinct && i >= files.size() * b / 10)
                break;
            QFile file(root + "/.flox/pkgs/" + files[i]);
            ok = file.open(QIODevice::ReadWrite);
            QByteArray text = file.readAll();
            if (i < files.size() * b / 10)
                text.replace(QByteArray::fromStdString(fromPin), QByteArray::fromStdString(toPin));
            if (distinct)
                text += "# " + branch.toUtf8() + "\n";
            file.resize(0);
            file.write(text);
        }
        if (!ok || !git(root, {"commit", "-q", "-a", "-m", branch})) {
            rg::bench::fail(state, "cannot set up the branches");
            return;
        }
    }
    git(root, {"checkout", "-q", "main"});
    std::string error;
    const auto sources = rg::PinAlignment::localBranches(root.toStdString(), &error);
    if (sources.size() != 10) {
        rg::bench::fail(state, "branches: " + std::to_string(sources.size()) + " " + error);
        return;
    }
    size_t rows = 0;
    int recipes = 0;
    for (auto _ : state) {
        const rg::PinAlignment alignment = rg::PinAlignment::compute(sources);
        rows = alignment.rows().size();
        recipes = 0;
        for (const rg::AlignmentColumn& column : alignment.columns())
            recipes += column.recipes;
        // Every branch read whole: a branch that failed to read would make a faster view.
        if (recipes != 10 * files.size()) {
            rg::bench::fail(state, "read " + std::to_string(recipes) + " of " +
                                       std::to_string(10 * files.size()) + " recipes");
            return;
        }
    }
    state.counters["rows"] = static_cast<double>(rows);
    state.counters["recipes"] = recipes;
}
BENCHMARK(BM_Alignment10x250)
    ->ArgName("distinct")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

int main(int argc, char** argv)
{
    return rg::bench::runAll(argc, argv);
}
