#include "matrix/variantname.h"

#include <QtTest>

using namespace rg;

Q_DECLARE_METATYPE(rg::Accelerator)

class TestVariantName : public QObject
{
    Q_OBJECT

private slots:
    void parse_data();
    void parse();
    void rejects_data();
    void rejects();
    void canonicalRoundTrip_data();
    void canonicalRoundTrip();
    void cellKeyIgnoresPackageAndSuffixes();
    void acceleratorIds();
    void suffixWordsNeverReadAsIsa();
    void genericRoundTrip();
};

void TestVariantName::parse_data()
{
    QTest::addColumn<QString>("stem");
    QTest::addColumn<QString>("package");
    QTest::addColumn<QString>("python");
    QTest::addColumn<Accelerator>("accelerator");
    QTest::addColumn<QString>("cuda");
    QTest::addColumn<QString>("gpuArch");
    QTest::addColumn<QString>("isa");
    QTest::addColumn<QString>("isaAsWritten");
    QTest::addColumn<QStringList>("suffixes");
    QTest::addColumn<bool>("legacy");
    QTest::addColumn<QString>("canonical");

    const auto C = Accelerator::Cuda;
    QTest::newRow("canonical GPU")
        << "pytorch-python313-cuda13_0-sm120-avx512"
        << "pytorch"
        << "313" << C << "13.0"
        << "sm120"
        << "avx512"
        << "" << QStringList() << false << "pytorch-python313-cuda13_0-sm120-avx512";
    QTest::newRow("magma suffix") << "pytorch-python313-cuda13_0-sm120-avx512-magma"
                                  << "pytorch"
                                  << "313" << C << "13.0"
                                  << "sm120"
                                  << "avx512"
                                  << "" << QStringList{"magma"} << false
                                  << "pytorch-python313-cuda13_0-sm120-avx512-magma";
    QTest::newRow("nightly ARM") << "pytorch-python313-cuda13_0-sm121-armv9-nightly"
                                 << "pytorch"
                                 << "313" << C << "13.0"
                                 << "sm121"
                                 << "armv9"
                                 << "" << QStringList{"nightly"} << false
                                 << "pytorch-python313-cuda13_0-sm121-armv9-nightly";
    QTest::newRow("armv8_2") << "pytorch-python313-cuda13_0-sm110-armv8_2"
                             << "pytorch"
                             << "313" << C << "13.0"
                             << "sm110"
                             << "armv8_2"
                             << "" << QStringList() << false
                             << "pytorch-python313-cuda13_0-sm110-armv8_2";
    QTest::newRow("armv8.2 as written")
        << "torchvision-python313-cuda13_0-sm110-armv8.2"
        << "torchvision"
        << "313" << C << "13.0"
        << "sm110"
        << "armv8_2"
        << "armv8.2" << QStringList() << false << "torchvision-python313-cuda13_0-sm110-armv8_2";
    QTest::newRow("CPU") << "pytorch-python313-cpu-avx2"
                         << "pytorch"
                         << "313" << Accelerator::Cpu << ""
                         << ""
                         << "avx2"
                         << "" << QStringList() << false << "pytorch-python313-cpu-avx2";
    QTest::newRow("Darwin") << "pytorch-python313-darwin-mps"
                            << "pytorch"
                            << "313" << Accelerator::Darwin << ""
                            << ""
                            << "mps"
                            << "" << QStringList() << false << "pytorch-python313-darwin-mps";
    QTest::newRow("legacy GPU") << "pytorch-py313-sm90-avx512"
                                << "pytorch"
                                << "313" << C << ""
                                << "sm90"
                                << "avx512"
                                << "" << QStringList() << true << "pytorch-python313-sm90-avx512";
    QTest::newRow("legacy CPU") << "pytorch-py313-cpu-avx2"
                                << "pytorch"
                                << "313" << Accelerator::Cpu << ""
                                << ""
                                << "avx2"
                                << "" << QStringList() << true << "pytorch-python313-cpu-avx2";
    QTest::newRow("legacy without CUDA, long python")
        << "pytorch-python313-sm86-avx2"
        << "pytorch"
        << "313" << C << ""
        << "sm86"
        << "avx2"
        << "" << QStringList() << true << "pytorch-python313-sm86-avx2";
    QTest::newRow("versioned package")
        << "pytorch210-python313-cuda13_0-sm120-avx512"
        << "pytorch210"
        << "313" << C << "13.0"
        << "sm120"
        << "avx512"
        << "" << QStringList() << false << "pytorch210-python313-cuda13_0-sm120-avx512";
    QTest::newRow("torchaudio") << "torchaudio-python312-cuda12_8-sm86-avx2"
                                << "torchaudio"
                                << "312" << C << "12.8"
                                << "sm86"
                                << "avx2"
                                << "" << QStringList() << false
                                << "torchaudio-python312-cuda12_8-sm86-avx2";
    QTest::newRow("vllm") << "vllm-python312-cuda12_9-sm90-avx512"
                          << "vllm"
                          << "312" << C << "12.9"
                          << "sm90"
                          << "avx512"
                          << "" << QStringList() << false << "vllm-python312-cuda12_9-sm90-avx512";
    QTest::newRow("unknown ISA still parses")
        << "pytorch-python313-cuda12_9-sm90-avx10"
        << "pytorch"
        << "313" << C << "12.9"
        << "sm90"
        << "avx10"
        << "" << QStringList() << false << "pytorch-python313-cuda12_9-sm90-avx10";
    QTest::newRow("path and extension")
        << ".flox/pkgs/pytorch-python313-cpu-avx512.nix"
        << "pytorch"
        << "313" << Accelerator::Cpu << ""
        << ""
        << "avx512"
        << "" << QStringList() << false << "pytorch-python313-cpu-avx512";
    QTest::newRow("dashed package")
        << "flash-attn-python313-cuda12_9-sm90-avx2"
        << "flash-attn"
        << "313" << C << "12.9"
        << "sm90"
        << "avx2"
        << "" << QStringList() << false << "flash-attn-python313-cuda12_9-sm90-avx2";
    QTest::newRow("two suffixes") << "pytorch-python311-cpu-armv9-mkl-test"
                                  << "pytorch"
                                  << "311" << Accelerator::Cpu << ""
                                  << ""
                                  << "armv9"
                                  << "" << QStringList{"mkl", "test"} << false
                                  << "pytorch-python311-cpu-armv9-mkl-test";
    QTest::newRow("generic GPU, no ISA")
        << "pytorch-python313-cuda12_8-sm90"
        << "pytorch"
        << "313" << C << "12.8"
        << "sm90"
        << ""
        << "" << QStringList() << false << "pytorch-python313-cuda12_8-sm90";
    QTest::newRow("generic CPU, no ISA") << "pytorch-python313-cpu"
                                         << "pytorch"
                                         << "313" << Accelerator::Cpu << ""
                                         << ""
                                         << ""
                                         << "" << QStringList() << false << "pytorch-python313-cpu";
    QTest::newRow("generic Darwin") << "pytorch-python313-darwin"
                                    << "pytorch"
                                    << "313" << Accelerator::Darwin << ""
                                    << ""
                                    << ""
                                    << "" << QStringList() << false << "pytorch-python313-darwin";
    QTest::newRow("generic legacy") << "pytorch-py312-sm86"
                                    << "pytorch"
                                    << "312" << C << ""
                                    << "sm86"
                                    << ""
                                    << "" << QStringList() << true << "pytorch-python312-sm86";
    QTest::newRow("suffix word where the ISA would be")
        << "pytorch-python313-cuda12_8-sm90-magma"
        << "pytorch"
        << "313" << C << "12.8"
        << "sm90"
        << ""
        << "" << QStringList{"magma"} << false << "pytorch-python313-cuda12_8-sm90-magma";
    QTest::newRow("suffix words, no ISA")
        << "pytorch-python313-cpu-nightly-old"
        << "pytorch"
        << "313" << Accelerator::Cpu << ""
        << ""
        << ""
        << "" << QStringList{"nightly", "old"} << false << "pytorch-python313-cpu-nightly-old";
    QTest::newRow("unknown ISA word")
        << "pytorch-python313-cuda12_8-sm90-arm64"
        << "pytorch"
        << "313" << C << "12.8"
        << "sm90"
        << "arm64"
        << "" << QStringList() << false << "pytorch-python313-cuda12_8-sm90-arm64";
    QTest::newRow("unknown ISA then suffix")
        << "pytorch-python313-cpu-avx10.1-nightly"
        << "pytorch"
        << "313" << Accelerator::Cpu << ""
        << ""
        << "avx10_1"
        << "avx10.1" << QStringList{"nightly"} << false << "pytorch-python313-cpu-avx10_1-nightly";
    QTest::newRow("word outside the suffix list reads as the ISA")
        << "pytorch-python313-cuda12_8-sm90-mkl"
        << "pytorch"
        << "313" << C << "12.8"
        << "sm90"
        << "mkl"
        << "" << QStringList() << false << "pytorch-python313-cuda12_8-sm90-mkl";
    QTest::newRow("arch unknown to the catalog")
        << "pytorch-python313-cuda13_0-sm999-avx2"
        << "pytorch"
        << "313" << C << "13.0"
        << "sm999"
        << "avx2"
        << "" << QStringList() << false << "pytorch-python313-cuda13_0-sm999-avx2";
    QTest::newRow("CUDA unknown to the catalog")
        << "pytorch-python313-cuda14_0-sm130-armv9"
        << "pytorch"
        << "313" << C << "14.0"
        << "sm130"
        << "armv9"
        << "" << QStringList() << false << "pytorch-python313-cuda14_0-sm130-armv9";
    QTest::newRow("Python unknown to the catalog")
        << "vllm-py315-cuda13_1-sm70-avx2"
        << "vllm"
        << "315" << C << "13.1"
        << "sm70"
        << "avx2"
        << "" << QStringList() << true << "vllm-python315-cuda13_1-sm70-avx2";
    QTest::newRow("CUDA 12.10") << "pytorch-python313-cuda12_10-sm90-avx2"
                                << "pytorch"
                                << "313" << C << "12.10"
                                << "sm90"
                                << "avx2"
                                << "" << QStringList() << false
                                << "pytorch-python313-cuda12_10-sm90-avx2";
}

