// Runs the real `recipegrid bump-pin` and `recipegrid pins` on git repositories made from the
// seed000 and seed000-vllm fixtures (git CLI in setup only): what they print, write, commit
// and exit with — 0 done, 1 prefetch/apply/commit failed or compared pins mismatch, 2 usage,
// pin or repository error.

#include "../loopback.h"
#include "../recipes/testrepository.h"
#include "recipegridrun.h"

#include <QDirIterator>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <nlohmann/json.hpp>

using nlohmann::json;
using rg::test::Run;
using rg::test::TestRepository;

namespace {

const QString oldPin = QStringLiteral("6a030d535719c5190187c4cec156f335e95e3211");
const QString newPin = QStringLiteral("0182a361324364ae3f436a63005877674cf45efb");
const QString newHash = QStringLiteral("0mdqa9w1p6cmli6976v4wi0sw9r4p5prkj7lzfd1877wk11c9c73");
const QString oldHash = QStringLiteral("14nc4jm66hc042vkhsypkddy65i76j9fcinmyd02pdihi1p0jh5m");

QProcessEnvironment nixEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("NIX_CONFIG", "build-users-group =\nsandbox = false\nsubstituters =\n"
                             "experimental-features = nix-command");
    return env;
}

Run recipegrid(const QStringList& arguments,
               const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment())
{
    return rg::test::runRecipegrid(arguments, environment);
}

// seed000 as build-pytorch's pytorch-2.9 branch, committed, with a git identity.
void makePytorch(const TestRepository& repo)
{
    repo.copyFrom(QStringLiteral(RG_FIXTURES_DIR "/seed000"));
    repo.git({"init", "-q", "-b", "pytorch-2.9"});
    repo.git({"config", "user.name", "RecipeGrid Test"});
    repo.git({"config", "user.email", "test@example.invalid"});
    repo.commitAll("seed000");
}

void makeVllm(const TestRepository& repo)
{
    repo.copyFrom(QStringLiteral(RG_FIXTURES_DIR "/seed000-vllm"));
    repo.git({"init", "-q", "-b", "main"});
    repo.commitAll("build-vllm");
    repo.git({"checkout", "-q", "-b", "elsewhere"}); // main is compared without checkout
}

std::map<QString, QByteArray> snapshot(const TestRepository& repo)
{
    std::map<QString, QByteArray> tree;
    QDirIterator it(repo.root(), QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString relative = QDir(repo.root()).relativeFilePath(path);
        if (relative.startsWith(QLatin1String(".git/")))
            continue;
        QFile file(path);
        tree[relative] = file.open(QIODevice::ReadOnly) ? file.readAll() : "<unreadable>";
    }
    return tree;
}

// Lines removed and added by a diff text, without the headers.
std::pair<QStringList, QStringList> diffLines(const QString& diff)
{
    QStringList removed, added;
    for (const QString& line : diff.split('\n')) {
        if (line.startsWith("---") || line.startsWith("+++"))
            continue;
        if (line.startsWith('-'))
            removed << line.mid(1);
        else if (line.startsWith('+'))
            added << line.mid(1);
    }
    return {removed, added};
}

int pinFindings(const json& report)
{
    int count = 0;
    for (const json& entry : report["entries"])
        for (const json& finding : entry["findings"])
            count += finding["ruleId"].get<std::string>().starts_with("pin") ? 1 : 0;
    return count;
}

} // namespace

class TestPinCommand : public QObject
{
    Q_OBJECT

private slots:
    void seed000BumpWithReadmeDocsAndHashThenCheckIsClean();
    void renamePythonSetChangesThoseLinesToo();
    void withoutHashTheRecipesAreListedAsNeedingOne();
    void dryRunAndAbbreviatedPinsResolvedThroughCompare();
    void commitWithoutIdentityWritesNothing();
    void badInput_data();
    void badInput();
    void prefetchOfflineFailsAndWritesNothing();
    void prefetchWritesTheHashNixAccepts();
    void pinsCompareReportsTheMismatchPerGroup();
    void pinsCompareWithAPathThatIsNoRepository();
    void pinsJson();
    void helpNamesTheSubcommand();
};

