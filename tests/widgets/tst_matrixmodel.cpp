// MatrixModel and MatrixSlice: hand-made analyses for the edge cases, real analyses of the
// seed fixture repositories for the shape, always under QAbstractItemModelTester.

#include "analysis/analyzer.h"
#include "analysis/matrixslice.h"
#include "itemmodels/matrixmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace rg;

namespace {

Cell entry(const char* name, CellStatus status, bool expected, bool present,
           const char* reason = "")
{
    Cell e;
    e.variant = *VariantName::parse(name);
    e.id = CellId::of(e.variant);
    e.status = status;
    e.expected = expected;
    e.reason = reason;
    if (present) {
        auto facts = std::make_shared<RecipeFacts>();
        facts->fileName = std::string(name) + ".nix";
        facts->path = ".flox/pkgs/" + facts->fileName;
        facts->variant = e.variant;
        e.recipe = facts;
    }
    return e;
}

std::shared_ptr<const Analysis> handMade()
{
    auto analysis = std::make_shared<Analysis>();
    auto& e = analysis->cells;
    e.push_back(entry("pytorch-python313-cuda13_0-sm120-avx512", CellStatus::Ok, true, true));
    e.push_back(entry("pytorch-python313-cuda13_0-sm90-avx512", CellStatus::Broken, true, true,
                      "pin differs"));
    e.push_back(entry("pytorch-python313-cuda13_0-sm90-avx2", CellStatus::Missing, true, false));
    e.push_back(entry("pytorch-python313-cuda13_0-sm120-avx512-magma", CellStatus::Redundant, false,
                      true, "non-standard suffix"));
    e.push_back(entry("pytorch-python313-cuda12_9-sm90-avx512", CellStatus::Ok, true, true));
    e.push_back(entry("pytorch-python313-cuda13_0-sm121-avx512", CellStatus::Impossible, false,
                      true, "ARM SoC with an x86 ISA"));
    e.push_back(entry("pytorch-python313-cpu-avx2", CellStatus::Unexpected, false, true));
    e.push_back(entry("pytorch-python312-cpu-avx2", CellStatus::Ok, true, true));
    e.push_back(entry("pytorch-python313-darwin-mps", CellStatus::Ok, true, true));
    return analysis;
}

Finding finding(const char* rule, Severity severity)
{
    Finding f;
    f.ruleId = rule;
    f.severity = severity;
    f.message = std::string(rule) + " here";
    return f;
}

// handMade() with findings: the ok sm120-avx512 has two warnings and a note; the unexpected
// CPU recipe and the impossible sm121 recipe carry their status' own warning, the latter
// one more; the missing sm90-avx2 has its missing-variant warning.
std::shared_ptr<const Analysis> withWarnings()
{
    auto analysis = std::make_shared<Analysis>(*handMade());
    auto& e = analysis->cells;
    e[0].findings = {finding("deprecated-torch-attribute", Severity::Warning),
                     finding("unpinned-nixpkgs", Severity::Warning),
                     finding("pname-prefix", Severity::Info)};
    e[0].reason = "deprecated pytorch attribute; unpinned <nixpkgs>; pname prefix";
    e[2].findings = {finding("missing-variant", Severity::Warning)};
    e[5].findings = {finding("impossible-pairing", Severity::Warning),
                     finding("unpinned-nixpkgs", Severity::Warning)};
    e[6].findings = {finding("unexpected-variant", Severity::Warning)};
    e[6].reason = "not in the spec";
    return analysis;
}

int statusAt(const MatrixModel&, const QModelIndex& index, int slice = 0)
{
    return index.data(MatrixModel::StatusesRole).toList().value(slice, -99).toInt();
}

QModelIndex cell(const MatrixModel& model, const std::string& row, const std::string& column)
{
    for (int r = 0; r < model.rowCount(); ++r)
        for (int c = 0; c < model.columnCount(); ++c)
            if (model.rowId(r) == row && model.columnId(c) == column)
                return model.index(r, c);
    return {};
}

std::shared_ptr<const Analysis> analyse(const QString& fixture)
{
    auto source = openWorkTree((QStringLiteral(RG_FIXTURES_DIR "/") + fixture).toStdString());
    return std::make_shared<Analysis>(Analyzer().analyze(*source));
}

const MatrixSlice cuda13{"313", "13.0", {}};
const MatrixSlice cuda129{"313", "12.9", {}};

// handMade() and one more cell, for CUDA 13.0, under the item-model tester.
struct ModelWith
{
    explicit ModelWith(Cell extra)
    {
        auto analysis = std::make_shared<Analysis>(*handMade());
        analysis->cells.push_back(std::move(extra));
        model->setSlices({cuda13});
        model->setAnalysis(analysis);
    }
    std::unique_ptr<MatrixModel> model = std::make_unique<MatrixModel>();
    QAbstractItemModelTester tester{model.get(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest};
};

} // namespace

class TestMatrixModel : public QObject
{
    Q_OBJECT
private slots:
    void slicesNewestFirst()
    {
        const auto analysis = handMade();
        const auto slices = MatrixSlice::slicesOf(*analysis);
        // 3.13 has CUDA entries (13.0, 12.9); 3.12 only a CPU recipe, so a slice without CUDA.
        QCOMPARE(slices.size(), size_t(3));
        QCOMPARE(slices[0], cuda13);
        QCOMPARE(slices[1], cuda129);
        QCOMPARE(slices[2], (MatrixSlice{"312", "", {}}));
        QCOMPARE(MatrixSlice::busiest(*analysis), std::optional<MatrixSlice>(cuda13));
        QCOMPARE(QString::fromStdString(slices[0].label()),
                 QStringLiteral("Python 3.13 \u00b7 CUDA 13.0"));
        QCOMPARE(MatrixSlice::fromKey(slices[1].key()), std::optional<MatrixSlice>(cuda129));
        QVERIFY(!MatrixSlice::fromKey("nonsense"));
    }

