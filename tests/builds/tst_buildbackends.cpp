// Command construction of every backend, backend auto-selection (with a fake flox on PATH),
// name validation, progress parsing and the verification comparison.

#include "buildfixture.h"
#include "builds/buildbackend.h"
#include "builds/buildersshoptions.h"
#include "builds/buildqueue.h"
#include "builds/custombackend.h"
#include "builds/floxbackend.h"
#include "builds/nixbackend.h"
#include "builds/progressparser.h"
#include "builds/resultverifier.h"

#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <csignal>
#include <cstring>

using namespace rg;

class TestBuildBackends : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_repo;

    BuildTarget target(const QString& variant) const
    {
        QString error;
        auto t = BuildTarget::resolve(m_repo, variant, QStringLiteral(".flox/pkgs"), &error);
        if (!t)
            qWarning() << error;
        return t.value_or(BuildTarget{});
    }

private slots:
    void initTestCase()
    {
        test::configureNix();
        QVERIFY(m_dir.isValid());
        m_repo = m_dir.filePath(QStringLiteral("repo"));
        QVERIFY(test::copyFixtureRepo(m_repo));
    }

    void cleanup() { NixBackend::setNewCliOverride(std::nullopt); }

    void validatesNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("valid");
        QTest::newRow("canonical") << "pytorch-python313-cuda13_0-sm120-avx512" << true;
        QTest::newRow("dots and plus") << "torch2.9.1+cu129" << true;
        QTest::newRow("leading dash") << "-rf" << false;
        QTest::newRow("space") << "a b" << false;
        QTest::newRow("shell") << "x;rm -rf ~" << false;
        QTest::newRow("slash") << "../etc/passwd" << false;
        QTest::newRow("empty") << "" << false;
        QTest::newRow("dollar") << "a$(id)" << false;
    }
    void validatesNames()
    {
        QFETCH(QString, name);
        QFETCH(bool, valid);
        QCOMPARE(BuildTarget::isValidName(name), valid);
    }

    void resolvesRecipeFiles()
    {
        QString error;
        const auto t =
            BuildTarget::resolve(m_repo, QStringLiteral("pytorch-python313-cpu-avx2.nix"),
                                 QStringLiteral(".flox/pkgs"), &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->variant, QStringLiteral("pytorch-python313-cpu-avx2"));
        QCOMPARE(t->pname, t->variant);
        QVERIFY(
            t->recipeFile.endsWith(QLatin1String("/.flox/pkgs/pytorch-python313-cpu-avx2.nix")));
        QCOMPARE(t->resultLink(),
                 QDir(t->repository).filePath("result-pytorch-python313-cpu-avx2"));
        QCOMPARE(t->expected.cuda, QStringLiteral("None"));
        QCOMPARE(t->expected.python, QStringLiteral("3.13"));

        QVERIFY(!BuildTarget::resolve(m_repo, QStringLiteral("pytorch-python313-cpu-avx9"),
                                      QStringLiteral(".flox/pkgs"), &error));
        QVERIFY2(error.contains(QLatin1String("no recipe for variant")), qPrintable(error));
        QVERIFY(!BuildTarget::resolve(m_repo, QStringLiteral("x;id"), QStringLiteral(".flox/pkgs"),
                                      &error));
        QVERIFY2(error.contains(QLatin1String("invalid variant name")), qPrintable(error));
    }

    void floxCommands()
    {
        BuildSettings settings;
        settings.nixOptions = {QStringLiteral("cores=8")};
        settings.maxJobs = 2;
        settings.publishOrg = QStringLiteral("my-org");
        const BuildTarget t = target(QStringLiteral("pytorch-python313-cuda12_9-sm90-avx512"));
        QString error;
        const auto build = FloxBackend().buildProcess(t, settings, &error);
        QVERIFY2(build, qPrintable(error));
        QCOMPARE(build->program, QStringLiteral("flox"));
        QCOMPARE(build->arguments,
                 QStringList({"build", "pytorch-python313-cuda12_9-sm90-avx512"}));
        QCOMPARE(build->workingDirectory, t.repository);
        QCOMPARE(build->resultPath,
                 t.repository + "/result-pytorch-python313-cuda12_9-sm90-avx512");
        // flox runs Nix itself: the options ride along in NIX_CONFIG after the inherited ones.
        const QString config = build->environment.value(QStringLiteral("NIX_CONFIG"));
        QVERIFY2(config.startsWith(QLatin1String("build-users-group =")), qPrintable(config));
        QVERIFY2(config.endsWith(QLatin1String("\ncores = 8\nmax-jobs = 2")), qPrintable(config));

        const auto publish = FloxBackend().publishProcess(t, settings, &error);
        QVERIFY2(publish, qPrintable(error));
        QCOMPARE(publish->arguments, QStringList({"publish", "-o", "my-org",
                                                  "pytorch-python313-cuda12_9-sm90-avx512"}));
        QCOMPARE(publish->workingDirectory, t.repository);

        settings.publishOrg.clear();
        QVERIFY(!FloxBackend().publishProcess(t, settings, &error));
        QVERIFY2(error.contains(QLatin1String("organisation")), qPrintable(error));
        settings.publishOrg = QStringLiteral("org;id");
        QVERIFY(!FloxBackend().publishProcess(t, settings, &error));
    }

    void nixCommands()
    {
        BuildSettings settings;
        settings.nixOptions = {QStringLiteral("cores = 4"), QStringLiteral("nonsense")};
        settings.builders = QStringLiteral("ssh://big x86_64-linux");
        settings.maxJobs = 3;
        settings.store = QStringLiteral("/tmp/store");
        QString optionError;
        QCOMPARE(settings.nixOptionPairs(&optionError).size(), 3);
        QVERIFY(optionError.contains(QLatin1String("nonsense")));
        const BuildTarget t = target(QStringLiteral("pytorch-python313-cpu-avx2"));
        QString error;

        NixBackend::setNewCliOverride(true);
        auto spec = NixBackend().buildProcess(t, settings, &error);
        QVERIFY2(spec, qPrintable(error));
        QCOMPARE(spec->program, QStringLiteral("nix"));
        QCOMPARE(spec->arguments,
                 QStringList({"build", "-f", t.recipeFile, "-L", "--out-link",
                              "result-pytorch-python313-cpu-avx2", "--option", "cores", "4",
                              "--option", "builders", "ssh://big x86_64-linux", "--option",
                              "max-jobs", "3", "--store", "/tmp/store"}));
        QCOMPARE(spec->workingDirectory, t.repository);

        NixBackend::setNewCliOverride(false);
        spec = NixBackend().buildProcess(t, settings, &error);
        QVERIFY2(spec, qPrintable(error));
        QCOMPARE(spec->program, QStringLiteral("nix-build"));
        QCOMPARE(spec->arguments.mid(0, 3),
                 QStringList({t.recipeFile, "-o", "result-pytorch-python313-cpu-avx2"}));
        QVERIFY(spec->arguments.contains(QStringLiteral("--store")));

        // With builders, ssh gives up on a silent builder instead of waiting for TCP, and the
        // builds share a connection per builder, in a directory of this process's own, kept
        // apart per builders text; the user's own NIX_SSHOPTS stands instead, and without
        // builders nothing is set.
        const QString options = spec->environment.value(QStringLiteral("NIX_SSHOPTS"));
        QCOMPARE(options, BuilderSshOptions::forBuilders(settings.builders));
        QVERIFY(options.startsWith(BuilderSshOptions::timeLimits));
        QVERIFY(options.contains(QLatin1String("ServerAliveInterval=")));
        const QString sockets = BuilderSshOptions::socketDirectory();
        QVERIFY(!sockets.isEmpty());
        const QFileDevice::Permissions others = QFileDevice::ReadGroup | QFileDevice::WriteGroup |
                                                QFileDevice::ExeGroup | QFileDevice::ReadOther |
                                                QFileDevice::WriteOther | QFileDevice::ExeOther;
        QVERIFY(QFileInfo(sockets).isDir());
        QVERIFY(!(QFileInfo(sockets).permissions() & others));
        QVERIFY2(options.contains(QStringLiteral("-o ControlMaster=auto")) &&
                     options.contains(QStringLiteral("-o ControlPath=") + sockets + '/'),
                 qPrintable(options));
        QVERIFY(BuilderSshOptions::forBuilders(
                    QStringLiteral("ssh://big x86_64-linux /other/key")) != options);
        // A build on the builders left of a checked list rides on the list's connections.
        const QString whole = settings.builders + QStringLiteral("\nssh://down x86_64-linux");
        QCOMPARE(NixBackend()
                     .buildProcessWith(t, settings, false, whole)
                     .environment.value(QStringLiteral("NIX_SSHOPTS")),
                 BuilderSshOptions::forBuilders(whole));
        qputenv("NIX_SSHOPTS", "-p 2222");
        QVERIFY(!NixBackend()
                     .buildProcess(t, settings, &error)
                     ->environment.contains(QStringLiteral("NIX_SSHOPTS")));
        qunsetenv("NIX_SSHOPTS");
        settings.builders.clear();
        QVERIFY(!NixBackend()
                     .buildProcess(t, settings, &error)
                     ->environment.contains(QStringLiteral("NIX_SSHOPTS")));
    }

    void probesTheNewCli()
    {
        // The real Nix 2.8: enabled by our NIX_CONFIG, disabled without the feature.
        QVERIFY2(NixBackend::hasNewCli(), qPrintable(NixBackend::probeMessage()));
        QVERIFY(NixBackend::probeMessage().isEmpty());
        const QByteArray saved = qgetenv("NIX_CONFIG");
        qputenv("NIX_CONFIG", "build-users-group =\nsandbox = false\nsubstituters =");
        const bool withoutFeature = NixBackend::hasNewCli();
        const QString why = NixBackend::probeMessage();
        qputenv("NIX_CONFIG", saved);
        QVERIFY(!withoutFeature);
        // A failed probe says why in nix's own words (the disabled experimental feature).
        QVERIFY2(why.contains(QStringLiteral("experimental")), qPrintable(why));
        QVERIFY(NixBackend::hasNewCli()); // cached per configuration, not stuck on one answer
    }

    void customCommands()
    {
        BuildSettings settings;
        settings.customCommand =
            QStringLiteral("my-builder --file {file} --name='{variant} x' -o{out} \"{repo}\"");
        const BuildTarget t = target(QStringLiteral("pytorch-python313-cpu-avx2"));
        QString error;
        const auto spec = CustomBackend().buildProcess(t, settings, &error);
        QVERIFY2(spec, qPrintable(error));
        QCOMPARE(spec->program, QStringLiteral("my-builder"));
        QCOMPARE(spec->arguments,
                 QStringList({"--file", t.recipeFile, "--name=pytorch-python313-cpu-avx2 x",
                              "-o" + t.resultLink(), t.repository}));

        settings.customCommand = QStringLiteral("build {varient}");
        QVERIFY(!CustomBackend().buildProcess(t, settings, &error));
        QVERIFY2(error.contains(QLatin1String("{varient}")), qPrintable(error));
        settings.customCommand = QStringLiteral("   ");
        QVERIFY(!CustomBackend().buildProcess(t, settings, &error));

        BuildTarget evil = t;
        evil.pname = QStringLiteral("x; rm -rf /");
        settings.customCommand = QStringLiteral("echo {pname}");
        QVERIFY(!CustomBackend().buildProcess(evil, settings, &error));
        QVERIFY(!FloxBackend().buildProcess(evil, settings, &error));
        QVERIFY(!NixBackend().buildProcess(evil, settings, &error));
    }

    void splitsTemplatesLikeAShell()
    {
        QCOMPARE(*CustomBackend::splitWords(QStringLiteral("  a  'b c' \"d \\\" e\" f\\ g '' ")),
                 QStringList({"a", "b c", "d \" e", "f g", ""}));
        QCOMPARE(*CustomBackend::splitWords(QStringLiteral("x'y'z")), QStringList({"xyz"}));
        QVERIFY(!CustomBackend::splitWords(QStringLiteral("echo 'open")));
        BuildSettings settings;
        settings.customCommand = QStringLiteral("echo \"{variant}");
        QString error;
        QVERIFY(!CustomBackend().buildProcess(
            BuildTarget::resolve(m_repo, "pytorch-python313-cpu-avx2", ".flox/pkgs", nullptr)
                .value(),
            settings, &error));
        QVERIFY2(error.contains(QLatin1String("unbalanced quotes")), qPrintable(error));
    }

    void selectsBackendFromRepository()
    {
        const QString fakeFlox = QStringLiteral(RG_FIXTURES_DIR "/build/fake-flox");
        const QString path = fakeFlox + ":/usr/bin:/bin";
        QCOMPARE(BuildBackend::detect(m_repo, path), BackendKind::Flox);
        QCOMPARE(BuildBackend::detect(m_repo, QStringLiteral("/usr/bin:/bin")), BackendKind::Nix);
        QTemporaryDir plain;
        QCOMPARE(BuildBackend::detect(plain.path(), path), BackendKind::Nix);
        QCOMPARE(BuildBackend::create(BackendKind::Custom, m_repo)->kind(), BackendKind::Custom);
        QCOMPARE(BuildBackend::create(BackendKind::Nix, m_repo)->kind(), BackendKind::Nix);
    }

    void runsFakeFloxThroughTheQueue()
    {
        // Auto-selection with the fake flox first on the process's PATH, then a real run.
        const QByteArray savedPath = qgetenv("PATH");
        qputenv("PATH", QByteArray(RG_FIXTURES_DIR "/build/fake-flox:") + savedPath);
        auto restore = qScopeGuard([&] { qputenv("PATH", savedPath); });
        QCOMPARE(BuildBackend::detect(m_repo), BackendKind::Flox);

        BuildQueue queue;
        BuildSettings settings;
        settings.verify = false;
        settings.nixOptions = {QStringLiteral("cores=2")};
        queue.setSettings(settings);
        QSignalSpy finished(&queue, &BuildQueue::jobFinished);
        QString log;
        connect(&queue, &BuildQueue::jobLogAppended, this,
                [&](quint64, const QString& text) { log += text; });
        const quint64 id = queue.enqueue(target(QStringLiteral("pytorch-python313-cpu-avx2")));
        QVERIFY(id != 0);
        QVERIFY(finished.wait(20000));
        const BuildRecord* job = queue.job(id);
        QCOMPARE(job->backend, BackendKind::Flox);
        QCOMPARE(job->state, JobState::Succeeded);
        QVERIFY2(log.contains(QLatin1String("fake flox: build pytorch-python313-cpu-avx2")),
                 qPrintable(log));
        QVERIFY2(log.contains(QLatin1String("cwd: ") + QDir(m_repo).canonicalPath()),
                 qPrintable(log));
        QVERIFY2(log.contains(QLatin1String("cores = 2")), qPrintable(log));
    }

    void settingsRoundTrip()
    {
        QTemporaryDir dir;
        QSettings store(dir.filePath("s.ini"), QSettings::IniFormat);
        BuildSettings s;
        s.backend = BackendKind::Custom;
        s.customCommand = QStringLiteral("nix build -f {file}");
        s.nixOptions = {QStringLiteral("cores=4"), QStringLiteral("sandbox=false")};
        s.builders = QStringLiteral("ssh://a");
        s.maxJobs = 4;
        s.store = QStringLiteral("/s");
        s.concurrency = 3;
        s.publishOrg = QStringLiteral("org");
        s.verify = false;
        s.save(store);
        QCOMPARE(BuildSettings::load(store), s);
        QCOMPARE(backendKindFromName(QStringLiteral("FLOX")), BackendKind::Flox);
        QVERIFY(!backendKindFromName(QStringLiteral("bazel")));
    }

    // Where a build would download an output from: the caches the Nix options name, in order,
    // each once; other options and a key without a value name none.
    void binaryCachesFromTheNixOptions()
    {
        BuildSettings s;
        QCOMPARE(s.binaryCaches(), QStringList());
        s.nixOptions = {QStringLiteral("cores=4"),
                        QStringLiteral("substituters = https://cache.nixos.org  file:///srv/c"),
                        QStringLiteral("trusted-substituters=https://t.example"),
                        QStringLiteral("extra-substituters=s3://b https://cache.nixos.org"),
                        QStringLiteral("substituters")};
        QCOMPARE(s.binaryCaches(),
                 (QStringList{QStringLiteral("https://cache.nixos.org"),
                              QStringLiteral("file:///srv/c"), QStringLiteral("s3://b")}));
    }

    void parsesProgress_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<int>("done");
        QTest::addColumn<int>("total");
        QTest::newRow("ninja") << "[12/3456] Building CXX object a.o" << 12 << 3456;
        QTest::newRow("ninja behind nix -L") << "torch> [7/9] Linking CXX shared library" << 7 << 9;
        QTest::newRow("ninja coloured") << "\x1b[1m[3/4]\x1b[0m \x1b[32mBuilding\x1b[0m" << 3 << 4;
        QTest::newRow("nix status")
            << "[2/5 built, 1/3/7 copied (10 MiB)] building torch" << 2 << 5;
        QTest::newRow("plain") << "Building CXX object a.o" << 0 << 0;
        QTest::newRow("array index") << "x = a[1/2]" << 0 << 0;
        QTest::newRow("done beyond total") << "[9/3] nope" << 0 << 0;
        QTest::newRow("zero total") << "[0/0] nope" << 0 << 0;
        QTest::newRow("unterminated") << "[1/2" << 0 << 0;
    }
    void parsesProgress()
    {
        QFETCH(QString, line);
        QFETCH(int, done);
        QFETCH(int, total);
        const auto p = ProgressParser::parseLine(line);
        if (total == 0) {
            QVERIFY(!p);
        } else {
            QVERIFY(p);
            QCOMPARE(p->done, done);
            QCOMPARE(p->total, total);
        }
    }

    void expectationsFromVariantNames()
    {
        auto e = VerificationExpectation::fromVariant(
            QStringLiteral("pytorch-python313-cuda13_0-sm120-avx512"), QStringLiteral("2.10.0"));
        QCOMPARE(e.python, QStringLiteral("3.13"));
        QCOMPARE(e.cuda, QStringLiteral("13.0"));
        QCOMPARE(e.torch, QStringLiteral("2.10.0"));
        e = VerificationExpectation::fromVariant(QStringLiteral("pytorch-py312-sm90-avx512"));
        QCOMPARE(e.python, QStringLiteral("3.12"));
        QVERIFY(e.cuda.isEmpty()); // legacy names do not say which CUDA
        e = VerificationExpectation::fromVariant(QStringLiteral("pytorch210-python313-darwin-mps"));
        QCOMPARE(e.cuda, QStringLiteral("None"));
        QVERIFY(VerificationExpectation::fromVariant(QStringLiteral("sleeper-a")).isEmpty());
    }

    void comparesVerificationOutput()
    {
        VerificationExpectation e{QStringLiteral("2.9.1"), QStringLiteral("12.9"),
                                  QStringLiteral("3.13")};
        auto r = ResultVerifier::compare(e, QStringLiteral("2.9.1\n12.9\n"),
                                         QStringLiteral("Python 3.13.1\n"));
        QVERIFY2(r.passed(), qPrintable(r.reason));
        QCOMPARE(r.python, QStringLiteral("3.13.1"));
        r = ResultVerifier::compare(e, QStringLiteral("UserWarning: x\n2.9.1+cu129\n12.9\n"),
                                    QStringLiteral("Python 3.13.11"));
        QVERIFY2(r.passed(), qPrintable(r.reason));
        r = ResultVerifier::compare(e, QStringLiteral("2.9.0\nNone\n"),
                                    QStringLiteral("Python 3.12.8"));
        QCOMPARE(r.status, VerificationResult::Status::Failed);
        QCOMPARE(r.reason, QStringLiteral("torch 2.9.0, expected 2.9.1; CUDA None, expected 12.9; "
                                          "Python 3.12.8, expected 3.13.x"));
        r = ResultVerifier::compare(e, QStringLiteral("2.9.10\n12.9\n"),
                                    QStringLiteral("Python 3.13.1"));
        QVERIFY(!r.passed()); // 2.9.10 is not 2.9.1
        r = ResultVerifier::compare(e, QStringLiteral("2.9.1\n12.9\n"),
                                    QStringLiteral("Python 3.130.1"));
        QVERIFY(!r.passed());
        r = ResultVerifier::compare(e, QString(), QStringLiteral("Python 3.13.1"));
        QVERIFY(!r.passed());
        QVERIFY(r.reason.contains(QLatin1String("printed 0 line(s)")));

        QCOMPARE(
            ResultVerifier::parseClosureSize(QStringLiteral("/nix/store/abc-torch\t  123456789\n")),
            123456789);
        QCOMPARE(ResultVerifier::parseClosureSize(QStringLiteral("error: nope")), -1);
    }

    // A result whose Python cannot import torch says how it died: the signal by name (SIGILL,
    // what a build for an ISA this CPU lacks dies of), the time limit, or the exit code, each
    // with what the program printed.
    void verificationSaysHowPythonDied_data()
    {
        QTest::addColumn<QByteArray>("python");
        QTest::addColumn<QString>("reason");
        // The signal's description is the C library's, in the locale's language.
        const auto described = [](int signal) { return QString::fromLocal8Bit(strsignal(signal)); };
        QTest::newRow("SIGILL") << QByteArray("ulimit -c 0; echo importing; kill -ILL $$")
                                << QStringLiteral("failed (killed by SIGILL (%1): most likely an "
                                                  "instruction this machine's CPU lacks, from a "
                                                  "build for a newer ISA): importing")
                                       .arg(described(SIGILL));
        QTest::newRow("SIGSEGV")
            << QByteArray("ulimit -c 0; kill -SEGV $$")
            << QStringLiteral("failed (killed by SIGSEGV (%1)): ").arg(described(SIGSEGV));
        QTest::newRow("time limit")
            << QByteArray("exec sleep 30") << QStringLiteral("failed (no answer within 0.5 s): ");
        QTest::newRow("exit code")
            << QByteArray("echo 'ImportError: libcuda.so.1: cannot open shared object file'; "
                          "exit 1")
            << QStringLiteral("failed (exit code 1): ImportError: libcuda.so.1: cannot open "
                              "shared object file");
    }
    void verificationSaysHowPythonDied()
    {
        QFETCH(QByteArray, python);
        QFETCH(QString, reason);
        QTemporaryDir result;
        QVERIFY(QDir().mkpath(result.filePath(QStringLiteral("bin"))));
        QFile script(result.filePath(QStringLiteral("bin/python")));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("#!/bin/sh\n" + python + "\n");
        script.close();
        QVERIFY(script.setPermissions(script.permissions() | QFileDevice::ExeOwner));
        ResultVerifier verifier;
        verifier.setTimeoutMs(500);
        QSignalSpy finished(&verifier, &ResultVerifier::finished);
        verifier.start(result.path(), {}, true);
        QVERIFY(finished.wait(20000));
        const auto r = finished.first().first().value<VerificationResult>();
        QCOMPARE(r.status, VerificationResult::Status::Failed);
        QCOMPARE(r.reason, QStringLiteral("`bin/python -c \"import torch …\"` ") + reason);
    }

    void displaysCommands()
    {
        ProcessSpec spec;
        spec.program = QStringLiteral("nix");
        spec.arguments = {QStringLiteral("build"), QStringLiteral("a b"), QStringLiteral("it's")};
        QCOMPARE(spec.displayString(), QStringLiteral("nix build 'a b' 'it'\\''s'"));
    }
};

QTEST_GUILESS_MAIN(TestBuildBackends)
#include "tst_buildbackends.moc"
