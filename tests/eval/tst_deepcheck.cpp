// Nix's answers on the fixture repositories, evaluated with the real Nix against the stand-in
// nixpkgs revisions (tests/fixtures/nixpkgs-standin): every recipe evaluates except those a
// faithful nixpkgs refuses, each finding of the deep check is listed here with why it is right,
// a bump to the newer revision breaks what it must at the recipe's line, values the static
// reading cannot follow are judged by Nix, and derivations change exactly with their inputs.

#include "../recipes/testrepository.h"
#include "analysis/analyzer.h"
#include "analysis/ruleset.h"
#include "eval/deepcheck.h"
#include "eval/evaluationmerge.h"
#include "eval/recipeevaluator.h"
#include "vcs/repositorysource.h"

#include <QDirIterator>
#include <QtTest>
#include <map>
#include <set>

using namespace rg;

namespace {

const QString fixtures = QStringLiteral(RG_FIXTURES_DIR);
const std::string standin = RG_FIXTURES_DIR "/nixpkgs-standin/";

// Every nixpkgs revision the fixture repositories pin, wherever they write it.
const char* const fixtureRevisions[] = {
    "6a030d535719c5190187c4cec156f335e95e3211", "235aefb7b064954fce09d035c69907ba8a87cbcd",
    "3e2f6c7b8a9d0e1f2a3b4c5d6e7f8091a2b3c4d5", "0182a361324364ae3f436a63005877674cf45efb",
    "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3", "9f3c1d2b7e5a4c8d0b6e2f1a3c5d7e9b1f0a2c4e"};

// What Nix says about one recipe, beyond "evaluates and agrees": a deep-check rule, or
// "no-eval" with words of Nix's message. `file` is a part of the file name; "" is every recipe.
struct Verdict
{
    const char* repository;
    const char* file;
    const char* outcome;
    const char* words; // of Nix's message, for "no-eval"
    const char* why;
};

const char* const envOverlap =
    "The `env` attribute set cannot contain any attributes passed to derivation";
const char* const envWhy = "NIX_CFLAGS_COMPILE is set as a derivation argument while torch sets "
                           "env.NIX_CFLAGS_COMPILE; nixpkgs' mkDerivation refuses the overlap";

const Verdict verdicts[] = {
    {"seed001-start", "cuda13_0-sm110-armv8_2", "eval-cuda-mismatch", "",
     "no CUDA 13 overlay: the pin's default set is CUDA 12.8"},
    {"seed001-start", "cuda13_0-sm110-armv9", "eval-cuda-mismatch", "", "as above"},
    {"seed001-start", "cuda13_0-sm120-avx.", "eval-cuda-mismatch", "", "as above"},
    {"demo", "cuda13_0-sm110-armv8_2", "eval-cuda-mismatch", "", "as in seed001-start"},
    {"demo", "cuda13_0-sm110-armv9", "eval-cuda-mismatch", "", "as in seed001-start"},
    {"demo", "cuda13_0-sm120-avx.", "eval-cuda-mismatch", "", "as in seed001-start"},
    {"demo", "cuda13_0-sm89-avx2", "eval-arch-mismatch", "", "the demo's \"8.6\" in an sm89 file"},
    {"realworld/builder", "", "no-eval", envOverlap, envWhy},
    {"realworld/flake-pins", "", "no-eval", envOverlap, envWhy},
    {"realworld/json-pins", "cuda12_8", "no-eval", envOverlap, envWhy},
    {"realworld/dotted-bindings", "python312-cuda12_8-sm80-avx2", "no-eval", envOverlap, envWhy},
    {"realworld/companion", "torchaudio-python313-cuda12_8-sm89-avx2", "no-eval",
     "called without required argument",
     "it imports a sibling recipe, a function of its packages, without arguments"},
    {"realworld/companion", "torchvision-python313-cuda12_8-sm120-avx512", "eval-arch-extra", "",
     "torchvision compiles for its torch's cudaCapabilities: the whole CUDA set's list"},
    {"realworld/derived", "torchvision-", "eval-arch-extra", "", "as in companion"},
    {"realworld/derived", "pytorch-python313-cuda12_8-sm89-avx2", "eval-isa-mismatch", "",
     "derived from the avx512 recipe, it keeps its AVX-512 flags"},
    {"realworld/derived", "pytorch-python313-cuda12_8-sm120-armv9", "eval-platforms-mismatch", "",
     "derived from an x86 recipe, it keeps meta.platforms = [ x86_64-linux ]"},
    {"realworld/isa-module", "cuda13_0-sm120-avx512", "eval-isa-mismatch", "",
     "copied from the avx2 recipe, it still takes the module's avx2 flags"},
    {"realworld/open-vocabulary", "cuda13_2-sm120-avx512", "no-eval", "is marked as broken",
     "torch on CUDA 13.2 with the pin's MAGMA on another CUDA set: torch's own broken condition"},
    {"realworld/sm-notation", "cuda13_0-sm121-armv9", "eval-arch-mismatch", "",
     "TORCH_CUDA_ARCH_LIST gets \"sm_121\", which PyTorch rejects"},
};

EvalSettings settingsFor(const QString& repository, const std::string& revision,
                         const QString& store)
{
    EvalSettings settings;
    settings.repoRoot = repository.toStdString();
    for (const char* pin : fixtureRevisions)
        settings.sources[pin] = standin + revision;
    settings.defaultNixpkgs = standin + revision;
    settings.store = "local?root=" + store.toStdString();
    settings.jobs = 2;
    return settings;
}

struct Evaluated
{
    Analysis analysis;
    std::vector<EvaluatedRecipe> results;
};

Evaluated evaluate(const QString& repository, const std::string& revision, const QString& store)
{
    Evaluated out;
    const auto source = openWorkTree(repository.toStdString());
    out.analysis = Analyzer().analyze(*source, {});
    const RecipeEvaluator evaluator(settingsFor(repository, revision, store));
    out.results = evaluator.evaluate(EvaluationMerge::itemsOf(out.analysis));
    EvaluationMerge::apply(out.analysis, out.results);
    return out;
}

QString repositoryPath(const QString& name)
{
    return name == QLatin1String("demo")
               ? QStringLiteral(RG_SOURCE_DIR "/resources/demo/repository")
               : fixtures + QLatin1Char('/') + name;
}

// seed000's sound sm86 recipe, the one the tests vary; "" when it cannot be read.
QByteArray seed000Sm86()
{
    QFile canonical(fixtures +
                    QStringLiteral("/seed000/.flox/pkgs/pytorch-python313-cuda12_9-sm86-avx2.nix"));
    return canonical.open(QIODevice::ReadOnly) ? canonical.readAll() : QByteArray();
}

} // namespace

