#include "matrix/matrixspec.h"

#include <QDir>
#include <QDirIterator>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <fstream>
#include <random>
#include <set>

using namespace rg;

namespace {

const char* const pin6a = "6a030d535719c5190187c4cec156f335e95e3211";
const char* const pin01 = "0182a361324364ae3f436a63005877674cf45efb";

VariantName name(const char* stem)
{
    auto n = VariantName::parse(stem);
    if (!n)
        qFatal("test name does not parse: %s", stem);
    return *n;
}

MatrixSpec loadFixture(const char* repo)
{
    SpecError error;
    const std::filesystem::path file =
        std::filesystem::path(RG_FIXTURES_DIR) / repo / MatrixSpec::defaultPath;
    auto spec = MatrixSpec::load(file, Catalog::builtin(), &error);
    if (!spec)
        qFatal("fixture spec does not load: %s", error.toString().c_str());
    return *spec;
}

// Every member key of `json` written with \u escapes, one per character, as a generator or an
// editor may write them; values stay as they are.
QByteArray withEscapedKeys(const QByteArray& json)
{
    static const QRegularExpression key(QStringLiteral("\"([^\"\\\\]*)\"(\\s*):"));
    QString text = QString::fromUtf8(json);
    QString out;
    qsizetype last = 0;
    for (auto it = key.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        out += text.mid(last, match.capturedStart() - last) + QLatin1Char('"');
        for (const QChar c : match.captured(1))
            out += QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
        out += QLatin1Char('"') + match.captured(2) + QLatin1Char(':');
        last = match.capturedEnd();
    }
    return (out + text.mid(last)).toUtf8();
}

std::optional<MatrixSpec> parse(const QByteArray& json, SpecError* error)
{
    return MatrixSpec::fromJson(std::string_view(json.constData(), json.size()), "spec.json",
                                Catalog::builtin(), error);
}

std::set<std::string> names(const std::vector<VariantName>& variants)
{
    std::set<std::string> out;
    for (const auto& v : variants)
        out.insert(v.toString());
    return out;
}

} // namespace

class TestMatrixSpec : public QObject
{
    Q_OBJECT

private slots:
    void seed001TargetExpects44();
    void seed001StartHasTheSameSpec();
    void seed000Expects66();
    void expects();
    void expectedPin();
    void patternFor();
    void expectedPname();
    void excludes();
    void positionAskingFor();
    void extraPackages();
    void errors_data();
    void errors();
    void keysInEitherNotation_data();
    void keysInEitherNotation();
    void endOfInputError();
    void damagedInputNeverCrashes();
    void errorToString();
    void loadMissingFile();
    void roundTrip_data();
    void roundTrip();
    void inferFromSamples();
    void inferPatterns();
    void inferEmpty();
    void inferSeedFixtures_data();
    void inferSeedFixtures();
    void catalogExtension();
    void catalogExtensionErrors_data();
    void catalogExtensionErrors();
};

void TestMatrixSpec::seed001TargetExpects44()
{
    const MatrixSpec spec = loadFixture("seed001-target");
    QVERIFY(!spec.isInferred());
    const auto expected = spec.expectedVariants();
    QCOMPARE(expected.size(), std::size_t(44));

    // Seed 001: 9 GPU archs × 4 x86 ISAs, SM110/SM121 × ARMv8.2/ARMv9, 4 CPU-only.
    std::set<std::string> want;
    for (const char* arch :
         {"sm80", "sm86", "sm89", "sm90", "sm100", "sm103", "sm110", "sm120", "sm121"})
        for (const char* isa : {"avx2", "avx512", "avx512bf16", "avx512vnni"})
            want.insert(std::string("pytorch-python313-cuda13_0-") + arch + "-" + isa);
    for (const char* arch : {"sm110", "sm121"})
        for (const char* isa : {"armv8_2", "armv9"})
            want.insert(std::string("pytorch-python313-cuda13_0-") + arch + "-" + isa);
    for (const char* isa : {"avx2", "avx512", "avx512bf16", "avx512vnni"})
        want.insert(std::string("pytorch-python313-cpu-") + isa);
    QCOMPARE(want.size(), std::size_t(44));
    QVERIFY(names(expected) == want);
    for (const auto& v : expected) {
        QVERIFY(v.suffixes.empty());
        QCOMPARE(QString::fromStdString(v.package), QStringLiteral("pytorch"));
        QVERIFY(spec.expects(v));
    }
    QCOMPARE(QString::fromStdString(spec.torchVersion), QStringLiteral("2.10.0"));
    QCOMPARE(QString::fromStdString(spec.pnamePrefix), QStringLiteral("pytorch210-"));
}

void TestMatrixSpec::seed001StartHasTheSameSpec()
{
    QVERIFY(loadFixture("seed001-start") == loadFixture("seed001-target"));
}

void TestMatrixSpec::seed000Expects66()
{
    const MatrixSpec spec = loadFixture("seed000");
    const auto expected = spec.expectedVariants();
    QCOMPARE(expected.size(), std::size_t(66));
    QVERIFY(names(expected).count("pytorch-python313-darwin-mps"));
    QVERIFY(names(expected).count("pytorch-python313-cuda12_9-sm90-avx512"));
    for (const auto& v : expected) {
        QCOMPARE(QString::fromStdString(spec.expectedPin(v).value_or("")), QString(pin01));
        // The seed 000 branch is CUDA 12.9: every expected pairing must be able to run.
        const Catalog& c = Catalog::builtin();
        const CpuIsa* isa = c.isa(v.isa);
        QVERIFY(isa);
        std::string why;
        QVERIFY2(c.canRun(v.gpuArch.empty() ? nullptr : c.gpuArch(v.gpuArch), *isa, v.cuda, &why),
                 why.c_str());
    }
}

void TestMatrixSpec::expects()
{
    const MatrixSpec spec = loadFixture("seed001-target");
    QVERIFY(spec.expects(name("pytorch-python313-cuda13_0-sm120-avx512")));
    QVERIFY(spec.expects(name("pytorch-python313-cuda13_0-sm110-avx2"))); // seed 001 lists it
    QVERIFY(spec.expects(name("pytorch-python313-cuda13_0-sm121-armv8_2")));
    QVERIFY(spec.expects(name("pytorch-python313-cpu-avx512bf16")));
    QVERIFY(!spec.expects(name("pytorch-python313-cuda13_0-sm120-avx512-magma")));
    QVERIFY(!spec.expects(name("pytorch-python313-cuda13_0-sm121-armv9-nightly")));
    QVERIFY(!spec.expects(name("pytorch-python313-cuda13_0-sm120-avx")));
    QVERIFY(!spec.expects(name("pytorch-python313-cuda13_0-sm90-armv9"))); // ARM only on SoCs
    QVERIFY(!spec.expects(name("pytorch-python313-cuda12_9-sm120-avx512")));
    QVERIFY(!spec.expects(name("pytorch-python312-cuda13_0-sm120-avx512")));
    QVERIFY(!spec.expects(name("pytorch-python313-cpu-armv9")));
    QVERIFY(!spec.expects(name("pytorch-py313-sm120-avx512"))); // no CUDA in the name
    QVERIFY(!spec.expects(name("torchvision-python313-cuda13_0-sm120-avx512"))); // other package
    QVERIFY(!spec.expects(name("pytorch-python313-darwin-mps")));
    // The armv8.2 spelling names the same cell; the naming rule, not the spec, objects to it.
    QVERIFY(spec.expects(name("pytorch-python313-cuda13_0-sm110-armv8.2")));
}

