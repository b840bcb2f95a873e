#include "matrix/catalog.h"

#include <QtTest>
#include <thread>

using namespace rg;

class TestCatalog : public QObject
{
    Q_OBJECT

private slots:
    void builtinHasTheSeedTables();
    void builtinIsLoadedOnceAcrossThreads();
    void lookups();
    void seedFlags();
    void acceptsFlags();
    void canRun_data();
    void canRun();
    void cudaSupports();
    void compareVersions_data();
    void compareVersions();
    void fromJsonRejects_data();
    void fromJsonRejects();
    void fromJsonAcceptsMinimal();
};

void TestCatalog::builtinHasTheSeedTables()
{
    const Catalog& c = Catalog::builtin();
    QStringList archs;
    for (const auto& a : c.gpuArchs()) {
        archs << QString::fromStdString(a.id);
        // gpuArchSM and gpuArchNum are two spellings of the same number.
        std::string digits = a.dotted;
        std::erase(digits, '.');
        QCOMPARE(QString::fromStdString(digits), QString::fromStdString(a.number));
        QCOMPARE(QString::fromStdString(a.id), "sm" + QString::fromStdString(a.number));
        QVERIFY(!a.description.empty());
    }
    QCOMPARE(archs, QStringList({"sm121", "sm120", "sm110", "sm103", "sm100", "sm90", "sm89",
                                 "sm86", "sm80", "sm75", "sm61"}));
    QStringList isas;
    for (const auto& s : c.isas())
        isas << QString::fromStdString(s.id);
    QCOMPARE(isas, QStringList({"avx", "avx2", "avx512", "avx512bf16", "avx512vnni", "armv8_2",
                                "armv9", "mps"}));
    QCOMPARE(c.pythons().size(), std::size_t(4));
    QVERIFY(c.cuda("12.4") && c.cuda("12.6") && c.cuda("12.8") && c.cuda("12.9") && c.cuda("13.0"));
}

void TestCatalog::builtinIsLoadedOnceAcrossThreads()
{
    std::vector<const Catalog*> seen(4, nullptr);
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i)
        threads.emplace_back([&seen, i] { seen[i] = &Catalog::builtin(); });
    for (auto& t : threads)
        t.join();
    for (const Catalog* c : seen)
        QCOMPARE(c, &Catalog::builtin());
}

void TestCatalog::lookups()
{
    const Catalog& c = Catalog::builtin();
    QVERIFY(c.gpuArch("sm90"));
    QCOMPARE(QString::fromStdString(c.gpuArch("sm90")->dotted), QStringLiteral("9.0"));
    QCOMPARE(c.gpuArchByDotted("12.1"), c.gpuArch("sm121"));
    QVERIFY(!c.gpuArch("sm95"));
    QVERIFY(!c.gpuArch("9.0"));
    QCOMPARE(c.isa("armv8.2"), c.isa("armv8_2"));
    QVERIFY(c.isa("armv8_2"));
    QVERIFY(!c.isa("avx10"));
    QCOMPARE(c.python("313"), c.python("3.13"));
    QCOMPARE(QString::fromStdString(c.python("313")->packageSet),
             QStringLiteral("python313Packages"));
    QVERIFY(!c.python("3.9"));
    QCOMPARE(c.cuda("13_0"), c.cuda("13.0"));
    QVERIFY(!c.cuda("13.1"));
    QCOMPARE(c.cudaByPackageSet("cudaPackages_13"), c.cuda("13.0"));
    QCOMPARE(c.cudaByPackageSet("cudaPackages_12_9"), c.cuda("12.9"));
    QVERIFY(!c.cudaByPackageSet("cudaPackages"));
    QVERIFY(c.gpuArch("sm110")->armSoc && c.gpuArch("sm121")->armSoc);
    QVERIFY(!c.gpuArch("sm90")->armSoc);
    QCOMPARE(c.isa("armv9")->family, CpuFamily::Arm);
    QCOMPARE(c.isa("mps")->family, CpuFamily::Apple);
    QCOMPARE(QString::fromStdString(c.isa("mps")->platform), QStringLiteral("aarch64-darwin"));
    QCOMPARE(QString::fromStdString(c.isa("armv9")->platform), QStringLiteral("aarch64-linux"));
    QCOMPARE(QString::fromStdString(c.isa("avx2")->platform), QStringLiteral("x86_64-linux"));
}

