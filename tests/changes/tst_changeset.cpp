// ChangeSet bookkeeping, ChangeSetApplier against real files in a temporary directory (including
// failures half-way through, which must leave every byte as it was), and UnifiedDiff's text.

#include "changes/changeset.h"
#include "changes/changesetapplier.h"
#include "changes/unifieddiff.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <cerrno>
#include <cstring>

using namespace rg;

namespace {

FileOperation createOp(std::string path, std::string after, std::string subject = {})
{
    FileOperation op;
    op.kind = FileOperationKind::Create;
    op.path = std::move(path);
    op.after = std::move(after);
    op.subject = std::move(subject);
    return op;
}

FileOperation modifyOp(std::string path, std::string before, std::string after,
                       std::string subject = {})
{
    FileOperation op;
    op.kind = FileOperationKind::Modify;
    op.path = std::move(path);
    op.plannedHash = contentHash(before);
    op.before = std::move(before);
    op.after = std::move(after);
    op.subject = std::move(subject);
    return op;
}

FileOperation deleteOp(std::string path, std::string before, std::string subject = {})
{
    FileOperation op;
    op.kind = FileOperationKind::Delete;
    op.path = std::move(path);
    op.plannedHash = contentHash(before);
    op.before = std::move(before);
    op.subject = std::move(subject);
    return op;
}

ChangeSet changeSet(std::vector<FileOperation> operations)
{
    ChangeSet changes;
    changes.title = "Test";
    changes.operations = std::move(operations);
    return changes;
}

// A work tree in a temporary directory; a snapshot lists every entry below it (hidden ones and
// directories too), so stray temporary files and left-over directories show up in comparisons.
class WorkTree
{
public:
    WorkTree() { QVERIFY(m_dir.isValid()); }

    std::string root() const { return m_dir.path().toStdString(); }
    QString path(const QString& relative) const { return m_dir.filePath(relative); }

    void write(const QString& relative, const QByteArray& bytes) const
    {
        QVERIFY(QDir().mkpath(QFileInfo(path(relative)).absolutePath()));
        QFile file(path(relative));
        QVERIFY2(file.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(relative));
        QCOMPARE(file.write(bytes), bytes.size());
    }
    QByteArray read(const QString& relative) const
    {
        QFile file(path(relative));
        if (!file.open(QIODevice::ReadOnly))
            return QByteArray("<unreadable>");
        return file.readAll();
    }
    bool exists(const QString& relative) const { return QFileInfo::exists(path(relative)); }

    QStringList snapshot() const
    {
        QStringList entries;
        QDirIterator it(m_dir.path(),
                        QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString file = it.next();
            const QFileInfo info(file);
            QString line = QDir(m_dir.path()).relativeFilePath(file) +
                           QStringLiteral(" [%1]").arg(int(info.permissions()), 0, 16);
            if (info.isDir())
                line += QStringLiteral(" dir");
            else
                line += QStringLiteral(": ") +
                        QString::fromLatin1(
                            read(QDir(m_dir.path()).relativeFilePath(file)).toPercentEncoding());
            entries << line;
        }
        entries.sort();
        return entries;
    }

private:
    QTemporaryDir m_dir;
};

const std::string recipeA = "{ pkgs }:\n# a\npkgs.python312Packages.torch\n";
const std::string recipeB = "{ pkgs }:\r\n# b, CRLF\r\npkgs.python313Packages.torch\r\n";
const std::string recipeC = "{ pkgs }: pkgs.hello"; // no trailing newline

} // namespace

class ChangeSetTest : public QObject
{
    Q_OBJECT

private slots:
    void countInverseAndCommitMessage();

