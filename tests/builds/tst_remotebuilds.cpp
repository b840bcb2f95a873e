// Builds on real remote builders: SSH servers in network namespaces of their own, each with its
// own Nix store (builderhosts.h), reached by Nix through the `builders` setting as any builder
// is. What is asserted comes from the hosts themselves: their stores, and the log their builds
// write.

#include "builderhosts.h"
#include "builds/buildercheck.h"
#include "builds/buildhistory.h"
#include "builds/buildqueue.h"
#include "builds/logstore.h"
#include "builds/nixbackend.h"
#include "itemmodels/buildjobsmodel.h"
#include "sessions/buildsession.h"

#include <QDir>
#include <QSignalSpy>
#include <QtTest>
#include <algorithm>
#include <optional>

using namespace rg;

class TestRemoteBuilds : public QObject
{
    Q_OBJECT

    struct Fixture
    {
        QTemporaryDir dir;
        LogStore logs{dir.filePath(QStringLiteral("logs"))};
        BuildHistory history{dir.filePath(QStringLiteral("history.json"))};
        BuildQueue queue;
        QString repo = dir.filePath(QStringLiteral("repo"));

        Fixture(const test::BuilderHosts& hosts, int concurrency)
        {
            queue.setLogStore(&logs);
            queue.setHistory(&history);
            BuildSettings s;
            s.backend = BackendKind::Nix;
            s.builders = hosts.machines();
            s.maxJobs = 0; // nothing builds here: every build goes to a builder
            s.concurrency = concurrency;
            queue.setSettings(s);
        }
        BuildTarget target(const test::BuilderHosts& hosts, const QString& name, int seconds,
                           int barrier = 1)
        {
            BuildTarget t;
            t.variant = t.pname = name;
            t.repository = repo;
            t.recipeFile = repo + QStringLiteral("/.flox/pkgs/") + name + QStringLiteral(".nix");
            return hosts.writeRecipe(t.recipeFile, name, seconds, barrier) ? t : BuildTarget{};
        }
        bool waitFinished(const QList<quint64>& ids, int timeoutMs = 90000)
        {
            return QTest::qWaitFor(
                [&] {
                    return std::all_of(ids.begin(), ids.end(), [&](quint64 id) {
                        return queue.job(id) && queue.job(id)->isFinished();
                    });
                },
                timeoutMs);
        }
        QString logOf(quint64 id)
        {
            queue.flushLog(id);
            return QString::fromUtf8(test::readFile(queue.job(id)->logPath));
        }
    };

    // The processes of the fixture build `name` that runs 300 s. The host's processes share the
    // suite's PID namespace: the build shows in /proc. The build's shell names it; the sleep it
    // runs does not, but is the only one of 300 s.
    static QStringList buildProcesses(const QString& name)
    {
        QStringList found;
        for (const QString& pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
            const QByteArray cmdline = test::readFile(QStringLiteral("/proc/%1/cmdline").arg(pid));
            if (cmdline.contains(name.toUtf8()) || cmdline.endsWith(QByteArray("sleep\0"
                                                                               "300\0",
                                                                               10)))
                found << pid;
        }
        return found;
    }

private slots:
    void initTestCase()
    {
        test::configureNix();
        NixBackend::hasNewCli();
    }

