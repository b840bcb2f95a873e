// The real `recipegrid build` and `recipegrid export-ci` binaries, run with QProcess against
// real Nix builds of the fixture repository.

#include "analysis/recipecontentkey.h"
#include "buildfixture.h"
#include "builds/buildhistory.h"
#include "builds/ciworkflow.h"
#include "vcs/repositorysource.h"

#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <cerrno>
#include <csignal>
#include <signal.h>

using namespace rg;

class TestBuildCli : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_repo;

    struct Result
    {
        int exitCode = -1;
        QString out;
        QString err;
    };

    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_dir.filePath("data"));
        return env;
    }

    Result run(const QStringList& arguments, int timeoutMs = 120000) const
    {
        QProcess process;
        process.setProcessEnvironment(environment());
        process.start(QStringLiteral(RG_BINARY_DIR "/app/recipegrid"), arguments);
        Result r;
        if (!process.waitForFinished(timeoutMs)) {
            process.kill();
            process.waitForFinished();
            r.err = QStringLiteral("timed out");
            return r;
        }
        r.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        r.out = QString::fromUtf8(process.readAllStandardOutput());
        r.err = QString::fromUtf8(process.readAllStandardError());
        return r;
    }

    static QString describe(const Result& r)
    {
        return QStringLiteral("exit %1\nstdout:\n%2\nstderr:\n%3")
            .arg(r.exitCode)
            .arg(r.out.right(3000), r.err.right(3000));
    }

