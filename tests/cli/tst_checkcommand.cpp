// Runs the real `recipegrid check` and checks its output in all three formats and its exit
// codes: 0 clean, 1 findings, 2 usage or I/O error.

#include "../recipes/testrepository.h"
#include "analysis/analysisreport.h"
#include "analysis/analyzer.h"
#include "analysis/ruleset.h"
#include "recipegridrun.h"

#include <QDirIterator>
#include <QProcess>
#include <QTest>
#include <nlohmann/json.hpp>
#include <set>

using nlohmann::json;
using rg::test::Run;
using rg::test::TestRepository;

namespace {

const QString fixtures = QStringLiteral(RG_FIXTURES_DIR);

Run check(const QStringList& arguments, const QString& workingDirectory = QString())
{
    return rg::test::runRecipegrid(QStringList{QStringLiteral("check")} + arguments,
                                   QProcessEnvironment::systemEnvironment(), workingDirectory,
                                   60000);
}

QString fixture(const char* name)
{
    return fixtures + "/" + name;
}

} // namespace

class TestCheckCommand : public QObject
{
    Q_OBJECT

private slots:
    void help()
    {
        const Run run = check({"--help"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.startsWith("Usage: recipegrid check [options] REPO\n"),
                 run.out.constData());
        for (const char* option : {"--spec", "--rev", "--format", "REPO"})
            QVERIFY2(run.out.contains(option), option);
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no repository") << QStringList{} << "missing REPO";
        QTest::newRow("two repositories")
            << QStringList{fixture("seed000"), fixture("seed000")} << "one REPO";
        QTest::newRow("unknown format")
            << QStringList{"--format", "xml", fixture("seed000")} << "unknown format 'xml'";
        QTest::newRow("unknown option") << QStringList{"--colour", fixture("seed000")} << "colour";
        QTest::newRow("nonexistent repository")
            << QStringList{fixture("no-such-repo")} << "no-such-repo: no such repository";
        QTest::newRow("nonexistent spec")
            << QStringList{"--spec", "/nonexistent/spec.json", fixture("seed000")}
            << "no such spec";
    }
    void usageErrors()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const Run run = check(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
    }

    void revisionOutsideGit()
    {
        TestRepository repo;
        repo.writeRecipe("pytorch-python313-cpu-avx2.nix", "{ }");
        const Run run = check({"--rev", "main", repo.root()});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("not a git repository"), run.err.constData());
    }

