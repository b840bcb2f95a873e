// The seed fixture repositories are what the analyzer, CLI and GUI tests stand on, so their
// own consistency is tested here: seed 001's verification script, real Nix syntax, and file
// names that agree with each repository's spec.

#include "matrix/matrixspec.h"

#include <QDir>
#include <QDirIterator>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <set>

using namespace rg;

namespace {

QString fixture(const QString& relative)
{
    return QStringLiteral(RG_FIXTURES_DIR "/") + relative;
}

QStringList recipeFiles(const QString& repo)
{
    QDir dir(fixture(repo + "/.flox/pkgs"));
    return dir.entryList({"*.nix"}, QDir::Files, QDir::Name);
}

QString readAll(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

bool writeAll(const QString& path, const QString& text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text.toUtf8()) >= 0;
}

struct Run
{
    int exitCode = -1;
    QString output;
};

Run runVerify(const QString& repo)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral("bash"), {repo + "/verify.sh"});
    p.waitForFinished(60000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAll())};
}

// Copies a fixture repository's recipes and verify.sh, so a test can break them.
bool copyRepo(const QString& repo, const QString& to)
{
    if (!QDir().mkpath(to + "/.flox/pkgs"))
        return false;
    for (const QString& f : recipeFiles(repo))
        if (!QFile::copy(fixture(repo + "/.flox/pkgs/" + f), to + "/.flox/pkgs/" + f))
            return false;
    return QFile::copy(fixture(repo + "/verify.sh"), to + "/verify.sh");
}

std::set<std::string> stems(const QStringList& files)
{
    std::set<std::string> out;
    for (QString f : files)
        out.insert(f.chopped(4).toStdString());
    return out;
}

std::set<std::string> expectedStems(const MatrixSpec& spec)
{
    std::set<std::string> out;
    for (const auto& v : spec.expectedVariants())
        out.insert(v.toString());
    return out;
}

MatrixSpec specOf(const QString& repo)
{
    SpecError error;
    auto spec = MatrixSpec::load((fixture(repo) + "/.flox/recipegrid.json").toStdString(),
                                 Catalog::builtin(), &error);
    if (!spec)
        qFatal("%s", error.toString().c_str());
    return *spec;
}

QString pnameOf(const QString& text)
{
    static const QRegularExpression re(QStringLiteral("pname = \"([^\"]+)\";"));
    return re.match(text).captured(1);
}

} // namespace

class TestSeedFixtures : public QObject
{
    Q_OBJECT

private slots:
    void verifyScriptPassesOnTarget();
    void verifyScriptCatchesBrokenRecipes();
    void everyFixtureRecipeIsValidNix();
    void seed001StartHasTheSixFiles();
    void seed001TargetMatchesItsSpec();
    void seed000MatchesItsSpecOnTheOldPin();
    void fixturesMatchTheirGenerator();
    void syntheticRepositoryMatchesItsSpec_data();
    void syntheticRepositoryMatchesItsSpec();
    void schemaAgreesWithTheParser_data();
    void schemaAgreesWithTheParser();
};

void TestSeedFixtures::verifyScriptPassesOnTarget()
{
    const Run run = runVerify(fixture("seed001-target"));
    QVERIFY2(run.exitCode == 0, qPrintable(run.output));
    QVERIFY(!run.output.contains("BROKEN"));
    QVERIFY(run.output.contains("OK: all seed 001 verification checks pass"));
}

