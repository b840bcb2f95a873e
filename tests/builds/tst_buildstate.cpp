// Build state belongs to the recipe it was built from: the content key of a recipe
// and the files it imports; the same content shares its state across clones and work trees,
// a one-byte change makes it "built from an older version", and a history file written before
// keys still lists every job but gives no cell a state. Real files, real git, real nix-build.

#include "../recipes/testrepository.h"
#include "analysis/analyzer.h"
#include "analysis/recipecontentkey.h"
#include "buildfixture.h"
#include "builds/buildhistory.h"
#include "builds/buildqueue.h"
#include "eval/evaluationmerge.h"
#include "eval/recipeevaluator.h"
#include "itemmodels/buildjobsmodel.h"
#include "sessions/buildsession.h"
#include "vcs/repositorysource.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>

using namespace rg;
using namespace rg::test;

namespace {

const QString cpu = QStringLiteral("pytorch-python313-cpu-avx2");

QString canonical(const QString& path)
{
    return QFileInfo(path).canonicalFilePath();
}

// Runs git outside a TestRepository (clones, work trees); fails the suite when git does.
QByteArray git(const QString& in, const QStringList& arguments)
{
    QProcess process;
    process.setWorkingDirectory(in);
    process.start(QStringLiteral("git"),
                  QStringList{QStringLiteral("-c"), QStringLiteral("user.name=RecipeGrid Test"),
                              QStringLiteral("-c"),
                              QStringLiteral("user.email=test@example.invalid")} +
                      arguments);
    if (!process.waitForFinished(30000) || process.exitCode() != 0)
        qFatal("git %s failed: %s", qPrintable(arguments.join(QLatin1Char(' '))),
               process.readAllStandardError().constData());
    return process.readAllStandardOutput().trimmed();
}

bool appendByte(const QString& path, char byte)
{
    QFile file(path);
    if (!file.open(QIODevice::Append))
        return false;
    return file.write(&byte, 1) == 1;
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           file.write(bytes) == bytes.size();
}

std::string recipePath(const QString& variant)
{
    return ".flox/pkgs/" + variant.toStdString() + ".nix";
}

// The key a scan gives the recipe (what a grid cell is looked up by).
std::string scannedKey(const QString& root, const QString& variant)
{
    const auto source = openWorkTree(root.toStdString());
    Analysis analysis = Analyzer().analyze(*source);
    RecipeContentKey::keyAll(analysis, *source);
    for (const Cell& entry : analysis.cells)
        if (entry.recipe && entry.recipe->path == recipePath(variant))
            return entry.contentKey;
    return {};
}

// The scanned entry of `variant`, keyed, as the window's grid holds it.
Cell scannedEntry(const QString& root, const QString& variant)
{
    const auto source = openWorkTree(root.toStdString());
    Analysis analysis = Analyzer().analyze(*source);
    RecipeContentKey::keyAll(analysis, *source);
    for (const Cell& entry : analysis.cells)
        if (entry.recipe && entry.recipe->path == recipePath(variant))
            return entry;
    return {};
}

// The scan of `root` with Nix's answer for `variant`'s recipe in it, as the window holds it
// after Evaluate.
Analysis evaluatedAnalysis(const QString& root, const QString& variant)
{
    const auto source = openWorkTree(root.toStdString());
    Analysis analysis = Analyzer().analyze(*source);
    RecipeContentKey::keyAll(analysis, *source);
    EvalSettings settings;
    settings.repoRoot = canonical(root).toStdString();
    settings.jobs = 1;
    const std::vector<EvaluatedRecipe> results = RecipeEvaluator(settings).evaluate(
        EvaluationMerge::itemsOf(analysis, {CellSelector(recipePath(variant))}));
    EvaluationMerge::apply(analysis, results);
    return analysis;
}

Cell cellOf(const Analysis& analysis, const QString& variant)
{
    for (const Cell& entry : analysis.cells)
        if (entry.recipe && entry.recipe->path == recipePath(variant))
            return entry;
    return {};
}

BuildSettings nixSettings()
{
    BuildSettings s;
    s.backend = BackendKind::Nix;
    s.concurrency = 1;
    return s;
}

// Builds `variant` of `repository` in `session` and waits for the job to end.
quint64 buildAndWait(BuildSession& session, const QString& repository, const QString& variant)
{
    QStringList errors;
    const QList<quint64> ids = session.build(repository, {variant}, &errors);
    if (ids.size() != 1) {
        qWarning("not queued: %s", qPrintable(errors.join(QLatin1Char('\n'))));
        return 0;
    }
    if (!QTest::qWaitFor([&] { return !session.hasRunningJobs(); }, 120000))
        return 0;
    return ids.first();
}

// A recipe repository whose recipe builds through a module it imports with arguments.
void writeModularRepository(const QString& root)
{
    QVERIFY(writeFile(root + "/.flox/pkgs/pytorch-python313-cpu-avx2.nix",
                      "# CPU-only, made by the shared builder\n"
                      "import ../lib/mk.nix { name = \"pytorch-python313-cpu-avx2\"; }\n"));
    // The builder pins nixpkgs through a JSON file it reads (unused by the derivation itself).
    QVERIFY(writeFile(root + "/.flox/lib/mk.nix",
                      "{ name }:\n"
                      "let\n"
                      "  pin = builtins.fromJSON (builtins.readFile ./pin.json);\n"
                      "  nixpkgs = import (builtins.fetchTarball {\n"
                      "    url = \"https://github.com/NixOS/nixpkgs/archive/${pin.rev}.tar.gz\";\n"
                      "    sha256 = pin.sha256;\n"
                      "  }) { };\n"
                      "in\n"
                      "builtins.derivation {\n"
                      "  inherit name;\n"
                      "  system = builtins.currentSystem;\n"
                      "  builder = \"/bin/sh\";\n"
                      "  args = [ \"-c\" \"echo > $out\" ];\n"
                      "}\n"));
    QVERIFY(
        writeFile(root + "/.flox/lib/pin.json",
                  "{ \"rev\": \"6a030d535719c5190187c4cec156f335e95e3211\", \"sha256\": \"\" }\n"));
}

} // namespace

