// The evaluation engine's parts that need no Nix process: Nix's messages as Nix 2.8 and 2.26
// write them (both captured from the real programs), shell text Nix evaluated, the results'
// JSON, how recipes are split into batches, and two pins' contents side by side.

#include "eval/evaluatedrecipe.h"
#include "eval/nixerror.h"
#include "eval/pincomparison.h"
#include "eval/recipeevaluator.h"
#include "eval/shellscript.h"

#include <QFile>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace rg;

namespace {

std::string sample(const char* name)
{
    QFile file(QStringLiteral(RG_SOURCE_DIR "/tests/eval/data/") + QLatin1String(name));
    return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string();
}

} // namespace

class TestEvalParts : public QObject
{
    Q_OBJECT

private slots:
    // The same failure as each Nix writes it: 2.8 puts the message first and the trace after,
    // 2.26 the trace first (through the wrapper) and the message last.
    void nixMessagesOfBothVersions_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("2.8") << QStringLiteral("nix-2.8-attribute-missing.txt");
        QTest::newRow("2.26") << QStringLiteral("nix-2.26-attribute-missing.txt");
    }
    void nixMessagesOfBothVersions()
    {
        QFETCH(QString, file);
        const std::string text = sample(file.toUtf8().constData());
        QVERIFY(!text.empty());
        const NixErrorReport report = NixError::read(text, "/tmp/w/repo");
        QCOMPARE(report.message, std::string("attribute 'torchx' missing"));
        QCOMPARE(report.file, std::string(".flox/pkgs/b.nix"));
        QCOMPARE(report.line, 2);
        QCOMPARE(report.column, 4);
        // Another root: no position is in it, so the innermost one outside is named instead.
        const NixErrorReport elsewhere = NixError::read(text, "/tmp/w/other");
        QVERIFY(elsewhere.file.empty());
        QCOMPARE(elsewhere.message,
                 std::string("attribute 'torchx' missing (at /tmp/w/repo/.flox/pkgs/b.nix:2:4)"));
    }

    // Nix 2.26 on the stand-in's newer revision (captured in the Debian 13 root): the removed
    // alias names only nixpkgs' code, the renamed override argument the recipe's call.
    void nix226OnTheNewerRevision()
    {
        const std::string root = "/tmp/rg/seed001-start";
        const NixErrorReport alias = NixError::read(sample("nix-2.26-removed-alias.txt"), root);
        QCOMPARE(alias.message,
                 std::string("pytorch has been renamed to torch (at "
                             "/tmp/rg/nixpkgs-standin/newer/pkgs/python-packages.nix:73:13)"));
        QVERIFY(alias.file.empty());
        QCOMPARE(alias.attribute, std::string("python3Packages.pytorch.override"));
        const NixErrorReport argument =
            NixError::read(sample("nix-2.26-unexpected-argument.txt"), root);
        QCOMPARE(argument.message,
                 std::string(
                     "function 'anonymous lambda' called with unexpected argument 'gpuTargets'"));
        QCOMPARE(argument.file,
                 std::string(".flox/pkgs/pytorch-python313-cuda13_0-sm120-avx512.nix"));
        QCOMPARE(argument.line, 68);
    }

    void nixMessagesWithoutPositionOrText()
    {
        QCOMPARE(
            NixError::read("error: unable to download 'http://x': HTTP error 404\n", "/r").message,
            std::string("unable to download 'http://x': HTTP error 404"));
        QCOMPARE(NixError::read("trace: rg-begin 0\nSegmentation fault\n", "/r").message,
                 std::string("Nix failed without a message"));
        std::string many = "error: first line\n";
        for (int i = 0; i < 40; ++i)
            many += "       more " + std::to_string(i) + "\n";
        const std::string cut = NixError::read(many, "/r").message;
        QVERIFY(cut.starts_with("first line\nmore 0\n"));
        QVERIFY(cut.ends_with("(message cut)"));
        QVERIFY(cut.find("more 30") == std::string::npos);
    }

    void shellTextNixEvaluated()
    {
        const ShellScript script("echo start\n"
                                 "export TORCH_CUDA_ARCH_LIST=\"8.6;8.9\"\n"
                                 "  # export TORCH_CUDA_ARCH_LIST=\"7.5\" was tried\n"
                                 "export CXXFLAGS=\"$CXXFLAGS -mavx2 -mfma\"\n"
                                 "CXXFLAGS='-O2 '\"${CXXFLAGS}\"\n"
                                 "export MAX_JOBS=32; echo done\n");
        QCOMPARE(*script.valueOf("TORCH_CUDA_ARCH_LIST"), std::string("8.6;8.9"));
        QCOMPARE(ShellScript::words(*script.valueOf("TORCH_CUDA_ARCH_LIST"), true),
                 (std::vector<std::string>{"8.6", "8.9"}));
        // $CXXFLAGS before the first assignment is the builder's: nothing the script set.
        QCOMPARE(*script.valueOf("CXXFLAGS"), std::string("-O2  -mavx2 -mfma"));
        QCOMPARE(*script.valueOf("MAX_JOBS"), std::string("32"));
        QVERIFY(!script.valueOf("CFLAGS"));
    }

    void resultsRoundTripThroughJson()
    {
        EvaluatedRecipe recipe;
        recipe.path = ".flox/pkgs/a.nix";
        recipe.evaluated = true;
        recipe.drvPath = "/nix/store/abc-torch-2.9.1.drv";
        recipe.platforms = {"x86_64-linux"};
        recipe.preConfigure = "export CXXFLAGS=\"-mavx2\"\n";
        recipe.buildScript = recipe.preConfigure;
        recipe.torch =
            EvaluatedTorch{"torch-2.9.1", "2.9.1", "/nix/store/abc-torch-2.9.1.drv",       true,
                           {"8.6"},       "",      "export TORCH_CUDA_ARCH_LIST=\"8.6\"\n"};
        const auto back = EvaluatedRecipe::fromJson(recipe.toJson());
        QVERIFY(back);
        QCOMPARE(back->toJson(), recipe.toJson());
        QCOMPARE(back->archList(), std::vector<std::string>{"8.6"});
        QCOMPARE(back->compilerFlags(), std::vector<std::string>{"-mavx2"});

        EvaluatedRecipe failed;
        failed.path = "b.nix";
        failed.error = {"attribute 'x' missing", "b.nix", 3, 7, "x"};
        const auto failedBack = EvaluatedRecipe::fromJson(failed.toJson());
        QVERIFY(failedBack && !failedBack->evaluated);
        QCOMPARE(failedBack->error.line, 3);
        // What is not a result is refused, not half read.
        QVERIFY(!EvaluatedRecipe::fromJson(nlohmann::json::parse("[1, 2]")));
        QVERIFY(!EvaluatedRecipe::fromJson(nlohmann::json::parse("{\"evaluated\": true}")));
    }

    // Where a build's CPU flags and arch list come from, once Nix has evaluated them.
    void flagsAndArchsOfAnEvaluatedBuild()
    {
        EvaluatedRecipe recipe;
        recipe.cflagsCompile = "-Wno-error";
        recipe.buildScript = "export CXXFLAGS=\"$CXXFLAGS -mavx2\"\n"
                             "export NIX_CFLAGS_COMPILE=\"$NIX_CFLAGS_COMPILE -mfma\"\n"
                             "CFLAGS=\"-mavx2 -mf16c\"\n";
        recipe.cxxFlags = "-O2";
        QCOMPARE(recipe.compilerFlags(),
                 (std::vector<std::string>{"-Wno-error", "-mfma", "-O2", "-mavx2", "-mf16c"}));
        // Nothing in the hooks: the attributes as they are.
        recipe.buildScript.clear();
        QCOMPARE(recipe.compilerFlags(), (std::vector<std::string>{"-Wno-error", "-O2"}));

        // A package on a torch: its own list when it sets one, else its torch's.
        recipe.torch = EvaluatedTorch{"torch-2.9.1",
                                      "2.9.1",
                                      "",
                                      true,
                                      {"8.9"},
                                      "",
                                      "export TORCH_CUDA_ARCH_LIST=\"8.9;9.0\"\n"};
        QCOMPARE(recipe.archList(), (std::vector<std::string>{"8.9", "9.0"}));
        recipe.archListSetting = "8.6";
        QCOMPARE(recipe.archList(), std::vector<std::string>{"8.6"});
        recipe.buildScript = "export TORCH_CUDA_ARCH_LIST=\"$TORCH_CUDA_ARCH_LIST;12.0\"\n";
        QCOMPARE(recipe.archList(), (std::vector<std::string>{"8.6", "12.0"}));
    }

    // Nix names only nixpkgs' position for a removed alias: the recipe's selection is found.
    void aFailingAttributeIsFoundInTheRecipe()
    {
        const std::string recipe =
            "let\n  p = import ./x.nix;\nin\n(p.python3Packages.pytorch.override {\n"
            "  pytorchx = 1;\n})\n";
        NixErrorReport report;
        report.attribute = "python3Packages.pytorch.override";
        QVERIFY(NixError::locateAttribute(report, recipe, ".flox/pkgs/a.nix"));
        QCOMPARE(report.file, std::string(".flox/pkgs/a.nix"));
        QCOMPARE(report.line, 4);
        QCOMPARE(report.column, 4);
        // A tail of the path, when the recipe reaches it through a binding.
        NixErrorReport shorter;
        shorter.attribute = "pkgs.python3Packages.pytorch";
        QVERIFY(NixError::locateAttribute(shorter, recipe, "a.nix"));
        QCOMPARE(shorter.line, 4);
        // Never a single name, nor a name inside a longer one.
        NixErrorReport single;
        single.attribute = "p.pytorchx";
        QVERIFY(!NixError::locateAttribute(single, recipe, "a.nix"));
        QVERIFY(single.file.empty());
    }

    void batchesKeepAPinTogether()
    {
        std::vector<EvalItem> items;
        for (const char* pin : {"b", "a", "b", "a", "c", "a"})
            items.push_back({std::string("r") + std::to_string(items.size()), pin, ""});
        const auto batches = RecipeEvaluator::batches(items, {0, 1, 2, 3, 4, 5}, 3);
        QCOMPARE(batches.size(), size_t(3));
        QCOMPARE(batches[0], (std::vector<size_t>{1, 3}));
        QCOMPARE(batches[1], (std::vector<size_t>{5, 0}));
        QCOMPARE(batches[2], (std::vector<size_t>{2, 4}));
        QCOMPARE(RecipeEvaluator::batches(items, {4}, 8).size(), size_t(1));
    }

    // Every value either pin holds, in a fixed order; a set only one side has reads "-" on the
    // other; only differing values are marked changed; values neither holds are left out.
    void pinsSideBySide()
    {
        PinContents before;
        before.nixpkgsVersion = "25.11";
        before.python3 = "3.13.9";
        before.defaultCuda = "12.8";
        before.pythonSets = {{"python313Packages", "3.13.9", "2.9.1"}};
        before.cudaSets = {{"cudaPackages_12_4", "12.4", "9.1.0", "2.21.5"},
                           {"cudaPackages", "12.8", "9.8.0", "2.26.2"}};
        PinContents after = before;
        after.nixpkgsVersion = "26.05";
        after.defaultCuda = "12.9";
        after.pythonSets[0].torch = "2.10.0";
        after.cudaSets = {{"cudaPackages", "12.9", "9.11.0", "2.26.2"},
                          {"cudaPackages_13_0", "13.0", "9.13.0", "2.28.3"}};
        const std::vector<PinComparison::Row> rows = PinComparison::of(before, after);
        std::vector<std::string> shown;
        for (const auto& row : rows)
            shown.push_back(row.label + ": " + row.before + (row.changed ? " -> " : " = ") +
                            row.after);
        const std::vector<std::string> expected = {
            "nixpkgs: 25.11 -> 26.05",
            "python3: 3.13.9 = 3.13.9",
            "default CUDA: 12.8 -> 12.9",
            "Python (python313Packages): 3.13.9 = 3.13.9",
            "torch (python313Packages): 2.9.1 -> 2.10.0",
            "CUDA (cudaPackages_12_4): 12.4 -> -",
            "cuDNN (cudaPackages_12_4): 9.1.0 -> -",
            "NCCL (cudaPackages_12_4): 2.21.5 -> -",
            "CUDA (cudaPackages): 12.8 -> 12.9",
            "cuDNN (cudaPackages): 9.8.0 -> 9.11.0",
            "NCCL (cudaPackages): 2.26.2 = 2.26.2",
            "CUDA (cudaPackages_13_0): - -> 13.0",
            "cuDNN (cudaPackages_13_0): - -> 9.13.0",
            "NCCL (cudaPackages_13_0): - -> 2.28.3",
        };
        QCOMPARE(shown, expected); // MAGMA: neither pin has one, no row
        QVERIFY(PinComparison::of(before, before).size() == 11);
        for (const auto& row : PinComparison::of(before, before))
            QVERIFY(!row.changed);
    }
};

QTEST_GUILESS_MAIN(TestEvalParts)
#include "tst_evalparts.moc"