void TestCatalog::seedFlags()
{
    // Seed 001's CPU ISA table and seed 003's ARM flags, verbatim.
    const Catalog& c = Catalog::builtin();
    using V = std::vector<std::string>;
    QVERIFY(c.isa("avx2")->flags == V({"-mavx2", "-mfma", "-mf16c"}));
    QVERIFY(c.isa("avx512")->flags ==
            V({"-mavx512f", "-mavx512dq", "-mavx512vl", "-mavx512bw", "-mfma"}));
    QVERIFY(c.isa("avx512bf16")->flags ==
            V({"-mavx512f", "-mavx512dq", "-mavx512vl", "-mavx512bw", "-mavx512bf16", "-mfma"}));
    QVERIFY(c.isa("avx512vnni")->flags ==
            V({"-mavx512f", "-mavx512dq", "-mavx512vl", "-mavx512bw", "-mavx512vnni", "-mfma"}));
    QVERIFY(c.isa("armv8_2")->flags == V({"-march=armv8.2-a+fp16+dotprod"}));
    QVERIFY(c.isa("armv9")->flags == V({"-march=armv9-a+sve2"}));
    QCOMPARE(QString::fromStdString(c.gpuArch("sm103")->minCuda), QStringLiteral("12.9"));
    QCOMPARE(QString::fromStdString(c.gpuArch("sm61")->maxCuda), QStringLiteral("12.9"));
}

void TestCatalog::acceptsFlags()
{
    const Catalog& c = Catalog::builtin();
    QVERIFY(c.isa("armv9")->acceptsFlags({"-march=armv9-a+sve2"}));
    QVERIFY(c.isa("armv9")->acceptsFlags({"-march=armv9-a+sve+sve2"})); // seed 002's spelling
    QVERIFY(!c.isa("armv9")->acceptsFlags({"-march=armv8.2-a+fp16+dotprod"}));
    QVERIFY(c.isa("avx2")->acceptsFlags({"-mavx2", "-mfma", "-mf16c"}));
    QVERIFY(!c.isa("avx2")->acceptsFlags({"-mavx"}));
    QVERIFY(!c.isa("avx2")->acceptsFlags({"-mfma", "-mavx2", "-mf16c"}));
}