void TestMatrixSpec::expectedPin()
{
    MatrixSpec spec = loadFixture("seed001-target");
    QCOMPARE(spec.expectedPin(name("pytorch-python313-cuda13_0-sm90-avx2")).value_or(""), pin6a);
    QCOMPARE(spec.expectedPin(name("pytorch-python313-cpu-avx2")).value_or(""), pin6a);
    QVERIFY(!spec.expectedPin(name("pytorch-python313-cuda12_9-sm90-avx2")));
    QVERIFY(!spec.expectedPin(name("pytorch-python313-darwin-mps")));
    QVERIFY(!spec.expectedPin(name("pytorch-py313-sm90-avx512")));
    spec.pins["default"] = pin01;
    spec.pins["cpu"] = std::string(40, 'c');
    QCOMPARE(spec.expectedPin(name("pytorch-python313-cuda12_9-sm90-avx2")).value_or(""), pin01);
    QCOMPARE(spec.expectedPin(name("pytorch-python313-darwin-mps")).value_or(""), pin01);
    QCOMPARE(spec.expectedPin(name("pytorch-py313-sm90-avx512")).value_or(""), pin01);
    QCOMPARE(spec.expectedPin(name("pytorch-python313-cpu-avx2")).value_or(""),
             std::string(40, 'c'));
    QCOMPARE(spec.expectedPin(name("pytorch-python313-cuda13_0-sm90-avx2")).value_or(""), pin6a);
}

void TestMatrixSpec::patternFor()
{
    const MatrixSpec spec = loadFixture("seed001-target");
    const RecipePattern* gpu = spec.patternFor(name("pytorch-python313-cuda13_0-sm90-avx2"));
    QVERIFY(gpu);
    QCOMPARE(gpu->kind, PatternKind::PinnedOverlays);
    QVERIFY(gpu->overlays ==
            std::vector<OverlayKind>(
                {OverlayKind::CudaPackageSet, OverlayKind::MagmaPatch, OverlayKind::TorchUpgrade}));
    QCOMPARE(QString::fromStdString(gpu->canonicalRecipe),
             QStringLiteral("pytorch-python313-cuda13_0-sm120-avx512.nix"));
    const RecipePattern* cpu = spec.patternFor(name("pytorch-python313-cpu-avx2"));
    QVERIFY(cpu);
    QVERIFY(cpu->overlays == std::vector<OverlayKind>({OverlayKind::TorchUpgrade}));
    QVERIFY(!spec.patternFor(name("pytorch-python313-darwin-mps")));
}

void TestMatrixSpec::expectedPname()
{
    MatrixSpec spec = loadFixture("seed001-target");
    QCOMPARE(spec.expectedPname(name("pytorch-python313-cuda13_0-sm120-avx512")),
             std::string("pytorch210-python313-cuda13_0-sm120-avx512"));
    QCOMPARE(spec.expectedPname(name("pytorch-python313-cpu-avx2")),
             std::string("pytorch210-python313-cpu-avx2"));
    QCOMPARE(spec.expectedPname(name("pytorch-py313-cpu-avx2")),
             std::string("pytorch210-python313-cpu-avx2"));
    spec.pnamePrefix.clear();
    QCOMPARE(spec.expectedPname(name("pytorch-python313-cuda13_0-sm120-avx512")),
             std::string("pytorch-python313-cuda13_0-sm120-avx512"));
}

void TestMatrixSpec::excludes()
{
    const std::string text = R"({
  "schema": 1,
  "matrix": [
    { "python": ["3.12", "3.13"], "accelerator": "cuda", "cuda": ["13.0"],
      "gpuArchs": ["sm110", "sm120"], "isas": ["avx2", "armv9"] }
  ],
  "exclude": [ { "gpuArch": "sm110", "isa": "avx2" }, { "python": "3.12", "isa": "armv9" } ]
})";
    SpecError error;
    const auto spec = MatrixSpec::fromJson(text, "spec.json", Catalog::builtin(), &error);
    QVERIFY2(spec, error.toString().c_str());
    const auto expected = names(spec->expectedVariants());
    QCOMPARE(expected, (std::set<std::string>{
                           "pytorch-python312-cuda13_0-sm120-avx2",
                           "pytorch-python313-cuda13_0-sm110-armv9",
                           "pytorch-python313-cuda13_0-sm120-avx2",
                           "pytorch-python313-cuda13_0-sm120-armv9",
                       }));
    QVERIFY(!spec->expects(name("pytorch-python313-cuda13_0-sm110-avx2")));
    QVERIFY(!spec->expects(name("pytorch-python312-cuda13_0-sm120-armv9")));
    QVERIFY(spec->expects(name("pytorch-python312-cuda13_0-sm120-avx2")));
    VariantFilter f;
    f.isa = "armv9";
    QVERIFY(f.matches(name("pytorch-python313-cpu-armv9")));
    QVERIFY(!f.matches(name("pytorch-python313-cpu-avx2")));
}

// Where the spec file asks for a variant, as a message about it should name: its GPU arch in
// the first group covering it, an element per line or several on one.
void TestMatrixSpec::positionAskingFor()
{
    const std::string text = R"({
  "schema": 1,
  "matrix": [
    { "python": ["3.13"], "accelerator": "cuda", "cuda": ["13.0"],
      "gpuArchs": [
        "sm90",
        "sm110"
      ],
      "isas": ["avx2", "armv9"] },
    { "python": ["3.12", "3.13"], "accelerator": "cuda", "cuda": ["13.0"],
      "gpuArchs": ["sm120", "sm110"], "isas": ["avx512"] },
    { "python": ["3.13"], "accelerator": "cpu",
      "isas": ["avx2",
               "avx512"] }
  ],
  "exclude": [ { "gpuArch": "sm90", "isa": "armv9" } ]
})";
    SpecError error;
    const auto spec = MatrixSpec::fromJson(text, "spec.json", Catalog::builtin(), &error);
    QVERIFY2(spec, error.toString().c_str());
    QCOMPARE(spec->positionAskingFor(name("pytorch-python313-cuda13_0-sm90-avx2")),
             std::pair(6, 9));
    QCOMPARE(spec->positionAskingFor(name("pytorch-python313-cuda13_0-sm110-avx2")).first, 7);
    QCOMPARE(spec->positionAskingFor(name("pytorch-python312-cuda13_0-sm120-avx512")),
             std::pair(11, 20));
    QCOMPARE(spec->positionAskingFor(name("pytorch-python313-cuda13_0-sm110-avx512")),
             std::pair(11, 29));
    QCOMPARE(spec->positionAskingFor(name("pytorch-python313-cpu-avx2")).first, 13);
    QCOMPARE(spec->positionAskingFor(name("pytorch-python313-cpu-avx512")).first, 14);
    // Not covered by any group, or not read from text: no line.
    QCOMPARE(spec->positionAskingFor(name("pytorch-python312-cuda13_0-sm90-avx2")).first, 0);
    QCOMPARE(spec->positionAskingFor(name("pytorch-python313-cuda12_9-sm90-avx2")).first, 0);
    SpecError again;
    const auto reread =
        MatrixSpec::fromJson(spec->toJson(), "spec.json", Catalog::builtin(), &again);
    QVERIFY2(reread, again.toString().c_str());
    QVERIFY(reread->positionAskingFor(name("pytorch-python313-cuda13_0-sm110-avx2")).first > 0);
    MatrixSpec built;
    built.groups = spec->groups;
    QCOMPARE(built.positionAskingFor(name("pytorch-python313-cuda13_0-sm110-avx2")).first, 0);
}

