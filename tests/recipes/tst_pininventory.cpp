// PinInventory: the pins of seed000 and seed000-vllm as analysed, and of hand-written recipes
// that carry each mark (differs from the spec, from the group, abbreviated, no hash), plus the
// legend and cell lookup "colour the grid by pin" uses.

#include "analysis/analyzer.h"
#include "pins/pininventory.h"
#include "testrepository.h"

#include <QTest>

using namespace rg;
using rg::test::TestRepository;

namespace {

const std::string oldPin = "6a030d535719c5190187c4cec156f335e95e3211";
const std::string newPin = "0182a361324364ae3f436a63005877674cf45efb";
const std::string thirdPin = "3e2f6c7b8a9d0e1f2a3b4c5d6e7f8091a2b3c4d5";

PinInventory inventoryOf(const QString& root, Analysis* analysisOut = nullptr)
{
    const Analysis analysis = Analyzer().analyze(*openWorkTree(root.toStdString()));
    if (analysisOut)
        *analysisOut = analysis;
    return PinInventory::of(analysis);
}

const PinGroup* groupOf(const PinInventory& inventory, const std::string& package,
                        const std::string& accelerator)
{
    for (const PinGroup& group : inventory.groups())
        if (group.package == package && group.accelerator == accelerator)
            return &group;
    return nullptr;
}

// A CPU-only recipe pinned through fetchTarball, with or without a hash, the pin as written.
QByteArray cpuRecipe(const std::string& name, const std::string& revision, bool hash)
{
    const std::string fetch =
        hash ? "builtins.fetchTarball {\n    url = \"https://github.com/NixOS/nixpkgs/archive/" +
                   revision + ".tar.gz\";\n    sha256 = \"" + std::string(52, '1') + "\";\n  }"
             : "builtins.fetchTarball \"https://github.com/NixOS/nixpkgs/archive/" + revision +
                   ".tar.gz\"";
    return QByteArray::fromStdString(
        "let\n  nixpkgs_pinned = import (" + fetch +
        ") { config.allowUnfree = true; };\n"
        "  inherit (nixpkgs_pinned) lib;\n"
        "in\n(nixpkgs_pinned.python3Packages.torch.override {\n  cudaSupport = false;\n"
        "}).overrideAttrs (oldAttrs: {\n  pname = \"" +
        name +
        "\";\n"
        "  preConfigure = ''\n    export USE_CUDA=0\n  '';\n"
        "  meta = oldAttrs.meta // { platforms = [ \"x86_64-linux\" ]; };\n})\n");
}

} // namespace

class TestPinInventory : public QObject
{
    Q_OBJECT

private slots:
    void seed000OnePinPerAcceleratorDifferingFromTheSpec();
    void seed000VllmTwoPackages();
    void marks();
    void legendAndCells();
    void emptyRepository();
};

void TestPinInventory::seed000OnePinPerAcceleratorDifferingFromTheSpec()
{
    const PinInventory inventory = inventoryOf(QStringLiteral(RG_FIXTURES_DIR "/seed000"));
    QCOMPARE(inventory.groups().size(), size_t(3));
    const std::vector<std::tuple<std::string, std::string, int>> expected = {
        {"CPU-only", "cpu", 6}, {"CUDA 12.9", "cuda12.9", 59}, {"Darwin", "darwin", 1}};
    for (size_t i = 0; i < expected.size(); ++i) {
        const auto& [label, id, count] = expected[i];
        const PinGroup& group = inventory.groups()[i];
        QCOMPARE(group.package, std::string("pytorch"));
        QCOMPARE(group.accelerator, label);
        QCOMPARE(group.acceleratorId, id);
        QCOMPARE(group.specPin, newPin);
        QCOMPARE(group.dominantPin, oldPin);
        QCOMPARE(group.pins.size(), size_t(1));
        const PinEntry& pin = group.pins.front();
        QCOMPARE(pin.revision, oldPin);
        QCOMPARE(pin.shortForm, std::string("6a030d5"));
        QCOMPARE(pin.count, count);
        QCOMPARE(int(pin.recipes.size()), count);
        QVERIFY(pin.differsFromSpec);
        QVERIFY(!pin.differsFromGroup);
        QVERIFY(!pin.notFullRevision);
        QCOMPARE(pin.withoutHash, 0);
        for (const PinUse& use : pin.recipes) {
            QCOMPARE(use.line, 6); // the url line of every seed000 recipe
            QVERIFY(use.hasHash);
            QCOMPARE(".flox/pkgs/" + use.variant + ".nix", use.path);
        }
    }
    QCOMPARE(inventory.legend().size(), size_t(1));
    QCOMPARE(inventory.legend().front().count, 66);
    QCOMPARE(inventory.recipeCount(oldPin), 66);
    QCOMPARE(inventory.recipesOn(oldPin).size(), size_t(66));
    QCOMPARE(inventory.revisions(), std::vector<std::string>{oldPin});
}

void TestPinInventory::seed000VllmTwoPackages()
{
    const PinInventory inventory = inventoryOf(QStringLiteral(RG_FIXTURES_DIR "/seed000-vllm"));
    QCOMPARE(inventory.groups().size(), size_t(2));
    QVERIFY(groupOf(inventory, "pytorch", "CUDA 12.9"));
    QVERIFY(groupOf(inventory, "vllm", "CUDA 12.9"));
    for (const PinGroup& group : inventory.groups()) {
        QVERIFY(group.specPin.empty()); // no spec: nothing to differ from
        QCOMPARE(group.pins.size(), size_t(1));
        QCOMPARE(group.pins.front().revision, newPin);
        QCOMPARE(group.pins.front().count, 4);
        QVERIFY(!group.pins.front().differsFromSpec);
    }
    QCOMPARE(inventory.pinOfCell("vllm:python312-cuda12_9-sm80-avx512"), newPin);
}

