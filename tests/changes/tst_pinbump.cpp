// PinBumpPlanner on copies of the seed000 fixture and on hand-written recipes: which bytes a
// bump changes (line by line: nothing else), what becomes of the fetcher's hash, the README and
// Markdown quotes, scopes, errors, the applier refusing a file changed since planning, undo and
// commit. PinPrefetcher against the real nix-prefetch-url: offline, stalled and local downloads.

#include "../loopback.h"
#include "../recipes/testrepository.h"
#include "analysis/analyzer.h"
#include "analysis/ruleset.h"
#include "changes/changesetapplier.h"
#include "changes/gitcommitter.h"
#include "changes/pinbumpplanner.h"
#include "changes/unifieddiff.h"
#include "pins/pinprefetcher.h"
#include "sessions/pinprefetchrun.h"
#include "vcs/gitlibrary.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>
#include <QtConcurrent/QtConcurrentRun>
#include <git2.h>

using namespace rg;
using rg::test::TestRepository;

namespace {

const std::string oldPin = "6a030d535719c5190187c4cec156f335e95e3211";
const std::string newPin = "0182a361324364ae3f436a63005877674cf45efb";
const std::string newHash = "0mdqa9w1p6cmli6976v4wi0sw9r4p5prkj7lzfd1877wk11c9c73";
const std::string fakeBase32(52, '0');
const QString seed000 = QStringLiteral(RG_FIXTURES_DIR "/seed000");

QProcessEnvironment nixEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("NIX_CONFIG", "build-users-group =\nsandbox = false\nsubstituters =\n"
                             "experimental-features = nix-command");
    return env;
}

// What `nix` prints for the arguments; fails the test when nix fails.
QString runNix(const QStringList& arguments)
{
    QProcess nix;
    nix.setProcessEnvironment(nixEnvironment());
    nix.start(QStringLiteral("nix"), arguments);
    if (!nix.waitForFinished(60000) || nix.exitCode() != 0)
        qWarning("nix %s: %s", qPrintable(arguments.join(' ')),
                 nix.readAllStandardError().constData());
    return QString::fromUtf8(nix.readAllStandardOutput()).trimmed();
}

struct Planned
{
    std::shared_ptr<const RepositorySource> source;
    std::shared_ptr<const Analysis> analysis;
    PinBumpPlan plan;
};

Planned planOn(const QString& root, const PinBumpRequest& request)
{
    Planned out;
    out.source = openWorkTree(root.toStdString());
    out.analysis = std::make_shared<const Analysis>(Analyzer().analyze(*out.source));
    out.plan = PinBumpPlanner(out.source, out.analysis).plan(request);
    return out;
}

PinBumpRequest seedRequest()
{
    PinBumpRequest request;
    request.from = oldPin;
    request.to = newPin;
    return request;
}

std::vector<std::string> splitLines(const std::string& text)
{
    std::vector<std::string> lines;
    size_t at = 0;
    while (at <= text.size()) {
        const size_t end = text.find('\n', at);
        lines.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
        if (end == std::string::npos)
            break;
        at = end + 1;
    }
    return lines;
}

// Pairs of (before, after) of the lines that differ; a bump never adds or removes lines.
std::vector<std::pair<std::string, std::string>> changedLines(const FileOperation& op)
{
    const auto before = splitLines(op.before);
    const auto after = splitLines(op.after);
    std::vector<std::pair<std::string, std::string>> changed;
    if (before.size() != after.size())
        return {{"<line count differs>", ""}};
    for (size_t i = 0; i < before.size(); ++i)
        if (before[i] != after[i])
            changed.emplace_back(before[i], after[i]);
    return changed;
}

std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

int pinFindings(const Analysis& analysis)
{
    int count = 0;
    for (const Cell& entry : analysis.cells)
        for (const Finding& finding : entry.findings)
            count += finding.ruleId.starts_with("pin") ? 1 : 0;
    return count;
}

const FileOperation* operationAt(const ChangeSet& changes, const std::string& path)
{
    for (const FileOperation& op : changes.operations)
        if (op.path == path)
            return &op;
    return nullptr;
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<unreadable>");
}

// A recipe whose nixpkgs comes from fetchFromGitHub with an SRI hash.
QByteArray githubRecipe(const std::string& pin, const std::string& hashLine)
{
    return QByteArray::fromStdString(
        "let\n"
        "  pkgs = import (builtins.fetchGit { url = \"x\"; }) { };\n"
        "  nixpkgs_pinned = import (pkgs.fetchFromGitHub {\n"
        "    owner = \"NixOS\";\n"
        "    repo = \"nixpkgs\";\n"
        "    rev = \"" +
        pin + "\";\n" + hashLine +
        "  }) { config.allowUnfree = true; };\n"
        "in\n"
        "nixpkgs_pinned.python3Packages.torch.overrideAttrs (oldAttrs: {\n"
        "  pname = \"pytorch-python313-cpu-avx2\";\n"
        "  preConfigure = ''\n    export USE_CUDA=0\n  '';\n"
        "  meta = oldAttrs.meta // { platforms = [ \"x86_64-linux\" ]; };\n"
        "})\n");
}

} // namespace

class TestPinBump : public QObject
{
    Q_OBJECT

private slots:
    void seed000BumpChangesExactlyPinAndHashLines();
    void readmeAndPlanChangeOnlyTheirQuotes();
    void afterTheBumpNoPinFindingRemains();
    void renamePythonSetChangesThatLineToo();
    void withoutAHashTheOldOneIsNeverKept();
    void givenHashIsWrittenInTheRecipesNotation();
    void hashThatCannotBeLocatedSkipsTheRecipe();
    void fetchTreeAndFlakeReferencesAreBumped();
    void aPinWrittenInAModuleIsBumpedThereOnce();
    void aPinKeptInJsonIsBumpedThere();
    void aNivPinIsBumpedInSourcesJson();
    void braceInAStringDoesNotMisleadTheBump();
    void aRecipeEditedSinceTheAnalysisIsReadAgain();
    void abbreviatedAndBranchPinsBecomeFullOnes();
    void pythonSetWithOverlaysIsNotRenamed();
    void scopes_data();
    void scopes();
    void badInput_data();
    void badInput();
    void fileChangedSincePlanningIsRefused();
    void undoAndCommit();
    void readmeOutsideTablesAndLongerTokensAreLeftAlone();
    void prefetchTargetsNameTheNewUrls();
    void resolvePin_data();
    void resolvePin();
    void planningOnAWorkerThreadGivesTheSamePlan();
    void prefetchOfflineFailsWithNixsMessage();
    void prefetchThatStallsIsStoppedByTheTimeout();
    void prefetchOfALocalTarballGivesItsNarHash();
    void prefetchRunBatchesByKindAndStops();
};