    // Nix copies the recipe's inputs to the builder, builds there, and copies the output
    // back; the job says which builder built it, while it runs and in the history.
    void buildsOnABuilderAndCopiesTheOutputBack()
    {
        test::BuilderHosts hosts;
        QString error;
        QVERIFY2(hosts.start(1, 1, {}, &error), qPrintable(error));
        Fixture f(hosts, 1);
        const BuildTarget target = f.target(hosts, QStringLiteral("remote-one"), 1);
        QVERIFY(!target.recipeFile.isEmpty());
        QSignalSpy placed(&f.queue, &BuildQueue::jobPlaced);
        QList<JobState> stateWhenPlaced;
        connect(&f.queue, &BuildQueue::jobPlaced, this,
                [&](quint64 id) { stateWhenPlaced << f.queue.job(id)->state; });
        const quint64 id = f.queue.enqueue(target, &error);
        QVERIFY2(id, qPrintable(error));
        QVERIFY(f.waitFinished({id}));
        const BuildRecord* job = f.queue.job(id);
        QVERIFY2(job->state == JobState::Succeeded, qPrintable(job->error + f.logOf(id)));

        const QString out = QFileInfo(target.resultLink()).symLinkTarget();
        QVERIFY2(out.startsWith(QLatin1String("/nix/store/")), qPrintable(out));
        QVERIFY2(hosts.hostHas(0, out), "the output is in the builder's own store");
        QCOMPARE(test::readFile(out + QStringLiteral("/host")), QByteArray("builder-1\n"));

        QVERIFY(job->builtOn());
        QCOMPARE(job->builtOn()->machine, QStringLiteral("ssh://root@10.231.1.2"));
        QVERIFY(job->builtOn()->derivation.endsWith(QLatin1String("-remote-one.drv")));
        QCOMPARE(job->builderLabel(), QStringLiteral("root@10.231.1.2"));
        QVERIFY(!placed.isEmpty());
        QCOMPARE(stateWhenPlaced.first(), JobState::Running);
        const BuildJobsModel jobs(&f.queue, &f.history);
        const QModelIndex builder = jobs.index(jobs.rowOf(id), BuildJobsModel::BuilderColumn);
        QCOMPARE(builder.data().toString(), QStringLiteral("root@10.231.1.2"));
        QVERIFY2(builder.data(Qt::ToolTipRole)
                     .toString()
                     .endsWith(QLatin1String("-remote-one.drv built on root@10.231.1.2")),
                 qPrintable(builder.data(Qt::ToolTipRole).toString()));

        const BuildHistory reread(f.dir.filePath(QStringLiteral("history.json")));
        QVERIFY2(reread.loadError().isEmpty(), qPrintable(reread.loadError()));
        QVERIFY(reread.record(id));
        QCOMPARE(reread.record(id)->placements, job->placements);
    }

    // The check before a batch opens one SSH connection per builder, and the batch's builds use
    // it instead of each logging in again: the host's SSH server counts the logins.
    void aBatchLogsInToEachBuilderOnce()
    {
        test::BuilderHosts hosts;
        QString error;
        QVERIFY2(hosts.start(1, 1, {}, &error), qPrintable(error));
        Fixture f(hosts, 1);
        QList<BuildTarget> targets;
        for (const char* name : {"shared-one", "shared-two", "shared-three"})
            targets << f.target(hosts, QString::fromLatin1(name), 0);
        const QList<quint64> ids = f.queue.enqueue(targets);
        QCOMPARE(ids.size(), 3);
        QVERIFY(f.waitFinished(ids));
        for (quint64 id : ids) {
            const BuildRecord* job = f.queue.job(id);
            QVERIFY2(job->state == JobState::Succeeded, qPrintable(job->error + f.logOf(id)));
            QVERIFY(job->builtOn() && job->builtOn()->isRemote());
        }
        QCOMPARE(hosts.logins(0), 1);
    }

    // Six variants over three builders with two slots each: the queue starts as many builds as
    // the builders have slots (the concurrency set for builds here is 1), Nix puts two on
    // each, and the builds see all six running at once.
    void sixVariantsOverThreeBuildersRunTogether()
    {
        test::BuilderHosts hosts;
        QString error;
        QVERIFY2(hosts.start(3, 2, {}, &error), qPrintable(error));
        Fixture f(hosts, 1);
        QList<quint64> ids;
        for (int i = 1; i <= 6; ++i) {
            const BuildTarget t = f.target(hosts, QStringLiteral("remote-%1").arg(i), 1, 6);
            ids << f.queue.enqueue(t, &error);
            QVERIFY2(ids.last(), qPrintable(error));
        }
        QVERIFY(f.waitFinished(ids, 300000));
        QMap<QString, int> perBuilder;
        for (quint64 id : ids) {
            const BuildRecord* job = f.queue.job(id);
            QVERIFY2(job->state == JobState::Succeeded, qPrintable(job->error + f.logOf(id)));
            ++perBuilder[job->builderLabel()];
        }
        const QStringList log = hosts.sharedLog();
        QString logs = log.join('\n');
        for (quint64 id : ids)
            logs += QStringLiteral("\n--- job %1:\n").arg(id) + f.logOf(id);
        QVERIFY2(log.filter(QStringLiteral(" saw 6 running")).size() == 6, qPrintable(logs));
        QMap<QString, int> startsPerHost;
        for (const QString& line : log.filter(QStringLiteral(" start ")))
            ++startsPerHost[line.section(QLatin1Char(' '), 0, 0)];
        const QMap<QString, int> twoEach{{"builder-1", 2}, {"builder-2", 2}, {"builder-3", 2}};
        QCOMPARE(startsPerHost, twoEach);
        const QMap<QString, int> twoPerLabel{
            {"root@10.231.1.2", 2}, {"root@10.231.2.2", 2}, {"root@10.231.3.2", 2}};
        QCOMPARE(perBuilder, twoPerLabel);
    }