void TestMatrixSpec::extraPackages()
{
    const std::string text = R"({
  "schema": 1,
  "package": "pytorch",
  "extraPackages": ["torchvision"],
  "pnamePrefix": "pytorch210-",
  "matrix": [ { "python": ["3.13"], "accelerator": "cpu", "isas": ["avx2", "armv9"] } ]
})";
    SpecError error;
    const auto spec = MatrixSpec::fromJson(text, "spec.json", Catalog::builtin(), &error);
    QVERIFY2(spec, error.toString().c_str());
    QCOMPARE(names(spec->expectedVariants()),
             (std::set<std::string>{"pytorch-python313-cpu-avx2", "pytorch-python313-cpu-armv9",
                                    "torchvision-python313-cpu-avx2",
                                    "torchvision-python313-cpu-armv9"}));
    QVERIFY(spec->expects(name("torchvision-python313-cpu-armv9")));
    QVERIFY(!spec->expects(name("torchaudio-python313-cpu-armv9")));
    QCOMPARE(spec->expectedPname(name("pytorch-python313-cpu-avx2")),
             std::string("pytorch210-python313-cpu-avx2"));
    QCOMPARE(spec->expectedPname(name("torchvision-python313-cpu-avx2")),
             std::string("torchvision-python313-cpu-avx2"));
    const auto again =
        MatrixSpec::fromJson(spec->toJson(), "again.json", Catalog::builtin(), &error);
    QVERIFY2(again, error.toString().c_str());
    QVERIFY(*again == *spec);

    // An exclusion can name a package: torchvision is not built for ARMv9.
    const std::string excluded = R"({
  "schema": 1,
  "package": "pytorch",
  "extraPackages": ["torchvision"],
  "matrix": [ { "python": ["3.13"], "accelerator": "cpu", "isas": ["avx2", "armv9"] } ],
  "exclude": [ { "package": "torchvision", "isa": "armv9" } ]
})";
    const auto withExclude =
        MatrixSpec::fromJson(excluded, "spec.json", Catalog::builtin(), &error);
    QVERIFY2(withExclude, error.toString().c_str());
    QCOMPARE(names(withExclude->expectedVariants()),
             (std::set<std::string>{"pytorch-python313-cpu-avx2", "pytorch-python313-cpu-armv9",
                                    "torchvision-python313-cpu-avx2"}));
    QVERIFY(!withExclude->expects(name("torchvision-python313-cpu-armv9")));
    QVERIFY(withExclude->expects(name("pytorch-python313-cpu-armv9")));
    const auto excludedAgain =
        MatrixSpec::fromJson(withExclude->toJson(), "again.json", Catalog::builtin(), &error);
    QVERIFY2(excludedAgain && *excludedAgain == *withExclude, error.toString().c_str());

    std::string unknownPackage = excluded;
    unknownPackage.replace(unknownPackage.find("\"package\": \"torchvision\", \"isa\""), 25,
                           "\"package\": \"torchaudio\",");
    QVERIFY(!MatrixSpec::fromJson(unknownPackage, "spec.json", Catalog::builtin(), &error));
    QCOMPARE(QString::fromStdString(error.pointer), QStringLiteral("/exclude/0/package"));
    QCOMPARE(QString::fromStdString(error.message),
             QStringLiteral("the spec builds no package \"torchaudio\""));

    const std::string twice = R"({
  "schema": 1,
  "package": "pytorch",
  "extraPackages": ["torchvision", "pytorch"],
  "matrix": []
})";
    QVERIFY(!MatrixSpec::fromJson(twice, "spec.json", Catalog::builtin(), &error));
    QCOMPARE(QString::fromStdString(error.toString()),
             QStringLiteral("spec.json:4:36: /extraPackages/1: \"pytorch\" is listed twice"));
}