void TestPinBump::seed000BumpChangesExactlyPinAndHashLines()
{
    TestRepository repo;
    repo.copyFrom(seed000);
    PinBumpRequest request = seedRequest();
    request.newHashes[newPin] = newHash;
    const Planned planned = planOn(repo.root(), request);
    QVERIFY2(planned.plan.error.empty(), planned.plan.error.c_str());
    QCOMPARE(planned.plan.recipes, 66);
    QCOMPARE(planned.plan.changes.operations.size(), size_t(66));
    QVERIFY(planned.plan.needsHash.empty());
    QVERIFY(planned.plan.changes.skipped.empty());
    const std::string oldHashLine =
        "    sha256 = \"14nc4jm66hc042vkhsypkddy65i76j9fcinmyd02pdihi1p0jh5m\";";
    for (const FileOperation& op : planned.plan.changes.operations) {
        QVERIFY2(op.path.starts_with(".flox/pkgs/"), op.path.c_str());
        QCOMPARE(op.kind, FileOperationKind::Modify);
        QCOMPARE(op.plannedHash, contentHash(op.before));
        const auto changed = changedLines(op);
        QCOMPARE(changed.size(), size_t(2));
        QCOMPARE(changed[0].second, replaced(changed[0].first, oldPin, newPin));
        QVERIFY(changed[0].first.find("url = ") != std::string::npos);
        QCOMPARE(changed[1].first, oldHashLine);
        QCOMPARE(changed[1].second, "    sha256 = \"" + newHash + "\";");
        const DiffStat stat = UnifiedDiff::statOf(op);
        QCOMPARE(stat.added, 2);
        QCOMPARE(stat.removed, 2);
        QVERIFY(op.reason.starts_with("pin 6a030d5 \xe2\x86\x92 0182a36"));
        QVERIFY(!op.subject.empty());
    }
    QVERIFY(planned.plan.changes.title.find("66 recipes") != std::string::npos);
}

void TestPinBump::readmeAndPlanChangeOnlyTheirQuotes()
{
    TestRepository repo;
    repo.copyFrom(seed000);
    PinBumpRequest request = seedRequest();
    request.readme = true;
    request.docs = true;
    request.newHashes[newPin] = newHash;
    const Planned planned = planOn(repo.root(), request);
    QCOMPARE(planned.plan.changes.operations.size(), size_t(68));

    const FileOperation* readme = operationAt(planned.plan.changes, "README.md");
    QVERIFY(readme);
    const auto readmeLines = changedLines(*readme);
    QCOMPARE(readmeLines.size(), size_t(1));
    QCOMPARE(readmeLines[0].second,
             std::string("| Nixpkgs pin | [**`0182a36`**](https://github.com/NixOS/nixpkgs/tree/"
                         "0182a361324364ae3f436a63005877674cf45efb) |"));
    QVERIFY(readme->reason.find("2 mentions") != std::string::npos);
    QVERIFY(readme->subject.empty());

    const FileOperation* plan = operationAt(planned.plan.changes, "docs/align-to-vllm.md");
    QVERIFY(plan);
    // Every line quoting the old pin changed (both forms), and only those.
    const auto planLines = changedLines(*plan);
    int quoting = 0;
    for (const std::string& line : splitLines(plan->before))
        quoting += line.find("6a030d5") != std::string::npos ? 1 : 0;
    QCOMPARE(int(planLines.size()), quoting);
    QCOMPARE(quoting, 2);
    for (const auto& [before, after] : planLines)
        QCOMPARE(after, replaced(replaced(before, oldPin, newPin), "6a030d5", "0182a36"));
    QVERIFY(plan->after.find("```\n" + newPin + "\n```") != std::string::npos);
    QVERIFY(plan->after.find("6a030d5") == std::string::npos);

    // Each is its own operation: deselecting the plan leaves it out of the apply.
    ChangeSet changes = planned.plan.changes;
    for (FileOperation& op : changes.operations)
        op.selected = op.path != "docs/align-to-vllm.md";
    const ApplyResult applied = ChangeSetApplier(repo.rootPath()).apply(changes);
    QVERIFY2(applied.applied, applied.error.c_str());
    QCOMPARE(readFile(repo.root() + "/docs/align-to-vllm.md"),
             readFile(seed000 + "/docs/align-to-vllm.md"));
    QVERIFY(
        readFile(repo.root() + "/README.md").contains("tree/" + QByteArray::fromStdString(newPin)));
}

void TestPinBump::afterTheBumpNoPinFindingRemains()
{
    TestRepository repo;
    repo.copyFrom(seed000);
    PinBumpRequest request = seedRequest();
    request.newHashes[newPin] = newHash;
    const Planned planned = planOn(repo.root(), request);
    QCOMPARE(pinFindings(*planned.analysis), 66);
    const ApplyResult applied = ChangeSetApplier(repo.rootPath()).apply(planned.plan.changes);
    QVERIFY2(applied.applied, applied.error.c_str());
    const Analysis after = Analyzer().analyze(*openWorkTree(repo.rootPath()));
    QCOMPARE(pinFindings(after), 0);
    QCOMPARE(after.findingCount(), 0);
}

void TestPinBump::renamePythonSetChangesThatLineToo()
{
    TestRepository repo;
    repo.copyFrom(seed000);
    PinBumpRequest request = seedRequest();
    request.renamePythonSet = true;
    request.newHashes[newPin] = newHash;
    const Planned planned = planOn(repo.root(), request);
    QCOMPARE(planned.plan.recipes, 66);
    for (const FileOperation& op : planned.plan.changes.operations) {
        const auto changed = changedLines(op);
        QCOMPARE(changed.size(), size_t(3));
        QCOMPARE(changed[2].second,
                 replaced(changed[2].first, "nixpkgs_pinned.python3Packages.torch",
                          "nixpkgs_pinned.python313Packages.torch"));
        QVERIFY(changed[2].first != changed[2].second);
        QVERIFY(op.reason.find("kept") == std::string::npos);
        QVERIFY2(op.reason.ends_with("; python3Packages \xe2\x86\x92 python313Packages"),
                 op.reason.c_str());
    }
    const ApplyResult applied = ChangeSetApplier(repo.rootPath()).apply(planned.plan.changes);
    QVERIFY(applied.applied);
    QCOMPARE(Analyzer().analyze(*openWorkTree(repo.rootPath())).findingCount(), 0);
}

void TestPinBump::withoutAHashTheOldOneIsNeverKept()
{
    TestRepository repo;
    repo.copyFrom(seed000);
    const Planned planned = planOn(repo.root(), seedRequest());
    QCOMPARE(planned.plan.recipes, 66);
    QCOMPARE(planned.plan.needsHash.size(), size_t(66));
    for (const FileOperation& op : planned.plan.changes.operations) {
        QVERIFY(op.before.find("14nc4jm66hc042vkhsypkddy65i76j9fcinmyd02pdihi1p0jh5m") !=
                std::string::npos);
        QVERIFY2(op.after.find("14nc4jm66hc042vkhsypkddy65i76j9fcinmyd02pdihi1p0jh5m") ==
                     std::string::npos,
                 op.path.c_str());
        QVERIFY(op.after.find("sha256 = \"" + fakeBase32 + "\";") != std::string::npos);
        QVERIFY2(op.reason.find("needs a new hash") != std::string::npos, op.reason.c_str());
        QVERIFY(op.reason.find("https://github.com/NixOS/nixpkgs/archive/" + newPin + ".tar.gz") !=
                std::string::npos);
        QCOMPARE(changedLines(op).size(), size_t(2));
    }
    const std::string message = PinBumpPlanner::commitMessage(planned.plan.changes, seedRequest());
    QVERIFY(message.find("Still need the new hash") != std::string::npos);
}

