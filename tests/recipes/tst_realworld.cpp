// The engine on recipe repositories written the way different people write Nix
// (tests/fixtures/realworld/*, described in tests/fixtures/README.md): every file is valid Nix,
// every file is an entry, sound recipes have no error, planted defects are found with the
// right rule and evidence, and what one group needs is never demanded of another.

#include "analysis/analyzer.h"
#include "facts/archnotation.h"
#include "nix/syntaxtree.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>
#include <map>
#include <set>
#include <sstream>

using namespace rg;

namespace {

const QString realworld = QStringLiteral(RG_FIXTURES_DIR) + QStringLiteral("/realworld");

const std::string pinCuda128 = "3e2f6c7b8a9d0e1f2a3b4c5d6e7f8091a2b3c4d5";
const std::string pinCuda130 = "6a030d535719c5190187c4cec156f335e95e3211";
const std::string pinCuda131 = "9f3c1d2b7e5a4c8d0b6e2f1a3c5d7e9b1f0a2c4e";

Analysis analyzeStyle(const QString& style)
{
    auto source = openWorkTree((realworld + "/" + style).toStdString());
    return Analyzer().analyze(*source);
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QByteArray recipeBytes(const QString& style, const QString& fileName)
{
    return readFile(realworld + "/" + style + "/.flox/pkgs/" + fileName);
}

// 1-based line of the first occurrence of `needle` in a fixture file; 0 when absent.
int lineOf(const QString& style, const QString& fileName, const QByteArray& needle)
{
    const QByteArray bytes = recipeBytes(style, fileName);
    const int at = bytes.indexOf(needle);
    return at < 0 ? 0 : int(bytes.left(at).count('\n')) + 1;
}

QStringList styles()
{
    return QDir(realworld).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
}

// The recipe files of a style: `.nix` files directly in .flox/pkgs (modules live below it).
QStringList recipeFiles(const QString& style)
{
    return QDir(realworld + "/" + style + "/.flox/pkgs")
        .entryList({QStringLiteral("*.nix")}, QDir::Files, QDir::Name);
}

const Cell* entryFor(const Analysis& analysis, const std::string& fileName)
{
    for (const Cell& entry : analysis.cells)
        if (entry.recipe && entry.recipe->fileName == fileName)
            return &entry;
    return nullptr;
}

const Finding* findingOf(const Cell& entry, std::string_view ruleId)
{
    for (const Finding& finding : entry.findings)
        if (finding.ruleId == ruleId)
            return &finding;
    return nullptr;
}

// Rule ids of the error and warning findings: what decides a cell and what a person must act on.
std::set<std::string> severeIds(const Cell& entry)
{
    std::set<std::string> ids;
    for (const Finding& finding : entry.findings)
        if (finding.severity != Severity::Info)
            ids.insert(finding.ruleId);
    return ids;
}

std::set<std::string> allIds(const Cell& entry)
{
    std::set<std::string> ids;
    for (const Finding& finding : entry.findings)
        ids.insert(finding.ruleId);
    return ids;
}

std::string joined(const std::set<std::string>& ids)
{
    std::string text;
    for (const std::string& id : ids)
        text += (text.empty() ? "" : " ") + id;
    return "{" + text + "}";
}

// Everything the analysis says, for failure messages.
std::string describe(const Analysis& analysis)
{
    std::ostringstream out;
    out << analysis.summary() << "\n";
    for (const Finding& finding : analysis.repositoryFindings)
        out << "  repository: " << finding.ruleId << ": " << finding.message << "\n";
    for (const Cell& entry : analysis.cells) {
        out << "  [" << cellStatusId(entry.status) << "] "
            << (entry.recipe ? entry.recipe->fileName : entry.variant.toString() + " (no file)")
            << "\n";
        for (const Finding& finding : entry.findings)
            out << "      " << severityId(finding.severity) << " " << finding.ruleId << " line "
                << finding.line << ": " << finding.message << "\n";
    }
    return out.str();
}

struct Expected
{
    const char* style;
    const char* file;
    CellStatus status;
    std::set<std::string> severe; // error + warning rule ids, exactly
};

// Per file: the cell status and the exact error/warning rules a correct engine reports.
const std::vector<Expected>& expectations()
{
    static const std::vector<Expected> all = {
        // (a) dotted values through bindings of any name: all sound.
        {"dotted-bindings", "pytorch-python312-cuda12_8-sm80-avx2.nix", CellStatus::Ok, {}},
        {"dotted-bindings", "pytorch-python313-cpu-avx2.nix", CellStatus::Ok, {}},
        {"dotted-bindings", "pytorch-python313-cuda12_8-sm100-avx512.nix", CellStatus::Ok, {}},
        {"dotted-bindings", "pytorch-python313-cuda12_8-sm120-avx512bf16.nix", CellStatus::Ok, {}},
        {"dotted-bindings", "pytorch-python313-cuda12_8-sm75-avx2.nix", CellStatus::Ok, {}},
        {"dotted-bindings", "pytorch-python313-cuda12_8-sm86-avx2.nix", CellStatus::Ok, {}},
        {"dotted-bindings", "pytorch-python313-cuda12_8-sm89-avx512.nix", CellStatus::Ok, {}},
        {"dotted-bindings", "pytorch-python313-cuda12_8-sm90-avx512.nix", CellStatus::Ok, {}},
        // lib.escapeShellArg / map in a shell value; a /tarball/<rev> pin.
        {"dotted-bindings", "pytorch-python313-cuda12_8-sm120-avx2.nix", CellStatus::Ok, {}},
        {"dotted-bindings", "pytorch-python313-cuda12_8-sm89-avx2.nix", CellStatus::Ok, {}},
        {"dotted-bindings", "pytorch-python313-cuda12_8-sm86-avx512.nix", CellStatus::Ok, {}},
        // (b) one "sm_121" reaching gpuTargets and TORCH_CUDA_ARCH_LIST; the siblings are sound.
        {"sm-notation", "pytorch-python313-cuda13_0-sm90-avx2.nix", CellStatus::Ok, {}},
        {"sm-notation", "pytorch-python313-cuda13_0-sm90-avx512.nix", CellStatus::Ok, {}},
        {"sm-notation", "pytorch-python313-cuda13_0-sm120-avx2.nix", CellStatus::Ok, {}},
        {"sm-notation", "pytorch-python313-cuda13_0-sm120-avx512.nix", CellStatus::Ok, {}},
        {"sm-notation", "pytorch-python313-cuda13_0-sm121-armv8_2.nix", CellStatus::Ok, {}},
        {"sm-notation",
         "pytorch-python313-cuda13_0-sm121-armv9.nix",
         CellStatus::Broken,
         {"gpu-arch-notation"}},
        // Old GPUs on AVX-only hosts with their workarounds (AVX2 dispatch off, FBGEMM,
        // MKLDNN, NNPACK and cuDNN off): all sound, none of the workarounds a finding.
        {"old-gpu", "pytorch-python312-cuda12_8-sm60-avx.nix", CellStatus::Ok, {}},
        {"old-gpu", "pytorch-python312-cuda12_8-sm61-avx.nix", CellStatus::Ok, {}},
        {"old-gpu", "pytorch-python312-cuda12_8-sm61-avx2.nix", CellStatus::Ok, {}},
        {"old-gpu", "pytorch-python312-cuda12_8-sm75-avx2.nix", CellStatus::Ok, {}},
        {"old-gpu", "pytorch-python313-cuda12_8-sm61-avx.nix", CellStatus::Ok, {}},
        // (c) careful AVX builds with -mno-, x86-64-v3 for AVX2: all sound.
        {"mno-flags", "pytorch-python312-cpu-avx.nix", CellStatus::Ok, {}},
        {"mno-flags", "pytorch-python312-cpu-avx2.nix", CellStatus::Ok, {}},
        {"mno-flags", "pytorch-python312-cuda12_8-sm75-avx.nix", CellStatus::Ok, {}},
        {"mno-flags", "pytorch-python312-cuda12_8-sm75-avx2.nix", CellStatus::Ok, {}},
        {"mno-flags", "pytorch-python312-cuda12_8-sm86-avx.nix", CellStatus::Ok, {}},
        {"mno-flags", "pytorch-python312-cuda12_8-sm86-avx2.nix", CellStatus::Ok, {}},
        // (d) flags and platform from lib/cpu-isa.nix; sm120-avx512 selects .avx2.
        {"isa-module", "pytorch-python313-cuda13_0-sm90-avx2.nix", CellStatus::Ok, {}},
        {"isa-module", "pytorch-python313-cuda13_0-sm90-avx512.nix", CellStatus::Ok, {}},
        {"isa-module", "pytorch-python313-cuda13_0-sm90-armv9.nix", CellStatus::Ok, {}},
        {"isa-module", "pytorch-python313-cuda13_0-sm100-avx512bf16.nix", CellStatus::Ok, {}},
        {"isa-module",
         "pytorch-python313-cuda13_0-sm120-avx512.nix",
         CellStatus::Broken,
         {"cpu-flags-mismatch"}},
        // (e) torchvision built against the pytorch recipe of its cell.
        // (j) every recipe calls one builder module with its values; four planted mistakes.
        {"builder", "pytorch-python312-cuda12_8-sm90-avx512.nix", CellStatus::Ok, {}},
        {"builder", "pytorch-python313-cuda12_8-sm90-avx512.nix", CellStatus::Ok, {}},
        {"builder", "pytorch-python313-cuda12_8-sm90-avx2.nix", CellStatus::Ok, {}},
        {"builder", "pytorch-python313-cuda12_8-sm89-avx2.nix", CellStatus::Ok, {}},
        {"builder", "pytorch-python313-cuda12_8-sm120-avx512.nix", CellStatus::Ok, {}},
        {"builder",
         "pytorch-python313-cuda12_8-sm86-avx2.nix",
         CellStatus::Broken,
         {"gpu-arch-mismatch"}},
        {"builder",
         "pytorch-python313-cuda12_8-sm89-avx512.nix",
         CellStatus::Broken,
         {"cpu-flags-mismatch"}},
        // The Python and CUDA package sets the builder selects from its arguments.
        {"builder",
         "pytorch-python312-cuda12_8-sm89-avx512.nix",
         CellStatus::Broken,
         {"python-version-mismatch"}},
        {"builder",
         "pytorch-python313-cuda12_9-sm120-avx512.nix",
         CellStatus::Broken,
         {"cuda-version-mismatch"}},
        // (m) cells derived from a base with callPackage's `.override` (in chains, and a
        // companion's torch passed by its base); three planted mistakes.
        {"derived", "pytorch-python313-cuda12_8-sm90-avx512.nix", CellStatus::Ok, {}},
        {"derived", "pytorch-python313-cuda12_8-sm90-avx2.nix", CellStatus::Ok, {}},
        {"derived", "pytorch-python313-cuda12_8-sm89-avx512.nix", CellStatus::Ok, {}},
        {"derived", "pytorch-python313-cuda12_8-sm86-avx2.nix", CellStatus::Ok, {}},
        {"derived", "pytorch-python312-cuda12_8-sm89-avx512.nix", CellStatus::Ok, {}},
        {"derived", "pytorch-python313-cuda12_8-sm90-armv9.nix", CellStatus::Ok, {}},
        {"derived", "torchvision-python313-cuda12_8-sm90-avx512.nix", CellStatus::Ok, {}},
        {"derived", "torchvision-python313-cuda12_8-sm90-avx2.nix", CellStatus::Ok, {}},
        // overrides the arch only: the base's avx512 flags in an avx2 cell
        {"derived",
         "pytorch-python313-cuda12_8-sm89-avx2.nix",
         CellStatus::Broken,
         {"cpu-flags-mismatch"}},
        // an ARM cell that keeps the base's x86 platforms
        {"derived",
         "pytorch-python313-cuda12_8-sm120-armv9.nix",
         CellStatus::Broken,
         {"platforms-mismatch"}},
        // overrides nothing: still the sm90 torch its base passes
        {"derived",
         "torchvision-python313-cuda12_8-sm89-avx512.nix",
         CellStatus::Broken,
         {"imported-cell-mismatch"}},
        // (l) pins in JSON (fromJSON + readFile) and niv's sources.json, overlays picked from a
        // module by name, the Python set through a `with`-bound name; three planted mistakes.
        {"json-pins", "pytorch-python313-cuda13_0-sm90-avx512.nix", CellStatus::Ok, {}},
        {"json-pins", "pytorch-python313-cuda13_0-sm120-avx512.nix", CellStatus::Ok, {}},
        {"json-pins", "pytorch-python313-cuda13_0-sm120-avx2.nix", CellStatus::Ok, {}},
        {"json-pins",
         "pytorch-python313-cuda13_0-sm89-avx2.nix",
         CellStatus::Ok,
         {"overlay-differs-from-group"}},
        {"json-pins", "pytorch-python313-cuda12_8-sm86-avx2.nix", CellStatus::Ok, {}},
        {"json-pins", "pytorch-python313-cuda12_8-sm89-avx2.nix", CellStatus::Ok, {}},
        {"json-pins", "pytorch-python313-cuda12_8-sm90-avx512.nix", CellStatus::Ok, {}},
        {"json-pins", "pytorch-python313-cuda12_8-sm90-armv9.nix", CellStatus::Ok, {}},
        {"json-pins", "pytorch-python312-cuda12_8-sm90-avx512.nix", CellStatus::Ok, {}},
        {"json-pins",
         "pytorch-python312-cuda12_8-sm89-avx2.nix",
         CellStatus::Broken,
         {"python-version-mismatch"}},
        {"json-pins",
         "pytorch-python313-cuda12_8-sm100-armv9.nix",
         CellStatus::Broken,
         {"platforms-mismatch"}},
        // (k) one pin in four notations: getFlake, fetchTree set and flake reference, a module.
        {"flake-pins", "pytorch-python313-cpu-avx2.nix", CellStatus::Ok, {}},
        {"flake-pins", "pytorch-python313-cpu-avx512.nix", CellStatus::Ok, {}},
        {"flake-pins", "pytorch-python313-cpu-avx512bf16.nix", CellStatus::Ok, {}},
        {"flake-pins", "pytorch-python313-cpu-avx512vnni.nix", CellStatus::Ok, {}},
        {"companion", "pytorch-python313-cuda12_8-sm89-avx2.nix", CellStatus::Ok, {}},
        {"companion", "pytorch-python313-cuda12_8-sm90-avx512.nix", CellStatus::Ok, {}},
        {"companion", "pytorch-python313-cuda12_8-sm120-avx512.nix", CellStatus::Ok, {}},
        {"companion", "torchvision-python313-cuda12_8-sm90-avx512.nix", CellStatus::Ok, {}},
        {"companion", "torchvision-python313-cuda12_8-sm120-avx512.nix", CellStatus::Ok, {}},
        // copied from the sm90 cell with its torch import left as it was
        {"companion",
         "torchaudio-python313-cuda12_8-sm89-avx2.nix",
         CellStatus::Broken,
         {"imported-cell-mismatch"}},
        // (f) three groups, three pins, three overlay sets; no spec.
        {"pins-per-group", "pytorch-python313-cuda12_8-sm61-avx2.nix", CellStatus::Ok, {}},
        {"pins-per-group", "pytorch-python313-cuda12_8-sm70-avx2.nix", CellStatus::Ok, {}},
        {"pins-per-group", "pytorch-python313-cuda12_8-sm70-avx512.nix", CellStatus::Ok, {}},
        {"pins-per-group", "pytorch-python313-cuda13_0-sm89-avx512.nix", CellStatus::Ok, {}},
        {"pins-per-group", "pytorch-python313-cuda13_0-sm90-avx512.nix", CellStatus::Ok, {}},
        {"pins-per-group", "pytorch-python313-cuda13_0-sm100-avx512.nix", CellStatus::Ok, {}},
        {"pins-per-group", "pytorch-python313-cuda13_0-sm120-avx512.nix", CellStatus::Ok, {}},
        {"pins-per-group", "pytorch-python313-cuda13_1-sm100-avx512.nix", CellStatus::Ok, {}},
        {"pins-per-group", "pytorch-python313-cuda13_1-sm120-avx2.nix", CellStatus::Ok, {}},
        {"pins-per-group", "pytorch-python313-cuda13_1-sm120-avx512.nix", CellStatus::Ok, {}},
        // (g) names without ISA, an ISA word, a Python and a CUDA version the catalog lacks.
        {"open-vocabulary", "pytorch-python312-cpu.nix", CellStatus::Ok, {}},
        {"open-vocabulary", "pytorch-python313-cuda12_8-sm90.nix", CellStatus::Ok, {}},
        {"open-vocabulary", "pytorch-python313-cuda12_8-sm90-avx512.nix", CellStatus::Ok, {}},
        {"open-vocabulary", "pytorch-python313-cuda12_8-sm90-neoversev2.nix", CellStatus::Ok, {}},
        {"open-vocabulary", "pytorch-python313-cuda13_2-sm120-avx512.nix", CellStatus::Ok, {}},
        {"open-vocabulary", "pytorch-python315-cpu-avx2.nix", CellStatus::Ok, {}},
        {"open-vocabulary", "pytorch-python313-darwin-mps.nix", CellStatus::Ok, {}},
        {"open-vocabulary", "pytorch-python313-cuda12_8-sm87-armv8.2.nix", CellStatus::Ok, {}},
        // (h) sm61 only ever pairs with avx/avx2; sm86 lacks avx512bf16.
        {"sparse-rows", "pytorch-python313-cuda12_8-sm61-avx.nix", CellStatus::Ok, {}},
        {"sparse-rows", "pytorch-python313-cuda12_8-sm61-avx2.nix", CellStatus::Ok, {}},
        {"sparse-rows", "pytorch-python313-cuda12_8-sm80-avx2.nix", CellStatus::Ok, {}},
        {"sparse-rows", "pytorch-python313-cuda12_8-sm80-avx512.nix", CellStatus::Ok, {}},
        {"sparse-rows", "pytorch-python313-cuda12_8-sm80-avx512bf16.nix", CellStatus::Ok, {}},
        {"sparse-rows", "pytorch-python313-cuda12_8-sm86-avx2.nix", CellStatus::Ok, {}},
        {"sparse-rows", "pytorch-python313-cuda12_8-sm86-avx512.nix", CellStatus::Ok, {}},
        {"sparse-rows", "pytorch-python313-cuda12_8-sm90-avx2.nix", CellStatus::Ok, {}},
        {"sparse-rows", "pytorch-python313-cuda12_8-sm90-avx512.nix", CellStatus::Ok, {}},
        {"sparse-rows", "pytorch-python313-cuda12_8-sm90-avx512bf16.nix", CellStatus::Ok, {}},
        // (i) warnings only: the cells stay ok.
        {"warnings-only", "pytorch-python313-cpu-avx512.nix", CellStatus::Ok, {}},
        {"warnings-only",
         "pytorch-python313-cuda12_8-sm86-avx2.nix",
         CellStatus::Ok,
         {"unpinned-nixpkgs"}},
        {"warnings-only",
         "pytorch-python313-cuda12_8-sm89-avx2.nix",
         CellStatus::Ok,
         {"unpinned-nixpkgs", "deprecated-torch-attribute"}},
        {"warnings-only",
         "pytorch-python313-cuda12_8-sm90-avx512.nix",
         CellStatus::Ok,
         {"deprecated-torch-attribute"}},
        // (j) vLLM on Pascal is below vLLM's minimum, a cell that cannot exist (as the grid
        // hatches it); on Ampere/Hopper it is fine, and pytorch runs on Pascal.
        {"vllm", "pytorch-python312-cuda12_8-sm61-avx2.nix", CellStatus::Ok, {}},
        {"vllm", "pytorch-python312-cuda12_8-sm80-avx2.nix", CellStatus::Ok, {}},
        {"vllm", "pytorch-python312-cuda12_8-sm90-avx2.nix", CellStatus::Ok, {}},
        {"vllm",
         "vllm-python312-cuda12_8-sm61-avx2.nix",
         CellStatus::Impossible,
         {"package-below-minimum-arch"}},
        {"vllm", "vllm-python312-cuda12_8-sm80-avx2.nix", CellStatus::Ok, {}},
        {"vllm", "vllm-python312-cuda12_8-sm90-avx2.nix", CellStatus::Ok, {}},
    };
    return all;
}

// Every .nix file of the realworld fixtures, modules included.
QStringList allNixFiles()
{
    QStringList files;
    QDirIterator it(realworld, {QStringLiteral("*.nix")}, QDir::Files | QDir::Hidden,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    files.sort();
    return files;
}

// The archs a fact list says reach `sink`, as integers ("86").
std::multiset<std::string> archNumbers(const RecipeFacts& facts, ArchSink sink)
{
    std::multiset<std::string> numbers;
    for (const ArchSinkFact& entry : facts.archSinks)
        if (entry.sink == sink)
            for (const std::string& n : ArchNotation::read(sink, entry.value).numbers)
                numbers.insert(n);
    return numbers;
}

} // namespace

class TestRealWorld : public QObject
{
    Q_OBJECT

private slots:
    // The fixtures are real Nix: the real parser accepts each, and so does ours.
    void everyFixtureParsesWithNix()
    {
        const QStringList files = allNixFiles();
        QVERIFY(files.size() >= 66);
        for (const QString& file : files) {
            const nix::SyntaxTree tree = nix::SyntaxTree::parse(readFile(file).toStdString());
            QVERIFY2(!tree.error(),
                     qPrintable(file + ": " + QString::fromStdString(tree.error()->message)));
        }
        const QString nix = QStandardPaths::findExecutable(QStringLiteral("nix-instantiate"));
        if (nix.isEmpty())
            QFAIL("nix-instantiate is not installed (packaging/setup.sh installs nix-bin)");
        QStringList rejected;
        for (const QString& file : files) {
            QProcess process;
            process.start(nix, {QStringLiteral("--parse"), file});
            QVERIFY2(process.waitForFinished(30000), qPrintable(file));
            if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
                rejected << file + ": " + QString::fromUtf8(process.readAllStandardError());
        }
        QVERIFY2(rejected.isEmpty(), qPrintable(rejected.join('\n')));
    }

    void fixtureShape()
    {
        QCOMPARE(styles(), (QStringList{"builder", "companion", "derived", "dotted-bindings",
                                        "flake-pins", "isa-module", "json-pins", "mno-flags",
                                        "old-gpu", "open-vocabulary", "pins-per-group",
                                        "sm-notation", "sparse-rows", "vllm", "warnings-only"}));
        int total = 0;
        for (const QString& style : styles()) {
            const QStringList files = recipeFiles(style);
            QVERIFY2(files.size() >= 4 && files.size() <= 15, qPrintable(style));
            total += int(files.size());
            // The expectation table names every recipe of the style, and nothing else.
            QStringList listed;
            for (const Expected& e : expectations())
                if (style == QLatin1String(e.style))
                    listed << QString::fromLatin1(e.file);
            listed.sort();
            QCOMPARE(listed, files);
        }
        QCOMPARE(total, int(expectations().size()));
    }

    void perFileVerdict_data()
    {
        QTest::addColumn<QString>("style");
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("severe");
        for (const Expected& e : expectations())
            QTest::newRow(qPrintable(QString::fromLatin1(e.style) + "/" + e.file))
                << QString::fromLatin1(e.style) << QString::fromLatin1(e.file)
                << static_cast<int>(e.status) << QString::fromStdString(joined(e.severe));
    }

    // Each recipe: the cell status and exactly the error/warning rules a correct engine reports.
    void perFileVerdict()
    {
        QFETCH(QString, style);
        QFETCH(QString, file);
        QFETCH(int, status);
        QFETCH(QString, severe);
        const Analysis analysis = analyzeStyle(style);
        const Cell* entry = entryFor(analysis, file.toStdString());
        QVERIFY2(entry, describe(analysis).c_str());
        const std::string context = file.toStdString() + " in\n" + describe(analysis);
        QVERIFY2(entry->status == static_cast<CellStatus>(status), context.c_str());
        QVERIFY2(joined(severeIds(*entry)) == severe.toStdString(), context.c_str());
        // A cell is broken exactly when one of its findings is an error.
        const bool anyError =
            std::any_of(entry->findings.begin(), entry->findings.end(),
                        [](const Finding& f) { return f.severity == Severity::Error; });
        QCOMPARE(anyError, entry->status == CellStatus::Broken);
        // Every finding of a recipe points into that recipe.
        for (const Finding& finding : entry->findings)
            QCOMPARE(finding.file, ".flox/pkgs/" + file.toStdString());
    }

    // None dropped: each recipe file is the recipe of exactly one entry; modules are not variants.
    void everyRecipeIsAnEntry()
    {
        for (const QString& style : styles()) {
            const Analysis analysis = analyzeStyle(style);
            const std::string context = style.toStdString() + ":\n" + describe(analysis);
            QVERIFY2(analysis.sourceError.empty(), context.c_str());
            QVERIFY2(analysis.unnamed.empty(), context.c_str());
            std::map<std::string, int> asEntry;
            for (const Cell& entry : analysis.cells)
                if (entry.recipe)
                    ++asEntry[entry.recipe->path];
            std::set<std::string> scanned(analysis.files.begin(), analysis.files.end());
            const QStringList files = recipeFiles(style);
            QCOMPARE(int(asEntry.size()), int(files.size()));
            for (const QString& file : files) {
                const std::string path = ".flox/pkgs/" + file.toStdString();
                QVERIFY2(asEntry[path] == 1, (path + "\n" + context).c_str());
                QVERIFY2(scanned.count(path), path.c_str());
            }
            for (const Finding& finding : analysis.repositoryFindings) {
                QVERIFY2(finding.ruleId != "not-a-variant-name", finding.message.c_str());
                QVERIFY2(finding.severity != Severity::Error, finding.message.c_str());
            }
            for (const std::string& path : analysis.files)
                QVERIFY2(path.find("/lib/") == std::string::npos, path.c_str());
        }
    }

    // (a) The value is what counts, not the name of the binding it travels through.
    void dottedValuesThroughAnyBinding()
    {
        const Analysis analysis = analyzeStyle(QStringLiteral("dotted-bindings"));
        struct Flow
        {
            const char* file;
            ArchSink sink;
            const char* number;
            const char* via; // binding the literal is bound to; nullptr: a composed value
                             // ("${dotted}+PTX") may name none
        };
        const Flow flows[] = {
            {"pytorch-python313-cuda12_8-sm86-avx2.nix", ArchSink::GpuTargets, "86", "gpuArchNum"},
            {"pytorch-python313-cuda12_8-sm90-avx512.nix", ArchSink::GpuTargets, "90",
             "variant.smCapability"},
            {"pytorch-python313-cuda12_8-sm89-avx512.nix", ArchSink::GpuTargets, "89", "cc"},
            {"pytorch-python313-cuda12_8-sm89-avx512.nix", ArchSink::TorchCudaArchList, "89", "cc"},
            {"pytorch-python312-cuda12_8-sm80-avx2.nix", ArchSink::GpuTargets, "80", "capability"},
            {"pytorch-python313-cuda12_8-sm120-avx512bf16.nix", ArchSink::CudaCapabilities, "120",
             "targetCapability"},
            {"pytorch-python313-cuda12_8-sm120-avx512bf16.nix", ArchSink::CmakeCudaArchitectures,
             "120", "smNumber"},
            {"pytorch-python313-cuda12_8-sm75-avx2.nix", ArchSink::GpuTargets, "75",
             "turing.capability"},
            {"pytorch-python313-cuda12_8-sm75-avx2.nix", ArchSink::TorchCudaArchList, "75",
             "turing.capability"},
            // `inherit (arch) dotted;` in a let, "${dotted}+PTX", lib.optionals, concatStringsSep
            {"pytorch-python313-cuda12_8-sm100-avx512.nix", ArchSink::GpuTargets, "100", nullptr},
            {"pytorch-python313-cuda12_8-sm100-avx512.nix", ArchSink::TorchCudaArchList, "100",
             nullptr},
        };
        for (const Flow& flow : flows) {
            const Cell* entry = entryFor(analysis, flow.file);
            QVERIFY2(entry && entry->recipe, flow.file);
            const std::string context = std::string(flow.file) + " " +
                                        std::string(archSinkName(flow.sink)) + "\n" +
                                        describe(analysis);
            QVERIFY2(archNumbers(*entry->recipe, flow.sink) ==
                         std::multiset<std::string>{flow.number},
                     context.c_str());
            if (!flow.via)
                continue;
            bool viaSeen = false;
            for (const ArchSinkFact& sink : entry->recipe->archSinks)
                if (sink.sink == flow.sink)
                    viaSeen = viaSeen || sink.via == flow.via ||
                              sink.via.ends_with(std::string(".") + flow.via) ||
                              std::string(flow.via).ends_with("." + sink.via);
            QVERIFY2(viaSeen, context.c_str());
        }
        // GitHub's /tarball/<rev> endpoint pins the same revision as /archive/<rev>.tar.gz.
        const Cell* tarball = entryFor(analysis, "pytorch-python313-cuda12_8-sm86-avx512.nix");
        QVERIFY(tarball && tarball->recipe->pins.size() == 1);
        QCOMPARE(tarball->recipe->pins.front().revision, pinCuda128);
        // Inherited meta.platforms (oldAttrs.meta.platforms or …) is not second-guessed, and a
        // CPU-only recipe may list every Linux system.
        const Cell* inherited = entryFor(analysis, "pytorch-python313-cuda12_8-sm75-avx2.nix");
        QVERIFY(inherited->recipe->platformsValue);
        QCOMPARE(inherited->recipe->platformsValue->origin, ValueOrigin::Inherited);
        const Cell* cpu = entryFor(analysis, "pytorch-python313-cpu-avx2.nix");
        QVERIFY(cpu->recipe->platformsValue);
        QCOMPARE(cpu->recipe->platformsValue->origin, ValueOrigin::Known);
        QVERIFY(allIds(*cpu).empty());
        // No finding of any severity on these sound recipes but the inferred-spec note.
        for (const Cell& entry : analysis.cells)
            if (entry.recipe)
                QVERIFY2(allIds(entry).empty(), describe(analysis).c_str());
    }

    // (b) "sm_121" is nvcc's spelling; gpuTargets and TORCH_CUDA_ARCH_LIST reject it.
    void smNotationRejectedAtItsSinks()
    {
        const QString style = QStringLiteral("sm-notation");
        const QString file = QStringLiteral("pytorch-python313-cuda13_0-sm121-armv9.nix");
        const Analysis analysis = analyzeStyle(style);
        QVERIFY(!analysis.spec.isInferred());
        const Cell* entry = entryFor(analysis, file.toStdString());
        QVERIFY(entry);
        QVERIFY(entry->expected);
        const Finding* notation = findingOf(*entry, "gpu-arch-notation");
        QVERIFY2(notation, describe(analysis).c_str());
        QCOMPARE(notation->severity, Severity::Error);
        const std::string& message = notation->message;
        const int valueLine = lineOf(style, file, "gpuArchSM = \"sm_121\"");
        const int targetsLine = lineOf(style, file, "gpuTargets = [ gpuArchSM ]");
        const int listLine = lineOf(style, file, "TORCH_CUDA_ARCH_LIST=");
        QVERIFY(valueLine > 0 && targetsLine > 0 && listLine > 0);
        for (const std::string& part :
             {std::string("\"sm_121\""), std::string("gpuArchSM"),
              "gpuTargets (line " + std::to_string(targetsLine) + ")",
              "TORCH_CUDA_ARCH_LIST (line " + std::to_string(listLine) + ")",
              "line " + std::to_string(valueLine), std::string("\"12.1\"")})
            QVERIFY2(message.find(part) != std::string::npos, (part + " in: " + message).c_str());
        QCOMPARE(int(notation->line), valueLine);
        // The range is the literal itself.
        const QByteArray bytes = recipeBytes(style, file);
        QCOMPARE(bytes.mid(notation->range.begin, notation->range.length()), QByteArray("sm_121"));
        // One written mistake is one finding, however many sinks it reaches; not also a
        // mismatch (12.1 is the right arch, wrongly spelled).
        int count = 0;
        for (const Finding& finding : entry->findings)
            count += finding.ruleId == "gpu-arch-notation" || finding.ruleId == "gpu-arch-mismatch";
        QCOMPARE(count, 1);
        // The integer sink of the sibling takes "90" and is fine.
        const Cell* cmake = entryFor(analysis, "pytorch-python313-cuda13_0-sm90-avx512.nix");
        QCOMPARE(archNumbers(*cmake->recipe, ArchSink::CmakeCudaArchitectures),
                 std::multiset<std::string>{"90"});
        QVERIFY(cmake->findings.empty());
        // Spec canonical is reported with its reason.
        QCOMPARE(analysis.groups.size(), size_t(1));
        QCOMPARE(analysis.groups[0].profile.canonical,
                 std::string("pytorch-python313-cuda13_0-sm120-avx512.nix"));
        QCOMPARE(analysis.groups[0].profile.canonicalWhy, std::string("the spec names it"));
    }

    // (c) Judged by the features the flags leave enabled.
    void mnoFlagsAreCarefulBuilds()
    {
        const Analysis analysis = analyzeStyle(QStringLiteral("mno-flags"));
        QVERIFY(!analysis.spec.isInferred());
        QCOMPARE(analysis.counts()[static_cast<size_t>(CellStatus::Ok)], 6);
        QCOMPARE(analysis.counts()[static_cast<size_t>(CellStatus::Missing)], 0);
        const std::map<std::string, std::string> sinks = {
            {"pytorch-python312-cuda12_8-sm75-avx.nix", "NIX_CFLAGS_COMPILE"},
            {"pytorch-python312-cuda12_8-sm86-avx.nix", "CXXFLAGS"},
            {"pytorch-python312-cuda12_8-sm75-avx2.nix", "NIX_CFLAGS_COMPILE"},
            {"pytorch-python312-cuda12_8-sm86-avx2.nix", "CXXFLAGS"},
            {"pytorch-python312-cpu-avx.nix", "NIX_CFLAGS_COMPILE"},
            {"pytorch-python312-cpu-avx2.nix", "CXXFLAGS"},
        };
        for (const auto& [file, sink] : sinks) {
            const Cell* entry = entryFor(analysis, file);
            QVERIFY2(entry && entry->recipe->compilerFlags, file.c_str());
            const CpuFlagsFact& flags = *entry->recipe->compilerFlags;
            QCOMPARE(flags.sink, sink);
            const bool avx = file.ends_with("-avx.nix");
            const std::vector<std::string>& written = flags.flags;
            QVERIFY2(std::find(written.begin(), written.end(),
                               avx ? "-mno-avx2" : "-march=x86-64-v3") != written.end(),
                     file.c_str());
            QVERIFY2(entry->findings.empty(), describe(analysis).c_str());
        }
    }

    // (d) The ISA table module: its flags are judged, in the recipe that selects them.
    void isaTableModule()
    {
        const Analysis analysis = analyzeStyle(QStringLiteral("isa-module"));
        const std::string context = describe(analysis);
        const std::map<std::string, std::vector<std::string>> selected = {
            {"pytorch-python313-cuda13_0-sm90-avx2.nix", {"-mavx2", "-mfma", "-mf16c"}},
            {"pytorch-python313-cuda13_0-sm90-avx512.nix",
             {"-mavx512f", "-mavx512dq", "-mavx512vl", "-mavx512bw", "-mfma"}},
            {"pytorch-python313-cuda13_0-sm100-avx512bf16.nix",
             {"-mavx512f", "-mavx512dq", "-mavx512vl", "-mavx512bw", "-mavx512bf16", "-mfma"}},
            {"pytorch-python313-cuda13_0-sm90-armv9.nix", {"-march=armv9-a+sve2"}},
            {"pytorch-python313-cuda13_0-sm120-avx512.nix", {"-mavx2", "-mfma", "-mf16c"}},
        };
        for (const auto& [file, flags] : selected) {
            const Cell* entry = entryFor(analysis, file);
            QVERIFY2(entry, file.c_str());
            QVERIFY2(entry->recipe->compilerFlags, (file + "\n" + context).c_str());
            QVERIFY2(entry->recipe->compilerFlags->flags == flags, file.c_str());
            QVERIFY2(entry->recipe->platformsValue &&
                         entry->recipe->platformsValue->origin == ValueOrigin::Known,
                     file.c_str());
            const std::string platform =
                file.find("armv9") != std::string::npos ? "aarch64-linux" : "x86_64-linux";
            QVERIFY2(entry->recipe->platformsValue->platforms == std::vector<std::string>{platform},
                     file.c_str());
        }
        const Cell* wrong = entryFor(analysis, "pytorch-python313-cuda13_0-sm120-avx512.nix");
        const Finding* mismatch = findingOf(*wrong, "cpu-flags-mismatch");
        QVERIFY2(mismatch, context.c_str());
        QCOMPARE(mismatch->file,
                 std::string(".flox/pkgs/pytorch-python313-cuda13_0-sm120-avx512.nix"));
        QVERIFY2(mismatch->message.find("avx512f") != std::string::npos, mismatch->message.c_str());
        // The flags are the module's: the message says where they are written.
        QVERIFY2(mismatch->message.find("lib/cpu-isa.nix") != std::string::npos,
                 mismatch->message.c_str());
        // The module is read, and is not a variant.
        QVERIFY2(std::find(analysis.modules.begin(), analysis.modules.end(),
                           ".flox/pkgs/lib/cpu-isa.nix") != analysis.modules.end(),
                 context.c_str());
        for (const Cell& entry : analysis.cells)
            QVERIFY(!entry.recipe || entry.recipe->fileName != "cpu-isa.nix");
    }

    // (e) torchvision over the pytorch recipe of its cell: its own package, not a duplicate.
    void companionIsItsOwnPackage()
    {
        const Analysis analysis = analyzeStyle(QStringLiteral("companion"));
        const std::string context = describe(analysis);
        for (const Cell& entry : analysis.cells) {
            QVERIFY2(!findingOf(entry, "duplicate-variant"), context.c_str());
            QVERIFY2(entry.status != CellStatus::Redundant, context.c_str());
        }
        for (const char* cell : {"sm90-avx512", "sm120-avx512"}) {
            const std::string tail = std::string("-python313-cuda12_8-") + cell + ".nix";
            const Cell* torch = entryFor(analysis, "pytorch" + tail);
            const Cell* vision = entryFor(analysis, "torchvision" + tail);
            QVERIFY2(torch && vision, context.c_str());
            QCOMPARE(torch->package, std::string("pytorch"));
            QCOMPARE(vision->package, std::string("torchvision"));
            QVERIFY(torch->id != vision->id);
            QCOMPARE(torch->variant.cellKey(), vision->variant.cellKey()); // same matrix point
            QVERIFY2(vision->recipe->wrappedFile, context.c_str());
            QCOMPARE(vision->recipe->wrappedFile->value, "./pytorch" + tail);
        }
        // Separate groups per package.
        std::set<std::string> labels;
        for (const RecipeGroup& group : analysis.groups)
            labels.insert(group.profile.label.substr(0, group.profile.label.find(' ')));
        QCOMPARE(labels, (std::set<std::string>{"pytorch", "torchaudio", "torchvision"}));
    }

    // (f) Pins and overlays per group: nothing from one group is demanded of another.
    void pinsAndOverlaysPerGroup()
    {
        const Analysis analysis = analyzeStyle(QStringLiteral("pins-per-group"));
        const std::string context = describe(analysis);
        QVERIFY(analysis.spec.isInferred());
        struct Group
        {
            const char* cuda;
            std::string pin;
            std::vector<OverlayKind> overlays;
            const char* canonical;
            int members;
        };
        const Group expected[] = {
            {"CUDA 12.8", pinCuda128, {}, "pytorch-python313-cuda12_8-sm61-avx2.nix", 3},
            {"CUDA 13.0",
             pinCuda130,
             {OverlayKind::CudaPackageSet, OverlayKind::MagmaPatch, OverlayKind::TorchUpgrade},
             "pytorch-python313-cuda13_0-sm100-avx512.nix",
             4}, // the sm89 recipe keeps its overlays in named bindings and appendOverlays
            {"CUDA 13.1",
             pinCuda131,
             {OverlayKind::CudaPackageSet},
             "pytorch-python313-cuda13_1-sm100-avx512.nix",
             3},
        };
        QCOMPARE(analysis.groups.size(), size_t(3));
        for (const Group& g : expected) {
            const RecipeGroup* found = nullptr;
            for (const RecipeGroup& group : analysis.groups)
                if (group.profile.label.find(g.cuda) != std::string::npos)
                    found = &group;
            QVERIFY2(found, (std::string(g.cuda) + "\n" + context).c_str());
            const GroupProfile& profile = found->profile;
            QCOMPARE(profile.pin, g.pin);
            QCOMPARE(profile.dominantPin, g.pin);
            QCOMPARE(profile.members, g.members);
            QCOMPARE(int(found->files.size()), g.members);
            QVERIFY(profile.overlays == g.overlays);
            QCOMPARE(profile.overlaysCount, g.members);
            QCOMPARE(profile.canonical, std::string(g.canonical));
            // The reason names the overlay set's share and how the file was chosen.
            const std::string share =
                std::to_string(g.members) + " of " + std::to_string(g.members);
            QVERIFY2(profile.canonicalWhy.find(share) != std::string::npos,
                     profile.canonicalWhy.c_str());
            QVERIFY2(profile.canonicalWhy.find("first by name") != std::string::npos,
                     profile.canonicalWhy.c_str());
        }
        for (const Cell& entry : analysis.cells) {
            for (const char* rule :
                 {"pin-differs-from-group", "overlay-differs-from-group", "missing-overlay",
                  "pin-mismatch", "cuda-below-minimum", "impossible-pairing", "missing-variant"})
                QVERIFY2(!findingOf(entry, rule), (std::string(rule) + "\n" + context).c_str());
            if (entry.status == CellStatus::Gap) {
                QCOMPARE(entry.findings.size(), size_t(1));
                QCOMPARE(entry.findings[0].severity, Severity::Info);
                // A suggested cell never pairs an arch with a CUDA version that cannot target it.
                QVERIFY2(!(entry.variant.cuda != "12.8" &&
                           (entry.variant.gpuArch == "sm61" || entry.variant.gpuArch == "sm70")),
                         context.c_str());
            }
        }
    }

    // (g) Open vocabulary: placed, checked, never deleted for the name alone.
    void openVocabularyIsPlaced()
    {
        const Analysis analysis = analyzeStyle(QStringLiteral("open-vocabulary"));
        const std::string context = describe(analysis);
        const std::map<std::string, std::string> unknownWord = {
            {"pytorch-python313-cuda12_8-sm90-neoversev2.nix", "neoversev2"},
            {"pytorch-python315-cpu-avx2.nix", "315"},
            {"pytorch-python313-cuda13_2-sm120-avx512.nix", "13.2"},
        };
        for (const Cell& entry : analysis.cells) {
            if (!entry.recipe)
                continue;
            for (const Finding& finding : entry.findings)
                QVERIFY2(finding.fix != FixKind::Delete, context.c_str());
            const auto it = unknownWord.find(entry.recipe->fileName);
            const Finding* unknown = findingOf(entry, "unknown-to-catalog");
            if (it == unknownWord.end()) {
                QVERIFY2(!unknown, context.c_str());
                continue;
            }
            QVERIFY2(unknown, context.c_str());
            QCOMPARE(unknown->severity, Severity::Info);
            QVERIFY2(unknown->message.find(it->second) != std::string::npos,
                     unknown->message.c_str());
        }
        // A legacy ISA spelling is a rename (info), never a deletion.
        const Cell* orin = entryFor(analysis, "pytorch-python313-cuda12_8-sm87-armv8.2.nix");
        QVERIFY(orin);
        QCOMPARE(orin->variant.isa, std::string("armv8_2"));
        const Finding* naming = findingOf(*orin, "naming");
        QVERIFY2(naming, context.c_str());
        QCOMPARE(naming->severity, Severity::Info);
        QCOMPARE(naming->fix, FixKind::Rename);
        const Cell* mps = entryFor(analysis, "pytorch-python313-darwin-mps.nix");
        QVERIFY(mps);
        QCOMPARE(mps->variant.accelerator, Accelerator::Darwin);
        QVERIFY2(mps->findings.empty(), context.c_str());
        const Cell* generic = entryFor(analysis, "pytorch-python313-cuda12_8-sm90.nix");
        QVERIFY(generic);
        QVERIFY(generic->variant.isa.empty());
        QCOMPARE(generic->variant.gpuArch, std::string("sm90"));
        QCOMPARE(archNumbers(*generic->recipe, ArchSink::GpuTargets),
                 std::multiset<std::string>{"90"});
        const Cell* cpu = entryFor(analysis, "pytorch-python312-cpu.nix");
        QVERIFY(cpu);
        QVERIFY(cpu->variant.isa.empty());
        QCOMPARE(cpu->variant.accelerator, Accelerator::Cpu);
        const Cell* grace = entryFor(analysis, "pytorch-python313-cuda12_8-sm90-neoversev2.nix");
        QCOMPARE(grace->variant.isa, std::string("neoversev2"));
        QVERIFY(grace->id != generic->id);
        // The unknown CUDA version is still checked: its arch reaches gpuTargets as 12.0.
        const Cell* cuda132 = entryFor(analysis, "pytorch-python313-cuda13_2-sm120-avx512.nix");
        QCOMPARE(cuda132->variant.cuda, std::string("13.2"));
        QCOMPARE(archNumbers(*cuda132->recipe, ArchSink::GpuTargets),
                 std::multiset<std::string>{"120"});
    }

    // (h) A hole in a full row is a gap; an arch the author only pairs with avx/avx2 is not.
    void gapsOnlyWhereTheRowsSuggestThem()
    {
        const Analysis analysis = analyzeStyle(QStringLiteral("sparse-rows"));
        const std::string context = describe(analysis);
        QVERIFY(analysis.spec.isInferred());
        std::vector<std::string> gaps;
        for (const Cell& entry : analysis.cells) {
            if (entry.status == CellStatus::Gap) {
                gaps.push_back(entry.variant.toString());
                QVERIFY(!entry.recipe);
                QCOMPARE(entry.findings.size(), size_t(1));
                QCOMPARE(entry.findings[0].ruleId, std::string("gap"));
                QCOMPARE(entry.findings[0].severity, Severity::Info);
                QCOMPARE(entry.findings[0].fix, FixKind::Create);
            }
            QVERIFY2(entry.status != CellStatus::Missing, context.c_str());
        }
        QVERIFY2(gaps == std::vector<std::string>{"pytorch-python313-cuda12_8-sm86-avx512bf16"},
                 context.c_str());
        QVERIFY(
            !analysis.spec.expects(*VariantName::parse("pytorch-python313-cuda12_8-sm61-avx512")));
        QVERIFY(analysis.spec.expects(*VariantName::parse("pytorch-python313-cuda12_8-sm61-avx")));
    }

    // (i) Warnings are shown on cells that stay ok.
    void warningsKeepCellsOk()
    {
        const QString style = QStringLiteral("warnings-only");
        const Analysis analysis = analyzeStyle(style);
        const std::string context = describe(analysis);
        QCOMPARE(analysis.counts()[static_cast<size_t>(CellStatus::Ok)], 4);
        const QString file = QStringLiteral("pytorch-python313-cuda12_8-sm86-avx2.nix");
        const Cell* unpinned = entryFor(analysis, file.toStdString());
        const Finding* search = findingOf(*unpinned, "unpinned-nixpkgs");
        QVERIFY2(search, context.c_str());
        QCOMPARE(search->severity, Severity::Warning);
        QCOMPARE(int(search->line), lineOf(style, file, "import <nixpkgs>"));
        QVERIFY(search->message.find("<nixpkgs>") != std::string::npos);
        const Cell* old = entryFor(analysis, "pytorch-python313-cuda12_8-sm90-avx512.nix");
        const Finding* pytorch = findingOf(*old, "deprecated-torch-attribute");
        QVERIFY2(pytorch, context.c_str());
        QCOMPARE(pytorch->severity, Severity::Warning);
        QVERIFY(old->reason.find("deprecated") != std::string::npos);
    }

    // (j) vLLM needs compute capability 7.0; the pytorch recipe of the same cell is fine.
    void vllmBelowItsMinimumArch()
    {
        const Analysis analysis = analyzeStyle(QStringLiteral("vllm"));
        const std::string context = describe(analysis);
        const Cell* old = entryFor(analysis, "vllm-python312-cuda12_8-sm61-avx2.nix");
        QVERIFY(old);
        QCOMPARE(old->package, std::string("vllm"));
        const Finding* below = findingOf(*old, "package-below-minimum-arch");
        QVERIFY2(below, context.c_str());
        QCOMPARE(below->severity, Severity::Warning);
        QVERIFY2(below->message.find("7.0") != std::string::npos, below->message.c_str());
        QVERIFY2(below->message.find("sm61") != std::string::npos, below->message.c_str());
        QVERIFY(!findingOf(*entryFor(analysis, "pytorch-python312-cuda12_8-sm61-avx2.nix"),
                           "package-below-minimum-arch"));
        QVERIFY(entryFor(analysis, "vllm-python312-cuda12_8-sm80-avx2.nix")->findings.empty());
        // vLLM's capability reaches nixpkgs' cudaCapabilities and TORCH_CUDA_ARCH_LIST.
        const Cell* ampere = entryFor(analysis, "vllm-python312-cuda12_8-sm80-avx2.nix");
        QCOMPARE(archNumbers(*ampere->recipe, ArchSink::CudaCapabilities),
                 std::multiset<std::string>{"80"});
        QCOMPARE(archNumbers(*ampere->recipe, ArchSink::TorchCudaArchList),
                 std::multiset<std::string>{"80"});
    }
};

QTEST_GUILESS_MAIN(TestRealWorld)
#include "tst_realworld.moc"
