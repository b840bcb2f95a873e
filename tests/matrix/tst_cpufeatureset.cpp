#include "matrix/cpufeatureset.h"

#include <QtTest>

using namespace rg;

namespace {

std::vector<std::string> split(const QString& flags)
{
    std::vector<std::string> out;
    for (const QString& f : flags.split(' ', Qt::SkipEmptyParts))
        out.push_back(f.toStdString());
    return out;
}

QStringList toList(const std::vector<std::string>& items)
{
    QStringList out;
    for (const auto& i : items)
        out << QString::fromStdString(i);
    return out;
}

IsaVerdict judge(const QString& flags, const char* isa)
{
    const CpuIsa* target = Catalog::builtin().isa(isa);
    if (!target)
        qFatal("no such ISA: %s", isa);
    return CpuFeatureSet(split(flags)).judge(*target);
}

} // namespace

class TestCpuFeatureSet : public QObject
{
    Q_OBJECT

private slots:
    void seedFlagsAreCleanForTheirIsa();
    void seedFlagsOfARicherIsaAreForbidden();
    void catalogNamesOnlyKnownFeatures();
    void implications_data();
    void implications();
    void verdicts_data();
    void verdicts();
    void laterFlagsOverride();
    void unknownFlagsAreRecordedNotFatal();
    void nonFeatureFlagsAreIgnored();
    void originAndDescribe();
    void emptyAndSplit();
    void sharedSetsFollowTheirList();
};

void TestCpuFeatureSet::seedFlagsAreCleanForTheirIsa()
{
    for (const CpuIsa& isa : Catalog::builtin().isas()) {
        std::vector<std::vector<std::string>> spellings{isa.flags};
        spellings.insert(spellings.end(), isa.equivalentFlags.begin(), isa.equivalentFlags.end());
        for (const auto& flags : spellings) {
            const CpuFeatureSet set(flags);
            const IsaVerdict v = set.judge(isa);
            QVERIFY2(v.clean(), (isa.id + ": " + set.describe()).c_str());
            for (const auto& f : isa.recommendedFeatures)
                QVERIFY2(set.has(f), (isa.id + " " + f).c_str());
        }
    }
}

void TestCpuFeatureSet::seedFlagsOfARicherIsaAreForbidden()
{
    // Every rung of the x86 ladder: the richer ISA's seed flags would SIGILL on the poorer.
    const Catalog& c = Catalog::builtin();
    const std::vector<std::pair<const char*, const char*>> ladder = {
        {"avx", "avx2"},          {"avx2", "avx512"},           {"avx512", "avx512vnni"},
        {"avx512", "avx512bf16"}, {"avx512vnni", "avx512bf16"}, {"armv8_2", "armv9"}};
    for (const auto& [poorer, richer] : ladder) {
        const IsaVerdict v = CpuFeatureSet(c.isa(richer)->flags).judge(*c.isa(poorer));
        QVERIFY2(!v.forbiddenEnabled.empty(), (std::string(richer) + " on " + poorer).c_str());
        QVERIFY(!v.acceptable());
        // The other way round they lack what the richer ISA requires.
        const IsaVerdict back = CpuFeatureSet(c.isa(poorer)->flags).judge(*c.isa(richer));
        QVERIFY2(!back.missingRequired.empty(), (std::string(poorer) + " as " + richer).c_str());
    }
    // Across families nothing required is there.
    QVERIFY(!CpuFeatureSet(c.isa("armv9")->flags).judge(*c.isa("avx")).acceptable());
    QVERIFY(!CpuFeatureSet(c.isa("avx512")->flags).judge(*c.isa("armv8_2")).acceptable());
}

void TestCpuFeatureSet::catalogNamesOnlyKnownFeatures()
{
    for (const CpuIsa& isa : Catalog::builtin().isas())
        for (const auto* list :
             {&isa.requiredFeatures, &isa.recommendedFeatures, &isa.forbiddenFeatures})
            for (const auto& f : *list)
                QVERIFY2(CpuFeatureSet::isKnownFeature(f), (isa.id + ": " + f).c_str());
    QVERIFY(!CpuFeatureSet::isKnownFeature("avx3"));
    QVERIFY(!CpuFeatureSet::isKnownFeature(""));
}