    // The grid's build state names the builder, while the build runs and after it.
    void theRecipesBuildStateSaysWhereItWasBuilt()
    {
        test::BuilderHosts hosts;
        QString error;
        QVERIFY2(hosts.start(1, 1, {}, &error), qPrintable(error));
        QTemporaryDir dir;
        const QString repo = dir.filePath(QStringLiteral("repo"));
        QVERIFY(hosts.writeRecipe(repo + QStringLiteral("/.flox/pkgs/remote-cell.nix"),
                                  QStringLiteral("remote-cell"), 2));
        BuildSession session(dir.filePath(QStringLiteral("data")));
        BuildSettings s;
        s.backend = BackendKind::Nix;
        s.builders = hosts.machines();
        s.maxJobs = 0;
        s.verify = false;
        session.setSettings(s);
        QStringList buildersWhileRunning;
        connect(&session, &BuildSession::variantStateChanged, this, [&](const QString& variant) {
            const VariantBuildState state = session.recipeState(repo, variant);
            if (state.running && state.builtRemotely)
                buildersWhileRunning << state.builder;
        });
        QStringList errors;
        const QList<quint64> ids = session.build(repo, {QStringLiteral("remote-cell")}, &errors);
        QVERIFY2(ids.size() == 1, qPrintable(errors.join('\n')));
        QVERIFY(QTest::qWaitFor([&] { return session.queue()->job(ids[0])->isFinished(); }, 90000));
        QCOMPARE(session.queue()->job(ids[0])->state, JobState::Succeeded);
        QVERIFY(!buildersWhileRunning.isEmpty());
        QCOMPARE(buildersWhileRunning.first(), QStringLiteral("root@10.231.1.2"));
        const VariantBuildState after = session.recipeState(repo, QStringLiteral("remote-cell"));
        QVERIFY(after.hasResult());
        QCOMPARE(after.builder, QStringLiteral("root@10.231.1.2"));
        QVERIFY(after.builtRemotely);
    }

    // `recipegrid build --builders @FILE --local-jobs 0`: the builders from a file, and the
    // summary says where each variant was built; a malformed line is named before Nix runs.
    void theCommandLineTakesBuilders()
    {
        test::BuilderHosts hosts;
        QString error;
        QVERIFY2(hosts.start(1, 1, {}, &error), qPrintable(error));
        QTemporaryDir dir;
        const QString repo = dir.filePath(QStringLiteral("repo"));
        QVERIFY(hosts.writeRecipe(repo + QStringLiteral("/.flox/pkgs/remote-cli.nix"),
                                  QStringLiteral("remote-cli"), 0));
        const QString machines = dir.filePath(QStringLiteral("machines"));
        QFile file(machines);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("# the farm\n" + hosts.machines().toUtf8() +
                   "\nssh://typo x86_64-linux - two\n");
        file.close();
        const QStringList base{QStringLiteral("build"),        repo,
                               QStringLiteral("remote-cli"),   QStringLiteral("--backend"),
                               QStringLiteral("nix"),          QStringLiteral("--no-verify"),
                               QStringLiteral("--data-dir"),   dir.filePath(QStringLiteral("data")),
                               QStringLiteral("--local-jobs"), QStringLiteral("0"),
                               QStringLiteral("--builders")};
        QProcess bad;
        bad.start(QStringLiteral(RG_BINARY_DIR "/app/recipegrid"),
                  base + QStringList{"@" + machines});
        QVERIFY(bad.waitForFinished(60000));
        QCOMPARE(bad.exitCode(), 2);
        QCOMPARE(QString::fromUtf8(bad.readAllStandardError()),
                 QStringLiteral("recipegrid build: --builders: %1 line 3 (typo): max jobs 'two' is "
                                "not a whole number\n")
                     .arg(machines));
        QVERIFY(!QFileInfo::exists(repo + QStringLiteral("/result-remote-cli")));

        // With a builder no route leads to beside the host: it is named down, and the build
        // goes to the host.
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(hosts.machines().toUtf8() + "\nssh://root@10.231.99.2 - " +
                   hosts.clientKey().toUtf8() + " 1\n");
        file.close();
        QProcess good;
        good.start(QStringLiteral(RG_BINARY_DIR "/app/recipegrid"),
                   base + QStringList{"@" + machines});
        QVERIFY(good.waitForFinished(120000));
        const QString out = QString::fromUtf8(good.readAllStandardOutput());
        const QString err = QString::fromUtf8(good.readAllStandardError());
        QVERIFY2(good.exitCode() == 0, qPrintable(out + err));
        QVERIFY2(err.contains(QLatin1String("recipegrid build: root@10.231.99.2 is down (")) &&
                     err.contains(QLatin1String("): nothing goes to it\n")),
                 qPrintable(err));
        QVERIFY2(out.contains(QLatin1String("# root@10.231.99.2 is down (")), qPrintable(out));
        QVERIFY2(out.contains(QLatin1String("remote-cli: succeeded in ")), qPrintable(out));
        QVERIFY2(out.contains(QLatin1String("; built on root@10.231.1.2")), qPrintable(out));
        const QString result =
            QFileInfo(repo + QStringLiteral("/result-remote-cli")).symLinkTarget();
        QVERIFY2(hosts.hostHas(0, result), qPrintable(result));
    }

