// Fixes that keep what the author wrote: one wrong token in a recipe full of hand-made
// workarounds is fixed by changing that token alone; a flag list is edited flag by flag with
// its comments; a regeneration carries the author's own lines over, or is refused with the
// conflict named; and what a fix removes beyond its findings is reported.

#include "../recipes/testrepository.h"
#include "analysis/analyzer.h"
#include "changes/changeplanner.h"
#include "changes/recipemerge.h"
#include "changes/removalreport.h"

#include <QFile>
#include <QTest>

using namespace rg;

namespace {

std::shared_ptr<const Analysis> analyse(const std::shared_ptr<const RepositorySource>& source)
{
    return std::make_shared<const Analysis>(Analyzer().analyze(*source));
}

QString fixture(const char* name)
{
    return QStringLiteral(RG_FIXTURES_DIR "/") + name;
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(bytes), bytes.size());
}

// Replaces `from` by `to` in the recipe `file` of the repository in `dir`; returns the plan of
// fixing that recipe and, in `original`, the recipe as it was.
ChangeSet planFix(const test::TestRepository& dir, const QString& file, const QByteArray& from,
                  const QByteArray& to, QByteArray* original)
{
    const QString path = dir.root() + "/.flox/pkgs/" + file;
    *original = readFile(path);
    QByteArray broken = *original;
    broken.replace(from, to);
    if (broken == *original)
        qFatal("the mutation of %s did not apply", qPrintable(file));
    writeFile(path, broken);
    auto source = std::shared_ptr<const RepositorySource>(openWorkTree(dir.root().toStdString()));
    ChangeRequest request;
    request.action = ChangeAction::Fix;
    request.cells = {".flox/pkgs/" + file.toStdString()};
    request.updateReadme = false;
    return ChangePlanner(source, analyse(source)).plan(request);
}

} // namespace

class TestFixPreservation : public QObject
{
    Q_OBJECT

private slots:
    // The recipe of an old GPU on AVX-only hosts: its one wrong token is the CUDA set. The
    // fix renames the set and nothing else, so every workaround (the AVX2 dispatch flags,
    // USE_FBGEMM/MKLDNN/NNPACK/CUDNN=0) and the Pascal prose stay.
    void aCudaSetFixKeepsTheWorkarounds()
    {
        test::TestRepository dir;
        dir.copyFrom(fixture("realworld/old-gpu"));
        QByteArray original;
        const ChangeSet changes =
            planFix(dir, "pytorch-python312-cuda12_8-sm61-avx.nix", "pkgs.cudaPackages_12_8",
                    "pkgs.cudaPackages_12_6", &original);
        QVERIFY2(changes.skipped.empty(),
                 changes.skipped.empty() ? "" : changes.skipped.front().why.c_str());
        QCOMPARE(changes.operations.size(), size_t(1));
        const FileOperation& op = changes.operations.front();
        QVERIFY2(op.reason.find("in place") != std::string::npos, op.reason.c_str());
        QCOMPARE(QByteArray::fromStdString(op.after), original);
        QVERIFY(op.alsoRemoves.empty());
        QVERIFY(op.selected);
    }

    // An arch fix follows the bindings that name the arch for a reader: gpuArchNum beside
    // gpuArchSM, though no sink reads it.
    void anArchFixRenamesTheBindingsBesideIt()
    {
        test::TestRepository dir;
        dir.copyFrom(fixture("realworld/old-gpu"));
        QByteArray original;
        const ChangeSet changes =
            planFix(dir, "pytorch-python312-cuda12_8-sm61-avx.nix",
                    "gpuArchSM = \"6.1\";\n  gpuArchNum = \"61\";",
                    "gpuArchSM = \"8.9\";\n  gpuArchNum = \"89\";", &original);
        QCOMPARE(changes.operations.size(), size_t(1));
        QCOMPARE(QByteArray::fromStdString(changes.operations.front().after), original);
    }

