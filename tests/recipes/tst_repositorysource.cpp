// Work-tree and git-revision sources, and the git helpers of the branch overview.

#include "analysis/analyzer.h"
#include "testrepository.h"
#include "vcs/gitrepositoryinfo.h"
#include "vcs/gitrevisionsource.h"
#include "vcs/repositorysource.h"

#include <QDir>
#include <QFile>
#include <QTest>
#include <algorithm>
#include <filesystem>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace rg;
using rg::test::TestRepository;

namespace {

std::vector<std::string> paths(const std::vector<SourceEntry>& entries)
{
    std::vector<std::string> out;
    for (const SourceEntry& entry : entries)
        out.push_back(entry.path);
    return out;
}

const SourceEntry* entry(const std::vector<SourceEntry>& entries, const std::string& path)
{
    for (const SourceEntry& e : entries)
        if (e.path == path)
            return &e;
    return nullptr;
}

} // namespace

class TestRepositorySource : public QObject
{
    Q_OBJECT

private slots:
    void workTreeListsNixFilesSorted()
    {
        TestRepository repo;
        repo.writeRecipe("b.nix", "{ }");
        repo.writeRecipe("a.nix", "{ x = 1; }");
        repo.writeRecipe("README.md", "not a recipe");
        repo.writeRecipe("nested/c.nix", "{ }"); // not directly in the recipe directory
        QDir(repo.root()).mkpath(".flox/pkgs/dir.nix");
        auto source = openWorkTree(repo.rootPath());
        QVERIFY(source->isWritable());
        std::string error;
        const auto entries = source->list(".flox/pkgs", &error);
        QVERIFY2(error.empty(), error.c_str());
        QCOMPARE(paths(entries),
                 (std::vector<std::string>{".flox/pkgs/a.nix", ".flox/pkgs/b.nix"}));
        QCOMPARE(entries[0].size, uint64_t(10));
        QVERIFY(!entries[0].symlink);
        QCOMPARE(source->read(".flox/pkgs/a.nix", 1024).bytes, std::string("{ x = 1; }"));
    }

    void workTreeStampChangesWithContent()
    {
        TestRepository repo;
        repo.writeRecipe("a.nix", "{ }");
        auto source = openWorkTree(repo.rootPath());
        const std::string before = source->list(".flox/pkgs", nullptr).at(0).stamp;
        QCOMPARE(source->list(".flox/pkgs", nullptr).at(0).stamp, before); // stable
        repo.writeRecipe("a.nix", "{ a = 1; }");
        QVERIFY(source->list(".flox/pkgs", nullptr).at(0).stamp != before);
    }

    void workTreeMissingDirectoryIsAnError()
    {
        TestRepository repo;
        auto source = openWorkTree(repo.rootPath());
        std::string error;
        QVERIFY(source->list(".flox/pkgs", &error).empty());
        // Where it was looked for, in words a user opening the wrong folder understands.
        const std::string root = std::filesystem::canonical(repo.rootPath()).string();
        QCOMPARE(error, ".flox/pkgs: no such recipe directory in " + root +
                            " (a recipe repository keeps one .nix file per variant there)");
        // Another failure keeps the system's words.
        TestRepository file;
        file.write(QStringLiteral(".flox/pkgs"), "not a directory");
        error.clear();
        QVERIFY(openWorkTree(file.rootPath())->list(".flox/pkgs", &error).empty());
        QCOMPARE(error, std::string(".flox/pkgs: Not a directory"));
    }

    void workTreeOversizedFileIsNotRead()
    {
        TestRepository repo;
        repo.writeRecipe("big.nix", QByteArray(5000, ' '));
        auto source = openWorkTree(repo.rootPath());
        const SourceFile small = source->read(".flox/pkgs/big.nix", 4096);
        QVERIFY(small.oversized);
        QVERIFY(small.bytes.empty());
        QVERIFY2(small.error.find("limit") != std::string::npos, small.error.c_str());
        const SourceFile fits = source->read(".flox/pkgs/big.nix", 5000);
        QVERIFY(fits.error.empty());
        QCOMPARE(fits.bytes.size(), size_t(5000));
    }

