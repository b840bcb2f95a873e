// The analyzer on the seed fixture repositories — the issue's acceptance criteria — and on
// git revisions, inferred and invalid specs, caches and threads.

#include "analysis/analyzer.h"
#include "analysis/matrixcounts.h"
#include "impossibleasks.h"
#include "testrepository.h"

#include <QDirIterator>
#include <QTest>
#include <algorithm>
#include <map>
#include <mutex>
#include <numeric>
#include <set>

using namespace rg;
using rg::test::TestRepository;

namespace {

const QString fixtures = QStringLiteral(RG_FIXTURES_DIR);

Analysis analyzeFixture(const QString& name, AnalyzerOptions options = {})
{
    auto source = openWorkTree((fixtures + "/" + name).toStdString());
    return Analyzer().analyze(*source, options);
}

const Cell* entryFor(const Analysis& analysis, const std::string& fileName)
{
    for (const Cell& entry : analysis.cells)
        if (entry.recipe && entry.recipe->fileName == fileName)
            return &entry;
    return nullptr;
}

const Cell* entryForVariant(const Analysis& analysis, const std::string& variant)
{
    for (const Cell& entry : analysis.cells)
        if (entry.variant.toString() == variant)
            return &entry;
    return nullptr;
}

std::multiset<std::string> ruleIds(const Cell& entry)
{
    std::multiset<std::string> ids;
    for (const Finding& finding : entry.findings)
        ids.insert(finding.ruleId);
    return ids;
}

const Finding* findingOf(const Cell& entry, const std::string& ruleId)
{
    for (const Finding& finding : entry.findings)
        if (finding.ruleId == ruleId)
            return &finding;
    return nullptr;
}

QByteArray readFixture(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Every cell's recipe, status and findings, in the analysis' order: what two analyses must
// agree on.
std::vector<std::string> findingsOf(const Analysis& analysis)
{
    std::vector<std::string> out;
    for (const Cell& entry : analysis.cells) {
        std::string text = entry.id.toKey() + " " + (entry.recipe ? entry.recipe->path : "-") +
                           " " + std::string(cellStatusId(entry.status));
        for (const Finding& finding : entry.findings)
            text += "; " + finding.ruleId + " " + std::to_string(finding.line) + ":" +
                    std::to_string(finding.column) + " " + finding.message;
        out.push_back(std::move(text));
    }
    return out;
}

int count(const Analysis& analysis, CellStatus status)
{
    return analysis.counts()[static_cast<size_t>(status)];
}

// Copies a fixture repository's files (not its spec) into `repo`.
void copyFixture(const QString& name, const TestRepository& repo, bool withSpec)
{
    const QString base = fixtures + "/" + name;
    QDirIterator it(base, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString relative = QDir(base).relativeFilePath(path);
        if (!withSpec && relative.endsWith("recipegrid.json"))
            continue;
        repo.write(relative, readFixture(path));
    }
}

} // namespace

class TestAnalyzer : public QObject
{
    Q_OBJECT

private slots:
    // No spec, companions beside pytorch: the inferred matrix expects the pytorch cells only;
    // the companion recipes are counted apart, so every number of the line adds up.
    void summaryAddsUpWithCompanionRecipes()
    {
        const Analysis analysis = analyzeFixture("realworld/companion");
        QVERIFY(analysis.spec.isInferred());
        int expected = 0;
        int outside = 0;
        for (const Cell& entry : analysis.cells)
            (entry.expected ? expected : outside) += entry.recipe ? 1 : 0;
        QCOMPARE(expected, 3);
        QCOMPARE(outside, 3);
        QCOMPARE(analysis.summary(),
                 std::string("3 expected (3 ok) \u00b7 3 not expected (2 ok \u00b7 1 broken)"));
        const MatrixCounts counts = MatrixCounts::of(analysis);
        QCOMPARE(counts.expectedTotal(), 3);
        QCOMPARE(counts.expected[size_t(CellStatus::Ok)], 3);
        QCOMPARE(counts.notExpectedTotal(), 3);
        QCOMPARE(counts.notExpected[size_t(CellStatus::Ok)], 2);
        QCOMPARE(counts.notExpected[size_t(CellStatus::Broken)], 1);
        // Every cell once: expected, not expected or a gap, and so in the status counts.
        const auto all = counts.byStatus();
        QCOMPARE(std::accumulate(all.begin(), all.end(), 0),
                 counts.expectedTotal() + counts.notExpectedTotal() + counts.gaps);
        QCOMPARE(std::accumulate(all.begin(), all.end(), 0), int(analysis.cells.size()));
        QCOMPARE(all, analysis.counts());
    }