void TestMatrixSpec::errors_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QString>("message"); // the message starts with this

    QTest::newRow("syntax") << "{\n  \"schema\": 1,\n  \"matrix\": [}\n}" << 3 << 14 << ""
                            << "invalid JSON: syntax error while parsing value";
    QTest::newRow("unknown top-level key (typo)")
        << "{\n  \"schema\": 1,\n  \"pnameprefix\": \"pytorch210-\",\n  \"matrix\": []\n}" << 3 << 3
        << "/pnameprefix"
        << "unknown key \"pnameprefix\" (expected one of \"$schema\", \"schema\"";
    QTest::newRow("wrong type")
        << "{\n  \"schema\": 1,\n  \"torchVersion\": 2.10,\n  \"matrix\": []\n}" << 3 << 19
        << "/torchVersion"
        << "expected a string, found a number";
    // Keys are located as the parser reads them, \u escapes (and surrogate pairs) decoded.
    QTest::newRow("key written with an escape")
        << "{\n  \"schema\": 1,\n  \"\\u0074orchVersion\": 2.10,\n  \"matrix\": []\n}" << 3 << 24
        << "/torchVersion"
        << "expected a string, found a number";
    QTest::newRow("key repeated with an escape")
        << "{\n  \"schema\": 1,\n  \"matrix\": [],\n  \"\\u006datrix\": []\n}" << 4 << 3
        << "/matrix"
        << "key is given twice";
    QTest::newRow("key of a surrogate pair")
        << "{\n  \"schema\": 1,\n  \"\\ud83d\\ude00\": 1,\n  \"matrix\": []\n}" << 3 << 3
        << QStringLiteral("/\U0001F600") << QStringLiteral("unknown key \"\U0001F600\"");
    QTest::newRow("unknown arch")
        << "{\n  \"schema\": 1,\n  \"matrix\": [\n    { \"python\": [\"3.13\"], \"accelerator\": "
           "\"cuda\", \"cuda\": [\"13.0\"],\n      \"gpuArchs\": [\"sm90\", \"sm95\"], \"isas\": "
           "[\"avx2\"] }\n  ]\n}"
        << 5 << 28 << "/matrix/0/gpuArchs/1"
        << "unknown GPU architecture \"sm95\"";
    QTest::newRow("arch written dotted")
        << "{\n  \"schema\": 1,\n  \"matrix\": [\n    { \"python\": [\"3.13\"], \"accelerator\": "
           "\"cuda\", \"cuda\": [\"13.0\"],\n      \"gpuArchs\": [\"sm90\", \"9.0\"], \"isas\": "
           "[\"avx2\"] }\n  ]\n}"
        << 5 << 28 << "/matrix/0/gpuArchs/1"
        << "unknown GPU architecture \"9.0\" (did you mean \"sm90\"?)";
    QTest::newRow("ISA with a dot")
        << "{\n  \"schema\": 1,\n  \"matrix\": [\n    { \"python\": [\"3.13\"], \"accelerator\": "
           "\"cuda\", \"cuda\": [\"13.0\"],\n      \"gpuArchs\": [\"sm110\"], \"isas\": "
           "[\"armv8.2\"] }\n  ]\n}"
        << 5 << 39 << "/matrix/0/isas/0"
        << "unknown CPU ISA \"armv8.2\" (did you mean \"armv8_2\"?)";
    QTest::newRow("unknown ISA")
        << "{\n  \"schema\": 1,\n  \"matrix\": [\n    { \"python\": [\"3.13\"], \"accelerator\": "
           "\"cuda\", \"cuda\": [\"13.0\"],\n      \"gpuArchs\": [\"sm110\"], \"isas\": "
           "[\"avx10\"] }\n  ]\n}"
        << 5 << 39 << "/matrix/0/isas/0"
        << "unknown CPU ISA \"avx10\"";
    QTest::newRow("short pin")
        << "{\n  \"schema\": 1,\n  \"pins\": { \"13.0\": \"6a030d5\" },\n  "
           "\"matrix\": []\n}"
        << 3 << 21 << "/pins/13.0"
        << "pin \"6a030d5\" is not a full nixpkgs revision (40 lower-case hex digits)";
    QTest::newRow("upper-case pin")
        << "{\n  \"schema\": 1,\n  \"pins\": { \"13.0\": "
           "\"6A030D535719C5190187C4CEC156F335E95E3211\" "
           "},\n  \"matrix\": []\n}"
        << 3 << 21 << "/pins/13.0"
        << "pin \"6A030D535719C5190187C4CEC156F335E95E3211\" is not a full";
    QTest::newRow("unknown pin key") << "{\n  \"schema\": 1,\n  \"pins\": { \"13.9\": "
                                        "\"6a030d535719c5190187c4cec156f335e95e3211\" "
                                        "},\n  \"matrix\": []\n}"
                                     << 3 << 13 << "/pins/13.9"
                                     << "pin key \"13.9\" is neither a dotted CUDA version";
    QTest::newRow("python not dotted") << "{\n  \"schema\": 1,\n  \"matrix\": [ { \"python\": "
                                          "[\"313\"], \"accelerator\": \"cpu\", "
                                          "\"isas\": [\"avx2\"] } ]\n}"
                                       << 3 << 28 << "/matrix/0/python/0"
                                       << "write Python versions dotted: \"3.13\"";
    QTest::newRow("unknown python") << "{\n  \"schema\": 1,\n  \"matrix\": [ { \"python\": "
                                       "[\"3.9\"], \"accelerator\": \"cpu\", "
                                       "\"isas\": [\"avx2\"] } ]\n}"
                                    << 3 << 28 << "/matrix/0/python/0"
                                    << "unknown Python version \"3.9\" (the catalog knows";
    QTest::newRow("unknown cuda")
        << "{\n  \"schema\": 1,\n  \"matrix\": [ { \"python\": [\"3.13\"], \"accelerator\": "
           "\"cuda\", "
           "\"cuda\": [\"11.7\"], \"gpuArchs\": [\"sm90\"], \"isas\": [\"avx2\"] } ]\n}"
        << 3 << 69 << "/matrix/0/cuda/0"
        << "unknown CUDA version \"11.7\"";
    QTest::newRow("cuda group without archs")
        << "{\n  \"schema\": 1,\n  \"matrix\": [ { \"python\": [\"3.13\"], \"accelerator\": "
           "\"cuda\", "
           "\"cuda\": [\"13.0\"], \"isas\": [\"avx2\"] } ]\n}"
        << 3 << 15 << "/matrix/0"
        << "a \"cuda\" group needs \"gpuArchs\"";
    QTest::newRow("cpu group with archs") << "{\n  \"schema\": 1,\n  \"matrix\": [ { \"python\": "
                                             "[\"3.13\"], \"accelerator\": \"cpu\", "
                                             "\"gpuArchs\": [\"sm90\"], \"isas\": [\"avx2\"] } ]\n}"
                                          << 3 << 59 << "/matrix/0/gpuArchs"
                                          << "only \"cuda\" groups have \"gpuArchs\"";
    QTest::newRow("typo in group key") << "{\n  \"schema\": 1,\n  \"matrix\": [ { \"python\": "
                                          "[\"3.13\"], \"accelerator\": \"cpu\", "
                                          "\"isa\": [\"avx2\"] } ]\n}"
                                       << 3 << 59 << "/matrix/0/isa"
                                       << "unknown key \"isa\"";
    QTest::newRow("unknown accelerator") << "{\n  \"schema\": 1,\n  \"matrix\": [ { \"python\": "
                                            "[\"3.13\"], \"accelerator\": \"gpu\", "
                                            "\"isas\": [\"avx2\"] } ]\n}"
                                         << 3 << 52 << "/matrix/0/accelerator"
                                         << "unknown accelerator \"gpu\"";
    QTest::newRow("mps in a cpu group")
        << "{\n  \"schema\": 1,\n  \"matrix\": [ { \"python\": [\"3.13\"], \"accelerator\": "
           "\"cpu\", "
           "\"isas\": [\"avx2\", \"mps\"] } ]\n}"
        << 3 << 76 << "/matrix/0/isas/1"
        << "\"mps\" is an Apple ISA; it belongs in a \"darwin\" group";
    QTest::newRow("listed twice") << "{\n  \"schema\": 1,\n  \"matrix\": [ { \"python\": "
                                     "[\"3.13\"], \"accelerator\": \"cpu\", "
                                     "\"isas\": [\"avx2\", \"avx2\"] } ]\n}"
                                  << 3 << 76 << "/matrix/0/isas/1"
                                  << "\"avx2\" is listed twice";
    QTest::newRow("schema version")
        << "{\n  \"schema\": 2,\n  \"matrix\": []\n}" << 2 << 13 << "/schema"
        << "unsupported schema version 2 (this RecipeGrid reads version 1)";
    QTest::newRow("schema missing") << "{\n  \"matrix\": []\n}" << 1 << 1 << ""
                                    << "missing required key \"schema\"";
    QTest::newRow("matrix missing") << "{\n  \"schema\": 1\n}" << 1 << 1 << ""
                                    << "missing required key \"matrix\"";
    QTest::newRow("not an object") << "[1]" << 1 << 1 << ""
                                   << "expected an object, found an array";
    QTest::newRow("duplicate key")
        << "{\n  \"schema\": 1,\n  \"torchVersion\": \"2.10.0\",\n  \"matrix\": [],\n  "
           "\"torchVersion\": \"2.9.1\"\n}"
        << 5 << 3 << "/torchVersion"
        << "key is given twice";
    QTest::newRow("unknown pattern kind")
        << "{\n  \"schema\": 1,\n  \"matrix\": [],\n  \"patterns\": { \"cuda\": { \"kind\": "
           "\"overlays\" } }\n}"
        << 4 << 35 << "/patterns/cuda/kind"
        << "unknown pattern kind \"overlays\"";
    QTest::newRow("unknown overlay")
        << "{\n  \"schema\": 1,\n  \"matrix\": [],\n  \"patterns\": { \"cuda\": { \"kind\": "
           "\"pinned-overlays\", \"overlays\": [\"magma\"] } }\n}"
        << 4 << 67 << "/patterns/cuda/overlays/0"
        << "unknown overlay \"magma\"";
    QTest::newRow("unknown pattern accelerator")
        << "{\n  \"schema\": 1,\n  \"matrix\": [],\n  \"patterns\": { \"gpu\": { \"kind\": "
           "\"pinned-plain\" } }\n}"
        << 4 << 17 << "/patterns/gpu"
        << "unknown key \"gpu\"";
    QTest::newRow("columns count characters")
        << "{\n  \"schema\": 1, \"pnamePrefix\": \"\xc3\xbc\", \"matrix\": 5\n}" << 2 << 46
        << "/matrix"
        << "expected an array of groups, found an integer";
    QTest::newRow("cuda spelled as in file names")
        << "{\n  \"schema\": 1,\n  \"matrix\": [ { \"python\": [\"3.13\"], \"accelerator\": "
           "\"cuda\", "
           "\"cuda\": [\"13_0\"], \"gpuArchs\": [\"sm90\"], \"isas\": [\"avx2\"] } ]\n}"
        << 3 << 69 << "/matrix/0/cuda/0"
        << "write CUDA versions dotted: \"13.0\"";
    QTest::newRow("x86 ISA in a darwin group")
        << "{\n  \"schema\": 1,\n  \"matrix\": [ { \"python\": [\"3.13\"], \"accelerator\": "
           "\"darwin\", \"isas\": [\"avx2\"] } ]\n}"
        << 3 << 71 << "/matrix/0/isas/0"
        << "\"avx2\" is not an Apple ISA; a \"darwin\" group lists \"mps\"";
    QTest::newRow("group without python")
        << "{\n  \"schema\": 1,\n  \"matrix\": [ { \"accelerator\": \"cpu\", \"isas\": "
           "[\"avx2\"] } ]\n}"
        << 3 << 15 << "/matrix/0"
        << "missing required key \"python\"";
    QTest::newRow("empty python list")
        << "{\n  \"schema\": 1,\n  \"matrix\": [ { \"python\": [], \"accelerator\": \"cpu\", "
           "\"isas\": [\"avx2\"] } ]\n}"
        << 3 << 27 << "/matrix/0/python"
        << "must list at least one value";
    QTest::newRow("python as a string")
        << "{\n  \"schema\": 1,\n  \"matrix\": [ { \"python\": \"3.13\", \"accelerator\": "
           "\"cpu\", \"isas\": [\"avx2\"] } ]\n}"
        << 3 << 27 << "/matrix/0/python"
        << "expected an array of strings, found a string";
    QTest::newRow("pattern without kind")
        << "{\n  \"schema\": 1,\n  \"matrix\": [],\n  \"patterns\": { \"cuda\": { \"overlays\": "
           "[] } }\n}"
        << 4 << 25 << "/patterns/cuda"
        << "missing required key \"kind\"";
    QTest::newRow("overlays not a list")
        << "{\n  \"schema\": 1,\n  \"matrix\": [],\n  \"patterns\": { \"cuda\": { \"kind\": "
           "\"pinned-overlays\", \"overlays\": \"magma-patch\" } }\n}"
        << 4 << 66 << "/patterns/cuda/overlays"
        << "expected an array of strings, found a string";
    QTest::newRow("schema as a string")
        << "{\n  \"schema\": \"1\",\n  \"matrix\": []\n}" << 2 << 13 << "/schema"
        << "expected the integer 1, found a string";
    QTest::newRow("extra packages not a list")
        << "{\n  \"schema\": 1,\n  \"matrix\": [],\n  \"extraPackages\": \"vllm\"\n}" << 4 << 20
        << "/extraPackages"
        << "expected an array of strings, found a string";
    QTest::newRow("exclude not a list")
        << "{\n  \"schema\": 1,\n  \"matrix\": [],\n  \"exclude\": {}\n}" << 4 << 14 << "/exclude"
        << "expected an array, found an object";
    QTest::newRow("recipe dir escapes")
        << "{\n  \"schema\": 1,\n  \"recipeDir\": \"../elsewhere\",\n  \"matrix\": []\n}" << 3 << 16
        << "/recipeDir"
        << "must be a directory inside the repository";
}