    // Prose that names the wrong arch follows the fix in those words only.
    void anArchFixRenamesTheArchInProse()
    {
        test::TestRepository dir;
        dir.copyFrom(fixture("realworld/old-gpu"));
        const QString file = "pytorch-python312-cuda12_8-sm61-avx.nix";
        QByteArray copied = readFile(dir.root() + "/.flox/pkgs/" + file);
        QVERIFY(copied.contains("echo \"PyTorch for NVIDIA Pascal (SM61) + AVX"));
        copied.replace("Pascal (SM61) + AVX", "Pascal (SM89) + AVX");
        writeFile(dir.root() + "/.flox/pkgs/" + file, copied);
        QByteArray original;
        const ChangeSet changes =
            planFix(dir, file, "gpuArchSM = \"6.1\";", "gpuArchSM = \"8.9\";", &original);
        QCOMPARE(changes.operations.size(), size_t(1));
        QByteArray expected = original;
        expected.replace("Pascal (SM89) + AVX", "Pascal (SM61) + AVX");
        QCOMPARE(QByteArray::fromStdString(changes.operations.front().after), expected);
    }

    // An ISA fix that only has to put one flag in edits the author's commented list in place:
    // the missing flag comes in on its own line, after its catalog neighbour; the comments
    // stay.
    void anIsaFixEditsTheCommentedListFlagByFlag()
    {
        test::TestRepository dir;
        dir.copyFrom(fixture("seed001-target"));
        const QString path =
            dir.root() + "/.flox/pkgs/pytorch-python313-cuda13_0-sm120-avx512vnni.nix";
        QByteArray recipe = readFile(path);
        const QByteArray list = "  cpuFlags = [\n"
                                "    \"-mavx512f\" # foundation\n"
                                "    \"-mavx512dq\"\n"
                                "    \"-mavx512vl\" # 128/256-bit forms\n"
                                "    \"-mavx512bw\"\n"
                                "    \"-mavx512vnni\" # Cascade Lake and newer\n"
                                "    \"-mfma\"\n"
                                "  ];\n";
        const qsizetype begin = recipe.indexOf("  cpuFlags = [");
        const qsizetype end = recipe.indexOf("];\n", begin) + 3;
        QVERIFY(begin > 0 && end > begin);
        recipe.replace(begin, end - begin, list);
        writeFile(path, recipe);
        QByteArray original;
        const ChangeSet changes =
            planFix(dir, "pytorch-python313-cuda13_0-sm120-avx512vnni.nix",
                    "    \"-mavx512vnni\" # Cascade Lake and newer\n", "", &original);
        QCOMPARE(changes.operations.size(), size_t(1));
        // The comment of the removed line is gone with it; the others stay where they were.
        QByteArray expected = original;
        expected.replace("    \"-mavx512vnni\" # Cascade Lake and newer\n",
                         "    \"-mavx512vnni\"\n");
        QCOMPARE(QByteArray::fromStdString(changes.operations.front().after), expected);
    }

    // A flag of a bigger ISA put into an AVX list is taken out alone: the -mno-* flags and the
    // comments of the list stay.
    void anIsaFixTakesOutOnlyTheForbiddenFlag()
    {
        test::TestRepository dir;
        dir.copyFrom(fixture("realworld/old-gpu"));
        QByteArray original;
        const ChangeSet changes = planFix(
            dir, "pytorch-python313-cuda12_8-sm61-avx.nix", "    \"-mno-bmi2\" # and no BMI2.\n",
            "    \"-mno-bmi2\" # and no BMI2.\n    \"-mavx512f\"\n", &original);
        QCOMPARE(changes.operations.size(), size_t(1));
        QCOMPARE(QByteArray::fromStdString(changes.operations.front().after), original);
    }