void TestPinBump::givenHashIsWrittenInTheRecipesNotation()
{
    // The same hash, given in Nix base-32, lands as SRI in a `hash =` recipe and as hex in one
    // that writes hex; real nix says what each notation of it is.
    const QString sri =
        runNix({"hash", "to-sri", "--type", "sha256", QString::fromStdString(newHash)});
    const QString hex =
        runNix({"hash", "to-base16", "--type", "sha256", QString::fromStdString(newHash)});
    QVERIFY(sri.startsWith("sha256-"));
    QCOMPARE(hex.size(), 64);

    TestRepository repo;
    repo.writeRecipe(
        "pytorch-python313-cpu-avx2.nix",
        githubRecipe(oldPin, "    hash = \"sha256-" + std::string(43, 'B') + "=\";\n"));
    repo.writeRecipe("pytorch-python313-cpu-avx512.nix",
                     githubRecipe(oldPin, "    sha256 = \"" + std::string(64, 'a') + "\";\n"));
    PinBumpRequest request = seedRequest();
    request.newHashes[newPin] = newHash;
    const Planned planned = planOn(repo.root(), request);
    QVERIFY2(planned.plan.error.empty(), planned.plan.error.c_str());
    QCOMPARE(planned.plan.recipes, 2);
    const auto* avx2 =
        operationAt(planned.plan.changes, ".flox/pkgs/pytorch-python313-cpu-avx2.nix");
    const auto* avx512 =
        operationAt(planned.plan.changes, ".flox/pkgs/pytorch-python313-cpu-avx512.nix");
    QVERIFY(avx2 && avx512);
    QVERIFY(avx2->after.find("hash = \"" + sri.toStdString() + "\";") != std::string::npos);
    QVERIFY(avx512->after.find("sha256 = \"" + hex.toStdString() + "\";") != std::string::npos);
    QVERIFY(avx2->after.find("rev = \"" + newPin + "\";") != std::string::npos);
    QCOMPARE(changedLines(*avx2).size(), size_t(2));

    // Given in SRI, it goes back to base-32 where base-32 is written.
    TestRepository seed;
    seed.copyFrom(seed000);
    PinBumpRequest sriRequest = seedRequest();
    sriRequest.newHashes["https://github.com/NixOS/nixpkgs/archive/" + newPin + ".tar.gz"] =
        sri.toStdString();
    const Planned fromSri = planOn(seed.root(), sriRequest);
    QVERIFY(fromSri.plan.needsHash.empty());
    QVERIFY(fromSri.plan.changes.operations.front().after.find("sha256 = \"" + newHash + "\";") !=
            std::string::npos);
}

void TestPinBump::hashThatCannotBeLocatedSkipsTheRecipe()
{
    TestRepository repo;
    repo.writeRecipe(
        "pytorch-python313-cpu-avx2.nix",
        QByteArray::fromStdString("let\n  pinHash = \"" + fakeBase32 +
                                  "\";\n  nixpkgs_pinned = import (builtins.fetchTarball {\n"
                                  "    url = \"https://github.com/NixOS/nixpkgs/archive/" +
                                  oldPin +
                                  ".tar.gz\";\n    sha256 = pinHash;\n  }) { };\nin\n"
                                  "nixpkgs_pinned.python3Packages.torch\n"));
    const Planned planned = planOn(repo.root(), seedRequest());
    QVERIFY(planned.plan.error.empty());
    QCOMPARE(planned.plan.recipes, 0);
    QCOMPARE(planned.plan.changes.skipped.size(), size_t(1));
    QVERIFY2(planned.plan.changes.skipped[0].why.find("hash is not written next to the pin") !=
                 std::string::npos,
             planned.plan.changes.skipped[0].why.c_str());
}

void TestPinBump::fetchTreeAndFlakeReferencesAreBumped()
{
    // fetchTree's narHash is a hash of the unpacked GitHub archive like fetchFromGitHub's; a
    // flake reference carries only the revision.
    const QString sri =
        runNix({"hash", "to-sri", "--type", "sha256", QString::fromStdString(newHash)});
    QVERIFY(sri.startsWith("sha256-"));
    TestRepository repo;
    repo.writeRecipe("pytorch-python313-cpu-avx2.nix",
                     QByteArray::fromStdString(
                         "let\n  pkgs = import (builtins.fetchTree {\n    type = \"github\";\n"
                         "    owner = \"NixOS\";\n    repo = \"nixpkgs\";\n    rev = \"" +
                         oldPin + "\";\n    narHash = \"sha256-" + std::string(43, 'B') +
                         "=\";\n  }) { };\nin\npkgs.python3Packages.torch\n"));
    repo.writeRecipe("pytorch-python313-cpu-avx512.nix",
                     QByteArray::fromStdString("let\n  pkgs = (builtins.getFlake "
                                               "\"github:NixOS/nixpkgs/" +
                                               oldPin +
                                               "\").legacyPackages.x86_64-linux;\nin\n"
                                               "pkgs.python3Packages.torch\n"));
    PinBumpRequest request = seedRequest();
    request.newHashes["https://github.com/NixOS/nixpkgs/archive/" + newPin + ".tar.gz"] = newHash;
    const Planned planned = planOn(repo.root(), request);
    QVERIFY2(planned.plan.error.empty(), planned.plan.error.c_str());
    QCOMPARE(planned.plan.recipes, 2);
    const auto* tree =
        operationAt(planned.plan.changes, ".flox/pkgs/pytorch-python313-cpu-avx2.nix");
    const auto* flake =
        operationAt(planned.plan.changes, ".flox/pkgs/pytorch-python313-cpu-avx512.nix");
    QVERIFY(tree && flake);
    QCOMPARE(changedLines(*tree).size(), size_t(2));
    QVERIFY(tree->after.find("narHash = \"" + sri.toStdString() + "\";") != std::string::npos);
    QVERIFY(planned.plan.needsHash.empty());
    QCOMPARE(flake->after, replaced(flake->before, oldPin, newPin));
}

void TestPinBump::aPinWrittenInAModuleIsBumpedThereOnce()
{
    // Every recipe reads nixpkgs from lib/pin.nix: the module changes once (the fetcher's rev
    // and hash, and the revision it also quotes), the recipes not at all.
    TestRepository repo;
    repo.writeRecipe("lib/pin.nix",
                     QByteArray::fromStdString(
                         "let\n  bootstrap = import <nixpkgs> { };\nin\n{\n  rev = \"" + oldPin +
                         "\";\n  nixpkgs = bootstrap.fetchFromGitHub {\n    owner = \"NixOS\";\n"
                         "    repo = \"nixpkgs\";\n    rev = \"" +
                         oldPin + "\";\n    hash = \"sha256-" + std::string(43, 'B') +
                         "=\";\n  };\n}\n"));
    const QByteArray recipe =
        "let\n  pin = import ./lib/pin.nix;\n  pkgs = import pin.nixpkgs { };\n"
        "in\npkgs.python313Packages.torch\n";
    for (const char* isa : {"avx2", "avx512", "avx512bf16"})
        repo.writeRecipe(QStringLiteral("pytorch-python313-cpu-%1.nix").arg(isa), recipe);
    PinBumpRequest request = seedRequest();
    request.newHashes["https://github.com/NixOS/nixpkgs/archive/" + newPin + ".tar.gz"] = newHash;
    const Planned planned = planOn(repo.root(), request);
    QVERIFY2(planned.plan.error.empty(), planned.plan.error.c_str());
    QCOMPARE(planned.plan.changes.operations.size(), size_t(1));
    QCOMPARE(planned.plan.recipes, 3);
    const FileOperation& op = planned.plan.changes.operations.front();
    QCOMPARE(op.path, std::string(".flox/pkgs/lib/pin.nix"));
    QCOMPARE(changedLines(op).size(), size_t(3));
    QVERIFY(op.after.find(oldPin) == std::string::npos);
    QVERIFY(op.after.find("hash = \"sha256-" + std::string(43, 'B')) == std::string::npos);
    QVERIFY2(op.reason.find("shared by 3 recipes") != std::string::npos, op.reason.c_str());

    // Bumping one cell would move the other two as well: refused, with why.
    PinBumpRequest one = request;
    one.scope.cells = {"python313-cpu-avx2"};
    const Planned scoped = planOn(repo.root(), one);
    QVERIFY(scoped.plan.changes.operations.empty());
    QCOMPARE(scoped.plan.changes.skipped.size(), size_t(1));
    QVERIFY2(scoped.plan.changes.skipped[0].why.find("shared with 2 recipes outside the scope") !=
                 std::string::npos,
             scoped.plan.changes.skipped[0].why.c_str());
}