    void workTreeUnreadableGivesOsError()
    {
        TestRepository repo;
        repo.writeRecipe("a.nix", "{ }");
        // A dangling link inside the repository: reported with the OS's own words.
        QVERIFY(QFile::link(repo.root() + "/.flox/pkgs/gone-target.nix",
                            repo.root() + "/.flox/pkgs/dangling.nix"));
        QDir(repo.root()).mkpath(".flox/pkgs/dir.nix");
        auto source = openWorkTree(repo.rootPath());
        const auto entries = source->list(".flox/pkgs", nullptr);
        QVERIFY(entry(entries, ".flox/pkgs/dangling.nix"));
        QVERIFY(entry(entries, ".flox/pkgs/dangling.nix")->symlink);
        const SourceFile dangling = source->read(".flox/pkgs/dangling.nix", 1024);
        QCOMPARE(dangling.error, std::string("No such file or directory"));
        QVERIFY(!dangling.outsideRepository);
        QCOMPARE(source->read(".flox/pkgs/dir.nix", 1024).error, std::string("Is a directory"));
    }

    // A named pipe (as the spec, or behind a recipe's symlink) is reported, never opened in a
    // way that waits for a writer; a symlink loop is unreadable, not "outside".
    void workTreeSpecialFilesAndLinkLoops()
    {
        TestRepository repo;
        repo.writeRecipe("a.nix", "{ }");
        QVERIFY(::mkfifo(qPrintable(repo.root() + "/.flox/recipegrid.json"), 0644) == 0);
        QVERIFY(::mkfifo(qPrintable(repo.root() + "/.flox/pkgs/pipe"), 0644) == 0);
        // Named as a recipe: listed, never opened while listing, and reported when read.
        QVERIFY(::mkfifo(qPrintable(repo.root() + "/.flox/pkgs/pipe-named.nix"), 0644) == 0);
        QVERIFY(QFile::link("pipe", repo.root() + "/.flox/pkgs/piped.nix"));
        QVERIFY(QFile::link("loop-b.nix", repo.root() + "/.flox/pkgs/loop-a.nix"));
        QVERIFY(QFile::link("loop-a.nix", repo.root() + "/.flox/pkgs/loop-b.nix"));
        auto source = openWorkTree(repo.rootPath());
        const SourceFile spec = source->read(".flox/recipegrid.json", 1024);
        QVERIFY2(spec.error.find("named pipe") != std::string::npos, spec.error.c_str());
        const SourceFile piped = source->read(".flox/pkgs/piped.nix", 1024);
        QVERIFY2(piped.error.find("named pipe") != std::string::npos, piped.error.c_str());
        std::string listError;
        const std::vector<SourceEntry> listed = source->list(".flox/pkgs", &listError);
        QVERIFY2(listError.empty(), listError.c_str());
        QVERIFY(std::any_of(listed.begin(), listed.end(), [](const SourceEntry& entry) {
            return entry.path == ".flox/pkgs/pipe-named.nix";
        }));
        const SourceFile named = source->read(".flox/pkgs/pipe-named.nix", 1024);
        QVERIFY2(named.error.find("named pipe") != std::string::npos, named.error.c_str());
        const SourceFile loop = source->read(".flox/pkgs/loop-a.nix", 1024);
        QVERIFY(!loop.outsideRepository);
        QVERIFY2(loop.error.find("symbolic link") != std::string::npos, loop.error.c_str());
        // The whole analysis finishes and names each file's problem.
        const Analysis analysis = Analyzer().analyze(*source);
        QVERIFY(analysis.specError);
        QVERIFY(analysis.specError->message.find("named pipe") != std::string::npos);
        int unreadable = 0;
        for (const Cell& entry : analysis.cells)
            for (const Finding& finding : entry.findings)
                unreadable += finding.ruleId == "unreadable-file" ? 1 : 0;
        for (const Finding& finding : analysis.repositoryFindings)
            unreadable += finding.ruleId == "unreadable-file" ? 1 : 0;
        QCOMPARE(unreadable, 4); // piped.nix, pipe-named.nix, loop-a.nix, loop-b.nix
    }