    // Regeneration (missing overlays have no value to write in place) carries the author's
    // own lines over: an export the canonical recipe lacks survives, the overlay comes back.
    void regenerationKeepsTheAuthorsLines()
    {
        test::TestRepository dir;
        dir.copyFrom(fixture("seed001-target"));
        const QString file = "pytorch-python313-cuda13_0-sm90-avx2.nix";
        const QString path = dir.root() + "/.flox/pkgs/" + file;
        QByteArray withExport = readFile(path);
        withExport.replace("    export PYTORCH_BUILD_NUMBER=0\n",
                           "    export PYTORCH_BUILD_NUMBER=0\n    export USE_NNPACK=0\n");
        writeFile(path, withExport);
        const QByteArray overlay =
            "      # Overlay 1: Use CUDA 13.0\n"
            "      (final: prev: { cudaPackages = final.cudaPackages_13; })\n\n";
        QVERIFY(withExport.contains(overlay));
        QByteArray original;
        const ChangeSet changes = planFix(dir, file, overlay, "", &original);
        QVERIFY2(changes.skipped.empty(),
                 changes.skipped.empty() ? "" : changes.skipped.front().why.c_str());
        QCOMPARE(changes.operations.size(), size_t(1));
        const FileOperation& op = changes.operations.front();
        QVERIFY2(op.reason.find("regenerated") != std::string::npos &&
                     op.reason.find("merged") != std::string::npos,
                 op.reason.c_str());
        QCOMPARE(QByteArray::fromStdString(op.after), original);
        QVERIFY(op.alsoRemoves.empty());
    }

    // A line the author wrote differently from the canonical recipe, where regeneration must
    // rewrite the file, is a conflict: the fix is refused and says where.
    void aConflictingRegenerationIsRefused()
    {
        test::TestRepository dir;
        dir.copyFrom(fixture("seed001-target"));
        const QString file = "pytorch-python313-cuda13_0-sm90-avx2.nix";
        const QString path = dir.root() + "/.flox/pkgs/" + file;
        QByteArray own = readFile(path);
        own.replace("\"-DCMAKE_CUDA_FLAGS=-I/build/cccl-compat\"",
                    "\"-DCMAKE_CUDA_FLAGS=-I/opt/cccl -lineinfo\"");
        writeFile(path, own);
        QByteArray original;
        const ChangeSet changes =
            planFix(dir, file, "      (final: prev: { cudaPackages = final.cudaPackages_13; })\n",
                    "", &original);
        QVERIFY(changes.operations.empty());
        QCOMPARE(changes.skipped.size(), size_t(1));
        const std::string& why = changes.skipped.front().why;
        QVERIFY2(why.find("conflicts") != std::string::npos, why.c_str());
        QVERIFY2(why.find("-I/opt/cccl -lineinfo") != std::string::npos, why.c_str());
        QVERIFY2(why.find("-I/build/cccl-compat") != std::string::npos, why.c_str());
    }

    // A wrong value beside the conflict is still written in place; the recipe then still
    // lacks its overlay, so it is not offered, and the reason says why it was not regenerated.
    void aValueFixBesideAConflictSaysWhyItWasNotRegenerated()
    {
        test::TestRepository dir;
        dir.copyFrom(fixture("seed001-target"));
        const QString file = "pytorch-python313-cuda13_0-sm90-avx2.nix";
        const QString path = dir.root() + "/.flox/pkgs/" + file;
        QByteArray own = readFile(path);
        own.replace("\"-DCMAKE_CUDA_FLAGS=-I/build/cccl-compat\"",
                    "\"-DCMAKE_CUDA_FLAGS=-I/opt/cccl -lineinfo\"");
        own.replace("gpuArchSM = \"9.0\";", "gpuArchSM = \"8.6\";");
        writeFile(path, own);
        QByteArray original;
        const ChangeSet changes =
            planFix(dir, file, "      (final: prev: { cudaPackages = final.cudaPackages_13; })\n",
                    "", &original);
        QVERIFY(changes.operations.empty());
        QCOMPARE(changes.skipped.size(), size_t(1));
        const std::string& why = changes.skipped.front().why;
        QVERIFY2(why.find("would still be wrong (missing-overlay)") != std::string::npos &&
                     why.find("; not regenerated: ") != std::string::npos &&
                     why.find("-I/opt/cccl -lineinfo") != std::string::npos,
                 why.c_str());
    }

