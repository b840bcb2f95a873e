// Remote builders as configuration: Nix's machine format read the way Nix reads it, the log
// lines that say where Nix built a derivation, and the local job slots handed to Nix.

#include "builds/buildermachine.h"
#include "builds/buildplacement.h"
#include "builds/buildqueue.h"
#include "builds/buildrecord.h"
#include "builds/buildsettings.h"

#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

using namespace rg;

class TestBuilderMachine : public QObject
{
    Q_OBJECT

private slots:
    // Every field, "-" for defaults, ';' and newlines between entries, comments.
    void readsNixsMachineFormat()
    {
        QTemporaryDir dir;
        const QString key = dir.filePath(QStringLiteral("id"));
        QFile(key).open(QIODevice::WriteOnly);
        const QString spec =
            QStringLiteral("# the farm\n"
                           "ssh://alice@big x86_64-linux,aarch64-linux %1 8 2.5 big-parallel,kvm "
                           "benchmark c3NoLWVkMjU1MTkgQUFBQQ==\n"
                           "ssh-ng://small - - - - - - - ; gpu-box x86_64-linux")
                .arg(key);
        QStringList errors;
        const QList<BuilderMachine> m = BuilderMachine::parse(spec, &errors);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
        QCOMPARE(m.size(), 3);
        QCOMPARE(m[0].uri, QStringLiteral("ssh://alice@big"));
        QCOMPARE(m[0].systems, QStringList({"x86_64-linux", "aarch64-linux"}));
        QCOMPARE(m[0].sshKey, key);
        QCOMPARE(m[0].maxJobs, 8);
        QCOMPARE(m[0].speedFactor, 2.5);
        QCOMPARE(m[0].supportedFeatures, QStringList({"big-parallel", "kvm"}));
        QCOMPARE(m[0].mandatoryFeatures, QStringList({"benchmark"}));
        QCOMPARE(m[0].publicHostKey, QStringLiteral("c3NoLWVkMjU1MTkgQUFBQQ=="));
        QCOMPARE(m[0].label(), QStringLiteral("alice@big"));
        QCOMPARE(m[0].origin, QStringLiteral("builder 1"));
        QCOMPARE(m[1].uri, QStringLiteral("ssh-ng://small"));
        QVERIFY(m[1].systems.isEmpty() && m[1].sshKey.isEmpty() && m[1].publicHostKey.isEmpty());
        QCOMPARE(m[1].maxJobs, 1);
        QCOMPARE(m[2].uri, QStringLiteral("gpu-box"));
        QCOMPARE(m[2].origin, QStringLiteral("builder 3"));
    }

    // "@FILE" lists the file's machines, named by line; a file that cannot be read is an error
    // that names it, and the entries around it still count.
    void readsBuildersFiles()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("machines"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("# comment\n\nssh://a x86_64-linux\nssh://b x86_64-linux - many\n");
        f.close();
        QStringList errors;
        const QList<BuilderMachine> m = BuilderMachine::parse(
            QStringLiteral("@%1;ssh://c;@%2").arg(file, dir.filePath(QStringLiteral("none"))),
            &errors);
        QCOMPARE(m.size(), 2);
        QCOMPARE(m[0].uri, QStringLiteral("ssh://a"));
        QCOMPARE(m[0].origin, file + QStringLiteral(" line 3"));
        QCOMPARE(m[1].uri, QStringLiteral("ssh://c"));
        QCOMPARE(errors.size(), 2);
        QCOMPARE(errors[0],
                 file + QStringLiteral(" line 4 (b): max jobs 'many' is not a whole number"));
        QVERIFY2(errors[1].startsWith(QStringLiteral("builder 3: cannot read the builders file ") +
                                      dir.filePath(QStringLiteral("none"))),
                 qPrintable(errors[1]));
    }

