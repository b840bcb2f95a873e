// The evaluation engine with the real Nix: batches that survive a failing recipe, Nix's
// message at its position in the repository, limits (time, memory, trace size), cancel with no
// process left behind, a missing or old Nix, a pin that cannot be fetched, and the cache.

#include "../loopback.h"
#include "../processes.h"
#include "eval/recipeevaluator.h"
#include "standinpkgs.h"

#include <QCryptographicHash>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>
#include <thread>

using namespace rg;
using rg::test::processesMentioning;

namespace {

const QString pin = QStringLiteral("6a030d535719c5190187c4cec156f335e95e3211");

QByteArray pinned(const QByteArray& body, const QString& revision = pin)
{
    return "let\n  pkgs = import (builtins.fetchTarball {\n    url = \"https://github.com/NixOS/"
           "nixpkgs/archive/" +
           revision.toUtf8() + ".tar.gz\";\n  }) { };\nin\n" + body + "\n";
}

const QByteArray goodRecipe = pinned(
    "(pkgs.python3Packages.torch.override { cudaSupport = true; gpuTargets = [ \"8.6\" ]; })");

class Fixture
{
public:
    Fixture()
    {
        test::writeFile(dir.path(), QStringLiteral("nixpkgs/default.nix"), test::tinyNixpkgs);
        settings.repoRoot = (dir.path() + QStringLiteral("/repo")).toStdString();
        settings.sources[pin.toStdString()] =
            (dir.path() + QStringLiteral("/nixpkgs")).toStdString();
        settings.jobs = 2;
    }
    QString repo() const { return dir.path() + QStringLiteral("/repo"); }
    EvalItem add(const QString& path, const QByteArray& text)
    {
        test::writeFile(repo(), path, text);
        const QByteArray digest =
            QCryptographicHash::hash(text, QCryptographicHash::Sha256).toHex();
        return {path.toStdString(), pin.toStdString(), "content:" + digest.toStdString()};
    }

    QTemporaryDir dir;
    EvalSettings settings;
};

const EvaluatedRecipe* resultFor(const std::vector<EvaluatedRecipe>& results, const char* path)
{
    for (const EvaluatedRecipe& result : results)
        if (result.path == path)
            return &result;
    return nullptr;
}

} // namespace