void TestPinBump::aPinKeptInJsonIsBumpedThere()
{
    // `builtins.fromJSON (builtins.readFile …)`, read by a fetchTarball URL in one recipe and
    // by fetchFromGitHub's set in another: the JSON file's rev and sha256 change, byte for
    // byte, and the recipes not at all.
    TestRepository repo;
    repo.write(".flox/pins/nixpkgs.json",
               QByteArray::fromStdString("{\n  \"owner\": \"NixOS\",\n  \"repo\": \"nixpkgs\",\n"
                                         "  \"rev\": \"" +
                                         oldPin + "\",\n  \"sha256\": \"" + std::string(52, '1') +
                                         "\"\n}\n"));
    repo.writeRecipe("pytorch-python313-cpu-avx2.nix",
                     "let\n  pin = builtins.fromJSON (builtins.readFile ../pins/nixpkgs.json);\n"
                     "  pkgs = import (builtins.fetchTarball {\n"
                     "    url = \"https://github.com/NixOS/nixpkgs/archive/${pin.rev}.tar.gz\";\n"
                     "    inherit (pin) sha256;\n  }) { };\nin\npkgs.python313Packages.torch\n");
    repo.writeRecipe(
        "pytorch-python313-cpu-avx512.nix",
        "{ lib, fetchFromGitHub }:\nlet\n"
        "  pin = lib.importJSON ../pins/nixpkgs.json;\n"
        "  pkgs = import (fetchFromGitHub {\n    inherit (pin) owner repo rev sha256;\n"
        "  }) { };\nin\npkgs.python313Packages.torch\n");
    PinBumpRequest request = seedRequest();
    request.newHashes["https://github.com/NixOS/nixpkgs/archive/" + newPin + ".tar.gz"] = newHash;
    const Planned planned = planOn(repo.root(), request);
    QVERIFY2(planned.plan.error.empty(), planned.plan.error.c_str());
    QVERIFY(planned.plan.changes.skipped.empty());
    QCOMPARE(planned.plan.recipes, 2);
    QCOMPARE(planned.plan.changes.operations.size(), size_t(1));
    const FileOperation& op = planned.plan.changes.operations.front();
    QCOMPARE(op.path, std::string(".flox/pins/nixpkgs.json"));
    const auto changed = changedLines(op);
    QCOMPARE(changed.size(), size_t(2));
    QCOMPARE(changed[0].second, "  \"rev\": \"" + newPin + "\",");
    QCOMPARE(changed[1].second, "  \"sha256\": \"" + newHash + "\"");
    QVERIFY2(op.reason.find("shared by 2 recipes") != std::string::npos, op.reason.c_str());
}

void TestPinBump::aNivPinIsBumpedInSourcesJson()
{
    // niv: the recipes import nix/sources.nix and use one of its entries; the entry's rev,
    // sha256 and url in sources.json change, the other entry and the recipes do not.
    auto entry = [](const std::string& name, const std::string& rev) {
        return "  \"" + name +
               "\": {\n    \"owner\": \"NixOS\",\n    \"repo\": \"nixpkgs\",\n    \"rev\": \"" +
               rev + "\",\n    \"sha256\": \"" + std::string(52, '1') +
               "\",\n    \"type\": \"tarball\",\n    \"url\": "
               "\"https://github.com/NixOS/nixpkgs/archive/" +
               rev + ".tar.gz\"\n  }";
    };
    TestRepository repo;
    repo.write("nix/sources.json",
               QByteArray::fromStdString("{\n" + entry("nixpkgs", oldPin) + ",\n" +
                                         entry("nixpkgs-next", std::string(40, 'c')) + "\n}\n"));
    repo.write("nix/sources.nix", "# niv's generated fetcher\n{ }: builtins.fromJSON "
                                  "(builtins.readFile ./sources.json)\n");
    const QByteArray recipe =
        "let\n  sources = import ../../nix/sources.nix { };\n"
        "  pkgs = import sources.nixpkgs { };\nin\npkgs.python313Packages.torch\n";
    repo.writeRecipe("pytorch-python313-cpu-avx2.nix", recipe);
    repo.writeRecipe("pytorch-python313-cpu-avx512.nix",
                     QByteArray(recipe).replace("sources.nixpkgs ", "sources.\"nixpkgs-next\" "));
    PinBumpRequest request = seedRequest();
    const Planned planned = planOn(repo.root(), request);
    QVERIFY2(planned.plan.error.empty(), planned.plan.error.c_str());
    QCOMPARE(planned.plan.recipes, 1);
    QCOMPARE(planned.plan.changes.operations.size(), size_t(1));
    const FileOperation& op = planned.plan.changes.operations.front();
    QCOMPARE(op.path, std::string("nix/sources.json"));
    const auto changed = changedLines(op);
    QCOMPARE(changed.size(), size_t(3)); // rev, sha256 (the fake hash) and url
    QCOMPARE(changed[0].second, "    \"rev\": \"" + newPin + "\",");
    QVERIFY(op.after.find(std::string(40, 'c')) != std::string::npos);
    QCOMPARE(planned.plan.needsHash.size(), size_t(1));
}

void TestPinBump::braceInAStringDoesNotMisleadTheBump()
{
    // A "}" or "{" in a string of the fetcher's set: the bump is the same as for a plain one.
    const std::string url =
        "    url = \"https://github.com/NixOS/nixpkgs/archive/" + oldPin + ".tar.gz\";\n";
    const std::string rest = "    sha256 = \"" + std::string(52, '1') +
                             "\";\n  }) { };\nin\nnixpkgs_pinned.python3Packages.torch\n";
    TestRepository repo;
    repo.writeRecipe(
        "pytorch-python313-cpu-avx2.nix",
        QByteArray::fromStdString("let\n  nixpkgs_pinned = import (builtins.fetchTarball {\n"
                                  "    name = \"source-}\";\n" +
                                  url + rest));
    repo.writeRecipe(
        "pytorch-python313-cpu-avx512.nix",
        QByteArray::fromStdString("let\n  nixpkgs_pinned = import (builtins.fetchTarball {\n" +
                                  url + "    name = \"{source\";\n" + rest));
    PinBumpRequest request = seedRequest();
    request.newHashes[newPin] = newHash;
    const Planned planned = planOn(repo.root(), request);
    QCOMPARE(planned.plan.recipes, 2);
    QVERIFY(planned.plan.changes.skipped.empty());
    for (const FileOperation& op : planned.plan.changes.operations) {
        QCOMPARE(changedLines(op).size(), size_t(2));
        QVERIFY2(op.after.find("sha256 = \"" + newHash + "\";") != std::string::npos,
                 op.after.c_str());
    }
}