void TestVariantName::parse()
{
    QFETCH(QString, stem);
    QFETCH(QString, package);
    QFETCH(QString, python);
    QFETCH(Accelerator, accelerator);
    QFETCH(QString, cuda);
    QFETCH(QString, gpuArch);
    QFETCH(QString, isa);
    QFETCH(QString, isaAsWritten);
    QFETCH(QStringList, suffixes);
    QFETCH(bool, legacy);
    QFETCH(QString, canonical);

    const auto name = VariantName::parse(stem.toStdString());
    QVERIFY(name);
    QCOMPARE(QString::fromStdString(name->package), package);
    QCOMPARE(QString::fromStdString(name->python), python);
    QCOMPARE(name->accelerator, accelerator);
    QCOMPARE(QString::fromStdString(name->cuda), cuda);
    QCOMPARE(QString::fromStdString(name->gpuArch), gpuArch);
    QCOMPARE(QString::fromStdString(name->isa), isa);
    QCOMPARE(QString::fromStdString(name->isaAsWritten), isaAsWritten);
    QStringList actualSuffixes;
    for (const auto& s : name->suffixes)
        actualSuffixes << QString::fromStdString(s);
    QCOMPARE(actualSuffixes, suffixes);
    QCOMPARE(name->legacyForm, legacy);
    QCOMPARE(QString::fromStdString(name->toString()), canonical);
}