    void applyCreatesModifiesAndDeletes();
    void applyKeepsPermissions();
    void halfWayFailureRestoresEverything_data();
    void halfWayFailureRestoresEverything();
    void deleteAndCreateInOneDirectory();
    void refusesFileChangedOnDisk_data();
    void refusesFileChangedOnDisk();
    void refusesCreateTargetThatAppeared_data();
    void refusesCreateTargetThatAppeared();
    void undoRestoresByteIdenticalTree();
    void undoRefusesFileChangedAfterApply();
    void unselectedOperationsAreNotApplied();
    void refusesPathsOutsideTheRoot_data();
    void refusesPathsOutsideTheRoot();
    void refusesLinkedDirectoryLeavingTheRoot();
    void refusesTheSamePathTwice();

    void diffOfModifyIsExact();
    void diffOfCreateAndDelete();
    void diffMarksMissingTrailingNewline();
    void diffKeepsCrlfAndEmptyTexts();
    void diffStatCounts();
};

void ChangeSetTest::countInverseAndCommitMessage()
{
    FileOperation unselected = createOp(".flox/pkgs/z.nix", "z\n", "pytorch-z");
    unselected.selected = false;
    ChangeSet changes = changeSet({
        createOp(".flox/pkgs/a.nix", "a\n", "pytorch-a"),
        modifyOp(".flox/pkgs/b.nix", "b\n", "b2\n", "pytorch-b"),
        deleteOp(".flox/pkgs/c.nix", "c\n", "pytorch-c"),
        modifyOp("README.md", "r\n", "r2\n"),
        unselected,
    });
    changes.title = "Complete pytorch (3 cells)";
    QCOMPARE(changes.count(FileOperationKind::Create), 1);
    QCOMPARE(changes.count(FileOperationKind::Create, false), 2);
    QCOMPARE(changes.count(FileOperationKind::Modify), 2);
    QCOMPARE(changes.count(FileOperationKind::Delete), 1);
    QVERIFY(changes.hasSelected());

    const ChangeSet undo = changes.inverse();
    QCOMPARE(undo.title, std::string("Undo: Complete pytorch (3 cells)"));
    QCOMPARE(undo.operations.size(), size_t(4));
    QCOMPARE(undo.operations[0].kind, FileOperationKind::Delete);
    QCOMPARE(undo.operations[0].before, std::string("a\n"));
    QCOMPARE(undo.operations[0].plannedHash, contentHash("a\n"));
    QCOMPARE(undo.operations[1].kind, FileOperationKind::Modify);
    QCOMPARE(undo.operations[1].after, std::string("b\n"));
    QCOMPARE(undo.operations[1].plannedHash, contentHash("b2\n"));
    QCOMPARE(undo.operations[2].kind, FileOperationKind::Create);
    QCOMPARE(undo.operations[2].after, std::string("c\n"));
    QVERIFY(undo.operations[2].plannedHash.empty());

    QCOMPARE(changes.commitMessage(), std::string("Complete pytorch (3 cells)\n"
                                                  "\nCreated (1):\n- pytorch-a\n"
                                                  "\nFixed (1):\n- pytorch-b\n"
                                                  "\nDeleted (1):\n- pytorch-c\n"
                                                  "\nAlso updated (1):\n- README.md\n"));
    for (FileOperation& op : changes.operations)
        op.selected = false;
    QVERIFY(!changes.hasSelected());
}

void ChangeSetTest::applyCreatesModifiesAndDeletes()
{
    WorkTree tree;
    tree.write(".flox/pkgs/a.nix", QByteArray::fromStdString(recipeA));
    tree.write(".flox/pkgs/b.nix", QByteArray::fromStdString(recipeB));
    tree.write(".flox/pkgs/c.nix", QByteArray::fromStdString(recipeC));
    const ChangeSet changes = changeSet({
        createOp(".flox/pkgs/cuda/sm90/new.nix", "new\n"),
        modifyOp(".flox/pkgs/a.nix", recipeA, "changed a\n"),
        modifyOp(".flox/pkgs/b.nix", recipeB, "changed b\r\nno newline"),
        deleteOp(".flox/pkgs/c.nix", recipeC),
        createOp("top.nix", ""),
    });
    const ApplyResult result = ChangeSetApplier(tree.root()).apply(changes);
    QVERIFY2(result.applied, result.error.c_str());
    QVERIFY(result.error.empty());
    QCOMPARE(tree.read(".flox/pkgs/cuda/sm90/new.nix"), QByteArray("new\n"));
    QCOMPARE(tree.read(".flox/pkgs/a.nix"), QByteArray("changed a\n"));
    QCOMPARE(tree.read(".flox/pkgs/b.nix"), QByteArray("changed b\r\nno newline"));
    QVERIFY(!tree.exists(".flox/pkgs/c.nix"));
    QVERIFY(tree.exists("top.nix"));
    QCOMPARE(tree.read("top.nix"), QByteArray(""));
    QCOMPARE(tree.snapshot().size(), 8); // .flox, pkgs, cuda, sm90 and four files: nothing stray
}