void TestPinBump::aRecipeEditedSinceTheAnalysisIsReadAgain()
{
    // The analysis recorded where the fetcher's hash is; an edit since (an attribute before
    // the hash, another hash) leaves the revision in place but moves the hash. The planner
    // sees the recorded bytes are gone and reads the fetcher from the file as it is.
    TestRepository repo;
    const std::string oldHashLine = "    hash = \"sha256-" + std::string(43, 'B') + "=\";\n";
    const std::string editedHash = "sha256-" + std::string(43, 'C') + "=";
    const QString path = "pytorch-python313-cpu-avx2.nix";
    repo.writeRecipe(path, githubRecipe(oldPin, oldHashLine));
    const auto source = std::shared_ptr<const RepositorySource>(openWorkTree(repo.rootPath()));
    const auto analysis = std::make_shared<const Analysis>(Analyzer().analyze(*source));
    QCOMPARE(analysis->cells.size(), size_t(1));
    const PinFact analysed = analysis->cells.front().recipe->pins.at(0);
    QVERIFY(analysed.call && analysed.call->hashAttribute == "hash");

    const QByteArray edited = githubRecipe(oldPin, "    name = \"nixpkgs-source\";\n    hash = \"" +
                                                       editedHash + "\";\n");
    repo.writeRecipe(path, edited);
    const auto at = PinBumpPlanner::hashOf(edited.toStdString(), analysed);
    QVERIFY(at);
    QCOMPARE(edited.mid(at->begin, at->length()).toStdString(), editedHash);

    PinBumpRequest request = seedRequest();
    request.newHashes[newPin] = newHash;
    const PinBumpPlan plan = PinBumpPlanner(source, analysis).plan(request);
    QVERIFY2(plan.error.empty(), plan.error.c_str());
    QCOMPARE(plan.recipes, 1);
    const FileOperation& op = plan.changes.operations.front();
    QCOMPARE(op.before, edited.toStdString());
    const auto changed = changedLines(op);
    QCOMPARE(changed.size(), size_t(2));
    QCOMPARE(changed[0].first, "    rev = \"" + oldPin + "\";");
    QCOMPARE(changed[0].second, "    rev = \"" + newPin + "\";");
    QCOMPARE(changed[1].first, "    hash = \"" + editedHash + "\";");
    QVERIFY2(changed[1].second.starts_with("    hash = \"sha256-") &&
                 changed[1].second.ends_with("=\";") && changed[1].second != changed[1].first,
             changed[1].second.c_str());
    QVERIFY(plan.needsHash.empty());

    // An edit that keeps the revision but leaves no literal hash beside it: skipped, as a
    // fresh analysis would have it, not written where the old hash was.
    repo.writeRecipe(path, githubRecipe(oldPin, "    hash = pkgs.lib.fakeHash;\n"));
    const PinBumpPlan none = PinBumpPlanner(source, analysis).plan(request);
    QCOMPARE(none.recipes, 0);
    QCOMPARE(none.changes.skipped.size(), size_t(1));
    QVERIFY2(none.changes.skipped[0].why.find("hash is not written next to the pin") !=
                 std::string::npos,
             none.changes.skipped[0].why.c_str());
}

void TestPinBump::abbreviatedAndBranchPinsBecomeFullOnes()
{
    // What pin-not-full asks for: a recipe on `6a030d5` or on the branch `nixos-24.05` moved to
    // a full revision; the whole revision string is replaced.
    TestRepository repo;
    const auto recipe = [](const std::string& revision) {
        return QByteArray::fromStdString(
            "let\n  nixpkgs_pinned = import (builtins.fetchTarball {\n"
            "    url = \"https://github.com/NixOS/nixpkgs/archive/" +
            revision + ".tar.gz\";\n    sha256 = \"" + std::string(52, '1') +
            "\";\n  }) { };\nin\nnixpkgs_pinned.python3Packages.torch\n");
    };
    repo.writeRecipe("pytorch-python313-cpu-avx2.nix", recipe("6a030d5"));
    repo.writeRecipe("pytorch-python313-cpu-avx512.nix", recipe("nixos-24.05"));
    for (const std::string from : {"6a030d5", "nixos-24.05"}) {
        PinBumpRequest request;
        request.from = from;
        request.to = newPin;
        const Planned planned = planOn(repo.root(), request);
        QVERIFY2(planned.plan.error.empty(), planned.plan.error.c_str());
        QCOMPARE(planned.plan.recipes, 1);
        const FileOperation& op = planned.plan.changes.operations.front();
        QVERIFY(op.after.find("archive/" + newPin + ".tar.gz") != std::string::npos);
        QVERIFY(op.after.find(from + ".tar.gz") == std::string::npos);
        QVERIFY(op.after.find("sha256 = \"" + fakeBase32 + "\";") != std::string::npos);
    }
}

void TestPinBump::pythonSetWithOverlaysIsNotRenamed()
{
    // seed001-target's recipes override python3Packages in an overlay: renaming only the set
    // the torch is taken from would silently drop the torch upgrade.
    TestRepository repo;
    repo.copyFrom(QStringLiteral(RG_FIXTURES_DIR "/seed001-target"));
    PinBumpRequest request = seedRequest();
    request.renamePythonSet = true;
    request.newHashes[newPin] = newHash;
    const Planned planned = planOn(repo.root(), request);
    QCOMPARE(planned.plan.recipes, 44);
    for (const FileOperation& op : planned.plan.changes.operations) {
        QVERIFY2(op.reason.find("python3Packages kept") != std::string::npos, op.reason.c_str());
        QCOMPARE(changedLines(op).size(), size_t(2));
    }
}

void TestPinBump::scopes_data()
{
    QTest::addColumn<QStringList>("cells");
    QTest::addColumn<QString>("package");
    QTest::addColumn<QString>("accelerator");
    QTest::addColumn<QString>("python");
    QTest::addColumn<int>("recipes");
    QTest::newRow("all") << QStringList() << ""
                         << ""
                         << "" << 66;
    QTest::newRow("package") << QStringList() << "pytorch"
                             << ""
                             << "" << 66;
    QTest::newRow("other package") << QStringList() << "vllm"
                                   << ""
                                   << "" << 0;
    QTest::newRow("cuda") << QStringList() << ""
                          << "cuda12.9"
                          << "" << 59;
    QTest::newRow("cpu") << QStringList() << ""
                         << "cpu"
                         << "" << 6;
    QTest::newRow("darwin") << QStringList() << ""
                            << "darwin"
                            << "" << 1;
    QTest::newRow("row") << QStringList() << "pytorch"
                         << "cuda12.9"
                         << "3.13" << 59;
    QTest::newRow("python 3.12") << QStringList() << ""
                                 << ""
                                 << "3.12" << 0;
    QTest::newRow("cells") << QStringList{"pytorch:python313-cpu-avx2", "python313-darwin-mps",
                                          ".flox/pkgs/pytorch-python313-cuda12_9-sm90-avx512.nix"}
                           << ""
                           << ""
                           << "" << 3;
    QTest::newRow("cells and accelerator")
        << QStringList{"pytorch:python313-cpu-avx2", "python313-darwin-mps"} << ""
        << "cpu"
        << "" << 1;
}