void TestPinInventory::marks()
{
    TestRepository repo;
    repo.writeRecipe("pytorch-python313-cpu-avx2.nix",
                     cpuRecipe("pytorch-python313-cpu-avx2", oldPin, true));
    repo.writeRecipe("pytorch-python313-cpu-avx512.nix",
                     cpuRecipe("pytorch-python313-cpu-avx512", oldPin, true));
    repo.writeRecipe("pytorch-python313-cpu-avx512bf16.nix",
                     cpuRecipe("pytorch-python313-cpu-avx512bf16", oldPin, false));
    repo.writeRecipe("pytorch-python313-cpu-avx512vnni.nix",
                     cpuRecipe("pytorch-python313-cpu-avx512vnni", "6a030d5", true));
    repo.writeRecipe("pytorch-python313-cpu-armv9.nix",
                     cpuRecipe("pytorch-python313-cpu-armv9", thirdPin, true));
    const PinInventory inventory = inventoryOf(repo.root());
    const PinGroup* cpu = groupOf(inventory, "pytorch", "CPU-only");
    QVERIFY(cpu);
    QVERIFY(cpu->specPin.empty());
    QCOMPARE(cpu->dominantPin, oldPin);
    QCOMPARE(cpu->pins.size(), size_t(3));
    const PinEntry& dominant = cpu->pins[0];
    QCOMPARE(dominant.revision, oldPin);
    QCOMPARE(dominant.count, 3);
    QCOMPARE(dominant.withoutHash, 1);
    QVERIFY(!dominant.differsFromGroup);
    // Ties break by revision: "3e2f6c7…" before "6a030d5".
    QCOMPARE(cpu->pins[1].revision, thirdPin);
    QVERIFY(cpu->pins[1].differsFromGroup);
    QVERIFY(!cpu->pins[1].notFullRevision);
    QCOMPARE(cpu->pins[2].revision, std::string("6a030d5"));
    QVERIFY(cpu->pins[2].notFullRevision);
    QVERIFY(cpu->pins[2].differsFromGroup);
    QCOMPARE(cpu->pins[2].withoutHash, 0);
    QCOMPARE(cpu->pins[2].recipes.front().variant, std::string("pytorch-python313-cpu-avx512vnni"));

    // With a spec naming the third pin for CPU-only, every other pin differs from it.
    repo.write(".flox/recipegrid.json",
               QByteArray::fromStdString(
                   R"({"schema":1,"pins":{"cpu":")" + thirdPin +
                   R"("},"matrix":[{"python":["3.13"],"accelerator":"cpu","isas":["avx2"]}]})"));
    const PinInventory withSpec = inventoryOf(repo.root());
    const PinGroup* specCpu = groupOf(withSpec, "pytorch", "CPU-only");
    QVERIFY(specCpu);
    QCOMPARE(specCpu->specPin, thirdPin);
    for (const PinEntry& pin : specCpu->pins)
        QCOMPARE(pin.differsFromSpec, pin.revision != thirdPin);
}

void TestPinInventory::legendAndCells()
{
    TestRepository repo;
    repo.copyFrom(QStringLiteral(RG_FIXTURES_DIR "/seed000"));
    repo.writeRecipe("pytorch-python313-cpu-avx2.nix",
                     cpuRecipe("pytorch-python313-cpu-avx2", newPin, true));
    repo.writeRecipe("pytorch-python313-cpu-avx512.nix",
                     cpuRecipe("pytorch-python313-cpu-avx512", thirdPin, true));
    Analysis analysis;
    const PinInventory inventory = inventoryOf(repo.root(), &analysis);
    QCOMPARE(inventory.legend().size(), size_t(3));
    QCOMPARE(inventory.legend()[0].revision, oldPin);
    QCOMPARE(inventory.legend()[0].count, 64);
    QCOMPARE(inventory.legend()[1].revision, newPin); // 1 each: by revision
    QCOMPARE(inventory.legend()[2].revision, thirdPin);
    QCOMPARE(inventory.legend()[2].shortForm, std::string("3e2f6c7"));
    QCOMPARE(inventory.legendIndexOfCell("pytorch:python313-cpu-avx2"), 1);
    QCOMPARE(inventory.legendIndexOfCell("pytorch:python313-cpu-avx512"), 2);
    QCOMPARE(inventory.legendIndexOfCell("pytorch:python313-cuda12_9-sm90-avx512"), 0);
    QCOMPARE(inventory.pinOfCell("pytorch:python313-darwin-mps"), oldPin);
    QCOMPARE(inventory.legendIndexOfCell("pytorch:python313-cpu-nothing"), -1);
    QCOMPARE(inventory.pinOfCell("pytorch:python313-cpu-nothing"), std::string());
    // Every cell of the analysis that has a recipe has a colour.
    for (const Cell& entry : analysis.cells)
        QCOMPARE(inventory.legendIndexOfCell(entry.id.toKey()) >= 0, entry.recipe != nullptr);
    QCOMPARE(inventory.recipesOn(newPin).size(), size_t(1));
    QCOMPARE(inventory.recipesOn(newPin).front().cellKey,
             std::string("pytorch:python313-cpu-avx2"));
}

void TestPinInventory::emptyRepository()
{
    TestRepository repo;
    repo.write(".flox/pkgs/README", "no recipes\n");
    const PinInventory inventory = inventoryOf(repo.root());
    QVERIFY(inventory.groups().empty());
    QVERIFY(inventory.legend().empty());
    QCOMPARE(inventory.recipeCount(oldPin), 0);
}

QTEST_GUILESS_MAIN(TestPinInventory)
#include "tst_pininventory.moc"