    void seed001StartWholeTable()
    {
        const Analysis analysis = analyzeFixture("seed001-start");
        QVERIFY(!analysis.specError);
        QVERIFY(!analysis.spec.isInferred());
        QCOMPARE(analysis.specPath, std::string(".flox/recipegrid.json"));
        QCOMPARE(analysis.expectedCount(), 44);
        QCOMPARE(count(analysis, CellStatus::Ok), 1);
        QCOMPARE(count(analysis, CellStatus::Broken), 4);
        QCOMPARE(count(analysis, CellStatus::Redundant), 1);
        QCOMPARE(count(analysis, CellStatus::Missing), 41);
        QCOMPARE(count(analysis, CellStatus::Unexpected), 0);
        QCOMPARE(count(analysis, CellStatus::Impossible), 0);
        QCOMPARE(analysis.cells.size(), size_t(47));
        // The spec asks for sm110 and sm121 with x86 ISAs: said once per pair, on the spec; the
        // cells stay missing, as the spec asks for them, and say why they cannot work.
        QCOMPARE(analysis.repositoryFindings.size(), size_t(test::seed001ImpossibleAsks));
        QCOMPARE(test::findingsBesidesImpossibleAsks(analysis) + test::seed001ImpossibleAsks,
                 analysis.findingCount());
        const Finding& ask = analysis.repositoryFindings.back();
        QCOMPARE(ask.severity, Severity::Warning);
        QCOMPARE(ask.file, std::string(".flox/recipegrid.json"));
        QCOMPARE(ask.message,
                 std::string("the spec asks for pytorch-python313-cuda13_0-sm121-avx512vnni, which "
                             "cannot work: sm121 (NVIDIA DGX Spark (GB10)) is an ARM SoC; "
                             "avx512vnni is an x86 ISA (it stays expected)"));
        const Cell* sm121avx2 = entryForVariant(analysis, "pytorch-python313-cuda13_0-sm121-avx2");
        QVERIFY(sm121avx2);
        QCOMPARE(sm121avx2->status, CellStatus::Missing);
        QVERIFY2(sm121avx2->findings.front().message.ends_with(
                     "; it cannot work: sm121 (NVIDIA DGX Spark (GB10)) is an ARM SoC; avx2 is an "
                     "x86 ISA"),
                 sm121avx2->findings.front().message.c_str());
        // Each count says which cells it counts: the 44 expected ones, then the recipes
        // beside them (the stray sm120-avx, the nightly standing in for sm121-armv9, -magma).
        QCOMPARE(analysis.summary(),
                 std::string("44 expected (1 ok \u00b7 2 broken \u00b7 41 missing) \u00b7 3 not "
                             "expected (2 broken \u00b7 1 redundant)"));

        const Cell* canonical = entryFor(analysis, "pytorch-python313-cuda13_0-sm120-avx512.nix");
        QVERIFY(canonical);
        QCOMPARE(canonical->status, CellStatus::Ok);
        QVERIFY(canonical->expected);
        QVERIFY(canonical->findings.empty());

        const QByteArray oldPin = "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3";
        for (const char* name : {"pytorch-python313-cuda13_0-sm110-armv8_2.nix",
                                 "pytorch-python313-cuda13_0-sm110-armv9.nix"}) {
            const Cell* arm = entryFor(analysis, name);
            QVERIFY2(arm, name);
            QCOMPARE(arm->status, CellStatus::Broken);
            QVERIFY(arm->expected);
            QCOMPARE(ruleIds(*arm), (std::multiset<std::string>{"pin-mismatch", "missing-overlay",
                                                                "deprecated-torch-attribute"}));
            const Finding* pin = findingOf(*arm, "pin-mismatch");
            QVERIFY(pin->message.find(oldPin.toStdString()) != std::string::npos);
            QVERIFY(pin->message.find("6a030d535719c5190187c4cec156f335e95e3211") !=
                    std::string::npos);
            QCOMPARE(pin->fix, FixKind::ReplacePin);
            // The range is exactly the revision in the file, and line:column point at it.
            const QByteArray bytes = readFixture(fixtures + "/seed001-start/.flox/pkgs/" + name);
            QCOMPARE(bytes.mid(pin->range.begin, pin->range.length()), oldPin);
            const int lineStart = bytes.lastIndexOf('\n', int(pin->range.begin) - 1) + 1;
            QCOMPARE(int(pin->column), int(pin->range.begin) - lineStart + 1);
            QCOMPARE(int(pin->line), bytes.left(pin->range.begin).count('\n') + 1);
            const Finding* overlays = findingOf(*arm, "missing-overlay");
            for (const char* overlay : {"cuda-package-set", "magma-patch", "torch-upgrade"})
                QVERIFY2(overlays->message.find(overlay) != std::string::npos, overlay);
            const Finding* pytorch = findingOf(*arm, "deprecated-torch-attribute");
            QCOMPARE(bytes.mid(pytorch->range.begin, pytorch->range.length()),
                     QByteArray("pytorch"));
            QVERIFY(arm->reason.find("pin differs") != std::string::npos);
        }

        const Cell* nightly =
            entryFor(analysis, "pytorch-python313-cuda13_0-sm121-armv9-nightly.nix");
        QVERIFY(nightly);
        QCOMPARE(nightly->status, CellStatus::Broken);
        QVERIFY(!nightly->expected);
        QVERIFY(findingOf(*nightly, "from-scratch-pattern"));
        QVERIFY(findingOf(*nightly, "nonstandard-suffix"));
        QVERIFY(findingOf(*nightly, "nonstandard-suffix")->message.find("-nightly") !=
                std::string::npos);
        QCOMPARE(entryForVariant(analysis, "pytorch-python313-cuda13_0-sm121-armv9")->status,
                 CellStatus::Missing); // the nightly file does not fill the cell

        const Cell* avx = entryFor(analysis, "pytorch-python313-cuda13_0-sm120-avx.nix");
        QVERIFY(avx);
        QCOMPARE(avx->status, CellStatus::Broken); // not in the target, and wrong too
        QVERIFY(!avx->expected);
        QVERIFY(findingOf(*avx, "pin-mismatch"));
        QVERIFY(findingOf(*avx, "missing-overlay"));
        QVERIFY(findingOf(*avx, "unexpected-variant"));

        const Cell* magma = entryFor(analysis, "pytorch-python313-cuda13_0-sm120-avx512-magma.nix");
        QVERIFY(magma);
        QCOMPARE(magma->status, CellStatus::Redundant);
        QCOMPARE(ruleIds(*magma), (std::multiset<std::string>{"nonstandard-suffix"}));
        QCOMPARE(findingOf(*magma, "nonstandard-suffix")->fix, FixKind::Delete);

        // Missing cells, in spec order, each with a "create" finding.
        int missing = 0;
        for (const Cell& entry : analysis.cells) {
            if (entry.status != CellStatus::Missing)
                continue;
            ++missing;
            QVERIFY(entry.expected);
            QVERIFY(!entry.recipe);
            QCOMPARE(entry.findings.size(), size_t(1));
            QCOMPARE(entry.findings[0].fix, FixKind::Create);
        }
        QCOMPARE(missing, 41);
        QVERIFY(entryForVariant(analysis, "pytorch-python313-cpu-avx2")->status ==
                CellStatus::Missing);
        QVERIFY(entryForVariant(analysis, "pytorch-python313-cuda13_0-sm110-avx2")->status ==
                CellStatus::Missing); // expected by the spec, so not "impossible"
        // Expected entries come first, in spec order.
        for (size_t i = 0; i < 44; ++i)
            QVERIFY(analysis.cells[i].expected);
        for (size_t i = 44; i < analysis.cells.size(); ++i)
            QVERIFY(!analysis.cells[i].expected);
    }