    // A builder whose link is cut mid-build: its job fails naming it, and the variant is built
    // again, once, on the builder that is left; both attempts are in the history.
    void aBuilderLostMidBuildIsReplaced()
    {
        qputenv("NIX_SSHOPTS",
                "-o ServerAliveInterval=1 -o ServerAliveCountMax=2 -o ConnectTimeout=3");
        auto restore = qScopeGuard([] { qunsetenv("NIX_SSHOPTS"); });
        test::BuilderHosts hosts;
        QString error;
        QVERIFY2(hosts.start(2, 1, {}, &error), qPrintable(error));
        Fixture f(hosts, 1);
        const quint64 id = f.queue.enqueue(f.target(hosts, QStringLiteral("lost"), 8), &error);
        QVERIFY2(id, qPrintable(error));
        QVERIFY(QTest::qWaitFor([&] { return f.queue.job(id)->builtOn() != nullptr; }, 60000));
        const QString first = f.queue.job(id)->builtOn()->machine;
        const int lost = first.endsWith(QLatin1String("10.231.1.2")) ? 0 : 1;
        QVERIFY(QTest::qWaitFor(
            [&] { return hosts.sharedLog().filter(QStringLiteral(" start lost")).size() == 1; },
            30000));
        QVERIFY(hosts.cutLink(lost));
        QVERIFY(f.waitFinished({id}, 120000));
        const BuildRecord* job = f.queue.job(id);
        QCOMPARE(job->state, JobState::Failed);
        const QString lostLabel = QStringLiteral("root@10.231.%1.2").arg(lost + 1);
        QVERIFY2(job->error.contains(lostLabel + QStringLiteral(": lost the connection")),
                 qPrintable(job->error));
        QCOMPARE(job->builderFailures().size(), 1); // ssh and Nix both say it: one loss

        const QList<quint64> ids = f.queue.jobIds();
        QCOMPARE(ids.size(), 2);
        const quint64 retry = ids.last();
        QCOMPARE(f.queue.job(retry)->retryOf, id);
        QVERIFY(f.waitFinished({retry}, 120000));
        const BuildRecord* again = f.queue.job(retry);
        QVERIFY2(again->state == JobState::Succeeded, qPrintable(again->error + f.logOf(retry)));
        QCOMPARE(again->builderLabel(), QStringLiteral("root@10.231.%1.2").arg(2 - lost));
        QVERIFY(!f.queue.job(retry)->command.contains(QStringLiteral("10.231.%1.2").arg(lost + 1)));
        QVERIFY2(f.logOf(id).contains(
                     QStringLiteral("building it again on the builders left as job %1").arg(retry)),
                 qPrintable(f.logOf(id)));
        const QString out = QFileInfo(again->resultPath).symLinkTarget();
        QVERIFY2(hosts.hostHas(1 - lost, out), qPrintable(out));
        QVERIFY(f.history.record(id) && f.history.record(retry));
        QCOMPARE(f.history.record(retry)->retryOf, id);
    }