void TestCatalog::canRun_data()
{
    QTest::addColumn<QString>("arch");
    QTest::addColumn<QString>("isa");
    QTest::addColumn<QString>("cuda");
    QTest::addColumn<bool>("runs");
    QTest::addColumn<QString>("why");

    QTest::newRow("SoC with x86") << "sm110"
                                  << "avx2"
                                  << "13.0" << false
                                  << "sm110 (NVIDIA DRIVE Thor) is an ARM SoC; avx2 is an x86 ISA";
    QTest::newRow("Spark with x86")
        << "sm121"
        << "avx512"
        << "13.0" << false << "sm121 (NVIDIA DGX Spark (GB10)) is an ARM SoC; avx512 is an x86 ISA";
    QTest::newRow("SoC with ARM") << "sm110"
                                  << "armv8_2"
                                  << "13.0" << true << "";
    QTest::newRow("Spark with ARMv9") << "sm121"
                                      << "armv9"
                                      << "13.0" << true << "";
    QTest::newRow("Grace Hopper") << "sm90"
                                  << "armv9"
                                  << "12.9" << true << "";
    QTest::newRow("discrete with ARM") << "sm120"
                                       << "armv8_2"
                                       << "13.0" << true << "";
    QTest::newRow("discrete x86") << "sm120"
                                  << "avx512"
                                  << "13.0" << true << "";
    QTest::newRow("CPU only") << ""
                              << "avx2"
                              << "" << true << "";
    QTest::newRow("CPU only ARM") << ""
                                  << "armv9"
                                  << "" << true << "";
    QTest::newRow("Darwin") << ""
                            << "mps"
                            << "" << true << "";
    QTest::newRow("mps with GPU")
        << "sm90"
        << "mps"
        << "12.9" << false
        << "mps (Apple Silicon (Metal)) is Apple Silicon; sm90 is an NVIDIA "
           "GPU, which macOS cannot use";
    QTest::newRow("mps with CUDA")
        << ""
        << "mps"
        << "13.0" << false
        << "mps (Apple Silicon (Metal)) is Apple Silicon; CUDA 13.0 does "
           "not exist on macOS";
    QTest::newRow("sm103 too old CUDA")
        << "sm103"
        << "avx512"
        << "12.8" << false
        << "sm103 (NVIDIA Blackwell Ultra (B300)) needs CUDA 12.9 or "
           "later; CUDA 12.8 cannot target it";
    QTest::newRow("sm103 on 12.9") << "sm103"
                                   << "avx512"
                                   << "12.9" << true << "";
    QTest::newRow("SoC on 12.9") << "sm110"
                                 << "armv9"
                                 << "12.9" << false
                                 << "sm110 (NVIDIA DRIVE Thor) needs CUDA 13.0 or later; CUDA 12.9 "
                                    "cannot target it";
    QTest::newRow("Pascal on 13") << "sm61"
                                  << "avx2"
                                  << "13.0" << false
                                  << "CUDA 13.0 dropped sm61 (NVIDIA Pascal (GTX 10 series)); the "
                                     "last CUDA that targets it is 12.9";
    QTest::newRow("Pascal on 12.9") << "sm61"
                                    << "avx2"
                                    << "12.9" << true << "";
    QTest::newRow("legacy name, no CUDA") << "sm110"
                                          << "armv9"
                                          << "" << true << "";
}

void TestCatalog::canRun()
{
    QFETCH(QString, arch);
    QFETCH(QString, isa);
    QFETCH(QString, cuda);
    QFETCH(bool, runs);
    QFETCH(QString, why);
    const Catalog& c = Catalog::builtin();
    const GpuArch* gpu = arch.isEmpty() ? nullptr : c.gpuArch(arch.toStdString());
    QVERIFY(arch.isEmpty() || gpu);
    const CpuIsa* cpu = c.isa(isa.toStdString());
    QVERIFY(cpu);
    std::string reason = "untouched";
    QCOMPARE(c.canRun(gpu, *cpu, cuda.toStdString(), &reason), runs);
    if (!runs)
        QCOMPARE(QString::fromStdString(reason), why);
    QCOMPARE(c.canRun(gpu, *cpu, cuda.toStdString(), nullptr), runs); // `why` is optional
}

void TestCatalog::cudaSupports()
{
    const Catalog& c = Catalog::builtin();
    std::string why;
    QVERIFY(c.cudaSupports(*c.gpuArch("sm121"), "13.0", &why));
    QVERIFY(!c.cudaSupports(*c.gpuArch("sm121"), "12.9", &why));
    QVERIFY(QString::fromStdString(why).contains("needs CUDA 13.0 or later"));
    QVERIFY(c.cudaSupports(*c.gpuArch("sm75"), "13.0", &why)); // 7.5 is the new floor
    QVERIFY(!c.cudaSupports(*c.gpuArch("sm61"), "13.0", &why));
    QVERIFY(c.cudaSupports(*c.gpuArch("sm90"), "12.4", &why));
    QVERIFY(!c.cudaSupports(*c.gpuArch("sm120"), "12.6", &why));
}

void TestCatalog::compareVersions_data()
{
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<int>("sign");
    QTest::newRow("numeric minor") << "12.10"
                                   << "12.9" << 1;
    QTest::newRow("equal") << "13.0"
                           << "13.0" << 0;
    QTest::newRow("missing component") << "13"
                                       << "13.0" << 0;
    QTest::newRow("underscore") << "12_9"
                                << "12.9" << 0;
    QTest::newRow("major wins") << "13.0"
                                << "12.9" << 1;
    QTest::newRow("torch") << "2.9.1"
                           << "2.10.0" << -1;
    QTest::newRow("text tail") << "2.10.0a0"
                               << "2.10.0b0" << -1;
    QTest::newRow("empty") << ""
                           << "1" << -1;
}