    void seed001TargetIsClean()
    {
        const Analysis analysis = analyzeFixture("seed001-target");
        QCOMPARE(analysis.cells.size(), size_t(44));
        QCOMPARE(count(analysis, CellStatus::Ok), 44);
        QCOMPARE(test::findingsBesidesImpossibleAsks(analysis), 0);
        QCOMPARE(analysis.findingCount(), test::seed001ImpossibleAsks);
        QVERIFY(analysis.unnamed.empty());
        for (const Cell& entry : analysis.cells) {
            QVERIFY(entry.recipe);
            // Every recipe's facts are fully read: a clean result must not come from blindness.
            const RecipeFacts& facts = *entry.recipe;
            QVERIFY2(facts.pins.size() == 1, facts.fileName.c_str());
            QVERIFY2(facts.pname && facts.cpuFlags && facts.platforms, facts.fileName.c_str());
            QCOMPARE(facts.torchVersion->value, std::string("2.10.0"));
            if (entry.variant.accelerator == Accelerator::Cuda) {
                QCOMPARE(facts.overlays.size(), size_t(3));
                QVERIFY(!facts.archSinks.empty());
            } else {
                QCOMPARE(facts.overlays.size(), size_t(1));
                QVERIFY(facts.cudaInputs.empty());
            }
        }
    }

