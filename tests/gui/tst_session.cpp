// RepositorySession: scans off the GUI thread, live refresh through the file watcher and the
// RecipeCache (one changed file → one file parsed), git state, revisions, bad input; the
// PathWatcher's thread and its ordering of scans.

#include "demorepository.h"
#include "guitestsupport.h"
#include "sessions/backgroundpool.h"
#include "sessions/changesession.h"
#include "sessions/repositorysession.h"
#include "stuckrefs.h"
#include "vcs/pathwatcher.h"

#include <QSignalSpy>
#include <QtConcurrent/QtConcurrentRun>

using namespace rg;
using namespace rg::test;

namespace {

const char* const armv9 = "pytorch-python313-cuda13_0-sm110-armv9";
const QByteArray oldPin = "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3";
const QByteArray specPin = "6a030d535719c5190187c4cec156f335e95e3211";

const Cell* find(const Analysis& analysis, const std::string& variant)
{
    for (const Cell& entry : analysis.cells)
        if (entry.variant.toString() == variant)
            return &entry;
    return nullptr;
}

bool hasRule(const Cell& entry, const std::string& rule)
{
    for (const Finding& finding : entry.findings)
        if (finding.ruleId == rule)
            return true;
    return false;
}

} // namespace

class TestSession : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(); }

    void scansOffTheGuiThread()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        RepositorySession session;
        QSignalSpy started(&session, &RepositorySession::scanStarted);
        QSignalSpy changed(&session, &RepositorySession::analysisChanged);
        QVERIFY(session.openWorkTree(dir.path()));
        // openWorkTree returns before the scan: the result arrives through the event loop.
        QCOMPARE(started.count(), 1);
        QVERIFY(session.isScanning());
        QVERIFY(!session.analysis());
        QVERIFY(changed.wait(10000));
        QVERIFY(!session.isScanning());
        QVERIFY(session.recipeDirFound());
        QCOMPARE(session.recipeDir(), QStringLiteral(".flox/pkgs"));
        QCOMPARE(session.lastParsedCount(), 6);
        const auto analysis = session.analysis();
        QCOMPARE(analysis->expectedCount(), 44);
        QCOMPARE(QString::fromStdString(analysis->summary()),
                 QStringLiteral("44 expected (1 ok \u00b7 2 broken \u00b7 41 missing) \u00b7 3 not "
                                "expected (2 broken \u00b7 1 redundant)"));
        QVERIFY(!session.isReadOnly());
        QVERIFY(!session.git().isRepository); // a plain folder is fine too
        QCOMPARE(session.absolutePath(".flox/pkgs/x.nix"), dir.path() + "/.flox/pkgs/x.nix");
    }

    // The last owner of an analysis lets go on the GUI thread when a widget takes the next one:
    // freeing it happens on a worker. A worker that lets go frees at once, itself.
    void analysesAreFreedOffTheGuiThread()
    {
        struct Tracked
        {
            std::atomic<QThread*>* freedOn;
            ~Tracked() { freedOn->store(QThread::currentThread()); }
        };
        std::atomic<QThread*> freedOn = nullptr;
        auto tracked = makeSharedFreedOffTheGuiThread<Tracked>(&freedOn);
        tracked.reset();
        QTRY_VERIFY(freedOn.load() != nullptr);
        QVERIFY(freedOn.load() != QThread::currentThread());

        freedOn = nullptr;
        tracked = makeSharedFreedOffTheGuiThread<Tracked>(&freedOn);
        // Waited for by polling: result() would run a task not yet started on this thread.
        const QFuture<std::pair<QThread*, bool>> freeing =
            QtConcurrent::run(backgroundPool(), [&freedOn, tracked = std::move(tracked)]() mutable {
                tracked.reset();
                return std::pair(QThread::currentThread(), freedOn.load() != nullptr);
            });
        QTRY_VERIFY(freeing.isFinished());
        const auto [worker, freedAtOnce] = freeing.result();
        QVERIFY(worker != QThread::currentThread());
        QVERIFY(freedAtOnce);
        QCOMPARE(freedOn.load(), worker);

        // The session's analyses are made so, whether refined or not.
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        RepositorySession session;
        QSignalSpy changed(&session, &RepositorySession::analysisChanged);
        QVERIFY(session.openWorkTree(dir.path()));
        QVERIFY(changed.wait(10000));
        QVERIFY(std::get_deleter<FreeOffTheGuiThread<Analysis>>(session.analysis()));
        session.setRefiner([](Analysis&) {});
        QVERIFY(changed.wait(10000));
        QVERIFY(std::get_deleter<FreeOffTheGuiThread<Analysis>>(session.analysis()));
    }

    void reportsScanProgressPerFile()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed000"), dir.path()));
        RepositorySession session;
        QSignalSpy progress(&session, &RepositorySession::scanProgress);
        QSignalSpy changed(&session, &RepositorySession::analysisChanged);
        QVERIFY(session.openWorkTree(dir.path()));
        QVERIFY(changed.wait(10000));
        // Busy first, then real counts of the 66 files, never going backwards, then done.
        QVERIFY(progress.count() >= 3);
        QCOMPARE(progress.first().at(1).toInt(), 0);
        int last = 0;
        int counted = 0;
        for (int i = 1; i + 1 < progress.count(); ++i) {
            QCOMPARE(progress.at(i).at(1).toInt(), 66);
            QVERIFY(progress.at(i).at(0).toInt() >= last);
            last = progress.at(i).at(0).toInt();
            ++counted;
        }
        QVERIFY(counted > 0);
        QCOMPARE(last, 66);
    }

    void liveRefreshParsesOnlyTheChangedFile()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        RepositorySession session;
        session.setDebounceInterval(50);
        QSignalSpy changed(&session, &RepositorySession::analysisChanged);
        QVERIFY(session.openWorkTree(dir.path()));
        QVERIFY(changed.wait(10000));
        QCOMPARE(session.lastParsedCount(), 6);
        QVERIFY(hasRule(*find(*session.analysis(), armv9), "pin-mismatch"));
        const int scans = session.scanCount();

        // Rewrite one recipe in place (as an editor does): only it is parsed again.
        const QString path = dir.filePath(recipe(armv9));
        QByteArray bytes = readAll(path);
        QVERIFY(bytes.contains(oldPin));
        bytes.replace(oldPin, specPin);
        QVERIFY(writeAll(path, bytes));
        QVERIFY(changed.wait(10000));
        QTRY_VERIFY_WITH_TIMEOUT(!session.isScanning(), 10000);
        QCOMPARE(session.scanCount(), scans + 1);
        QCOMPARE(session.lastParsedCount(), 1);
        QVERIFY(!hasRule(*find(*session.analysis(), armv9), "pin-mismatch"));

        // A new recipe: one parse; the cell turns from missing to present.
        const char* const sm90 = "pytorch-python313-cuda13_0-sm90-avx512";
        QCOMPARE(find(*session.analysis(), sm90)->status, CellStatus::Missing);
        const QByteArray canonical =
            readAll(dir.filePath(recipe("pytorch-python313-cuda13_0-sm120-avx512")));
        QVERIFY(writeAll(dir.filePath(recipe(sm90)), canonical));
        QVERIFY(changed.wait(10000));
        QTRY_VERIFY_WITH_TIMEOUT(!session.isScanning(), 10000);
        QCOMPARE(session.lastParsedCount(), 1);
        QVERIFY(find(*session.analysis(), sm90)->recipe != nullptr);

        // A deleted recipe: nothing to parse, the cell is missing again.
        QVERIFY(QFile::remove(dir.filePath(recipe(sm90))));
        QVERIFY(changed.wait(10000));
        QTRY_VERIFY_WITH_TIMEOUT(!session.isScanning(), 10000);
        QCOMPARE(session.lastParsedCount(), 0);
        QCOMPARE(find(*session.analysis(), sm90)->status, CellStatus::Missing);

        // Reload without changes parses nothing.
        session.reload();
        QVERIFY(changed.wait(10000));
        QCOMPARE(session.lastParsedCount(), 0);
    }

    // One 40-hex pin replaced by another keeps the file's size; written within one timestamp
    // tick it keeps the mtime too (forced here, so the test does not depend on the clock).
    // The edit is seen by its content.
    void sameSizeEditWithinOneTickIsSeen()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        // A time QFile can set exactly (milliseconds), an hour ago: long settled.
        const QString path = dir.filePath(recipe(armv9));
        const QDateTime mtime = QDateTime::currentDateTime().addSecs(-3600);
        const auto setMtime = [&] {
            QFile file(path);
            return file.open(QIODevice::ReadWrite) &&
                   file.setFileTime(mtime, QFileDevice::FileModificationTime);
        };
        QVERIFY(setMtime());
        RepositorySession session;
        session.setDebounceInterval(50);
        QSignalSpy changed(&session, &RepositorySession::analysisChanged);
        QVERIFY(session.openWorkTree(dir.path()));
        QVERIFY(changed.wait(10000));
        QVERIFY(hasRule(*find(*session.analysis(), armv9), "pin-mismatch"));
        const int scans = session.scanCount();

        QByteArray bytes = readAll(path);
        const qsizetype size = bytes.size();
        bytes.replace(oldPin, specPin);
        QCOMPARE(bytes.size(), size);
        QVERIFY(writeAll(path, bytes));
        QVERIFY(setMtime());
        QCOMPARE(QFileInfo(path).lastModified(), mtime);
        QCOMPARE(QFileInfo(path).size(), size);

        QTRY_VERIFY_WITH_TIMEOUT(session.scanCount() > scans && !session.isScanning(), 10000);
        QCOMPARE(session.lastParsedCount(), 1);
        QVERIFY(!hasRule(*find(*session.analysis(), armv9), "pin-mismatch"));
    }

    // A module recipes import is watched like the recipes: editing it re-scans, and its
    // importer's verdict changes though the importer's own bytes did not.
    void editedModuleRefreshesItsImporters()
    {
        QTemporaryDir dir;
        QVERIFY(writeAll(dir.filePath(".flox/pkgs/lib/archs.nix"), "{ sm86 = \"9.0\"; }\n"));
        const char* const sm86 = "pytorch-python313-cuda12_8-sm86-avx2";
        QVERIFY(writeAll(dir.filePath(recipe(sm86)),
                         "{ python3Packages }:\nlet\n  archs = import ./lib/archs.nix;\nin\n"
                         "python3Packages.torch.override {\n  cudaSupport = true;\n"
                         "  gpuTargets = [ archs.sm86 ];\n}\n"));
        RepositorySession session;
        session.setDebounceInterval(50);
        QSignalSpy changed(&session, &RepositorySession::analysisChanged);
        QVERIFY(session.openWorkTree(dir.path()));
        QVERIFY(changed.wait(10000));
        QCOMPARE(session.analysis()->modules, std::vector<std::string>{".flox/pkgs/lib/archs.nix"});
        QVERIFY(hasRule(*find(*session.analysis(), sm86), "gpu-arch-mismatch"));
        const int scans = session.scanCount();

        QVERIFY(writeAll(dir.filePath(".flox/pkgs/lib/archs.nix"), "{ sm86 = \"8.6\"; }\n"));
        QTRY_VERIFY_WITH_TIMEOUT(session.scanCount() > scans && !session.isScanning(), 10000);
        QVERIFY(!hasRule(*find(*session.analysis(), sm86), "gpu-arch-mismatch"));
    }

    void malformedSpecIsReported()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed001-start"), dir.path()));
        QVERIFY(writeAll(dir.filePath(".flox/recipegrid.json"),
                         "{\n  \"schema\": 1,\n  \"matrix\": [,]\n}\n"));
        RepositorySession session;
        QSignalSpy changed(&session, &RepositorySession::analysisChanged);
        QVERIFY(session.openWorkTree(dir.path()));
        QVERIFY(changed.wait(10000));
        const auto analysis = session.analysis();
        QVERIFY(analysis->specError.has_value());
        QCOMPARE(analysis->specError->line, 3);
        QVERIFY(analysis->specError->column > 0);
        QVERIFY(
            QString::fromStdString(analysis->specError->toString()).contains("recipegrid.json:3:"));
        QVERIFY(analysis->spec.isInferred());
    }

    void badPathsAndEmptyFolders()
    {
        RepositorySession session;
        QSignalSpy errors(&session, &RepositorySession::errorOccurred);
        QVERIFY(!session.openWorkTree(QStringLiteral("/nonexistent/recipegrid")));
        QCOMPARE(errors.count(), 1);
        QVERIFY(errors.first().first().toString().contains("no such folder"));
        QVERIFY(!session.isOpen());
        QVERIFY(!session.openRevision(QStringLiteral("/nonexistent"), QStringLiteral("main")));
        QCOMPARE(errors.count(), 2);

        QTemporaryDir empty;
        QSignalSpy changed(&session, &RepositorySession::analysisChanged);
        QVERIFY(session.openWorkTree(empty.path()));
        QVERIFY(changed.wait(10000));
        QVERIFY(!session.recipeDirFound());
        QVERIFY(session.analysis()->cells.empty());
        // Creating the recipe dir later is noticed (the root and .flox are watched).
        session.setDebounceInterval(50);
        QVERIFY(writeAll(empty.filePath(".flox/pkgs/pytorch-python313-cpu-avx2.nix"), "{ }\n"));
        QTRY_VERIFY_WITH_TIMEOUT(session.recipeDirFound(), 10000);
    }

    void gitStateAndRevisions()
    {
        QTemporaryDir parent;
        QString error;
        const QString root = DemoRepository::create(&error, parent.path());
        QVERIFY2(!root.isEmpty(), qPrintable(error));
        RepositorySession session;
        session.setDebounceInterval(50);
        QSignalSpy changed(&session, &RepositorySession::analysisChanged);
        QSignalSpy git(&session, &RepositorySession::gitStateChanged);
        QVERIFY(session.openWorkTree(root));
        QVERIFY(changed.wait(10000));
        QVERIFY(session.git().isRepository);
        QCOMPARE(session.git().branch, std::string("cuda-13_0"));
        QVERIFY(!session.git().dirty);
        QCOMPARE(session.git().headCommit.size(), size_t(7));

        // An edit makes the work tree dirty; the session notices on its re-scan.
        const QString path = root + "/" + recipe("pytorch-python313-cuda13_0-sm90-avx512");
        QByteArray bytes = readAll(path);
        QVERIFY(writeAll(path, bytes + "\n# edited\n"));
        QTRY_VERIFY_WITH_TIMEOUT(session.git().dirty, 10000);
        QVERIFY(git.count() >= 2);

        // Another branch, read straight from git: read-only, its own six recipes.
        QVERIFY(session.openRevision(root, QStringLiteral("main")));
        QVERIFY(changed.wait(10000));
        QVERIFY(session.isReadOnly());
        QCOMPARE(session.revision(), QStringLiteral("main"));
        QVERIFY(session.absolutePath("x").isEmpty());
        int present = 0;
        for (const Cell& entry : session.analysis()->cells)
            present += entry.recipe ? 1 : 0;
        QCOMPARE(present, 6);
        const SourceFile file = session.readFile(QString::fromLatin1(recipe(armv9)));
        QVERIFY(file.error.empty());
        QVERIFY(QByteArray::fromStdString(file.bytes).contains(oldPin));
        QCOMPARE(SessionGitInfo::localBranches(root.toStdString(), nullptr),
                 (std::vector<std::string>{"cuda-13_0", "main"}));
    }

    // Git opens a revision on the worker: the call returns while git is stuck reading refs,
    // what was open stays until the revision is in, a later open wins over it, and a revision
    // git does not know is an error that keeps what was open.
    void revisionsOpenOffTheGuiThread()
    {
        QTemporaryDir parent;
        QString error;
        const QString root = DemoRepository::create(&error, parent.path());
        QVERIFY2(!root.isEmpty(), qPrintable(error));
        QTemporaryDir work;
        QVERIFY(copyFixture(QStringLiteral("seed001-target"), work.path()));
        RepositorySession session;
        QSignalSpy changed(&session, &RepositorySession::analysisChanged);
        QSignalSpy errors(&session, &RepositorySession::errorOccurred);
        QVERIFY(session.openWorkTree(work.path()));
        QVERIFY(changed.wait(10000));

        auto refs = std::make_unique<StuckRefs>(root);
        QVERIFY(refs->isValid());
        bool started = false;
        QVERIFY2(
            returnsWithin(10, *refs,
                          [&] { started = session.openRevision(root, QStringLiteral("main")); }),
            "opening a revision waited for git");
        QVERIFY(started);
        QVERIFY(session.revision().isEmpty()); // the work tree stays until git answers
        QVERIFY(refs->release());
        QVERIFY(changed.wait(10000));
        QCOMPARE(session.revision(), QStringLiteral("main"));
        QVERIFY(session.isReadOnly());

        // A work tree opened while git is still opening the revision wins over it.
        refs = std::make_unique<StuckRefs>(root);
        QVERIFY(session.openRevision(root, QStringLiteral("cuda-13_0")));
        QVERIFY(session.openWorkTree(work.path()));
        QVERIFY(refs->release());
        QVERIFY(changed.wait(10000));
        backgroundPool()->waitForDone();
        QCoreApplication::processEvents(); // what the worker posted, the revision included
        QVERIFY(session.revision().isEmpty());
        QVERIFY(!session.isReadOnly());
        QCOMPARE(errors.count(), 0);

        QVERIFY(session.openRevision(root, QStringLiteral("no-such-branch")));
        QVERIFY(errors.wait(10000));
        QVERIFY2(errors.first().first().toString().contains("unknown revision 'no-such-branch'"),
                 qPrintable(errors.first().first().toString()));
        QVERIFY(session.isOpen());
        QVERIFY(session.revision().isEmpty());
    }

    // A change set is refused, with the reason, where it cannot be written: no repository, one
    // still being scanned, a revision from git; a planner that throws fails with its words.
    void changesAreRefusedWithTheirReason()
    {
        QTemporaryDir parent;
        QString error;
        const QString root = DemoRepository::create(&error, parent.path());
        QVERIFY2(!root.isEmpty(), qPrintable(error));
        RepositorySession repository;
        ChangeSession changes(&repository);
        QSignalSpy failed(&changes, &ChangeSession::planFailed);
        const auto noChanges = [](std::shared_ptr<const RepositorySource>,
                                  std::shared_ptr<const Analysis>) { return ChangeSet{}; };
        const auto refusal = [&] {
            return failed.isEmpty() ? QString() : failed.takeFirst().first().toString();
        };

        QVERIFY(!changes.plan(noChanges));
        QCOMPARE(refusal(), QStringLiteral("No repository is open"));

        QSignalSpy analysed(&repository, &RepositorySession::analysisChanged);
        QVERIFY(repository.openWorkTree(root));
        QVERIFY(!changes.plan(noChanges)); // the scan has not ended yet
        QCOMPARE(refusal(), QStringLiteral("The repository is still being scanned"));
        QVERIFY(analysed.wait(10000));

        QVERIFY(changes.plan([](std::shared_ptr<const RepositorySource>,
                                std::shared_ptr<const Analysis>) -> ChangeSet {
            throw std::runtime_error("cannot bump the pin: no such pin");
        }));
        QVERIFY(failed.wait(10000));
        QCOMPARE(refusal(), QStringLiteral("Could not plan the change set: cannot bump the pin: "
                                           "no such pin"));

        QVERIFY(repository.openRevision(root, QStringLiteral("main")));
        QVERIFY(analysed.wait(10000));
        QVERIFY(!changes.plan(noChanges));
        QVERIFY2(refusal().startsWith(QStringLiteral("A revision opened from git is read-only")),
                 "a revision was not refused");
    }

    void closingWhileScanningIsSafe()
    {
        QTemporaryDir dir;
        QVERIFY(copyFixture(QStringLiteral("seed000"), dir.path()));
        auto* session = new RepositorySession;
        QVERIFY(session->openWorkTree(dir.path()));
        QVERIFY(session->isScanning());
        delete session; // waits for the worker; must not crash or leak a callback
        RepositorySession other;
        QSignalSpy changed(&other, &RepositorySession::analysisChanged);
        QVERIFY(other.openWorkTree(dir.path()));
        other.close();
        QCOMPARE(changed.count(), 1); // close() itself
        QVERIFY(other.isScanning());
        QTRY_VERIFY_WITH_TIMEOUT(!other.isScanning(), 10000); // the old scan has ended
        QVERIFY(!other.analysis());                           // and its result was dropped
        QCOMPARE(changed.count(), 1);
    }

    // The watches sit on a thread of their own. A call returns with them in place, from any
    // thread (a scan calls from its worker), and the scan of a repository opened before (an
    // older generation) finishing late cannot put its watches back.
    void pathWatcherKeepsTheNewestGeneration()
    {
        QTemporaryDir dir;
        const QString a = dir.filePath(QStringLiteral("a.nix"));
        const QString b = dir.filePath(QStringLiteral("b.nix"));
        QVERIFY(writeAll(a, "{ }\n"));
        QVERIFY(writeAll(b, "{ }\n"));
        PathWatcher watcher;
        QSignalSpy changed(&watcher, &PathWatcher::changed);
        watcher.watch(2, {a}, {dir.path()});
        QCOMPARE(watcher.watchedFiles(), QStringList{a});
        QCOMPARE(watcher.watchedDirectories(), QStringList{dir.path()});
        watcher.watch(1, {b}, {});
        QCOMPARE(watcher.watchedFiles(), QStringList{a});

        QVERIFY(writeAll(a, "{ x = 1; }\n")); // in place: only the file watch sees it
        QVERIFY(changed.wait(5000));

        watcher.clear(3);
        QVERIFY(watcher.watchedFiles().isEmpty());
        QVERIFY(watcher.watchedDirectories().isEmpty());
        watcher.watch(2, {a}, {dir.path()});
        QVERIFY(watcher.watchedFiles().isEmpty());

        QtConcurrent::run([&] { watcher.watch(4, {b}, {}); }).waitForFinished();
        QCOMPARE(watcher.watchedFiles(), QStringList{b});
        changed.clear();
        QVERIFY(writeAll(b, "{ y = 2; }\n"));
        QVERIFY(changed.wait(5000));
    }
};

QTEST_GUILESS_MAIN(TestSession)
#include "tst_session.moc"