void TestCatalog::compareVersions()
{
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(int, sign);
    const int forward = rg::compareVersions(a.toStdString(), b.toStdString());
    const int backward = rg::compareVersions(b.toStdString(), a.toStdString());
    QCOMPARE((forward > 0) - (forward < 0), sign);
    QCOMPARE((backward > 0) - (backward < 0), -sign);
}

void TestCatalog::fromJsonRejects_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("error");
    const QString isas =
        R"("isas":[{"id":"avx2","description":"AVX2","family":"x86","platform":"x86_64-linux","flags":["-mavx2"]}])";
    const QString rest =
        R"("pythons":[{"id":"313","dotted":"3.13","packageSet":"python313Packages"}],)"
        R"("cudas":[{"id":"13_0","dotted":"13.0","packageSets":["cudaPackages_13"]}])";
    const QString arch =
        R"({"id":"sm90","number":"90","dotted":"9.0","generation":"Hopper","description":"H"})";
    QTest::newRow("not json") << "{"
                              << "catalog: not valid JSON";
    QTest::newRow("no archs") << "{\"schema\":1," + isas + "," + rest + "}"
                              << "catalog: gpuArchs: missing";
    QTest::newRow("bad family") << "{\"schema\":1,\"gpuArchs\":[" + arch + "]," +
                                       QString(isas).replace("\"x86\"", "\"risc\"") + "," + rest +
                                       "}"
                                << "catalog: isas[0].family: must be \"x86\", \"arm\" or \"apple\"";
    QTest::newRow("unknown key") << "{\"schema\":1,\"gpuArchs\":[" +
                                        QString(arch).replace("\"H\"", "\"H\",\"minCUDA\":\"1\"") +
                                        "]," + isas + "," + rest + "}"
                                 << "catalog: gpuArchs[0].minCUDA: unknown key";
    QTest::newRow("duplicate id") << "{\"schema\":1,\"gpuArchs\":[" + arch + "," + arch + "]," +
                                         isas + "," + rest + "}"
                                  << "catalog: gpuArchs[1].id: duplicate id \"sm90\"";
    QTest::newRow("id and number disagree")
        << "{\"schema\":1,\"gpuArchs\":[" + QString(arch).replace("\"90\"", "\"91\"") + "]," +
               isas + "," + rest + "}"
        << "catalog: gpuArchs[0].id: must be \"sm\" followed by the number";
    QTest::newRow("schema") << "{\"schema\":2,\"gpuArchs\":[" + arch + "]," + isas + "," + rest +
                                   "}"
                            << "catalog: schema: must be 1";
}

void TestCatalog::fromJsonRejects()
{
    QFETCH(QString, json);
    QFETCH(QString, error);
    std::string why;
    const std::string text = json.toStdString();
    QVERIFY(!Catalog::fromJson(text, &why));
    QCOMPARE(QString::fromStdString(why), error);
}

void TestCatalog::fromJsonAcceptsMinimal()
{
    const std::string text =
        R"({"schema":1,"gpuArchs":[{"id":"sm90","number":"90","dotted":"9.0","generation":"Hopper","description":"H","armSoc":false}],)"
        R"("isas":[{"id":"avx2","description":"AVX2","family":"x86","platform":"x86_64-linux","flags":["-mavx2"]}],)"
        R"("pythons":[{"id":"313","dotted":"3.13","packageSet":"python313Packages"}],)"
        R"("cudas":[{"id":"13_0","dotted":"13.0","packageSets":["cudaPackages_13"]}]})";
    std::string why;
    const auto c = Catalog::fromJson(text, &why);
    QVERIFY2(c, why.c_str());
    QCOMPARE(c->gpuArchs().size(), std::size_t(1));
    QVERIFY(c->isa("avx2"));
    QVERIFY(!c->isa("avx512"));
}

QTEST_GUILESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
