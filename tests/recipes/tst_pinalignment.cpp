// PinAlignment on git repositories made from the fixtures (git CLI in setup only; everything
// read through libgit2): seed000 as build-pytorch with two branches, seed000-vllm as build-vllm
// (also as a bare clone), a directory that is no repository; "align to" gives the explicit
// bump, whose plan is checked against the recipes on disk.

#include "analysis/analyzer.h"
#include "changes/pinbumpplanner.h"
#include "pins/pinalignment.h"
#include "testrepository.h"

#include <QDirIterator>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>
#include <functional>
#include <set>

using namespace rg;
using rg::test::TestRepository;

namespace {

const std::string oldPin = "6a030d535719c5190187c4cec156f335e95e3211";
const std::string newPin = "0182a361324364ae3f436a63005877674cf45efb";
const std::string thirdPin = "3e2f6c7b8a9d0e1f2a3b4c5d6e7f8091a2b3c4d5";

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void setPin(const TestRepository& repo, const QString& recipe, const std::string& pin)
{
    const QString path = repo.root() + "/.flox/pkgs/" + recipe;
    QByteArray text = readFile(path);
    text.replace(QByteArray::fromStdString(oldPin), QByteArray::fromStdString(pin));
    repo.write(".flox/pkgs/" + recipe, text);
}

int rowIndex(const PinAlignment& alignment, const std::string& package, const std::string& python,
             const std::string& accelerator)
{
    for (size_t i = 0; i < alignment.rows().size(); ++i) {
        const AlignmentRowKey& key = alignment.rows()[i].key;
        if (key.package == package && key.python == python && key.accelerator == accelerator)
            return int(i);
    }
    return -1;
}

ChangeSet planOn(const QString& root, const PinBumpRequest& request)
{
    const std::shared_ptr<const RepositorySource> source = openWorkTree(root.toStdString());
    const auto analysis = std::make_shared<const Analysis>(Analyzer().analyze(*source));
    const PinBumpPlan plan = PinBumpPlanner(source, analysis).plan(request);
    if (!plan.error.empty())
        qWarning("%s", plan.error.c_str());
    return plan.changes;
}

// The plan of a bump from oldPin to newPin, checked against the files themselves rather than
// against another plan: exactly the recipes under `root` that pin oldPin and that `inScope`
// keeps are modified, each from its bytes on disk to a text that pins newPin, no longer oldPin,
// and no longer carries the sha256 that belonged to oldPin. Anything else planned (the README,
// docs quoting the pin) must not keep oldPin either.
void verifyBump(const ChangeSet& plan, const QString& root,
                const std::function<bool(const QString&)>& inScope)
{
    std::set<std::string> expected;
    QDirIterator it(root + "/.flox/pkgs", {QStringLiteral("*.nix")}, QDir::Files);
    while (it.hasNext()) {
        const QString path = it.next();
        if (readFile(path).contains(QByteArray::fromStdString(oldPin)) &&
            inScope(QFileInfo(path).fileName()))
            expected.insert(".flox/pkgs/" + QFileInfo(path).fileName().toStdString());
    }
    QVERIFY(!expected.empty());
    const QRegularExpression sha256(QStringLiteral("sha256 = \"([^\"]+)\""));
    std::set<std::string> planned;
    for (const FileOperation& op : plan.operations) {
        QVERIFY2(op.kind == FileOperationKind::Modify, op.path.c_str());
        QCOMPARE(QByteArray::fromStdString(op.before),
                 readFile(root + "/" + QString::fromStdString(op.path)));
        QVERIFY2(op.after.find(oldPin) == std::string::npos, op.path.c_str());
        if (!op.path.ends_with(".nix"))
            continue;
        planned.insert(op.path);
        QVERIFY2(op.after.find(newPin) != std::string::npos, op.path.c_str());
        const QRegularExpressionMatch hash = sha256.match(QString::fromStdString(op.before));
        QVERIFY2(hash.hasMatch(), op.path.c_str());
        QVERIFY2(op.after.find(hash.captured(1).toStdString()) == std::string::npos,
                 op.path.c_str());
    }
    QVERIFY2(planned == expected, qPrintable(QStringLiteral("planned %1 recipes, expected %2")
                                                 .arg(planned.size())
                                                 .arg(expected.size())));
}

} // namespace

