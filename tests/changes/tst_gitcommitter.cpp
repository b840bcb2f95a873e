// GitCommitter on real repositories made with libgit2 in temporary directories: the commit holds
// exactly the change set's paths (others, dirty or staged, stay as they were), the message and
// the parent are right, and a missing identity gives the message users can act on.

#include "changes/changesetapplier.h"
#include "changes/gitcommitter.h"
#include "vcs/gitlibrary.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <git2.h>
#include <map>

using namespace rg;

namespace {

using Files = std::map<std::string, std::string>; // path → blob bytes

FileOperation operation(FileOperationKind kind, std::string path, std::string before,
                        std::string after)
{
    FileOperation op;
    op.kind = kind;
    op.path = std::move(path);
    if (kind != FileOperationKind::Create)
        op.plannedHash = contentHash(before);
    op.before = std::move(before);
    op.after = std::move(after);
    return op;
}

// A repository made through libgit2 (the git CLI is not needed), with an identity in its own
// config unless told otherwise.
class Repository
{
public:
    explicit Repository(bool withIdentity = true, const QString& below = {})
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(git_repository_init(&m_repository, m_dir.path().toUtf8().constData(), 0) == 0);
        if (withIdentity) {
            git_config* config = nullptr;
            QVERIFY(git_repository_config(&config, m_repository) == 0);
            git_config* local = nullptr;
            QVERIFY(git_config_open_level(&local, config, GIT_CONFIG_LEVEL_LOCAL) == 0);
            QVERIFY(git_config_set_string(local, "user.name", "Recipe Tester") == 0);
            QVERIFY(git_config_set_string(local, "user.email", "tester@example.invalid") == 0);
            git_config_free(local);
            git_config_free(config);
        }
        m_root = below.isEmpty() ? m_dir.path() : m_dir.filePath(below);
        QVERIFY(QDir().mkpath(m_root));
    }
    ~Repository() { git_repository_free(m_repository); }

    std::string root() const { return m_root.toStdString(); }
    git_repository* git() const { return m_repository; }

    void write(const QString& relative, const QByteArray& bytes) const
    {
        const QString path = QDir(m_root).filePath(relative);
        QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(file.write(bytes), bytes.size());
    }

    // HEAD's id, "" on an unborn branch.
    std::string head() const
    {
        git_oid id;
        if (git_reference_name_to_id(&id, m_repository, "HEAD") != 0)
            return {};
        char text[GIT_OID_HEXSZ + 1];
        git_oid_tostr(text, sizeof text, &id);
        return text;
    }

    unsigned status(const char* path) const
    {
        unsigned flags = 0;
        if (git_status_file(&flags, m_repository, path) != 0)
            return ~0u;
        return flags;
    }

    // Status as the library sees it now: the index on disk, not a cached one.
    void reloadIndex() const
    {
        git_index* index = nullptr;
        QVERIFY(git_repository_index(&index, m_repository) == 0);
        QVERIFY(git_index_read(index, 1) == 0);
        git_index_free(index);
    }

private:
    QTemporaryDir m_dir;
    QString m_root;
    git_repository* m_repository = nullptr;
};

git_commit* lookupCommit(git_repository* repository, const std::string& id)
{
    git_oid oid;
    git_commit* commit = nullptr;
    if (git_oid_fromstr(&oid, id.c_str()) != 0 || git_commit_lookup(&commit, repository, &oid))
        return nullptr;
    return commit;
}

struct WalkState
{
    git_repository* repository;
    Files* files;
};

int collect(const char* root, const git_tree_entry* entry, void* payload)
{
    auto* state = static_cast<WalkState*>(payload);
    if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB)
        return 0;
    git_blob* blob = nullptr;
    if (git_blob_lookup(&blob, state->repository, git_tree_entry_id(entry)) != 0)
        return -1;
    (*state->files)[std::string(root) + git_tree_entry_name(entry)] =
        std::string(static_cast<const char*>(git_blob_rawcontent(blob)),
                    static_cast<size_t>(git_blob_rawsize(blob)));
    git_blob_free(blob);
    return 0;
}

Files filesOf(git_repository* repository, git_commit* commit)
{
    Files files;
    git_tree* tree = nullptr;
    if (git_commit_tree(&tree, commit) != 0)
        return files;
    WalkState state{repository, &files};
    git_tree_walk(tree, GIT_TREEWALK_PRE, collect, &state);
    git_tree_free(tree);
    return files;
}