void TestCpuFeatureSet::implications_data()
{
    QTest::addColumn<QString>("flags");
    QTest::addColumn<QStringList>("has");
    QTest::addColumn<QStringList>("lacks");
    QTest::newRow("avx2 implies avx and SSE") << "-mavx2" << QStringList{"avx", "sse4.2", "sse2"}
                                              << QStringList{"fma", "f16c", "avx512f"};
    QTest::newRow("avx512f implies avx2, fma, f16c")
        << "-mavx512f" << QStringList{"avx2", "fma", "f16c", "avx"}
        << QStringList{"avx512bw", "avx512dq", "avx512vl"};
    QTest::newRow("bw dq vl cd imply avx512f")
        << "-mavx512bw -mavx512dq -mavx512vl -mavx512cd" << QStringList{"avx512f", "avx2", "fma"}
        << QStringList{"avx512vnni", "avx512bf16"};
    QTest::newRow("bf16 implies bw") << "-mavx512bf16" << QStringList{"avx512bw", "avx512f"}
                                     << QStringList{"avx512vnni", "avx512dq"};
    QTest::newRow("vnni implies avx512f") << "-mavx512vnni" << QStringList{"avx512f", "avx2"}
                                          << QStringList{"avx512bw", "avx512bf16"};
    QTest::newRow("no-avx2 disables avx512")
        << "-mavx512f -mavx512bw -mavx512vnni -mno-avx2" << QStringList{"avx", "fma", "f16c"}
        << QStringList{"avx2", "avx512f", "avx512bw", "avx512vnni"};
    QTest::newRow("no-fma disables avx512")
        << "-march=x86-64-v4 -mno-fma" << QStringList{"avx2", "f16c", "bmi2"}
        << QStringList{"fma", "avx512f", "avx512vl"};
    QTest::newRow("no-sse4.2 disables every AVX")
        << "-march=x86-64-v3 -mno-sse4.2" << QStringList{"sse4.1", "bmi", "popcnt"}
        << QStringList{"sse4.2", "avx", "avx2", "fma", "f16c"};
    QTest::newRow("sse4 alias") << "-msse4" << QStringList{"sse4.2", "sse4.1"}
                                << QStringList{"avx"};
    QTest::newRow("x86-64-v2") << "-march=x86-64-v2" << QStringList{"sse4.2", "popcnt", "cx16"}
                               << QStringList{"avx"};
    QTest::newRow("x86-64-v3") << "-march=x86-64-v3"
                               << QStringList{"avx2", "fma", "f16c", "bmi", "bmi2", "movbe"}
                               << QStringList{"avx512f"};
    QTest::newRow("x86-64-v4") << "-march=x86-64-v4"
                               << QStringList{"avx512f", "avx512bw", "avx512dq", "avx512vl",
                                              "avx512cd"}
                               << QStringList{"avx512vnni", "avx512bf16"};
    QTest::newRow("haswell") << "-march=haswell" << QStringList{"avx2", "fma", "bmi2"}
                             << QStringList{"avx512f", "adx"};
    QTest::newRow("skylake is not skylake-avx512")
        << "-march=skylake" << QStringList{"avx2", "adx", "clflushopt"} << QStringList{"avx512f"};
    QTest::newRow("cascadelake") << "-march=cascadelake" << QStringList{"avx512vnni", "avx512bw"}
                                 << QStringList{"avx512bf16"};
    QTest::newRow("cooperlake") << "-march=cooperlake" << QStringList{"avx512vnni", "avx512bf16"}
                                << QStringList{"avx512fp16", "avx512vbmi"};
    QTest::newRow("icelake-server")
        << "-march=icelake-server" << QStringList{"avx512vnni", "avx512vbmi", "avx512ifma"}
        << QStringList{"avx512bf16"};
    QTest::newRow("sapphirerapids")
        << "-march=sapphirerapids" << QStringList{"avx512bf16", "avx512fp16", "amx-tile"}
        << QStringList{};
    QTest::newRow("znver2/3 have no AVX-512")
        << "-march=znver3" << QStringList{"avx2", "vaes", "sse4a"} << QStringList{"avx512f"};
    QTest::newRow("znver4") << "-march=znver4"
                            << QStringList{"avx512f", "avx512bf16", "avx512vnni", "avx512vbmi"}
                            << QStringList{"avx512fp16", "amx-tile"};
    QTest::newRow("armv8-a") << "-march=armv8-a" << QStringList{"armv8-a", "simd", "fp"}
                             << QStringList{"armv8.1-a", "lse", "fp16"};
    QTest::newRow("armv8.2-a+fp16+dotprod")
        << "-march=armv8.2-a+fp16+dotprod"
        << QStringList{"armv8.2-a", "armv8.1-a", "lse", "fp16", "dotprod"}
        << QStringList{"armv8.3-a", "sve", "bf16"};
    QTest::newRow("armv9-a implies sve and sve2")
        << "-march=armv9-a" << QStringList{"armv9-a", "armv8.5-a", "sve", "sve2", "dotprod"}
        << QStringList{"armv9.1-a", "bf16", "sme"};
    QTest::newRow("+sve2 implies sve")
        << "-march=armv8.2-a+sve2" << QStringList{"sve", "sve2", "fp16"} << QStringList{"armv9-a"};
    QTest::newRow("+nosve2 keeps the level")
        << "-march=armv9-a+nosve2" << QStringList{"armv9-a", "sve"} << QStringList{"sve2"};
    QTest::newRow("+nosve drops sve2")
        << "-march=armv9-a+nosve" << QStringList{"armv9-a"} << QStringList{"sve", "sve2"};
    QTest::newRow("+nosimd drops what builds on it")
        << "-march=armv8.2-a+dotprod+nosimd" << QStringList{"armv8.2-a", "fp", "crc"}
        << QStringList{"simd", "dotprod", "rdma"};
    QTest::newRow("neoverse-n1") << "-mcpu=neoverse-n1"
                                 << QStringList{"armv8.2-a", "fp16", "dotprod"}
                                 << QStringList{"sve", "armv8.3-a"};
    QTest::newRow("neoverse-v1") << "-mcpu=neoverse-v1"
                                 << QStringList{"armv8.4-a", "sve", "bf16", "i8mm"}
                                 << QStringList{"sve2"};
    QTest::newRow("neoverse-n2") << "-mcpu=neoverse-n2"
                                 << QStringList{"armv9-a", "sve2", "bf16", "i8mm"}
                                 << QStringList{"sme"};
    QTest::newRow("neoverse-v2+nosve2")
        << "-mcpu=neoverse-v2+nosve2" << QStringList{"armv9-a", "sve", "bf16"}
        << QStringList{"sve2", "sve2-bitperm"};
    QTest::newRow("-march wins over -mcpu")
        << "-mcpu=neoverse-v2 -march=armv8.2-a" << QStringList{"armv8.2-a"} << QStringList{"sve2"};
}

