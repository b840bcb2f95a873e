#pragma once

// The window's builds, wired: Build, Build What Needs It, Publish and Build Settings (menu,
// toolbar, the grid's context menu), the jobs list and a log tab per job, the builds count in
// the status bar.
// Builds run in BuildSession's processes; nothing here waits for one.

#include <QObject>
#include <QStringList>
#include <functional>
#include <vector>

class QAction;
class QLabel;
class QMenu;
class QModelIndex;
class QTabWidget;

namespace rg {

struct BuildSettings;
struct Cell;

class ActionContext;
class BuildJobsModel;
class BuildJobsView;
class BuildSession;
class BuildSettingsDialog;
class LogPane;

class BuildActions : public QObject
{
    Q_OBJECT
public:
    BuildActions(ActionContext& context, QObject* parent);
    ~BuildActions() override;

    BuildSession* builds() const { return m_builds; }
    BuildJobsModel* jobsModel() const { return m_jobsModel; }
    BuildJobsView* jobsView() const { return m_jobs; }
    QTabWidget* logTabs() const { return m_logTabs; }
    QLabel* statusLabel() const { return m_status; }
    QAction* buildAction() const { return m_buildAction; }
    QAction* buildNeededAction() const { return m_buildNeededAction; }
    QAction* publishAction() const { return m_publishAction; }
    QAction* settingsAction() const { return m_settingsAction; }

    // Before the window closes: true when no build runs, or `confirm` (asked with the number
    // running or queued; a message box when null) agrees to cancel them, which it then does.
    bool confirmQuit(const std::function<bool(int running)>& confirm);
    // Build, Build What Needs It and Publish.
    void addToMenu(QMenu* menu);
    // Enables them for the grid's selection; called whenever what it holds changes, and after
    // a cell menu (which enables them for its cell) is gone.
    void updateActions();
    // Builds the selected cells' recipes; returns how many were queued (0 while it asks
    // whether to build recipes with errors: then as answered).
    int buildSelection();
    // Builds the branch's recipes whose output Nix found neither built nor in a binary cache
    // when they were last evaluated. The status bar says how many and how long earlier builds
    // suggest; returns how many (asking first as buildSelection does).
    int buildWhatNeedsIt();
    // Publishes the selected variants whose last build succeeded; returns how many were queued.
    int publishSelection();
    // Applies and persists build settings (what the Build Settings dialog returns).
    void applyBuildSettings(const BuildSettings& settings);
    LogPane* showLog(quint64 jobId); // opens (or focuses) the job's log tab
    QString buildsText() const;
    // Build and Publish, enabled for the cell the menu was opened on for as long as it shows.
    void addToCellMenu(QMenu* menu, const QModelIndex& cell);

private:
    void createActions();
    void createViews();
    void connectBuilds();
    void describeRequirements(BuildSettingsDialog& dialog) const;
    using AfterQueueing = std::function<void(const QStringList& variants, int queued)>;
    int buildAsking(const std::vector<const Cell*>& cells, const AfterQueueing& after);
    int buildVariants(const QStringList& variants);
    void rebuild(const QString& variant);
    void publish(const QString& variant);
    QStringList publishableVariants() const;
    void updateBuildStatus();

    ActionContext& m_context;
    BuildSession* m_builds;
    BuildJobsModel* m_jobsModel;
    BuildJobsView* m_jobs = nullptr;
    QTabWidget* m_logTabs = nullptr;
    QLabel* m_status = nullptr;
    QAction* m_buildAction = nullptr;
    QAction* m_buildNeededAction = nullptr;
    QAction* m_publishAction = nullptr;
    QAction* m_settingsAction = nullptr;
};

} // namespace rg