    void severalPackagesGetTheirOwnSlices()
    {
        auto analysis = std::make_shared<Analysis>(*handMade());
        analysis->cells.push_back(
            entry("torchvision-python313-cuda13_0-sm120-avx512", CellStatus::Broken, true, true));
        const auto slices = MatrixSlice::slicesOf(*analysis);
        QCOMPARE(slices.front().package, std::string("pytorch"));
        const MatrixSlice vision{"313", "13.0", "torchvision"};
        QVERIFY(std::find(slices.begin(), slices.end(), vision) != slices.end());
        QCOMPARE(QString::fromStdString(vision.label()),
                 QStringLiteral("torchvision \u00b7 Python 3.13 \u00b7 CUDA 13.0"));
        QCOMPARE(MatrixSlice::fromKey(vision.key()), std::optional<MatrixSlice>(vision));
        MatrixModel model;
        model.setSlices({MatrixSlice{"313", "13.0", "pytorch"}, vision});
        model.setAnalysis(analysis);
        const QModelIndex index = cell(model, "sm120", "avx512");
        // One chip per package slice, not the other package's recipe as an extra.
        const QVariantList statuses = index.data(MatrixModel::StatusesRole).toList();
        QCOMPARE(statuses.size(), 2);
        QCOMPARE(statuses[0].toInt(), int(CellStatus::Ok));
        QCOMPARE(statuses[1].toInt(), int(CellStatus::Broken));
        QVERIFY(index.data(Qt::AccessibleTextRole).toString().contains("torchvision, Python 3.13"));
    }

    void axesFollowCatalogOrder()
    {
        MatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSlices({cuda13});
        model.setAnalysis(handMade());
        // Rows: GPU archs in catalog order (sm121 before sm120 before sm90), then CPU, Darwin.
        QStringList rows;
        for (int r = 0; r < model.rowCount(); ++r)
            rows << QString::fromStdString(model.rowId(r));
        QCOMPARE(rows, (QStringList{"sm121", "sm120", "sm90", "cpu", "darwin"}));
        QStringList columns;
        for (int c = 0; c < model.columnCount(); ++c)
            columns << QString::fromStdString(model.columnId(c));
        QCOMPARE(columns, (QStringList{"avx2", "avx512", "mps"}));
        QVERIFY(model.headerData(2, Qt::Vertical, Qt::ToolTipRole).toString().contains("Hopper"));
        QVERIFY(
            model.headerData(1, Qt::Horizontal, Qt::ToolTipRole).toString().contains("-mavx512f"));
        QCOMPARE(model.rowKind(3), MatrixModel::RowKind::Cpu);

        model.setShowAll(true);
        QVERIFY(model.rowCount() >= 13); // every catalog arch + CPU + Darwin
        QVERIFY(model.columnCount() >= 8);
        QCOMPARE(model.rowId(model.rowCount() - 1), std::string("darwin"));
    }

