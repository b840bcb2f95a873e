#pragma once

// What the window's controllers (grid, builds, change sets, pins) may ask of the window: the
// open repository, the grid's selection, somewhere to say things and somewhere to put docks.
// Narrow on purpose: a controller that held the whole window would come to depend on its
// layout, and could no longer be followed by reading its own file.

#include "analysis/analysis.h"
#include "itemmodels/matrixmodel.h"

#include <QModelIndexList>
#include <QString>
#include <string>
#include <vector>

class QAction;
class QDockWidget;
class QWidget;

namespace rg {

class RepositorySession;

class ActionContext
{
public:
    virtual RepositorySession* session() const = 0;

    // The grid's selected cells: none when only a current cell is set.
    virtual QModelIndexList selectedCells() const = 0;
    // The entries under `cells`, each once.
    virtual std::vector<const Cell*> entriesOf(const QModelIndexList& cells) const = 0;
    // The entries under the selected cells, or under the current cell when none is selected.
    virtual std::vector<const Cell*> selectedEntries() const = 0;
    virtual std::vector<MatrixSlice> shownSlices() const = 0;
    // Makes the first cell the selector names current, showing its slice when needed; false
    // when nothing in the analysis matches.
    virtual bool selectCell(const CellSelector& selector) = 0;
    // Selects the shown positions of these cells and focuses the grid; false when none is shown.
    virtual bool selectCells(const std::vector<CellId>& cells) = 0;
    virtual void setPinProvider(MatrixModel::PinProvider provider) = 0;
    // An action whose shortcut works while the grid has the focus (Delete, Copy).
    virtual void addGridAction(QAction* action) = 0;
    // A line under the grid, below the status legend (the pin legend).
    virtual void addGridFooter(QWidget* widget) = 0;

    virtual void showStatus(const QString& message, int timeoutMs) = 0;
    virtual void clearStatus() = 0;
    // In the banner over the grid, until dismissed or replaced.
    virtual void showError(const QString& message) = 0;
    // A message box that does not wait: the caller goes on.
    virtual void showWarning(const QString& title, const QString& message) = 0;

    // The parent of dialogs, message boxes, docks and their views.
    virtual QWidget* mainWidget() = 0;
    // Tabs `dock` behind the dock named `besideDock` (which stays in front), or adds it to
    // `area` when there is none.
    virtual void addDock(QDockWidget* dock, const QString& besideDock, Qt::DockWidgetArea area) = 0;
    virtual void resizeDock(QDockWidget* dock, int size, Qt::Orientation orientation) = 0;
    // Brings the Builds dock, the jobs and their logs, to the front.
    virtual void showBuildsDock() = 0;

protected:
    ~ActionContext() = default;
};

} // namespace rg