    // A suite that aborts while a builder builds for it leaves nothing: no process of its
    // hosts or its build, no mount of theirs, no link. The kernel ends them with the suite's
    // namespaces (in_builder_namespace.sh), whatever the suite did or did not clean up.
    void nothingIsLeftWhenTheSuiteDies()
    {
        QProcess suite;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("RG_IN_BUILDER_NAMESPACE")); // namespaces of its own
        suite.setProcessEnvironment(env);
        suite.start(QStringLiteral("bash"),
                    {QStringLiteral(RG_SOURCE_DIR "/tests/tools/in_builder_namespace.sh"),
                     QStringLiteral(RG_BINARY_DIR "/tests/builds/builderhostscrash")});
        QVERIFY(suite.waitForFinished(180000));
        const QString out = QString::fromUtf8(suite.readAllStandardOutput());
        QVERIFY2(suite.exitCode() != 0, qPrintable(out));
        QVERIFY2(out.contains(QLatin1String("building: yes")),
                 qPrintable(out + suite.readAllStandardError()));
        const QString token =
            out.section(QLatin1String("token: "), 1).section(QLatin1Char('\n'), 0, 0);
        const QString root =
            out.section(QLatin1String("root: "), 1).section(QLatin1Char('\n'), 0, 0);
        QVERIFY(token.startsWith(QLatin1String("doomed-")) && root.startsWith(QLatin1Char('/')));