void ChangeSetTest::applyKeepsPermissions()
{
    WorkTree tree;
    tree.write("run.sh", "#!/bin/sh\n");
    const auto executable = QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                            QFileDevice::ExeOwner | QFileDevice::ReadUser | QFileDevice::WriteUser |
                            QFileDevice::ExeUser | QFileDevice::ReadGroup | QFileDevice::ExeGroup;
    QVERIFY(QFile::setPermissions(tree.path("run.sh"), executable));
    tree.write("reference", "");
    const ApplyResult result =
        ChangeSetApplier(tree.root())
            .apply(changeSet({createOp("new.nix", "x\n"),
                              modifyOp("run.sh", "#!/bin/sh\n", "#!/bin/sh\nexit 0\n")}));
    QVERIFY2(result.applied, result.error.c_str());
    QCOMPARE(QFile::permissions(tree.path("run.sh")), executable);
    // A created file gets what any new file gets here (the umask), not a temporary file's 0600.
    QCOMPARE(QFile::permissions(tree.path("new.nix")), QFile::permissions(tree.path("reference")));
}

void ChangeSetTest::halfWayFailureRestoresEverything_data()
{
    QTest::addColumn<int>("first");
    QTest::addColumn<bool>("longName");
    for (const bool longName : {false, true}) {
        const char* how = longName ? "write fails" : "directory fails";
        QTest::addRow("%s, after a create in new directories", how)
            << int(FileOperationKind::Create) << longName;
        QTest::addRow("%s, after a modify", how) << int(FileOperationKind::Modify) << longName;
        QTest::addRow("%s, after deleting the last file of a directory", how)
            << int(FileOperationKind::Delete) << longName;
    }
}

