// `recipegrid eval` and `check --eval` end to end: the real binary, the real Nix, the fixture
// repositories' pins resolved to the stand-in nixpkgs; output in all three formats, exit codes,
// the cache across runs, and what a user gets wrong on the command line.

#include "../recipes/testrepository.h"
#include "recipegridrun.h"

#include <QDirIterator>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>
#include <map>
#include <nlohmann/json.hpp>

using nlohmann::json;
using rg::test::Run;

namespace {

const QString fixtures = QStringLiteral(RG_FIXTURES_DIR);
const QString older = fixtures + QStringLiteral("/nixpkgs-standin/older");

QStringList sources()
{
    QStringList arguments;
    for (const char* pin :
         {"6a030d535719c5190187c4cec156f335e95e3211", "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"})
        arguments << QStringLiteral("--nixpkgs") << QLatin1String(pin) + QLatin1Char('=') + older;
    // The nightly recipe is a function of its packages (callPackage style).
    return arguments << QStringLiteral("--default-nixpkgs") << older;
}

class EvalRun
{
public:
    EvalRun() { m_environment.insert(QStringLiteral("XDG_CACHE_HOME"), m_cache.path()); }

    Run operator()(const QStringList& arguments) const
    {
        return rg::test::runRecipegrid(arguments, m_environment, QString(), 120000);
    }
    QProcessEnvironment& environment() { return m_environment; }

private:
    QTemporaryDir m_cache;
    QProcessEnvironment m_environment = QProcessEnvironment::systemEnvironment();
};

// `program arguments…`'s output, trimmed; "" when it fails.
QString runTool(const QString& program, const QStringList& arguments)
{
    QProcess process;
    process.start(program, arguments);
    const bool done = process.waitForFinished(120000) && process.exitCode() == 0;
    return done ? QString::fromUtf8(process.readAllStandardOutput()).trimmed() : QString();
}

} // namespace

class TestEvalCommand : public QObject
{
    Q_OBJECT

private slots:
    // seed000's 66 recipes all evaluate and agree: exit 0, a ✓ line for each.
    void aSoundRepositoryIsClean()
    {
        const Run run = EvalRun()(
            QStringList{QStringLiteral("eval"), fixtures + QStringLiteral("/seed000")} + sources());
        QVERIFY2(run.exitCode == 0, run.out + run.err);
        QCOMPARE(run.out.count("\n✓  .flox/pkgs/") + (run.out.startsWith("✓") ? 1 : 0), 66);
        QVERIFY(run.out.contains("66 recipe(s): 66 evaluated, 0 do not evaluate, 0 with findings"));
    }

    // seed001-start's three CUDA 13 recipes without the CUDA overlay build with CUDA 12.8.
    void findingsInEveryFormat()
    {
        const QString repo = fixtures + QStringLiteral("/seed001-start");
        EvalRun eval;
        const Run text = eval(
            QStringList{QStringLiteral("eval"), repo, QStringLiteral("--no-cache")} + sources());
        QCOMPARE(text.exitCode, 1);
        QCOMPARE(text.out.count("eval-cuda-mismatch: Nix evaluates the torch build's CUDA set as "
                                "CUDA 12.8, not 13.0"),
                 3);

        const Run asJson = eval(QStringList{QStringLiteral("eval"), repo,
                                            QStringLiteral("--format"), QStringLiteral("json")} +
                                sources());
        QCOMPARE(asJson.exitCode, 1);
        const json root = json::parse(asJson.out.toStdString());
        QCOMPARE(root["evaluations"].size(), size_t(6));
        int mismatches = 0;
        for (const json& entry : root["entries"])
            for (const json& finding : entry["findings"])
                mismatches += finding["ruleId"] == "eval-cuda-mismatch" ? 1 : 0;
        QCOMPARE(mismatches, 3);
        for (const json& evaluation : root["evaluations"])
            QVERIFY(evaluation["evaluated"].get<bool>() &&
                    evaluation["drvPath"].get<std::string>().ends_with(".drv"));

        const Run sarif = eval(QStringList{QStringLiteral("eval"), repo, QStringLiteral("--format"),
                                           QStringLiteral("sarif")} +
                               sources());
        QCOMPARE(sarif.exitCode, 1);
        QVERIFY(json::parse(sarif.out.toStdString())["runs"][0]["results"].dump().find(
                    "eval-cuda-mismatch") != std::string::npos);
    }