    void seed000HasOnlyPinFindings()
    {
        const Analysis analysis = analyzeFixture("seed000");
        QCOMPARE(analysis.cells.size(), size_t(66));
        QCOMPARE(analysis.expectedCount(), 66);
        QCOMPARE(analysis.findingCount(), 66);
        QCOMPARE(count(analysis, CellStatus::Broken), 66);
        for (const Cell& entry : analysis.cells) {
            QCOMPARE(entry.findings.size(), size_t(1));
            QCOMPARE(entry.findings[0].ruleId, std::string("pin-mismatch"));
            QVERIFY(entry.findings[0].message.find("6a030d535719c5190187c4cec156f335e95e3211") !=
                    std::string::npos);
            QVERIFY(entry.findings[0].message.find("0182a361324364ae3f436a63005877674cf45efb") !=
                    std::string::npos);
        }
    }

    void analysesBranchThatIsNotCheckedOut()
    {
        TestRepository repo;
        repo.git({"init", "-q"});
        copyFixture("seed001-start", repo, true);
        repo.commitAll("start");
        repo.git({"checkout", "-q", "-b", "target"});
        repo.git({"rm", "-q", "-r", ".flox/pkgs"});
        copyFixture("seed001-target", repo, true);
        repo.commitAll("target");
        repo.git({"checkout", "-q", "main"});

        std::string error;
        auto target = openGitRevision(repo.rootPath(), "target", &error);
        QVERIFY2(target, error.c_str());
        const Analysis atTarget = Analyzer().analyze(*target);
        QCOMPARE(count(atTarget, CellStatus::Ok), 44);
        QCOMPARE(test::findingsBesidesImpossibleAsks(atTarget), 0);

        const Analysis workTree = Analyzer().analyze(*openWorkTree(repo.rootPath()));
        QCOMPARE(count(workTree, CellStatus::Missing), 41);

        auto previous = openGitRevision(repo.rootPath(), "target~1", &error);
        QVERIFY(previous);
        QCOMPARE(count(Analyzer().analyze(*previous), CellStatus::Broken), 4);
    }

