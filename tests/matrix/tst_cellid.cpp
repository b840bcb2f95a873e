// A cell's identity (CellId) and how a user's word names cells and recipes (CellSelector):
// the key written in the CLI, settings and history reads back as the same cell, in every
// accelerator and naming form, and each accepted spelling selects what it says.

#include "analysis/cellselector.h"
#include "matrix/cellid.h"

#include <QTest>
#include <unordered_set>

using namespace rg;

namespace {

Cell entryOf(const std::string& stem, const std::string& package)
{
    Cell entry;
    entry.variant = *VariantName::parse(stem);
    entry.package = package;
    entry.id = CellId::of(entry.variant, package);
    auto facts = std::make_shared<RecipeFacts>();
    facts->fileName = stem + ".nix";
    facts->path = ".flox/pkgs/" + facts->fileName;
    entry.recipe = facts;
    return entry;
}

} // namespace

class TestCellId : public QObject
{
    Q_OBJECT

private slots:
    void keysRoundTrip_data()
    {
        QTest::addColumn<QString>("stem");
        QTest::addColumn<QString>("key");
        QTest::newRow("cuda") << "pytorch-python313-cuda13_0-sm120-avx512"
                              << "pytorch:python313-cuda13_0-sm120-avx512";
        QTest::newRow("cpu") << "pytorch-python313-cpu-avx2"
                             << "pytorch:python313-cpu-avx2";
        QTest::newRow("darwin") << "pytorch-python313-darwin-mps"
                                << "pytorch:python313-darwin-mps";
        QTest::newRow("generic") << "pytorch-python313-cuda12_8-sm90"
                                 << "pytorch:python313-cuda12_8-sm90";
        QTest::newRow("legacy, no CUDA") << "pytorch-py313-sm90-avx512"
                                         << "pytorch:python313-sm90-avx512";
        QTest::newRow("two-word package") << "flash-attn-python312-cuda12_9-sm90-avx512"
                                          << "flash-attn:python312-cuda12_9-sm90-avx512";
        QTest::newRow("suffix left out") << "pytorch-python313-cuda13_0-sm120-avx512-magma"
                                         << "pytorch:python313-cuda13_0-sm120-avx512";
    }

    void keysRoundTrip()
    {
        QFETCH(QString, stem);
        QFETCH(QString, key);
        const auto name = VariantName::parse(stem.toStdString());
        QVERIFY(name);
        const CellId id = CellId::of(*name);
        QCOMPARE(QString::fromStdString(id.toKey()), key);
        const auto back = CellId::fromKey(key.toStdString());
        QVERIFY(back);
        QCOMPARE(*back, id);
        QCOMPARE(back->toKey(), id.toKey());
    }

    void fromKeyRejectsWhatIsNotACell_data()
    {
        QTest::addColumn<QString>("key");
        QTest::newRow("no package") << "python313-cpu-avx2";
        QTest::newRow("empty package") << ":python313-cpu-avx2";
        QTest::newRow("suffix") << "pytorch:python313-cuda13_0-sm120-avx512-magma";
        QTest::newRow("not a point") << "pytorch:hello";
        QTest::newRow("empty") << "";
    }

    void fromKeyRejectsWhatIsNotACell()
    {
        QFETCH(QString, key);
        QVERIFY(!CellId::fromKey(key.toStdString()));
    }

    // A pytorch210-… file stands in pytorch's cell; its own package word is not the cell's.
    void packageOfTheCell()
    {
        const auto name = VariantName::parse("pytorch210-python313-cuda13_0-sm120-avx512");
        QVERIFY(name);
        const CellId id = CellId::of(*name, "pytorch");
        QCOMPARE(id.toKey(), std::string("pytorch:python313-cuda13_0-sm120-avx512"));
        QCOMPARE(id, CellId::of(*VariantName::parse("pytorch-python313-cuda13_0-sm120-avx512")));
        QCOMPARE(id.variant().toString(), std::string("pytorch-python313-cuda13_0-sm120-avx512"));
    }

    void orderAndHashAgreeWithEquality()
    {
        const CellId a = *CellId::fromKey("pytorch:python313-cuda13_0-sm120-avx512");
        const CellId b = *CellId::fromKey("pytorch:python313-cuda13_0-sm120-avx2");
        const CellId c = *CellId::fromKey("torchvision:python313-cuda13_0-sm120-avx512");
        QVERIFY(a != b && a != c);
        QVERIFY((a < b) != (b < a));
        std::unordered_set<CellId, CellIdHash> set{a, b, c, a};
        QCOMPARE(set.size(), std::size_t(3));
        QCOMPARE(CellIdHash()(a), CellIdHash()(*CellId::fromKey(a.toKey())));
    }

    void selectorReadsEverySpelling_data()
    {
        QTest::addColumn<QString>("word");
        QTest::addColumn<bool>("selects");
        QTest::addColumn<bool>("byRecipe");
        QTest::newRow("key") << "pytorch:python313-cuda13_0-sm120-avx512" << true << false;
        QTest::newRow("key without package") << "python313-cuda13_0-sm120-avx512" << true << false;
        QTest::newRow("variant name")
            << "pytorch210-python313-cuda13_0-sm120-avx512" << true << false;
        QTest::newRow("path") << ".flox/pkgs/pytorch210-python313-cuda13_0-sm120-avx512.nix" << true
                              << true;
        QTest::newRow("file name")
            << "pytorch210-python313-cuda13_0-sm120-avx512.nix" << true << true;
        QTest::newRow("other package")
            << "torchvision:python313-cuda13_0-sm120-avx512" << false << false;
        QTest::newRow("other isa") << "python313-cuda13_0-sm120-avx2" << false << false;
        QTest::newRow("part of a key") << "sm120-avx512" << false << false;
        QTest::newRow("empty") << "" << false << false;
    }

    void selectorReadsEverySpelling()
    {
        QFETCH(QString, word);
        QFETCH(bool, selects);
        QFETCH(bool, byRecipe);
        const Cell entry = entryOf("pytorch210-python313-cuda13_0-sm120-avx512", "pytorch");
        const CellSelector selector(word.toStdString());
        QCOMPARE(selector.matches(entry), selects);
        QCOMPARE(selector.namesRecipeOf(entry), byRecipe);
    }
};

QTEST_GUILESS_MAIN(TestCellId)
#include "tst_cellid.moc"