void TestPinBump::scopes()
{
    QFETCH(QStringList, cells);
    QFETCH(QString, package);
    QFETCH(QString, accelerator);
    QFETCH(QString, python);
    QFETCH(int, recipes);
    TestRepository repo;
    repo.copyFrom(seed000);
    PinBumpRequest request = seedRequest();
    for (const QString& cell : cells)
        request.scope.cells.push_back(cell.toStdString());
    request.scope = {request.scope.cells, package.toStdString(), accelerator.toStdString(),
                     python.toStdString()};
    request.readme = true;
    const Planned planned = planOn(repo.root(), request);
    QCOMPARE(planned.plan.recipes, recipes);
    if (recipes == 0) {
        QVERIFY(planned.plan.changes.operations.empty());
        QVERIFY2(planned.plan.error.find("no recipe in the scope uses pin " + oldPin +
                                         " (66 outside it do)") != std::string::npos,
                 planned.plan.error.c_str());
    } else {
        QVERIFY(planned.plan.error.empty());
        QCOMPARE(int(planned.plan.changes.operations.size()), recipes + 1); // + README
    }
}

void TestPinBump::badInput_data()
{
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("error");
    const QString from = QString::fromStdString(oldPin);
    const QString to = QString::fromStdString(newPin);
    QTest::newRow("malformed to") << from << "xyz"
                                  << "malformed pin 'xyz'";
    QTest::newRow("abbreviated to") << from << "0182a36"
                                    << "resolve the abbreviation first";
    QTest::newRow("upper-case to") << from << to.toUpper() << "malformed pin";
    QTest::newRow("malformed from") << "6a03;rm" << to << "malformed pin '6a03;rm'";
    QTest::newRow("unused branch") << "nixos-24.05" << to << "no recipe uses pin nixos-24.05";
    QTest::newRow("unused from") << "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3" << to
                                 << "no recipe uses pin fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3; "
                                    "nothing to change";
    QTest::newRow("same pin") << from << from << "same pin";
    QTest::newRow("empty") << "" << to << "needs both";
}

void TestPinBump::badInput()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, error);
    TestRepository repo;
    repo.copyFrom(seed000);
    PinBumpRequest request;
    request.from = from.toStdString();
    request.to = to.toStdString();
    request.readme = request.docs = true;
    const Planned planned = planOn(repo.root(), request);
    QVERIFY2(planned.plan.error.find(error.toStdString()) != std::string::npos,
             planned.plan.error.c_str());
    QVERIFY(planned.plan.changes.operations.empty());
    QCOMPARE(planned.plan.recipes, 0);
}

void TestPinBump::fileChangedSincePlanningIsRefused()
{
    TestRepository repo;
    repo.copyFrom(seed000);
    PinBumpRequest request = seedRequest();
    request.readme = true;
    const Planned planned = planOn(repo.root(), request);
    const QString touched = ".flox/pkgs/pytorch-python313-cuda12_9-sm86-avx2.nix";
    QByteArray edited = readFile(repo.root() + "/" + touched) + "# edited meanwhile\n";
    repo.write(touched, edited);
    const QByteArray readmeBefore = readFile(repo.root() + "/README.md");
    const ApplyResult applied = ChangeSetApplier(repo.rootPath()).apply(planned.plan.changes);
    QVERIFY(!applied.applied);
    QCOMPARE(QString::fromStdString(applied.file), touched);
    QVERIFY2(applied.error.find("changed on disk") != std::string::npos, applied.error.c_str());
    // Nothing written: not the README, not the other 65 recipes.
    QCOMPARE(readFile(repo.root() + "/README.md"), readmeBefore);
    QCOMPARE(readFile(repo.root() + "/" + touched), edited);
    QVERIFY(readFile(repo.root() + "/.flox/pkgs/pytorch-python313-cpu-avx2.nix")
                .contains(QByteArray::fromStdString(oldPin)));
}

void TestPinBump::undoAndCommit()
{
    TestRepository repo;
    repo.copyFrom(seed000);
    repo.git({"init", "-q"});
    repo.git({"config", "user.name", "RecipeGrid Test"});
    repo.git({"config", "user.email", "test@example.invalid"});
    repo.commitAll("seed000");
    PinBumpRequest request = seedRequest();
    request.readme = request.docs = true;
    request.newHashes[newPin] = newHash;
    const Planned planned = planOn(repo.root(), request);
    const QByteArray recipeBefore =
        readFile(repo.root() + "/.flox/pkgs/pytorch-python313-darwin-mps.nix");
    QVERIFY(ChangeSetApplier(repo.rootPath()).apply(planned.plan.changes).applied);
    QVERIFY(ChangeSetApplier(repo.rootPath()).apply(planned.plan.changes.inverse()).applied);
    QCOMPARE(readFile(repo.root() + "/.flox/pkgs/pytorch-python313-darwin-mps.nix"), recipeBefore);
    QCOMPARE(readFile(repo.root() + "/README.md"), readFile(seed000 + "/README.md"));

    // Redo and commit: HEAD holds the bumped files, with the bump's message.
    QVERIFY(ChangeSetApplier(repo.rootPath()).apply(planned.plan.changes).applied);
    const std::string message = PinBumpPlanner::commitMessage(planned.plan.changes, request);
    QVERIFY(message.starts_with("Bump nixpkgs 6a030d5 \xe2\x86\x92 0182a36\n\nnixpkgs " + oldPin));
    QVERIFY(message.find("Recipes (66):") != std::string::npos);
    QVERIFY(message.find("Also updated (2):\n- README.md\n- docs/align-to-vllm.md") !=
            std::string::npos);
    const CommitResult committed =
        GitCommitter::commit(repo.rootPath(), planned.plan.changes, message);
    QVERIFY2(committed.committed, committed.error.c_str());
    std::string error;
    const auto head = openGitRevision(repo.rootPath(), "HEAD", &error);
    QVERIFY2(head, error.c_str());
    for (const FileOperation& op : planned.plan.changes.operations)
        QCOMPARE(head->read(op.path, 1 << 20).bytes, op.after);
    GitLibrary::ensureInitialised();
    git_repository* repository = nullptr;
    git_object* commit = nullptr;
    QCOMPARE(git_repository_open(&repository, repo.rootPath().c_str()), 0);
    QCOMPARE(git_revparse_single(&commit, repository, "HEAD"), 0);
    const std::string summary = git_commit_summary(reinterpret_cast<git_commit*>(commit));
    git_object_free(commit);
    git_repository_free(repository);
    QCOMPARE(summary, std::string("Bump nixpkgs 6a030d5 \xe2\x86\x92 0182a36"));
}

