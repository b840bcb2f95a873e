#pragma once

// The window's evaluation with Nix, wired: Evaluate (the selected cells, or the whole branch
// when no cell is selected) and Evaluate Branch in the Recipe menu and the toolbar, progress
// with Cancel in the status bar, and Nix's answers put into the session's analysis
// (RepositorySession::setRefiner), where they stay for the recipes whose content is unchanged.
// The evaluation runs in EvaluationSession's worker; nothing here waits for Nix.

#include "eval/evalsettings.h"
#include "eval/evaluatedrecipe.h"

#include <QObject>
#include <vector>

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QToolBar;
class QWidget;

namespace rg {

class ActionContext;
class BuildSession;
class EvaluationSession;

class EvalActions : public QObject
{
    Q_OBJECT
public:
    // The local nixpkgs sources and the store come from `builds`' settings.
    EvalActions(ActionContext& context, BuildSession* builds, QObject* parent);

    QAction* evaluateAction() const { return m_evaluate; }
    QAction* evaluateBranchAction() const { return m_evaluateBranch; }
    QAction* cancelAction() const { return m_cancel; }
    QWidget* statusWidget() const { return m_statusWidget; }
    QString progressText() const;
    EvaluationSession* evaluation() const { return m_evaluation; }
    void addToMenu(QMenu* menu);
    void addToToolBar(QToolBar* toolbar);

    // Starts evaluating the selected cells' recipes (all when `wholeBranch` or when no cell is
    // selected); the number of recipes, 0 when nothing started (the status bar says why).
    int evaluate(bool wholeBranch);
    // How the window's build settings evaluate the repository at `root`.
    EvalSettings settingsFor(const QString& root) const;
    // Enables the actions for what they would act on: the selection, the branch, a running
    // evaluation (the window calls it when the selection changes).
    void updateActions();

private:
    void createActions();
    void createStatusWidget();
    void connectEvaluation();
    void showProgress(int done, int total, const QString& current);
    void evaluationFinished(const std::vector<EvaluatedRecipe>& results, bool cancelled);

    ActionContext& m_context;
    BuildSession* m_builds;
    EvaluationSession* m_evaluation;
    QAction* m_evaluate = nullptr;
    QAction* m_evaluateBranch = nullptr;
    QAction* m_cancel = nullptr;
    QWidget* m_statusWidget = nullptr;
    QProgressBar* m_bar = nullptr;
    QLabel* m_label = nullptr;
};

} // namespace rg