    // Lines the canonical recipe brings in that name another cell's hardware (its own arch
    // words are rewritten for the cell; these are not) are never written: refused, named.
    void regenerationNeverWritesAnotherCellsHardwareWords()
    {
        test::TestRepository dir;
        dir.copyFrom(fixture("seed001-target"));
        const QString canonical =
            dir.root() + "/.flox/pkgs/pytorch-python313-cuda13_0-sm120-avx512.nix";
        QByteArray text = readFile(canonical);
        QVERIFY(text.contains("      # Overlay 1: Use CUDA 13.0\n"));
        text.replace("      # Overlay 1: Use CUDA 13.0\n",
                     "      # Overlay 1: Use CUDA 13.0, first needed by the SM75 builds\n");
        writeFile(canonical, text);
        QByteArray original;
        const ChangeSet changes =
            planFix(dir, "pytorch-python313-cuda13_0-sm90-avx2.nix",
                    "      # Overlay 1: Use CUDA 13.0\n"
                    "      (final: prev: { cudaPackages = final.cudaPackages_13; })\n\n",
                    "", &original);
        QVERIFY(changes.operations.empty());
        QCOMPARE(changes.skipped.size(), size_t(1));
        const std::string& why = changes.skipped.front().why;
        QVERIFY2(why.find("another variant's hardware words") != std::string::npos &&
                     why.find("SM75") != std::string::npos,
                 why.c_str());
    }

    // The merge itself: each kind of run.
    void mergeTakesEachRunFromTheSideThatChangedIt()
    {
        const std::string ours = "# mine\n"
                                 "a = 1;\n"
                                 "own = true;\n"
                                 "pin = \"old\";\n"
                                 "z = 9;\n";
        const std::string theirs = "# canonical prose\n"
                                   "a = 1;\n"
                                   "overlay = 2;\n"
                                   "pin = \"new\";\n"
                                   "z = 9;\n";
        const uint32_t pin = static_cast<uint32_t>(ours.find("\"old\""));
        const MergedRecipe merged = RecipeMerge::merge(ours, theirs, {{pin, pin + 5}});
        QVERIFY(merged.conflicts.empty());
        // prose stays ours; `own` stays; the overlay comes in; the named pin is theirs.
        QCOMPARE(merged.text, std::string("# mine\n"
                                          "a = 1;\n"
                                          "own = true;\n"
                                          "overlay = 2;\n"
                                          "pin = \"new\";\n"
                                          "z = 9;\n"));
        const MergedRecipe unnamed = RecipeMerge::merge(ours, theirs, {});
        QVERIFY(unnamed.text.empty());
        QCOMPARE(unnamed.conflicts.size(), size_t(1));
        QCOMPARE(unnamed.conflicts.front().line, 3);
        QVERIFY(unnamed.describeConflicts().find("pin = \"old\"") != std::string::npos);
    }

    // Removal report: deleted lines and rewritten ones outside the findings are listed; a
    // changed value and a line a finding names are not.
    void removalReportListsWhatNoFindingNames()
    {
        const std::string before = "keep = 1;\n"
                                   "pin = \"aaaa\";\n"
                                   "sha = \"bbbb\";\n"
                                   "export USE_FBGEMM=0\n"
                                   "cmakeFlags = [ \"-DCXX_AVX2_FOUND=FALSE\" ];\n"
                                   "tail = 2;\n";
        const std::string after = "keep = 1;\n"
                                  "pin = \"cccc\";\n"
                                  "sha = \"dddd\";\n"
                                  "tail = 2;\n";
        const uint32_t pin = static_cast<uint32_t>(before.find("aaaa"));
        const std::vector<std::string> removed =
            RemovalReport::outsideFindings(before, after, {{pin, pin + 4}});
        QCOMPARE(removed,
                 (std::vector<std::string>{"export USE_FBGEMM=0",
                                           "cmakeFlags = [ \"-DCXX_AVX2_FOUND=FALSE\" ];"}));
        QCOMPARE(RemovalReport::summary(removed, 1),
                 std::string("also removes 2 lines: export USE_FBGEMM=0, …"));
        QVERIFY(RemovalReport::outsideFindings(before, before, {}).empty());
    }
};

QTEST_GUILESS_MAIN(TestFixPreservation)
#include "tst_fixpreservation.moc"