void TestPinCommand::seed000BumpWithReadmeDocsAndHashThenCheckIsClean()
{
    TestRepository repo;
    makePytorch(repo);
    const QString head = repo.git({"rev-parse", "HEAD"});
    const Run run =
        recipegrid({"bump-pin", repo.root(), "--from", oldPin, "--to", newPin, "--readme", "--docs",
                    "--hash", newHash, "--commit", "--format", "json", "--diff"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const json doc = json::parse(run.out.toStdString());
    QCOMPARE(doc["recipes"].get<int>(), 66);
    QCOMPARE(doc["operations"].size(), size_t(68));
    QVERIFY(doc["needsHash"].empty());
    QVERIFY(doc["applied"].get<bool>());
    for (const json& op : doc["operations"]) {
        const QString path = QString::fromStdString(op["path"].get<std::string>());
        const auto [removed, added] =
            diffLines(QString::fromStdString(op["diff"].get<std::string>()));
        if (path.startsWith(".flox/pkgs/")) {
            // Exactly the pin line and the hash line, nothing else.
            QCOMPARE(removed.size(), 2);
            QCOMPARE(added.size(), 2);
            QCOMPARE(added[0], QString(removed[0]).replace(oldPin, newPin));
            QVERIFY(removed[1].contains("sha256 = \"" + oldHash + "\";"));
            QVERIFY(added[1].contains("sha256 = \"" + newHash + "\";"));
        } else if (path == "README.md") {
            QCOMPARE(removed.size(), 1);
            QCOMPARE(added, QStringList{"| Nixpkgs pin | [**`0182a36`**](https://github.com/"
                                        "NixOS/nixpkgs/tree/" +
                                        newPin + ") |"});
        } else {
            QCOMPARE(path, QStringLiteral("docs/align-to-vllm.md"));
            QCOMPARE(removed.size(), 2);
            for (int i = 0; i < removed.size(); ++i)
                QCOMPARE(added[i],
                         QString(removed[i]).replace(oldPin, newPin).replace("6a030d5", "0182a36"));
        }
    }
    // Committed: HEAD moved by one commit holding exactly those 68 files.
    QCOMPARE(repo.git({"rev-parse", "HEAD~1"}), head.toUtf8());
    const QStringList committed =
        QString::fromUtf8(repo.git({"show", "--name-only", "--format=", "HEAD"})).split('\n');
    QCOMPARE(committed.size(), 68);
    QCOMPARE(repo.git({"status", "--porcelain"}), QByteArray());
    QVERIFY(repo.git({"log", "-1", "--format=%s"}).startsWith("Bump nixpkgs 6a030d5"));

    const Run check = recipegrid({"check", "--format", "json", repo.root()});
    QCOMPARE(check.exitCode, 0);
    QCOMPARE(pinFindings(json::parse(check.out.toStdString())), 0);
}

void TestPinCommand::renamePythonSetChangesThoseLinesToo()
{
    TestRepository repo;
    makePytorch(repo);
    const Run run = recipegrid({"bump-pin", repo.root(), "--from", oldPin, "--to", newPin,
                                "--rename-python-set", "--hash", newHash, "--diff"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QCOMPARE(repo.git({"status", "--porcelain"}).split('\n').size(), 66);
    for (const QString& file : QDir(repo.root() + "/.flox/pkgs").entryList({"*.nix"})) {
        const QString diff = QString::fromUtf8(repo.git({"diff", "--", ".flox/pkgs/" + file}));
        const auto [removed, added] = diffLines(diff);
        QCOMPARE(removed.size(), 3);
        QCOMPARE(added.size(), 3);
        QCOMPARE(added[2], QString(removed[2]).replace("python3Packages", "python313Packages"));
        QVERIFY(removed[2].contains("nixpkgs_pinned.python3Packages.torch"));
    }
    QVERIFY2(run.out.contains("Now: 66 expected (66 ok)\n"), run.out.constData());
}

void TestPinCommand::withoutHashTheRecipesAreListedAsNeedingOne()
{
    TestRepository repo;
    makePytorch(repo);
    const Run run = recipegrid(
        {"bump-pin", repo.root(), "--from", oldPin, "--to", newPin, "--scope", "accelerator:cpu"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.contains("Needs a new hash (6 files)"), run.out.constData());
    for (const QString& file : QDir(repo.root() + "/.flox/pkgs").entryList({"*.nix"})) {
        QFile f(repo.root() + "/.flox/pkgs/" + file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        const bool cpu = file.contains("-cpu-");
        // Never the new pin with the old hash.
        QCOMPARE(text.contains(newPin.toUtf8()), cpu);
        QCOMPARE(text.contains(oldHash.toUtf8()), !cpu);
        QCOMPARE(text.contains(QByteArray(52, '0')), cpu);
    }
}

void TestPinCommand::dryRunAndAbbreviatedPinsResolvedThroughCompare()
{
    TestRepository repo, vllm;
    makePytorch(repo);
    makeVllm(vllm);
    const auto before = snapshot(repo);
    // 0182a36 is no pin of this repository: it resolves through the compared one.
    const Run unknown =
        recipegrid({"bump-pin", repo.root(), "--from", "6a030d5", "--to", "0182a36", "--dry-run"});
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.contains("unknown pin '0182a36'"), unknown.err.constData());
    const Run run = recipegrid({"bump-pin", repo.root(), "--from", "6a030d5", "--to", "0182a36",
                                "--compare", vllm.root() + "@main", "--dry-run", "--scope",
                                "cell:python313-darwin-mps", "--readme"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.out.contains("  to   " + newPin.toUtf8()));
    QVERIFY(run.out.contains("modify  .flox/pkgs/pytorch-python313-darwin-mps.nix"));
    QVERIFY(run.out.contains("modify  README.md"));
    QVERIFY(run.out.contains("2 modify"));
    QVERIFY(run.out.contains("Dry run: nothing was written."));
    QVERIFY(snapshot(repo) == before);
}

// A bump that is to be committed where no commit can be made (no git identity) is refused
// before anything is written, as every change-set command does.
void TestPinCommand::commitWithoutIdentityWritesNothing()
{
    TestRepository repo;
    repo.copyFrom(QStringLiteral(RG_FIXTURES_DIR "/seed000"));
    repo.git({"init", "-q"});
    repo.commitAll("seed000"); // TestRepository::git passes its identity with -c
    QTemporaryDir home;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("HOME", home.path());
    environment.insert("XDG_CONFIG_HOME", home.path());
    environment.insert("GIT_CONFIG_NOSYSTEM", "1");
    for (const char* name : {"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                             "GIT_COMMITTER_EMAIL", "EMAIL"})
        environment.remove(QString::fromLatin1(name));
    const auto before = snapshot(repo);
    const Run run = recipegrid(
        {"bump-pin", repo.root(), "--from", oldPin, "--to", newPin, "--hash", newHash, "--commit"},
        environment);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("no git identity"), run.err.constData());
    QVERIFY(snapshot(repo) == before);
}

void TestPinCommand::badInput_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("malformed to") << QStringList{"--from", oldPin, "--to", "0182z36"}
                                  << "malformed pin '0182z36'";
    QTest::newRow("short to") << QStringList{"--from", oldPin, "--to", "0182a"} << "too short";
    QTest::newRow("unused from")
        << QStringList{"--from", "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3", "--to", newPin}
        << "no recipe uses pin fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3; nothing to change";
    QTest::newRow("from outside the scope")
        << QStringList{"--from", oldPin, "--to", newPin, "--scope", "package:vllm"}
        << "no recipe in the scope uses pin " + oldPin + " (66 outside it do); nothing to change";
    QTest::newRow("missing to") << QStringList{"--from", oldPin} << "--from and --to are required";
    QTest::newRow("bad scope") << QStringList{"--from", oldPin, "--to", newPin, "--scope", "arch:x"}
                               << "unknown scope 'arch:x'";
    QTest::newRow("bad hash") << QStringList{"--from", oldPin, "--to", newPin, "--hash", "abc"}
                              << "--hash 'abc' is not a SHA-256";
    QTest::newRow("dry commit") << QStringList{"--from", oldPin,      "--to",
                                               newPin,   "--dry-run", "--commit"}
                                << "cannot --commit";
}

void TestPinCommand::badInput()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    TestRepository repo;
    makePytorch(repo);
    const auto before = snapshot(repo);
    const Run run = recipegrid(QStringList{"bump-pin", repo.root()} + arguments);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
    QVERIFY(run.out.isEmpty());
    QVERIFY(snapshot(repo) == before);
}

void TestPinCommand::prefetchOfflineFailsAndWritesNothing()
{
    // The recipes fetch their pin from a port of 127.0.0.1 that nothing listens on: the
    // download is refused whether or not the machine has a network, and never leaves it.
    const QString origin = rg::test::refusingLoopbackOrigin();
    QVERIFY(!origin.isEmpty());
    const QByteArray github = "https://github.com/NixOS/nixpkgs/archive/";
    const QByteArray local = origin.toUtf8() + "/NixOS/nixpkgs/archive/";
    TestRepository repo;
    repo.copyFrom(QStringLiteral(RG_FIXTURES_DIR "/seed000"));
    int pointed = 0;
    QDirIterator recipes(repo.root() + "/.flox/pkgs", {"*.nix"}, QDir::Files);
    while (recipes.hasNext()) {
        const QString path = recipes.next();
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QByteArray text = file.readAll();
        file.close();
        pointed += text.contains(github) ? 1 : 0;
        repo.write(".flox/pkgs/" + QFileInfo(path).fileName(), text.replace(github, local));
    }
    QVERIFY(pointed > 0);
    repo.git({"init", "-q", "-b", "pytorch-2.9"});
    repo.commitAll("seed000, fetched from a refusing port");
    const auto before = snapshot(repo);
    const Run run = recipegrid({"bump-pin", repo.root(), "--from", oldPin, "--to", newPin,
                                "--prefetch", "--prefetch-timeout", "60"},
                               nixEnvironment());
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(!run.err.contains(github), run.err.constData());
    const QByteArray url = local + newPin.toUtf8() + ".tar.gz";
    QVERIFY2(run.err.contains("cannot prefetch " + url + ": error: unable to download '" + url),
             run.err.constData());
    QVERIFY(run.err.contains("Nothing was written."));
    QVERIFY(snapshot(repo) == before);
}

void TestPinCommand::prefetchWritesTheHashNixAccepts()
{
    // The pins' tarballs served from file:// URLs, so that no network is needed: after the
    // bump, Nix itself must accept the recipe's fetcher with the hash that was written.
    TestRepository repo;
    repo.write("mirror/src/nixpkgs/default.nix", "{ }: { answer = 42; }\n");
    QVERIFY(QDir().mkpath(repo.root() + "/mirror/nixpkgs/archive"));
    QProcess tar;
    tar.start("tar", {"-C", repo.root() + "/mirror/src", "-czf",
                      repo.root() + "/mirror/nixpkgs/archive/" + newPin + ".tar.gz", "nixpkgs"});
    QVERIFY(tar.waitForFinished(30000) && tar.exitCode() == 0);
    const QString fetcher = "builtins.fetchTarball {\n    url = \"file://" + repo.root() +
                            "/mirror/nixpkgs/archive/%1.tar.gz\";\n    sha256 = \"" + oldHash +
                            "\";\n  }";
    repo.writeRecipe("pytorch-python313-cpu-avx2.nix",
                     ("let\n  nixpkgs_pinned = import (" + fetcher.arg(oldPin) +
                      ") { };\nin\nnixpkgs_pinned.python3Packages.torch\n")
                         .toUtf8());
    const Run run = recipegrid({"bump-pin", repo.root(), "--from", oldPin, "--to", newPin,
                                "--prefetch", "--format", "json"},
                               nixEnvironment());
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const json doc = json::parse(run.out.toStdString());
    QCOMPARE(doc["prefetched"].size(), size_t(1));
    QVERIFY(doc["needsHash"].empty());
    QFile recipe(repo.root() + "/.flox/pkgs/pytorch-python313-cpu-avx2.nix");
    QVERIFY(recipe.open(QIODevice::ReadOnly));
    const QByteArray text = recipe.readAll();
    QVERIFY(!text.contains(oldHash.toUtf8()));
    QVERIFY(text.contains(doc["prefetched"][0]["hash"].get<std::string>().c_str()));

    const QString fetched = QString::fromUtf8(text).section("import (", 1).section(") { }", 0, 0);
    QProcess nix;
    nix.setProcessEnvironment(nixEnvironment());
    nix.start("nix-instantiate", {"--eval", "-E", "(import (" + fetched + ") { }).answer"});
    QVERIFY(nix.waitForFinished(60000));
    QVERIFY2(nix.exitCode() == 0, nix.readAllStandardError().constData());
    QCOMPARE(nix.readAllStandardOutput().trimmed(), QByteArray("42"));
}

void TestPinCommand::pinsCompareReportsTheMismatchPerGroup()
{
    TestRepository repo, vllm;
    makePytorch(repo);
    makeVllm(vllm);
    const Run run = recipegrid({"pins", repo.root(), "--compare", vllm.root() + "@main"});
    QVERIFY2(run.exitCode == 1, run.err.constData());
    const QString out = QString::fromUtf8(run.out);
    QVERIFY2(out.contains("pytorch \xc2\xb7 CUDA 12.9 (spec: 0182a36)\n  6a030d5  " + oldPin +
                          "  59 recipes  [differs from the spec's 0182a36]"),
             run.out.constData());
    QVERIFY(out.contains("Legend:  6a030d5 (66)"));
    const QStringList lines = out.split('\n');
    int mismatches = 0;
    for (const QString& line : lines) {
        if (!line.endsWith("MISMATCH"))
            continue;
        ++mismatches;
        QVERIFY2(line.startsWith("pytorch  3.13    CUDA 12.9"), qPrintable(line));
        QVERIFY(line.contains("6a030d5 (59)"));
        QVERIFY(line.contains("0182a36 (2)"));
    }
    QCOMPARE(mismatches, 1);

    // After seed 000's bump the same comparison agrees everywhere.
    QCOMPARE(
        recipegrid({"bump-pin", repo.root(), "--from", oldPin, "--to", newPin, "--hash", newHash})
            .exitCode,
        0);
    const Run after = recipegrid({"pins", repo.root(), "--compare", vllm.root() + "@main"});
    QVERIFY2(after.exitCode == 0, after.err.constData());
    QVERIFY(!after.out.contains("MISMATCH"));
}

void TestPinCommand::pinsCompareWithAPathThatIsNoRepository()
{
    TestRepository repo, plain;
    makePytorch(repo);
    plain.write("README.md", "not a repository\n");
    const Run run = recipegrid({"pins", repo.root(), "--compare", plain.root(), "--branches"});
    QCOMPARE(run.exitCode, 0); // no mismatch among what could be read
    QVERIFY2(run.out.contains(": not a git repository"), run.out.constData());
    QVERIFY(run.out.contains("pytorch  3.13    CUDA 12.9"));
    QVERIFY(run.out.contains("6a030d5 (59)"));

    const Run json =
        recipegrid({"pins", repo.root(), "--compare", plain.root(), "--format", "json"});
    QCOMPARE(json.exitCode, 0);
    QVERIFY(json.err.contains("not a git repository"));
}

void TestPinCommand::pinsJson()
{
    TestRepository repo, vllm;
    makePytorch(repo);
    makeVllm(vllm);
    const Run run = recipegrid({"pins", repo.root(), "--rev", "pytorch-2.9", "--compare",
                                vllm.root() + "@main", "--format", "json"});
    QCOMPARE(run.exitCode, 1);
    const json doc = json::parse(run.out.toStdString());
    QCOMPARE(doc["revision"].get<std::string>(), std::string("pytorch-2.9"));
    QCOMPARE(doc["groups"].size(), size_t(3));
    QCOMPARE(doc["groups"][1]["acceleratorId"].get<std::string>(), std::string("cuda12.9"));
    QCOMPARE(doc["groups"][1]["pins"][0]["count"].get<int>(), 59);
    QVERIFY(doc["groups"][1]["pins"][0]["differsFromSpec"].get<bool>());
    QCOMPARE(doc["legend"][0]["short"].get<std::string>(), std::string("6a030d5"));
    const json& alignment = doc["alignment"];
    QCOMPARE(alignment["columns"].size(), size_t(2));
    int mismatches = 0;
    for (const json& row : alignment["rows"]) {
        if (!row["mismatch"].get<bool>())
            continue;
        ++mismatches;
        QCOMPARE(row["package"].get<std::string>(), std::string("pytorch"));
        QCOMPARE(row["python"].get<std::string>(), std::string("3.13"));
        QCOMPARE(row["cells"][0]["pin"].get<std::string>(), oldPin.toStdString());
        QCOMPARE(row["cells"][1]["pin"].get<std::string>(), newPin.toStdString());
    }
    QCOMPARE(mismatches, 1);
}

void TestPinCommand::helpNamesTheSubcommand()
{
    const Run bump = recipegrid({"bump-pin", "--help"});
    QCOMPARE(bump.exitCode, 0);
    QVERIFY(bump.out.startsWith("Usage: recipegrid bump-pin [options] REPO --from OLD --to NEW"));
    QVERIFY(bump.out.contains("--rename-python-set"));
    const Run pins = recipegrid({"pins", "--help"});
    QCOMPARE(pins.exitCode, 0);
    QVERIFY(pins.out.startsWith("Usage: recipegrid pins [options] REPO"));
    const Run help = recipegrid({"help"});
    QVERIFY(help.out.contains("bump-pin"));
    QVERIFY(help.out.contains("pins "));
}

QTEST_GUILESS_MAIN(TestPinCommand)
#include "tst_pincommand.moc"