    // The grid's axes come from the analysis' catalog, which the spec may extend: an arch and
    // an ISA the spec declares are known in the headers, as they are to the rules.
    void axesKnowWhatTheSpecDeclares()
    {
        const char* const spec =
            R"({ "schema": 1, "catalog": { "gpuArchs": [ { "id": "sm130", "number": "130",)"
            R"( "dotted": "13.0", "generation": "Rubin", "description": "NVIDIA Rubin",)"
            R"( "minCuda": "14.0" } ], "cudas": [ { "id": "14_0", "dotted": "14.0",)"
            R"( "packageSets": ["cudaPackages_14_0"] } ], "isas": [ { "id": "avx10",)"
            R"( "description": "AVX10.1", "family": "x86", "platform": "x86_64-linux",)"
            R"( "flags": ["-mavx10.1-512"], "requires": ["avx512f"] } ] },)"
            R"( "matrix": [ { "python": ["3.13"], "accelerator": "cuda", "cuda": ["14.0"],)"
            R"( "gpuArchs": ["sm130"], "isas": ["avx10"] } ] })";
        SpecError error;
        const auto parsed = MatrixSpec::fromJson(spec, "spec.json", Catalog::builtin(), &error);
        QVERIFY2(parsed, error.toString().c_str());
        auto analysis = std::make_shared<Analysis>();
        analysis->spec = *parsed;
        analysis->catalog = parsed->effectiveCatalog(Catalog::builtin());
        analysis->cells.push_back(
            entry("pytorch-python313-cuda14_0-sm130-avx10", CellStatus::Ok, true, true));

        MatrixModel model;
        model.setSlices({{"313", "14.0", {}}});
        model.setAnalysis(analysis);
        QCOMPARE(model.rowId(0), std::string("sm130"));
        QCOMPARE(model.columnId(0), std::string("avx10"));
        const QString row = model.headerData(0, Qt::Vertical, Qt::ToolTipRole).toString();
        QVERIFY2(row.contains("NVIDIA Rubin"), qPrintable(row));
        const QString column = model.headerData(0, Qt::Horizontal, Qt::DisplayRole).toString();
        QVERIFY2(!column.contains("unknown"), qPrintable(column));
        QVERIFY2(model.headerData(0, Qt::Horizontal, Qt::ToolTipRole)
                     .toString()
                     .contains("-mavx10.1-512"),
                 qPrintable(column));
    }

    // A recipe named for an architecture and an ISA no catalog declares (a spec that forgot its
    // "catalog" key): the axes show them, marked unknown, and say why, to readers too.
    void axesTheCatalogDoesNotKnow()
    {
        auto analysis = std::make_shared<Analysis>();
        analysis->cells.push_back(
            entry("pytorch-python313-cuda13_0-sm130-avx10", CellStatus::Broken, false, true));
        MatrixModel model;
        model.setSlices({cuda13});
        model.setAnalysis(analysis);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.columnCount(), 1);
        QCOMPARE(model.rowId(0), std::string("sm130"));
        QCOMPARE(model.columnId(0), std::string("avx10"));
        QCOMPARE(model.headerData(0, Qt::Vertical, Qt::DisplayRole).toString(),
                 QStringLiteral("sm130\nunknown"));
        QCOMPARE(model.headerData(0, Qt::Horizontal, Qt::DisplayRole).toString(),
                 QStringLiteral("avx10\nunknown"));
        for (const int role : {int(Qt::ToolTipRole), int(Qt::AccessibleDescriptionRole)}) {
            QCOMPARE(model.headerData(0, Qt::Vertical, role).toString(),
                     QStringLiteral("sm130: not a GPU architecture the catalog knows"));
            QCOMPARE(model.headerData(0, Qt::Horizontal, role).toString(),
                     QStringLiteral("avx10: not an ISA the catalog knows"));
        }
    }