void TestSeedFixtures::verifyScriptCatchesBrokenRecipes()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(copyRepo("seed001-target", dir.path()));
    const QString gpu = dir.path() + "/.flox/pkgs/pytorch-python313-cuda13_0-sm89-avx2.nix";
    const QString cpu = dir.path() + "/.flox/pkgs/pytorch-python313-cpu-avx512.nix";
    QString gpuText = readAll(gpu);
    QVERIFY(gpuText.contains("cuda-13.0-clockrate-fix.patch"));
    gpuText.replace("cuda-13.0-clockrate-fix.patch", "clockrate.patch"); // MAGMA overlay lost
    QVERIFY(writeAll(gpu, gpuText));
    QVERIFY(writeAll(cpu, readAll(cpu) + "# cudaPackages_13\n")); // CUDA leaks into a CPU recipe
    QVERIFY(QFile::copy(dir.path() + "/.flox/pkgs/pytorch-python313-cuda13_0-sm90-avx2.nix",
                        dir.path() + "/.flox/pkgs/pytorch-python313-cuda13_0-sm90-avx2-magma.nix"));

    const Run run = runVerify(dir.path());
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.output.contains("BROKEN: .flox/pkgs/pytorch-python313-cuda13_0-sm89-avx2.nix "
                                 "(expected 3 patterns, found 2)"),
             qPrintable(run.output));
    QVERIFY(run.output.contains("BROKEN: .flox/pkgs/pytorch-python313-cpu-avx512.nix"));
    QVERIFY(run.output.contains("expected 40 GPU recipes, found 41"));
    QVERIFY(run.output.contains("-magma recipes remain"));
    QVERIFY(!run.output.contains("BROKEN: .flox/pkgs/pytorch-python313-cuda13_0-sm90-avx512.nix"));
}

void TestSeedFixtures::everyFixtureRecipeIsValidNix()
{
    QStringList files;
    QDirIterator it(QStringLiteral(RG_FIXTURES_DIR), {"*.nix"}, QDir::Files | QDir::Hidden,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (!path.contains("/seed")) // other suites' fixtures test themselves
            continue;
        files << path;
    }
    QVERIFY(files.size() >= 6 + 44 + 66);
    for (const QString& file : files) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("NIX_CONFIG", "build-users-group =\nsandbox = false\nsubstituters =\n"
                                 "experimental-features = nix-command");
        p.setProcessEnvironment(env);
        p.start(QStringLiteral("nix-instantiate"), {"--parse", file});
        QVERIFY2(p.waitForFinished(60000), qPrintable(file));
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                 qPrintable(file + ": " + QString::fromUtf8(p.readAllStandardError())));
    }
}

void TestSeedFixtures::seed001StartHasTheSixFiles()
{
    QCOMPARE(recipeFiles("seed001-start"),
             QStringList({"pytorch-python313-cuda13_0-sm110-armv8_2.nix",
                          "pytorch-python313-cuda13_0-sm110-armv9.nix",
                          "pytorch-python313-cuda13_0-sm120-avx.nix",
                          "pytorch-python313-cuda13_0-sm120-avx512-magma.nix",
                          "pytorch-python313-cuda13_0-sm120-avx512.nix",
                          "pytorch-python313-cuda13_0-sm121-armv9-nightly.nix"}));
    const QString pkgs = fixture("seed001-start/.flox/pkgs/");
    // Seed 001 calls sm120-avx512 the canonical recipe; the target's copy is byte-identical.
    QCOMPARE(
        readAll(pkgs + "pytorch-python313-cuda13_0-sm120-avx512.nix"),
        readAll(fixture("seed001-target/.flox/pkgs/pytorch-python313-cuda13_0-sm120-avx512.nix")));
    for (const char* broken : {"sm110-armv8_2", "sm110-armv9", "sm120-avx"}) {
        const QString text = readAll(pkgs + "pytorch-python313-cuda13_0-" + broken + ".nix");
        QVERIFY(text.contains("fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"));
        QVERIFY(!text.contains("6a030d535719c5190187c4cec156f335e95e3211"));
        QVERIFY(text.contains("python3Packages.pytorch"));
        QVERIFY(!text.contains("overlays"));
        QVERIFY(!text.contains("cccl"));
    }
    const QString nightly = readAll(pkgs + "pytorch-python313-cuda13_0-sm121-armv9-nightly.nix");
    QVERIFY(nightly.contains("cudaPackages_13"));
    QVERIFY(nightly.contains("magma.override"));
    QVERIFY(!nightly.contains("clockrate"));
    QVERIFY(nightly.contains("version = \"2.9.0\""));
    const QString magma = readAll(pkgs + "pytorch-python313-cuda13_0-sm120-avx512-magma.nix");
    QVERIFY(magma.contains("cuda-13.0-clockrate-fix.patch"));
    QCOMPARE(pnameOf(magma), QStringLiteral("pytorch210-python313-cuda13_0-sm120-avx512-magma"));
}

