#include "matrix/catalog.h"
#include "matrix/variantname.h"

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
    void cuda13DroppedEverythingBelowTuring();
    void isaFeatures();
    void describeGpuArch_data();
    void describeGpuArch();
    void describeCuda();
    void describePython();
    void packages();
    void packageSupports();
    void feasibility_data();
    void feasibility();
    void packagesInJson();
    void toJsonRoundTrip();
    void fragment();
    void fragmentRejects_data();
    void fragmentRejects();
    void extendedWith();
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
    QCOMPARE(archs, QStringList({"sm121", "sm120", "sm110", "sm103", "sm101", "sm100", "sm90",
                                 "sm89",  "sm87",  "sm86",  "sm80",  "sm75",  "sm72",  "sm70",
                                 "sm62",  "sm61",  "sm60",  "sm53",  "sm52",  "sm50"}));
    for (std::size_t i = 1; i < c.gpuArchs().size(); ++i) // newest first
        QVERIFY(rg::compareVersions(c.gpuArchs()[i - 1].dotted, c.gpuArchs()[i].dotted) > 0);
    QStringList isas;
    for (const auto& s : c.isas())
        isas << QString::fromStdString(s.id);
    QCOMPARE(isas, QStringList({"avx", "avx2", "avx512", "avx512bf16", "avx512vnni", "armv8_2",
                                "armv9", "mps"}));
    QCOMPARE(c.pythons().size(), std::size_t(4));
    QStringList cudas;
    for (const auto& v : c.cudas())
        cudas << QString::fromStdString(v.dotted);
    QCOMPARE(cudas, QStringList({"11.8", "12.0", "12.1", "12.2", "12.3", "12.4", "12.5", "12.6",
                                 "12.8", "12.9", "13.0", "13.1"}));
    for (const auto& v : c.cudas()) {
        // The first package set is always the exact one; the alias, if any, comes after it.
        std::string exact = "cudaPackages_" + v.id;
        QCOMPARE(QString::fromStdString(v.packageSets.front()), QString::fromStdString(exact));
        QVERIFY(v.known);
    }
    for (const auto& a : c.gpuArchs())
        QVERIFY(a.known);
}

