// Runs the real `recipegrid complete|create|fix|delete` on copies of the seed001-start fixture
// and checks what they print, what they write (and do not write) and their exit codes:
// 0 done or nothing to do, 1 apply or commit failed, 2 usage or repository error.

#include "../recipes/testrepository.h"
#include "recipegridrun.h"

#include <QDirIterator>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <nlohmann/json.hpp>

using nlohmann::json;
using rg::test::Run;
using rg::test::TestRepository;

namespace {
Run recipegrid(const QStringList& arguments,
               const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment())
{
    return rg::test::runRecipegrid(arguments, environment);
}

// Runs mount(8) or umount(8); false, with what it said in the log, when it fails.
bool mountTool(const QString& program, const QStringList& arguments)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    if (!process.waitForFinished(10000) || process.exitStatus() != QProcess::NormalExit ||
        process.exitCode() != 0) {
        qWarning("%s %s: %s", qPrintable(program), qPrintable(arguments.join(' ')),
                 process.readAll().constData());
        return false;
    }
    return true;
}

} // namespace

namespace {

const QString fixtures = QStringLiteral(RG_FIXTURES_DIR);
const QString pkgs = QStringLiteral(".flox/pkgs/");

// Every file (with its bytes) and directory under the root, .git left out: two equal
// snapshots mean nothing was written, not even a temporary file.
std::map<QString, QByteArray> snapshot(const QString& root)
{
    std::map<QString, QByteArray> tree;
    QDirIterator it(root, QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString relative = QDir(root).relativeFilePath(path);
        if (relative == QLatin1String(".git") || relative.startsWith(QLatin1String(".git/")))
            continue;
        QFile file(path);
        if (QFileInfo(path).isDir())
            tree[relative + QLatin1Char('/')] = QByteArray();
        else if (file.open(QIODevice::ReadOnly))
            tree[relative] = file.readAll();
        else
            tree[relative] = "<unreadable>";
    }
    return tree;
}

QStringList lines(const QByteArray& out, const char* prefix)
{
    QStringList matching;
    for (const QByteArray& line : out.split('\n'))
        if (line.startsWith(prefix))
            matching << QString::fromUtf8(line);
    return matching;
}

QString recipe(const char* variant)
{
    return pkgs + QLatin1String(variant) + QLatin1String(".nix");
}

const char* const deletedByComplete[] = {
    "pytorch-python313-cuda13_0-sm120-avx",
    "pytorch-python313-cuda13_0-sm120-avx512-magma",
    "pytorch-python313-cuda13_0-sm121-armv9-nightly",
};

} // namespace

class TestChangeCommand : public QObject
{
    Q_OBJECT

private:
    // A fresh copy of seed001-start (hidden .flox included) for each test.
    void start(TestRepository& repo)
    {
        repo.copyFrom(fixtures + "/seed001-start");
        QVERIFY(QFile::exists(repo.root() + "/.flox/recipegrid.json"));
        QVERIFY(QFile::exists(repo.root() + "/README.md"));
    }

private slots:
    // The help of each command answers without a display, as the other commands do.
    void helpWithoutDisplay()
    {
        for (const char* command : {"complete", "create", "fix", "delete"}) {
            QProcess process;
            QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
            for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
                environment.remove(QString::fromLatin1(name));
            process.setProcessEnvironment(environment);
            process.start(QStringLiteral(RG_BINARY_DIR "/app/recipegrid"),
                          {QString::fromLatin1(command), QStringLiteral("--help")});
            QVERIFY(process.waitForFinished(30000));
            QCOMPARE(process.exitStatus(), QProcess::NormalExit);
            QCOMPARE(process.exitCode(), 0);
            const QByteArray out = process.readAllStandardOutput();
            QVERIFY2(out.startsWith("Usage: recipegrid " + QByteArray(command) + " [options] REPO"),
                     out.constData());
            for (const char* option : {"--dry-run", "--diff", "--commit", "--message", "--format",
                                       "--no-readme", "--readme", "--package", "Exit status"})
                QVERIFY2(out.contains(option), option);
            QCOMPARE(out.contains("--cell"), qstrcmp(command, "complete") == 0);
        }
        const Run help = recipegrid({"help"});
        for (const char* command : {"complete", "create", "fix", "delete"})
            QVERIFY2(help.out.contains(QByteArray("  ") + command), command);
    }