    void infersSpecWhenAbsent()
    {
        TestRepository repo;
        copyFixture("seed001-target", repo, false);
        const Analysis analysis = Analyzer().analyze(*openWorkTree(repo.rootPath()));
        QVERIFY(analysis.spec.isInferred());
        QVERIFY(!analysis.specError);
        QCOMPARE(analysis.repositoryFindings.size(), size_t(1));
        QCOMPARE(analysis.repositoryFindings[0].ruleId, std::string("spec-inferred"));
        QCOMPARE(analysis.repositoryFindings[0].severity, Severity::Info);
        // Without a spec to ask for them, sm110/sm121 with x86 ISAs are reported impossible.
        QCOMPARE(count(analysis, CellStatus::Ok), 36);
        QCOMPARE(count(analysis, CellStatus::Impossible), 8);
        QCOMPARE(analysis.expectedCount(), 44);
        QCOMPARE(analysis.spec.pins.at("13.0"),
                 std::string("6a030d535719c5190187c4cec156f335e95e3211"));
        QCOMPARE(analysis.spec.torchVersion, std::string("2.10.0"));
    }

    // A cell that cannot exist is impossible whichever limit it breaks (hardware, the CUDA
    // version's targets, the package's minimum arch) and wherever its recipe stands, unless a
    // spec file asks for it: then its errors make it broken.
    void cellsThatCannotExistAreImpossible()
    {
        TestRepository repo;
        copyFixture("seed001-target", repo, false);
        const QByteArray text = readFixture(
            fixtures + "/seed001-target/.flox/pkgs/pytorch-python313-cuda13_0-sm90-avx2.nix");
        repo.writeRecipe("pytorch-python313-cuda13_0-sm61-avx2.nix", text); // CUDA 13 dropped it
        repo.writeRecipe("vllm-python313-cuda13_0-sm61-avx2.nix", text);    // and vLLM too old
        repo.writeRecipe("vllm-python313-cuda12_9-sm61-avx2.nix", text);    // vLLM too old
        auto statusOf = [](const Analysis& analysis, const std::string& variant) {
            for (const Cell& entry : analysis.cells)
                if (entry.variant.toString() == variant) {
                    if (!entry.expectation)
                        qFatal("no expectation for %s", variant.c_str());
                    return entry.status;
                }
            qFatal("no entry for %s", variant.c_str());
        };
        const Analysis inferred = Analyzer().analyze(*openWorkTree(repo.rootPath()));
        QVERIFY(inferred.spec.isInferred());
        for (const char* variant :
             {"pytorch-python313-cuda13_0-sm61-avx2", "vllm-python313-cuda13_0-sm61-avx2",
              "vllm-python313-cuda12_9-sm61-avx2"})
            QCOMPARE(statusOf(inferred, variant), CellStatus::Impossible);
        QCOMPARE(count(inferred, CellStatus::Impossible), 8 + 3);

        // A spec file that asks for sm61 on CUDA 13.0 decides: the cell is judged by its errors.
        repo.write(".flox/recipegrid.json", R"({
  "schema": 1, "package": "pytorch", "recipeDir": ".flox/pkgs",
  "pins": { "13.0": "6a030d535719c5190187c4cec156f335e95e3211" },
  "matrix": [ { "python": ["3.13"], "accelerator": "cuda", "cuda": ["13.0"],
                "gpuArchs": ["sm61"], "isas": ["avx2"] } ]
})");
        const Analysis asked = Analyzer().analyze(*openWorkTree(repo.rootPath()));
        QVERIFY2(!asked.spec.isInferred(), asked.specError ? asked.specError->message.c_str() : "");
        QCOMPARE(statusOf(asked, "pytorch-python313-cuda13_0-sm61-avx2"), CellStatus::Broken);
        QCOMPARE(statusOf(asked, "vllm-python313-cuda12_9-sm61-avx2"), CellStatus::Impossible);
    }