class TestPinAlignment : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void branchesAndAnotherRepositorySideBySide();
    void unreadableColumnsCarryTheirErrorAlone();
    void bareCloneAtATag();
    void workTreeColumnSeesUncommittedEdits();
    void folderOutsideGitIsReadAsAWorkTree();
    void alignProducesTheExplicitBump();
    void alignErrors();
    void parseArgument_data();
    void parseArgument();

private:
    TestRepository m_pytorch; // seed000: branches pytorch-2.9 (checked out) and cpu-experiment
    TestRepository m_vllm;    // seed000-vllm: main, tag v1
    TestRepository m_other;   // holds the bare clone and a directory that is no repository
};

void TestPinAlignment::initTestCase()
{
    m_pytorch.copyFrom(QStringLiteral(RG_FIXTURES_DIR "/seed000"));
    m_pytorch.git({"init", "-q", "-b", "pytorch-2.9"});
    m_pytorch.commitAll("seed000");
    m_pytorch.git({"checkout", "-q", "-b", "cpu-experiment"});
    setPin(m_pytorch, "pytorch-python313-cpu-avx2.nix", thirdPin);
    setPin(m_pytorch, "pytorch-python313-cpu-avx512.nix", thirdPin);
    m_pytorch.commitAll("two CPU recipes on another pin");
    m_pytorch.git({"checkout", "-q", "pytorch-2.9"});

    m_vllm.copyFrom(QStringLiteral(RG_FIXTURES_DIR "/seed000-vllm"));
    m_vllm.git({"init", "-q", "-b", "main"});
    m_vllm.commitAll("build-vllm");
    m_vllm.git({"tag", "v1"});
    m_other.git({"clone", "-q", "--bare", m_vllm.root(), m_other.root() + "/build-vllm.git"});
    m_other.write("not-a-repo/README.md", "plain directory\n");
}

void TestPinAlignment::branchesAndAnotherRepositorySideBySide()
{
    std::string error;
    std::vector<AlignmentSource> sources =
        PinAlignment::localBranches(m_pytorch.rootPath(), &error);
    QVERIFY2(error.empty(), error.c_str());
    QCOMPARE(sources.size(), size_t(2));
    QCOMPARE(sources[0].revision, std::string("cpu-experiment"));
    QCOMPARE(sources[1].revision, std::string("pytorch-2.9"));
    sources.push_back(AlignmentSource::parse(m_vllm.rootPath() + "@main"));
    const PinAlignment alignment = PinAlignment::compute(sources);

    QCOMPARE(alignment.columns().size(), size_t(3));
    QCOMPARE(alignment.columns()[0].label, std::string("cpu-experiment"));
    QVERIFY(!alignment.columns()[0].checkedOut);
    QVERIFY(alignment.columns()[1].checkedOut);
    QVERIFY(alignment.columns()[2].label.ends_with(" @ main"));
    QCOMPARE(alignment.columns()[2].commitId.size(), size_t(40));
    QCOMPARE(alignment.columns()[1].recipes, 66);
    QCOMPARE(alignment.columns()[2].recipes, 8);
    for (const AlignmentColumn& column : alignment.columns())
        QVERIFY2(column.error.empty(), column.error.c_str());

    QCOMPARE(alignment.rows().size(), size_t(6));
    const std::vector<std::tuple<std::string, std::string, std::string, bool>> rows = {
        {"pytorch", "3.12", "CUDA 12.9", false}, {"pytorch", "3.13", "CPU-only", true},
        {"pytorch", "3.13", "CUDA 12.9", true},  {"pytorch", "3.13", "Darwin", false},
        {"vllm", "3.12", "CUDA 12.9", false},    {"vllm", "3.13", "CUDA 12.9", false}};
    for (size_t i = 0; i < rows.size(); ++i) {
        const auto& [package, python, accelerator, mismatch] = rows[i];
        const AlignmentRow& row = alignment.rows()[i];
        QCOMPARE(row.key.package, package);
        QCOMPARE(row.key.python, python);
        QCOMPARE(row.key.accelerator, accelerator);
        QCOMPARE(row.mismatch, mismatch);
        QCOMPARE(row.cells.size(), size_t(3));
    }
    // Seed 000's "Current State" table: build-pytorch on 6a030d5, build-vllm on 0182a36.
    const AlignmentRow& gpu = alignment.rows()[2];
    QCOMPARE(gpu.cells[1].pin(), oldPin);
    QCOMPARE(gpu.cells[1].recipes(), 59);
    QCOMPARE(gpu.cells[2].pin(), newPin);
    QCOMPARE(gpu.cells[2].recipes(), 2);
    QCOMPARE(gpu.key.acceleratorId, std::string("cuda12.9"));
    // cpu-experiment writes two pins for CPU-only: the most used first.
    const AlignmentCell& cpu = alignment.rows()[1].cells[0];
    QCOMPARE(cpu.pins.size(), size_t(2));
    QCOMPARE(cpu.pins[0], std::make_pair(oldPin, 4));
    QCOMPARE(cpu.pins[1], std::make_pair(thirdPin, 2));
    QVERIFY(alignment.rows()[0].cells[1].pins.empty());

    const std::vector<std::string> known = alignment.knownPins();
    QCOMPARE(known, (std::vector<std::string>{newPin, thirdPin, oldPin}));
}