void TestCatalog::cuda13DroppedEverythingBelowTuring()
{
    // CUDA 13.0 targets compute capability 7.5 and up; sm101 is gone only because 13.0
    // renumbered Thor as sm110.
    const Catalog& c = Catalog::builtin();
    for (const GpuArch& a : c.gpuArchs()) {
        const bool modern = rg::compareVersions(a.dotted, "7.5") >= 0;
        QCOMPARE(c.cudaSupports(a, "13.0", nullptr), modern && a.id != "sm101");
        if (!modern)
            QVERIFY2(c.cudaSupports(a, "12.9", nullptr), a.id.c_str());
    }
    std::string why;
    QVERIFY(!c.cudaSupports(*c.gpuArch("sm101"), "13.0", &why));
    QVERIFY(QString::fromStdString(why).contains("last CUDA that targets it is 12.9"));
    QVERIFY(c.cudaSupports(*c.gpuArch("sm101"), "12.8", nullptr));
    QVERIFY(!c.cudaSupports(*c.gpuArch("sm110"), "12.9", nullptr));
    QVERIFY(c.gpuArch("sm101")->armSoc && c.gpuArch("sm87")->armSoc && c.gpuArch("sm53")->armSoc);
    QVERIFY(!c.gpuArch("sm70")->armSoc);
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
    QVERIFY(!c.cuda("13.2"));
    QVERIFY(!c.cuda("12.7")); // there never was a CUDA 12.7
    QCOMPARE(c.cudaByPackageSet("cudaPackages_13"), c.cuda("13.0"));
    QCOMPARE(c.cudaByPackageSet("cudaPackages_13_1"), c.cuda("13.1"));
    QCOMPARE(c.cudaByPackageSet("cudaPackages_11"), c.cuda("11.8"));
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
    QVERIFY(c.cudaSupports(*c.gpuArch("sm121"), "12.9", &why));
    QVERIFY(!c.cudaSupports(*c.gpuArch("sm121"), "12.8", &why));
    QVERIFY(QString::fromStdString(why).contains("needs CUDA 12.9 or later"));
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

void TestCatalog::isaFeatures()
{
    const Catalog& c = Catalog::builtin();
    using V = std::vector<std::string>;
    QVERIFY(c.isa("avx2")->requiredFeatures == V({"avx2"}));
    QVERIFY(c.isa("avx2")->recommendedFeatures == V({"avx2", "fma", "f16c"}));
    QVERIFY(c.isa("avx512bf16")->requiredFeatures == V({"avx512f", "avx512bf16"}));
    QVERIFY(c.isa("armv8_2")->requiredFeatures == V({"armv8.2-a"}));
    QVERIFY(c.isa("armv9")->requiredFeatures == V({"sve2"}));
    QVERIFY(c.isa("mps")->requiredFeatures.empty());
    for (const CpuIsa& isa : c.isas()) {
        // An ISA cannot both require and forbid a feature, nor recommend a forbidden one.
        for (const auto& f : isa.forbiddenFeatures) {
            QVERIFY2(std::find(isa.requiredFeatures.begin(), isa.requiredFeatures.end(), f) ==
                         isa.requiredFeatures.end(),
                     (isa.id + " " + f).c_str());
            QVERIFY2(std::find(isa.recommendedFeatures.begin(), isa.recommendedFeatures.end(), f) ==
                         isa.recommendedFeatures.end(),
                     (isa.id + " " + f).c_str());
        }
        // What is required is recommended too: the seed flags build the ISA.
        for (const auto& f : isa.requiredFeatures)
            QVERIFY2(std::find(isa.recommendedFeatures.begin(), isa.recommendedFeatures.end(), f) !=
                         isa.recommendedFeatures.end(),
                     (isa.id + " " + f).c_str());
    }
    // Each x86 ISA forbids the defining feature of every richer one.
    const auto forbids = [&](const char* isa, const char* feature) {
        const auto& f = c.isa(isa)->forbiddenFeatures;
        return std::find(f.begin(), f.end(), feature) != f.end();
    };
    QVERIFY(forbids("avx", "avx2") && forbids("avx", "fma") && forbids("avx", "avx512f"));
    QVERIFY(forbids("avx2", "avx512f") && !forbids("avx2", "fma"));
    QVERIFY(forbids("avx512", "avx512bf16") && forbids("avx512", "avx512vnni"));
    QVERIFY(forbids("avx512vnni", "avx512bf16") && !forbids("avx512bf16", "avx512vnni"));
    QVERIFY(forbids("armv8_2", "sve") && forbids("armv8_2", "sve2"));
    QVERIFY(!forbids("armv9", "sve2"));
}

void TestCatalog::describeGpuArch_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<bool>("known");
    QTest::addColumn<QString>("number");
    QTest::addColumn<QString>("dotted");
    QTest::newRow("catalog") << "sm90" << true << "90"
                             << "9.0";
    QTest::newRow("catalog, three digits") << "sm121" << true << "121"
                                           << "12.1";
    QTest::newRow("two digits") << "sm88" << false << "88"
                                << "8.8";
    QTest::newRow("three digits") << "sm130" << false << "130"
                                  << "13.0";
    QTest::newRow("four digits") << "sm1000" << false << "1000"
                                 << "100.0";
    QTest::newRow("one digit") << "sm9" << false << ""
                               << "";
    QTest::newRow("not digits") << "smXY" << false << ""
                                << "";
    QTest::newRow("not an arch") << "avx2" << false << ""
                                 << "";
}