    // Mutation over every fixture repository and the demo: one recipe replaced by a named
    // pipe of the same name is reported, once, on that file; the rest is still analysed.
    void aRecipeTurnedIntoAPipeIsReported_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const QString& place :
             {QStringLiteral(RG_FIXTURES_DIR), QStringLiteral(RG_FIXTURES_DIR "/realworld"),
              QStringLiteral(RG_SOURCE_DIR "/resources/demo")})
            for (const QString& name : QDir(place).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
                if (QFileInfo::exists(place + "/" + name + "/.flox/pkgs"))
                    QTest::newRow(qPrintable(name)) << place + "/" + name;
    }

    void aRecipeTurnedIntoAPipeIsReported()
    {
        QFETCH(QString, fixture);
        TestRepository repo;
        repo.copyFrom(fixture);
        const auto unreadable = [](const Analysis& analysis) {
            std::vector<std::string> files;
            for (const Cell& entry : analysis.cells)
                for (const Finding& finding : entry.findings)
                    if (finding.ruleId == "unreadable-file")
                        files.push_back(entry.recipe ? entry.recipe->path : std::string());
            for (const Finding& finding : analysis.repositoryFindings)
                if (finding.ruleId == "unreadable-file")
                    files.push_back(finding.file);
            return files;
        };
        const Analysis before = Analyzer().analyze(*openWorkTree(repo.rootPath()));
        QVERIFY(unreadable(before).empty());
        const QStringList recipes =
            QDir(repo.root() + "/.flox/pkgs").entryList({QStringLiteral("*.nix")}, QDir::Files);
        QVERIFY(!recipes.isEmpty());
        const QString piped = recipes.at(recipes.size() / 2);
        const QString path = repo.root() + "/.flox/pkgs/" + piped;
        QVERIFY(QFile::remove(path));
        QVERIFY(::mkfifo(qPrintable(path), 0644) == 0);
        const Analysis after = Analyzer().analyze(*openWorkTree(repo.rootPath()));
        QCOMPARE(unreadable(after), std::vector<std::string>{".flox/pkgs/" + piped.toStdString()});
        QCOMPARE(after.files.size(), before.files.size());
    }

    void workTreeSymlinksStayInside()
    {
        TestRepository repo;
        QTemporaryDir outside;
        QFile secret(outside.filePath("secret.nix"));
        QVERIFY(secret.open(QIODevice::WriteOnly));
        secret.write("{ secret = true; }");
        secret.close();
        repo.write("shared/base.nix", "{ shared = true; }");
        QVERIFY(QFile::link(outside.filePath("secret.nix"), repo.root() + "/.flox/pkgs/out.nix") ||
                (QDir(repo.root()).mkpath(".flox/pkgs") &&
                 QFile::link(outside.filePath("secret.nix"), repo.root() + "/.flox/pkgs/out.nix")));
        QVERIFY(QFile::link("../../shared/base.nix", repo.root() + "/.flox/pkgs/in.nix"));
        auto source = openWorkTree(repo.rootPath());
        const auto entries = source->list(".flox/pkgs", nullptr);
        QCOMPARE(paths(entries),
                 (std::vector<std::string>{".flox/pkgs/in.nix", ".flox/pkgs/out.nix"}));
        QVERIFY(entries[1].symlink);

        const SourceFile out = source->read(".flox/pkgs/out.nix", 1024);
        QVERIFY(out.outsideRepository);
        QVERIFY(out.bytes.empty());
        QVERIFY2(out.error.find("outside the repository") != std::string::npos, out.error.c_str());

        const SourceFile in = source->read(".flox/pkgs/in.nix", 1024);
        QVERIFY2(in.error.empty(), in.error.c_str());
        QCOMPARE(in.bytes, std::string("{ shared = true; }"));

        // A directory on the way that is a link out of the repository is refused too.
        QVERIFY(QFile::link(outside.path(), repo.root() + "/linkeddir"));
        QVERIFY(source->read("linkeddir/secret.nix", 1024).outsideRepository);

        // A relative path that climbs out is refused as well.
        QVERIFY(source->read("../" + QFileInfo(outside.path()).fileName().toStdString(), 1024)
                    .outsideRepository);
    }

    void gitRevisionReadsAnotherBranchWithoutCheckout()
    {
        TestRepository repo;
        repo.git({"init", "-q"});
        repo.writeRecipe("a.nix", "{ version = 1; }");
        repo.commitAll("first");
        const QByteArray first = repo.git({"rev-parse", "HEAD"});
        repo.git({"tag", "v1"});
        repo.git({"checkout", "-q", "-b", "feature"});
        repo.writeRecipe("a.nix", "{ version = 2; }");
        repo.writeRecipe("b.nix", "{ }");
        repo.commitAll("second");
        repo.git({"checkout", "-q", "main"});
        repo.writeRecipe("a.nix", "{ version = 3; }"); // uncommitted work-tree change

        std::string error;
        auto feature = openGitRevision(repo.rootPath(), "feature", &error);
        QVERIFY2(feature, error.c_str());
        QVERIFY(!feature->isWritable());
        QVERIFY(feature->displayName().find("@ feature") != std::string::npos);
        const auto entries = feature->list(".flox/pkgs", &error);
        QCOMPARE(paths(entries),
                 (std::vector<std::string>{".flox/pkgs/a.nix", ".flox/pkgs/b.nix"}));
        QCOMPARE(entries[0].size, uint64_t(16));
        QCOMPARE(entries[0].stamp,
                 repo.git({"rev-parse", "feature:.flox/pkgs/a.nix"}).toStdString()); // blob id
        QCOMPARE(feature->read(".flox/pkgs/a.nix", 1024).bytes, std::string("{ version = 2; }"));
        QVERIFY(feature->exists(".flox/pkgs/b.nix"));
        QVERIFY(!feature->exists(".flox/pkgs/c.nix"));

        // The work tree was not touched: still main's file with the local change.
        QFile local(repo.root() + "/.flox/pkgs/a.nix");
        QVERIFY(local.open(QIODevice::ReadOnly));
        QCOMPARE(local.readAll(), QByteArray("{ version = 3; }"));

        for (const char* revision : {"main", "v1", "feature~1", "HEAD"}) {
            auto source = openGitRevision(repo.rootPath(), revision, &error);
            QVERIFY2(source, revision);
            QCOMPARE(source->read(".flox/pkgs/a.nix", 1024).bytes, std::string("{ version = 1; }"));
        }
        auto byId = GitRevisionSource::open(repo.rootPath(), first.toStdString(), &error);
        QVERIFY(byId);
        QCOMPARE(byId->commitId(), first.toStdString());
        QVERIFY(!byId->exists(".flox/pkgs/b.nix"));
    }

    void gitRevisionOfSubdirectoryRepository()
    {
        // A recipe repository kept in a subdirectory of a larger work tree.
        TestRepository repo;
        repo.git({"init", "-q"});
        repo.write("builds/pytorch/.flox/pkgs/a.nix", "{ sub = 1; }");
        repo.write(".flox/pkgs/a.nix", "{ top = 1; }");
        repo.commitAll("nested");
        std::string error;
        auto source = openGitRevision(repo.rootPath() + "/builds/pytorch", "main", &error);
        QVERIFY2(source, error.c_str());
        QCOMPARE(paths(source->list(".flox/pkgs", &error)),
                 std::vector<std::string>{".flox/pkgs/a.nix"});
        QCOMPARE(source->read(".flox/pkgs/a.nix", 64).bytes, std::string("{ sub = 1; }"));
        QVERIFY(source->exists(".flox/pkgs/a.nix"));
        QVERIFY(source->rootPath().ends_with("builds/pytorch"));
    }

    void gitRevisionErrors()
    {
        TestRepository repo;
        std::string error;
        QVERIFY(!openGitRevision(repo.rootPath(), "main", &error));
        QVERIFY2(error.find("not a git repository") != std::string::npos, error.c_str());

        repo.git({"init", "-q"});
        repo.writeRecipe("a.nix", "{ }");
        repo.commitAll("first");
        error.clear();
        QVERIFY(!openGitRevision(repo.rootPath(), "no-such-branch", &error));
        QVERIFY2(error.find("no-such-branch") != std::string::npos, error.c_str());

        auto source = openGitRevision(repo.rootPath(), "main", &error);
        QVERIFY(source);
        error.clear();
        QVERIFY(source->list("missing/dir", &error).empty());
        QVERIFY(!error.empty());
        QVERIFY(!source->read(".flox/pkgs/none.nix", 1024).error.empty());
        const SourceFile capped = source->read(".flox/pkgs/a.nix", 1);
        QVERIFY(capped.oversized);
    }

    void gitRevisionSymlinks()
    {
        TestRepository repo;
        repo.git({"init", "-q"});
        repo.write("shared/base.nix", "{ shared = 1; }");
        QDir(repo.root()).mkpath(".flox/pkgs");
        QVERIFY(QFile::link("../../shared/base.nix", repo.root() + "/.flox/pkgs/in.nix"));
        QVERIFY(QFile::link("/etc/hostname", repo.root() + "/.flox/pkgs/abs.nix"));
        QVERIFY(QFile::link("../../../escape.nix", repo.root() + "/.flox/pkgs/up.nix"));
        repo.commitAll("links");
        std::string error;
        auto source = openGitRevision(repo.rootPath(), "HEAD", &error);
        QVERIFY2(source, error.c_str());
        const auto entries = source->list(".flox/pkgs", &error);
        QCOMPARE(entries.size(), size_t(3));
        QVERIFY(std::all_of(entries.begin(), entries.end(), [](auto& e) { return e.symlink; }));
        QCOMPARE(source->read(".flox/pkgs/in.nix", 1024).bytes, std::string("{ shared = 1; }"));
        QVERIFY(source->read(".flox/pkgs/abs.nix", 1024).outsideRepository);
        QVERIFY(source->read(".flox/pkgs/up.nix", 1024).outsideRepository);
    }

    void gitRevisionConcurrentReads()
    {
        TestRepository repo;
        repo.git({"init", "-q"});
        for (int i = 0; i < 40; ++i)
            repo.writeRecipe(QStringLiteral("r%1.nix").arg(i, 2, 10, QLatin1Char('0')),
                             QByteArray::number(i));
        repo.commitAll("many");
        std::string error;
        auto source = openGitRevision(repo.rootPath(), "main", &error);
        QVERIFY(source);
        const auto entries = source->list(".flox/pkgs", &error);
        QCOMPARE(entries.size(), size_t(40));
        std::atomic<int> wrong{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&] {
                for (size_t i = 0; i < entries.size(); ++i)
                    if (source->read(entries[i].path, 64).bytes != std::to_string(i))
                        ++wrong;
            });
        for (auto& thread : threads)
            thread.join();
        QCOMPARE(wrong.load(), 0);
    }

    void gitRepositoryInfo()
    {
        TestRepository repo;
        std::string error;
        QVERIFY(!GitRepositoryInfo::open(repo.rootPath(), &error));
        QVERIFY(listLocalBranches(repo.rootPath(), &error).empty());
        QVERIFY(!error.empty());

        repo.git({"init", "-q"});
        auto unborn = GitRepositoryInfo::open(repo.rootPath(), &error);
        QVERIFY(unborn);
        QCOMPARE(unborn->currentBranch(), std::string("main"));
        QCOMPARE(unborn->headCommit(), std::string());

        repo.writeRecipe("a.nix", "{ }");
        repo.commitAll("first");
        repo.git({"branch", "cuda-13_0"});
        repo.git({"branch", "pytorch-2.9"});
        auto info = GitRepositoryInfo::open(repo.root().toStdString() + "/.flox", &error);
        QVERIFY2(info, error.c_str()); // found from a subdirectory
        QCOMPARE(QString::fromStdString(info->workTree()),
                 QFileInfo(repo.root()).canonicalFilePath());
        QCOMPARE(info->currentBranch(), std::string("main"));
        QCOMPARE(info->headCommit(), repo.git({"rev-parse", "HEAD"}).toStdString());
        QVERIFY(!info->isDirty());
        QCOMPARE(info->localBranches(&error),
                 (std::vector<std::string>{"cuda-13_0", "main", "pytorch-2.9"}));
        QCOMPARE(listLocalBranches(repo.rootPath(), &error), info->localBranches(&error));

        repo.writeRecipe("a.nix", "{ changed = true; }");
        QVERIFY(info->isDirty());
        repo.git({"checkout", "-q", "--", "."});
        QVERIFY(!info->isDirty());
        repo.writeRecipe("new.nix", "{ }"); // untracked counts too
        QVERIFY(info->isDirty());

        repo.git({"checkout", "-q", "cuda-13_0"});
        QCOMPARE(info->currentBranch(), std::string("cuda-13_0"));
        repo.git({"checkout", "-q", "--detach"});
        QCOMPARE(info->currentBranch(), std::string());
    }
};

QTEST_GUILESS_MAIN(TestRepositorySource)
#include "tst_repositorysource.moc"