class TestDeepCheck : public QObject
{
    Q_OBJECT

    QTemporaryDir m_store;

private slots:
    // The rule table names Nix's answer as the check of exactly the rules DeepCheck reports.
    void reportsTheRulesTheTableGivesIt()
    {
        std::set<std::string_view> table;
        for (const RuleInfo& info : RuleSet::rules())
            if (std::holds_alternative<NixAnswer>(info.check))
                table.insert(info.id);
        const auto& reported = DeepCheck::rulesReported();
        QCOMPARE(table, std::set<std::string_view>(reported.begin(), reported.end()));
        QCOMPARE(table.size(), reported.size());
    }

    void fixtureRepositoriesOnTheOlderRevision_data()
    {
        QTest::addColumn<QString>("repository");
        for (const char* name : {"seed000",
                                 "seed000-vllm",
                                 "seed001-target",
                                 "seed001-start",
                                 "demo",
                                 "realworld/builder",
                                 "realworld/companion",
                                 "realworld/derived",
                                 "realworld/dotted-bindings",
                                 "realworld/flake-pins",
                                 "realworld/isa-module",
                                 "realworld/json-pins",
                                 "realworld/mno-flags",
                                 "realworld/old-gpu",
                                 "realworld/open-vocabulary",
                                 "realworld/pins-per-group",
                                 "realworld/sm-notation",
                                 "realworld/sparse-rows",
                                 "realworld/vllm",
                                 "realworld/warnings-only"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    // Each recipe's outcome is exactly the verdicts listed for it: none for a recipe that
    // evaluates and agrees with its variant.
    void fixtureRepositoriesOnTheOlderRevision()
    {
        QFETCH(QString, repository);
        const Evaluated evaluated = evaluate(repositoryPath(repository), "older", m_store.path());
        QVERIFY(!evaluated.results.empty());
        std::map<std::string, std::set<std::string>> actual, expected;
        std::map<std::string, std::string> messages;
        for (const EvaluatedRecipe& result : evaluated.results) {
            actual[result.path];
            if (!result.evaluated) {
                actual[result.path].insert("no-eval");
                messages[result.path] = result.error.message;
            }
            QVERIFY2(!result.transient, (result.path + ": " + result.error.message).c_str());
        }
        for (const Cell& entry : evaluated.analysis.cells)
            for (const Finding& finding : entry.findings)
                if (finding.ruleId.starts_with("eval-") && finding.ruleId != rule::evalError &&
                    finding.severity != Severity::Info)
                    actual[entry.recipe->path].insert(finding.ruleId);
        for (const auto& [path, outcomes] : actual) {
            expected[path];
            for (const Verdict& verdict : verdicts)
                if (repository == QLatin1String(verdict.repository) &&
                    path.find(verdict.file) != std::string::npos) {
                    expected[path].insert(verdict.outcome);
                    if (std::string_view(verdict.outcome) == "no-eval")
                        QVERIFY2(messages[path].find(verdict.words) != std::string::npos,
                                 (path + ": " + messages[path]).c_str());
                }
        }
        for (const auto& [path, outcomes] : actual) {
            std::string have, want;
            for (const std::string& o : outcomes)
                have += o + " ";
            for (const std::string& o : expected[path])
                want += o + " ";
            QVERIFY2(outcomes == expected[path],
                     (path + ": Nix says [" + have + "], listed [" + want + "] " + messages[path])
                         .c_str());
        }
    }

    // The newer revision renames torch's gpuTargets and removes the pytorch alias: Nix's
    // message at the recipe's own line, where the bump's author must look.
    void theNewerRevisionBreaksWhereTheRecipeSaysSo()
    {
        const Evaluated seed =
            evaluate(fixtures + QStringLiteral("/seed001-start"), "newer", m_store.path());
        int renamed = 0, removed = 0;
        for (const EvaluatedRecipe& result : seed.results) {
            // The nightly builds torch from scratch: neither the argument nor the alias.
            if (result.path.find("-nightly") != std::string::npos) {
                QVERIFY2(result.evaluated, result.error.message.c_str());
                continue;
            }
            QVERIFY2(!result.evaluated, result.path.c_str());
            QCOMPARE(result.error.file, result.path);
            QFile file(fixtures + QStringLiteral("/seed001-start/") +
                       QString::fromStdString(result.path));
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QList<QByteArray> lines = file.readAll().split('\n');
            QVERIFY(result.error.line >= 1 && result.error.line <= lines.size());
            const QByteArray line = lines[result.error.line - 1];
            if (result.error.message.find("unexpected argument 'gpuTargets'") !=
                std::string::npos) {
                ++renamed;
                QVERIFY2(line.contains(".override {"), line.constData());
            } else {
                QVERIFY2(result.error.message.find("pytorch has been renamed to torch") !=
                             std::string::npos,
                         result.error.message.c_str());
                ++removed;
                QVERIFY2(line.contains("python3Packages.pytorch"), line.constData());
            }
        }
        QCOMPARE(renamed, 2);
        QCOMPARE(removed, 3);
    }

    // An arch the static reading cannot compute (a sorted list, nixpkgs' lib) is judged by
    // what Nix computes, right and wrong alike.
    void valuesTheStaticReadingCannotFollow()
    {
        test::TestRepository repo;
        const QByteArray text = seed000Sm86();
        QVERIFY(!text.isEmpty());
        const std::pair<const char*, const char*> variants[] = {
            {"sm86", "builtins.head (builtins.sort (a: b: a > b) [ \"8.0\" \"8.6\" ])"},
            {"sm89", "builtins.head (builtins.sort (a: b: a > b) [ \"8.0\" \"8.6\" ])"},
            {"sm80", "nixpkgs_pinned.lib.versions.majorMinor \"8.0.1\""},
            {"sm90", "nixpkgs_pinned.lib.versions.majorMinor \"8.9.0\""}};
        for (const auto& [arch, expression] : variants) {
            QByteArray recipe = text;
            recipe.replace("gpuArchSM = \"8.6\";", QByteArray("gpuArchSM = ") + expression + ";");
            recipe.replace("sm86-avx2", QByteArray(arch) + "-avx2");
            QVERIFY(recipe.contains(expression));
            repo.writeRecipe(QStringLiteral("pytorch-python313-cuda12_9-%1-avx2.nix").arg(arch),
                             recipe);
        }
        const Evaluated evaluated = evaluate(repo.root(), "older", m_store.path());
        std::map<std::string, std::vector<std::string>> evalFindings;
        for (const Cell& entry : evaluated.analysis.cells)
            for (const Finding& finding : entry.findings)
                if (finding.ruleId.starts_with("eval-"))
                    evalFindings[entry.variant.gpuArch].push_back(finding.ruleId);
        QCOMPARE(evalFindings["sm86"], std::vector<std::string>{});
        QCOMPARE(evalFindings["sm80"], std::vector<std::string>{});
        QCOMPARE(evalFindings["sm89"], std::vector<std::string>{"eval-arch-mismatch"});
        QCOMPARE(evalFindings["sm90"], std::vector<std::string>{"eval-arch-mismatch"});
    }

    // A recipe nested deeper than the static reading follows is unchecked: Nix, which reads it,
    // is asked. A wrong arch in it is found and breaks the cell; a sound one stays unchecked
    // (the static rules never ran on it) with Nix's answer beside it.
    void anUncheckedRecipeIsAskedOfNix()
    {
        test::TestRepository repo;
        const QByteArray text = seed000Sm86();
        QVERIFY(!text.isEmpty());
        const QByteArray deep = QByteArray(1100, '(') + "\"8.6\"" + QByteArray(1100, ')');
        QVERIFY(text.contains("gpuArchSM = \"8.6\";"));
        for (const char* arch : {"sm86", "sm89"}) {
            QByteArray recipe = text;
            recipe.replace("gpuArchSM = \"8.6\";", "gpuArchSM = " + deep + ";");
            recipe.replace("sm86-avx2", QByteArray(arch) + "-avx2");
            repo.writeRecipe(QStringLiteral("pytorch-python313-cuda12_9-%1-avx2.nix").arg(arch),
                             recipe);
        }
        const auto source = openWorkTree(repo.root().toStdString());
        const Analysis unread = Analyzer().analyze(*source, {});
        for (const Cell& entry : unread.cells)
            if (entry.recipe)
                QCOMPARE(entry.status, CellStatus::Unchecked);
        QCOMPARE(EvaluationMerge::itemsOf(unread).size(), size_t(2));

        const Evaluated evaluated = evaluate(repo.root(), "older", m_store.path());
        std::map<std::string, const Cell*> byArch;
        for (const Cell& entry : evaluated.analysis.cells)
            if (entry.recipe)
                byArch[entry.variant.gpuArch] = &entry;
        QCOMPARE(byArch.size(), size_t(2));
        for (const auto& [arch, entry] : byArch) {
            QVERIFY2(entry->evaluation && entry->evaluation->evaluated,
                     (arch + ": " + (entry->evaluation ? entry->evaluation->error : "")).c_str());
            QCOMPARE(entry->evaluation->archList, std::vector<std::string>{"8.6"});
        }
        const auto rules = [](const Cell& entry) {
            std::set<std::string> ids;
            for (const Finding& finding : entry.findings)
                ids.insert(finding.ruleId);
            return ids;
        };
        QCOMPARE(byArch["sm86"]->status, CellStatus::Unchecked);
        QCOMPARE(rules(*byArch["sm86"]), std::set<std::string>{"nested-too-deep"});
        QCOMPARE(byArch["sm89"]->status, CellStatus::Broken);
        QCOMPARE(rules(*byArch["sm89"]),
                 (std::set<std::string>{"nested-too-deep", "eval-arch-mismatch"}));
    }

    // A derivation changes with what it is built from, and only then: a comment keeps it.
    void derivationsChangeWithTheirInputs()
    {
        test::TestRepository repo;
        QFile canonical(fixtures +
                        QStringLiteral("/seed000/.flox/pkgs/pytorch-python313-cpu-avx2.nix"));
        QVERIFY(canonical.open(QIODevice::ReadOnly));
        const QByteArray text = canonical.readAll();
        repo.writeRecipe(QStringLiteral("pytorch-python313-cpu-avx2.nix"), text);
        const std::string before =
            evaluate(repo.root(), "older", m_store.path()).results.at(0).drvPath;
        const std::string bumped =
            evaluate(repo.root(), "newer", m_store.path()).results.at(0).drvPath;
        repo.writeRecipe(QStringLiteral("pytorch-python313-cpu-avx2.nix"), "# reviewed\n" + text);
        const std::string commented =
            evaluate(repo.root(), "older", m_store.path()).results.at(0).drvPath;
        QVERIFY(before.ends_with(".drv"));
        QVERIFY(bumped.ends_with(".drv"));
        QVERIFY(bumped != before);
        QCOMPARE(commented, before);
    }

    // Defects injected into seed000's sound recipes, one kind at a time and one defect per
    // recipe: Nix's answer must name each with its rule, and nothing else; the recipes the kind
    // does not apply to stay quiet.
    void injectedDefectsAreCaught_data()
    {
        QTest::addColumn<QByteArray>("from");
        QTest::addColumn<QByteArray>("to");
        QTest::addColumn<QString>("rule");
        QTest::addColumn<int>("atLeast"); // recipes the kind applies to
        QTest::newRow("a digit slipped into the arch")
            << QByteArray("gpuArchSM = \"") << QByteArray("gpuArchSM = \"1")
            << QStringLiteral("eval-arch-mismatch") << 50;
        QTest::newRow("CUDA overlay dropped")
            << QByteArray("(final: prev: { cudaPackages = final.cudaPackages_12_9; })")
            << QByteArray() << QStringLiteral("eval-cuda-mismatch") << 50;
        QTest::newRow("another Python set") << QByteArray("nixpkgs_pinned.python3Packages.torch")
                                            << QByteArray("nixpkgs_pinned.python312Packages.torch")
                                            << QStringLiteral("eval-python-mismatch") << 60;
        QTest::newRow("AVX-512 in an avx2 build")
            << QByteArray("\"-mavx2\"") << QByteArray("\"-mavx512f\"")
            << QStringLiteral("eval-isa-mismatch") << 5;
        QTest::newRow("x86 platforms on ARM") << QByteArray("platforms = [ \"aarch64-linux\" ];")
                                              << QByteArray("platforms = [ \"x86_64-linux\" ];")
                                              << QStringLiteral("eval-platforms-mismatch") << 10;
        QTest::newRow("CUDA in a CPU build")
            << QByteArray("cudaSupport = false;") << QByteArray("cudaSupport = true;")
            << QStringLiteral("eval-cuda-in-cpu-build") << 6;
    }
    void injectedDefectsAreCaught()
    {
        QFETCH(QByteArray, from);
        QFETCH(QByteArray, to);
        QFETCH(QString, rule);
        QFETCH(int, atLeast);
        test::TestRepository repo;
        repo.copyFrom(fixtures + QStringLiteral("/seed000"));
        std::set<std::string> mutated;
        QDirIterator it(repo.root() + QStringLiteral("/.flox/pkgs"), {QStringLiteral("*.nix")});
        while (it.hasNext()) {
            QFile file(it.next());
            QVERIFY(file.open(QIODevice::ReadOnly));
            QByteArray text = file.readAll();
            file.close();
            if (!text.contains(from))
                continue;
            // One defect per recipe: the first place only.
            text.replace(text.indexOf(from), from.size(), to);
            repo.write(QDir(repo.root()).relativeFilePath(it.filePath()), text);
            mutated.insert(QDir(repo.root()).relativeFilePath(it.filePath()).toStdString());
        }
        QVERIFY2(int(mutated.size()) >= atLeast, qPrintable(QString::number(mutated.size())));
        const Evaluated evaluated = evaluate(repo.root(), "older", m_store.path());
        for (const Cell& entry : evaluated.analysis.cells) {
            if (!entry.recipe)
                continue;
            std::set<std::string> found;
            for (const Finding& finding : entry.findings)
                if (finding.ruleId.starts_with("eval-") && finding.severity != Severity::Info)
                    found.insert(finding.ruleId);
            const std::set<std::string> wanted = mutated.count(entry.recipe->path)
                                                     ? std::set<std::string>{rule.toStdString()}
                                                     : std::set<std::string>{};
            std::string have;
            for (const std::string& id : found)
                have += id + " ";
            QVERIFY2(found == wanted, (entry.recipe->path + ": " + have).c_str());
        }
    }

    // Nix's answer stands where the static reading said otherwise.
    void nixOverrulesTheStaticReading()
    {
        const auto name = VariantName::parse("pytorch-python313-cuda12_9-sm86-avx2");
        QVERIFY(name);
        const VariantExpectation expected =
            VariantExpectation::of(*name, MatrixSpec{}, Catalog::builtin());
        RecipeFacts facts;
        facts.path = ".flox/pkgs/pytorch-python313-cuda12_9-sm86-avx2.nix";
        EvaluatedRecipe evaluated;
        evaluated.path = facts.path;
        evaluated.evaluated = true;
        evaluated.torch = EvaluatedTorch{"torch-2.9.1", "2.9.1", "", true, {}, "8.6", ""};
        Finding staticArch = RuleSet::make(rule::gpuArchMismatch, facts, "gpuTargets gets \"8.9\"");
        Finding staticPin = RuleSet::make(rule::pinMismatch, facts, "pin differs");
        const DeepCheck check(evaluated, expected, facts);
        const std::vector<Finding> after = check.overrule({staticArch, staticPin});
        QCOMPARE(after.size(), size_t(2));
        QCOMPARE(after[0].ruleId, std::string(rule::evalOverrulesStatic));
        QCOMPARE(after[0].severity, Severity::Info);
        QVERIFY(after[0].message.find("TORCH_CUDA_ARCH_LIST = \"8.6\"") != std::string::npos);
        QVERIFY(after[0].message.find("gpuTargets gets \"8.9\"") != std::string::npos);
        QCOMPARE(after[1].ruleId, std::string(rule::pinMismatch)); // nothing Nix judged
        QVERIFY(check.findings().empty());
        // Wrong by Nix: the static finding stays and Nix's own is added.
        evaluated.torch->archListSetting = "8.9";
        const DeepCheck wrong(evaluated, expected, facts);
        QCOMPARE(wrong.overrule({staticArch}).front().ruleId, std::string(rule::gpuArchMismatch));
        QCOMPARE(wrong.findings().size(), size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestDeepCheck)
#include "tst_deepcheck.moc"