void TestVariantName::rejects_data()
{
    QTest::addColumn<QString>("stem");
    for (const char* stem : {"default",
                             "common",
                             "pytorch-src",
                             "",
                             "pytorch",
                             "pytorch-python313",
                             "pytorch-python313-cuda13_0-avx512",
                             "pytorch-python313-cuda13-sm90-avx2",
                             "pytorch-python313-gpu-avx2",
                             "python313-cpu-avx2",
                             "pytorch--python313-cpu-avx2",
                             "pytorch-python3-cpu-avx2",
                             "pytorch-python313-cpu-AVX2",
                             "pytorch-python313-cuda13_0-sm120-AVX2",
                             "pytorch-python313-cuda13_0-sm120-magma-",
                             "pytorch-python313-cuda13_0-sm120-_x",
                             "pytorch-python313-cpu-avx2-",
                             "PyTorch-python313-cpu-avx2",
                             "pytorch-python313-cuda13_0-smXY-avx2",
                             "pytorch-python313-cpu-2x",
                             "README",
                             "overlays/magma"})
        QTest::newRow(*stem ? stem : "(empty)") << stem;
}

void TestVariantName::rejects()
{
    QFETCH(QString, stem);
    QVERIFY(!VariantName::parse(stem.toStdString()));
}

void TestVariantName::canonicalRoundTrip_data()
{
    QTest::addColumn<QString>("name");
    for (const char* n :
         {"pytorch-python313-cuda13_0-sm120-avx512", "pytorch-python313-cuda13_0-sm110-armv8_2",
          "pytorch-python313-cpu-avx512vnni", "pytorch-python313-darwin-mps",
          "torchvision-python312-cuda12_9-sm103-avx512bf16",
          "pytorch-python313-cuda13_0-sm120-avx512-magma"})
        QTest::newRow(n) << n;
}