class TestBuildState : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { configureNix(); }

    // The key: the recipe and what it imports, relative to the root; nothing else.
    void contentKeyCoversTheRecipeAndItsImports()
    {
        QTemporaryDir a;
        QTemporaryDir b;
        writeModularRepository(a.path());
        writeModularRepository(b.path());
        const auto source = openWorkTree(a.path().toStdString());
        const std::string path = recipePath(cpu);

        // Which files: the recipe, the module its evaluation read and the JSON pin that reads,
        // as the facts know them.
        Analysis analysis = Analyzer().analyze(*source);
        const Cell* entry = nullptr;
        for (const Cell& e : analysis.cells)
            if (e.recipe && e.recipe->path == path)
                entry = &e;
        QVERIFY(entry);
        QCOMPARE(RecipeContentKey::files(*entry->recipe),
                 (std::vector<std::string>{".flox/lib/mk.nix", ".flox/lib/pin.json", path}));

        // A scan's key, a build's key (facts extracted for that one file) and another
        // directory with the same bytes agree.
        const RecipeContentKey key = RecipeContentKey::compute(*source, *entry->recipe);
        QCOMPARE(key.kind(), RecipeContentKey::Kind::Content);
        QCOMPARE(key.value().size(), std::size_t(64));
        QCOMPARE(RecipeContentKey::computeForFile(*source, path), key);
        QCOMPARE(RecipeContentKey::computeFromScan(*source, *entry->recipe), key);
        QCOMPARE(entry->recipe->digest,
                 RecipeContentKey::digestOf(
                     readFile(a.path() + "/" + QString::fromStdString(path)).toStdString()));
        RecipeContentKey::keyAll(analysis, *source);
        for (const Cell& e : analysis.cells)
            QCOMPARE(e.contentKey.empty(), !e.recipe);
        QCOMPARE(scannedKey(a.path(), cpu), key.toString());
        QCOMPARE(scannedKey(b.path(), cpu), key.toString());

        // One byte of the imported module changes it; restoring the byte restores it.
        const QString module = b.path() + "/.flox/lib/mk.nix";
        const QByteArray original = readFile(module);
        QVERIFY(appendByte(module, '\n'));
        QVERIFY(scannedKey(b.path(), cpu) != key.toString());
        QVERIFY(writeFile(module, original));
        QCOMPARE(scannedKey(b.path(), cpu), key.toString());
        // So does one of the pin it reads.
        QVERIFY(appendByte(b.path() + "/.flox/lib/pin.json", ' '));
        QVERIFY(scannedKey(b.path(), cpu) != key.toString());
        QVERIFY(writeFile(b.path() + "/.flox/lib/pin.json",
                          readFile(a.path() + "/.flox/lib/pin.json")));
        QCOMPARE(scannedKey(b.path(), cpu), key.toString());
        // A file beside it that the recipe does not import does not.
        QVERIFY(writeFile(b.path() + "/.flox/lib/unused.nix", "{ }\n"));
        QVERIFY(writeFile(b.path() + "/README.md", "# notes\n"));
        QCOMPARE(scannedKey(b.path(), cpu), key.toString());

        // An import of a file that is not there yet: creating it changes the key.
        QVERIFY(writeFile(b.path() + "/.flox/pkgs/" + cpu + ".nix",
                          "let extra = import ./extra.nix; in\n"
                          "import ../lib/mk.nix { name = \"pytorch-python313-cpu-avx2\"; }\n"));
        const std::string withoutExtra = scannedKey(b.path(), cpu);
        QVERIFY(!withoutExtra.empty());
        QVERIFY(writeFile(b.path() + "/.flox/pkgs/extra.nix", "{ }\n"));
        QVERIFY(scannedKey(b.path(), cpu) != withoutExtra);

        // Stored as text with its kind; room for a derivation path later.
        QCOMPARE(RecipeContentKey::fromString(key.toString()), key);
        QVERIFY(key.toString().starts_with("content:"));
        QVERIFY(RecipeContentKey::fromString(std::string_view("content:xyz")).isNull());
        QVERIFY(RecipeContentKey::fromString(std::string_view("")).isNull());
        const auto drv = RecipeContentKey::fromString(std::string_view("drv:/nix/store/a-b.drv"));
        QCOMPARE(drv.kind(), RecipeContentKey::Kind::Derivation);
        QCOMPARE(drv.toString(), std::string("drv:/nix/store/a-b.drv"));
    }

    // Two clones and a work tree of one repository: one build, the same state in each.
    void sameRecipeInTwoClonesSharesItsBuildState()
    {
        TestRepository origin;
        QVERIFY(copyFixtureRepo(origin.root(), 1));
        origin.git({QStringLiteral("init"), QStringLiteral("-q")});
        origin.commitAll(QStringLiteral("fixture"));
        const QString head = QString::fromUtf8(origin.git({"rev-parse", "HEAD"}));
        QTemporaryDir elsewhere;
        const QString clone = elsewhere.filePath("clone");
        const QString worktree = elsewhere.filePath("worktree");
        git(elsewhere.path(), {"clone", "-q", origin.root(), clone});
        git(origin.root(), {"worktree", "add", "-q", "-b", "other", worktree});
        // A copy of the fixture with other bytes (its own nonce): another recipe of that name.
        const QString unrelated = elsewhere.filePath("unrelated");
        QVERIFY(copyFixtureRepo(unrelated, 1));

        BuildSession session(elsewhere.filePath("data"));
        session.setSettings(nixSettings());
        const quint64 id = buildAndWait(session, clone, cpu);
        QVERIFY(id != 0);
        const BuildRecord* record = session.queue()->job(id);
        QCOMPARE(record->state, JobState::Succeeded);
        // The job says where it was made: repository, branch, commit and what was built.
        QCOMPARE(record->repository, canonical(clone));
        QCOMPARE(record->branch, QStringLiteral("main"));
        QCOMPARE(record->commit, head);
        QCOMPARE(record->contentKey.toStdString(), scannedKey(clone, cpu));

        for (const QString& where : {clone, origin.root(), worktree}) {
            const VariantBuildState state = session.recipeState(where, cpu);
            QVERIFY2(state.hasResult(), qPrintable(where));
            QCOMPARE(state.lastJobId, id);
            QCOMPARE(state.lastState, JobState::Succeeded);
            QCOMPARE(state.lastRepository, canonical(clone));
            QVERIFY(!state.builtFromOlderVersion());
        }
        // The cell of another clone says where it was built.
        const CellBuildState cell =
            session.cellState(scannedEntry(origin.root(), cpu), origin.root());
        QCOMPARE(cell.last, CellBuildState::Result::Succeeded);
        QVERIFY2(cell.summary.contains(canonical(clone)), qPrintable(cell.summary));
        // Other bytes under the same name: nothing, neither a result nor an older version.
        const VariantBuildState other = session.recipeState(unrelated, cpu);
        QVERIFY(!other.hasResult());
        QVERIFY(!other.builtFromOlderVersion());
        QCOMPARE(session.cellState(scannedEntry(unrelated, cpu), unrelated).last,
                 CellBuildState::Result::None);

        // After a restart, from the history file alone.
        BuildSession restarted(elsewhere.filePath("data"));
        QCOMPARE(restarted.recipeState(worktree, cpu).lastJobId, id);
        QVERIFY(!restarted.recipeState(unrelated, cpu).hasResult());
        const BuildRecord* saved = restarted.history()->record(id);
        QVERIFY(saved);
        QCOMPARE(saved->branch, QStringLiteral("main"));
        QCOMPARE(saved->commit, head);
        QCOMPARE(saved->contentKey, record->contentKey);
        // The history lists it with where it ran.
        BuildJobsModel model(restarted.queue(), restarted.history());
        BuildJobsModel* jobs = &model;
        QCOMPARE(jobs->rowCount(), 1);
        QCOMPARE(jobs->index(0, BuildJobsModel::SourceColumn).data().toString(),
                 QStringLiteral("clone @ main \u00b7 ") + head.left(7));
        QCOMPARE(jobs->index(0, 0).data(BuildJobsModel::CommitRole).toString(), head);
    }

    // A one-byte change: the success is of an older version now, with its time.
    void aOneByteChangeMakesTheStateStale()
    {
        QTemporaryDir dir;
        const QString repo = dir.filePath("repo");
        QVERIFY(copyFixtureRepo(repo, 1));
        BuildSession session(dir.filePath("data"));
        session.setSettings(nixSettings());
        const quint64 id = buildAndWait(session, repo, cpu);
        QVERIFY(id != 0);
        QCOMPARE(session.queue()->job(id)->state, JobState::Succeeded);
        const QDateTime finished = session.queue()->job(id)->finishedAt;
        QCOMPARE(session.cellState(scannedEntry(repo, cpu), repo).last,
                 CellBuildState::Result::Succeeded);

        const QString file = repo + "/.flox/pkgs/" + cpu + ".nix";
        const QByteArray original = readFile(file);
        QVERIFY(appendByte(file, ' '));
        const VariantBuildState state = session.recipeState(repo, cpu);
        QVERIFY(!state.hasResult());
        QVERIFY(state.builtFromOlderVersion());
        QCOMPARE(state.olderJobId, id);
        QCOMPARE(state.olderState, JobState::Succeeded);
        QCOMPARE(state.olderFinishedAt, finished);
        const CellBuildState cell = session.cellState(scannedEntry(repo, cpu), repo);
        QCOMPARE(cell.last, CellBuildState::Result::Outdated);
        QCOMPARE(cell.summary,
                 QStringLiteral("built from an older version: succeeded ") +
                     finished.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));

        // The byte back: the very content that was built, so its success again.
        QVERIFY(writeFile(file, original));
        QCOMPARE(session.recipeState(repo, cpu).lastJobId, id);
        QCOMPARE(session.cellState(scannedEntry(repo, cpu), repo).last,
                 CellBuildState::Result::Succeeded);
    }

    // Nix's answer names what is built: a build made after an evaluation records its
    // derivation, and a comment-only edit, which Nix evaluates to the same derivation, keeps
    // the success. An edit that changes what is built does not, and without Nix's answer the
    // content decides, as before.
    void aCommentOnlyEditKeepsTheBuildOfItsDerivation()
    {
        QTemporaryDir dir;
        const QString repo = dir.filePath("repo");
        QVERIFY(copyFixtureRepo(repo, 1));
        BuildSession session(dir.filePath("data"));
        session.setSettings(nixSettings());
        const Analysis evaluated = evaluatedAnalysis(repo, cpu);
        const Cell before = cellOf(evaluated, cpu);
        const QString derivation = BuildSession::derivationKeyOf(before);
        QVERIFY2(derivation.startsWith(QStringLiteral("drv:/nix/store/")), qPrintable(derivation));
        session.setAnalysis(repo, std::make_shared<const Analysis>(evaluated));
        const quint64 id = buildAndWait(session, repo, cpu);
        QVERIFY(id != 0);
        QCOMPARE(session.queue()->job(id)->state, JobState::Succeeded);
        QCOMPARE(session.queue()->job(id)->derivationKey, derivation);
        QCOMPARE(session.history()->record(id)->derivationKey, derivation);

        const QString file = repo + "/.flox/pkgs/" + cpu + ".nix";
        QVERIFY(writeFile(file, "# reviewed\n" + readFile(file)));
        const Cell commented = cellOf(evaluatedAnalysis(repo, cpu), cpu);
        QVERIFY(commented.contentKey != before.contentKey);
        QCOMPARE(BuildSession::derivationKeyOf(commented), derivation);
        CellBuildState cell = session.cellState(commented, repo);
        QCOMPARE(cell.last, CellBuildState::Result::Succeeded);
        QCOMPARE(
            session
                .variantState(cpu, QString::fromStdString(commented.contentKey), repo, derivation)
                .lastJobId,
            id);

        // Without Nix's answer the content decides: the build is an older version's.
        Cell unevaluated = commented;
        unevaluated.evaluation.reset();
        QCOMPARE(session.cellState(unevaluated, repo).last, CellBuildState::Result::Outdated);

        // What is built changes: another derivation, and the build is an older version's.
        QByteArray text = readFile(file);
        QVERIFY(text.contains("building the CPU-only variant"));
        QVERIFY(writeFile(file, text.replace("building the CPU-only variant", "building anew")));
        const Cell changed = cellOf(evaluatedAnalysis(repo, cpu), cpu);
        QVERIFY(!BuildSession::derivationKeyOf(changed).isEmpty());
        QVERIFY(BuildSession::derivationKeyOf(changed) != derivation);
        QCOMPARE(session.cellState(changed, repo).last, CellBuildState::Result::Outdated);
    }

    // Nix's evaluation says what a machine must offer; with this machine building nothing and
    // no builder offering it, the build is refused with what is missing named, and nothing is
    // queued. The fixture's CPU recipe asks for big-parallel.
    void aBuildNoMachineCanTakeIsRefused()
    {
        QTemporaryDir dir;
        const QString repo = dir.filePath("repo");
        QVERIFY(copyFixtureRepo(repo, 1));
        const QString file = repo + "/.flox/pkgs/" + cpu + ".nix";
        QByteArray text = readFile(file);
        QVERIFY(text.contains("builtins.derivation {"));
        QVERIFY(writeFile(file, text.replace("builtins.derivation {",
                                             "builtins.derivation {\n  requiredSystemFeatures = "
                                             "[ \"big-parallel\" ];")));
        BuildSession session(dir.filePath("data"));
        BuildSettings settings = nixSettings();
        settings.builders = QStringLiteral("ssh://farm x86_64-linux,aarch64-linux - 8 1 kvm");
        settings.maxJobs = 0;
        session.setSettings(settings);
        session.setAnalysis(repo, std::make_shared<const Analysis>(evaluatedAnalysis(repo, cpu)));
        QStringList errors;
        QVERIFY(session.build(repo, {cpu}, &errors).isEmpty());
        QCOMPARE(errors.size(), 1);
        QVERIFY2(
            errors[0].contains(QLatin1String("with big-parallel, and no remote builder offers it")),
            qPrintable(errors[0]));
        QVERIFY(session.queue()->jobIds().isEmpty());
    }

    // The same content succeeds for every copy (Nix would find the output), but a failure is
    // its own copy's: Nix builds a failed derivation again, and the failure may have been that
    // copy's machine or network. Two identical demo copies, one with a failed build: the other
    // shows none, until a success anywhere speaks for both.
    void aFailureStaysWithTheCopyItHappenedIn()
    {
        QTemporaryDir dir;
        BuildHistory history(dir.filePath("history.json"));
        const QString key = QStringLiteral("content:") + QString(64, QLatin1Char('a'));
        const auto record = [&](quint64 id, const QString& repository, JobState state) {
            BuildRecord r;
            r.id = id;
            r.variant = cpu;
            r.repository = repository;
            r.contentKey = key;
            r.state = state;
            QVERIFY(history.add(r));
        };
        record(1, QStringLiteral("/copy/a"), JobState::Failed);
        QCOMPARE(history.latestOfContent(key, QStringLiteral("/copy/a"))->id, quint64(1));
        QVERIFY(!history.latestOfContent(key, QStringLiteral("/copy/b")));
        record(2, QStringLiteral("/copy/a"), JobState::Cancelled);
        QVERIFY(!history.latestOfContent(key, QStringLiteral("/copy/b")));
        record(3, QStringLiteral("/copy/c"), JobState::Succeeded);
        QCOMPARE(history.latestOfContent(key, QStringLiteral("/copy/b"))->id, quint64(3));
        QCOMPARE(history.latestOfContent(key, QStringLiteral("/copy/a"))->id, quint64(3));
        // A later failure here is newer than the success elsewhere: this copy shows it.
        record(4, QStringLiteral("/copy/a"), JobState::Failed);
        QCOMPARE(history.latestOfContent(key, QStringLiteral("/copy/a"))->id, quint64(4));
        QCOMPARE(history.latestOfContent(key, QStringLiteral("/copy/b"))->id, quint64(3));
    }

    // A history file from before content keys: every job still listed, no cell state.
    void anOldHistoryFileListsButGivesNoCellState()
    {
        QTemporaryDir dir;
        const QString repo = dir.filePath("repo");
        QVERIFY(copyFixtureRepo(repo, 1));
        const QString repository = canonical(repo);
        // Written as RecipeGrid wrote it before keys (schema 1, no contentKey/branch/commit).
        const QByteArray old = QStringLiteral(R"({
  "jobs": [
    {
      "arguments": ["build", "%2"],
      "backend": "nix",
      "closureSize": 1234,
      "command": "nix-build %2",
      "error": "",
      "exitCode": 0,
      "finishedAt": "2026-11-20T10:01:00.000Z",
      "id": 7,
      "kind": "build",
      "logPath": "/logs/job-7.log",
      "program": "nix-build",
      "queuedAt": "2026-11-20T10:00:00.000Z",
      "repository": "%1",
      "resultPath": "%1/result-%2",
      "startedAt": "2026-11-20T10:00:01.000Z",
      "state": "succeeded",
      "variant": "%2",
      "verification": {"cuda": "", "python": "3.13.1", "reason": "", "status": "passed",
                       "torch": "2.9.1"}
    },
    {
      "arguments": [],
      "backend": "nix",
      "closureSize": -1,
      "command": "nix-build pytorch-python313-cuda12_9-sm80-avx2",
      "error": "",
      "exitCode": 3,
      "finishedAt": "2026-11-20T10:03:00.000Z",
      "id": 8,
      "kind": "build",
      "logPath": "",
      "program": "nix-build",
      "queuedAt": "2026-11-20T10:02:00.000Z",
      "repository": "%1",
      "resultPath": "",
      "startedAt": "2026-11-20T10:02:01.000Z",
      "state": "failed",
      "variant": "pytorch-python313-cuda12_9-sm80-avx2"
    },
    {
      "arguments": ["publish", "-o", "acme", "%2"],
      "backend": "flox",
      "command": "flox publish -o acme %2",
      "exitCode": 0,
      "id": 9,
      "kind": "publish",
      "program": "flox",
      "repository": "%1",
      "state": "succeeded",
      "variant": "%2"
    }
  ],
  "schema": 1
}
)")
                                   .arg(repository, cpu)
                                   .toUtf8();
        const QString file = dir.filePath("data/build-history.json");
        QVERIFY(writeFile(file, old));

        BuildSession session(dir.filePath("data"));
        QVERIFY2(session.historyError().isEmpty(), qPrintable(session.historyError()));
        // Every job lists, with its repository; none has a key, branch or commit.
        QCOMPARE(session.history()->records().size(), std::size_t(3));
        BuildJobsModel model(session.queue(), session.history());
        BuildJobsModel* jobs = &model;
        QCOMPARE(jobs->rowCount(), 3);
        for (int row = 0; row < 3; ++row) {
            QCOMPARE(jobs->index(row, 0).data(BuildJobsModel::RepositoryRole).toString(),
                     repository);
            QVERIFY(jobs->index(row, 0).data(BuildJobsModel::ContentKeyRole).toString().isEmpty());
            QCOMPARE(jobs->index(row, BuildJobsModel::SourceColumn).data().toString(),
                     QFileInfo(repository).fileName());
            QVERIFY(jobs->index(row, BuildJobsModel::SourceColumn)
                        .data(Qt::ToolTipRole)
                        .toString()
                        .contains(QStringLiteral("before content keys")));
        }
        const BuildRecord* first = session.history()->record(7);
        QVERIFY(first);
        QCOMPARE(first->state, JobState::Succeeded);
        QCOMPARE(first->verification.status, VerificationResult::Status::Passed);
        QCOMPARE(first->closureSize, qint64(1234));
        QCOMPARE(first->durationMs(), qint64(59000));
        // In the very repository they name, no cell shows them: not as a result, not as an
        // older version.
        for (const QString& variant :
             {cpu, QStringLiteral("pytorch-python313-cuda12_9-sm80-avx2")}) {
            const VariantBuildState state = session.recipeState(repo, variant);
            QVERIFY2(!state.hasResult(), qPrintable(variant));
            QVERIFY2(!state.builtFromOlderVersion(), qPrintable(variant));
            QCOMPARE(session.cellState(scannedEntry(repo, variant), repo).last,
                     CellBuildState::Result::None);
        }
        // Their durations still count for estimates.
        const std::optional<qint64> estimate = session.history()->estimatedDurationMs(cpu);
        QVERIFY(estimate);
        QCOMPARE(*estimate, qint64(59000));

        // A new job is saved beside them; the old records survive the rewrite as they were.
        session.setSettings(nixSettings());
        const quint64 id = buildAndWait(session, repo, cpu);
        QCOMPARE(id, quint64(10));
        QCOMPARE(session.recipeState(repo, cpu).lastJobId, id);
        BuildHistory reread(file);
        QVERIFY(reread.loadError().isEmpty());
        QCOMPARE(reread.records().size(), std::size_t(4));
        QCOMPARE(reread.record(7)->contentKey, QString());
        QCOMPARE(reread.record(7)->repository, repository);
        QCOMPARE(reread.record(9)->kind, JobKind::Publish);
        QVERIFY(!reread.record(10)->contentKey.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestBuildState)
#include "tst_buildstate.moc"