class TestRecipeEvaluator : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("nix-instantiate")).isEmpty(),
                 "Nix is a test dependency: packaging/setup.sh installs it");
    }

    void evaluatesWhatABuildUses()
    {
        Fixture f;
        const std::vector<EvaluatedRecipe> results =
            RecipeEvaluator(f.settings).evaluate({f.add(QStringLiteral("a.nix"), goodRecipe)});
        QCOMPARE(results.size(), size_t(1));
        const EvaluatedRecipe& a = results.front();
        QVERIFY2(a.evaluated, a.error.message.c_str());
        QVERIFY(a.drvPath.starts_with("/nix/store/") && a.drvPath.ends_with("-torch-2.9.1.drv"));
        QCOMPARE(a.archList(), std::vector<std::string>{"8.6"});
        QCOMPARE(a.cudaVersion, std::string("12.9"));
        QCOMPARE(a.pythonVersion, std::string("3.13"));
        QVERIFY(a.torch && a.torch->cudaSupport == true);
        QVERIFY(!a.nixVersion.empty());
        QVERIFY(a.requiredSystemFeatures.empty());
    }

    // What a build machine must offer, as the derivation asks it: remote builders are chosen
    // by it.
    void readsTheSystemFeaturesABuildRequires()
    {
        Fixture f;
        const std::vector<EvaluatedRecipe> results =
            RecipeEvaluator(f.settings)
                .evaluate({f.add(
                    QStringLiteral("big.nix"),
                    pinned("builtins.derivation { name = \"big\"; system = \"x86_64-linux\"; "
                           "builder = \"/bin/sh\"; requiredSystemFeatures = [ \"big-parallel\" "
                           "\"cuda\" ]; }"))});
        QCOMPARE(results.size(), size_t(1));
        QVERIFY2(results[0].evaluated, results[0].error.message.c_str());
        QCOMPARE(results[0].system, std::string("x86_64-linux"));
        QCOMPARE(results[0].requiredSystemFeatures,
                 (std::vector<std::string>{"big-parallel", "cuda"}));
        const auto again = EvaluatedRecipe::fromJson(results[0].toJson());
        QVERIFY(again);
        QCOMPARE(again->requiredSystemFeatures, results[0].requiredSystemFeatures);
    }

    // One process, three recipes, the middle one broken: the others still get their answers,
    // the broken one Nix's message at its line and column.
    void aFailingRecipeDoesNotTakeTheBatch()
    {
        Fixture f;
        f.settings.jobs = 1;
        const std::vector<EvaluatedRecipe> results =
            RecipeEvaluator(f.settings)
                .evaluate({f.add(QStringLiteral("a.nix"), goodRecipe),
                           f.add(QStringLiteral("b.nix"), pinned("pkgs.python3Packages.torchx")),
                           f.add(QStringLiteral("c.nix"), goodRecipe)});
        QVERIFY(resultFor(results, "a.nix")->evaluated);
        QVERIFY(resultFor(results, "c.nix")->evaluated);
        const EvaluatedRecipe* b = resultFor(results, "b.nix");
        QVERIFY(!b->evaluated);
        QVERIFY2(b->error.message.find("attribute 'torchx' missing") != std::string::npos,
                 b->error.message.c_str());
        QCOMPARE(b->error.file, std::string("b.nix"));
        QCOMPARE(b->error.line, 6);
        QCOMPARE(b->error.column, 1);
        QVERIFY(!b->transient);
    }

    // The innermost position in the repository: a module the recipe imports.
    void errorsInAnImportedModuleNameTheModule()
    {
        Fixture f;
        test::writeFile(
            f.repo(), QStringLiteral("lib/mk.nix"),
            "pkgs:\n{\n  torch = pkgs.python3Packages.torch;\n  broken = pkgs.nope;\n}.broken\n");
        const auto results = RecipeEvaluator(f.settings)
                                 .evaluate({f.add(QStringLiteral("pkgs/a.nix"),
                                                  pinned("import ../lib/mk.nix pkgs"))});
        QCOMPARE(results.front().error.file, std::string("lib/mk.nix"));
        QCOMPARE(results.front().error.line, 4);
    }

    void aRecipeThatNeverEndsIsStopped()
    {
        Fixture f;
        f.settings.timeoutSeconds = 2;
        const QByteArray endless =
            "builtins.foldl' (a: i: builtins.foldl' (b: j: b + j) a "
            "(builtins.genList (x: x) 50000)) 0 (builtins.genList (x: x) 50000)";
        QElapsedTimer clock;
        clock.start();
        const auto results = RecipeEvaluator(f.settings)
                                 .evaluate({f.add(QStringLiteral("loop.nix"), endless),
                                            f.add(QStringLiteral("a.nix"), goodRecipe)});
        QVERIFY(clock.elapsed() < 60000);
        const EvaluatedRecipe* loop = resultFor(results, "loop.nix");
        QVERIFY(!loop->evaluated && loop->transient);
        QVERIFY2(loop->error.message.find("stopped after 2 s") != std::string::npos,
                 loop->error.message.c_str());
        QVERIFY(resultFor(results, "a.nix")->evaluated);
    }

    void aRecipeThatAllocatesWithoutBoundIsStopped()
    {
        Fixture f;
        f.settings.jobs = 1;
        f.settings.memoryLimitBytes = int64_t(768) << 20;
        const QByteArray hungry =
            "builtins.stringLength (builtins.concatStringsSep \"\" (builtins.genList (x: "
            "\"a string of some length, again and again\" + toString x) 100000000))";
        const auto results = RecipeEvaluator(f.settings)
                                 .evaluate({f.add(QStringLiteral("hungry.nix"), hungry),
                                            f.add(QStringLiteral("a.nix"), goodRecipe)});
        const EvaluatedRecipe* bomb = resultFor(results, "hungry.nix");
        QVERIFY(!bomb->evaluated);
        QVERIFY2(bomb->error.message.find("memory limit of 768 MiB") != std::string::npos,
                 bomb->error.message.c_str());
        QVERIFY(resultFor(results, "a.nix")->evaluated);
    }

    void aTraceOfMegabytesIsCut()
    {
        Fixture f;
        const QByteArray loud = "throw (builtins.concatStringsSep \"\\n\" (builtins.genList (x: "
                                "\"line ${toString x} of a very long message\") 200000))";
        const auto results =
            RecipeEvaluator(f.settings).evaluate({f.add(QStringLiteral("loud.nix"), loud)});
        const std::string& message = results.front().error.message;
        QVERIFY2(message.find("line 0 of a very long message") != std::string::npos,
                 message.c_str());
        QVERIFY(message.find("(message cut)") != std::string::npos);
        QVERIFY(message.size() < 5000);
    }

    void cancelLeavesNoProcess()
    {
        Fixture f;
        f.settings.timeoutSeconds = 600;
        const QByteArray slow =
            "builtins.foldl' (a: i: builtins.foldl' (b: j: b + j) a "
            "(builtins.genList (x: x) 50000)) 0 (builtins.genList (x: x) 50000)";
        std::vector<EvalItem> items;
        for (int i = 0; i < 4; ++i)
            items.push_back(f.add(QStringLiteral("slow%1.nix").arg(i), slow));
        std::atomic<bool> cancel{false};
        std::atomic<int> begun{0};
        std::vector<EvaluatedRecipe> results;
        std::thread worker([&] {
            results = RecipeEvaluator(f.settings)
                          .evaluate(
                              items,
                              [&](int, int, const std::string& current) {
                                  if (!current.empty())
                                      ++begun;
                              },
                              &cancel);
        });
        QTRY_VERIFY_WITH_TIMEOUT(begun.load() >= 2, 30000);
        const QByteArray marker = f.repo().toUtf8();
        QVERIFY(processesMentioning(marker) >= 1);
        cancel = true;
        worker.join();
        QTRY_COMPARE_WITH_TIMEOUT(processesMentioning(marker), 0, 5000); // killed: gone soon after
        QCOMPARE(results.size(), size_t(4));
        for (const EvaluatedRecipe& result : results) {
            QVERIFY(!result.evaluated && result.transient);
            QCOMPARE(result.error.message, std::string("evaluation cancelled"));
        }
    }

    void withoutNixEveryRecipeSaysWhy()
    {
        QTemporaryDir bin;
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", bin.path().toUtf8());
        Fixture f;
        const auto missing =
            RecipeEvaluator(f.settings).evaluate({f.add(QStringLiteral("a.nix"), goodRecipe)});
        test::writeFile(bin.path(), QStringLiteral("nix-instantiate"),
                        "#!/bin/sh\necho 'nix-instantiate (Nix) 2.3.16'\n");
        QFile::setPermissions(bin.path() + QStringLiteral("/nix-instantiate"),
                              QFile::ReadOwner | QFile::ExeOwner);
        const RecipeEvaluator old(f.settings);
        qputenv("PATH", path);
        QVERIFY2(missing.front().error.message.find("nix-instantiate is not on PATH") !=
                     std::string::npos,
                 missing.front().error.message.c_str());
        QVERIFY(!old.nix().usable());
        QCOMPARE(old.nix().error,
                 std::string("Nix 2.3.16 is too old: evaluating recipes needs Nix 2.8 or newer"));
    }

    // No source for the pin and nothing at its address: one message per pin, and the recipes
    // on other pins are not held up.
    void aPinThatCannotBeFetchedFailsItsRecipesOnce()
    {
        Fixture f;
        f.settings.jobs = 1;
        const QString origin = test::refusingLoopbackOrigin();
        QVERIFY(!origin.isEmpty());
        const QString other = QStringLiteral("0182a361324364ae3f436a63005877674cf45efb");
        const QByteArray unreachable = "let pkgs = import (builtins.fetchTarball \"" +
                                       origin.toUtf8() + "/NixOS/nixpkgs/archive/" +
                                       other.toUtf8() +
                                       ".tar.gz\") { }; in pkgs.python3Packages.torch\n";
        std::vector<EvalItem> items = {f.add(QStringLiteral("x.nix"), unreachable),
                                       f.add(QStringLiteral("y.nix"), unreachable),
                                       f.add(QStringLiteral("a.nix"), goodRecipe)};
        items[0].pin = items[1].pin = other.toStdString();
        int begun = 0;
        const auto results =
            RecipeEvaluator(f.settings).evaluate(items, [&](int, int, const std::string& current) {
                begun += current.empty() ? 0 : 1;
            });
        for (const char* path : {"x.nix", "y.nix"}) {
            const EvaluatedRecipe* r = resultFor(results, path);
            QVERIFY(!r->evaluated && r->transient);
            QVERIFY2(r->error.message.starts_with("cannot fetch the pinned nixpkgs: "),
                     r->error.message.c_str());
        }
        QVERIFY(resultFor(results, "a.nix")->evaluated);
        QCOMPARE(begun, 2); // x.nix failed y.nix with it; a.nix began in the next process
    }

    void anUnchangedRecipeComesFromTheCache()
    {
        Fixture f;
        QTemporaryDir cache;
        f.settings.cacheDir = cache.path().toStdString();
        const std::vector<EvalItem> first = {f.add(QStringLiteral("a.nix"), goodRecipe),
                                             f.add(QStringLiteral("b.nix"), pinned("pkgs.nope"))};
        const auto cold = RecipeEvaluator(f.settings).evaluate(first);
        QVERIFY(!cold[0].fromCache && !cold[1].fromCache);
        int begun = 0;
        const auto countBegun = [&](int, int, const std::string& current) {
            begun += current.empty() ? 0 : 1;
        };
        const auto warm = RecipeEvaluator(f.settings).evaluate(first, countBegun);
        QCOMPARE(begun, 0);
        QVERIFY(warm[0].fromCache && warm[1].fromCache);
        QCOMPARE(warm[0].drvPath, cold[0].drvPath);
        QCOMPARE(warm[1].error.message, cold[1].error.message);
        QCOMPARE(warm[1].error.line, cold[1].error.line);
        // One recipe changes: only it is evaluated again.
        const std::vector<EvalItem> second = {
            f.add(QStringLiteral("a.nix"), goodRecipe),
            f.add(QStringLiteral("b.nix"), goodRecipe + "# now fixed\n")};
        const auto after = RecipeEvaluator(f.settings).evaluate(second, countBegun);
        QCOMPARE(begun, 1);
        QVERIFY(after[0].fromCache && !after[1].fromCache && after[1].evaluated);
        // A damaged entry is evaluated again, not trusted.
        QDirIterator entries(cache.path(), {QStringLiteral("*.json")});
        while (entries.hasNext()) {
            QFile entry(entries.next());
            QVERIFY(entry.open(QIODevice::WriteOnly | QIODevice::Truncate));
            entry.write("{\"evaluated\": true, \"line\": \"x\"");
        }
        begun = 0;
        const auto damaged = RecipeEvaluator(f.settings).evaluate(second, countBegun);
        QCOMPARE(begun, 2);
        QVERIFY(damaged[0].evaluated && damaged[1].evaluated);
    }
};

QTEST_GUILESS_MAIN(TestRecipeEvaluator)
#include "tst_recipeevaluator.moc"