    void completeDryRunWritesNothing()
    {
        TestRepository repo;
        start(repo);
        const auto before = snapshot(repo.root());
        const Run run = recipegrid({"complete", "--dry-run", "--readme", repo.root()});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.isEmpty(), run.err.constData());
        QVERIFY(snapshot(repo.root()) == before);

        const QStringList deletes = lines(run.out, "delete  ");
        QCOMPARE(deletes.size(), 3);
        for (const char* variant : deletedByComplete)
            QVERIFY2(run.out.contains("delete  " + recipe(variant).toUtf8() + "  ("), variant);
        const QStringList modifies = lines(run.out, "modify  ");
        QCOMPARE(modifies.size(), 3);
        QVERIFY(modifies[0].startsWith("modify  " +
                                       recipe("pytorch-python313-cuda13_0-sm110-armv8_2")));
        QVERIFY(
            modifies[1].startsWith("modify  " + recipe("pytorch-python313-cuda13_0-sm110-armv9")));
        QVERIFY(modifies[2].startsWith("modify  README.md  ("));
        const QStringList creates = lines(run.out, "create  ");
        QCOMPARE(creates.size(), 41);
        QVERIFY(run.out.contains("create  " + recipe("pytorch-python313-cpu-avx2").toUtf8() +
                                 "  (missing"));
        QVERIFY2(QString::fromUtf8(run.out).contains(
                     QString::fromUtf8("41 create \u00b7 3 modify \u00b7 3 delete\n")),
                 run.out.constData());
        QVERIFY(run.out.contains("Dry run: nothing was written."));
        QVERIFY(!run.out.contains("Skipped"));
        QVERIFY(!run.out.contains("\n--- ")); // no diffs unless asked