    void invalidSpecFallsBackToInference()
    {
        TestRepository repo;
        copyFixture("seed001-target", repo, false);
        repo.write(".flox/recipegrid.json", "{\n  \"schema\": 1,\n  \"matrix\": [ oops ]\n}\n");
        const Analysis analysis = Analyzer().analyze(*openWorkTree(repo.rootPath()));
        QVERIFY(analysis.specError);
        QCOMPARE(analysis.specError->line, 3);
        QVERIFY(analysis.spec.isInferred());
        QCOMPARE(count(analysis, CellStatus::Ok), 36);
        QCOMPARE(count(analysis, CellStatus::Impossible), 8);
        QCOMPARE(analysis.repositoryFindings.size(), size_t(1));
        const Finding& finding = analysis.repositoryFindings[0];
        QCOMPARE(finding.ruleId, std::string("spec-invalid"));
        QCOMPARE(finding.severity, Severity::Error);
        QCOMPARE(finding.file, std::string(".flox/recipegrid.json"));
        QCOMPARE(finding.line, 3u);
    }

    void explicitSpecPathAndRecipeDir()
    {
        TestRepository repo;
        copyFixture("seed001-target", repo, false);
        repo.write("specs/strict.json", readFixture(fixtures + "/seed000/.flox/recipegrid.json"));
        AnalyzerOptions options;
        options.specPath = "specs/strict.json";
        const Analysis analysis = Analyzer().analyze(*openWorkTree(repo.rootPath()), options);
        QVERIFY(!analysis.spec.isInferred());
        QCOMPARE(analysis.specPath, std::string("specs/strict.json"));
        QCOMPARE(analysis.expectedCount(), 66); // seed 000's matrix
        // seed 000's 66 variants: seed 001's four CPU-only recipes are four of them, its CUDA
        // 13.0 recipes none.
        QCOMPARE(count(analysis, CellStatus::Missing), 62);

        options = {};
        options.recipeDir = "nowhere";
        const Analysis none = Analyzer().analyze(*openWorkTree(repo.rootPath()), options);
        QVERIFY(!none.sourceError.empty());
    }

    void unnamedFilesAndWrappedBases()
    {
        TestRepository repo;
        repo.writeRecipe("common.nix", "{ lib }: { }");
        repo.writeRecipe("scratch.nix", "{ x = 1; }");
        repo.writeRecipe("pytorch-python313-cpu-avx2.nix",
                         "{ callPackage }: callPackage ./common.nix { isa = \"avx2\"; }");
        const Analysis analysis = Analyzer().analyze(*openWorkTree(repo.rootPath()));
        QCOMPARE(analysis.unnamed.size(), size_t(2));
        int notVariant = 0;
        for (const Finding& finding : analysis.repositoryFindings)
            if (finding.ruleId == "not-a-variant-name") {
                ++notVariant;
                QCOMPARE(finding.file, std::string(".flox/pkgs/scratch.nix"));
            }
        QCOMPARE(notVariant, 1); // common.nix is wrapped by a recipe, so it is a shared base
        const Cell* wrapper = entryFor(analysis, "pytorch-python313-cpu-avx2.nix");
        QVERIFY(wrapper);
        QCOMPARE(wrapper->recipe->pattern, PatternKind::Wrapper);
    }