void TestCatalog::describeGpuArch()
{
    QFETCH(QString, id);
    QFETCH(bool, known);
    QFETCH(QString, number);
    QFETCH(QString, dotted);
    const Catalog& c = Catalog::builtin();
    const GpuArch a = c.describeGpuArch(id.toStdString());
    QCOMPARE(a.known, known);
    QCOMPARE(QString::fromStdString(a.id), id);
    QCOMPARE(QString::fromStdString(a.number), number);
    QCOMPARE(QString::fromStdString(a.dotted), dotted);
    if (known) {
        QVERIFY(a == *c.gpuArch(id.toStdString()));
    } else {
        QCOMPARE(QString::fromStdString(a.description), QStringLiteral("unknown to the catalog"));
        QVERIFY(a.minCuda.empty() && a.maxCuda.empty() && !a.armSoc);
        QVERIFY(c.cudaSupports(a, "13.0", nullptr)); // no limits are made up
    }
}

void TestCatalog::describeCuda()
{
    const Catalog& c = Catalog::builtin();
    const CudaVersion known = c.describeCuda("13.0");
    QVERIFY(known.known);
    QVERIFY(known == *c.cuda("13.0"));
    for (const char* spelling : {"14.0", "14_0"}) {
        const CudaVersion v = c.describeCuda(spelling);
        QVERIFY(!v.known);
        QCOMPARE(QString::fromStdString(v.id), QStringLiteral("14_0"));
        QCOMPARE(QString::fromStdString(v.dotted), QStringLiteral("14.0"));
        QVERIFY(v.packageSets == std::vector<std::string>{"cudaPackages_14_0"});
    }
    QCOMPARE(QString::fromStdString(c.describeCuda("12_10").dotted), QStringLiteral("12.10"));
    for (const char* bad : {"14", "", "x.y", "13..0"}) {
        const CudaVersion v = c.describeCuda(bad);
        QVERIFY(!v.known);
        QVERIFY2(v.dotted.empty() && v.packageSets.empty(), bad);
        QCOMPARE(QString::fromStdString(v.id), QString::fromUtf8(bad));
    }
}

void TestCatalog::describePython()
{
    const Catalog& c = Catalog::builtin();
    QVERIFY(c.describePython("313").known);
    QVERIFY(c.describePython("3.13") == *c.python("313"));
    for (const char* spelling : {"315", "3.15"}) {
        const PythonVersion p = c.describePython(spelling);
        QVERIFY(!p.known);
        QCOMPARE(QString::fromStdString(p.id), QStringLiteral("315"));
        QCOMPARE(QString::fromStdString(p.dotted), QStringLiteral("3.15"));
        QCOMPARE(QString::fromStdString(p.packageSet), QStringLiteral("python315Packages"));
    }
    QCOMPARE(QString::fromStdString(c.describePython("39").dotted), QStringLiteral("3.9"));
    QCOMPARE(QString::fromStdString(c.describePython("3100").dotted), QStringLiteral("3.100"));
    const PythonVersion bad = c.describePython("3");
    QVERIFY(!bad.known && bad.dotted.empty() && bad.packageSet.empty());
    QVERIFY(c.describePython("3.1.2").dotted.empty());
}

void TestCatalog::packages()
{
    const Catalog& c = Catalog::builtin();
    QVERIFY(c.package("pytorch"));
    QCOMPARE(c.package("pytorch210"), c.package("pytorch"));
    QCOMPARE(c.package("vllm015"), c.package("vllm"));
    QCOMPARE(c.package("torchvision025"), c.package("torchvision"));
    QCOMPARE(QString::fromStdString(c.package("torchaudio")->companionOf),
             QStringLiteral("pytorch"));
    QCOMPARE(QString::fromStdString(c.package("vllm")->minArch), QStringLiteral("7.0"));
    QVERIFY(!c.package("pytorchx"));
    QVERIFY(!c.package("pytorch210x"));
    QVERIFY(!c.package("210"));
    QVERIFY(!c.package(""));
    QVERIFY(!c.package("jax"));

    // A package whose own id ends in digits wins over stripping them.
    const auto withDigits = Catalog::fragmentFromJson(
        R"({"packages":[{"id":"foo"},{"id":"foo2","minArch":"9.0"}]})", nullptr, nullptr);
    QVERIFY(withDigits);
    QCOMPARE(QString::fromStdString(withDigits->package("foo2")->id), QStringLiteral("foo2"));
    QCOMPARE(QString::fromStdString(withDigits->package("foo3")->id), QStringLiteral("foo"));
}