void TestSeedFixtures::seed001TargetMatchesItsSpec()
{
    const MatrixSpec spec = specOf("seed001-target");
    const QStringList files = recipeFiles("seed001-target");
    QCOMPARE(files.size(), 44);
    QVERIFY(stems(files) == expectedStems(spec));
    const Catalog& catalog = Catalog::builtin();
    for (const QString& f : files) {
        const auto name = VariantName::parse(f.toStdString());
        QVERIFY(name);
        const QString text = readAll(fixture("seed001-target/.flox/pkgs/" + f));
        QCOMPARE(pnameOf(text), QString::fromStdString(spec.expectedPname(*name)));
        QVERIFY2(text.contains(QString::fromStdString(*spec.expectedPin(*name))), qPrintable(f));
        const CpuIsa* isa = catalog.isa(name->isa);
        QVERIFY(
            text.contains("platforms = [ \"" + QString::fromStdString(isa->platform) + "\" ];"));
        if (name->accelerator == Accelerator::Cuda) {
            const GpuArch* arch = catalog.gpuArch(name->gpuArch);
            QVERIFY2(text.contains("gpuArchSM = \"" + QString::fromStdString(arch->dotted) + "\";"),
                     qPrintable(f));
        }
    }
}

void TestSeedFixtures::seed000MatchesItsSpecOnTheOldPin()
{
    const MatrixSpec spec = specOf("seed000");
    const QStringList files = recipeFiles("seed000");
    QCOMPARE(files.size(), 66);
    QVERIFY(stems(files) == expectedStems(spec));
    for (const QString& f : files) {
        const QString text = readAll(fixture("seed000/.flox/pkgs/" + f));
        // Seed 000: every recipe is on 6a030d5 and the spec wants 0182a36 — one pin finding each.
        QCOMPARE(text.count("6a030d535719c5190187c4cec156f335e95e3211"), 1);
        QVERIFY(!text.contains("0182a361324364ae3f436a63005877674cf45efb"));
        QVERIFY2(text.contains("nixpkgs_pinned.python3Packages.torch"), qPrintable(f));
        QCOMPARE(pnameOf(text), f.chopped(4));
    }
    const QString readme = readAll(fixture("seed000/README.md"));
    QVERIFY(readme.contains("6a030d5"));
    QVERIFY(readme.contains("2.9.1"));
}

void TestSeedFixtures::fixturesMatchTheirGenerator()
{
    // The committed fixtures are the generator's output; a hand edit would drift silently.
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral("python3"),
            {QStringLiteral(RG_SOURCE_DIR "/tests/tools/make_fixtures.py"), "--check"});
    QVERIFY(p.waitForFinished(60000));
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, p.readAll().constData());

    // And --check does notice a difference.
    QTemporaryDir dir;
    QProcess q;
    q.setProcessChannelMode(QProcess::MergedChannels);
    q.start(QStringLiteral("python3"),
            {QStringLiteral(RG_SOURCE_DIR "/tests/tools/make_fixtures.py"), "--check", "--out",
             dir.path()});
    QVERIFY(q.waitForFinished(60000));
    QCOMPARE(q.exitCode(), 1);
    QVERIFY(q.readAll().contains("differs: seed001-start/.flox/pkgs/"));
}

void TestSeedFixtures::syntheticRepositoryMatchesItsSpec_data()
{
    QTest::addColumn<int>("count");
    QTest::newRow("one package word, partial") << 250;
    QTest::newRow("two package words") << 700;
}