    void fileProblemsBecomeFindings()
    {
        TestRepository repo;
        repo.writeRecipe("pytorch-python313-cpu-avx2.nix", "{ a = 1;\n  b = ; }");
        repo.writeRecipe("pytorch-python313-cpu-avx512.nix", "{ a = \"\xff\xfe\"; }");
        repo.writeRecipe("pytorch-python313-cpu-avx512bf16.nix", QByteArray(2048, ' '));
        AnalyzerOptions options;
        options.maxFileSize = 1024;
        const Analysis analysis = Analyzer().analyze(*openWorkTree(repo.rootPath()), options);
        const Cell* syntax = entryFor(analysis, "pytorch-python313-cpu-avx2.nix");
        QVERIFY(syntax);
        QCOMPARE(syntax->status, CellStatus::Broken);
        QCOMPARE(syntax->findings.at(0).ruleId, std::string("syntax-error"));
        QCOMPARE(syntax->findings[0].line, 2u);
        QCOMPARE(syntax->findings[0].column, 7u);
        QVERIFY(syntax->findings[0].message.find("2:7") != std::string::npos);
        const Cell* utf8 = entryFor(analysis, "pytorch-python313-cpu-avx512.nix");
        QCOMPARE(utf8->findings.at(0).ruleId, std::string("not-utf8"));
        QVERIFY(utf8->findings[0].message.find("line 1, column 8") != std::string::npos);
        const Cell* big = entryFor(analysis, "pytorch-python313-cpu-avx512bf16.nix");
        QCOMPARE(big->findings.at(0).ruleId, std::string("oversized-file"));
        QCOMPARE(big->recipe->problem, FileProblem::Oversized);
    }

    void cacheParsesOnlyChangedFiles()
    {
        TestRepository repo;
        copyFixture("seed001-start", repo, true);
        auto source = openWorkTree(repo.rootPath());
        RecipeCache cache;
        const Analysis first = Analyzer().analyze(*source, {}, &cache);
        QCOMPARE(cache.parsedCount(), 6);
        const Analysis again = Analyzer().analyze(*source, {}, &cache);
        QCOMPARE(cache.parsedCount(), 6);
        QCOMPARE(again.counts(), first.counts());

        // Break the one good recipe: only it is parsed again, and the table follows.
        repo.writeRecipe("pytorch-python313-cuda13_0-sm120-avx512.nix", "{ broken");
        const Analysis third = Analyzer().analyze(*source, {}, &cache);
        QCOMPARE(cache.parsedCount(), 7);
        QCOMPARE(count(third, CellStatus::Ok), 0);
        QCOMPARE(count(third, CellStatus::Broken), 5);

        // A deleted file leaves the cache.
        const std::string removed = ".flox/pkgs/pytorch-python313-cuda13_0-sm120-avx.nix";
        std::string stamp;
        for (const SourceEntry& e : source->list(".flox/pkgs", nullptr))
            if (e.path == removed)
                stamp = e.stamp;
        QVERIFY(cache.find(removed, stamp));
        QVERIFY(QFile::remove(repo.root() + "/" + QString::fromStdString(removed)));
        Analyzer().analyze(*source, {}, &cache);
        QVERIFY(!cache.find(removed, stamp));
        QCOMPARE(cache.parsedCount(), 7);
    }

    // Facts are a function of the bytes (and the modules read): a new stamp on the same bytes, or
    // facts handed over from an earlier analysis, are not parsed again; other bytes are.
    void cacheKnowsRecipesByContent()
    {
        TestRepository repo;
        copyFixture("seed001-start", repo, true);
        auto source = openWorkTree(repo.rootPath());
        const Analysis first = Analyzer().analyze(*source);
        const QString dir = repo.root() + "/.flox/pkgs/";
        const QStringList names = QDir(dir).entryList({"*.nix"}, QDir::Files);
        QCOMPARE(names.size(), 6);

        RecipeCache seeded;
        seeded.seed(first);
        const Analysis handedOver = Analyzer().analyze(*source, {}, &seeded);
        QCOMPARE(seeded.parsedCount(), 0);
        QCOMPARE(findingsOf(handedOver), findingsOf(first));

        // Every file rewritten with its own bytes, one minute later: new stamps, same content.
        for (const QString& name : names) {
            QFile file(dir + name);
            QVERIFY(file.open(QIODevice::ReadWrite));
            const QByteArray bytes = file.readAll();
            QVERIFY(file.seek(0));
            QCOMPARE(file.write(bytes), bytes.size());
            QVERIFY(file.setFileTime(QDateTime::currentDateTime().addSecs(60),
                                     QFileDevice::FileModificationTime));
        }
        const Analysis touched = Analyzer().analyze(*source, {}, &seeded);
        QCOMPARE(seeded.parsedCount(), 0);
        QCOMPARE(findingsOf(touched), findingsOf(first));

        // The same size, one byte other: parsed, and judged anew.
        const QString sound = "pytorch-python313-cuda13_0-sm120-avx512.nix";
        QFile file(dir + sound);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QByteArray bytes = file.readAll();
        file.close();
        const qsizetype at = bytes.indexOf("gpuArchSM = \"12.0\"");
        QVERIFY(at >= 0);
        bytes[at + 14] = '9'; // "12.0" → "19.0": the file's name says sm120
        repo.writeRecipe(sound, bytes);
        const Analysis edited = Analyzer().analyze(*source, {}, &seeded);
        QCOMPARE(seeded.parsedCount(), 1);
        QVERIFY(findingsOf(edited) != findingsOf(first));
        QCOMPARE(findingsOf(edited), findingsOf(Analyzer().analyze(*source)));

        // Facts of an analysis whose file has changed since are not taken for the new bytes.
        RecipeCache stale;
        stale.seed(first);
        Analyzer().analyze(*source, {}, &stale);
        QCOMPARE(stale.parsedCount(), 1);
    }