void TestCatalog::feasibility_data()
{
    QTest::addColumn<QString>("variant");
    QTest::addColumn<QString>("hardware"); // the start of each limit's sentence, "" for none
    QTest::addColumn<QString>("cuda");
    QTest::addColumn<QString>("package");
    QTest::newRow("possible") << "pytorch-python313-cuda13_0-sm90-avx512"
                              << ""
                              << ""
                              << "";
    QTest::newRow("ARM SoC with x86") << "pytorch-python313-cuda13_0-sm110-avx512"
                                      << "sm110 ("
                                      << ""
                                      << "";
    QTest::newRow("CUDA dropped the arch") << "pytorch-python313-cuda13_0-sm61-avx2"
                                           << ""
                                           << "CUDA 13.0 dropped sm61"
                                           << "";
    QTest::newRow("CUDA too old for the arch") << "pytorch-python313-cuda12_8-sm110-armv8_2"
                                               << ""
                                               << "sm110 ("
                                               << "";
    QTest::newRow("package floor") << "vllm-python313-cuda12_8-sm61-avx2"
                                   << ""
                                   << ""
                                   << "vllm needs a GPU of compute capability 7.0";
    QTest::newRow("package floor and CUDA") << "vllm-python313-cuda13_0-sm61-avx2"
                                            << ""
                                            << "CUDA 13.0 dropped sm61"
                                            << "vllm needs";
    QTest::newRow("CPU-only on Apple") << "pytorch-python313-cpu-mps"
                                       << "CPU-only recipes build for Linux"
                                       << ""
                                       << "";
    QTest::newRow("Darwin on x86") << "pytorch-python313-darwin-avx2"
                                   << "Darwin recipes run on Apple silicon"
                                   << ""
                                   << "";
    QTest::newRow("words the catalog lacks limit nothing")
        << "newpkg-python313-cuda14_0-sm130-avx1024"
        << ""
        << ""
        << "";
}

// One verdict per cell, each limit in its own sentence: the rules report them under their own
// ids, the grid hatches any of them.
void TestCatalog::feasibility()
{
    QFETCH(QString, variant);
    QFETCH(QString, hardware);
    QFETCH(QString, cuda);
    QFETCH(QString, package);
    const auto name = VariantName::parse(variant.toStdString());
    QVERIFY(name);
    const Feasibility f = Catalog::builtin().feasibility(*name);
    const auto startsAs = [](const std::string& text, const QString& start) {
        return start.isEmpty() ? text.empty() : QString::fromStdString(text).startsWith(start);
    };
    QVERIFY2(startsAs(f.hardwareWhy, hardware), f.hardwareWhy.c_str());
    QVERIFY2(startsAs(f.cudaWhy, cuda), f.cudaWhy.c_str());
    QVERIFY2(startsAs(f.packageWhy, package), f.packageWhy.c_str());
    QCOMPARE(f.possible(), hardware.isEmpty() && cuda.isEmpty() && package.isEmpty());
    // The sentence shown is the first limit: hardware, then CUDA, then the package.
    const std::string& first = !f.hardwareWhy.empty() ? f.hardwareWhy
                               : !f.cudaWhy.empty()   ? f.cudaWhy
                                                      : f.packageWhy;
    QCOMPARE(f.why(), first);
}