void TestPinAlignment::unreadableColumnsCarryTheirErrorAlone()
{
    const PinAlignment alignment =
        PinAlignment::compute({{m_pytorch.rootPath(), "pytorch-2.9", {}},
                               AlignmentSource::parse(m_other.rootPath() + "/not-a-repo"),
                               AlignmentSource::parse(m_vllm.rootPath() + "@no-such-branch"),
                               AlignmentSource::parse(m_other.rootPath() + "/missing@main")});
    QCOMPARE(alignment.columns().size(), size_t(4));
    QVERIFY(alignment.columns()[0].error.empty());
    // A folder outside git is read as a work tree: this one has no recipe directory either.
    QVERIFY2(alignment.columns()[1].error.find("not a git repository") != std::string::npos &&
                 alignment.columns()[1].error.find("nor a recipe folder (.flox/pkgs: no such") !=
                     std::string::npos,
             alignment.columns()[1].error.c_str());
    QVERIFY2(alignment.columns()[2].error.find("unknown revision 'no-such-branch'") !=
                 std::string::npos,
             alignment.columns()[2].error.c_str());
    QVERIFY(!alignment.columns()[3].error.empty());
    QCOMPARE(alignment.rows().size(), size_t(3)); // CPU-only, CUDA 12.9, Darwin of the first
    for (const AlignmentRow& row : alignment.rows()) {
        QVERIFY(!row.mismatch);
        QVERIFY(!row.cells[0].pins.empty());
        QVERIFY(row.cells[1].pins.empty() && row.cells[2].pins.empty());
    }
    std::string error;
    QVERIFY(PinAlignment::localBranches(m_other.rootPath() + "/not-a-repo", &error).empty());
    QVERIFY(!error.empty());
}

void TestPinAlignment::bareCloneAtATag()
{
    const PinAlignment alignment =
        PinAlignment::compute({AlignmentSource::parse(m_other.rootPath() + "/build-vllm.git@v1"),
                               AlignmentSource::parse(m_other.rootPath() + "/build-vllm.git")});
    QCOMPARE(alignment.columns()[0].label, std::string("build-vllm.git @ v1"));
    for (const AlignmentColumn& column : alignment.columns()) {
        QVERIFY2(column.error.empty(), column.error.c_str());
        QCOMPARE(column.recipes, 8); // "" on a bare repository is HEAD
        QVERIFY(!column.checkedOut);
    }
    QCOMPARE(alignment.rows().size(), size_t(4));
}