void TestMatrixSpec::errors()
{
    QFETCH(QString, json);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, pointer);
    QFETCH(QString, message);

    SpecError error;
    const QByteArray bytes = json.toUtf8();
    const auto spec =
        MatrixSpec::fromJson(std::string_view(bytes.constData(), bytes.size()),
                             "repo/.flox/recipegrid.json", Catalog::builtin(), &error);
    QVERIFY(!spec);
    QCOMPARE(QString::fromStdString(error.file), QStringLiteral("repo/.flox/recipegrid.json"));
    const QString actual = QString::fromStdString(error.message);
    QVERIFY2(actual.startsWith(message), qPrintable(actual));
    QCOMPARE(QString::fromStdString(error.pointer), pointer);
    QCOMPARE(error.line, line);
    QCOMPARE(error.column, column);
}

// The real specs (fixtures and the demo) with every key written in \u escapes: sound, they load
// as the same spec; with a defect injected (a typo'd key, a repeated key, a value of the wrong
// type), the escaped form is refused with the same message, pointer and line as the plain one.
void TestMatrixSpec::keysInEitherNotation_data()
{
    QTest::addColumn<QString>("file");
    int found = 0;
    for (const char* const place : {"/tests/fixtures", "/resources/demo"}) {
        QDirIterator it(QStringLiteral(RG_SOURCE_DIR) + QLatin1String(place),
                        {QStringLiteral("recipegrid.json")}, QDir::Files | QDir::Hidden,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString file = it.next();
            QTest::newRow(qPrintable(QDir(QStringLiteral(RG_SOURCE_DIR)).relativeFilePath(file)))
                << file;
            ++found;
        }
    }
    QVERIFY(found >= 6);
}

void TestMatrixSpec::keysInEitherNotation()
{
    QFETCH(QString, file);
    QFile in(file);
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QByteArray plain = in.readAll();
    const QByteArray escaped = withEscapedKeys(plain);
    QVERIFY(escaped.contains("\\u0073\\u0063\\u0068\\u0065\\u006d\\u0061")); // "schema"
    SpecError error;
    const auto sound = parse(plain, &error);
    QVERIFY2(sound, error.toString().c_str());
    const auto same = parse(escaped, &error);
    QVERIFY2(same, error.toString().c_str());
    QVERIFY(*same == *sound);

    // Each defect goes in right after the opening brace, on a line of its own.
    const QByteArray defects[] = {"\n  \"torchversion\": \"2.10.0\",", "\n  \"schema\": 1,",
                                  "\n  \"pnamePrefix\": 210,"};
    for (const QByteArray& defect : defects) {
        QByteArray broken = plain;
        broken.insert(broken.indexOf('{') + 1, defect);
        SpecError plainError;
        SpecError escapedError;
        QVERIFY2(!parse(broken, &plainError), defect.constData());
        QVERIFY2(!parse(withEscapedKeys(broken), &escapedError), defect.constData());
        QCOMPARE(escapedError.message, plainError.message);
        QCOMPARE(escapedError.pointer, plainError.pointer);
        QCOMPARE(escapedError.line, plainError.line);
        QVERIFY2(plainError.line >= 2, plainError.toString().c_str());
    }
}

void TestMatrixSpec::endOfInputError()
{
    const std::string text = "{\n  \"schema\": 1,\n  \"matrix\": [";
    SpecError error;
    QVERIFY(!MatrixSpec::fromJson(text, "s.json", Catalog::builtin(), &error));
    QCOMPARE(error.line, 3);
    QVERIFY2(error.column >= 13, error.toString().c_str()); // at or after the '['
    QVERIFY(QString::fromStdString(error.message).contains("end of input"));
}