void TestCpuFeatureSet::implications()
{
    QFETCH(QString, flags);
    QFETCH(QStringList, has);
    QFETCH(QStringList, lacks);
    const CpuFeatureSet set(split(flags));
    for (const QString& f : has)
        QVERIFY2(set.has(f.toStdString()),
                 qPrintable(f + " missing: " + QString::fromStdString(set.describe())));
    for (const QString& f : lacks)
        QVERIFY2(!set.has(f.toStdString()), qPrintable(f + " enabled"));
    QVERIFY2(set.unknownFlags().empty(), qPrintable(toList(set.unknownFlags()).join(' ')));
    QVERIFY(!set.unknownBaseline());
    // features() lists exactly what has() reports.
    for (const auto& f : set.features())
        QVERIFY(set.has(f));
}

void TestCpuFeatureSet::verdicts_data()
{
    QTest::addColumn<QString>("flags");
    QTest::addColumn<QString>("isa");
    QTest::addColumn<bool>("acceptable");
    QTest::addColumn<QStringList>("missingRequired");
    QTest::addColumn<QStringList>("forbiddenEnabled");
    QTest::addColumn<QStringList>("missingRecommended");

    QTest::newRow("avx with everything newer switched off")
        << "-mavx -mno-fma -mno-bmi -mno-bmi2 -mno-avx2"
        << "avx" << true << QStringList() << QStringList() << QStringList();
    QTest::newRow("-mavx2 alone: valid, slower")
        << "-mavx2"
        << "avx2" << true << QStringList() << QStringList() << QStringList{"fma", "f16c"};
    QTest::newRow("x86-64-v3 is avx2")
        << "-march=x86-64-v3"
        << "avx2" << true << QStringList() << QStringList() << QStringList();
    QTest::newRow("x86-64-v3 is not avx512")
        << "-march=x86-64-v3"
        << "avx512" << false << QStringList{"avx512f"} << QStringList()
        << QStringList{"avx512dq", "avx512vl", "avx512bw"};
    QTest::newRow("x86-64-v4 is avx512")
        << "-march=x86-64-v4"
        << "avx512" << true << QStringList() << QStringList() << QStringList();
    QTest::newRow("x86-64-v4 is forbidden for avx2")
        << "-march=x86-64-v4"
        << "avx2" << false << QStringList() << QStringList{"avx512f"} << QStringList();
    QTest::newRow("avx512f switched back off")
        << "-mavx512f -mno-avx512f"
        << "avx512" << false << QStringList{"avx512f"} << QStringList()
        << QStringList{"avx512dq", "avx512vl", "avx512bw"};
    QTest::newRow("vnni on an avx512 recipe")
        << "-mavx512f -mavx512dq -mavx512vl -mavx512bw -mfma -mavx512vnni"
        << "avx512" << false << QStringList() << QStringList{"avx512vnni"} << QStringList();
    QTest::newRow("cascadelake is avx512vnni")
        << "-march=cascadelake"
        << "avx512vnni" << true << QStringList() << QStringList() << QStringList();
    QTest::newRow("cascadelake is too much for avx512")
        << "-march=cascadelake"
        << "avx512" << false << QStringList() << QStringList{"avx512vnni"} << QStringList();
    QTest::newRow("cooperlake is avx512bf16")
        << "-march=cooperlake"
        << "avx512bf16" << true << QStringList() << QStringList() << QStringList();
    QTest::newRow("sapphirerapids is too much for avx512bf16")
        << "-march=sapphirerapids"
        << "avx512bf16" << false << QStringList() << QStringList{"avx512fp16", "amx-tile"}
        << QStringList();
    QTest::newRow("avx2 flags on an avx recipe")
        << "-mavx2 -mfma -mf16c"
        << "avx" << false << QStringList() << QStringList{"avx2", "fma", "f16c"} << QStringList();
    QTest::newRow("armv9-a+sve2 is armv9")
        << "-march=armv9-a+sve2"
        << "armv9" << true << QStringList() << QStringList() << QStringList();
    QTest::newRow("armv9-a+sve+sve2 is armv9")
        << "-march=armv9-a+sve+sve2"
        << "armv9" << true << QStringList() << QStringList() << QStringList();
    QTest::newRow("armv9-a+nosve2 is not armv9")
        << "-march=armv9-a+nosve2"
        << "armv9" << false << QStringList{"sve2"} << QStringList() << QStringList();
    QTest::newRow("armv8.2-a+fp16+dotprod is armv8_2")
        << "-march=armv8.2-a+fp16+dotprod"
        << "armv8_2" << true << QStringList() << QStringList() << QStringList();
    QTest::newRow("plain armv8.2-a: valid, slower")
        << "-march=armv8.2-a"
        << "armv8_2" << true << QStringList() << QStringList() << QStringList{"fp16", "dotprod"};
    QTest::newRow("armv9 flags are forbidden for armv8_2")
        << "-march=armv9-a+sve2"
        << "armv8_2" << false << QStringList() << QStringList{"armv8.3-a", "sve", "sve2"}
        << QStringList();
    QTest::newRow("armv8.2 with SVE")
        << "-march=armv8.2-a+fp16+dotprod+sve"
        << "armv8_2" << false << QStringList() << QStringList{"sve"} << QStringList();
    QTest::newRow("neoverse-n1 is armv8_2")
        << "-mcpu=neoverse-n1"
        << "armv8_2" << true << QStringList() << QStringList() << QStringList();
    QTest::newRow("neoverse-v2 is armv9")
        << "-mcpu=neoverse-v2"
        << "armv9" << true << QStringList() << QStringList() << QStringList{};
    QTest::newRow("armv8.2 is not armv9")
        << "-march=armv8.2-a+fp16+dotprod"
        << "armv9" << false << QStringList{"sve2"} << QStringList() << QStringList{"armv9-a"};
    QTest::newRow("x86 flags on an ARM recipe") << "-mavx2"
                                                << "armv8_2" << false << QStringList{"armv8.2-a"}
                                                << QStringList() << QStringList{"fp16", "dotprod"};
    QTest::newRow("mps wants nothing")
        << ""
        << "mps" << true << QStringList() << QStringList() << QStringList();
}