    void statusesPerCell()
    {
        MatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSlices({cuda13});
        model.setAnalysis(handMade());
        QCOMPARE(statusAt(model, cell(model, "sm120", "avx512")), int(CellStatus::Ok));
        QCOMPARE(statusAt(model, cell(model, "sm90", "avx512")), int(CellStatus::Broken));
        QCOMPARE(statusAt(model, cell(model, "sm90", "avx2")), int(CellStatus::Missing));
        QCOMPARE(statusAt(model, cell(model, "sm120", "avx2")), MatrixModel::NoStatus);
        // A recipe for an impossible pairing keeps its status and is flagged as present.
        const QModelIndex armSoc = cell(model, "sm121", "avx512");
        QCOMPARE(statusAt(model, armSoc), int(CellStatus::Impossible));
        QCOMPARE(armSoc.data(MatrixModel::HasRecipeRole).toList().value(0).toBool(), true);
        // An empty impossible pairing is hatched (catalog: sm121 is an ARM SoC).
        const QModelIndex empty = cell(model, "sm121", "avx2");
        QCOMPARE(statusAt(model, empty), int(CellStatus::Impossible));
        QVERIFY(empty.data(MatrixModel::ImpossibleRole).toBool());
        QCOMPARE(empty.data(MatrixModel::HasRecipeRole).toList().value(0).toBool(), false);
        QVERIFY(!cell(model, "sm90", "avx2").data(MatrixModel::ImpossibleRole).toBool());
        // CPU and Darwin rows: mps only on Darwin.
        QVERIFY(cell(model, "cpu", "mps").data(MatrixModel::ImpossibleRole).toBool());
        QVERIFY(cell(model, "darwin", "avx2").data(MatrixModel::ImpossibleRole).toBool());
        QCOMPARE(statusAt(model, cell(model, "darwin", "mps")), int(CellStatus::Ok));
        QCOMPARE(statusAt(model, cell(model, "cpu", "avx2")), int(CellStatus::Unexpected));
    }

    void suffixedRecipesJoinTheirCell()
    {
        MatrixModel model;
        model.setSlices({cuda13});
        model.setAnalysis(handMade());
        const QModelIndex index = cell(model, "sm120", "avx512");
        QCOMPARE(index.data(MatrixModel::VariantNamesRole).toStringList(),
                 (QStringList{"pytorch-python313-cuda13_0-sm120-avx512",
                              "pytorch-python313-cuda13_0-sm120-avx512-magma"}));
        QCOMPARE(index.data(MatrixModel::ExtraLabelsRole).toList().value(0).toStringList(),
                 QStringList{"magma"});
        QCOMPARE(
            index.data(MatrixModel::ExtraStatusesRole).toList().value(0).toList().value(0).toInt(),
            int(CellStatus::Redundant));
        QCOMPARE(model.entriesAt(index).size(), size_t(2));
        QCOMPARE(index.data(MatrixModel::PathsRole).toStringList().size(), 2);
        QVERIFY(index.data(Qt::ToolTipRole).toString().contains("magma"));
    }

    void smallMultiples()
    {
        MatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAnalysis(handMade());
        model.setSlices({cuda13, cuda129});
        const QModelIndex index = cell(model, "sm90", "avx512");
        const QVariantList statuses = index.data(MatrixModel::StatusesRole).toList();
        QCOMPARE(statuses.size(), 2);
        QCOMPARE(statuses[0].toInt(), int(CellStatus::Broken));
        QCOMPARE(statuses[1].toInt(), int(CellStatus::Ok));
        QCOMPARE(index.data().toString(), QStringLiteral("broken / ok"));
        // CPU-only rows ignore the CUDA part of the slice: the same recipe in both.
        const QVariantList cpu =
            cell(model, "cpu", "avx2").data(MatrixModel::StatusesRole).toList();
        QCOMPARE(cpu.size(), 2);
        QCOMPARE(cpu[0].toInt(), cpu[1].toInt());
        // sm110 needs CUDA 13.0: on 12.9 even an ARM ISA is impossible (cudaSupports).
        model.setShowAll(true);
        model.setSlices({cuda129});
        const QModelIndex sm110 = cell(model, "sm110", "armv9");
        QVERIFY(sm110.isValid());
        QVERIFY(sm110.data(MatrixModel::ImpossibleRole).toBool());
        QVERIFY(sm110.data(MatrixModel::ReasonRole).toString().contains("13.0"));
        // A package's own floor hatches as well: vLLM needs compute capability 7.0, while
        // pytorch runs on the same sm61 × avx2 pairing.
        QVERIFY(!cell(model, "sm61", "avx2").data(MatrixModel::ImpossibleRole).toBool());
        model.setSlices({MatrixSlice{"313", "12.9", "vllm"}});
        const QModelIndex sm61 = cell(model, "sm61", "avx2");
        QVERIFY(sm61.data(MatrixModel::ImpossibleRole).toBool());
        QVERIFY2(sm61.data(MatrixModel::ReasonRole).toString().contains("vllm needs a GPU"),
                 qPrintable(sm61.data(MatrixModel::ReasonRole).toString()));
    }