QString describe(const Files& files)
{
    QStringList lines;
    for (const auto& [path, bytes] : files)
        lines << QString::fromStdString(path + " = " + bytes);
    return lines.join(QLatin1Char('|'));
}

ChangeSet changeSet(std::vector<FileOperation> operations)
{
    ChangeSet changes;
    changes.title = "Complete pytorch";
    changes.operations = std::move(operations);
    return changes;
}

} // namespace

class GitCommitterTest : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void firstCommitOnUnbornHead();
    void commitsExactlyTheChangeSet();
    void commitsBelowTheWorkTreeTop();
    void refusesWithoutIdentity();
    void refusesWhenNothingChanged();

private:
    QTemporaryDir m_emptyConfig;
};

// The user's own git configuration must not leak into the tests (an identity there would hide
// the no-identity case; core.autocrlf would change the committed bytes).
void GitCommitterTest::initTestCase()
{
    QVERIFY(m_emptyConfig.isValid());
    GitLibrary::ensureInitialised();
    const QByteArray empty = m_emptyConfig.path().toUtf8();
    for (int level : {GIT_CONFIG_LEVEL_SYSTEM, GIT_CONFIG_LEVEL_XDG, GIT_CONFIG_LEVEL_GLOBAL,
                      GIT_CONFIG_LEVEL_PROGRAMDATA})
        QVERIFY(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, empty.constData()) == 0);
}

void GitCommitterTest::cleanupTestCase()
{
    for (int level : {GIT_CONFIG_LEVEL_SYSTEM, GIT_CONFIG_LEVEL_XDG, GIT_CONFIG_LEVEL_GLOBAL,
                      GIT_CONFIG_LEVEL_PROGRAMDATA})
        git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, nullptr);
}

void GitCommitterTest::firstCommitOnUnbornHead()
{
    Repository repo;
    QVERIFY(repo.head().empty());
    const ChangeSet changes =
        changeSet({operation(FileOperationKind::Create, ".flox/pkgs/a.nix", "", "a\n")});
    QVERIFY(ChangeSetApplier(repo.root()).apply(changes).applied);
    const CommitResult result = GitCommitter::commit(repo.root(), changes, "First\n");
    QVERIFY2(result.committed, result.error.c_str());
    QCOMPARE(result.id.size(), size_t(GIT_OID_HEXSZ));
    QCOMPARE(repo.head(), result.id);
    git_commit* commit = lookupCommit(repo.git(), result.id);
    QVERIFY(commit);
    QCOMPARE(git_commit_parentcount(commit), 0u);
    QCOMPARE(describe(filesOf(repo.git(), commit)), describe({{".flox/pkgs/a.nix", "a\n"}}));
    QCOMPARE(QString::fromUtf8(git_commit_author(commit)->name), QStringLiteral("Recipe Tester"));
    git_commit_free(commit);
}