void TestCatalog::packageSupports()
{
    const Catalog& c = Catalog::builtin();
    std::string why;
    QVERIFY(c.packageSupports(*c.package("vllm"), *c.gpuArch("sm70"), &why));
    QVERIFY(!c.packageSupports(*c.package("vllm"), *c.gpuArch("sm61"), &why));
    QCOMPARE(QString::fromStdString(why),
             QStringLiteral("vllm needs a GPU of compute capability 7.0 or newer; sm61 (NVIDIA "
                            "Pascal (GTX 10 series)) is 6.1"));
    QVERIFY(c.packageSupports(*c.package("vllm"), *c.gpuArch("sm121"), nullptr));
    QVERIFY(c.packageSupports(*c.package("pytorch"), *c.gpuArch("sm50"), nullptr));
    QVERIFY(c.packageSupports(*c.package("torchvision"), *c.gpuArch("sm50"), nullptr));
    // An unknown arch with a derivable number is still compared; one without passes.
    QVERIFY(!c.packageSupports(*c.package("vllm"), c.describeGpuArch("sm65"), nullptr));
    QVERIFY(c.packageSupports(*c.package("vllm"), c.describeGpuArch("smXY"), nullptr));

    // A companion goes wherever its package goes: limits follow companionOf.
    const Catalog limited = c.extendedWith(*Catalog::fragmentFromJson(
        R"({"packages":[{"id":"pytorch","minArch":"7.5"}]})", nullptr, nullptr));
    QVERIFY(!limited.packageSupports(*limited.package("torchvision"), *c.gpuArch("sm70"), &why));
    QVERIFY2(QString::fromStdString(why).startsWith(
                 "torchvision goes with pytorch, which needs a GPU of compute capability 7.5"),
             why.c_str());
    QVERIFY(limited.packageSupports(*limited.package("torchvision"), *c.gpuArch("sm75"), nullptr));

    // A companionOf cycle (possible through an extension) ends instead of looping.
    const Catalog cycle = c.extendedWith(*Catalog::fragmentFromJson(
        R"({"packages":[{"id":"a","companionOf":"b"},{"id":"b","companionOf":"a"}]})", nullptr,
        nullptr));
    QVERIFY(cycle.packageSupports(*cycle.package("a"), *c.gpuArch("sm50"), nullptr));
}

void TestCatalog::packagesInJson()
{
    const std::string base =
        R"({"schema":1,"gpuArchs":[{"id":"sm90","number":"90","dotted":"9.0","generation":"Hopper","description":"H"}],)"
        R"("isas":[{"id":"avx2","description":"AVX2","family":"x86","platform":"x86_64-linux","flags":["-mavx2"]}],)"
        R"("pythons":[{"id":"313","dotted":"3.13","packageSet":"python313Packages"}],)"
        R"("cudas":[{"id":"13_0","dotted":"13.0","packageSets":["cudaPackages_13"]}])";
    std::string why;
    QVERIFY(Catalog::fromJson(base + "}", &why)); // packages are optional
    QVERIFY(!Catalog::fromJson(base + R"(,"packages":[{"id":"tv","companionOf":"pt"}]})", &why));
    QCOMPARE(QString::fromStdString(why),
             QStringLiteral("catalog: packages[0].companionOf: names no package of the catalog"));
    QVERIFY(!Catalog::fromJson(base + R"(,"packages":[{"id":"vllm","minArch":"seven"}]})", &why));
    QCOMPARE(QString::fromStdString(why),
             QStringLiteral("catalog: packages[0].minArch: must be a dotted compute capability"));
    QVERIFY(!Catalog::fromJson(base + R"(,"packages":[{"id":"Vllm"}]})", &why));
    QVERIFY(!Catalog::fromJson(base + R"(,"packages":[{"id":"a"},{"id":"a"}]})", &why));
    QCOMPARE(QString::fromStdString(why),
             QStringLiteral("catalog: packages[1].id: duplicate id \"a\""));
}

void TestCatalog::toJsonRoundTrip()
{
    const Catalog& c = Catalog::builtin();
    std::string why;
    const auto again = Catalog::fromJson(c.toJson(), &why);
    QVERIFY2(again, why.c_str());
    QVERIFY(*again == c);
    QCOMPARE(again->toJson(), c.toJson());
    // The comparison sees every section.
    Catalog changed = c.extendedWith(*Catalog::fragmentFromJson(
        R"({"packages":[{"id":"vllm","minArch":"8.0"}]})", nullptr, nullptr));
    QVERIFY(!(changed == c));

    // A fragment writes only what it has, and reads back equal.
    const auto fragment = Catalog::fragmentFromJson(
        R"({"cudas":[{"id":"14_0","dotted":"14.0","packageSets":["cudaPackages_14_0"]}]})", nullptr,
        nullptr);
    QVERIFY(fragment);
    const std::string text = fragment->toJson(false);
    QVERIFY2(!QString::fromStdString(text).contains("gpuArchs") &&
                 !QString::fromStdString(text).contains("schema"),
             text.c_str());
    const auto fragmentAgain = Catalog::fragmentFromJson(text, nullptr, nullptr);
    QVERIFY(fragmentAgain && *fragmentAgain == *fragment);
    QVERIFY(!Catalog::fromJson(text, &why)); // not a whole catalog
}