// The second of three targets cannot be written whoever runs the test (root included): either
// its parent directory would have to be created where a regular file is, or its name is too
// long for the file system, which only the write itself finds out.
void ChangeSetTest::halfWayFailureRestoresEverything()
{
    QFETCH(int, first);
    QFETCH(bool, longName);
    WorkTree tree;
    tree.write("a/old.nix", QByteArray::fromStdString(recipeB));
    QVERIFY(QFile::setPermissions(tree.path("a/old.nix"),
                                  QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    tree.write("blocked", "a regular file\n");
    tree.write("z.nix", QByteArray::fromStdString(recipeC));
    const QStringList before = tree.snapshot();

    std::vector<FileOperation> operations;
    switch (FileOperationKind(first)) {
    case FileOperationKind::Create:
        operations.push_back(createOp("a/new/deeper/first.nix", "first\n"));
        break;
    case FileOperationKind::Modify:
        operations.push_back(modifyOp("a/old.nix", recipeB, "rewritten\n"));
        break;
    case FileOperationKind::Delete:
        operations.push_back(deleteOp("a/old.nix", recipeB));
        break;
    }
    const std::string second =
        longName ? "b/new/" + std::string(300, 'n') + ".nix" : "blocked/second.nix";
    operations.push_back(createOp(second, "second\n"));
    operations.push_back(modifyOp("z.nix", recipeC, "third\n"));

    const ApplyResult result = ChangeSetApplier(tree.root()).apply(changeSet(operations));
    QVERIFY(!result.applied);
    QCOMPARE(result.file, second);
    QVERIFY2(result.error.starts_with(second + ": "), result.error.c_str());
    const char* osError = std::strerror(longName ? ENAMETOOLONG : EEXIST);
    QVERIFY2(result.error.find(osError) != std::string::npos, result.error.c_str());
    QVERIFY2(result.error.find("rollback") == std::string::npos, result.error.c_str());
    QCOMPARE(tree.snapshot(), before);
}

void ChangeSetTest::deleteAndCreateInOneDirectory()
{
    WorkTree tree;
    tree.write("pkgs/old.nix", QByteArray::fromStdString(recipeA));
    const ChangeSet changes =
        changeSet({createOp("pkgs/a-new.nix", "new\n"), deleteOp("pkgs/old.nix", recipeA)});
    const ApplyResult result = ChangeSetApplier(tree.root()).apply(changes);
    QVERIFY2(result.applied, result.error.c_str());
    QCOMPARE(tree.read("pkgs/a-new.nix"), QByteArray("new\n"));
    QVERIFY(!tree.exists("pkgs/old.nix"));
    QCOMPARE(tree.snapshot().size(), 2);
}

void ChangeSetTest::refusesFileChangedOnDisk_data()
{
    QTest::addColumn<bool>("removed");
    QTest::newRow("edited") << false;
    QTest::newRow("removed") << true;
}

void ChangeSetTest::refusesFileChangedOnDisk()
{
    QFETCH(bool, removed);
    WorkTree tree;
    tree.write("a.nix", QByteArray::fromStdString(recipeA));
    tree.write("b.nix", QByteArray::fromStdString(recipeB));
    const ChangeSet changes = changeSet({
        createOp("0-first.nix", "would be written first\n"),
        modifyOp("a.nix", recipeA, "planned\n"),
        deleteOp("b.nix", recipeB),
    });
    if (removed)
        QVERIFY(QFile::remove(tree.path("b.nix")));
    else
        tree.write("b.nix", QByteArray::fromStdString(recipeB) + "# edited by hand\n");
    const QStringList before = tree.snapshot();

    const ApplyResult result = ChangeSetApplier(tree.root()).apply(changes);
    QVERIFY(!result.applied);
    QCOMPARE(result.file, std::string("b.nix"));
    QVERIFY2(result.error.starts_with("b.nix: "), result.error.c_str());
    QVERIFY2(result.error.find("changed on disk since the change set was planned") !=
                 std::string::npos,
             result.error.c_str());
    QCOMPARE(tree.snapshot(), before);
}

void ChangeSetTest::refusesCreateTargetThatAppeared_data()
{
    QTest::addColumn<bool>("directory");
    QTest::newRow("a file") << false;
    QTest::newRow("a directory") << true;
}

void ChangeSetTest::refusesCreateTargetThatAppeared()
{
    QFETCH(bool, directory);
    WorkTree tree;
    tree.write("a.nix", QByteArray::fromStdString(recipeA));
    if (directory)
        QVERIFY(QDir().mkpath(tree.path("pkgs/new.nix")));
    else
        tree.write("pkgs/new.nix", "someone else's\n");
    const QStringList before = tree.snapshot();
    const ApplyResult result =
        ChangeSetApplier(tree.root())
            .apply(changeSet({modifyOp("a.nix", recipeA, "x\n"), createOp("pkgs/new.nix", "y\n")}));
    QVERIFY(!result.applied);
    QCOMPARE(result.file, std::string("pkgs/new.nix"));
    QVERIFY2(result.error.find("already exists") != std::string::npos, result.error.c_str());
    QCOMPARE(tree.snapshot(), before);
}

void ChangeSetTest::undoRestoresByteIdenticalTree()
{
    WorkTree tree;
    tree.write(".flox/pkgs/a.nix", QByteArray::fromStdString(recipeA));
    tree.write(".flox/pkgs/b.nix", QByteArray::fromStdString(recipeB));
    tree.write(".flox/pkgs/gone/c.nix", QByteArray::fromStdString(recipeC));
    const QStringList original = tree.snapshot();
    const ChangeSet changes = changeSet({
        modifyOp(".flox/pkgs/a.nix", recipeA, "a, changed\n"),
        modifyOp(".flox/pkgs/b.nix", recipeB, "b, changed\r\n"),
        createOp(".flox/pkgs/fresh/d.nix", "d\n"),
        deleteOp(".flox/pkgs/gone/c.nix", recipeC),
    });
    const ChangeSetApplier applier(tree.root());
    const ApplyResult applied = applier.apply(changes);
    QVERIFY2(applied.applied, applied.error.c_str());
    QVERIFY(!tree.exists(".flox/pkgs/gone")); // as git rm: the emptied directory goes too
    QVERIFY(tree.snapshot() != original);

    const ApplyResult undone = applier.apply(changes.inverse());
    QVERIFY2(undone.applied, undone.error.c_str());
    QVERIFY(!tree.exists(".flox/pkgs/fresh/d.nix"));
    QCOMPARE(tree.read(".flox/pkgs/gone/c.nix"), QByteArray::fromStdString(recipeC));
    QCOMPARE(tree.snapshot(), original);
}

void ChangeSetTest::undoRefusesFileChangedAfterApply()
{
    WorkTree tree;
    tree.write("a.nix", QByteArray::fromStdString(recipeA));
    const ChangeSet changes =
        changeSet({modifyOp("a.nix", recipeA, "a, changed\n"), createOp("sub/b.nix", "b\n")});
    const ChangeSetApplier applier(tree.root());
    QVERIFY(applier.apply(changes).applied);
    tree.write("sub/b.nix", "b, edited after the apply\n");
    const QStringList afterEdit = tree.snapshot();

    const ApplyResult undone = applier.apply(changes.inverse());
    QVERIFY(!undone.applied);
    QCOMPARE(undone.file, std::string("sub/b.nix"));
    QVERIFY2(undone.error.find("changed on disk since the change set was planned") !=
                 std::string::npos,
             undone.error.c_str());
    QCOMPARE(tree.snapshot(), afterEdit);
}

void ChangeSetTest::unselectedOperationsAreNotApplied()
{
    WorkTree tree;
    tree.write("a.nix", QByteArray::fromStdString(recipeA));
    tree.write("b.nix", QByteArray::fromStdString(recipeB));
    ChangeSet changes = changeSet({
        modifyOp("a.nix", recipeA, "a, changed\n"),
        modifyOp("b.nix", recipeB, "b, changed\n"),
        createOp("c.nix", "c\n"),
        deleteOp("b.nix", recipeB),
        createOp("../outside.nix", "never looked at\n"),
    });
    for (size_t i = 1; i < changes.operations.size(); ++i)
        changes.operations[i].selected = false;
    const ApplyResult result = ChangeSetApplier(tree.root()).apply(changes);
    QVERIFY2(result.applied, result.error.c_str());
    QCOMPARE(tree.read("a.nix"), QByteArray("a, changed\n"));
    QCOMPARE(tree.read("b.nix"), QByteArray::fromStdString(recipeB));
    QVERIFY(!tree.exists("c.nix"));
    QCOMPARE(tree.snapshot().size(), 2);
}

void ChangeSetTest::refusesPathsOutsideTheRoot_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("why");
    QTest::newRow("parent") << "../x.nix"
                            << "'..'";
    QTest::newRow("parent inside") << "pkgs/../../x.nix"
                                   << "'..'";
    // OUTSIDE stands for a temporary folder of the test's own, outside the root.
    QTest::newRow("absolute") << "OUTSIDE/absolute.nix"
                              << "absolute";
    QTest::newRow("dot") << "pkgs/./x.nix"
                         << "normalised";
    QTest::newRow("empty component") << "pkgs//x.nix"
                                     << "normalised";
    QTest::newRow("git database") << ".git/hooks/pre-commit"
                                  << ".git";
}

void ChangeSetTest::refusesPathsOutsideTheRoot()
{
    QFETCH(QString, path);
    QFETCH(QString, why);
    QTemporaryDir parent;
    QVERIFY(parent.isValid());
    const QString root = parent.filePath("root");
    QVERIFY(QDir().mkpath(root + "/pkgs"));
    QTemporaryDir outside;
    QVERIFY(outside.isValid());
    const QString absolute = outside.filePath("absolute.nix");
    path.replace("OUTSIDE", outside.path());
    const ApplyResult result = ChangeSetApplier(root.toStdString())
                                   .apply(changeSet({createOp("pkgs/fine.nix", "fine\n"),
                                                     createOp(path.toStdString(), "escaped\n")}));
    QVERIFY(!result.applied);
    QCOMPARE(result.file, path.toStdString());
    QVERIFY2(result.error.find(why.toStdString()) != std::string::npos, result.error.c_str());
    QVERIFY(!QFileInfo::exists(parent.filePath("x.nix")));
    QVERIFY(!QFileInfo::exists(absolute));
    QVERIFY(!QFileInfo::exists(root + "/pkgs/fine.nix"));
}

void ChangeSetTest::refusesLinkedDirectoryLeavingTheRoot()
{
    WorkTree tree;
    QTemporaryDir outside;
    QVERIFY(outside.isValid());
    QVERIFY(QFile::link(outside.path(), tree.path("linked")));
    const ApplyResult result =
        ChangeSetApplier(tree.root()).apply(changeSet({createOp("linked/x.nix", "escaped\n")}));
    QVERIFY(!result.applied);
    QCOMPARE(result.file, std::string("linked/x.nix"));
    QVERIFY2(result.error.find("leaves the repository") != std::string::npos, result.error.c_str());
    QVERIFY(QDir(outside.path()).isEmpty(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot));
}

void ChangeSetTest::refusesTheSamePathTwice()
{
    WorkTree tree;
    tree.write("a.nix", QByteArray::fromStdString(recipeA));
    const ApplyResult result = ChangeSetApplier(tree.root())
                                   .apply(changeSet({modifyOp("a.nix", recipeA, "one\n"),
                                                     modifyOp("a.nix", recipeA, "two\n")}));
    QVERIFY(!result.applied);
    QVERIFY2(result.error.find("twice") != std::string::npos, result.error.c_str());
    QCOMPARE(tree.read("a.nix"), QByteArray::fromStdString(recipeA));
}

void ChangeSetTest::diffOfModifyIsExact()
{
    const FileOperation op = modifyOp(
        ".flox/pkgs/x.nix", "{ pkgs }:\nlet\n  python = pkgs.python312;\nin\npython.pkgs.torch\n",
        "{ pkgs }:\nlet\n  python = pkgs.python313;\nin\npython.pkgs.torch\n");
    QCOMPARE(QString::fromStdString(UnifiedDiff::of(op)),
             QStringLiteral("diff --git a/.flox/pkgs/x.nix b/.flox/pkgs/x.nix\n"
                            "index d4cf977..dd98058 100644\n"
                            "--- a/.flox/pkgs/x.nix\n"
                            "+++ b/.flox/pkgs/x.nix\n"
                            "@@ -1,5 +1,5 @@\n"
                            " { pkgs }:\n"
                            " let\n"
                            "-  python = pkgs.python312;\n"
                            "+  python = pkgs.python313;\n"
                            " in\n"
                            " python.pkgs.torch\n"));
    QCOMPARE(QString::fromStdString(UnifiedDiff::of(op, 0)),
             QStringLiteral("diff --git a/.flox/pkgs/x.nix b/.flox/pkgs/x.nix\n"
                            "index d4cf977..dd98058 100644\n"
                            "--- a/.flox/pkgs/x.nix\n"
                            "+++ b/.flox/pkgs/x.nix\n"
                            "@@ -3 +3 @@ let\n"
                            "-  python = pkgs.python312;\n"
                            "+  python = pkgs.python313;\n"));
    QCOMPARE(UnifiedDiff::of(modifyOp("same.nix", "same\n", "same\n")), std::string());
}

void ChangeSetTest::diffOfCreateAndDelete()
{
    QCOMPARE(QString::fromStdString(UnifiedDiff::of(createOp("pkgs/new.nix", "one\ntwo\n"))),
             QStringLiteral("diff --git a/pkgs/new.nix b/pkgs/new.nix\n"
                            "new file mode 100644\n"
                            "index 0000000..814f4a4\n"
                            "--- /dev/null\n"
                            "+++ b/pkgs/new.nix\n"
                            "@@ -0,0 +1,2 @@\n"
                            "+one\n"
                            "+two\n"));
    QCOMPARE(QString::fromStdString(UnifiedDiff::of(deleteOp("pkgs/old.nix", "one\ntwo\n"))),
             QStringLiteral("diff --git a/pkgs/old.nix b/pkgs/old.nix\n"
                            "deleted file mode 100644\n"
                            "index 814f4a4..0000000\n"
                            "--- a/pkgs/old.nix\n"
                            "+++ /dev/null\n"
                            "@@ -1,2 +0,0 @@\n"
                            "-one\n"
                            "-two\n"));
}

void ChangeSetTest::diffMarksMissingTrailingNewline()
{
    const std::string diff = UnifiedDiff::of(modifyOp("x.nix", "one\ntwo\n", "one\ntwo"));
    QCOMPARE(QString::fromStdString(diff), QStringLiteral("diff --git a/x.nix b/x.nix\n"
                                                          "index 814f4a4..9ed40b4 100644\n"
                                                          "--- a/x.nix\n"
                                                          "+++ b/x.nix\n"
                                                          "@@ -1,2 +1,2 @@\n"
                                                          " one\n"
                                                          "-two\n"
                                                          "+two\n"
                                                          "\\ No newline at end of file\n"));
}

void ChangeSetTest::diffKeepsCrlfAndEmptyTexts()
{
    QCOMPARE(QString::fromStdString(
                 UnifiedDiff::of(modifyOp("w.nix", "one\r\ntwo\r\n", "one\r\nTWO\r\n"))),
             QStringLiteral("diff --git a/w.nix b/w.nix\n"
                            "index 4e349b5..24fe5dc 100644\n"
                            "--- a/w.nix\n"
                            "+++ b/w.nix\n"
                            "@@ -1,2 +1,2 @@\n"
                            " one\r\n"
                            "-two\r\n"
                            "+TWO\r\n"));
    // An empty created file is still a creation, with no hunk.
    QCOMPARE(QString::fromStdString(UnifiedDiff::of(createOp("empty.nix", ""))),
             QStringLiteral("diff --git a/empty.nix b/empty.nix\n"
                            "new file mode 100644\n"
                            "index 0000000..e69de29\n"
                            "--- /dev/null\n"
                            "+++ b/empty.nix\n"));
    const std::string filled = UnifiedDiff::of(modifyOp("e.nix", "", "x\n"));
    QVERIFY2(filled.find("@@ -0,0 +1 @@\n+x\n") != std::string::npos, filled.c_str());
}

void ChangeSetTest::diffStatCounts()
{
    DiffStat stat = UnifiedDiff::statOf(modifyOp("x.nix", "a\nb\nc\nd\n", "a\nB\nc\nd\ne\nf\n"));
    QCOMPARE(stat.added, 3);
    QCOMPARE(stat.removed, 1);
    stat = UnifiedDiff::statOf(createOp("x.nix", "1\n2\n3\n4"));
    QCOMPARE(stat.added, 4);
    QCOMPARE(stat.removed, 0);
    stat = UnifiedDiff::statOf(deleteOp("x.nix", "1\n2\n"));
    QCOMPARE(stat.added, 0);
    QCOMPARE(stat.removed, 2);
    stat = UnifiedDiff::statOf(modifyOp("x.nix", "same\n", "same\n"));
    QCOMPARE(stat.added, 0);
    QCOMPARE(stat.removed, 0);
}

QTEST_GUILESS_MAIN(ChangeSetTest)
#include "tst_changeset.moc"
