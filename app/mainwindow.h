#pragma once

// The window release engineers live in: the SM × ISA grid of the open recipe repository,
// the selected recipe's facts, findings and source, the branches, live refresh.

#include "actioncontext.h"
#include "buildactions.h"
#include "gridcontroller.h"
#include "matrixview.h"
#include "sessionstatus.h"

#include <QMainWindow>
#include <QModelIndexList>
#include <QStatusBar>
#include <QStringList>
#include <functional>

class QAction;
class QMenu;
class QStackedWidget;

namespace rg {

class BranchOverviewModel;
class BranchOverviewView;
class ChangeActions;
class EmptyStatePage;
class EvalActions;
class MessageBanner;
class PinActions;
class RecentRepositories;

class MainWindow : public QMainWindow, public ActionContext
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void openRepository(const QString& path);
    void openRevision(const QString& repositoryPath, const QString& revision);
    bool openDemo(); // copies the bundled demo repository to a temporary git work tree

    RepositorySession* session() const override { return m_session; }
    // The grid's and the builds' parts, owned by their controllers, reached from here.
    MatrixModel* matrixModel() const { return m_grid->model(); }
    MatrixView* matrixView() const { return m_grid->view(); }
    DetailsPanel* detailsPanel() const { return m_grid->detailsPanel(); }
    RecipePreview* preview() const { return m_grid->preview(); }
    FilterBar* filterBar() const { return m_grid->filterBar(); }
    MessageBanner* banner() const { return m_banner; }
    EmptyStatePage* emptyState() const { return m_empty; }
    BranchOverviewModel* branchModel() const { return m_branchModel; }
    BuildSession* builds() const { return m_buildActions->builds(); }
    BuildJobsModel* buildJobs() const { return m_buildActions->jobsModel(); }
    QTabWidget* logTabs() const { return m_buildActions->logTabs(); }
    QAction* buildAction() const { return m_buildActions->buildAction(); }
    QAction* publishAction() const { return m_buildActions->publishAction(); }
    int buildSelection() { return m_buildActions->buildSelection(); }
    int publishSelection() { return m_buildActions->publishSelection(); }
    QString buildsText() const { return m_buildActions->buildsText(); }
    // Create / fix / delete recipes and complete the matrix through reviewed change sets.
    ChangeActions* changeActions() const { return m_changes; }
    // Evaluate with Nix: the actions, the progress, Nix's answers in the session's analysis.
    EvalActions* evalActions() const { return m_eval; }
    // Pins: the pins and alignment docks, colour by pin, pin bumps.
    PinActions* pinActions() const { return m_pins; }
    // Asked before quitting with running builds; the default asks with a message box.
    void setQuitConfirmation(std::function<bool(int running)> confirm);
    bool isShowingGrid() const;
    QString summaryText() const { return m_status->summaryText(); }
    QString scanText() const { return m_status->scanText(); }
    QString gitText() const { return m_status->gitText(); }
    QString demoPath() const { return m_demoPath; }

    // The grid, for the controllers: GridController answers.
    QModelIndexList selectedCells() const override { return m_grid->selectedCells(); }
    std::vector<const Cell*> entriesOf(const QModelIndexList& cells) const override
    {
        return m_grid->entriesOf(cells);
    }
    std::vector<const Cell*> selectedEntries() const override { return m_grid->selectedEntries(); }
    std::vector<MatrixSlice> shownSlices() const override { return m_grid->model()->slices(); }
    bool selectCell(const CellSelector& selector) override { return m_grid->selectCell(selector); }
    bool selectCells(const std::vector<CellId>& cells) override
    {
        return m_grid->selectCells(cells);
    }
    void setPinProvider(MatrixModel::PinProvider provider) override
    {
        m_grid->model()->setPinProvider(std::move(provider));
    }
    void addGridAction(QAction* action) override { m_grid->view()->addAction(action); }
    void addGridFooter(QWidget* widget) override { m_grid->addFooter(widget); }

    void showStatus(const QString& message, int timeoutMs) override
    {
        statusBar()->showMessage(message, timeoutMs);
    }
    void clearStatus() override { statusBar()->clearMessage(); }
    void showError(const QString& message) override;
    void showWarning(const QString& title, const QString& message) override;
    QWidget* mainWidget() override { return this; }
    void addDock(QDockWidget* dock, const QString& besideDock, Qt::DockWidgetArea area) override;
    void resizeDock(QDockWidget* dock, int size, Qt::Orientation orientation) override
    {
        resizeDocks({dock}, {size}, orientation);
    }
    void showBuildsDock() override;

signals:
    // Built fresh for each context menu of the grid: add generate / fix actions here.
    void cellMenuAboutToShow(QMenu* menu, const QModelIndexList& cells);
    // The preview shows the current recipe's text (after a selection or a re-scan).
    void previewUpdated();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void createPages();
    void createActions();
    void createMenus();
    void createViewMenu();
    void createToolBar();
    void createDocks();
    void connectControllers();
    void connectSession();
    void restoreSettings();
    void saveSettings() const;
    void updateRecentMenu();

    void chooseRepository();
    void analysisChanged();
    void updateTitle();
    void showAbout();
    void branchActivated(const QString& branch);

    RepositorySession* m_session;
    BranchOverviewModel* m_branchModel;

    QStackedWidget* m_stack;
    EmptyStatePage* m_empty;
    MessageBanner* m_banner;
    GridController* m_grid;
    BranchOverviewView* m_branches;
    SessionStatus* m_status;
    ChangeActions* m_changes = nullptr;
    BuildActions* m_buildActions = nullptr;
    PinActions* m_pins = nullptr;
    EvalActions* m_eval = nullptr;
    std::function<bool(int)> m_confirmQuit;

    RecentRepositories* m_recent;
    QMenu* m_recentMenu = nullptr;
    QAction* m_openAction = nullptr;
    QAction* m_demoAction = nullptr;
    QAction* m_reloadAction = nullptr;
    QAction* m_aboutAction = nullptr;

    QString m_demoPath;
    bool m_firstAnalysis = true;
};

} // namespace rg