void TestMatrixSpec::damagedInputNeverCrashes()
{
    QFile file(QStringLiteral(RG_FIXTURES_DIR "/seed001-target/.flox/recipegrid.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const std::string good = file.readAll().toStdString();
    const auto check = [](const std::string& text) {
        SpecError error;
        const auto spec = MatrixSpec::fromJson(text, "spec.json", Catalog::builtin(), &error);
        if (spec)
            return true;
        // Every failure names a place in the file, inside the file.
        const int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
        return !error.message.empty() && error.line >= 1 && error.line <= lines &&
               error.column >= 1;
    };
    // `check` holds for accepted and rejected texts alike; count the rejections, which a
    // truncated spec must nearly always be.
    int rejected = 0;
    for (std::size_t cut = 0; cut < good.size(); cut += 7) {
        const std::string truncated = good.substr(0, cut);
        QVERIFY2(check(truncated), truncated.c_str());
        SpecError error;
        rejected +=
            MatrixSpec::fromJson(truncated, "spec.json", Catalog::builtin(), &error) ? 0 : 1;
    }
    std::mt19937 random(2026);
    for (int i = 0; i < 2000; ++i) {
        std::string damaged = good;
        const std::size_t at = random() % damaged.size();
        damaged[at] = static_cast<char>("{}[]\",:0a\\ \n\xc3"[random() % 13]);
        QVERIFY2(check(damaged), damaged.c_str());
    }
    QVERIFY(rejected > 100);

    // Absurd nesting is refused with a position, not a stack overflow.
    const std::string deep = std::string(200000, '[') + std::string(200000, ']');
    SpecError error;
    QVERIFY(!MatrixSpec::fromJson(deep, "deep.json", Catalog::builtin(), &error));
    QCOMPARE(error.line, 1);
    QCOMPARE(error.column, 65);
    QCOMPARE(QString::fromStdString(error.message),
             QStringLiteral("nested more than 64 levels deep"));
}

void TestMatrixSpec::errorToString()
{
    SpecError e{"repo/.flox/recipegrid.json", 3, 21, "/pins/13.0", "pin \"x\" is bad"};
    QCOMPARE(QString::fromStdString(e.toString()),
             QStringLiteral("repo/.flox/recipegrid.json:3:21: /pins/13.0: pin \"x\" is bad"));
    e.pointer.clear();
    QCOMPARE(QString::fromStdString(e.toString()),
             QStringLiteral("repo/.flox/recipegrid.json:3:21: pin \"x\" is bad"));
    e.line = 0;
    QCOMPARE(QString::fromStdString(e.toString()),
             QStringLiteral("repo/.flox/recipegrid.json: pin \"x\" is bad"));
}

void TestMatrixSpec::loadMissingFile()
{
    QTemporaryDir dir;
    const std::filesystem::path file = dir.filePath("absent.json").toStdString();
    SpecError error;
    QVERIFY(!MatrixSpec::load(file, Catalog::builtin(), &error));
    QCOMPARE(QString::fromStdString(error.file), QString::fromStdString(file.string()));
    QCOMPARE(error.line, 0);
    QVERIFY(QString::fromStdString(error.message).startsWith("cannot read: "));

    // A file that exists but is malformed reports its own path with a position.
    const std::filesystem::path bad = dir.filePath("bad.json").toStdString();
    std::ofstream(bad) << "{\n  \"schema\": 1,\n  \"matrix\": \"all\"\n}\n";
    QVERIFY(!MatrixSpec::load(bad, Catalog::builtin(), &error));
    QCOMPARE(QString::fromStdString(error.toString()),
             QString::fromStdString(bad.string()) +
                 ":3:13: /matrix: expected an array of groups, found a string");
}

void TestMatrixSpec::roundTrip_data()
{
    QTest::addColumn<QString>("repo");
    QTest::newRow("seed001") << "seed001-target";
    QTest::newRow("seed000") << "seed000";
}

void TestMatrixSpec::roundTrip()
{
    QFETCH(QString, repo);
    MatrixSpec spec = loadFixture(repo.toUtf8().constData());
    VariantFilter soc;
    soc.accelerator = Accelerator::Cuda;
    soc.cuda = "13.0";
    soc.gpuArch = "sm110";
    soc.isa = "avx2";
    spec.excludes.push_back(soc);
    VariantFilter arm;
    arm.python = "3.13";
    arm.isa = "armv9";
    arm.package = spec.package;
    spec.excludes.push_back(arm);
    const std::string text = spec.toJson();
    SpecError error;
    const auto again = MatrixSpec::fromJson(text, "roundtrip.json", Catalog::builtin(), &error);
    QVERIFY2(again, (error.toString() + "\n" + text).c_str());
    QVERIFY(*again == spec);
    QCOMPARE(again->toJson(), text);
    QVERIFY(names(again->expectedVariants()) == names(spec.expectedVariants()));
    // Changing anything makes the specs differ, so the comparison above means something.
    MatrixSpec changed = *again;
    changed.pins.begin()->second = std::string(40, '0');
    QVERIFY(!(changed == spec));
}

void TestMatrixSpec::inferFromSamples()
{
    const std::string a(40, 'a'), b(40, 'b'), c(40, 'c'), d(40, 'd'), e(40, 'e');
    std::vector<InferenceSample> samples{
        {name("pytorch-python313-cuda13_0-sm120-avx512"),
         a,
         "2.10.0",
         "pytorch210-python313-cuda13_0-sm120-avx512",
         "",
         {}},
        {name("pytorch-python313-cuda13_0-sm120-avx2"),
         a,
         "2.10.0",
         "pytorch210-python313-cuda13_0-sm120-avx2",
         "",
         {}},
        {name("pytorch-python313-cuda13_0-sm90-avx512"),
         b,
         "2.9.0",
         "pytorch-python313-cuda13_0-sm90-avx512",
         "",
         {}},
        {name("pytorch-python313-cuda13_0-sm110-armv9"), a, "", "", "", {}},
        {name("pytorch-python313-cuda12_9-sm90-avx512"), c, "", "", "", {}},
        {name("pytorch-python312-cuda12_9-sm90-avx512"), c, "", "", "", {}},
        {name("pytorch-python313-cuda12_9-sm90-avx2"), b, "", "", "", {}},
        {name("pytorch-python313-cpu-avx2"), d, "2.10.0", "pytorch210-python313-cpu-avx2", "", {}},
        // Suffixed recipes outnumber the rest on their pin and torch version, yet do not count.
        {name("pytorch-python313-cuda13_0-sm103-avx512-magma"), e, "2.9.0", "", "", {}},
        {name("pytorch-python313-cuda13_0-sm103-avx2-magma"), e, "2.9.0", "", "", {}},
        {name("pytorch-python313-cuda13_0-sm103-avx512bf16-magma"), e, "2.9.0", "", "", {}},
        // A legacy name says nothing about CUDA; it only gives the default pin.
        {name("pytorch-py313-sm86-avx2"), c, "", "", "", {}},
    };
    const MatrixSpec spec = MatrixSpec::infer(samples, Catalog::builtin());
    QVERIFY(spec.isInferred());
    QCOMPARE(QString::fromStdString(spec.package), QStringLiteral("pytorch"));
    QVERIFY(spec.pins == (std::map<std::string, std::string>{
                             {"13.0", a}, {"12.9", c}, {"cpu", d}, {"default", c}}));
    QCOMPARE(QString::fromStdString(spec.torchVersion), QStringLiteral("2.10.0"));
    QCOMPARE(QString::fromStdString(spec.pnamePrefix), QStringLiteral("pytorch210-"));

    const auto expected = names(spec.expectedVariants());
    QCOMPARE(expected, (std::set<std::string>{
                           // x86 CUDA 13.0: what the recipes populate; the hole sm90-avx2 is
                           // not invented (the analysis reports it as a gap, never missing)
                           "pytorch-python313-cuda13_0-sm120-avx2",
                           "pytorch-python313-cuda13_0-sm120-avx512",
                           "pytorch-python313-cuda13_0-sm90-avx512",
                           // ARM is not crossed with the x86 archs
                           "pytorch-python313-cuda13_0-sm110-armv9",
                           // CUDA 12.9 per Python
                           "pytorch-python312-cuda12_9-sm90-avx512",
                           "pytorch-python313-cuda12_9-sm90-avx2",
                           "pytorch-python313-cuda12_9-sm90-avx512",
                           "pytorch-python313-cpu-avx2",
                       }));
    QVERIFY(!spec.expects(name("pytorch-python313-cuda13_0-sm103-avx512")));
    for (const auto& s : samples) {
        const bool legacy = s.name.accelerator == Accelerator::Cuda && s.name.cuda.empty();
        if (s.name.suffixes.empty() && !legacy)
            QVERIFY2(spec.expects(s.name), s.name.toString().c_str());
    }

    // The inferred spec is a valid spec: it survives its own JSON.
    SpecError error;
    const auto again =
        MatrixSpec::fromJson(spec.toJson(), "inferred.json", Catalog::builtin(), &error);
    QVERIFY2(again, error.toString().c_str());
    QVERIFY(*again == spec);
    QVERIFY(!again->isInferred());

    // The result does not depend on the order the samples arrive in.
    std::reverse(samples.begin(), samples.end());
    QVERIFY(MatrixSpec::infer(samples, Catalog::builtin()) == spec);
}

void TestMatrixSpec::inferPatterns()
{
    const std::string good(40, 'a'), old(40, 'f');
    const RecipePattern overlays{
        PatternKind::PinnedOverlays,
        {OverlayKind::CudaPackageSet, OverlayKind::MagmaPatch, OverlayKind::TorchUpgrade},
        ""};
    const RecipePattern plain{PatternKind::PinnedPlain, {}, ""};
    std::vector<InferenceSample> samples{
        {name("pytorch-python313-cuda13_0-sm90-avx512"), good, "", "",
         "pytorch-python313-cuda13_0-sm90-avx512.nix", overlays},
        {name("pytorch-python313-cuda13_0-sm120-avx512"), good, "", "",
         "pytorch-python313-cuda13_0-sm120-avx512.nix", overlays},
        {name("pytorch-python313-cuda13_0-sm80-avx512"), old, "", "",
         "pytorch-python313-cuda13_0-sm80-avx512.nix", overlays},
        {name("pytorch-python313-cuda13_0-sm86-avx512"), good, "", "",
         "pytorch-python313-cuda13_0-sm86-avx512.nix", plain},
        {name("pytorch-python313-cpu-avx2"), good, "", "", "pytorch-python313-cpu-avx2.nix", plain},
    };
    const MatrixSpec spec = MatrixSpec::infer(samples, Catalog::builtin());
    const RecipePattern* cuda = spec.patternFor(samples[0].name);
    QVERIFY(cuda);
    QCOMPARE(cuda->kind, PatternKind::PinnedOverlays);
    QVERIFY(cuda->overlays == overlays.overlays);
    // sm80 has the pattern but sits on a stale pin: the canonical recipe is one on the pin.
    QCOMPARE(QString::fromStdString(cuda->canonicalRecipe),
             QStringLiteral("pytorch-python313-cuda13_0-sm120-avx512.nix"));
    const RecipePattern* cpu = spec.patternFor(samples[4].name);
    QVERIFY(cpu);
    QCOMPARE(cpu->kind, PatternKind::PinnedPlain);
    QVERIFY(!spec.patternFor(name("pytorch-python313-darwin-mps")));
}

void TestMatrixSpec::inferEmpty()
{
    const MatrixSpec spec = MatrixSpec::infer({}, Catalog::builtin());
    QVERIFY(spec.isInferred());
    QVERIFY(spec.expectedVariants().empty());
    QVERIFY(spec.pins.empty());
    SpecError error;
    QVERIFY2(MatrixSpec::fromJson(spec.toJson(), "empty.json", Catalog::builtin(), &error),
             error.toString().c_str());
}

void TestMatrixSpec::inferSeedFixtures_data()
{
    QTest::addColumn<QString>("repo");
    QTest::newRow("seed001-target") << "seed001-target";
    QTest::newRow("seed000") << "seed000";
}

void TestMatrixSpec::inferSeedFixtures()
{
    // Samples as a scanner would report them (pin, torch version and pname read with plain
    // patterns here); without its spec file a complete repository infers its own spec back.
    QFETCH(QString, repo);
    const QDir dir(QStringLiteral(RG_FIXTURES_DIR "/") + repo + "/.flox/pkgs");
    const QRegularExpression pinRe(QStringLiteral("archive/([0-9a-f]{40})\\.tar\\.gz"));
    const QRegularExpression torchRe(QStringLiteral("version = \"([0-9.]+)\";"));
    const QRegularExpression pnameRe(QStringLiteral("pname = \"([^\"]+)\";"));
    std::vector<InferenceSample> samples;
    std::set<std::string> files;
    for (const QString& f : dir.entryList({"*.nix"}, QDir::Files)) {
        QFile file(dir.filePath(f));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        InferenceSample sample;
        sample.name = name(f.toUtf8().constData());
        sample.pin = pinRe.match(text).captured(1).toStdString();
        sample.torchVersion = torchRe.match(text).captured(1).toStdString();
        sample.pname = pnameRe.match(text).captured(1).toStdString();
        sample.fileName = f.toStdString();
        samples.push_back(sample);
        files.insert(f.chopped(4).toStdString());
    }
    const MatrixSpec inferred = MatrixSpec::infer(samples, Catalog::builtin());
    QVERIFY(names(inferred.expectedVariants()) == files);
    const MatrixSpec written = loadFixture(repo.toUtf8().constData());
    QCOMPARE(inferred.torchVersion, written.torchVersion);
    QCOMPARE(inferred.pnamePrefix, written.pnamePrefix);
    QCOMPARE(inferred.package, written.package);
    // Seed 000's spec already wants the new pin; its files are all on the old one.
    for (const auto& [key, pin] : inferred.pins)
        QCOMPARE(pin, repo == "seed000" ? std::string("6a030d535719c5190187c4cec156f335e95e3211")
                                        : written.pins.at(key));
}

namespace {

// A spec that only validates once its "catalog" declares sm130, CUDA 14.0, Python 3.15 and
// the avx10 ISA; `catalog` is spliced in as the value of that key (or left out when empty).
std::string specUsingNewAxes(const std::string& catalog)
{
    std::string text = "{\n  \"schema\": 1,\n";
    if (!catalog.empty())
        text += "  \"catalog\": " + catalog + ",\n";
    text += "  \"pins\": { \"14.0\": \"" + std::string(40, 'a') +
            "\" },\n"
            "  \"matrix\": [ { \"python\": [\"3.15\"], \"accelerator\": \"cuda\", "
            "\"cuda\": [\"14.0\"], \"gpuArchs\": [\"sm130\", \"sm90\"], \"isas\": "
            "[\"avx10\", \"avx2\"] } ],\n"
            "  \"exclude\": [ { \"gpuArch\": \"sm130\", \"isa\": \"avx2\" } ]\n}\n";
    return text;
}

const char* const newAxes =
    R"({ "gpuArchs": [ { "id": "sm130", "number": "130", "dotted": "13.0", "generation": "Rubin",)"
    R"( "description": "NVIDIA Rubin", "minCuda": "14.0" },)"
    R"( { "id": "sm90", "number": "90", "dotted": "9.0", "generation": "Hopper",)"
    R"( "description": "Grace Hopper only", "armSoc": true } ],)"
    R"( "cudas": [ { "id": "14_0", "dotted": "14.0", "packageSets": ["cudaPackages_14_0"] } ],)"
    R"( "pythons": [ { "id": "315", "dotted": "3.15", "packageSet": "python315Packages" } ],)"
    R"( "isas": [ { "id": "avx10", "description": "AVX10.1", "family": "x86",)"
    R"( "platform": "x86_64-linux", "flags": ["-mavx10.1-512"], "requires": ["avx512f"] } ],)"
    R"( "packages": [ { "id": "rubinlib", "minArch": "13.0" } ] })";

} // namespace

void TestMatrixSpec::catalogExtension()
{
    const Catalog& builtin = Catalog::builtin();
    SpecError error;
    // Without the declarations the same matrix names axes the built-in catalog lacks.
    QVERIFY(!MatrixSpec::fromJson(specUsingNewAxes(""), "spec.json", builtin, &error));
    QCOMPARE(QString::fromStdString(error.pointer), QStringLiteral("/pins/14.0"));

    const std::string text = specUsingNewAxes(newAxes);
    const auto spec = MatrixSpec::fromJson(text, "spec.json", builtin, &error);
    QVERIFY2(spec, error.toString().c_str());
    QVERIFY(spec->catalogExtension);
    QCOMPARE(spec->catalogExtension->gpuArchs().size(), std::size_t(2));
    QVERIFY(!spec->catalogExtension->gpuArch("sm80")); // only what the spec wrote
    QVERIFY(spec->expects(name("pytorch-python315-cuda14_0-sm130-avx10")));
    QVERIFY(!spec->expects(name("pytorch-python315-cuda14_0-sm130-avx2")));
    QCOMPARE(spec->expectedVariants().size(), std::size_t(3));

    const Catalog effective = spec->effectiveCatalog(builtin);
    QVERIFY(effective.gpuArch("sm130") && effective.gpuArch("sm130")->known);
    QVERIFY(effective.gpuArch("sm80"));         // the built-in entries are still there
    QVERIFY(effective.gpuArch("sm90")->armSoc); // a same-id entry replaces the built-in one
    QVERIFY(!builtin.gpuArch("sm90")->armSoc);
    QCOMPARE(QString::fromStdString(effective.cudaByPackageSet("cudaPackages_14_0")->dotted),
             QStringLiteral("14.0"));
    QVERIFY(effective.package("rubinlib"));
    QVERIFY(!effective.packageSupports(*effective.package("rubinlib"), *effective.gpuArch("sm90"),
                                       nullptr));

    // A spec without the key has no extension and its effective catalog is the built-in one.
    const MatrixSpec plain = loadFixture("seed001-target");
    QVERIFY(!plain.catalogExtension);
    QVERIFY(plain.effectiveCatalog(builtin) == builtin);
    QVERIFY(!QString::fromStdString(plain.toJson()).contains("\"catalog\""));

    // Round trip, and the extension takes part in equality.
    const std::string written = spec->toJson();
    const auto again = MatrixSpec::fromJson(written, "again.json", builtin, &error);
    QVERIFY2(again, (error.toString() + "\n" + written).c_str());
    QVERIFY(*again == *spec);
    QCOMPARE(again->toJson(), written);
    MatrixSpec changed = *again;
    changed.catalogExtension = changed.catalogExtension->extendedWith(*Catalog::fragmentFromJson(
        R"({"pythons":[{"id":"316","dotted":"3.16","packageSet":"python316Packages"}]})", nullptr,
        nullptr));
    QVERIFY(!(changed == *spec));

    // The schema accepts the spec and what toJson writes of it.
    QTemporaryDir dir;
    for (const std::string& json : {text, written}) {
        const QString file = dir.filePath("spec.json");
        std::ofstream(file.toStdString()) << json;
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral("python3"),
                {QStringLiteral(RG_SOURCE_DIR "/tests/tools/validate_spec.py"), file});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                 p.readAll().constData());
    }
    // …and refuses a malformed extension, as the parser does.
    const QString bad = dir.filePath("bad.json");
    std::ofstream(bad.toStdString())
        << specUsingNewAxes(R"({"gpuArchs":[{"id":"sm130","number":"130"}]})");
    QVERIFY(!MatrixSpec::load(bad.toStdString(), builtin, &error));
    QProcess p;
    p.start(QStringLiteral("python3"),
            {QStringLiteral(RG_SOURCE_DIR "/tests/tools/validate_spec.py"), bad});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 1);
}

