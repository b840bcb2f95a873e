// The evaluation engine's parts that need no Nix process: Nix's messages as Nix 2.8 and 2.26
// write them (both captured from the real programs), shell text Nix evaluated, the results'
// JSON, and how recipes are split into batches.

#include "eval/evaluatedrecipe.h"
#include "eval/nixerror.h"
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
        failed.error = {"attribute 'x' missing", "b.nix", 3, 7};
        const auto failedBack = EvaluatedRecipe::fromJson(failed.toJson());
        QVERIFY(failedBack && !failedBack->evaluated);
        QCOMPARE(failedBack->error.line, 3);
        // What is not a result is refused, not half read.
        QVERIFY(!EvaluatedRecipe::fromJson(nlohmann::json::parse("[1, 2]")));
        QVERIFY(!EvaluatedRecipe::fromJson(nlohmann::json::parse("{\"evaluated\": true}")));
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
};

QTEST_GUILESS_MAIN(TestEvalParts)
#include "tst_evalparts.moc"