void TestCpuFeatureSet::verdicts()
{
    QFETCH(QString, flags);
    QFETCH(QString, isa);
    QFETCH(bool, acceptable);
    QFETCH(QStringList, missingRequired);
    QFETCH(QStringList, forbiddenEnabled);
    QFETCH(QStringList, missingRecommended);
    const IsaVerdict v = judge(flags, isa.toUtf8().constData());
    QCOMPARE(v.acceptable(), acceptable);
    QCOMPARE(toList(v.missingRequired), missingRequired);
    QCOMPARE(toList(v.forbiddenEnabled), forbiddenEnabled);
    QCOMPARE(toList(v.missingRecommended), missingRecommended);
    QVERIFY(v.unknownFlags.empty() && !v.unknownBaseline);
    QCOMPARE(v.clean(), acceptable && missingRecommended.isEmpty());
}

void TestCpuFeatureSet::laterFlagsOverride()
{
    // Among feature flags the last word wins…
    QVERIFY(CpuFeatureSet(split("-mno-avx2 -mavx2")).has("avx2"));
    QVERIFY(!CpuFeatureSet(split("-mavx2 -mno-avx2")).has("avx2"));
    QVERIFY(CpuFeatureSet(split("-mno-avx2 -mavx512f")).has("avx2")); // re-enabled by implication
    // …the last -march= is the baseline…
    QVERIFY(!CpuFeatureSet(split("-march=x86-64-v4 -march=x86-64-v3")).has("avx512f"));
    QCOMPARE(QString::fromStdString(
                 CpuFeatureSet(split("-march=x86-64-v4 -march=x86-64-v3")).baseline()),
             QStringLiteral("x86-64-v3"));
    // …and explicit feature flags beat it whichever comes first, as in GCC.
    QVERIFY(!CpuFeatureSet(split("-mno-avx512f -march=x86-64-v4")).has("avx512bw"));
    QVERIFY(CpuFeatureSet(split("-mavx512f -march=x86-64-v2")).has("avx512f"));
}