    // A grid position stands for one cell per slice, present or not, and a cell finds its
    // position again: what the selection is kept by.
    void positionsKnowTheirCells()
    {
        MatrixModel model;
        const auto analysis = handMade();
        model.setAnalysis(analysis);
        model.setSlices({cuda13, cuda129});
        const QModelIndex sm90 = cell(model, "sm90", "avx512");
        const std::vector<CellId> ids = model.cellIdsAt(sm90);
        QCOMPARE(ids.size(), size_t(2));
        QCOMPARE(ids[0].toKey(), std::string("pytorch:python313-cuda13_0-sm90-avx512"));
        QCOMPARE(ids[1].toKey(), std::string("pytorch:python313-cuda12_9-sm90-avx512"));
        QCOMPARE(model.indexOf(ids[1]), sm90);
        // Every recipe's cell is where the recipe is shown.
        for (const Cell& entry : analysis->cells) {
            const QModelIndex at = model.indexOf(entry.id);
            if (!at.isValid())
                continue; // a slice not shown
            const std::vector<CellId> there = model.cellIdsAt(at);
            QVERIFY2(std::find(there.begin(), there.end(), entry.id) != there.end(),
                     entry.id.toKey().c_str());
            const auto entries = model.entriesAt(at);
            QVERIFY(std::find(entries.begin(), entries.end(), &entry) != entries.end());
        }
        // An empty position has its cells too, found by key as by identity; a cell of a slice
        // not shown has no position.
        model.setShowAll(true);
        const QModelIndex empty = cell(model, "sm61", "avx2");
        QVERIFY(model.entriesAt(empty).empty());
        const std::string key = "pytorch:python313-cuda13_0-sm61-avx2";
        QCOMPARE(model.cellIdsAt(empty).front().toKey(), key);
        QCOMPARE(model.indexOf(*CellId::fromKey(key)), empty);
        QCOMPARE(model.indexOf(CellSelector(key)), empty);
        QCOMPARE(model.indexOf(CellSelector("python313-cuda13_0-sm61-avx2")), empty);
        model.setSlices({cuda129});
        QVERIFY(!model.indexOf(*CellId::fromKey(key)).isValid());
        QVERIFY(!model.indexOf(CellSelector("no-such-recipe.nix")).isValid());
    }

    void accessibleNameNamesEverything()
    {
        MatrixModel model;
        model.setSlices({cuda13});
        model.setAnalysis(handMade());
        QCOMPARE(cell(model, "sm90", "avx512").data(Qt::AccessibleTextRole).toString(),
                 QStringLiteral(
                     "sm90 \u00d7 avx512, Python 3.13, CUDA 13.0: broken \u2014 pin differs"));
        QVERIFY(model.accessibleName(cell(model, "cpu", "avx2"))
                    .startsWith(QStringLiteral("CPU-only \u00d7 avx2, Python 3.13: unexpected")));
    }

    void filterHidesCells()
    {
        MatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSlices({cuda13});
        model.setAnalysis(handMade());
        QVERIFY(!model.filterActive());
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setFilter(QStringLiteral("PIN DIFF"), MatrixModel::allStatuses);
        QVERIFY(model.filterActive());
        QVERIFY(!changed.isEmpty());
        QVERIFY(cell(model, "sm90", "avx512").data(MatrixModel::MatchesFilterRole).toBool());
        QVERIFY(!cell(model, "sm120", "avx512").data(MatrixModel::MatchesFilterRole).toBool());
        // Status only: missing cells.
        model.setFilter({}, 1u << unsigned(CellStatus::Missing));
        QVERIFY(cell(model, "sm90", "avx2").data(MatrixModel::MatchesFilterRole).toBool());
        QVERIFY(!cell(model, "sm90", "avx512").data(MatrixModel::MatchesFilterRole).toBool());
        QVERIFY(!cell(model, "sm121", "avx2").data(MatrixModel::MatchesFilterRole).toBool());
        // Impossible shows both the impossible recipe and the hatched empty pairings.
        model.setFilter({}, 1u << unsigned(CellStatus::Impossible));
        QVERIFY(cell(model, "sm121", "avx512").data(MatrixModel::MatchesFilterRole).toBool());
        QVERIFY(cell(model, "sm121", "avx2").data(MatrixModel::MatchesFilterRole).toBool());
        // The file path matches too.
        model.setFilter(QStringLiteral("sm120-avx512-magma.nix"), MatrixModel::allStatuses);
        QVERIFY(cell(model, "sm120", "avx512").data(MatrixModel::MatchesFilterRole).toBool());
        model.setFilter({}, MatrixModel::allStatuses);
        QVERIFY(cell(model, "sm120", "avx512").data(MatrixModel::MatchesFilterRole).toBool());
    }

