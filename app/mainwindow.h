#pragma once

// The window release engineers live in: the SM × ISA grid of the open recipe repository,
// the selected recipe's facts, findings and source, the branches, live refresh.

#include "recipes/analysis.h"

#include <QFutureWatcher>
#include <QMainWindow>
#include <QModelIndexList>
#include <functional>
#include <memory>

class QAction;
class QTabWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QVBoxLayout;

namespace rg {

struct BuildSettings;

class BranchOverviewModel;
class BuildJobsView;
class BuildSession;
class ChangeActions;
class LogPane;
class BranchOverviewView;
class DetailsPanel;
class EmptyStatePage;
class FilterBar;
class MatrixModel;
class MatrixView;
class MessageBanner;
class PinActions;
class RecipePreview;
class RepositorySession;
class SliceChooser;
struct SourceFile;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void openRepository(const QString& path);
    void openRevision(const QString& repositoryPath, const QString& revision);
    bool openDemo(); // copies the bundled demo repository to a temporary git work tree

    // Selects the cell of a variant (canonical name); false when it is not in the grid.
    bool selectVariant(const QString& variantName);

    RepositorySession* session() const { return m_session; }
    MatrixModel* matrixModel() const { return m_model; }
    MatrixView* matrixView() const { return m_view; }
    DetailsPanel* detailsPanel() const { return m_details; }
    RecipePreview* preview() const { return m_preview; }
    FilterBar* filterBar() const { return m_filter; }
    SliceChooser* sliceChooser() const { return m_slices; }
    MessageBanner* banner() const { return m_banner; }
    EmptyStatePage* emptyState() const { return m_empty; }
    BranchOverviewModel* branchModel() const { return m_branchModel; }
    BuildSession* builds() const { return m_builds; }
    QTabWidget* logTabs() const { return m_logTabs; }
    QAction* buildAction() const { return m_buildAction; }
    QAction* publishAction() const { return m_publishAction; }
    // Create / fix / delete recipes and complete the matrix through reviewed change sets.
    ChangeActions* changeActions() const { return m_changes; }
    // Pins: the pins and alignment docks, colour by pin, pin bumps.
    PinActions* pinActions() const { return m_pins; }
    // Adds a line under the grid, below the status legend (the pin legend).
    void addGridFooter(QWidget* widget);
    // Publishes the selected variants whose last build succeeded; returns how many were queued.
    int publishSelection();
    // Applies and persists build settings (what the Build Settings dialog returns).
    void applyBuildSettings(const BuildSettings& settings);
    // Builds the selected cells' recipes; returns how many were queued.
    int buildSelection();
    LogPane* showLog(quint64 jobId); // opens (or focuses) the job's log tab
    QString buildsText() const;
    // Asked before quitting with running builds; the default asks with a message box.
    void setQuitConfirmation(std::function<bool(int running)> confirm);
    bool isShowingGrid() const;
    QString summaryText() const;
    QString scanText() const; // "12 file(s) parsed · 40 ms"
    QString gitText() const;
    QString demoPath() const { return m_demoPath; }

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
    void createActions();
    void createMenus();
    void createDocks();
    void restoreSettings();
    void saveSettings() const;
    void addRecent(const QString& path);
    void updateRecentMenu();

    void chooseRepository();
    void analysisChanged();
    void updateStatusBar();
    void updateGitLabel();
    void updateBanner();
    void updateTitle();
    void slicesChanged();
    void updateChipOrder();
    void filterChanged();
    void selectionChanged();
    void showEntry(const MatrixEntry* entry);
    void previewRead();
    void showFinding(const Finding& finding);
    void showCellMenu(const QModelIndex& index, const QPoint& globalPosition);
    void openInEditor();
    void copyVariantNames();
    void copyPaths();
    void showAbout();
    void branchActivated(const QString& branch);
    void createBuilds();
    void updateBuildStatus();
    std::vector<const MatrixEntry*> selectedEntries() const;
    QStringList publishableVariants() const;
    std::vector<std::pair<std::string, std::string>> selectedCellIds() const;

    RepositorySession* m_session;
    MatrixModel* m_model;
    BranchOverviewModel* m_branchModel;

    QStackedWidget* m_stack;
    EmptyStatePage* m_empty;
    SliceChooser* m_slices;
    FilterBar* m_filter;
    MessageBanner* m_banner;
    MatrixView* m_view;
    DetailsPanel* m_details;
    RecipePreview* m_preview;
    BranchOverviewView* m_branches;
    QProgressBar* m_progress;
    QLabel* m_summary;
    QLabel* m_git;
    QLabel* m_scanInfo;
    QLabel* m_buildInfo;
    QLabel* m_chipOrder;
    BuildSession* m_builds = nullptr;
    ChangeActions* m_changes = nullptr;
    PinActions* m_pins = nullptr;
    QVBoxLayout* m_gridLayout = nullptr;
    BuildJobsView* m_jobs = nullptr;
    QTabWidget* m_logTabs = nullptr;
    std::function<bool(int)> m_confirmQuit;

    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QAction* m_openAction = nullptr;
    QAction* m_demoAction = nullptr;
    QAction* m_reloadAction = nullptr;
    QAction* m_showAllAction = nullptr;
    QAction* m_editAction = nullptr;
    QAction* m_copyNameAction = nullptr;
    QAction* m_copyPathAction = nullptr;
    QAction* m_aboutAction = nullptr;
    QAction* m_buildAction = nullptr;
    QAction* m_publishAction = nullptr;
    QAction* m_buildSettingsAction = nullptr;

    QFutureWatcher<SourceFile>* m_previewRead;
    QString m_previewPath;
    QString m_demoPath;
    bool m_firstAnalysis = true;
};

} // namespace rg