void TestCpuFeatureSet::unknownFlagsAreRecordedNotFatal()
{
    const CpuFeatureSet native(split("-march=native -mavx2"));
    QVERIFY(native.unknownBaseline());
    QVERIFY(native.unknownFlags().empty()); // native is understood, just not knowable
    QVERIFY(native.has("avx2"));
    const IsaVerdict v = native.judge(*Catalog::builtin().isa("avx2"));
    QVERIFY(v.unknownBaseline);
    QVERIFY(!v.acceptable());
    QVERIFY(v.missingRequired.empty());

    QVERIFY(CpuFeatureSet(split("-mcpu=native")).unknownBaseline());

    const CpuFeatureSet odd(split("-mavx2 -mfoo -mno-bar -march=armv8.2-a+fp16+warp -mfoo"));
    QCOMPARE(toList(odd.unknownFlags()),
             QStringList({"-march=armv8.2-a+fp16+warp", "-mfoo", "-mno-bar"}));
    QVERIFY(odd.has("avx2") && odd.has("fp16"));
    QVERIFY(!odd.unknownBaseline());

    const CpuFeatureSet strange(split("-march=pentium4"));
    QVERIFY(strange.unknownBaseline());
    QCOMPARE(toList(strange.unknownFlags()), QStringList{"-march=pentium4"});
    QVERIFY(strange.features().empty());
    QVERIFY(CpuFeatureSet(split("-mcpu=haswell")).unknownBaseline()); // -mcpu is ARM's
    QVERIFY(CpuFeatureSet(split("-march=neoverse-v2")).unknownBaseline());
    QVERIFY(CpuFeatureSet(split("-march=x86-64-v3+avx512f")).unknownBaseline());
    // Levels are not modifiers.
    QCOMPARE(toList(CpuFeatureSet(split("-march=armv8.2-a+armv9-a")).unknownFlags()),
             QStringList{"-march=armv8.2-a+armv9-a"});

    const IsaVerdict withUnknown = judge("-mavx2 -mfma -mf16c -mfoo", "avx2");
    QVERIFY(withUnknown.acceptable());
    QVERIFY(!withUnknown.clean());
    QCOMPARE(toList(withUnknown.unknownFlags), QStringList{"-mfoo"});
}