    void warningsPerSlice()
    {
        MatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto analysis = withWarnings();
        model.setSlices({cuda13, cuda129});
        model.setAnalysis(analysis);
        const auto warningsAt = [&](const char* row, const char* column) {
            return cell(model, row, column).data(MatrixModel::WarningCountsRole).toList();
        };
        // Per slice: the primary recipe's warnings; 12.9 has no sm120 recipe.
        QCOMPARE(warningsAt("sm120", "avx512"), (QVariantList{2, 0}));
        QCOMPARE(warningsAt("sm90", "avx512"), (QVariantList{0, 0}));
        // A status' own warning is the status itself, not a badge; no file, no warnings.
        QCOMPARE(warningsAt("cpu", "avx2"), (QVariantList{0, 0}));
        QCOMPARE(warningsAt("sm90", "avx2"), (QVariantList{0, 0}));
        QCOMPARE(warningsAt("sm121", "avx512"), (QVariantList{1, 0}));
        QCOMPARE(MatrixModel::warningCount(analysis->cells[6]), 0);
        QCOMPARE(MatrixModel::countWithWarnings(*analysis), 2);
        QCOMPARE(model.roleNames().value(MatrixModel::WarningCountsRole),
                 QByteArray("warningCounts"));

        // Words for the warnings: the ok cell leads with them, the note after.
        model.setSlices({cuda13});
        const QString name = model.accessibleName(cell(model, "sm120", "avx512"));
        QVERIFY2(name.startsWith(QStringLiteral(
                     "sm120 \u00d7 avx512, Python 3.13, CUDA 13.0: ok, 2 warnings: deprecated "
                     "pytorch attribute; unpinned <nixpkgs> \u2014 pname prefix")),
                 qPrintable(name));
        QVERIFY(cell(model, "sm120", "avx512")
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("ok, 2 warnings: deprecated pytorch attribute")));
        // Other statuses keep their reason first.
        QCOMPARE(model.accessibleName(cell(model, "sm121", "avx512")),
                 QStringLiteral("sm121 \u00d7 avx512, Python 3.13, CUDA 13.0: impossible, 1 "
                                "warning \u2014 ARM SoC with an x86 ISA"));
        QCOMPARE(model.accessibleName(cell(model, "cpu", "avx2")),
                 QStringLiteral("CPU-only \u00d7 avx2, Python 3.13: unexpected \u2014 not in the "
                                "spec"));
    }

    void warningsFilter()
    {
        MatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSlices({cuda13});
        model.setAnalysis(withWarnings());
        const auto matches = [&](const char* row, const char* column) {
            return cell(model, row, column).data(MatrixModel::MatchesFilterRole).toBool();
        };
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setFilter({}, MatrixModel::allStatuses, true);
        QVERIFY(model.filterActive());
        QVERIFY(model.warningsOnly());
        QCOMPARE(changed.count(), 1);
        QVERIFY(matches("sm120", "avx512"));
        QVERIFY(matches("sm121", "avx512"));
        QVERIFY(!matches("sm90", "avx512")); // broken, no warnings
        QVERIFY(!matches("cpu", "avx2"));    // only its own unexpected-variant warning
        QVERIFY(!matches("sm90", "avx2"));   // missing: no recipe to warn about
        QVERIFY(!matches("sm121", "avx2"));  // hatched empty pairing
        // Warnings narrow the status toggles like the text does: both must hold.
        model.setFilter({}, 1u << unsigned(CellStatus::Ok), true);
        QVERIFY(matches("sm120", "avx512"));
        QVERIFY(!matches("sm121", "avx512"));
        model.setFilter(QStringLiteral("sm121"), MatrixModel::allStatuses, true);
        QVERIFY(!matches("sm120", "avx512"));
        QVERIFY(matches("sm121", "avx512"));
        model.setFilter({}, MatrixModel::allStatuses, false);
        QVERIFY(!model.filterActive());
        QVERIFY(matches("sm90", "avx512"));
    }

    void gapCellsAreTheirOwnStatus()
    {
        const ModelWith shown(entry("pytorch-python313-cuda13_0-sm120-avx2", CellStatus::Gap, true,
                                    false, "suggested by the recipes around it"));
        MatrixModel& model = *shown.model;
        const QModelIndex index = cell(model, "sm120", "avx2");
        QCOMPARE(statusAt(model, index), int(CellStatus::Gap));
        QCOMPARE(index.data(MatrixModel::HasRecipeRole).toList(), QVariantList{false});
        QCOMPARE(index.data(MatrixModel::WarningCountsRole).toList(), QVariantList{0});
        QCOMPARE(index.data().toString(), QStringLiteral("gap"));
        QVERIFY(model.accessibleName(index).endsWith(
            QStringLiteral("gap \u2014 suggested by the recipes around it")));
        // The gap toggle alone shows it and nothing else.
        model.setFilter({}, 1u << unsigned(CellStatus::Gap));
        QVERIFY(index.data(MatrixModel::MatchesFilterRole).toBool());
        QVERIFY(!cell(model, "sm90", "avx2").data(MatrixModel::MatchesFilterRole).toBool());
        model.setFilter({}, MatrixModel::allStatuses & ~(1u << unsigned(CellStatus::Gap)));
        QVERIFY(!index.data(MatrixModel::MatchesFilterRole).toBool());
        QVERIFY(cell(model, "sm90", "avx2").data(MatrixModel::MatchesFilterRole).toBool());
    }

    // An unread recipe: its own status word and toggle; its nested-too-deep warning is what the
    // status says, not a badge on top of it.
    void uncheckedCellsAreTheirOwnStatus()
    {
        Cell unread = entry("pytorch-python313-cuda13_0-sm120-avx2", CellStatus::Unchecked, true,
                            true, "too deeply nested to check");
        unread.findings = {finding("nested-too-deep", Severity::Warning),
                           finding("unpinned-nixpkgs", Severity::Warning)};
        const ModelWith shown(unread);
        MatrixModel& model = *shown.model;
        const QModelIndex index = cell(model, "sm120", "avx2");
        QCOMPARE(statusAt(model, index), int(CellStatus::Unchecked));
        QCOMPARE(index.data().toString(), QStringLiteral("unchecked"));
        QCOMPARE(index.data(MatrixModel::WarningCountsRole).toList(), QVariantList{1});
        QVERIFY2(model.accessibleName(index).endsWith(
                     QStringLiteral("unchecked, 1 warning \u2014 too deeply nested to check")),
                 qPrintable(model.accessibleName(index)));
        model.setFilter({}, 1u << unsigned(CellStatus::Unchecked));
        QVERIFY(index.data(MatrixModel::MatchesFilterRole).toBool());
        QVERIFY(!cell(model, "sm120", "avx512").data(MatrixModel::MatchesFilterRole).toBool());
        model.setFilter({}, 1u << unsigned(CellStatus::Ok));
        QVERIFY(!index.data(MatrixModel::MatchesFilterRole).toBool());
    }

    void sameShapeKeepsRowsWithoutReset()
    {
        MatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSlices({cuda13});
        model.setAnalysis(handMade());
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        auto next = std::make_shared<Analysis>(*handMade());
        next->cells[1].status = CellStatus::Ok; // sm90-avx512 fixed
        model.setAnalysis(next);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(statusAt(model, cell(model, "sm90", "avx512")), int(CellStatus::Ok));
        // A new arch changes the shape: a reset.
        auto wider = std::make_shared<Analysis>(*next);
        wider->cells.push_back(
            entry("pytorch-python313-cuda13_0-sm80-avx2", CellStatus::Ok, true, true));
        model.setAnalysis(wider);
        QCOMPARE(reset.count(), 1);
        QVERIFY(cell(model, "sm80", "avx2").isValid());
        model.setAnalysis(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void seed001StartFixture()
    {
        MatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto analysis = analyse(QStringLiteral("seed001-start"));
        const auto slices = MatrixSlice::slicesOf(*analysis);
        QCOMPARE(slices.size(), size_t(1));
        QCOMPARE(slices.front(), cuda13);
        model.setSlices(slices);
        model.setAnalysis(analysis);
        // Spec: 9 GPU archs × x86 + sm110/sm121 ARM + CPU; the file sm120-avx adds the avx column.
        QCOMPARE(model.rowCount(), 10);
        QCOMPARE(model.columnCount(), 7);
        QCOMPARE(statusAt(model, cell(model, "sm120", "avx512")), int(CellStatus::Ok));
        QCOMPARE(statusAt(model, cell(model, "sm110", "armv9")), int(CellStatus::Broken));
        QCOMPARE(statusAt(model, cell(model, "sm110", "armv8_2")), int(CellStatus::Broken));
        QCOMPARE(statusAt(model, cell(model, "sm120", "avx")), int(CellStatus::Broken));
        QCOMPARE(statusAt(model, cell(model, "sm90", "avx2")), int(CellStatus::Missing));
        // The -magma recipe sits in the canonical recipe's cell; -nightly in sm121-armv9's.
        QVERIFY(cell(model, "sm120", "avx512")
                    .data(MatrixModel::VariantNamesRole)
                    .toStringList()
                    .contains("pytorch-python313-cuda13_0-sm120-avx512-magma"));
        QVERIFY(cell(model, "sm121", "armv9")
                    .data(MatrixModel::VariantNamesRole)
                    .toStringList()
                    .contains("pytorch-python313-cuda13_0-sm121-armv9-nightly"));
        // Reasons come from the analyzer's findings.
        QVERIFY(
            cell(model, "sm110", "armv9").data(MatrixModel::ReasonRole).toString().contains("pin"));
        // Every present recipe is somewhere in the grid.
        for (const Cell& entry : analysis->cells) {
            if (entry.recipe)
                QVERIFY2(model.indexOf(CellSelector(entry.recipe->path)).isValid(),
                         entry.recipe->path.c_str());
        }
    }

    void seed001TargetAndSeed000Fixtures()
    {
        MatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto target = analyse(QStringLiteral("seed001-target"));
        model.setSlices(MatrixSlice::slicesOf(*target));
        model.setAnalysis(target);
        int ok = 0;
        for (int r = 0; r < model.rowCount(); ++r)
            for (int c = 0; c < model.columnCount(); ++c)
                ok += statusAt(model, model.index(r, c)) == int(CellStatus::Ok) ? 1 : 0;
        QCOMPARE(ok, target->counts()[size_t(CellStatus::Ok)]);
        QCOMPARE(ok, 44);
        // The spec asks for sm121 with avx2, which no machine runs: the recipe is ok, and the
        // hatched cell says why it cannot work; a possible cell says nothing of the kind.
        const QModelIndex asked = cell(model, "sm121", "avx2");
        QVERIFY(asked.data(MatrixModel::ImpossibleRole).toBool());
        QCOMPARE(statusAt(model, asked), int(CellStatus::Ok));
        QVERIFY2(asked.data(MatrixModel::ReasonRole)
                     .toString()
                     .endsWith(QStringLiteral(
                         ": ok \u2014 no findings; it cannot work: sm121 (NVIDIA DGX Spark "
                         "(GB10)) is an ARM SoC; avx2 is an x86 ISA")),
                 qPrintable(asked.data(MatrixModel::ReasonRole).toString()));
        QVERIFY(!cell(model, "sm121", "armv9")
                     .data(MatrixModel::ReasonRole)
                     .toString()
                     .contains(QStringLiteral("cannot work")));
        // Before its recipe exists, the cell is missing and says the same.
        const auto start = analyse(QStringLiteral("seed001-start"));
        model.setSlices(MatrixSlice::slicesOf(*start));
        model.setAnalysis(start);
        const QModelIndex missing = cell(model, "sm121", "avx2");
        QCOMPARE(statusAt(model, missing), int(CellStatus::Missing));
        QVERIFY2(missing.data(MatrixModel::ReasonRole)
                     .toString()
                     .endsWith(QStringLiteral("; it cannot work: sm121 (NVIDIA DGX Spark (GB10)) "
                                              "is an ARM SoC; avx2 is an x86 ISA")),
                 qPrintable(missing.data(MatrixModel::ReasonRole).toString()));

        const auto seed000 = analyse(QStringLiteral("seed000"));
        const auto slices = MatrixSlice::slicesOf(*seed000);
        QVERIFY(!slices.empty());
        model.setSlices(slices); // every slice at once
        model.setAnalysis(seed000);
        int shown = 0;
        for (int r = 0; r < model.rowCount(); ++r)
            for (int c = 0; c < model.columnCount(); ++c)
                shown += static_cast<int>(model.entriesAt(model.index(r, c)).size());
        // Every entry shows once per slice it belongs to; CPU/Darwin in each slice of their Python.
        QVERIFY(shown >= static_cast<int>(seed000->cells.size()));
        for (const Cell& entry : seed000->cells)
            QVERIFY2(model.indexOf(CellSelector(entry.variant.toString())).isValid(),
                     entry.variant.toString().c_str());
    }
};

QTEST_GUILESS_MAIN(TestMatrixModel)
#include "tst_matrixmodel.moc"