void TestMatrixSpec::catalogExtensionErrors_data()
{
    QTest::addColumn<QString>("catalog");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QString>("message");
    // Line 3 is "  \"catalog\": " + the value, so its value starts at column 14.
    QTest::newRow("not an object") << "[]" << 3 << 14 << "/catalog"
                                   << "expected an object, found an array";
    QTest::newRow("unknown section") << R"({ "archs": [] })" << 3 << 16 << "/catalog/archs"
                                     << "unknown key";
    QTest::newRow("bad entry")
        << R"({ "gpuArchs": [ { "id": "sm13", "number": "130", "dotted": "13.0", "generation": "R", "description": "R" } ] })"
        << 3 << 38 << "/catalog/gpuArchs/0/id"
        << "must be \"sm\" followed by the number";
    QTest::newRow("declares too little")
        << R"({ "gpuArchs": [ { "id": "sm130", "number": "130", "dotted": "13.0", "generation": "R", "description": "R" } ] })"
        << 4 << 13 << "/pins/14.0"
        << "pin key \"14.0\" is neither";
}

void TestMatrixSpec::catalogExtensionErrors()
{
    QFETCH(QString, catalog);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, pointer);
    QFETCH(QString, message);
    SpecError error;
    QVERIFY(!MatrixSpec::fromJson(specUsingNewAxes(catalog.toStdString()), "spec.json",
                                  Catalog::builtin(), &error));
    QCOMPARE(QString::fromStdString(error.pointer), pointer);
    QVERIFY2(QString::fromStdString(error.message).startsWith(message), error.message.c_str());
    QCOMPARE(error.line, line);
    QCOMPARE(error.column, column);
}

QTEST_GUILESS_MAIN(TestMatrixSpec)
#include "tst_matrixspec.moc"