void TestPinBump::readmeOutsideTablesAndLongerTokensAreLeftAlone()
{
    TestRepository repo;
    repo.copyFrom(seed000);
    const std::string readme = "# x\n\nWe moved off 6a030d5 last year.\n\n"
                               "| pin | `6a030d5` |\n"
                               "| longer | 6a030d535719c51 |\n"
                               "| other hash | 6a030d5f |\n"
                               "| word | x6a030d5 and 6a030d5x |\n";
    repo.write("README.md", QByteArray::fromStdString(readme));
    repo.write("docs/notes.md", "Built on 6a030d535719c5190187c4cec156f335e95e3211 and 6a030d5.\n");
    repo.write("docs/unrelated.md", "Nothing about pins.\n");
    repo.write(".hidden/notes.md", "6a030d5\n");
    PinBumpRequest request = seedRequest();
    request.readme = request.docs = true;
    const Planned planned = planOn(repo.root(), request);
    const FileOperation* op = operationAt(planned.plan.changes, "README.md");
    QVERIFY(op);
    QCOMPARE(op->after, std::string("# x\n\nWe moved off 6a030d5 last year.\n\n"
                                    "| pin | `0182a36` |\n"
                                    "| longer | 0182a361324364a |\n"
                                    "| other hash | 6a030d5f |\n"
                                    "| word | x6a030d5 and 6a030d5x |\n"));
    const FileOperation* notes = operationAt(planned.plan.changes, "docs/notes.md");
    QVERIFY(notes);
    QCOMPARE(notes->after, "Built on " + newPin + " and 0182a36.\n");
    QVERIFY(!operationAt(planned.plan.changes, "docs/unrelated.md"));
    QVERIFY(!operationAt(planned.plan.changes, ".hidden/notes.md"));
}

void TestPinBump::prefetchTargetsNameTheNewUrls()
{
    TestRepository repo;
    repo.copyFrom(seed000);
    repo.writeRecipe(
        "pytorch-python312-cpu-avx2.nix",
        githubRecipe(oldPin, "    hash = \"sha256-" + std::string(43, 'B') + "=\";\n"));
    const std::shared_ptr<const RepositorySource> source = openWorkTree(repo.rootPath());
    const auto analysis = std::make_shared<const Analysis>(Analyzer().analyze(*source));
    PinBumpRequest request = seedRequest();
    request.newHashes[newPin] = newHash; // ignored: targets are what a plan without hashes needs
    const auto targets = PinBumpPlanner(source, analysis).prefetchTargets(request);
    QCOMPARE(targets.size(), size_t(1)); // the GitHub archive is the same URL for both fetchers
    QCOMPARE(targets[0].url, "https://github.com/NixOS/nixpkgs/archive/" + newPin + ".tar.gz");
    QCOMPARE(targets[0].key, targets[0].url);
    QVERIFY(targets[0].unpack);
    QCOMPARE(targets[0].recipes.size(), size_t(67));
}

void TestPinBump::resolvePin_data()
{
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QString>("resolved");
    QTest::addColumn<QString>("error");
    const QString full = QString::fromStdString(newPin);
    QTest::newRow("full") << full << full << "";
    QTest::newRow("full upper") << full.toUpper() << full << "";
    QTest::newRow("unknown full") << QString(40, 'a') << QString(40, 'a') << "";
    QTest::newRow("prefix") << "0182a36" << full << "";
    QTest::newRow("longer prefix") << "0182a361324" << full << "";
    QTest::newRow("as written") << "abc1234"
                                << "abc1234"
                                << "";
    QTest::newRow("branch as written") << "nixos-24.05"
                                       << "nixos-24.05"
                                       << "";
    QTest::newRow("unknown branch") << "nixos-23.11"
                                    << ""
                                    << "malformed pin 'nixos-23.11'";
    QTest::newRow("ambiguous") << "6a030d5"
                               << ""
                               << "ambiguous pin '6a030d5'";
    QTest::newRow("unknown") << "1234567"
                             << ""
                             << "unknown pin '1234567'";
    QTest::newRow("too short") << "0182a3"
                               << ""
                               << "too short";
    QTest::newRow("not hex") << "0182a3g"
                             << ""
                             << "malformed pin '0182a3g'";
    QTest::newRow("too long") << full + "0"
                              << ""
                              << "malformed pin";
    QTest::newRow("empty") << ""
                           << ""
                           << "no pin given";
}

void TestPinBump::resolvePin()
{
    QFETCH(QString, typed);
    QFETCH(QString, resolved);
    QFETCH(QString, error);
    const std::vector<std::string> known = {newPin, oldPin, "6a030d5" + std::string(33, 'a'),
                                            "abc1234", "nixos-24.05"};
    std::string why;
    const auto pin = PinBumpPlanner::resolvePin(typed.toStdString(), known, &why);
    QCOMPARE(QString::fromStdString(pin.value_or("")), resolved);
    QVERIFY2(QString::fromStdString(why).contains(error), why.c_str());
    QCOMPARE(why.empty(), error.isEmpty());
}

void TestPinBump::planningOnAWorkerThreadGivesTheSamePlan()
{
    TestRepository repo;
    repo.copyFrom(seed000);
    PinBumpRequest request = seedRequest();
    request.readme = request.docs = request.renamePythonSet = true;
    const Planned here = planOn(repo.root(), request);
    const Planned there = QtConcurrent::run([&] { return planOn(repo.root(), request); }).result();
    QCOMPARE(there.plan.changes.operations.size(), here.plan.changes.operations.size());
    for (size_t i = 0; i < here.plan.changes.operations.size(); ++i)
        QCOMPARE(there.plan.changes.operations[i].after, here.plan.changes.operations[i].after);
}

void TestPinBump::prefetchOfflineFailsWithNixsMessage()
{
    // A download that cannot be made, network or not: the real nix-prefetch-url is pointed at a
    // port of 127.0.0.1 that nothing listens on, is refused, and must say so.
    const QString origin = test::refusingLoopbackOrigin();
    QVERIFY(!origin.isEmpty());
    const std::string url = origin.toStdString() + "/NixOS/nixpkgs/archive/" + newPin + ".tar.gz";
    QElapsedTimer timer;
    timer.start();
    const PrefetchResult result = PinPrefetcher::fetch(
        url, true, 60000, QStringLiteral("nix-prefetch-url"), nixEnvironment());
    QVERIFY(timer.elapsed() < 60000);
    QVERIFY(!result.ok());
    QVERIFY(result.hash.empty());
    QVERIFY2(result.error.starts_with(url + ": error: unable to download '" + url + "'"),
             result.error.c_str());

    // The asynchronous form reports the same, and a missing program is named.
    PinPrefetcher prefetcher;
    prefetcher.setEnvironment(nixEnvironment());
    prefetcher.setTimeout(60000);
    QSignalSpy failed(&prefetcher, &PinPrefetcher::failed);
    QSignalSpy finished(&prefetcher, &PinPrefetcher::finished);
    QSignalSpy output(&prefetcher, &PinPrefetcher::output);
    prefetcher.start({url});
    QVERIFY(prefetcher.isRunning());
    QVERIFY(finished.wait(60000));
    QCOMPARE(failed.size(), 1);
    QVERIFY(failed.at(0).at(1).toString().contains("unable to download"));
    QVERIFY(!output.isEmpty()); // nix's retry warnings, live
    QVERIFY(!prefetcher.isRunning());

    const PrefetchResult missing =
        PinPrefetcher::fetch(url, true, 5000, QStringLiteral("/nonexistent/nix-prefetch-url"));
    QVERIFY2(missing.error.find("cannot run /nonexistent/nix-prefetch-url") != std::string::npos,
             missing.error.c_str());
}