void TestVariantName::canonicalRoundTrip()
{
    QFETCH(QString, name);
    const auto parsed = VariantName::parse(name.toStdString());
    QVERIFY(parsed);
    QCOMPARE(QString::fromStdString(parsed->toString()), name);
    const auto again = VariantName::parse(parsed->toString());
    QVERIFY(again);
    QVERIFY(*again == *parsed);
}

void TestVariantName::cellKeyIgnoresPackageAndSuffixes()
{
    const auto a = VariantName::parse("pytorch-python313-cuda13_0-sm120-avx512");
    const auto b = VariantName::parse("pytorch-python313-cuda13_0-sm120-avx512-magma");
    const auto c = VariantName::parse("torchvision-python313-cuda13_0-sm120-avx512");
    const auto d = VariantName::parse("pytorch-python313-cuda13_0-sm120-avx2");
    QVERIFY(a && b && c && d);
    QCOMPARE(QString::fromStdString(a->cellKey()),
             QStringLiteral("python313-cuda13_0-sm120-avx512"));
    QCOMPARE(a->cellKey(), b->cellKey());
    QCOMPARE(a->cellKey(), c->cellKey());
    QVERIFY(a->cellKey() != d->cellKey());
    QVERIFY(!(*a == *b));
    QCOMPARE(QString::fromStdString(VariantName::parse("pytorch-python313-cpu-avx2")->cellKey()),
             QStringLiteral("python313-cpu-avx2"));
    QCOMPARE(QString::fromStdString(VariantName::parse("pytorch-py313-sm90-avx512")->cellKey()),
             QStringLiteral("python313-sm90-avx512"));
}

void TestVariantName::acceleratorIds()
{
    for (const Accelerator a : {Accelerator::Cuda, Accelerator::Cpu, Accelerator::Darwin})
        QCOMPARE(acceleratorFromId(acceleratorId(a)), std::optional<Accelerator>(a));
    QCOMPARE(QString::fromUtf8(acceleratorId(Accelerator::Darwin).data()),
             QStringLiteral("darwin"));
    QVERIFY(!acceleratorFromId("gpu"));
}

void TestVariantName::suffixWordsNeverReadAsIsa()
{
    for (const char* word : {"magma", "nightly", "dev", "test", "debug", "experimental", "old",
                             "new", "backup", "wip", "tmp"}) {
        QVERIFY2(VariantName::isSuffixWord(word), word);
        const auto name =
            VariantName::parse(std::string("pytorch-python313-cuda13_0-sm120-") + word);
        QVERIFY(name);
        QVERIFY2(name->isa.empty(), word);
        QVERIFY(name->suffixes == std::vector<std::string>{word});
        // After an ISA the same word is an ordinary suffix.
        const auto after =
            VariantName::parse(std::string("pytorch-python313-cuda13_0-sm120-avx2-") + word);
        QVERIFY(after);
        QCOMPARE(QString::fromStdString(after->isa), QStringLiteral("avx2"));
        QVERIFY(after->suffixes == std::vector<std::string>{word});
    }
    for (const char* isa : {"avx", "avx2", "avx512", "armv8_2", "armv9", "mps", "arm64", "mkl", ""})
        QVERIFY2(!VariantName::isSuffixWord(isa), isa);
}

void TestVariantName::genericRoundTrip()
{
    for (const char* stem : {"pytorch-python313-cuda12_8-sm90", "pytorch-python313-cpu",
                             "pytorch-python313-cuda12_8-sm90-nightly"}) {
        const auto parsed = VariantName::parse(stem);
        QVERIFY(parsed);
        QVERIFY(parsed->isa.empty());
        QCOMPARE(QString::fromStdString(parsed->toString()), QString::fromUtf8(stem));
        const auto again = VariantName::parse(parsed->toString());
        QVERIFY(again && *again == *parsed);
    }
    // A generic build and an ISA build are different cells.
    const auto generic = VariantName::parse("pytorch-python313-cuda12_8-sm90");
    const auto avx2 = VariantName::parse("pytorch-python313-cuda12_8-sm90-avx2");
    const auto magma = VariantName::parse("pytorch-python313-cuda12_8-sm90-magma");
    QVERIFY(generic && avx2 && magma);
    QCOMPARE(QString::fromStdString(generic->cellKey()), QStringLiteral("python313-cuda12_8-sm90"));
    QVERIFY(generic->cellKey() != avx2->cellKey());
    QCOMPARE(generic->cellKey(), magma->cellKey());
}

QTEST_GUILESS_MAIN(TestVariantName)
#include "tst_variantname.moc"