    void namesWhatIsMalformed_data()
    {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("error");
        QTest::newRow("jobs") << "ssh://a x - -2"
                              << "builder 1 (a): max jobs '-2' is not a whole number";
        QTest::newRow("speed") << "ssh://a x - 1 fast"
                               << "builder 1 (a): speed factor 'fast' is not a positive number";
        QTest::newRow("host key") << "ssh://a x - 1 1 - - ssh-ed25519"
                                  << "builder 1 (a): the public host key is not base64 (Nix wants "
                                     "the key file's line, base64-encoded)";
        QTest::newRow("key file") << "ssh://a x /no/such/key"
                                  << "builder 1 (a): the SSH key /no/such/key does not exist";
        QTest::newRow("fields") << "ssh://a x - 1 1 - - AAAA extra"
                                << "builder 1 (a): 9 fields where Nix reads at most 8";
    }
    void namesWhatIsMalformed()
    {
        QFETCH(QString, entry);
        QFETCH(QString, error);
        QStringList errors;
        QVERIFY(BuilderMachine::parse(entry, &errors).isEmpty());
        QCOMPARE(errors, QStringList{error});
    }

    // Nix sends a derivation to a machine that offers its system and every feature it
    // requires, and only derivations that require each of the machine's mandatory features.
    void knowsWhatAMachineCanBuild()
    {
        const QList<BuilderMachine> m = BuilderMachine::parse(
            QStringLiteral("ssh://a x86_64-linux - 1 1 big-parallel;ssh://b - - 1 1 kvm kvm"));
        QVERIFY(m[0].canBuild(QStringLiteral("x86_64-linux"), {}));
        QVERIFY(m[0].canBuild(QStringLiteral("x86_64-linux"), {"big-parallel"}));
        QVERIFY(!m[0].canBuild(QStringLiteral("aarch64-linux"), {}));
        QVERIFY(!m[0].canBuild(QStringLiteral("x86_64-linux"), {"big-parallel", "cuda"}));
        QVERIFY(!m[1].canBuild(QStringLiteral("x86_64-linux"), {}));
        QVERIFY(m[1].canBuild(QStringLiteral("aarch64-linux"), {"kvm"}));
        // Why not, in the words the refusal uses per builder.
        QCOMPARE(m[0].whyNot(QStringLiteral("aarch64-linux"), {}),
                 QStringLiteral("builds x86_64-linux only"));
        QCOMPARE(m[0].whyNot(QStringLiteral("x86_64-linux"), {"big-parallel", "cuda", "kvm"}),
                 QStringLiteral("offers no cuda, kvm"));
        QCOMPARE(m[1].whyNot(QStringLiteral("x86_64-linux"), {}),
                 QStringLiteral("takes only builds that require kvm"));
        QCOMPARE(m[1].whyNot(QStringLiteral("x86_64-linux"), {"kvm"}), QString());
    }