void TestPinBump::prefetchThatStallsIsStoppedByTheTimeout()
{
    // A server that accepts the connection and never answers: nix would wait for minutes.
    QProcess server;
    server.start(QStringLiteral("python3"), {"-c", "import socket, time\n"
                                                   "s = socket.socket()\n"
                                                   "s.bind(('127.0.0.1', 0))\n"
                                                   "s.listen(8)\n"
                                                   "print(s.getsockname()[1], flush=True)\n"
                                                   "time.sleep(120)\n"});
    QVERIFY(server.waitForReadyRead(10000));
    const int port = server.readLine().trimmed().toInt();
    QVERIFY(port > 0);
    const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/nixpkgs.tar.gz";
    QElapsedTimer timer;
    timer.start();
    const PrefetchResult result =
        QtConcurrent::run([&] {
            return PinPrefetcher::fetch(url, true, 2000, QStringLiteral("nix-prefetch-url"),
                                        nixEnvironment());
        }).result();
    QVERIFY2(timer.elapsed() < 15000, qPrintable(QString::number(timer.elapsed())));
    QVERIFY(!result.ok());
    QVERIFY2(result.error.find("no answer within 2 s") != std::string::npos, result.error.c_str());

    PinPrefetcher prefetcher;
    prefetcher.setEnvironment(nixEnvironment());
    prefetcher.setTimeout(1500);
    QSignalSpy finished(&prefetcher, &PinPrefetcher::finished);
    prefetcher.start({url});
    QVERIFY(finished.wait(15000));
    QCOMPARE(prefetcher.results().size(), size_t(1));
    QVERIFY(prefetcher.results()[0].error.find("no answer within 1 s") != std::string::npos);
    server.kill();
    server.waitForFinished(5000);
}

void TestPinBump::prefetchOfALocalTarballGivesItsNarHash()
{
    // A file:// URL needs no network: the hash must be the NAR hash of the unpacked tree, which
    // is what fetchTarball's sha256 checks.
    QTemporaryDir dir;
    QVERIFY(QDir().mkpath(dir.filePath("nixpkgs/lib")));
    QFile file(dir.filePath("nixpkgs/lib/default.nix"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{ }\n");
    file.close();
    QProcess tar;
    tar.start(QStringLiteral("tar"),
              {"-C", dir.path(), "-czf", dir.filePath("pin.tar.gz"), "nixpkgs"});
    QVERIFY(tar.waitForFinished(30000) && tar.exitCode() == 0);
    const QString expected =
        runNix({"hash", "path", "--type", "sha256", "--base32", dir.filePath("nixpkgs")});
    QCOMPARE(expected.size(), 52);

    PinPrefetcher prefetcher;
    prefetcher.setEnvironment(nixEnvironment());
    QSignalSpy fetched(&prefetcher, &PinPrefetcher::fetched);
    QSignalSpy failed(&prefetcher, &PinPrefetcher::failed);
    QSignalSpy started(&prefetcher, &PinPrefetcher::started);
    QSignalSpy finished(&prefetcher, &PinPrefetcher::finished);
    const std::string good = "file://" + dir.filePath("pin.tar.gz").toStdString();
    const std::string bad = "file://" + dir.filePath("missing.tar.gz").toStdString();
    prefetcher.start({bad, good}); // a failure does not stop the next URL
    QVERIFY(finished.wait(60000));
    QCOMPARE(started.size(), 2);
    QCOMPARE(started.at(1).at(1).toInt(), 2);
    QCOMPARE(failed.size(), 1);
    QCOMPARE(fetched.size(), 1);
    QCOMPARE(fetched.at(0).at(1).toString(), expected);
    QCOMPARE(prefetcher.results().size(), size_t(2));
    QVERIFY(prefetcher.results()[1].ok());
}

// The window's prefetch: one nix-prefetch-url run per kind of target (--unpack holds for a
// run), indexes counted over both, a failed download reported beside the hashes that came,
// what the request already has not fetched again, and Stop ending a stalled download.
void TestPinBump::prefetchRunBatchesByKindAndStops()
{
    TestRepository repo;
    repo.copyFrom(seed000);
    repo.writeRecipe(
        "pytorch-python312-cpu-avx2.nix",
        QByteArray::fromStdString("let\n  pkgs = import (builtins.fetchurl {\n    url = \"https://"
                                  "mirror.invalid/nixpkgs/archive/" +
                                  oldPin + ".tar.gz\";\n    sha256 = \"" + fakeBase32 +
                                  "\";\n  }) { };\nin\npkgs.python312Packages.torch\n"));
    const std::shared_ptr<const RepositorySource> source = openWorkTree(repo.rootPath());
    const auto analysis = std::make_shared<const Analysis>(Analyzer().analyze(*source));
    const std::string archive = "https://github.com/NixOS/nixpkgs/archive/" + newPin + ".tar.gz";

    QTemporaryDir bin;
    const QString program = bin.filePath(QStringLiteral("nix-prefetch-url"));
    const QString gate = bin.filePath(QStringLiteral("gate"));
    const auto stub = [&](const QByteArray& body) {
        QFile file(program);
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write("#!/bin/sh\n" + body) > 0);
        file.close();
        QFile::setPermissions(program, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    };
    // Unpacked downloads succeed, plain ones fail as offline Nix says it.
    stub("while [ -e '" + QFile::encodeName(gate) +
         "' ]; do sleep 0.05; done\n"
         "if [ \"$1\" = --unpack ]; then echo " +
         QByteArray::fromStdString(newHash) +
         "; exit 0; fi\n"
         "echo \"error: unable to download '$2': Couldn't resolve host name (6)\" >&2; exit 1\n");

    PinPrefetchRun run;
    run.setProgram(program);
    std::vector<std::pair<int, int>> started;
    connect(&run, &PinPrefetchRun::downloadStarted, &run,
            [&](int index, int total, const QString&) { started.emplace_back(index, total); });
    std::optional<std::pair<PrefetchedHashes, QStringList>> result;
    connect(&run, &PinPrefetchRun::finished, &run,
            [&](const PrefetchedHashes& hashes, const QStringList& errors) {
                result.emplace(hashes, errors);
            });
    QVERIFY(run.start(source, analysis, seedRequest()));
    QVERIFY(run.isRunning());
    QVERIFY(!run.start(source, analysis, seedRequest())); // one run at a time
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 30000);
    QVERIFY(!run.isRunning());
    QCOMPARE(started, (std::vector<std::pair<int, int>>{{0, 2}, {1, 2}}));
    QCOMPARE(result->first, (PrefetchedHashes{{archive, newHash}}));
    QCOMPARE(result->second.size(), 1);
    QVERIFY2(result->second.front().contains("mirror.invalid/nixpkgs/archive/" +
                                             QString::fromStdString(newPin)),
             qPrintable(result->second.front()));

    // Hashes the request already holds are not fetched again.
    started.clear();
    result.reset();
    PinBumpRequest again = seedRequest();
    again.newHashes[archive] = newHash;
    QVERIFY(run.start(source, analysis, again));
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 30000);
    QCOMPARE(started, (std::vector<std::pair<int, int>>{{0, 1}}));
    QVERIFY(result->first.empty());

    // Stop while a download stalls: the run ends with that, and nothing fetched.
    QFile closed(gate);
    QVERIFY(closed.open(QIODevice::WriteOnly));
    closed.close();
    started.clear();
    result.reset();
    QVERIFY(run.start(source, analysis, seedRequest()));
    QTRY_VERIFY_WITH_TIMEOUT(!started.empty(), 30000);
    run.stop();
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10000);
    QVERIFY(result->first.empty());
    QCOMPARE(result->second, QStringList{QStringLiteral("The download was stopped.")});
    QCOMPARE(started.size(), size_t(1)); // the second batch never started
    QVERIFY(!run.isRunning());
}

QTEST_GUILESS_MAIN(TestPinBump)
#include "tst_pinbump.moc"
