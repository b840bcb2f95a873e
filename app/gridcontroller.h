#pragma once

// The grid page and what follows the grid's selection: the slice chooser, the filter, the SM ×
// ISA grid, the Details pane and the recipe preview. Keeps the selected cells across re-scans,
// reads the current recipe off the GUI thread and offers the cell's context menu.

#include "analysis/analysis.h"
#include "analysis/cellselector.h"
#include "analysis/matrixslice.h"
#include "matrix/cellid.h"
#include "vcs/repositorysource.h"

#include <QFutureWatcher>
#include <QModelIndexList>
#include <QObject>
#include <memory>
#include <string>
#include <vector>

class QAction;
class QLabel;
class QMenu;
class QSettings;
class QVBoxLayout;
class QWidget;

namespace rg {

class ActionContext;
class BuildSession;
class DetailsPanel;
class FilterBar;
class MatrixModel;
class MatrixView;
class RecipePreview;
class SliceChooser;

class GridController : public QObject
{
    Q_OBJECT
public:
    GridController(ActionContext& context, QObject* parent);
    ~GridController() override; // waits for a recipe still being read

    QWidget* page() const { return m_page; }
    MatrixModel* model() const { return m_model; }
    MatrixView* view() const { return m_view; }
    FilterBar* filterBar() const { return m_filter; }
    DetailsPanel* detailsPanel() const { return m_details; }
    RecipePreview* preview() const { return m_preview; }
    QAction* showAllAction() const { return m_showAllAction; }
    QAction* editAction() const { return m_editAction; }
    QAction* copyNameAction() const { return m_copyNameAction; }
    QAction* copyPathAction() const { return m_copyPathAction; }
    // Next and Previous Broken Recipe (F8, Shift+F8): from broken recipe to broken recipe.
    QList<QAction*> navigationActions() const
    {
        return {m_nextBrokenAction, m_previousBrokenAction};
    }

    void restoreSettings(const QSettings& settings);
    void saveSettings(QSettings& settings) const;
    void addFooter(QWidget* widget);
    // Cells show the builds of what they hold now, and the Details pane their summary.
    void showBuildStates(BuildSession* builds);

    // `opened`: the first analysis of a repository just opened, which shows the slices saved
    // last time and makes the first cell current.
    void showAnalysis(const std::shared_ptr<const Analysis>& analysis, bool opened);
    void clear();

    QModelIndexList selectedCells() const;
    std::vector<const Cell*> entriesOf(const QModelIndexList& cells) const;
    std::vector<const Cell*> selectedEntries() const;
    // The cells behind the selected grid positions, one per shown slice each.
    std::vector<CellId> selectedCellIds() const;
    // Makes the first cell the selector names current, showing the slice of a recipe it names
    // when that slice is not shown; false when nothing in the analysis matches.
    bool selectCell(const CellSelector& selector);
    // Selects the shown positions of these cells; false when none is shown.
    bool selectCells(const std::vector<CellId>& cells);

signals:
    // Built fresh for each context menu of the grid; `cell` is the one it was opened on.
    void cellMenuAboutToShow(QMenu* menu, const QModelIndex& cell);
    void previewUpdated();
    // The entries the window's actions act on (the selection's, or the current cell's) may be
    // others: the selection or the current cell moved, an analysis came, a cell menu closed.
    void actionTargetsChanged();

private:
    void createPage();
    void createActions();
    void connectWidgets();
    std::vector<MatrixSlice> slicesToShow(const Analysis& analysis,
                                          const std::vector<MatrixSlice>& available,
                                          bool opened) const;
    void reselect(const std::vector<CellId>& cells, const std::vector<CellId>& current);
    bool select(const std::vector<CellId>& cells);
    void slicesChanged();
    void updateChipOrder();
    void filterChanged();
    void selectionChanged();
    void updateActions();
    void showEntry(const Cell* entry);
    // Makes `index` current and shows `entry` (a recipe there) in the details.
    void showCell(const QModelIndex& index, const Cell* entry);
    void goToBroken(bool backwards);
    QString emptyCellReason() const;
    void previewRead();
    void showFinding(const Finding& finding);
    void showCellMenu(const QModelIndex& index, const QPoint& globalPosition);
    void openInEditor();
    void copyVariantNames();
    void copyPaths();

    ActionContext& m_context;
    MatrixModel* m_model;
    QWidget* m_page = nullptr;
    QVBoxLayout* m_layout = nullptr;
    SliceChooser* m_slices = nullptr;
    QLabel* m_chipOrder = nullptr;
    FilterBar* m_filter = nullptr;
    MatrixView* m_view = nullptr;
    DetailsPanel* m_details = nullptr;
    RecipePreview* m_preview = nullptr;

    QAction* m_showAllAction = nullptr;
    QAction* m_editAction = nullptr;
    QAction* m_copyNameAction = nullptr;
    QAction* m_copyPathAction = nullptr;
    QAction* m_nextBrokenAction = nullptr;
    QAction* m_previousBrokenAction = nullptr;

    QFutureWatcher<SourceFile>* m_previewRead;
    QString m_previewPath;
};

} // namespace rg