private slots:
    void initTestCase()
    {
        test::configureNix();
        QVERIFY(QFileInfo(QStringLiteral(RG_BINARY_DIR "/app/recipegrid")).isExecutable());
        m_repo = m_dir.filePath("repo");
        QVERIFY(test::copyFixtureRepo(m_repo, 300, m_dir.filePath("pids")));
    }

    void buildSucceeds()
    {
        const Result r = run({"build", m_repo, "pytorch-python313-cuda12_9-sm90-avx512",
                              "--backend", "nix", "--torch-version", "2.9.1"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        // Streamed unprefixed when one variant builds.
        QVERIFY(r.out.contains(
            "pytorch-python313-cuda12_9-sm90-avx512> [3000/3000] Building CXX object"));
        QCOMPARE(r.out.count(QLatin1String("Building CXX object")), 3000);
        QVERIFY2(r.out.contains(QRegularExpression(
                     "\\n  pytorch-python313-cuda12_9-sm90-avx512: succeeded in \\d+s; "
                     "verification passed \\(torch 2\\.9\\.1, CUDA 12\\.9, Python 3\\.13\\.1\\)")),
                 qPrintable(describe(r)));
        // The CLI records history where the window finds it.
        BuildHistory history(m_dir.filePath("data/recipegrid/build-history.json"));
        QVERIFY2(history.loadError().isEmpty(), qPrintable(history.loadError()));
        const BuildRecord* last = history.latest("pytorch-python313-cuda12_9-sm90-avx512");
        QVERIFY(last);
        QCOMPARE(last->state, JobState::Succeeded);
        QVERIFY(QFileInfo::exists(last->logPath));
        // Keyed by what was built, so the window shows it on the cell of that very recipe.
        QVERIFY2(last->contentKey.startsWith(QStringLiteral("content:")),
                 qPrintable(last->contentKey));
        QCOMPARE(last->contentKey, RecipeContentKey::computeForFile(
                                       *openWorkTree(m_repo.toStdString()),
                                       ".flox/pkgs/pytorch-python313-cuda12_9-sm90-avx512.nix")
                                       .toQString());
    }

    void buildFailureExitsNonZero()
    {
        const Result r = run({"build", m_repo, "pytorch-python313-cuda12_9-sm80-avx2"});
        QVERIFY2(r.exitCode == 1, qPrintable(describe(r)));
        QVERIFY(r.out.contains("failed with exit code 3"));
        QVERIFY2(r.out.contains("pytorch-python313-cuda12_9-sm80-avx2: failed in"),
                 qPrintable(describe(r)));
        QVERIFY(r.out.contains("(exit code 1)"));
    }

    void verificationFailureExitsNonZero()
    {
        const Result r = run({"build", m_repo, "pytorch-python313-cuda12_9-sm86-avx2"});
        QVERIFY2(r.exitCode == 1, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("verification FAILED: CUDA 12.8, expected 12.9"),
                 qPrintable(describe(r)));
    }

    // Without --torch-version, verification expects the spec's torchVersion, as the window
    // does; the option overrides it, and "" accepts any.
    void verificationExpectsTheSpecsTorchVersion()
    {
        const QString repo = m_dir.filePath("with-spec");
        QVERIFY(test::copyFixtureRepo(repo, 1));
        QFile spec(repo + "/.flox/recipegrid.json");
        QVERIFY(spec.open(QIODevice::WriteOnly));
        spec.write(R"({ "schema": 1, "torchVersion": "2.10.0",
  "matrix": [ { "python": ["3.13"], "accelerator": "cuda", "cuda": ["12.9"],
                "gpuArchs": ["sm90"], "isas": ["avx512"] } ] }
)");
        spec.close();
        const QString variant = QStringLiteral("pytorch-python313-cuda12_9-sm90-avx512");
        const QStringList build = {"build",
                                   repo,
                                   variant,
                                   "--backend",
                                   "nix",
                                   "--data-dir",
                                   m_dir.filePath("with-spec-data")};
        Result r = run(build);
        QVERIFY2(r.exitCode == 1, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("verification FAILED: torch 2.9.1, expected 2.10.0"),
                 qPrintable(describe(r)));
        r = run(build + QStringList{"--torch-version", "2.9.1"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("verification passed (torch 2.9.1, CUDA 12.9, Python 3.13.1)"),
                 qPrintable(describe(r)));
        r = run(build + QStringList{"--torch-version", ""});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    }

    // A recipe with an error is built as asked, but stderr says so first, naming the file,
    // line and rule; a sound recipe gets no such line.
    void warnsBeforeBuildingARecipeWithErrors()
    {
        const QString repo = m_dir.filePath("with-error");
        QVERIFY(test::copyFixtureRepo(repo));
        const QString sound = repo + "/.flox/pkgs/pytorch-python313-cuda12_9-sm90-avx512.nix";
        QByteArray text = test::readFile(sound);
        QVERIFY(text.contains("system = builtins.currentSystem;\n"));
        text.replace("system = builtins.currentSystem;\n", "system = builtins.currentSystem\n");
        QFile broken(repo + "/.flox/pkgs/pytorch-python313-cuda12_9-sm89-avx512.nix");
        QVERIFY(broken.open(QIODevice::WriteOnly) && broken.write(text) == text.size());
        broken.close();
        const Result r =
            run({"build", repo, "pytorch-python313-cuda12_9-sm89-avx512.nix",
                 "pytorch-python313-cuda12_9-sm90-avx512", "--backend", "custom", "--command",
                 "true", "--no-verify", "--data-dir", m_dir.filePath("with-error-data")});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(r.err.startsWith("recipegrid build: warning: "
                                  ".flox/pkgs/pytorch-python313-cuda12_9-sm89-avx512.nix:6: "
                                  "syntax-error: "),
                 qPrintable(describe(r)));
        QCOMPARE(r.err.count(QLatin1String("warning")), 1);
        QVERIFY(!r.err.contains(QLatin1String("sm90")));
        QCOMPARE(r.out.count(QLatin1String(": succeeded in ")), 2);
    }

    void prefixesLinesWhenSeveralBuild()
    {
        // A fresh copy (new nonce): Nix must really build both, so both stream logs.
        const QString repo = m_dir.filePath("repo-prefixes");
        QVERIFY(test::copyFixtureRepo(repo));
        const QStringList variants = {"pytorch-python313-cpu-avx2",
                                      "pytorch-python313-cuda12_9-sm90-avx512"};
        const Result r = run(QStringList{"build", repo} + variants + QStringList{"--jobs", "2"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QString logs = r.out.left(r.out.indexOf(QLatin1String("\nSummary\n")));
        QVERIFY(!logs.isEmpty());
        QHash<QString, int> perVariant;
        for (const QString& line : logs.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            const auto m = QRegularExpression("^\\[([^\\]]+)\\] ").match(line);
            QVERIFY2(m.hasMatch(), qPrintable("unprefixed line: " + line));
            QVERIFY(variants.contains(m.captured(1)));
            ++perVariant[m.captured(1)];
        }
        QVERIFY(perVariant.value(variants[0]) >= 3);
        QVERIFY(perVariant.value(variants[1]) >= 3000);
        QVERIFY(logs.contains("[pytorch-python313-cpu-avx2] pytorch-python313-cpu-avx2> "
                              "building the CPU-only variant"));
        QVERIFY(r.out.contains("pytorch-python313-cpu-avx2: succeeded"));
        QVERIFY(r.out.contains("pytorch-python313-cuda12_9-sm90-avx512: succeeded"));
    }

    void passesOptionsAndCustomCommands()
    {
        Result r = run({"build", m_repo, "pytorch-python313-cpu-avx2", "--nix-option", "cores=1",
                        "--nix-option", "max-silent-time=3600", "--backend", "nix"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("--option cores 1 --option max-silent-time 3600"),
                 qPrintable(describe(r)));

        r = run({"build", m_repo, "pytorch-python313-cpu-avx2", "--no-verify", "--command",
                 "/bin/sh -c 'echo custom {variant} in {repo}'"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY(
            r.out.contains("custom pytorch-python313-cpu-avx2 in " + QDir(m_repo).canonicalPath()));
    }

    void rejectsBadInput_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no variant") << QStringList{"build", "REPO"} << "at least one variant";
        QTest::newRow("unknown variant")
            << QStringList{"build", "REPO", "pytorch-python399-cpu-avx2"}
            << "pytorch-python399-cpu-avx2.nix: no recipe for variant";
        QTest::newRow("a recipe's last words")
            << QStringList{"build", "REPO", "cpu-avx2"}
            << "no recipe for variant 'cpu-avx2'; did you mean pytorch-python313-cpu-avx2?";
        QTest::newRow("shell in name")
            << QStringList{"build", "REPO", "a;id"} << "invalid variant name 'a;id'";
        QTest::newRow("backend") << QStringList{"build", "REPO", "x", "--backend", "bazel"}
                                 << "unknown backend 'bazel'";
        QTest::newRow("jobs") << QStringList{"build", "REPO", "x", "--jobs", "0"}
                              << "--jobs needs a positive number";
        QTest::newRow("custom without command")
            << QStringList{"build", "REPO", "x", "--backend", "custom"} << "needs --command";
        QTest::newRow("nix option")
            << QStringList{"build", "REPO", "x", "--nix-option", "=1"} << "without key=value";
        QTest::newRow("missing repo") << QStringList{"build", "/nonexistent/repo", "x"}
                                      << "/nonexistent/repo: not a directory";
    }
    void rejectsBadInput()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        arguments.replaceInStrings(QRegularExpression("^REPO$"), m_repo);
        const Result r = run(arguments);
        QVERIFY2(r.exitCode == 2, qPrintable(describe(r)));
        QVERIFY2(r.err.contains(message), qPrintable(describe(r)));
    }

    void interruptCancelsBuilds()
    {
        QProcess process;
        process.setProcessEnvironment(environment());
        process.start(
            QStringLiteral(RG_BINARY_DIR "/app/recipegrid"),
            {"build", m_repo, "sleeper-a", "sleeper-b", "--jobs", "2", "--backend", "nix"});
        QVERIFY(process.waitForStarted());
        const QString pidA = m_dir.filePath("pids-a");
        const QString pidB = m_dir.filePath("pids-b");
        QVERIFY(QTest::qWaitFor(
            [&] {
                return test::readFile(pidA).trimmed().contains(' ') &&
                       test::readFile(pidB).trimmed().contains(' ');
            },
            60000));
        QList<qint64> pids;
        for (const QString& file : {pidA, pidB}) {
            for (const QByteArray& pid : test::readFile(file).trimmed().split(' '))
                pids << pid.toLongLong();
        }
        QCOMPARE(::kill(pid_t(process.processId()), SIGINT), 0);
        QVERIFY(process.waitForFinished(30000));
        const QString out = QString::fromUtf8(process.readAllStandardOutput());
        const QString err = QString::fromUtf8(process.readAllStandardError());
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QVERIFY2(process.exitCode() == 130, qPrintable(out + err));
        QVERIFY(err.contains("interrupted, cancelling builds"));
        QVERIFY(out.contains("sleeper-a: cancelled"));
        QVERIFY(out.contains("sleeper-b: cancelled"));
        // Every builder and its child are gone.
        QVERIFY(QTest::qWaitFor(
            [&] {
                return std::all_of(pids.begin(), pids.end(), [](qint64 pid) {
                    return ::kill(pid_t(pid), 0) == -1 && errno == ESRCH;
                });
            },
            10000));
    }

    void exportsCiWorkflow()
    {
        const QString file = m_dir.filePath("ci/build.yml");
        Result r = run({"export-ci", m_repo, "--output", file, "--publish-org", "acme",
                        "--torch-version", "2.9.1"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QString yaml = QString::fromUtf8(test::readFile(file));
        // Every recipe of the repository, one matrix entry each.
        const QStringList recipes =
            QDir(m_repo + "/.flox/pkgs").entryList({"*.nix"}, QDir::Files, QDir::Name);
        QCOMPARE(recipes.size(), 6);
        QCOMPARE(yaml.count(QLatin1String("          - variant: \"")), recipes.size());
        for (const QString& recipe : recipes)
            QVERIFY(yaml.contains("- variant: \"" + recipe.chopped(4) + "\"\n"));
        QVERIFY(yaml.contains("\n      fail-fast: false\n"));
        QVERIFY(yaml.contains("\n    timeout-minutes: 300\n"));
        QVERIFY(yaml.contains("run: \"flox build \\\"$VARIANT\\\"\""));
        QVERIFY(yaml.contains("nix build -f \\\".flox/pkgs/$VARIANT.nix\\\" -L"));
        QVERIFY(yaml.contains("flox publish -o acme"));
        QVERIFY(yaml.contains("EXPECTED_TORCH: \"2.9.1\""));
        QVERIFY(!yaml.contains('\t'));

        // Chosen variants only, to stdout.
        r = run({"export-ci", m_repo, "pytorch-python313-cpu-avx2", "-o", "-"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QCOMPARE(r.out.count(QLatin1String("- variant: ")), 1);
        QVERIFY(r.out.contains("cuda: \"None\""));
        QVERIFY(!r.out.contains("flox publish"));

        r = run({"export-ci", m_repo, "nope", "-o", "-"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("no recipe for variant 'nope'"));
        r = run({"export-ci", m_dir.filePath("empty"), "-o", "-"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("no recipe directory"));
    }

    // The runner follows the platform of the variant's ISA (the catalog's), not fragments of
    // the name: an ARM ISA builds on an ARM runner, mps on macOS, anything else on x86 Linux.
    void ciRunnerFollowsTheIsaPlatform_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("runner");
        QTest::newRow("arm gpu") << "pytorch-python313-cuda13_0-sm121-armv9"
                                 << "ubuntu-24.04-arm";
        QTest::newRow("arm 8.2") << "pytorch-python313-cuda13_0-sm110-armv8_2"
                                 << "ubuntu-24.04-arm";
        QTest::newRow("darwin") << "pytorch-python313-darwin-mps"
                                << "macos-14";
        QTest::newRow("x86 gpu") << "pytorch-python313-cuda12_8-sm90-avx512"
                                 << "ubuntu-latest";
        QTest::newRow("cpu") << "pytorch-python313-cpu-avx2"
                             << "ubuntu-latest";
        QTest::newRow("a word, not an ISA") << "armvx-python313-cpu-avx2"
                                            << "ubuntu-latest";
    }

    void ciRunnerFollowsTheIsaPlatform()
    {
        QFETCH(QString, variant);
        QFETCH(QString, runner);
        QCOMPARE(CiWorkflow(Catalog::builtin()).runnerFor(variant), runner);
    }

    void exportedWorkflowParsesAndItsVerifyStepWorks()
    {
        const QString file = m_dir.filePath("ci/verify.yml");
        const Result r = run({"export-ci", m_repo, "--output", file, "--torch-version", "2.9.1"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        // Debian's python3 with python3-yaml, which packaging/setup.sh installs.
        const QString python3 = QStringLiteral("/usr/bin/python3");
        QProcess python;
        python.start(python3, {"-c", "import yaml"});
        const bool haveYaml = python.waitForFinished() &&
                              python.exitStatus() == QProcess::NormalExit && python.exitCode() == 0;
        QVERIFY2(haveYaml, "python3-yaml is missing: run packaging/setup.sh deps");
        {
            // A real YAML parser reads it and finds the structure GitHub expects.
            python.start(python3,
                         {"-c",
                          "import sys, yaml\n"
                          "d = yaml.safe_load(open(sys.argv[1]))\n"
                          "job = d['jobs']['build']\n"
                          "assert d[True]['workflow_dispatch'] == {}\n"
                          "assert job['strategy']['fail-fast'] is False\n"
                          "assert job['timeout-minutes'] == 300\n"
                          "inc = job['strategy']['matrix']['include']\n"
                          "print(len(inc), ' '.join(e['variant'] for e in inc))\n"
                          "print([s['name'] for s in job['steps']].index('Verify torch, CUDA and "
                          "Python'))\n",
                          file});
            QVERIFY(python.waitForFinished());
            const QString out = QString::fromUtf8(python.readAllStandardOutput());
            QVERIFY2(python.exitCode() == 0, qPrintable(out + python.readAllStandardError()));
            QVERIFY(out.startsWith("6 pytorch-python313-cpu-avx2 "));
        }
        // Textual extraction of the verification script, run with bash on a real result.
        const QString yaml = QString::fromUtf8(test::readFile(file));
        const QString marker = QStringLiteral("        run: |\n");
        const qsizetype start = yaml.indexOf(marker);
        QVERIFY(start > 0);
        QString script;
        for (const QString& line : yaml.mid(start + marker.size()).split('\n')) {
            if (!line.startsWith(QLatin1String("          ")))
                break;
            script += line.mid(10) + '\n';
        }
        QVERIFY(script.contains("import torch"));
        // Build the CPU variant so its result exists, then run the step as CI would.
        const Result built = run({"build", m_repo, "pytorch-python313-cpu-avx2", "--no-verify"});
        QVERIFY2(built.exitCode == 0, qPrintable(describe(built)));
        auto verify = [&](const QString& cuda, const QString& torch) {
            QProcess bash;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("VARIANT", "pytorch-python313-cpu-avx2");
            env.insert("EXPECTED_PYTHON", "3.13");
            env.insert("EXPECTED_CUDA", cuda);
            env.insert("EXPECTED_TORCH", torch);
            bash.setProcessEnvironment(env);
            bash.setWorkingDirectory(m_repo);
            bash.setProcessChannelMode(QProcess::MergedChannels);
            bash.start("bash", {"-c", script});
            bash.waitForFinished();
            return qMakePair(bash.exitCode(), QString::fromUtf8(bash.readAll()));
        };
        auto [ok, okOut] = verify("None", "2.9.1");
        QVERIFY2(ok == 0, qPrintable(okOut));
        auto [bad, badOut] = verify("12.9", "2.9.1");
        QCOMPARE(bad, 1);
        QVERIFY2(badOut.contains("::error::CUDA None, expected 12.9"), qPrintable(badOut));
    }
};

QTEST_GUILESS_MAIN(TestBuildCli)
#include "tst_buildcli.moc"