    void oneCellByName()
    {
        const Run run = EvalRun()(
            QStringList{QStringLiteral("eval"), fixtures + QStringLiteral("/seed001-start"),
                        QStringLiteral("pytorch-python313-cuda13_0-sm120-avx512.nix")} +
            sources());
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("1 recipe(s): 1 evaluated"), run.out + run.err);
        const Run none = EvalRun()(QStringList{QStringLiteral("eval"),
                                               fixtures + QStringLiteral("/seed001-start"),
                                               QStringLiteral("python399-cpu-avx2")} +
                                   sources());
        QCOMPARE(none.exitCode, 2);
        QVERIFY(none.err.contains("no recipe matches python399-cpu-avx2"));
    }

    // check --eval: the static report with Nix's answers in it.
    void checkWithEvaluation()
    {
        const QString repo = fixtures + QStringLiteral("/seed001-start");
        const Run run =
            EvalRun()(QStringList{QStringLiteral("check"), repo, QStringLiteral("--eval"),
                                  QStringLiteral("--format"), QStringLiteral("json")} +
                      sources());
        QCOMPARE(run.exitCode, 1);
        const json root = json::parse(run.out.toStdString());
        int mismatches = 0;
        for (const json& entry : root["entries"])
            for (const json& finding : entry["findings"])
                mismatches += finding["ruleId"] == "eval-cuda-mismatch" ? 1 : 0;
        QCOMPARE(mismatches, 3);
        const Run plain = EvalRun()(
            {QStringLiteral("check"), repo, QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY(!plain.out.contains("eval-"));
        const Run withRev = EvalRun()({QStringLiteral("check"), repo, QStringLiteral("--eval"),
                                       QStringLiteral("--rev"), QStringLiteral("HEAD")});
        QCOMPARE(withRev.exitCode, 2);
        QVERIFY(withRev.err.contains("cannot be combined with --rev"));
    }

    // The second run of an unchanged repository asks Nix nothing; a changed recipe is asked again.
    void unchangedRecipesComeFromTheCache()
    {
        rg::test::TestRepository repo;
        repo.copyFrom(fixtures + QStringLiteral("/seed001-start"));
        EvalRun eval;
        const QStringList arguments = QStringList{QStringLiteral("eval"), repo.root()} + sources();
        const Run first = eval(arguments);
        QVERIFY(first.out.contains("0 from the cache"));
        const Run second = eval(arguments);
        QCOMPARE(second.exitCode, first.exitCode);
        QVERIFY2(second.out.contains("6 from the cache"), second.out);
        QFile recipe(repo.root() +
                     QStringLiteral("/.flox/pkgs/pytorch-python313-cuda13_0-sm120-avx512.nix"));
        QVERIFY(recipe.open(QIODevice::Append));
        recipe.write("# reviewed\n");
        recipe.close();
        QVERIFY2(eval(arguments).out.contains("5 from the cache"),
                 "only the edited recipe is evaluated again");
    }

    void whatAUserGetsWrong()
    {
        EvalRun eval;
        const QString repo = fixtures + QStringLiteral("/seed000");
        const Run badSource = eval({QStringLiteral("eval"), repo, QStringLiteral("--nixpkgs"),
                                    QStringLiteral("6a03=/tmp")});
        QCOMPARE(badSource.exitCode, 2);
        QVERIFY(badSource.err.contains("expected REV=PATH with a 40-hex-digit revision"));
        const Run missingPath =
            eval({QStringLiteral("eval"), repo, QStringLiteral("--nixpkgs"),
                  QStringLiteral("6a030d535719c5190187c4cec156f335e95e3211=/no/such/dir")});
        QCOMPARE(missingPath.exitCode, 2);
        QVERIFY(missingPath.err.contains("/no/such/dir: no such file or directory"));
        const Run badJobs =
            eval({QStringLiteral("eval"), repo, QStringLiteral("--jobs"), QStringLiteral("0")});
        QCOMPARE(badJobs.exitCode, 2);
        QVERIFY(badJobs.err.contains("--jobs: expected a positive number"));
        QTemporaryDir emptyPath;
        eval.environment().insert(QStringLiteral("PATH"), emptyPath.path());
        const Run noNix = eval(QStringList{QStringLiteral("eval"), repo} + sources());
        QCOMPARE(noNix.exitCode, 2);
        QVERIFY(noNix.err.contains("nix-instantiate is not on PATH"));
    }

    // What each pin contains, and a typed revision beside it with the differences marked.
    void pinsInspect()
    {
        const QString newer = fixtures + QStringLiteral("/nixpkgs-standin/newer");
        const QString typed = QStringLiteral("1111111111111111111111111111111111111111");
        const QStringList arguments = QStringList{QStringLiteral("pins"),
                                                  fixtures + QStringLiteral("/seed000"),
                                                  QStringLiteral("--inspect"),
                                                  QStringLiteral("--revision"),
                                                  typed,
                                                  QStringLiteral("--nixpkgs"),
                                                  typed + QLatin1Char('=') + newer} +
                                      sources();
        const Run text = EvalRun()(arguments);
        QVERIFY2(text.exitCode == 0, text.out + text.err);
        QVERIFY(text.out.contains("python3Packages: Python 3.13.9, torch 2.9.1\n"));
        QVERIFY2(text.out.contains(
                     "python3Packages: Python 3.13.11 (was 3.13.9), torch 2.10.0 (was 2.9.1)"),
                 text.out);
        QVERIFY(text.out.contains("cudaPackages_12_9: CUDA 12.9, cuDNN 9.11.0.98"));
        const Run asJson =
            EvalRun()(arguments + QStringList{QStringLiteral("--format"), QStringLiteral("json")});
        const json pins = json::parse(asJson.out.toStdString());
        QCOMPARE(pins.size(), size_t(2));
        QCOMPARE(pins[0]["revision"].get<std::string>(),
                 std::string("6a030d535719c5190187c4cec156f335e95e3211"));
        QCOMPARE(pins[0]["nixpkgs"].get<std::string>(), std::string("25.11pre-standin-older"));
        QCOMPARE(pins[0]["cuda"].get<std::string>(), std::string("12.8"));
        QCOMPARE(pins[1]["nixpkgs"].get<std::string>(), std::string("26.05pre-standin-newer"));
        QCOMPARE(pins[1]["cuda"].get<std::string>(), std::string("12.9"));
        // A revision that is neither local nor reachable: its own error, exit 2.
        const Run unreachable =
            EvalRun()(QStringList{QStringLiteral("pins"), fixtures + QStringLiteral("/seed000"),
                                  QStringLiteral("--inspect"), QStringLiteral("--revision"),
                                  QStringLiteral("2222222222222222222222222222222222222222")} +
                      sources());
        QCOMPARE(unreachable.exitCode, 2);
        QVERIFY2(unreachable.out.contains("2222222  fetched by Nix\n  cannot read it: "),
                 unreachable.out);
    }

    // A bump to the newer revision renames torch's gpuTargets: --evaluate shows every CUDA
    // recipe that would break before anything is written, and writes nothing.
    void bumpPinEvaluatesBeforeWriting()
    {
        rg::test::TestRepository repo;
        repo.copyFrom(fixtures + QStringLiteral("/seed000"));
        repo.git({QStringLiteral("init"), QStringLiteral("-q")});
        repo.git({QStringLiteral("add"), QStringLiteral("-A")});
        repo.git({QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("seed")});
        const QString typed = QStringLiteral("1111111111111111111111111111111111111111");
        const QStringList arguments = QStringList{QStringLiteral("bump-pin"),
                                                  repo.root(),
                                                  QStringLiteral("--from"),
                                                  QStringLiteral("6a030d5"),
                                                  QStringLiteral("--to"),
                                                  typed,
                                                  QStringLiteral("--evaluate"),
                                                  QStringLiteral("--nixpkgs"),
                                                  typed + QLatin1Char('=') + fixtures +
                                                      QStringLiteral("/nixpkgs-standin/newer")} +
                                      sources();
        const Run dry = EvalRun()(arguments + QStringList{QStringLiteral("--dry-run")});
        QVERIFY2(dry.exitCode == 0, dry.out + dry.err);
        QCOMPARE(dry.out.count("  BREAKS  "), 59);
        QVERIFY(dry.out.contains("unexpected argument 'gpuTargets'"));
        QCOMPARE(dry.out.count("  evaluates  "), 7);
        QVERIFY(dry.out.contains(
            "pytorch-python313-cpu-avx2.nix  new derivation  torch 2.9.1 → 2.10.0\n"));
        const Run apply = EvalRun()(arguments);
        QCOMPARE(apply.exitCode, 1);
        QVERIFY(apply.err.contains(
            "59 recipe(s) would stop evaluating on the new pin; nothing written"));
        QCOMPARE(repo.git({QStringLiteral("status"), QStringLiteral("--porcelain")}), QByteArray());
        // Only the CPU recipes, which evaluate on the new pin: applied.
        const Run cpu = EvalRun()(
            arguments + QStringList{QStringLiteral("--scope"), QStringLiteral("accelerator:cpu")});
        QVERIFY2(cpu.exitCode == 0, cpu.out + cpu.err);
        QVERIFY(!repo.git({QStringLiteral("status"), QStringLiteral("--porcelain")}).isEmpty());
    }

    // The build fixture's self-contained recipes, with a nonce of this run's: one built into the
    // store, one built, copied to a file:// binary cache and deleted from the store, the rest
    // never built. --outputs says which is which, in text and JSON.
    void outputsSayWhatNeedsABuild()
    {
        rg::test::TestRepository repo;
        repo.copyFrom(fixtures + QStringLiteral("/build/repo"));
        const QByteArray nonce = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
        QDirIterator it(repo.root() + QStringLiteral("/.flox/pkgs"), {QStringLiteral("*.nix")});
        while (it.hasNext()) {
            QFile file(it.next());
            QVERIFY(file.open(QIODevice::ReadOnly));
            QByteArray text = file.readAll().replace("@NONCE@", nonce);
            text.replace("@PIDFILE@", repo.root().toUtf8() + "/pids").replace("@SECONDS@", "1");
            file.close();
            QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
            file.write(text);
        }
        const QString pkgs = repo.root() + QStringLiteral("/.flox/pkgs/");
        const QString built = runTool(QStringLiteral("nix-build"),
                                      {pkgs + QStringLiteral("pytorch-python313-cpu-avx2.nix"),
                                       QStringLiteral("--no-out-link")});
        QVERIFY(built.startsWith(QStringLiteral("/nix/store/")));
        const QString cached =
            runTool(QStringLiteral("nix-build"),
                    {pkgs + QStringLiteral("pytorch-python313-cuda12_9-sm86-avx2.nix"),
                     QStringLiteral("--no-out-link")});
        QVERIFY(cached.startsWith(QStringLiteral("/nix/store/")));
        QTemporaryDir cacheDir;
        const QString cache = QStringLiteral("file://") + cacheDir.path();
        runTool(QStringLiteral("nix"),
                {QStringLiteral("copy"), QStringLiteral("--to"), cache, cached});
        runTool(QStringLiteral("nix-store"), {QStringLiteral("--delete"), cached});
        QVERIFY(!QFileInfo::exists(cached));

        EvalRun eval;
        const QStringList arguments = {QStringLiteral("eval"), repo.root(),
                                       QStringLiteral("--outputs"),
                                       QStringLiteral("--binary-cache"), cache};
        const Run text = eval(arguments);
        QVERIFY2(text.exitCode == 0, text.out + text.err);
        QVERIFY2(text.out.contains("pytorch-python313-cpu-avx2.nix  /nix/store/") &&
                     text.out.contains("-pytorch-python313-cpu-avx2.drv\n     output built\n"),
                 text.out);
        QVERIFY2(
            text.out.contains("-pytorch-python313-cuda12_9-sm86-avx2.drv\n     output in cache " +
                              cache.toUtf8() + "\n"),
            text.out);
        QVERIFY2(
            text.out.contains("outputs: 2 need a build, 1 built, 1 in a binary cache, 0 unknown\n"),
            text.out);

        const Run asJson =
            eval(arguments + QStringList{QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(asJson.exitCode == 0, asJson.out + asJson.err);
        std::map<std::string, std::string> states;
        const json root = json::parse(asJson.out.toStdString());
        for (const json& evaluation : root["evaluations"]) {
            states[evaluation["path"].get<std::string>()] =
                evaluation["output"]["state"].get<std::string>();
            if (evaluation["path"] == ".flox/pkgs/pytorch-python313-cpu-avx2.nix")
                QCOMPARE(evaluation["outputPath"].get<std::string>(), built.toStdString());
        }
        const std::map<std::string, std::string> expected = {
            {".flox/pkgs/pytorch-python313-cpu-avx2.nix", "built"},
            {".flox/pkgs/pytorch-python313-cuda12_9-sm86-avx2.nix", "cached"},
            {".flox/pkgs/pytorch-python313-cuda12_9-sm80-avx2.nix", "missing"},
            {".flox/pkgs/pytorch-python313-cuda12_9-sm90-avx512.nix", "missing"}};
        std::string seen;
        for (const auto& [path, state] : states)
            seen += path + "=" + state + " ";
        QVERIFY2(states == expected, seen.c_str());
    }

    // A recipe Nix would reject on parsing gets its static syntax error, and no evaluation.
    void aSyntaxErrorIsNotEvaluated()
    {
        rg::test::TestRepository repo;
        repo.copyFrom(fixtures + QStringLiteral("/seed001-start"));
        repo.writeRecipe(QStringLiteral("pytorch-python313-cpu-avx2.nix"), "let x = ; in x\n");
        const Run run =
            EvalRun()(QStringList{QStringLiteral("check"), repo.root(), QStringLiteral("--eval"),
                                  QStringLiteral("--format"), QStringLiteral("json")} +
                      sources());
        const json root = json::parse(run.out.toStdString());
        bool syntax = false, evaluated = false;
        for (const json& entry : root["entries"])
            if (entry["file"] == ".flox/pkgs/pytorch-python313-cpu-avx2.nix")
                for (const json& finding : entry["findings"]) {
                    syntax = syntax || finding["ruleId"] == "syntax-error";
                    evaluated =
                        evaluated || finding["ruleId"].get<std::string>().starts_with("eval-");
                }
        QVERIFY(syntax);
        QVERIFY(!evaluated);
    }
};

QTEST_GUILESS_MAIN(TestEvalCommand)
#include "tst_evalcommand.moc"