        const Run noReadme = recipegrid({"complete", "--dry-run", "--no-readme", repo.root()});
        QCOMPARE(noReadme.exitCode, 0);
        QCOMPARE(lines(noReadme.out, "modify  ").size(), 2);
        QVERIFY(!noReadme.out.contains("README.md"));
    }

    // seed001-start's README documents the recipes by hand, without the markers: a generated
    // section is added only when asked for (--readme); a marked one is kept up to date.
    void readmeSectionOnlyWhenMarkedOrAsked()
    {
        TestRepository repo;
        start(repo);
        const Run unasked = recipegrid({"complete", "--dry-run", repo.root()});
        QCOMPARE(unasked.exitCode, 0);
        QVERIFY2(!unasked.out.contains("README.md"), unasked.out.constData());
        QCOMPARE(lines(unasked.out, "modify  ").size(), 2);
        QCOMPARE(lines(unasked.out, "create  ").size(), 41);
        const Run created =
            recipegrid({"create", "--dry-run", "--diff", repo.root(), "python313-cpu-avx2"});
        QCOMPARE(created.exitCode, 0);
        QVERIFY2(!created.out.contains("README.md"), created.out.constData());

        const Run both =
            recipegrid({"complete", "--dry-run", "--readme", "--no-readme", repo.root()});
        QCOMPARE(both.exitCode, 2);
        QVERIFY2(both.err.contains("--readme"), both.err.constData());

        QFile readme(repo.root() + "/README.md");
        QVERIFY(readme.open(QIODevice::Append));
        readme.write("\n<!-- recipegrid:matrix -->\nstale\n<!-- /recipegrid:matrix -->\n");
        readme.close();
        const Run marked = recipegrid({"complete", "--dry-run", "--diff", repo.root()});
        QCOMPARE(marked.exitCode, 0);
        QVERIFY2(marked.out.contains("modify  README.md  ("), marked.out.constData());
        QVERIFY(marked.out.contains("-stale\n"));
        const Run kept = recipegrid({"complete", "--dry-run", "--no-readme", repo.root()});
        QCOMPARE(kept.exitCode, 0);
        QVERIFY2(!kept.out.contains("README.md"), kept.out.constData());
    }

    void dryRunDiff()
    {
        TestRepository repo;
        start(repo);
        const auto before = snapshot(repo.root());
        const Run run = recipegrid(
            {"create", "--dry-run", "--diff", "--readme", repo.root(), "python313-cpu-avx2"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(snapshot(repo.root()) == before);
        QVERIFY2(
            run.out.contains("--- /dev/null\n+++ b/.flox/pkgs/pytorch-python313-cpu-avx2.nix\n"),
            run.out.constData());
        QVERIFY(run.out.contains("+# PyTorch"));
        QVERIFY(run.out.contains("--- a/README.md\n+++ b/README.md\n"));
        QVERIFY(run.out.contains("+<!-- recipegrid:matrix -->"));
    }

    void completeThenCheckIsClean()
    {
        TestRepository repo;
        start(repo);
        const Run run = recipegrid({"complete", "--readme", repo.root()});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.isEmpty(), run.err.constData());
        QVERIFY2(QString::fromUtf8(run.out).contains(
                     QString::fromUtf8("Applied: 41 create \u00b7 3 modify \u00b7 3 delete\n")),
                 run.out.constData());
        QVERIFY2(
            QString::fromUtf8(run.out).contains(QString::fromUtf8("Now: 44 expected (44 ok)\n")),
            run.out.constData());
        for (const char* variant : deletedByComplete)
            QVERIFY2(!QFile::exists(repo.root() + "/" + recipe(variant)), variant);
        QCOMPARE(QDir(repo.root() + "/" + pkgs).entryList(QDir::Files).size(), 44);

        // What Complete cannot mend is the spec's own ask for sm110 and sm121 with x86 ISAs.
        const Run check = recipegrid({"check", "--format", "json", repo.root()});
        QCOMPARE(check.exitCode, 1);
        const json doc = json::parse(check.out.toStdString());
        QCOMPARE(doc["summary"]["expected"].get<int>(), 44);
        QCOMPARE(doc["summary"]["ok"].get<int>(), 44);
        QCOMPARE(doc["summary"]["findings"].get<int>(), 8);
        for (const json& finding : doc["repositoryFindings"])
            QCOMPARE(finding["ruleId"].get<std::string>(), std::string("spec-asks-impossible"));

        QFile readme(repo.root() + "/README.md");
        QVERIFY(readme.open(QIODevice::ReadOnly));
        const QByteArray text = readme.readAll();
        QVERIFY(text.startsWith("# build-pytorch")); // the hand-written part is kept
        QVERIFY2(text.contains("**44 variants** for Python 3.13: 40 CUDA 13.0 (36 x86-64, 4 ARM)"),
                 text.constData());

        // Complete again: nothing left to do, and the README section is stable.
        const auto after = snapshot(repo.root());
        const Run again = recipegrid({"complete", repo.root()});
        QCOMPARE(again.exitCode, 0);
        QVERIFY2(again.out.contains("Nothing to do."), again.out.constData());
        QVERIFY(snapshot(repo.root()) == after);
    }

    void jsonOutput()
    {
        TestRepository repo;
        start(repo);
        const Run run =
            recipegrid({"complete", "--dry-run", "--readme", "--format", "json", repo.root()});
        QCOMPARE(run.exitCode, 0);
        const json doc = json::parse(run.out.toStdString());
        QCOMPARE(doc["command"].get<std::string>(), std::string("complete"));
        QCOMPARE(doc["dryRun"].get<bool>(), true);
        QCOMPARE(doc["counts"]["create"].get<int>(), 41);
        QCOMPARE(doc["counts"]["modify"].get<int>(), 3);
        QCOMPARE(doc["counts"]["delete"].get<int>(), 3);
        QCOMPARE(doc["operations"].size(), size_t(47));
        QVERIFY(doc["skipped"].is_array() && doc["skipped"].empty());
        QCOMPARE(doc["applied"].get<bool>(), false);
        QVERIFY(doc["commit"].is_null());
        for (const json& op : doc["operations"]) {
            const std::string kind = op["kind"].get<std::string>();
            QVERIFY(!op["path"].get<std::string>().empty());
            QVERIFY(!op["reason"].get<std::string>().empty());
            if (kind == "create") {
                QVERIFY(op["added"].get<int>() > 10);
                QCOMPARE(op["removed"].get<int>(), 0);
                QVERIFY(op["subject"].get<std::string>().starts_with("pytorch-python313-"));
            } else if (kind == "delete") {
                QCOMPARE(op["added"].get<int>(), 0);
                QVERIFY(op["removed"].get<int>() > 10);
            } else {
                QCOMPARE(kind, std::string("modify"));
                QVERIFY(op["added"].get<int>() > 0);
            }
        }
        // Sorted by path: the recipes under .flox first, README.md last.
        QCOMPARE(doc["operations"].back()["path"].get<std::string>(),
                 std::string("README.md")); // sorted by path

        const Run applied = recipegrid({"complete", "--format", "json", repo.root()});
        QCOMPARE(applied.exitCode, 0);
        const json result = json::parse(applied.out.toStdString());
        QCOMPARE(result["applied"].get<bool>(), true);
        QVERIFY(result["commit"].is_null());
        QVERIFY(result["error"].is_null());
    }

    void createOneCell()
    {
        TestRepository repo;
        start(repo);
        auto expected = snapshot(repo.root());
        const Run run = recipegrid({"create", "--no-readme", repo.root(), "python313-cpu-avx2"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.startsWith("Create pytorch-python313-cpu-avx2\n"), run.out.constData());
        auto after = snapshot(repo.root());
        const QString created = recipe("pytorch-python313-cpu-avx2");
        QVERIFY(after.count(created));
        QVERIFY(after[created].contains("-mavx2"));
        after.erase(created);
        QVERIFY2(after == expected, "create wrote something else than the one recipe");
    }

    // Every spelling of a cell or recipe the help promises reaches the same cell.
    void cellSpellings_data()
    {
        QTest::addColumn<QString>("cell");
        QTest::newRow("cell") << "python313-cpu-avx512";
        QTest::newRow("package:cell") << "pytorch:python313-cpu-avx512";
        QTest::newRow("variant") << "pytorch-python313-cpu-avx512";
        QTest::newRow("file name") << "pytorch-python313-cpu-avx512.nix";
        QTest::newRow("path") << ".flox/pkgs/pytorch-python313-cpu-avx512.nix";
    }
    void cellSpellings()
    {
        QFETCH(QString, cell);
        TestRepository repo;
        start(repo);
        const Run run = recipegrid({"create", "--dry-run", "--no-readme", repo.root(), cell});
        QCOMPARE(run.exitCode, 0);
        const QStringList creates = lines(run.out, "create  ");
        QCOMPARE(creates.size(), 1);
        QVERIFY2(creates[0].startsWith("create  .flox/pkgs/pytorch-python313-cpu-avx512.nix  ("),
                 run.out.constData());
    }

    void deleteRedundantRecipe_data()
    {
        QTest::addColumn<QString>("argument");
        QTest::newRow("path") << ".flox/pkgs/pytorch-python313-cuda13_0-sm120-avx512-magma.nix";
        QTest::newRow("file name") << "pytorch-python313-cuda13_0-sm120-avx512-magma.nix";
        QTest::newRow("name") << "pytorch-python313-cuda13_0-sm120-avx512-magma";
    }
    void deleteRedundantRecipe()
    {
        QFETCH(QString, argument);
        TestRepository repo;
        start(repo);
        auto expected = snapshot(repo.root());
        const QString magma = recipe("pytorch-python313-cuda13_0-sm120-avx512-magma");
        const Run run = recipegrid({"delete", "--no-readme", repo.root(), argument});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(lines(run.out, "delete  ").size(), 1);
        QVERIFY(run.out.contains("delete  " + magma.toUtf8()));
        expected.erase(magma);
        QVERIFY2(snapshot(repo.root()) == expected,
                 "delete touched another file than the -magma one");
    }

    // The demo's sm75-avx2 works, but the spec does not ask for it: complete leaves it unless
    // --delete-working says to delete it too.
    void completeKeepsWorkingRecipesUnlessAsked()
    {
        const QString sm75 = recipe("pytorch-python313-cuda13_0-sm75-avx2");
        TestRepository kept;
        kept.copyFrom(QStringLiteral(RG_SOURCE_DIR "/resources/demo/repository"));
        QVERIFY(QFile::exists(kept.root() + "/" + sm75));
        const Run run = recipegrid({"complete", "--no-readme", kept.root()});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("not selected: delete  " + sm75.toUtf8() +
                                  "\n  a working recipe: deleted only if you check it"),
                 run.out.constData());
        QVERIFY(QFile::exists(kept.root() + "/" + sm75));
        // Broken recipes outside the spec are still deleted.
        QVERIFY(!QFile::exists(kept.root() + "/" +
                               recipe("pytorch-python313-cuda13_0-sm121-armv9-nightly")));

        TestRepository deleted;
        deleted.copyFrom(QStringLiteral(RG_SOURCE_DIR "/resources/demo/repository"));
        const Run asked =
            recipegrid({"complete", "--no-readme", "--delete-working", deleted.root()});
        QCOMPARE(asked.exitCode, 0);
        QVERIFY2(asked.out.contains("delete  " + sm75.toUtf8() + "  (not in the spec)"),
                 asked.out.constData());
        QVERIFY(!QFile::exists(deleted.root() + "/" + sm75));
        // Only complete deletes what the spec does not ask for.
        const Run fix = recipegrid({"fix", "--delete-working", deleted.root(), "sm90-avx2"});
        QCOMPARE(fix.exitCode, 2);
    }

    // A recipe whose name is not a variant's is there, but outside the matrix: nothing to fix,
    // which is what is said (not "no recipe file of that name").
    void fixingARecipeOutsideTheMatrix()
    {
        TestRepository repo;
        start(repo);
        QVERIFY(QFile::copy(repo.root() + "/" + recipe("pytorch-python313-cuda13_0-sm120-avx512"),
                            repo.root() + "/.flox/pkgs/ollama-cuda.nix"));
        const auto before = snapshot(repo.root());
        for (const QString& argument :
             {QStringLiteral(".flox/pkgs/ollama-cuda.nix"), QStringLiteral("ollama-cuda.nix"),
              repo.root() + "/.flox/pkgs/ollama-cuda.nix"}) {
            const Run run = recipegrid({"fix", repo.root(), argument});
            QCOMPARE(run.exitCode, 0);
            QVERIFY2(run.err.isEmpty(), run.err.constData());
            QVERIFY2(run.out.contains(".flox/pkgs/ollama-cuda.nix: a recipe, but not a variant of "
                                      "the matrix"),
                     run.out.constData());
            QVERIFY2(run.out.contains("nothing to fix"), run.out.constData());
            QVERIFY2(run.out.contains("Nothing to do."), run.out.constData());
            QVERIFY(!run.out.contains("no recipe file of that name"));
        }
        // Named with a cell, the cell is planned and the outsider reported beside it.
        const Run both = recipegrid({"fix", "--dry-run", repo.root(), "ollama-cuda.nix",
                                     "pytorch-python313-cuda13_0-sm110-armv9"});
        QCOMPARE(both.exitCode, 0);
        QVERIFY2(both.out.contains("modify  " +
                                   recipe("pytorch-python313-cuda13_0-sm110-armv9").toUtf8()),
                 both.out.constData());
        QVERIFY2(both.out.contains("ollama-cuda.nix: a recipe, but not a variant"),
                 both.out.constData());
        QVERIFY(snapshot(repo.root()) == before);
    }

    void unknownCell()
    {
        TestRepository repo;
        start(repo);
        const auto before = snapshot(repo.root());
        for (const char* command : {"create", "fix", "delete"}) {
            const Run run = recipegrid({command, repo.root(), "python313-cpu-avx3"});
            QCOMPARE(run.exitCode, 2);
            QVERIFY(run.out.isEmpty());
            QVERIFY2(run.err.contains("unknown cell or recipe 'python313-cpu-avx3'"),
                     run.err.constData());
            QVERIFY2(!run.err.contains("did you mean"), run.err.constData());
        }
        // A cell's last words name it: the error says which cell they end.
        for (const char* words : {"sm90-avx512bf16", "SM90 avx512bf16"}) {
            const Run run = recipegrid({"create", repo.root(), words});
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.contains("; did you mean pytorch-python313-cuda13_0-sm90-avx512bf16?"),
                     run.err.constData());
        }
        const Run several = recipegrid({"create", repo.root(), "avx512bf16"});
        QVERIFY2(several.err.contains("; did you mean pytorch-python313-cuda13_0-") &&
                     several.err.contains(" more)?"),
                 several.err.constData());
        const Run complete = recipegrid({"complete", "--cell", "sm999", repo.root()});
        QCOMPARE(complete.exitCode, 2);
        QVERIFY2(complete.err.contains("'sm999'"), complete.err.constData());
        QVERIFY(snapshot(repo.root()) == before);
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no repository") << QStringList{"complete"} << "missing REPO";
        QTest::newRow("no cell") << QStringList{"create", "REPO"} << "missing CELL";
        QTest::newRow("complete with positional cell")
            << QStringList{"complete", "REPO", "python313-cpu-avx2"} << "--cell";
        QTest::newRow("unknown format")
            << QStringList{"complete", "--format", "sarif", "REPO"} << "unknown format 'sarif'";
        QTest::newRow("message without commit")
            << QStringList{"complete", "--message", "x", "REPO"} << "--message needs --commit";
        QTest::newRow("dry run and commit")
            << QStringList{"complete", "--dry-run", "--commit", "REPO"} << "--dry-run";
        QTest::newRow("unknown option") << QStringList{"fix", "--colour", "REPO", "x"} << "colour";
        QTest::newRow("no such repository")
            << QStringList{"complete", "/nonexistent/repo"} << "no such repository";
        QTest::newRow("no such spec")
            << QStringList{"complete", "--spec", "/nonexistent/spec.json", "REPO"}
            << "no such spec file";
        QTest::newRow("commit outside git")
            << QStringList{"complete", "--commit", "REPO"} << "not a git repository";
    }
    void usageErrors()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        TestRepository repo;
        start(repo);
        const auto before = snapshot(repo.root());
        arguments.replaceInStrings(QRegularExpression("^REPO$"), repo.root());
        const Run run = recipegrid(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
        QVERIFY(snapshot(repo.root()) == before);
    }

    void repositoryWithoutRecipeDirectory()
    {
        TestRepository repo;
        repo.write("README.md", "no recipes here");
        const Run run = recipegrid({"complete", repo.root()});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(".flox/pkgs"), run.err.constData());
    }

    // A directory where the recipe would go is something the user put there: the cell is
    // skipped with the reason, nothing is written, and that is not a failure.
    void directoryWhereRecipeGoesIsSkipped()
    {
        TestRepository repo;
        start(repo);
        QVERIFY(QDir(repo.root()).mkpath(recipe("pytorch-python313-cpu-avx2")));
        const auto before = snapshot(repo.root());
        const Run run = recipegrid({"create", "--no-readme", repo.root(), "python313-cpu-avx2"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("Skipped (1):\n  pytorch-python313-cpu-avx2: "),
                 run.out.constData());
        QVERIFY(run.out.contains("exists"));
        QVERIFY(run.out.contains("Nothing to do."));
        QVERIFY(snapshot(repo.root()) == before);
    }

    // A target that cannot be written fails the apply after earlier files were written: they
    // are rolled back, the error names the file, the exit status is 1. The recipe is made
    // read-only by a read-only bind mount onto itself, which stops root as well as anyone:
    // CTest runs this suite in a mount namespace of its own (tools/in_mount_namespace.sh).
    void unwritableTargetChangesNothing()
    {
        TestRepository repo;
        start(repo);
        const QString armv9 = repo.root() + "/" + recipe("pytorch-python313-cuda13_0-sm110-armv9");
        QVERIFY2(mountTool(QStringLiteral("mount"), {"--bind", armv9, armv9}),
                 "bind-mounting a recipe onto itself");
        auto unmount = qScopeGuard([&] { mountTool(QStringLiteral("umount"), {armv9}); });
        QVERIFY2(mountTool(QStringLiteral("mount"), {"-o", "remount,bind,ro", armv9}),
                 "making the bind mount read-only");
        QFile probe(armv9);
        QVERIFY2(!probe.open(QIODevice::WriteOnly | QIODevice::Append), "the recipe is writable");
        const auto before = snapshot(repo.root());
        const Run run = recipegrid({"complete", repo.root()});
        const auto after = snapshot(repo.root());

        QCOMPARE(run.exitCode, 1);
        const QByteArray named = recipe("pytorch-python313-cuda13_0-sm110-armv9").toUtf8();
        QVERIFY2(run.err.contains("cannot apply: " + named), run.err.constData());
        QVERIFY2(!run.err.contains(".nix: .flox/"), "the file is named once, not per layer");
        QVERIFY(run.err.contains("nothing was changed"));
        QVERIFY2(after == before, "a failed apply left files changed");
        QVERIFY(!run.out.contains("Applied"));
    }

    // A full disk half-way through: exit 1, the message names the file and the OS error,
    // and every file is as it was. The disk is a 100 KB tmpfs, mounted in the suite's own
    // mount namespace (see above).
    void fullDiskLosesNothing()
    {
        QTemporaryDir mountPoint;
        QVERIFY2(mountTool(QStringLiteral("mount"),
                           {"-t", "tmpfs", "-o", "size=100k", "tmpfs", mountPoint.path()}),
                 "mounting a 100 KB tmpfs");
        auto unmount =
            qScopeGuard([&] { mountTool(QStringLiteral("umount"), {mountPoint.path()}); });
        const QString root = mountPoint.path() + "/repo";
        const QString from = fixtures + "/seed001-start";
        QDirIterator it(from, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            const QString target = root + "/" + QDir(from).relativeFilePath(path);
            QVERIFY(QDir().mkpath(QFileInfo(target).absolutePath()));
            QVERIFY(QFile::copy(path, target));
        }
        const auto before = snapshot(root);
        const Run run = recipegrid({"complete", root});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("No space left on device"), run.err.constData());
        QVERIFY2(run.err.contains(".flox/pkgs/pytorch-python313-"), run.err.constData());
        QVERIFY2(snapshot(root) == before, "a failed apply left files changed");
    }

    void completeAndCommit()
    {
        TestRepository repo;
        repo.git({"init", "-q"});
        start(repo);
        repo.git({"config", "user.name", "Recipe Tester"});
        repo.git({"config", "user.email", "tester@example.invalid"});
        repo.commitAll("start");
        const QByteArray startCommit = repo.git({"rev-parse", "HEAD"});

        const Run run =
            recipegrid({"complete", "--readme", "--commit", "--format", "json", repo.root()});
        QCOMPARE(run.exitCode, 0);
        const json doc = json::parse(run.out.toStdString());
        QCOMPARE(doc["applied"].get<bool>(), true);
        const QByteArray head = repo.git({"rev-parse", "HEAD"});
        QCOMPARE(QByteArray::fromStdString(doc["commit"].get<std::string>()), head);
        QCOMPARE(repo.git({"rev-parse", "HEAD~1"}), startCommit);
        QVERIFY2(repo.git({"status", "--porcelain"}).isEmpty(), "files left uncommitted");

        const QByteArray message = repo.git({"log", "-1", "--format=%B"});
        QVERIFY2(message.contains("Created (41):"), message.constData());
        QVERIFY(message.contains("- pytorch-python313-cpu-avx2\n"));
        QVERIFY(message.contains("- pytorch-python313-cuda13_0-sm121-armv9\n"));
        QVERIFY(message.contains("Deleted (3):"));
        QCOMPARE(repo.git({"log", "-1", "--format=%an"}), QByteArray("Recipe Tester"));
        // --no-renames: a deleted recipe and a created one alike are not a rename here.
        const QList<QByteArray> statuses =
            repo.git({"show", "--no-renames", "--name-status", "--format=", "HEAD"}).split('\n');
        QCOMPARE(statuses.size(), 47);
        int added = 0, deleted = 0, modified = 0;
        for (const QByteArray& line : statuses) {
            added += line.startsWith("A\t");
            deleted += line.startsWith("D\t");
            modified += line.startsWith("M\t");
        }
        QCOMPARE(added, 41);
        QCOMPARE(deleted, 3);
        QCOMPARE(modified, 3);
    }

    // Without a git identity the commit cannot be made: refused before anything is written,
    // rather than leaving the work tree changed and uncommitted.
    void commitWithoutIdentityWritesNothing()
    {
        TestRepository repo;
        repo.git({"init", "-q"});
        start(repo);
        repo.commitAll("start"); // TestRepository::git passes its identity with -c
        QTemporaryDir home;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("HOME", home.path());
        environment.insert("XDG_CONFIG_HOME", home.path());
        environment.insert("GIT_CONFIG_NOSYSTEM", "1");
        for (const char* name : {"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                                 "GIT_COMMITTER_EMAIL", "EMAIL"})
            environment.remove(QString::fromLatin1(name));
        const auto before = snapshot(repo.root());
        const Run run = recipegrid({"complete", "--commit", repo.root()}, environment);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("no git identity"), run.err.constData());
        QVERIFY(run.out.isEmpty());
        QVERIFY(snapshot(repo.root()) == before);
    }

    void commitWithOwnMessage()
    {
        TestRepository repo;
        repo.git({"init", "-q"});
        start(repo);
        repo.git({"config", "user.name", "Recipe Tester"});
        repo.git({"config", "user.email", "tester@example.invalid"});
        repo.commitAll("start");
        const Run run =
            recipegrid({"delete", "--commit", "--message", "Drop the MAGMA copy", "--no-readme",
                        repo.root(), "pytorch-python313-cuda13_0-sm120-avx512-magma.nix"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("Committed "), run.out.constData());
        QCOMPARE(repo.git({"log", "-1", "--format=%B"}), QByteArray("Drop the MAGMA copy"));
        QCOMPARE(repo.git({"show", "--name-only", "--format=", "HEAD"}),
                 QByteArray(".flox/pkgs/pytorch-python313-cuda13_0-sm120-avx512-magma.nix"));
    }
};

QTEST_GUILESS_MAIN(TestChangeCommand)
#include "tst_changecommand.moc"