void TestPinAlignment::workTreeColumnSeesUncommittedEdits()
{
    TestRepository repo;
    repo.copyFrom(QStringLiteral(RG_FIXTURES_DIR "/seed000-vllm"));
    repo.git({"init", "-q", "-b", "main"});
    repo.commitAll("build-vllm");
    QByteArray text = readFile(repo.root() + "/.flox/pkgs/vllm-python313-cuda12_9-sm90-avx512.nix");
    text.replace(QByteArray::fromStdString(newPin), QByteArray::fromStdString(thirdPin));
    repo.write(".flox/pkgs/vllm-python313-cuda12_9-sm90-avx512.nix", text);
    const PinAlignment alignment =
        PinAlignment::compute({{repo.rootPath(), "", {}}, {repo.rootPath(), "main", {}}});
    QVERIFY(alignment.columns()[0].label.ends_with(" (work tree)"));
    QVERIFY(alignment.columns()[0].checkedOut);
    QVERIFY(alignment.columns()[1].checkedOut);
    const int row = rowIndex(alignment, "vllm", "3.13", "CUDA 12.9");
    QVERIFY(row >= 0);
    QVERIFY(alignment.rows()[size_t(row)].mismatch);
    QCOMPARE(alignment.rows()[size_t(row)].cells[0].pins.size(), size_t(2));
    QCOMPARE(alignment.rows()[size_t(row)].cells[1].pins.size(), size_t(1));
}

// A recipe folder outside git (no repository, or an unpacked copy) is read as a work tree,
// as the window reads it: its pins, no commit.
void TestPinAlignment::folderOutsideGitIsReadAsAWorkTree()
{
    TestRepository folder;
    folder.copyFrom(QStringLiteral(RG_FIXTURES_DIR "/seed000-vllm"));
    const PinAlignment alignment =
        PinAlignment::compute({{folder.rootPath(), "", {}}, {m_vllm.rootPath(), "main", {}}});
    const AlignmentColumn& column = alignment.columns()[0];
    QVERIFY2(column.error.empty(), column.error.c_str());
    QVERIFY(column.label.ends_with(" (work tree)"));
    QVERIFY(column.commitId.empty() && !column.checkedOut);
    QCOMPARE(column.recipes, alignment.columns()[1].recipes);
    QVERIFY(column.recipes > 0);
    for (const AlignmentRow& row : alignment.rows()) {
        QVERIFY(!row.mismatch);
        QCOMPARE(row.cells[0].pins, row.cells[1].pins);
    }
    // At a revision it needs git, and says so.
    const PinAlignment atRevision = PinAlignment::compute({{folder.rootPath(), "main", {}}});
    QVERIFY2(atRevision.columns()[0].error.find("not a git repository") != std::string::npos,
             atRevision.columns()[0].error.c_str());
}