void GitCommitterTest::commitsExactlyTheChangeSet()
{
    Repository repo;
    repo.write(".flox/pkgs/a.nix", "a\n");
    repo.write(".flox/pkgs/b.nix", "b\n");
    repo.write(".flox/pkgs/old/c.nix", "c\n");
    repo.write("notes.txt", "notes\n");
    const ChangeSet initial = changeSet({
        operation(FileOperationKind::Create, ".flox/pkgs/a.nix", "", "a\n"),
        operation(FileOperationKind::Create, ".flox/pkgs/b.nix", "", "b\n"),
        operation(FileOperationKind::Create, ".flox/pkgs/old/c.nix", "", "c\n"),
        operation(FileOperationKind::Create, "notes.txt", "", "notes\n"),
    });
    const CommitResult first = GitCommitter::commit(repo.root(), initial, "Initial\n");
    QVERIFY2(first.committed, first.error.c_str());

    // Unrelated work of the user: a dirty file and a staged new one.
    repo.write("notes.txt", "notes, edited by the user\n");
    repo.write("staged.txt", "staged by the user\n");
    {
        git_index* index = nullptr;
        QVERIFY(git_repository_index(&index, repo.git()) == 0);
        QVERIFY(git_index_add_bypath(index, "staged.txt") == 0);
        QVERIFY(git_index_write(index) == 0);
        git_index_free(index);
    }

    const ChangeSet changes = changeSet({
        operation(FileOperationKind::Modify, ".flox/pkgs/a.nix", "a\n", "a, fixed\n"),
        operation(FileOperationKind::Delete, ".flox/pkgs/b.nix", "b\n", ""),
        operation(FileOperationKind::Create, ".flox/pkgs/cuda/d.nix", "", "d\n"),
        operation(FileOperationKind::Delete, ".flox/pkgs/old/c.nix", "c\n", ""),
    });
    const ApplyResult applied = ChangeSetApplier(repo.root()).apply(changes);
    QVERIFY2(applied.applied, applied.error.c_str());
    const std::string message = changes.commitMessage();
    const CommitResult result = GitCommitter::commit(repo.root(), changes, message);
    QVERIFY2(result.committed, result.error.c_str());
    QVERIFY(result.error.empty());
    QCOMPARE(repo.head(), result.id);

    git_commit* commit = lookupCommit(repo.git(), result.id);
    QVERIFY(commit);
    QCOMPARE(QString::fromUtf8(git_commit_message(commit)), QString::fromStdString(message));
    QCOMPARE(git_commit_parentcount(commit), 1u);
    char parent[GIT_OID_HEXSZ + 1];
    git_oid_tostr(parent, sizeof parent, git_commit_parent_id(commit, 0));
    QCOMPARE(std::string(parent), first.id);
    QCOMPARE(describe(filesOf(repo.git(), commit)), describe({
                                                        {".flox/pkgs/a.nix", "a, fixed\n"},
                                                        {".flox/pkgs/cuda/d.nix", "d\n"},
                                                        {"notes.txt", "notes\n"},
                                                    }));
    git_commit_free(commit);

    repo.reloadIndex();
    QCOMPARE(repo.status(".flox/pkgs/a.nix"), unsigned(GIT_STATUS_CURRENT));
    QCOMPARE(repo.status(".flox/pkgs/cuda/d.nix"), unsigned(GIT_STATUS_CURRENT));
    QCOMPARE(repo.status("notes.txt"), unsigned(GIT_STATUS_WT_MODIFIED));
    QCOMPARE(repo.status("staged.txt"), unsigned(GIT_STATUS_INDEX_NEW));
}

void GitCommitterTest::commitsBelowTheWorkTreeTop()
{
    Repository repo(true, QStringLiteral("recipes"));
    const ChangeSet changes =
        changeSet({operation(FileOperationKind::Create, ".flox/pkgs/x.nix", "", "x\n")});
    QVERIFY(ChangeSetApplier(repo.root()).apply(changes).applied);
    const CommitResult result = GitCommitter::commit(repo.root(), changes, "Below\n");
    QVERIFY2(result.committed, result.error.c_str());
    git_commit* commit = lookupCommit(repo.git(), result.id);
    QVERIFY(commit);
    QCOMPARE(describe(filesOf(repo.git(), commit)),
             describe({{"recipes/.flox/pkgs/x.nix", "x\n"}}));
    git_commit_free(commit);
}

void GitCommitterTest::refusesWithoutIdentity()
{
    Repository repo(false);
    const ChangeSet changes = changeSet({operation(FileOperationKind::Create, "a.nix", "", "a\n")});
    QVERIFY(ChangeSetApplier(repo.root()).apply(changes).applied);
    const CommitResult result = GitCommitter::commit(repo.root(), changes, "No one\n");
    QVERIFY(!result.committed);
    QVERIFY(result.id.empty());
    QCOMPARE(result.error,
             std::string("no git identity: set user.name and user.email (git config)"));
    QVERIFY(repo.head().empty());
    repo.reloadIndex();
    QCOMPARE(repo.status("a.nix"), unsigned(GIT_STATUS_WT_NEW)); // nothing was staged
}

void GitCommitterTest::refusesWhenNothingChanged()
{
    Repository repo;
    const ChangeSet changes = changeSet({operation(FileOperationKind::Create, "a.nix", "", "a\n")});
    QVERIFY(ChangeSetApplier(repo.root()).apply(changes).applied);
    const CommitResult first = GitCommitter::commit(repo.root(), changes, "First\n");
    QVERIFY2(first.committed, first.error.c_str());
    const CommitResult again = GitCommitter::commit(repo.root(), changes, "Again\n");
    QVERIFY(!again.committed);
    QVERIFY2(again.error.starts_with("nothing to commit"), again.error.c_str());
    QCOMPARE(repo.head(), first.id);
}

QTEST_GUILESS_MAIN(GitCommitterTest)
#include "tst_gitcommitter.moc"