void TestCatalog::fragment()
{
    std::string pointer, message;
    const auto empty = Catalog::fragmentFromJson("{}", &pointer, &message);
    QVERIFY(empty);
    QVERIFY(empty->gpuArchs().empty() && empty->isas().empty() && empty->packages().empty());
    QVERIFY(Catalog::builtin().extendedWith(*empty) == Catalog::builtin());

    const auto f = Catalog::fragmentFromJson(
        R"({"gpuArchs":[{"id":"sm130","number":"130","dotted":"13.0","generation":"Rubin","description":"R","minCuda":"14.0"}],)"
        R"("isas":[{"id":"avx10","description":"AVX10.1","family":"x86","platform":"x86_64-linux","flags":["-mavx10.1-512"],"requires":["avx512f"]}]})",
        &pointer, &message);
    QVERIFY2(f, message.c_str());
    QVERIFY(f->gpuArch("sm130") && f->gpuArch("sm130")->known);
    QCOMPARE(QString::fromStdString(f->gpuArch("sm130")->minCuda), QStringLiteral("14.0"));
    QVERIFY(f->isa("avx10")->requiredFeatures == std::vector<std::string>{"avx512f"});
    QVERIFY(f->pythons().empty() && f->cudas().empty());
}

void TestCatalog::fragmentRejects_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QString>("message");
    QTest::newRow("not json") << "{"
                              << ""
                              << "not valid JSON";
    QTest::newRow("array") << "[]"
                           << ""
                           << "the top level must be an object";
    QTest::newRow("schema is not part of a fragment") << R"({"schema":1})"
                                                      << "/schema"
                                                      << "unknown key";
    QTest::newRow("section not an array") << R"({"cudas":{}})"
                                          << "/cudas"
                                          << "must be an array";
    QTest::newRow("missing field")
        << R"({"gpuArchs":[{"id":"sm130","number":"130","dotted":"13.0","generation":"R"}]})"
        << "/gpuArchs/0"
        << "missing \"description\"";
    QTest::newRow("id and number disagree")
        << R"({"gpuArchs":[{"id":"sm130","number":"131","dotted":"13.1","generation":"R","description":"R"}]})"
        << "/gpuArchs/0/id"
        << "must be \"sm\" followed by the number";
    QTest::newRow("bad python")
        << R"({"pythons":[{"id":"315","dotted":"3.16","packageSet":"python315Packages"}]})"
        << "/pythons/0/dotted"
        << "must be the dotted form of the id";
    QTest::newRow("feature list") << R"({"isas":[{"id":"x","description":"X","family":"x86",)"
                                     R"("platform":"x86_64-linux","flags":[],"forbids":[1]}]})"
                                  << "/isas/0/forbids/0"
                                  << "must be a string";
    QTest::newRow("misspelt feature")
        << R"({"isas":[{"id":"x","description":"X","family":"x86",)"
           R"("platform":"x86_64-linux","flags":[],"requires":["avx2","avx512"]}]})"
        << "/isas/0/requires/1"
        << "unknown CPU feature \"avx512\"";
    QTest::newRow("duplicate") << R"({"packages":[{"id":"a"},{"id":"a"}]})"
                               << "/packages/1/id"
                               << "duplicate id \"a\"";
    QTest::newRow("key with a slash") << R"({"packages":[{"id":"a","min/arch":"1"}]})"
                                      << "/packages/0/min~1arch"
                                      << "unknown key";
}

