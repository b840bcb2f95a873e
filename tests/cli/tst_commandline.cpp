// What `recipegrid` does with its first argument before any command runs: a word that is
// neither a command nor an existing path is an unknown command (exit 2, the commands, the
// nearest one), and the window started without a display says so instead of aborting.

#include "recipegridrun.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using rg::test::Run;

namespace {

const QString fixtures = QStringLiteral(RG_FIXTURES_DIR);

// A machine without a display: what a CI runner or an ssh session gives the binary.
QProcessEnvironment headless()
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        environment.remove(QString::fromLatin1(name));
    return environment;
}

Run run(const QStringList& arguments, const QProcessEnvironment& environment = headless())
{
    return rg::test::runRecipegrid(arguments, environment, QString(), 60000);
}

int lineCount(const QByteArray& text)
{
    return static_cast<int>(text.trimmed().count('\n')) + (text.trimmed().isEmpty() ? 0 : 1);
}

} // namespace

class TestCommandLine : public QObject
{
    Q_OBJECT

private slots:
    void unknownCommand_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("nearest"); // "" when no command is near
        const QString repo = fixtures + QStringLiteral("/seed001-start");
        QTest::newRow("chek REPO")
            << QStringList{QStringLiteral("chek"), repo} << QStringLiteral("check");
        QTest::newRow("biuld") << QStringList{QStringLiteral("biuld")} << QStringLiteral("build");
        QTest::newRow("complet") << QStringList{QStringLiteral("complet"), repo}
                                 << QStringLiteral("complete");
        QTest::newRow("export") << QStringList{QStringLiteral("export")}
                                << QStringLiteral("export-ci");
        QTest::newRow("pin") << QStringList{QStringLiteral("pin")} << QStringLiteral("pins");
        QTest::newRow("xyzzy --help")
            << QStringList{QStringLiteral("xyzzy"), QStringLiteral("--help")} << QString();
        QTest::newRow("evl") << QStringList{QStringLiteral("evl")} << QStringLiteral("eval");
        QTest::newRow("xyzzy") << QStringList{QStringLiteral("xyzzy")} << QString();
    }

    // Exit 2 with the commands listed, never the window (which aborts without a display) and
    // never the window's help (which exits 0 as if the command existed).
    void unknownCommand()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, nearest);
        const Run result = run(arguments);
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.out.isEmpty(), result.out.constData());
        const QByteArray word = arguments.constFirst().toUtf8();
        QVERIFY2(result.err.startsWith("recipegrid: unknown command '" + word + "'"),
                 result.err.constData());
        for (const char* command : {"check", "eval", "build", "export-ci", "complete", "create",
                                    "fix", "delete", "bump-pin", "pins"})
            QVERIFY2(result.err.contains(QByteArray("\n  ") + command + ' '), command);
        if (nearest.isEmpty())
            QVERIFY2(!result.err.contains("did you mean"), result.err.constData());
        else
            QVERIFY2(result.err.contains("did you mean " + nearest.toUtf8() + "?"),
                     result.err.constData());
        QVERIFY2(!result.err.contains("platform plugin"), result.err.constData());
        // Not the window's help, which answered `eval --help` as if the command existed.
        QVERIFY2(!result.err.contains("bundled demo"), result.err.constData());
    }

    // The same words with a display: still an unknown command, not an empty window.
    void unknownCommandWithADisplay()
    {
        QProcessEnvironment environment = headless();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        const Run result = run({QStringLiteral("chek"), fixtures + "/seed001-start"}, environment);
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains("did you mean check?"), result.err.constData());
    }

    // `recipegrid --help` / `--version` answer on a machine without a display: no DISPLAY,
    // no WAYLAND_DISPLAY, no platform plugin override, so a QApplication would abort.
    void helpAndVersionWithoutDisplay()
    {
        for (const QString& option : {QStringLiteral("--help"), QStringLiteral("-h"),
                                      QStringLiteral("--version"), QStringLiteral("-v")}) {
            QProcess process;
            QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
            for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
                environment.remove(QString::fromLatin1(name));
            process.setProcessEnvironment(environment);
            process.start(QStringLiteral(RG_BINARY_DIR "/app/recipegrid"), {option});
            QVERIFY(process.waitForFinished(30000));
            QCOMPARE(process.exitStatus(), QProcess::NormalExit);
            QCOMPARE(process.exitCode(), 0);
            const QByteArray out = process.readAllStandardOutput();
            if (option.contains(QLatin1Char('h'))) {
                QVERIFY2(out.contains("--demo") && out.contains("recipegrid help"),
                         out.constData());
            } else {
                QVERIFY2(out.startsWith("RecipeGrid " RG_VERSION), out.constData());
            }
        }
    }

    void windowWithoutDisplay_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("qpaPlatform"); // "" leaves QT_QPA_PLATFORM unset
        QTest::newRow("no arguments") << QStringList{} << QString();
        QTest::newRow("REPO") << QStringList{fixtures + "/seed001-start"} << QString();
        QTest::newRow("--demo") << QStringList{QStringLiteral("--demo")} << QString();
        QTest::newRow("xcb asked for") << QStringList{} << QStringLiteral("xcb");
        QTest::newRow("-platform xcb")
            << QStringList{QStringLiteral("-platform"), QStringLiteral("xcb")} << QString();
    }

    // One line naming --help and the headless commands, exit 2, no abort (exit 134).
    void windowWithoutDisplay()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, qpaPlatform);
        QProcessEnvironment environment = headless();
        if (!qpaPlatform.isEmpty())
            environment.insert(QStringLiteral("QT_QPA_PLATFORM"), qpaPlatform);
        const Run result = run(arguments, environment);
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.out.isEmpty(), result.out.constData());
        QCOMPARE(lineCount(result.err), 1);
        QVERIFY2(result.err.startsWith("recipegrid: no display"), result.err.constData());
        for (const char* named : {"--help", "recipegrid help", "check"})
            QVERIFY2(result.err.contains(named), named);
    }

    // Existing paths still open the window, whatever their name: a folder called like a
    // misspelt command, or a relative path, is the user's repository.
    void existingPathOpensTheWindow()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString chek = dir.filePath(QStringLiteral("chek"));
        QVERIFY(QDir().mkpath(chek + "/.flox/pkgs"));
        QProcessEnvironment environment = headless();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        // The window's settings (its recent repositories) go to the test's folder, not to the
        // user's, whose welcome page listed every run's vanished temporary repository.
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"),
                           dir.filePath(QStringLiteral("config")));
        environment.insert(QStringLiteral("XDG_DATA_HOME"), dir.filePath(QStringLiteral("data")));
        const QString png = dir.filePath(QStringLiteral("window.png"));
        const Run result =
            rg::test::runRecipegrid({QStringLiteral("chek"), QStringLiteral("--screenshot"), png},
                                    environment, dir.path(), 60000);
        QCOMPARE(result.exitCode, 0);
        QVERIFY2(result.err.contains("saved"), result.err.constData());
        QVERIFY(QFileInfo::exists(png));
        QFile settings(dir.filePath(QStringLiteral("config/RecipeGrid/RecipeGrid.conf")));
        QVERIFY(settings.open(QIODevice::ReadOnly));
        QVERIFY(settings.readAll().contains(chek.toUtf8())); // opened, so recent, there
    }

    // Every command that writes a change set reads its output, commit and spec options alike.
    void changeSetOptionsReadAlike_data()
    {
        QTest::addColumn<QStringList>("command");
        const QString repo = fixtures + "/seed001-start";
        const QString cell = QStringLiteral("pytorch:python313-cuda13_0-sm90-avx2");
        for (const char* name : {"create", "fix", "delete"})
            QTest::newRow(name) << QStringList{QString::fromLatin1(name), repo, cell};
        QTest::newRow("complete") << QStringList{QStringLiteral("complete"), repo};
        QTest::newRow("bump-pin") << QStringList{
            QStringLiteral("bump-pin"), repo,
            QStringLiteral("--from"),   QStringLiteral("6a030d5"),
            QStringLiteral("--to"),     QStringLiteral("0182a361324364ae3f436a63005877674cf45efb")};
    }

    void changeSetOptionsReadAlike()
    {
        QFETCH(QStringList, command);
        const Run help = run({command.front(), QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        for (const char* option : {"--dry-run", "--diff", "--commit", "--message <TEXT>",
                                   "--format <FORMAT>", "--spec <FILE>", "--recipe-dir <DIR>"})
            QVERIFY2(help.out.contains(option), option);
        const std::pair<QStringList, const char*> refused[] = {
            {{QStringLiteral("--message"), QStringLiteral("x")}, "--message needs --commit"},
            {{QStringLiteral("--dry-run"), QStringLiteral("--commit")}, "cannot --commit"},
            {{QStringLiteral("--format"), QStringLiteral("yaml")}, "unknown format 'yaml'"},
            {{QStringLiteral("--dry-run"), QStringLiteral("--spec"), QStringLiteral("/no.json")},
             "/no.json: no such spec file"},
            {{QStringLiteral("--dry-run")}, nullptr}, // the same line, sound: not refused
        };
        for (const auto& [extra, why] : refused) {
            const Run result = run(command + extra);
            if (!why) {
                QVERIFY2(result.exitCode != 2, result.err.constData());
                continue;
            }
            QCOMPARE(result.exitCode, 2);
            QVERIFY2(result.err.contains(why), result.err.constData());
            QVERIFY2(result.err.startsWith("recipegrid " + command.front().toLatin1() + ": "),
                     result.err.constData());
        }
    }

    void helpStillListsTheCommands()
    {
        const Run result = run({QStringLiteral("help")});
        QCOMPARE(result.exitCode, 0);
        QVERIFY2(result.out.contains("\n  check "), result.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