void TestSeedFixtures::syntheticRepositoryMatchesItsSpec()
{
    QFETCH(int, count);
    QTemporaryDir dir;
    const auto generate = [&](const QString& out) {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral("python3"),
                {QStringLiteral(RG_SOURCE_DIR "/tests/tools/make_repo.py"), QString::number(count),
                 out});
        return p.waitForFinished(120000) && p.exitCode() == 0;
    };
    QVERIFY(generate(dir.filePath("a")));
    QVERIFY(generate(dir.filePath("b")));

    SpecError error;
    const auto spec = MatrixSpec::load(dir.filePath("a/.flox/recipegrid.json").toStdString(),
                                       Catalog::builtin(), &error);
    QVERIFY2(spec, error.toString().c_str());
    const QStringList files = QDir(dir.filePath("a/.flox/pkgs")).entryList({"*.nix"}, QDir::Files);
    QCOMPARE(files.size(), count);
    QVERIFY(stems(files) == expectedStems(*spec));

    qint64 bytes = 0;
    QStringList paths;
    for (const QString& f : files) {
        const QString text = readAll(dir.filePath("a/.flox/pkgs/" + f));
        QCOMPARE(text, readAll(dir.filePath("b/.flox/pkgs/" + f))); // deterministic
        const auto name = VariantName::parse(f.toStdString());
        QVERIFY(name);
        QVERIFY(text.contains(QString::fromStdString(*spec->expectedPin(*name))));
        QCOMPARE(pnameOf(text), f.chopped(4));
        bytes += text.size();
        paths << dir.filePath("a/.flox/pkgs/" + f);
    }
    QVERIFY2(bytes / count > 3500 && bytes / count < 6500,
             qPrintable(QString::number(bytes / count)));

    QProcess nix;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("NIX_CONFIG", "build-users-group =\nsandbox = false\nsubstituters =\n"
                             "experimental-features = nix-command");
    nix.setProcessEnvironment(env);
    nix.setStandardOutputFile(QProcess::nullDevice());
    nix.start(QStringLiteral("nix-instantiate"), QStringList{"--parse"} + paths);
    QVERIFY(nix.waitForFinished(300000));
    QVERIFY2(nix.exitCode() == 0, nix.readAllStandardError().constData());
}

void TestSeedFixtures::schemaAgreesWithTheParser_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<bool>("valid");
    // For an invalid spec, the schema's reason: the JSON pointer it names and words of its
    // message that every jsonschema release prints.
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QString>("words");
    for (const char* repo : {"seed001-start", "seed001-target", "seed000"})
        QTest::newRow(repo) << readAll(fixture(QString(repo) + "/.flox/recipegrid.json")).toUtf8()
                            << true << QString() << QString();
    QTest::newRow("minimal") << QByteArray(R"({"schema":1,"matrix":[]})") << true << QString()
                             << QString();
    QTest::newRow("all keys")
        << QByteArray(R"({"$schema":"x","schema":1,"package":"pytorch","extraPackages":["vllm"],)"
                      R"("recipeDir":"pkgs","torchVersion":"2.9.1","pnamePrefix":"p-",)"
                      R"("pins":{"default":"0182a361324364ae3f436a63005877674cf45efb"},)"
                      R"("matrix":[{"python":["3.12"],"accelerator":"darwin","isas":["mps"]}],)"
                      R"("exclude":[{"package":"vllm"}],)"
                      R"("patterns":{"darwin":{"kind":"wrapper"}}})")
        << true << QString() << QString();
    QTest::newRow("typo") << QByteArray(R"({"schema":1,"matrix":[],"pnameprefix":"x"})") << false
                          << QStringLiteral("/") << QStringLiteral(R"('pnameprefix')");
    QTest::newRow("short pin") << QByteArray(
                                      R"({"schema":1,"matrix":[],"pins":{"13.0":"6a030d5"}})")
                               << false << QStringLiteral("/pins/13.0")
                               << QStringLiteral(R"('6a030d5')");
    QTest::newRow("cpu group with archs")
        << QByteArray(R"({"schema":1,"matrix":[{"python":["3.13"],"accelerator":"cpu",)"
                      R"("gpuArchs":["sm90"],"isas":["avx2"]}]})")
        << false << QStringLiteral("/matrix/0") << QStringLiteral(R"('gpuArchs': ['sm90'])");
    QTest::newRow("cuda group without archs")
        << QByteArray(R"({"schema":1,"matrix":[{"python":["3.13"],"accelerator":"cuda",)"
                      R"("cuda":["13.0"],"isas":["avx2"]}]})")
        << false << QStringLiteral("/matrix/0")
        << QStringLiteral(R"('gpuArchs' is a required property)");
    QTest::newRow("empty exclusion")
        << QByteArray(R"({"schema":1,"matrix":[],"exclude":[{}]})") << false
        << QStringLiteral("/exclude/0") << QStringLiteral(R"({})");
    QTest::newRow("pattern kind")
        << QByteArray(R"({"schema":1,"matrix":[],"patterns":{"cuda":{"kind":"unknown"}}})") << false
        << QStringLiteral("/patterns/cuda/kind") << QStringLiteral(R"('unknown' is not one of)");
    QTest::newRow("schema 2") << QByteArray(R"({"schema":2,"matrix":[]})") << false
                              << QStringLiteral("/schema") << QStringLiteral(R"(1 was expected)");
    QTest::newRow("escaping dir") << QByteArray(R"({"schema":1,"recipeDir":"a/../..","matrix":[]})")
                                  << false << QStringLiteral("/recipeDir")
                                  << QStringLiteral(R"('a/../..')");
    QTest::newRow("python as digits")
        << QByteArray(
               R"({"schema":1,"matrix":[{"python":["313"],"accelerator":"cpu","isas":["avx2"]}]})")
        << false << QStringLiteral("/matrix/0/python/0")
        << QStringLiteral(R"('313' does not match)");
}