void TestCatalog::fragmentRejects()
{
    QFETCH(QString, json);
    QFETCH(QString, pointer);
    QFETCH(QString, message);
    std::string actualPointer = "untouched", actualMessage;
    QVERIFY(!Catalog::fragmentFromJson(json.toStdString(), &actualPointer, &actualMessage));
    QCOMPARE(QString::fromStdString(actualPointer), pointer);
    QCOMPARE(QString::fromStdString(actualMessage), message);
}

void TestCatalog::extendedWith()
{
    const Catalog& c = Catalog::builtin();
    const auto more = Catalog::fragmentFromJson(
        R"({"gpuArchs":[{"id":"sm130","number":"130","dotted":"13.0","generation":"Rubin","description":"R"},)"
        R"({"id":"sm88","number":"88","dotted":"8.8","generation":"Ampere","description":"A"},)"
        R"({"id":"sm90","number":"90","dotted":"9.0","generation":"Hopper","description":"changed"}],)"
        R"("isas":[{"id":"armv9_2","description":"v9.2","family":"arm","platform":"aarch64-linux","flags":[]},)"
        R"({"id":"avx10","description":"AVX10","family":"x86","platform":"x86_64-linux","flags":[]}],)"
        R"("pythons":[{"id":"310","dotted":"3.10","packageSet":"python310Packages"},)"
        R"({"id":"315","dotted":"3.15","packageSet":"python315Packages"}],)"
        R"("cudas":[{"id":"12_7","dotted":"12.7","packageSets":["cudaPackages_12_7"]},)"
        R"({"id":"14_0","dotted":"14.0","packageSets":["cudaPackages_14_0"]}],)"
        R"("packages":[{"id":"jax"}]})",
        nullptr, nullptr);
    QVERIFY(more);
    const Catalog x = c.extendedWith(*more);
    QCOMPARE(x.gpuArchs().size(), c.gpuArchs().size() + 2);
    QCOMPARE(QString::fromStdString(x.gpuArch("sm90")->description), QStringLiteral("changed"));
    // Replacing keeps the place: without the two new archs the order is the built-in one.
    std::vector<std::string> without, builtinOrder;
    for (const GpuArch& a : x.gpuArchs())
        if (a.id != "sm130" && a.id != "sm88")
            without.push_back(a.id);
    for (const GpuArch& a : c.gpuArchs())
        builtinOrder.push_back(a.id);
    QVERIFY(without == builtinOrder);
    QCOMPARE(QString::fromStdString(x.gpuArchs().front().id), QStringLiteral("sm130"));
    for (std::size_t i = 1; i < x.gpuArchs().size(); ++i)
        QVERIFY(rg::compareVersions(x.gpuArchs()[i - 1].dotted, x.gpuArchs()[i].dotted) > 0);
    for (std::size_t i = 1; i < x.pythons().size(); ++i)
        QVERIFY(rg::compareVersions(x.pythons()[i - 1].dotted, x.pythons()[i].dotted) < 0);
    for (std::size_t i = 1; i < x.cudas().size(); ++i)
        QVERIFY(rg::compareVersions(x.cudas()[i - 1].dotted, x.cudas()[i].dotted) < 0);
    QCOMPARE(QString::fromStdString(x.cudas().back().dotted), QStringLiteral("14.0"));
    // ISAs stay grouped by family: x86, ARM, Apple.
    for (std::size_t i = 1; i < x.isas().size(); ++i)
        QVERIFY(static_cast<int>(x.isas()[i - 1].family) <= static_cast<int>(x.isas()[i].family));
    QCOMPARE(QString::fromStdString(x.isas().back().id), QStringLiteral("mps"));
    QVERIFY(x.isa("avx10") && x.isa("armv9_2"));
    QCOMPARE(QString::fromStdString(x.packages().back().id), QStringLiteral("jax"));
    // The original is untouched.
    QCOMPARE(QString::fromStdString(c.gpuArch("sm90")->description),
             QStringLiteral("NVIDIA Hopper (H100, H200)"));
    QVERIFY(!c.gpuArch("sm130"));
}

QTEST_GUILESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