    void readsWhereNixBuilt_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("derivation");
        QTest::addColumn<QString>("machine");
        QTest::addColumn<QString>("failure");
        const QString drv = QStringLiteral("/nix/store/0gxmhijd7djmpkjrcjjx748qmdp97j4q-t.drv");
        QTest::newRow("remote")
            << QStringLiteral("building '%1' on 'ssh://root@h?remote-store=local'...").arg(drv)
            << drv << "ssh://root@h?remote-store=local"
            << "";
        QTest::newRow("here") << QStringLiteral("building '%1'...").arg(drv) << drv << ""
                              << "";
        QTest::newRow("coloured")
            << QStringLiteral("building '\x1b[35;1m%1\x1b[0m' on '\x1b[35;1mssh://h\x1b[0m'...")
                   .arg(drv)
            << drv << "ssh://h"
            << "";
        QTest::newRow("refused")
            << "cannot build on 'ssh://root@10.0.0.2': error: cannot connect to 'root@10.0.0.2': "
               "Permission denied (publickey)."
            << ""
            << "ssh://root@10.0.0.2"
            << "error: cannot connect to 'root@10.0.0.2': Permission denied (publickey).";
        QTest::newRow("a build's own output")
            << QStringLiteral("t> building '%1'...").arg(drv) << ""
            << ""
            << "";
        QTest::newRow("not a derivation") << "building 'torch' on 'x'..."
                                          << ""
                                          << ""
                                          << "";
        QTest::newRow("unterminated") << QStringLiteral("building '%1").arg(drv) << ""
                                      << ""
                                      << "";
    }
    void readsWhereNixBuilt()
    {
        QFETCH(QString, line);
        QFETCH(QString, derivation);
        QFETCH(QString, machine);
        QFETCH(QString, failure);
        const auto p = BuildPlacement::parseLine(line);
        if (derivation.isEmpty() && machine.isEmpty()) {
            QVERIFY(!p);
            return;
        }
        QVERIFY(p);
        QCOMPARE(p->derivation, derivation);
        QCOMPARE(p->machine, machine);
        QCOMPARE(p->failure, failure);
    }

    // A machine written back is the machine read: what a retry hands Nix is what the user gave,
    // less the builders that failed.
    void writesMachinesBack()
    {
        const QString line = QStringLiteral("ssh://a@b x86_64-linux,i686-linux - 4 2 kvm - AAAA");
        const QList<BuilderMachine> m = BuilderMachine::parse(line);
        QCOMPARE(m.size(), 1);
        QCOMPARE(m[0].toLine(), line);
        QCOMPARE(BuilderMachine::parse(m[0].toLine()), m);
        QCOMPARE(BuilderMachine::parse(QStringLiteral("h")).first().toLine(),
                 QStringLiteral("h - - 1 1 - - -"));
        const QList<BuilderMachine> two = BuilderMachine::parse(line + QStringLiteral(";h"));
        QCOMPARE(BuilderMachine::toLines(two), line + QStringLiteral("\nh - - 1 1 - - -"));
        QCOMPARE(BuilderMachine::parse(BuilderMachine::toLines(two)), two);
        QCOMPARE(BuilderMachine::toLines({}), QString());
    }

    void recognisesALostConnection_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<bool>("lost");
        QTest::newRow("ssh timeout") << "lost> Timeout, server 10.231.1.2 not responding." << true;
        QTest::newRow("end of stream") << "error: unexpected end-of-file" << true;
        QTest::newRow("reset") << "Read from remote host b: Connection reset by peer" << true;
        QTest::newRow("build failure")
            << "error: builder for '/nix/store/x.drv' failed with exit code 2" << false;
        QTest::newRow("compiler") << "torch> error: expected ';' before '}' token" << false;
    }
    void recognisesALostConnection()
    {
        QFETCH(QString, line);
        QFETCH(bool, lost);
        QCOMPARE(BuildPlacement::isConnectionLoss(line), lost);
    }

    // The job's builder is where its last derivation was built; refusals are not builds.
    void aJobIsBuiltWhereItsLastDerivationWas()
    {
        BuildRecord r;
        QVERIFY(!r.builtOn());
        QCOMPARE(r.builderLabel(), QString());
        r.placements = {
            {QStringLiteral("/nix/store/a-dep.drv"), QString(), QString()},
            {QString(), QStringLiteral("ssh://x@down"), QStringLiteral("timed out")},
            {QStringLiteral("/nix/store/b-top.drv"), QStringLiteral("ssh://x@up?q"), QString()}};
        QCOMPARE(r.builtOn()->derivation, QStringLiteral("/nix/store/b-top.drv"));
        QCOMPARE(r.builderLabel(), QStringLiteral("x@up"));
        QCOMPARE(r.builderFailures(), QStringList{QStringLiteral("x@down: timed out")});
        r.placements.removeLast();
        QCOMPARE(r.builderLabel(), QStringLiteral("this machine"));
    }

    // With this machine building nothing, a recipe whose system or features no builder offers
    // is refused before Nix is asked, the missing features named; a recipe Nix has not
    // evaluated (no system known) goes to Nix, which knows.
    void refusesWhatNoMachineCanBuild()
    {
        QTemporaryDir dir;
        BuildTarget t;
        t.variant = t.pname = QStringLiteral("pytorch-python313-cuda12_9-sm90-avx512");
        t.repository = dir.path();
        t.recipeFile = dir.filePath(QStringLiteral("r.nix"));
        t.system = QStringLiteral("x86_64-linux");
        t.requiredFeatures = {QStringLiteral("big-parallel")};
        BuildSettings s;
        s.backend = BackendKind::Custom;
        s.customCommand = QStringLiteral("true");
        s.builders = QStringLiteral(
            "ssh://a x86_64-linux - 2 1 kvm;ssh://b aarch64-linux - 2 1 big-parallel");
        s.maxJobs = 0;
        BuildQueue queue;
        queue.setSettings(s);
        QString error;
        QCOMPARE(queue.enqueue(t, &error), quint64(0));
        QCOMPARE(error, QStringLiteral("pytorch-python313-cuda12_9-sm90-avx512 needs a machine for "
                                       "x86_64-linux with big-parallel, and no remote builder "
                                       "offers it while local jobs are 0 (a offers no "
                                       "big-parallel; b builds aarch64-linux only)"));
        QVERIFY(queue.jobIds().isEmpty());

        s.maxJobs = 1; // this machine may build it
        queue.setSettings(s);
        QVERIFY2(queue.enqueue(t, &error), qPrintable(error));
        s.maxJobs = 0;
        s.builders += QStringLiteral(";ssh://c x86_64-linux - 2 1 big-parallel,kvm");
        queue.setSettings(s);
        QVERIFY2(queue.enqueue(t, &error), qPrintable(error));
        s.builders = QStringLiteral("ssh://a x86_64-linux - 2 1 kvm");
        queue.setSettings(s);
        t.system.clear();
        t.requiredFeatures.clear();
        QVERIFY2(queue.enqueue(t, &error), qPrintable(error));
        queue.cancelAll();
    }

    // 0 local jobs sends every build to the builders; -1 leaves it to Nix; a setting saved
    // when 0 meant Nix's default still means it.
    void localJobsReachNix()
    {
        BuildSettings s;
        QVERIFY(!s.nixArguments().contains(QStringLiteral("max-jobs")));
        s.maxJobs = 0;
        QVERIFY2(s.nixArguments().join(' ').contains(QLatin1String("--option max-jobs 0")),
                 qPrintable(s.nixArguments().join(' ')));
        // Machines one per line reach Nix as one value, separated the other way Nix reads.
        s.builders = QStringLiteral("ssh://a x86_64-linux\n\nssh://b - - 2\n");
        QVERIFY2(s.nixArguments().join(' ').contains(
                     QLatin1String("--option builders ssh://a x86_64-linux;ssh://b - - 2")),
                 qPrintable(s.nixArguments().join(' ')));
        QVERIFY2(s.nixConfigLines().contains(
                     QLatin1String("builders = ssh://a x86_64-linux;ssh://b - - 2\n")),
                 qPrintable(s.nixConfigLines()));
        QTemporaryDir dir;
        QSettings store(dir.filePath(QStringLiteral("s.ini")), QSettings::IniFormat);
        s.save(store);
        QCOMPARE(BuildSettings::load(store).maxJobs, 0);
        store.remove(QStringLiteral("build/localJobs"));
        store.setValue(QStringLiteral("build/maxJobs"), 0);
        QCOMPARE(BuildSettings::load(store).maxJobs, -1);
        store.setValue(QStringLiteral("build/maxJobs"), 6);
        QCOMPARE(BuildSettings::load(store).maxJobs, 6);
    }
};

QTEST_GUILESS_MAIN(TestBuilderMachine)
#include "tst_buildermachine.moc"