void TestSeedFixtures::schemaAgreesWithTheParser()
{
    QFETCH(QByteArray, json);
    QFETCH(bool, valid);
    QFETCH(QString, pointer);
    QFETCH(QString, words);
    SpecError error;
    const bool parsed = MatrixSpec::fromJson(std::string_view(json.constData(), json.size()),
                                             "spec.json", Catalog::builtin(), &error)
                            .has_value();
    QCOMPARE(parsed, valid);

    QTemporaryDir dir;
    const QString file = dir.filePath("spec.json");
    QVERIFY(writeAll(file, QString::fromUtf8(json)));
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral("python3"),
            {QStringLiteral(RG_SOURCE_DIR "/tests/tools/validate_spec.py"), file});
    QVERIFY(p.waitForFinished(60000));
    const QString said = QString::fromUtf8(p.readAll());
    QVERIFY2(p.exitStatus() == QProcess::NormalExit, qPrintable(said));
    QVERIFY2(p.exitCode() == (valid ? 0 : 1), qPrintable(said));
    if (valid) {
        QVERIFY2(said.isEmpty(), qPrintable(said));
    } else {
        // Invalid for the schema's reason, not because the validator could not run (a missing
        // jsonschema module exits non-zero too).
        const QString prefix = file + QStringLiteral(": ") + pointer + QStringLiteral(": ");
        const QStringList lines = said.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY2(std::any_of(lines.begin(), lines.end(),
                             [&](const QString& line) {
                                 return line.startsWith(prefix) && line.contains(words);
                             }),
                 qPrintable(QStringLiteral("expected '%1…%2', got:\n%3").arg(prefix, words, said)));
    }

    // What the parser accepts it writes back in a form the schema accepts too.
    if (parsed) {
        const auto spec = MatrixSpec::fromJson(std::string_view(json.constData(), json.size()),
                                               "spec.json", Catalog::builtin(), &error);
        QVERIFY(writeAll(file, QString::fromStdString(spec->toJson())));
        p.start(QStringLiteral("python3"),
                {QStringLiteral(RG_SOURCE_DIR "/tests/tools/validate_spec.py"), file});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAll().constData());
    }
}

QTEST_GUILESS_MAIN(TestSeedFixtures)
#include "tst_seedfixtures.moc"