        QStringList left;
        const auto scan = [&] {
            left.clear();
            for (const QString& pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
                const QByteArray cmdline =
                    test::readFile(QStringLiteral("/proc/%1/cmdline").arg(pid));
                if (cmdline.contains(token.toUtf8()) || cmdline.contains(root.toUtf8()))
                    left << pid + QLatin1Char(' ') +
                                QString::fromUtf8(cmdline).replace(QChar(0), QChar(' '));
            }
            return left.isEmpty();
        };
        // The kernel's killing is not instant: allow it a moment, never a dependence on it.
        QVERIFY2(QTest::qWaitFor(scan, 5000), qPrintable(left.join('\n')));
        QVERIFY(!test::readFile(QStringLiteral("/proc/self/mountinfo")).contains(root.toUtf8()));
        QString links;
        QVERIFY(test::BuilderHosts::run(QStringLiteral("ip"),
                                        {QStringLiteral("-o"), QStringLiteral("link")}, &links));
        QVERIFY2(!links.contains(QLatin1String("rgb")), qPrintable(links));
    }

    // Test Connections: each builder answers for itself, up, unreachable, or with a host key
    // that is not the one given; none waits for another.
    void checksEachBuilder()
    {
        qputenv("NIX_SSHOPTS", "-o ConnectTimeout=3");
        auto restore = qScopeGuard([] { qunsetenv("NIX_SSHOPTS"); });
        test::BuilderHosts hosts;
        QString error;
        QVERIFY2(hosts.start(2, 1, {}, &error), qPrintable(error));
        QList<BuilderMachine> machines = BuilderMachine::parse(hosts.machines());
        QCOMPARE(machines.size(), 2);
        BuilderMachine impostor = machines[0];
        impostor.publicHostKey = QString::fromLatin1(
            test::readFile(hosts.clientKey() + QStringLiteral(".pub")).trimmed().toBase64());
        machines << impostor;
        QVERIFY(hosts.cutLink(1));
        BuilderCheck check;
        QSignalSpy finished(&check, &BuilderCheck::finished);
        check.start(machines, 20000);
        QVERIFY(finished.wait(60000));
        const QList<BuilderHealth>& health = check.results();
        QCOMPARE(health.size(), 3);
        QVERIFY2(health[0].up, qPrintable(health[0].message));
        QCOMPARE(health[0].label, QStringLiteral("root@10.231.1.2"));
        QVERIFY(health[0].elapsedMs >= 0);
        QVERIFY(!health[1].up);
        QCOMPARE(health[1].label, QStringLiteral("root@10.231.2.2"));
        // Nix's words differ by version ("cannot connect to 'root@h'" in 2.8, "failed to start
        // SSH connection to 'root@h'" in 2.26); the builder and ssh's reason are what count.
        QVERIFY2(
            health[1].message.contains(QLatin1String("'root@10.231.2.2'")) &&
                health[1].message.contains(QLatin1String("connect to host 10.231.2.2 port 22")),
            qPrintable(health[1].message));
        QVERIFY(!health[2].up);
        QVERIFY2(health[2].message.contains(QLatin1String("'root@10.231.1.2'")) &&
                     health[2].message.endsWith(QLatin1String(": Host key verification failed.")),
                 qPrintable(health[2].message));
    }

    // Cancel ends the build on the builder too, and so does quitting (the queue's end): nothing
    // of it runs on the host a few seconds later.
    void cancelEndsTheRemoteBuild_data()
    {
        QTest::addColumn<bool>("quit");
        QTest::newRow("cancel") << false;
        QTest::newRow("quit") << true;
    }
    void cancelEndsTheRemoteBuild()
    {
        QFETCH(bool, quit);
        test::BuilderHosts hosts;
        QString error;
        QVERIFY2(hosts.start(1, 1, {}, &error), qPrintable(error));
        std::optional<Fixture> f(std::in_place, hosts, 1);
        const QString name = QStringLiteral("cancelled-") + test::randomNonce();
        const quint64 id = f->queue.enqueue(f->target(hosts, name, 300), &error);
        QVERIFY2(id, qPrintable(error));
        const auto startedThere = [&] {
            return !hosts.sharedLog().filter(QStringLiteral(" start ") + name).isEmpty();
        };
        // A job that ends before its build starts says why.
        (void)QTest::qWaitFor([&] { return startedThere() || f->queue.job(id)->isFinished(); },
                              60000);
        QVERIFY2(startedThere(),
                 qPrintable(QStringLiteral("%1 (%2) %3")
                                .arg(f->queue.job(id)->error,
                                     f->queue.builderHealth().value(0).message, f->logOf(id))));
        const auto running = [&] { return buildProcesses(name); };
        QVERIFY(!running().isEmpty());
        if (quit) {
            f.reset();
        } else {
            f->queue.cancel(id);
            QVERIFY(f->waitFinished({id}, 30000));
            QCOMPARE(f->queue.job(id)->state, JobState::Cancelled);
        }
        // The batch's shared connection stays for the other builds. After a cancel, which lets
        // Nix end first, it would tell the host only at its next keepalive, ~14 s here: the
        // queue wakes it. Quitting kills at once, and the connection sees it by itself.
        QVERIFY2(QTest::qWaitFor([&] { return running().isEmpty(); }, 5000),
                 qPrintable(running().join(' ')));
    }

    // A builder that does not accept the key is down when the batch starts: the job fails
    // before Nix is asked, and says which builder and why.
    void aBuilderThatRefusesTheKeyIsNamed()
    {
        test::BuilderHosts hosts;
        QString error;
        QVERIFY2(hosts.start(1, 1, {}, &error), qPrintable(error));
        QVERIFY(test::BuilderHosts::run(
            QStringLiteral("ssh-keygen"),
            {"-q", "-t", "ed25519", "-N", "", "-f", hosts.clientKey() + QStringLiteral(".other")}));
        Fixture f(hosts, 1);
        BuildSettings s = f.queue.settings();
        s.builders.replace(hosts.clientKey() + QLatin1Char(' '),
                           hosts.clientKey() + QStringLiteral(".other "));
        QVERIFY(s.builders != hosts.machines());
        f.queue.setSettings(s);
        const quint64 id = f.queue.enqueue(f.target(hosts, QStringLiteral("refused"), 0), &error);
        QVERIFY2(id, qPrintable(error));
        QVERIFY(f.waitFinished({id}));
        const BuildRecord* job = f.queue.job(id);
        QVERIFY2(job->state == JobState::Failed, qPrintable(f.logOf(id)));
        QVERIFY2(job->error.startsWith(QLatin1String(
                     "no remote builder is up and local jobs are 0: root@10.231.1.2 is down (")),
                 qPrintable(job->error));
        QVERIFY2(job->error.contains(QLatin1String("Permission denied")), qPrintable(job->error));
        QVERIFY(!job->startedAt.isValid()); // Nix never ran
        QVERIFY(!job->builtOn());
        QVERIFY2(f.logOf(id).contains(QLatin1String("# root@10.231.1.2 is down (")),
                 qPrintable(f.logOf(id)));
    }

    // A builder that cannot be reached when a batch starts is marked down and gets nothing:
    // Nix is not even offered it, every variant builds on the builder that answered, and each
    // job's log says why the other was left out. The builds ride on the connection the check
    // opened to the builder that answered. The next batch asks again, and finds it up.
    void aBuilderDownAtStartGetsNothing()
    {
        test::BuilderHosts hosts;
        QString error;
        QVERIFY2(hosts.start(2, 2, {}, &error), qPrintable(error));
        QVERIFY(hosts.cutLink(1));
        Fixture f(hosts, 3);
        QSignalSpy checked(&f.queue, &BuildQueue::buildersChecked);
        QList<quint64> ids;
        for (int i = 0; i < 3; ++i) {
            ids << f.queue.enqueue(f.target(hosts, QStringLiteral("downstart-%1").arg(i), 1),
                                   &error);
            QVERIFY2(ids.last(), qPrintable(error));
        }
        QCOMPARE(f.queue.runningCount(), 0); // waiting for the builders' answers
        QVERIFY(f.waitFinished(ids, 120000));
        QCOMPARE(checked.size(), 1); // one check for the batch
        const QList<BuilderHealth> health = f.queue.builderHealth();
        QCOMPARE(health.size(), 2);
        QVERIFY2(health[0].up, qPrintable(health[0].message));
        QVERIFY(!health[1].up);
        QVERIFY2(health[1].message.contains(QLatin1String("connect to host 10.231.2.2 port 22")),
                 qPrintable(health[1].message));
        for (quint64 id : ids) {
            const BuildRecord* job = f.queue.job(id);
            QVERIFY2(job->state == JobState::Succeeded, qPrintable(job->error + f.logOf(id)));
            QCOMPARE(job->builderLabel(), QStringLiteral("root@10.231.1.2"));
            QVERIFY2(job->builderFailures().isEmpty(), qPrintable(f.logOf(id)));
            QVERIFY2(!job->command.contains(QLatin1String("10.231.2.2")), qPrintable(job->command));
            // Left out as down, or as not yet answered when the job started: both answers come
            // at once, in either order.
            const QString log = f.logOf(id);
            QVERIFY2((log.contains(QLatin1String("# root@10.231.2.2 is down (")) &&
                      log.contains(QLatin1String("): nothing goes to it\n"))) ||
                         log.contains(QLatin1String("# root@10.231.2.2 has not answered yet: "
                                                    "this build does not go to it\n")),
                     qPrintable(log));
        }
        QCOMPARE(hosts.logins(0), 1);

        QVERIFY(hosts.restoreLink(1));
        const quint64 next = f.queue.enqueue(f.target(hosts, QStringLiteral("downstart-next"), 0));
        QVERIFY(f.waitFinished({next}));
        QCOMPARE(checked.size(), 2);
        QVERIFY2(f.queue.builderHealth().value(1).up,
                 qPrintable(f.queue.builderHealth().value(1).message));
        QCOMPARE(f.queue.job(next)->state, JobState::Succeeded);
    }

    // Builders asked ahead (the window asks when it gets them and as the user selects) serve a
    // batch started while their answers are fresh and all up: it starts at once, without a
    // check of its own, on the connection the check opened, and so does the next batch. Asking
    // ahead again while the answers are fresh, or while a batch runs on them, asks nothing;
    // once they have aged, it asks again.
    void buildersAskedAheadServeTheNextBatches()
    {
        test::BuilderHosts hosts;
        QString error;
        QVERIFY2(hosts.start(1, 1, {}, &error), qPrintable(error));
        Fixture f(hosts, 1);
        constexpr int lifetimeMs = 2000;
        f.queue.setHealthLifetimeMs(lifetimeMs);
        QSignalSpy checked(&f.queue, &BuildQueue::buildersChecked);
        f.queue.refreshBuilderHealth();
        QVERIFY(checked.wait(30000));
        QVERIFY2(f.queue.builderHealth().value(0).up,
                 qPrintable(f.queue.builderHealth().value(0).message));
        f.queue.refreshBuilderHealth();

        const auto runBatch = [&](const QString& name, int seconds) -> quint64 {
            const quint64 id = f.queue.enqueue(f.target(hosts, name, seconds), &error);
            if (!id)
                qWarning("%s", qPrintable(error));
            return id;
        };
        const quint64 first = runBatch(QStringLiteral("ahead-first"), 0);
        QVERIFY(first);
        QCOMPARE(f.queue.job(first)->state, JobState::Running); // no wait for a check
        QVERIFY(f.waitFinished({first}));
        const quint64 second = runBatch(QStringLiteral("ahead-second"), 3);
        QVERIFY(second);
        QCOMPARE(f.queue.job(second)->state, JobState::Running);
        // The batch keeps its answers after they would have aged.
        QTest::qWait(lifetimeMs + 500);
        f.queue.refreshBuilderHealth();
        QVERIFY(f.waitFinished({second}));
        QCOMPARE(checked.size(), 1);
        for (quint64 id : {first, second}) {
            const BuildRecord* job = f.queue.job(id);
            QVERIFY2(job->state == JobState::Succeeded, qPrintable(job->error + f.logOf(id)));
            QCOMPARE(job->builderLabel(), QStringLiteral("root@10.231.1.2"));
        }
        QCOMPARE(hosts.logins(0), 1);

        QTest::qWait(lifetimeMs + 500);
        const quint64 late = runBatch(QStringLiteral("ahead-late"), 0);
        QVERIFY(late);
        QCOMPARE(f.queue.job(late)->state, JobState::Queued); // the answers aged: asked again
        QVERIFY(f.waitFinished({late}));
        QCOMPARE(checked.size(), 2);
        QCOMPARE(f.queue.job(late)->state, JobState::Succeeded);
        QTest::qWait(lifetimeMs + 500);
        f.queue.refreshBuilderHealth();
        QVERIFY(checked.wait(30000));
        QCOMPARE(checked.size(), 3);
    }

    // A builder that accepts the connection but does not answer (its host hangs) holds nothing
    // back: the batch starts on the builder that answered, and the late one takes builds of the
    // same batch once it answers.
    void aBuilderThatHangsHoldsNothingBack()
    {
        test::BuilderHosts hosts;
        QString error;
        QVERIFY2(hosts.start(2, 1, {}, &error), qPrintable(error));
        QVERIFY(hosts.freeze(1));
        auto thaw = qScopeGuard([&] { hosts.thaw(1); });
        Fixture f(hosts, 2);
        QSignalSpy checked(&f.queue, &BuildQueue::buildersChecked);
        QSignalSpy started(&f.queue, &BuildQueue::jobStarted);
        const quint64 first = f.queue.enqueue(f.target(hosts, QStringLiteral("hang-first"), 5));
        const quint64 second = f.queue.enqueue(f.target(hosts, QStringLiteral("hang-second"), 0));
        QVERIFY(first && second);
        // At each start: whether builder 2 had answered, and whether the first had been placed.
        QList<std::pair<bool, bool>> atStart;
        connect(&f.queue, &BuildQueue::jobStarted, this, [&] {
            atStart << std::pair(f.queue.builderHealth().value(1).answered,
                                 f.queue.job(first)->builtOn() != nullptr);
        });
        // The first starts on the builder that answered; the second waits, as that builder's one
        // slot is taken and the other has not answered.
        QVERIFY(started.wait(30000));
        QCOMPARE(f.queue.job(first)->state, JobState::Running);
        QCOMPARE(f.queue.job(second)->state, JobState::Queued);
        QCOMPARE(checked.size(), 0);
        QVERIFY(f.queue.builderHealth().value(0).up);
        QVERIFY(!f.queue.builderHealth().value(1).answered);
        QVERIFY2(!f.queue.job(first)->command.contains(QLatin1String("10.231.2.2")),
                 qPrintable(f.queue.job(first)->command));

        // Thawed at once, builder 2 answers while the first, sent to builder 1 only, is still
        // on its way there: the second, which may go to either, waits until the first holds
        // builder 1's slot, lest it take that slot and leave the first waiting in Nix.
        QVERIFY(hosts.thaw(1));
        QVERIFY(f.waitFinished({first, second}));
        using Start = std::pair<bool, bool>;
        QCOMPARE(atStart, (QList<Start>{{false, false}, {true, true}}));
        QCOMPARE(checked.size(), 1);
        QVERIFY2(f.queue.builderHealth().value(1).up,
                 qPrintable(f.queue.builderHealth().value(1).message));
        for (quint64 id : {first, second}) {
            const BuildRecord* job = f.queue.job(id);
            QVERIFY2(job->state == JobState::Succeeded, qPrintable(job->error + f.logOf(id)));
        }
        QCOMPARE(f.queue.job(first)->builderLabel(), QStringLiteral("root@10.231.1.2"));
        QVERIFY2(f.logOf(first).contains(QLatin1String(
                     "# root@10.231.2.2 has not answered yet: this build does not go to it\n")),
                 qPrintable(f.logOf(first)));
        // The first still holds the builder that answered first: the second goes to the late one.
        QCOMPARE(f.queue.job(second)->builderLabel(), QStringLiteral("root@10.231.2.2"));
        QVERIFY2(!f.logOf(second).contains(QLatin1String("has not answered")),
                 qPrintable(f.logOf(second)));
    }
};

QTEST_GUILESS_MAIN(TestRemoteBuilds)
#include "tst_remotebuilds.moc"