    void soundRecipeOutsideTheSpecIsUnexpected()
    {
        // sm75 is not among the target's archs; a correct recipe for it is merely unexpected.
        TestRepository repo;
        copyFixture("seed001-target", repo, true);
        QByteArray bytes = readFixture(
            fixtures + "/seed001-target/.flox/pkgs/pytorch-python313-cuda13_0-sm90-avx2.nix");
        bytes.replace("sm90", "sm75").replace("\"9.0\"", "\"7.5\"").replace("\"90\"", "\"75\"");
        repo.writeRecipe("pytorch-python313-cuda13_0-sm75-avx2.nix", bytes);
        const Analysis analysis = Analyzer().analyze(*openWorkTree(repo.rootPath()));
        const Cell* stray = entryFor(analysis, "pytorch-python313-cuda13_0-sm75-avx2.nix");
        QVERIFY(stray);
        QCOMPARE(stray->status, CellStatus::Unexpected);
        QVERIFY(!stray->expected);
        QCOMPARE(ruleIds(*stray), (std::multiset<std::string>{"unexpected-variant"}));
        QCOMPARE(count(analysis, CellStatus::Ok), 44);
        QCOMPARE(count(analysis, CellStatus::Unexpected), 1);
    }

    void reportsProgressForEveryFile()
    {
        std::mutex mutex;
        std::vector<std::pair<int, int>> calls;
        AnalyzerOptions options;
        options.threads = 4;
        options.progress = [&](int done, int total) {
            std::lock_guard lock(mutex);
            calls.emplace_back(done, total);
        };
        analyzeFixture("seed000", options);
        QCOMPARE(calls.size(), size_t(66));
        std::set<int> seen;
        for (const auto& [done, total] : calls) {
            QCOMPARE(total, 66);
            seen.insert(done);
        }
        QCOMPARE(seen.size(), size_t(66)); // each count reported once: 1 … 66
        QCOMPARE(*seen.begin(), 1);
        QCOMPARE(*seen.rbegin(), 66);
    }

    void threadCountDoesNotChangeTheResult()
    {
        AnalyzerOptions one;
        one.threads = 1;
        AnalyzerOptions four;
        four.threads = 4;
        const Analysis a = analyzeFixture("seed000", one);
        const Analysis b = analyzeFixture("seed000", four);
        QCOMPARE(a.cells.size(), b.cells.size());
        for (size_t i = 0; i < a.cells.size(); ++i) {
            QCOMPARE(a.cells[i].variant.toString(), b.cells[i].variant.toString());
            QCOMPARE(a.cells[i].status, b.cells[i].status);
            QCOMPARE(a.cells[i].findings.size(), b.cells[i].findings.size());
        }
    }
};

QTEST_GUILESS_MAIN(TestAnalyzer)
#include "tst_analyzer.moc"