    void missingRecipeDirectory()
    {
        TestRepository repo;
        repo.write("README.md", "no recipes here");
        const Run run = check({repo.root()});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(".flox/pkgs"), run.err.constData());
    }

    void textSeed001Start()
    {
        const Run run = check({fixture("seed001-start")});
        QCOMPARE(run.exitCode, 1);
        const QString out = QString::fromUtf8(run.out);
        QVERIFY2(
            out.contains(QString::fromUtf8("44 expected (1 ok \u00b7 2 broken \u00b7 41 missing) "
                                           "\u00b7 3 not expected (2 broken \u00b7 1 "
                                           "redundant)\n")),
            run.out.constData());
        for (const char* header : {"BROKEN (4)", "REDUNDANT (1)", "MISSING (41)", "OK (1)"})
            QVERIFY2(out.contains(header), header);
        QVERIFY(!out.contains("UNEXPECTED"));
        // Grouped by status: broken before missing before ok.
        QVERIFY(out.indexOf("BROKEN") < out.indexOf("MISSING"));
        QVERIFY(out.indexOf("MISSING") < out.indexOf("OK (1)"));
        QVERIFY(out.contains(".flox/pkgs/pytorch-python313-cuda13_0-sm110-armv8_2.nix"));
        QVERIFY(out.contains("pin-mismatch"));
        QVERIFY(out.contains("fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"));
        QVERIFY(out.contains("  pytorch-python313-cuda13_0-sm121-armv9\n")); // a missing cell
        QVERIFY2(!run.out.contains('\x1b'), "no colours when stdout is not a terminal");
    }

    // Every recipe is ok; what is left is the spec asking for sm110 and sm121 with x86 ISAs,
    // which no machine runs: said on the spec, once per pair, at the arch in its matrix (line
    // 16, column 70: "sm110"), and a warning exits 1.
    void textSeed001TargetIsClean()
    {
        const Run run = check({"--format", "text", fixture("seed001-target")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY(QString::fromUtf8(run.out).contains(QString::fromUtf8("44 expected (44 ok)\n")));
        QVERIFY(run.out.contains("0 errors, 8 warnings, 0 notes"));
        QCOMPARE(run.out.count("spec-asks-impossible"), 8);
        QVERIFY2(run.out.contains("\nREPOSITORY\n    warning .flox/recipegrid.json:16:70  "
                                  "spec-asks-impossible  the spec asks for "
                                  "pytorch-python313-cuda13_0-sm110-avx2, which cannot work: "),
                 run.out.constData());
    }

    // A recipe nested deeper than RecipeGrid reads: its own status, in the text and the JSON,
    // not counted as ok; the warning makes the exit status 1.
    void uncheckedRecipe()
    {
        TestRepository repo;
        repo.copyFrom(fixture("seed001-target"));
        const QString name = "pytorch-python313-cuda13_0-sm90-avx2.nix";
        repo.writeRecipe(name,
                         "# unread\n" + QByteArray(1100, '(') + "{ }" + QByteArray(1100, ')'));
        const Run text = check({repo.root()});
        QCOMPARE(text.exitCode, 1);
        const QString out = QString::fromUtf8(text.out);
        QVERIFY2(out.contains(QString::fromUtf8("44 expected (43 ok \u00b7 1 unchecked)\n")),
                 text.out.constData());
        QVERIFY(out.contains("UNCHECKED (1)\n  .flox/pkgs/" + name + "\n"));
        QVERIFY(out.contains("nested-too-deep"));
        const json doc = json::parse(check({"--format", "json", repo.root()}).out.toStdString());
        QCOMPARE(doc["summary"]["unchecked"].get<int>(), 1);
        QCOMPARE(doc["summary"]["ok"].get<int>(), 43);
        int unchecked = 0;
        for (const json& entry : doc["entries"])
            if (entry["status"] == "unchecked") {
                ++unchecked;
                QCOMPARE(entry["file"].get<std::string>(), ".flox/pkgs/" + name.toStdString());
            }
        QCOMPARE(unchecked, 1);
    }

    void jsonSeed001Start()
    {
        const Run run = check({"--format", "json", fixture("seed001-start")});
        QCOMPARE(run.exitCode, 1);
        const json doc = json::parse(run.out.toStdString());
        QCOMPARE(doc["schema"].get<int>(), 1);
        QVERIFY(doc["revision"].is_null());
        QCOMPARE(doc["spec"]["path"].get<std::string>(), std::string(".flox/recipegrid.json"));
        QCOMPARE(doc["spec"]["inferred"].get<bool>(), false);
        const json& summary = doc["summary"];
        QCOMPARE(summary["expected"].get<int>(), 44);
        QCOMPARE(summary["ok"].get<int>(), 1);
        QCOMPARE(summary["broken"].get<int>(), 4);
        QCOMPARE(summary["redundant"].get<int>(), 1);
        QCOMPARE(summary["missing"].get<int>(), 41);
        QCOMPARE(summary["unexpected"].get<int>(), 0);
        QCOMPARE(summary["impossible"].get<int>(), 0);
        QCOMPARE(doc["entries"].size(), size_t(47));
        int findings = 0;
        bool sawPin = false;
        for (const json& entry : doc["entries"]) {
            findings += int(entry["findings"].size());
            if (entry["file"] == ".flox/pkgs/pytorch-python313-cuda13_0-sm110-armv9.nix") {
                QCOMPARE(entry["status"].get<std::string>(), std::string("broken"));
                QCOMPARE(entry["facts"]["pins"][0].get<std::string>(),
                         std::string("fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"));
                for (const json& finding : entry["findings"])
                    if (finding["ruleId"] == "pin-mismatch") {
                        sawPin = true;
                        QCOMPARE(finding["severity"].get<std::string>(), std::string("error"));
                        QCOMPARE(finding["fix"].get<std::string>(), std::string("replace-pin"));
                        QVERIFY(finding["line"].get<int>() > 0);
                        QVERIFY(finding["column"].get<int>() > 0);
                        QVERIFY(finding["file"] == entry["file"]);
                    }
            }
            if (entry["status"] == "missing")
                QVERIFY(entry["file"].is_null());
        }
        QVERIFY(sawPin);
        QCOMPARE(doc["repositoryFindings"].size(), size_t(8)); // the spec's impossible asks
        findings += int(doc["repositoryFindings"].size());
        QCOMPARE(summary["findings"].get<int>(), findings);
    }

    void jsonSeed000()
    {
        const Run run = check({"--format", "json", fixture("seed000")});
        QCOMPARE(run.exitCode, 1);
        const json doc = json::parse(run.out.toStdString());
        QCOMPARE(doc["summary"]["findings"].get<int>(), 66);
        for (const json& entry : doc["entries"]) {
            QCOMPARE(entry["findings"].size(), size_t(1));
            QCOMPARE(entry["findings"][0]["ruleId"].get<std::string>(),
                     std::string("pin-mismatch"));
        }
    }

    // File names are not to be trusted: SARIF gets valid, percent-encoded URIs, and the text
    // output escapes control characters so a newline in a name cannot forge a finding line.
    void hostileFileNames()
    {
        TestRepository repo;
        repo.writeRecipe("recipe copy.nix", "{ }");
        repo.writeRecipe("bad\nname.nix", "{ }");
        repo.writeRecipe("\xc3\xbc.nix", "{ }");
        repo.writeRecipe("esc\x1b[31m.nix", "{ }");
        const Run sarif = check({"--format", "sarif", repo.root()});
        QCOMPARE(sarif.exitCode, 0); // only notes: the names are not variants
        const auto doc = nlohmann::json::parse(sarif.out.toStdString());
        std::set<std::string> uris;
        for (const auto& result : doc["runs"][0]["results"])
            if (result.contains("locations"))
                uris.insert(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                                .get<std::string>());
        for (const char* uri : {".flox/pkgs/recipe%20copy.nix", ".flox/pkgs/bad%0Aname.nix",
                                ".flox/pkgs/%C3%BC.nix", ".flox/pkgs/esc%1B%5B31m.nix"})
            QVERIFY2(uris.count(uri), uri);
        for (const std::string& uri : uris)
            QVERIFY2(uri.find_first_of(" \n\x1b") == std::string::npos, uri.c_str());
        const std::string root =
            doc["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"].get<std::string>();
        QVERIFY(root.starts_with("file:///"));

        const Run text = check({repo.root()});
        QVERIFY(!text.out.contains('\x1b'));
        QVERIFY2(text.out.contains("bad\\x0aname.nix"), text.out.constData());
        QVERIFY(text.out.contains("esc\\x1b[31m.nix"));
        QVERIFY(text.out.contains("\xc3\xbc.nix")); // UTF-8 is printable as it is
    }

    void sarifSeed001Start()
    {
        const Run run = check({"--format", "sarif", fixture("seed001-start")});
        QCOMPARE(run.exitCode, 1);
        const json doc = json::parse(run.out.toStdString());
        QCOMPARE(doc["version"].get<std::string>(), std::string("2.1.0"));
        QCOMPARE(doc["runs"][0]["tool"]["driver"]["name"].get<std::string>(),
                 std::string("RecipeGrid"));
        QVERIFY(!doc["runs"][0]["tool"]["driver"]["version"].get<std::string>().empty());
        QVERIFY(doc["$schema"].get<std::string>().find("sarif") != std::string::npos);
        const json& runJson = doc["runs"][0];
        std::set<std::string> ruleIds;
        for (const json& rule : runJson["tool"]["driver"]["rules"]) {
            ruleIds.insert(rule["id"].get<std::string>());
            QVERIFY(!rule["shortDescription"]["text"].get<std::string>().empty());
            QVERIFY(!rule["fullDescription"]["text"].get<std::string>().empty());
        }
        QCOMPARE(ruleIds.size(), rg::RuleSet::rules().size());
        QVERIFY(ruleIds.count("pin-mismatch") && ruleIds.count("missing-overlay"));
        int pinResults = 0;
        for (const json& result : runJson["results"]) {
            const std::string ruleId = result["ruleId"].get<std::string>();
            QVERIFY2(ruleIds.count(ruleId), ruleId.c_str());
            QCOMPARE(runJson["tool"]["driver"]["rules"][result["ruleIndex"].get<size_t>()]["id"]
                         .get<std::string>(),
                     ruleId);
            const std::string level = result["level"].get<std::string>();
            QVERIFY(level == "error" || level == "warning" || level == "note");
            QVERIFY(!result["message"]["text"].get<std::string>().empty());
            const json& location = result["locations"][0]["physicalLocation"];
            const std::string uri = location["artifactLocation"]["uri"].get<std::string>();
            QVERIFY2(uri.starts_with(".flox/pkgs/") ||
                         (ruleId == "spec-asks-impossible" && uri == ".flox/recipegrid.json"),
                     uri.c_str());
            if (ruleId == "pin-mismatch") {
                ++pinResults;
                QCOMPARE(level, std::string("error"));
                QCOMPARE(location["region"]["startLine"].get<int>(), 6);
                QCOMPARE(location["region"]["startColumn"].get<int>(), 53);
            }
        }
        QCOMPARE(pinResults, 3); // sm110-armv8_2, sm110-armv9, sm120-avx
    }

    void revisionOfBranchNotCheckedOut()
    {
        TestRepository repo;
        repo.git({"init", "-q"});
        repo.copyFrom(fixture("seed001-start"));
        repo.commitAll("start");
        repo.git({"checkout", "-q", "-b", "cuda-13_0-target"});
        repo.git({"rm", "-q", "-r", ".flox/pkgs"});
        repo.copyFrom(fixture("seed001-target"));
        repo.commitAll("target");
        repo.git({"checkout", "-q", "main"});

        const Run target = check({"--rev", "cuda-13_0-target", "--format", "json", repo.root()});
        QCOMPARE(target.exitCode, 1); // the spec's asks for sm110/sm121 with x86 ISAs
        const json doc = json::parse(target.out.toStdString());
        QCOMPARE(doc["revision"].get<std::string>(), std::string("cuda-13_0-target"));
        QCOMPARE(doc["summary"]["ok"].get<int>(), 44);
        QCOMPARE(doc["summary"]["findings"].get<int>(), 8);
        // The checked-out work tree is still the start.
        const Run workTree = check({"--format", "json", repo.root()});
        QCOMPARE(workTree.exitCode, 1);
        QCOMPARE(json::parse(workTree.out.toStdString())["summary"]["missing"].get<int>(), 41);

        const Run bad = check({"--rev", "no-such-branch", repo.root()});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("no-such-branch"), bad.err.constData());
    }

    void explicitSpecRelativeToWorkingDirectory()
    {
        TestRepository repo;
        repo.copyFrom(fixture("seed001-target"));
        QFile::remove(repo.root() + "/.flox/recipegrid.json");
        const Run inferred = check({"--format", "json", repo.root()});
        // An inferred spec is only a note, but it cannot vouch for sm110/sm121 with x86 ISAs.
        QCOMPARE(inferred.exitCode, 1);
        const json inferredDoc = json::parse(inferred.out.toStdString());
        QCOMPARE(inferredDoc["spec"]["inferred"].get<bool>(), true);
        QCOMPARE(inferredDoc["summary"]["impossible"].get<int>(), 8);
        QCOMPARE(inferredDoc["summary"]["ok"].get<int>(), 36);
        QCOMPARE(inferredDoc["summary"]["infos"].get<int>(), 1);
        QCOMPARE(inferredDoc["summary"]["errors"].get<int>(), 0);
        QVERIFY(check({repo.root()}).out.contains("inferred"));

        // seed 000's spec against the seed 001 target: everything missing or unexpected.
        const Run other = check(
            {"--spec", "seed000/.flox/recipegrid.json", "--format", "json", repo.root()}, fixtures);
        QCOMPARE(other.exitCode, 1);
        const json doc = json::parse(other.out.toStdString());
        QCOMPARE(doc["summary"]["expected"].get<int>(), 66);
        QCOMPARE(doc["spec"]["inferred"].get<bool>(), false);
    }

    void invalidSpecIsReportedNotFatal()
    {
        TestRepository repo;
        repo.copyFrom(fixture("seed001-target"));
        repo.write(".flox/recipegrid.json", "{ \"schema\": 1,\n  \"pins\": [ }\n");
        const Run run = check({"--format", "json", repo.root()});
        QCOMPARE(run.exitCode, 1);
        const json doc = json::parse(run.out.toStdString());
        QVERIFY(doc["spec"]["error"].is_string());
        QCOMPARE(doc["spec"]["inferred"].get<bool>(), true);
        QCOMPARE(doc["repositoryFindings"][0]["ruleId"].get<std::string>(),
                 std::string("spec-invalid"));
        QCOMPARE(doc["repositoryFindings"][0]["line"].get<int>(), 2);
    }

    void colorsOnlyWhenAsked()
    {
        auto source = rg::openWorkTree(fixture("seed001-start").toStdString());
        const rg::Analysis analysis = rg::Analyzer().analyze(*source);
        const std::string plain = rg::AnalysisReport::text(analysis, {"repo", "", ""}, false);
        const std::string colored = rg::AnalysisReport::text(analysis, {"repo", "", ""}, true);
        QVERIFY(plain.find('\x1b') == std::string::npos);
        QVERIFY(colored.find("\x1b[1;31mBROKEN (4)\x1b[0m") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCheckCommand)
#include "tst_checkcommand.moc"