void TestPinAlignment::alignProducesTheExplicitBump()
{
    const PinAlignment alignment = PinAlignment::compute(
        {{m_pytorch.rootPath(), "pytorch-2.9", {}}, {m_vllm.rootPath(), "main", {}}});
    const int row = rowIndex(alignment, "pytorch", "3.13", "CUDA 12.9");
    QVERIFY(row >= 0);
    std::string error;
    // Seed 000 in one click: the whole branch onto build-vllm's pin.
    const auto whole = alignment.alignRequest(size_t(row), 0, 1, true, &error);
    QVERIFY2(whole, error.c_str());
    QCOMPARE(whole->from, oldPin);
    QCOMPARE(whole->to, newPin);
    QVERIFY(whole->scope.isAll());
    PinBumpRequest explicitBump;
    explicitBump.from = oldPin;
    explicitBump.to = newPin;
    QVERIFY(*whole == explicitBump);
    const ChangeSet aligned = planOn(m_pytorch.root(), *whole);
    QCOMPARE(aligned.operations.size(), size_t(66));
    verifyBump(aligned, m_pytorch.root(), [](const QString&) { return true; });

    // Only the row: the same as the explicit bump scoped to package, accelerator and Python.
    const auto onlyRow = alignment.alignRequest(size_t(row), 0, 1, false, &error);
    QVERIFY2(onlyRow, error.c_str());
    PinBumpRequest scoped = explicitBump;
    scoped.scope.package = "pytorch";
    scoped.scope.accelerator = "cuda12.9";
    scoped.scope.python = "3.13";
    QVERIFY(*onlyRow == scoped);
    const ChangeSet rowChanges = planOn(m_pytorch.root(), *onlyRow);
    QCOMPARE(rowChanges.operations.size(), size_t(59));
    verifyBump(rowChanges, m_pytorch.root(), [](const QString& name) {
        return name.startsWith(QLatin1String("pytorch-python313-cuda12_9-"));
    });

    // The other way round: build-vllm onto build-pytorch's pin.
    const auto back = alignment.alignRequest(size_t(row), 1, 0, true, &error);
    QVERIFY(back);
    QCOMPARE(back->from, newPin);
    QCOMPARE(back->to, oldPin);
}

void TestPinAlignment::alignErrors()
{
    const PinAlignment alignment =
        PinAlignment::compute({{m_pytorch.rootPath(), "pytorch-2.9", {}},
                               {m_vllm.rootPath(), "main", {}},
                               {m_pytorch.rootPath(), "pytorch-2.9", "same again"}});
    std::string error;
    const int py312 = rowIndex(alignment, "pytorch", "3.12", "CUDA 12.9");
    QVERIFY(!alignment.alignRequest(size_t(py312), 0, 1, true, &error));
    QVERIFY2(error.find("has no pytorch 3.12 CUDA 12.9 recipe") != std::string::npos,
             error.c_str());
    const int gpu = rowIndex(alignment, "pytorch", "3.13", "CUDA 12.9");
    QVERIFY(!alignment.alignRequest(size_t(gpu), 0, 2, true, &error));
    QVERIFY2(error.find("already uses 6a030d5") != std::string::npos, error.c_str());
    QVERIFY(!alignment.alignRequest(99, 0, 1, true, &error));
    QVERIFY(!alignment.alignRequest(size_t(gpu), 0, 7, true, &error));
}

void TestPinAlignment::parseArgument_data()
{
    QTest::addColumn<QString>("argument");
    QTest::addColumn<QString>("repository");
    QTest::addColumn<QString>("revision");
    QTest::newRow("path") << "/no/such/repo"
                          << "/no/such/repo"
                          << "";
    QTest::newRow("path at branch") << "/no/such/repo@main"
                                    << "/no/such/repo"
                                    << "main";
    QTest::newRow("at tag with @ in path") << "/no/such@x/repo@v1"
                                           << "/no/such@x/repo"
                                           << "v1";
    QTest::newRow("leading @") << "@main"
                               << "@main"
                               << "";
}

void TestPinAlignment::parseArgument()
{
    QFETCH(QString, argument);
    QFETCH(QString, repository);
    QFETCH(QString, revision);
    const AlignmentSource source = AlignmentSource::parse(argument.toStdString());
    QCOMPARE(QString::fromStdString(source.repository), repository);
    QCOMPARE(QString::fromStdString(source.revision), revision);

    // A directory whose own name holds an '@' is a path, not PATH@REV.
    TestRepository repo;
    repo.write("clone@2024/README.md", "x\n");
    const std::string odd = repo.rootPath() + "/clone@2024";
    QCOMPARE(AlignmentSource::parse(odd).repository, odd);
    QVERIFY(AlignmentSource::parse(odd).revision.empty());
}

QTEST_GUILESS_MAIN(TestPinAlignment)
#include "tst_pinalignment.moc"
