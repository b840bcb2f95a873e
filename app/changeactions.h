#pragma once

// The window's change set actions, wired: Create / Fix / Delete Recipe for the selected cells
// (menu, shortcuts and the grid's context menu), Complete Matrix for the shown slices (the
// whole package when nothing is selected) and Undo Last Change. Each plans through the
// ChangeSession, opens the review dialog when the plan arrives and applies what the user left
// selected. The review can ask Nix what the change set does to its recipes (a
// ChangeImpactSession of its own, gone with the dialog). Nothing here waits: planning,
// applying and Nix run on workers.

#include "analysis/analysis.h"
#include "changes/changeplanner.h"
#include "eval/evalsettings.h"

#include <QModelIndexList>
#include <QObject>
#include <QPointer>
#include <functional>
#include <string>
#include <vector>

class QAction;
class QMenu;

namespace rg {

class ActionContext;
class ChangeSession;
class ChangeSetReviewDialog;
struct DiffStat;

class ChangeActions : public QObject
{
    Q_OBJECT
public:
    ChangeActions(ActionContext& context, QObject* parent);

    ChangeSession* session() const { return m_session; }
    QAction* createAction() const { return m_create; }
    QAction* fixAction() const { return m_fix; }
    QAction* deleteAction() const { return m_delete; }
    QAction* completeAction() const { return m_complete; }
    QAction* undoAction() const { return m_undo; }
    // Checked: Create and Complete add a variant-matrix section to a README without one.
    QAction* readmeSectionAction() const { return m_readmeSection; }

    void addToMenu(QMenu* menu);
    // The grid's context menu: the actions that apply to the cells under it.
    void addToCellMenu(QMenu* menu, const QModelIndexList& cells);
    // Enables what the selected cells allow; the window calls it when they change.
    void updateActions();
    // How Nix is asked about a change set in review; none: the review does not offer it.
    void setEvalSettings(const std::function<EvalSettings(const QString& root)>& settings);

private:
    void createActions();
    void connectSession();
    void request(ChangeAction action);
    void showReview(const ChangeSet& changes, const std::vector<std::string>& diffs,
                    const std::vector<DiffStat>& stats);
    void offerNixCheck(ChangeSetReviewDialog* dialog);
    void showError(const QString& message);
    void showWarning(const QString& title, const QString& message);
    void showStatus(const QString& message);

    ActionContext& m_context;
    ChangeSession* m_session;
    QAction* m_create = nullptr;
    QAction* m_fix = nullptr;
    QAction* m_delete = nullptr;
    QAction* m_complete = nullptr;
    QAction* m_undo = nullptr;
    QAction* m_readmeSection = nullptr;
    QPointer<ChangeSetReviewDialog> m_review;
    std::function<EvalSettings(const QString& root)> m_evalSettings;
};

} // namespace rg