void TestCpuFeatureSet::nonFeatureFlagsAreIgnored()
{
    const CpuFeatureSet set(
        split("-O2 -g -fPIC -I/usr/include -DNDEBUG -mtune=generic -m64 -mno-red-zone "
              "-mprefer-vector-width=256 -mavx2 -Wall"));
    QVERIFY(set.unknownFlags().empty());
    QCOMPARE(toList(set.topFeatures()), QStringList{"avx2"});
    QVERIFY(set.baseline().empty());
}

void TestCpuFeatureSet::originAndDescribe()
{
    const CpuFeatureSet set(split("-march=x86-64-v2 -mavx2 -mfma"));
    QCOMPARE(QString::fromStdString(set.origin("avx2")), QStringLiteral("-mavx2"));
    QCOMPARE(QString::fromStdString(set.origin("avx")), QStringLiteral("-mavx2"));
    QCOMPARE(QString::fromStdString(set.origin("fma")), QStringLiteral("-mfma"));
    QCOMPARE(QString::fromStdString(set.origin("sse4.2")), QStringLiteral("-march=x86-64-v2"));
    QVERIFY(set.origin("avx512f").empty());
    QCOMPARE(toList(set.topFeatures()),
             QStringList({"mmx", "popcnt", "cx16", "sahf", "avx2", "fma"}));
    QCOMPARE(QString::fromStdString(set.describe()),
             QStringLiteral("enables mmx, popcnt, cx16, sahf, avx2, fma"));
    QVERIFY(set.features().size() > set.topFeatures().size());

    const CpuFeatureSet off(split("-mavx2 -mno-avx"));
    QVERIFY(off.origin("avx2").empty());
    QCOMPARE(QString::fromStdString(off.describe()), QStringLiteral("enables sse4.2, xsave"));

    QCOMPARE(QString::fromStdString(CpuFeatureSet(split("-march=armv9-a+sve2")).describe()),
             QStringLiteral("enables armv9-a"));
    QCOMPARE(QString::fromStdString(CpuFeatureSet(split("-march=native -mavx2")).describe()),
             QStringLiteral("enables whatever the build machine has (-march=native), and avx2"));
    QVERIFY(
        QString::fromStdString(CpuFeatureSet(split("-march=k8")).describe()).contains("-march=k8"));
}

void TestCpuFeatureSet::emptyAndSplit()
{
    const CpuFeatureSet none;
    QVERIFY(none.features().empty());
    QCOMPARE(QString::fromStdString(none.describe()), QStringLiteral("enables no CPU feature"));
    QVERIFY(!none.judge(*Catalog::builtin().isa("avx")).acceptable());
    // One element holding several flags counts as several.
    const CpuFeatureSet joined(std::vector<std::string>{"-mavx2  -mfma", "-mf16c"});
    QVERIFY(joined.judge(*Catalog::builtin().isa("avx2")).clean());
}

void TestCpuFeatureSet::sharedSetsFollowTheirList()
{
    const std::vector<std::string> list{"-march=x86-64-v3", "-mno-fma"};
    const auto first = CpuFeatureSet::shared(list);
    QCOMPARE(CpuFeatureSet::shared(list).get(), first.get()); // made once
    QCOMPARE(toList(first->features()), toList(CpuFeatureSet(list).features()));
    QVERIFY(!first->has("fma"));
    // Lists that would read the same when joined without a separator are different lists.
    const auto avx2 = CpuFeatureSet::shared({"-mavx2"});
    const auto avx = CpuFeatureSet::shared({"-mavx", "2"});
    QVERIFY(avx2->has("avx2"));
    QVERIFY(!avx->has("avx2"));
    QVERIFY(avx->has("avx"));
}

QTEST_GUILESS_MAIN(TestCpuFeatureSet)
#include "tst_cpufeatureset.moc"
