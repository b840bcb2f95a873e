#pragma once

// The grid as an item model: rows are GPU archs (catalog order) plus a CPU-only and a Darwin
// row, columns are CPU ISAs (x86, then ARM, then Apple). Each cell holds one status per
// selected slice (Python × CUDA version), so several slices read as small multiples.
// Qt Core only: colours and icons are the delegate's business.

#include "analysis/analysis.h"
#include "analysis/cellselector.h"
#include "analysis/matrixslice.h"
#include "builds/cellbuildstate.h"
#include "matrix/catalog.h"
#include "matrix/cellid.h"

#include <QAbstractTableModel>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rg {

// What one slice of one cell holds.
struct MatrixCellSlice
{
    CellId id;               // the cell this slice of the grid position stands for
    int primary = -1;        // index into Analysis::entries; -1 when nothing is there
    std::vector<int> extras; // further recipes of the same cell: -magma, -nightly, duplicates
    bool impossible = false; // the cell cannot exist (Catalog::feasibility): `impossibleWhy`
    std::string impossibleWhy;
};

// A recipe's nixpkgs pin for colouring the grid by pin; the window supplies it (the pins are
// listed by PinInventory, which the grid's model does not build).
struct CellPin
{
    int index = -1; // stable position in the window's pin legend; -1 when the recipe pins none
    QString label;  // short form, "6a030d5"
};

class MatrixModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Role {
        // QVariantList of int per selected slice: a CellStatus, or NoStatus when the cell is
        // empty in that slice. Impossible empty cells give CellStatus::Impossible.
        StatusesRole = Qt::UserRole + 1,
        // QVariantList per slice of QVariantList of int: statuses of the extra recipes.
        ExtraStatusesRole,
        VariantNamesRole,  // QStringList, every recipe of the cell, primary first per slice
        PathsRole,         // QStringList of the files behind the cell (present recipes only)
        ReasonRole,        // QString, one line per slice that has something to say
        ImpossibleRole,    // bool: every selected slice is an impossible pairing
        MatchesFilterRole, // bool: false when the filter hides the cell
        EntryIndexesRole,  // QVariantList of int: indexes into Analysis::entries
        // QVariantList per slice of QStringList: what tells each extra recipe apart
        // ("magma", "nightly", or its file name for a duplicate).
        ExtraLabelsRole,
        // QVariantList of bool per slice: a recipe file is behind the slice's status (an
        // impossible *file* differs from an impossible empty pairing).
        HasRecipeRole,
        // QVariantList per slice of QVariantMap {queued, running, progress, last (int
        // CellBuildState::Result), verificationFailed, summary} of the slice's recipe.
        BuildStateRole,
        // QVariantList of int per slice: the warnings of the slice's primary recipe (see
        // warningCount); 0 when the slice has no recipe file.
        WarningCountsRole,
        // QVariantList per slice of QVariantMap {index (int), label (QString)}: the CellPin
        // of the slice's recipe ({-1, ""} when it has none). Empty while not colouring by pin.
        PinsRole,
        // QVariantList per slice of QVariantMap {state (QString: "agrees", "findings",
        // "fails", or "" when not evaluated), text (QString, evaluationText)} of the slice's
        // primary recipe: Nix's answer.
        EvaluationRole,
    };
    static constexpr int NoStatus = -1;

    enum class RowKind { Gpu, Cpu, Darwin };
    // Asked with the slice's primary entry (its variant and Cell::contentKey).
    using BuildStateProvider = std::function<CellBuildState(const Cell& entry)>;
    using PinProvider = std::function<CellPin(const Cell& entry)>;

    explicit MatrixModel(QObject* parent = nullptr);

    // Keeps rows/columns (and so the view's selection) when their shape is unchanged.
    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    std::shared_ptr<const Analysis> analysis() const { return m_analysis; }

    void setSlices(std::vector<MatrixSlice> slices); // in display order; empty → none shown
    const std::vector<MatrixSlice>& slices() const { return m_slices; }

    // Rows of every catalog arch and columns of every catalog ISA, not only those present.
    void setShowAll(bool showAll);
    bool showAll() const { return m_showAll; }

    // Cells whose recipes match neither the text (variant, file, reason, finding messages;
    // case-insensitive) nor one of the statuses in `statusMask` (bit = 1 << CellStatus) fade out.
    // `warningsOnly` further keeps only recipes with warnings (warningCount > 0): a status
    // says whether a recipe builds, warnings are what to tidy in the ones that do.
    void setFilter(const QString& text, unsigned statusMask, bool warningsOnly = false);
    bool filterActive() const;
    bool warningsOnly() const { return m_warningsOnly; }
    static constexpr unsigned allStatuses = (1u << cellStatusCount) - 1;

    void setBuildStateProvider(BuildStateProvider provider);
    // The provider's answer for `variantName` changed: repaint its cell.
    void buildStateChanged(const std::string& variantName);

    // Colour by pin: with a provider, PinsRole answers; null turns it off.
    void setPinProvider(PinProvider provider);
    bool coloursByPin() const { return static_cast<bool>(m_pins); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    RowKind rowKind(int row) const;
    std::string rowId(int row) const;       // "sm90", "cpu", "darwin"
    std::string columnId(int column) const; // "avx512"
    const MatrixCellSlice* cellSlice(const QModelIndex& index, int slice) const;
    // Recipes (primary, then extras) of a cell across the selected slices.
    std::vector<const Cell*> entriesAt(const QModelIndex& index) const;
    // The cells a grid position stands for, one per selected slice: what a selection is kept
    // by across re-scans and slice changes.
    std::vector<CellId> cellIdsAt(const QModelIndex& index) const;
    // Where a cell sits in the grid; invalid when it is not in a selected slice.
    QModelIndex indexOf(const CellId& id) const;
    // The first position with a recipe or a cell the selector names; invalid when none shown.
    QModelIndex indexOf(const CellSelector& selector) const;
    // Where a repository opens: the first position (row by row) holding a broken recipe, whose
    // findings are what the user has to act on; else the first holding a recipe; else the first.
    // `entry`, when given, gets the recipe to show there (null at a first cell without one).
    QModelIndex openingIndex(const Cell** entry = nullptr) const;
    // The next position after `from` (row by row, wrapping round; before it when `backwards`)
    // holding a broken recipe, `from` itself last; invalid when none does. From an invalid
    // index the search starts at the first position (the last, backwards). `entry`, when given,
    // gets that broken recipe.
    QModelIndex brokenAfter(const QModelIndex& from, bool backwards,
                            const Cell** entry = nullptr) const;

    // "sm90 × avx512, Python 3.13, CUDA 13.0: broken — pin differs",
    // "…: ok, 2 warnings: deprecated pytorch attribute; unpinned <nixpkgs>"
    QString accessibleName(const QModelIndex& index) const;

    // Warnings of a present recipe beyond the one its status is named after: an unexpected,
    // redundant or impossible recipe carries that verdict as a warning finding, which the
    // status already says. 0 for an entry without a recipe file.
    static int warningCount(const Cell& entry);
    // Nix's answer for the entry in one line: "evaluated ✓ · pin 6a030d5 · 2025-06-01 12:04",
    // "evaluated: 1 finding (eval-cuda-mismatch) · pin …", "does not evaluate: <Nix's first
    // line>"; "" when the recipe was not evaluated.
    static QString evaluationText(const Cell& entry);
    // "agrees", "findings", "fails", or "" when not evaluated.
    static QString evaluationState(const Cell& entry);
    // Entries of the analysis with warningCount > 0: what the warnings toggle would show.
    static int countWithWarnings(const Analysis& analysis);

private:
    struct Row
    {
        RowKind kind = RowKind::Gpu;
        std::string id;                // "sm90", "cpu", "darwin"
        const GpuArch* arch = nullptr; // null for unknown archs and CPU/Darwin rows
        friend bool operator==(const Row& a, const Row& b)
        {
            return a.kind == b.kind && a.id == b.id;
        }
    };
    struct Column
    {
        std::string isa;
        const CpuIsa* info = nullptr;
        friend bool operator==(const Column& a, const Column& b) { return a.isa == b.isa; }
    };

    void rebuild();
    void axesOf(const std::vector<Cell>& entries, std::vector<Row>& rows,
                std::vector<Column>& columns) const;
    void placeEntries(const std::vector<Cell>& entries);
    void identifyCells();
    VariantName pointName(size_t row, size_t column, size_t slice) const;
    void matchFilter(const std::vector<Cell>& entries);
    bool entryMatchesFilter(const Cell& entry) const;
    QString sliceText(const MatrixCellSlice& cell, const MatrixSlice& slice) const;
    static QString statusWord(int status); // "" for NoStatus
    QString toolTipOf(const MatrixCellSlice& cell, const MatrixSlice& slice) const;
    QVariant sliceData(const MatrixCellSlice& cell, int role) const;
    QVariant entryListData(const QModelIndex& index, int role) const;
    int statusOf(const MatrixCellSlice& cell) const;
    const MatrixCellSlice& cellAt(int row, int column, int slice) const;

    BuildStateProvider m_buildState;
    PinProvider m_pins;
    std::shared_ptr<const Analysis> m_analysis;
    std::vector<MatrixSlice> m_slices;
    bool m_showAll = false;
    QString m_filterText;
    unsigned m_statusMask = allStatuses;
    bool m_warningsOnly = false;

    std::vector<Row> m_rows;
    std::vector<Column> m_columns;
    std::vector<MatrixCellSlice> m_cells; // row-major, then slice
    std::vector<char> m_matches;          // per cell
};

} // namespace rg
