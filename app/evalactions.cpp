#include "evalactions.h"

#include "actioncontext.h"
#include "eval/evaluationmerge.h"
#include "sessions/buildsession.h"
#include "sessions/evaluationsession.h"
#include "sessions/qtext.h"
#include "sessions/repositorysession.h"

#include <QAction>
#include <QDir>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QStandardPaths>
#include <QToolBar>
#include <QToolButton>
#include <algorithm>
#include <set>

namespace rg {

EvalActions::EvalActions(ActionContext& context, BuildSession* builds, QObject* parent)
    : QObject(parent), m_context(context), m_builds(builds),
      m_evaluation(new EvaluationSession(this))
{
    createActions();
    createStatusWidget();
    connectEvaluation();
    updateActions();
}

void EvalActions::createActions()
{
    m_evaluate = new QAction(tr("&Evaluate"), this);
    m_evaluate->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_evaluate->setToolTip(tr("Evaluate the selected cells' recipes with Nix against their pins "
                              "(the whole branch when no cell is selected)"));
    connect(m_evaluate, &QAction::triggered, this, [this] { evaluate(false); });

    m_evaluateBranch = new QAction(tr("Evaluate B&ranch"), this);
    m_evaluateBranch->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    m_evaluateBranch->setToolTip(tr("Evaluate every recipe of the branch with Nix"));
    connect(m_evaluateBranch, &QAction::triggered, this, [this] { evaluate(true); });

    m_cancel = new QAction(tr("Cancel Evaluation"), this);
    m_cancel->setToolTip(tr("Stop the running evaluation; none of its answers are kept"));
    connect(m_cancel, &QAction::triggered, m_evaluation, &EvaluationSession::cancel);
}

void EvalActions::createStatusWidget()
{
    m_statusWidget = new QWidget(m_context.mainWidget());
    auto* layout = new QHBoxLayout(m_statusWidget);
    layout->setContentsMargins(0, 0, 0, 0);
    m_label = new QLabel(m_statusWidget);
    m_label->setAccessibleName(tr("Evaluation"));
    m_bar = new QProgressBar(m_statusWidget);
    m_bar->setMaximumWidth(160);
    m_bar->setFormat(QStringLiteral("%v/%m"));
    auto* cancel = new QToolButton(m_statusWidget);
    cancel->setDefaultAction(m_cancel);
    cancel->setText(tr("Cancel"));
    layout->addWidget(m_label);
    layout->addWidget(m_bar);
    layout->addWidget(cancel);
    m_statusWidget->hide();
}

void EvalActions::connectEvaluation()
{
    connect(m_evaluation, &EvaluationSession::started, this, [this](int total) {
        showProgress(0, total, {});
        m_statusWidget->show();
        updateActions();
    });
    connect(m_evaluation, &EvaluationSession::progress, this, &EvalActions::showProgress);
    connect(m_evaluation, &EvaluationSession::finished, this, &EvalActions::evaluationFinished);
    connect(m_evaluation, &EvaluationSession::failed, this, [this](const QString& message) {
        m_statusWidget->hide();
        updateActions();
        m_context.showError(tr("Evaluate: %1").arg(message));
    });
    // Another repository: its recipes have other answers, and a run for the last one is moot.
    RepositorySession* session = m_context.session();
    connect(session, &RepositorySession::opened, this, [this, session] {
        m_evaluation->clear();
        session->setRefiner({});
    });
    connect(session, &RepositorySession::analysisChanged, this, &EvalActions::updateActions);
}

void EvalActions::addToMenu(QMenu* menu)
{
    menu->addAction(m_evaluate);
    menu->addAction(m_evaluateBranch);
    menu->addAction(m_cancel);
}

void EvalActions::addToToolBar(QToolBar* toolbar)
{
    toolbar->addAction(m_evaluate);
}

EvalSettings EvalActions::settingsFor(const QString& root) const
{
    const BuildSettings& build = m_builds->settings();
    EvalSettings settings;
    settings.repoRoot = QDir::cleanPath(root).toStdString();
    for (auto it = build.nixpkgsSources.begin(); it != build.nixpkgsSources.end(); ++it)
        settings.sources[it.key().toLower().toStdString()] =
            QDir::cleanPath(it.value()).toStdString();
    if (!build.defaultNixpkgs.isEmpty())
        settings.defaultNixpkgs = QDir::cleanPath(build.defaultNixpkgs).toStdString();
    settings.store = build.store.toStdString();
    for (const QString& cache : build.binaryCaches())
        settings.binaryCaches.push_back(cache.toStdString());
    // The CLI's cache: an answer `recipegrid eval` found serves the window, and back.
    settings.cacheDir = (QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) +
                         QStringLiteral("/recipegrid/eval"))
                            .toStdString();
    return settings;
}

int EvalActions::evaluate(bool wholeBranch)
{
    RepositorySession* session = m_context.session();
    // Nix reads the recipes from disk: a revision opened from git has no files to read.
    if (!session->isOpen() || session->isReadOnly() || !session->staticAnalysis()) {
        m_context.showStatus(tr("Evaluation needs an open work tree"), 5000);
        return 0;
    }
    if (m_evaluation->isRunning()) {
        m_context.showStatus(tr("An evaluation is running: cancel it or wait for it"), 5000);
        return 0;
    }
    // The analysis as the files make it, keyed by content: the answers are judged against it.
    std::vector<EvalItem> items = EvaluationMerge::itemsOf(*session->staticAnalysis());
    if (!wholeBranch && !m_context.selectedCells().isEmpty()) {
        std::set<std::string> chosen;
        for (const Cell* entry : m_context.entriesOf(m_context.selectedCells()))
            if (entry->recipe)
                chosen.insert(entry->recipe->path);
        std::erase_if(items, [&](const EvalItem& item) { return !chosen.count(item.path); });
    }
    const int count = static_cast<int>(items.size());
    if (count == 0 || !m_evaluation->start(settingsFor(session->rootPath()), std::move(items))) {
        m_context.showStatus(tr("Nothing to evaluate: no readable recipe is selected"), 5000);
        return 0;
    }
    return count;
}

void EvalActions::showProgress(int done, int total, const QString& current)
{
    m_bar->setRange(0, std::max(1, total));
    m_bar->setValue(done);
    if (!current.isEmpty() || done == 0)
        m_label->setText(current.isEmpty() ? tr("Evaluating with Nix\u2026")
                                           : tr("Evaluating %1").arg(QDir(current).dirName()));
}

QString EvalActions::progressText() const
{
    return m_statusWidget->isVisible() || m_evaluation->isRunning() ? QStringLiteral("%1 %2/%3")
                                                                          .arg(m_label->text())
                                                                          .arg(m_bar->value())
                                                                          .arg(m_bar->maximum())
                                                                    : QString();
}

void EvalActions::evaluationFinished(const std::vector<EvaluatedRecipe>& results, bool cancelled)
{
    m_statusWidget->hide();
    updateActions();
    if (cancelled) {
        m_context.showStatus(tr("Evaluation cancelled: none of its answers are kept"), 8000);
        return;
    }
    int failing = 0, unanswered = 0;
    for (const EvaluatedRecipe& result : results) {
        unanswered += result.transient ? 1 : 0;
        failing += !result.transient && !result.evaluated ? 1 : 0;
    }
    m_context.session()->setRefiner(m_evaluation->refiner());
    QString message = tr("Evaluated %n recipe(s) with Nix", nullptr, int(results.size()));
    if (failing > 0)
        message += tr(", %n do(es) not evaluate", nullptr, failing);
    if (unanswered > 0)
        message += tr(", %n not answered (timeout, memory or network)", nullptr, unanswered);
    m_context.showStatus(message, 10000);
}

// Evaluate acts on the selected cells' recipes (the branch's when no cell is selected), Evaluate
// Branch on the branch's: each is on only when Nix has a recipe there to read.
void EvalActions::updateActions()
{
    RepositorySession* session = m_context.session();
    const std::shared_ptr<const Analysis> analysis = session->analysis();
    const bool can =
        session->isOpen() && !session->isReadOnly() && analysis && !m_evaluation->isRunning();
    const bool branch = can && std::ranges::any_of(analysis->cells, &EvaluationMerge::evaluable);
    const QModelIndexList selected = m_context.selectedCells();
    const bool selection =
        selected.isEmpty()
            ? branch
            : can && std::ranges::any_of(m_context.entriesOf(selected), [](const Cell* entry) {
                  return EvaluationMerge::evaluable(*entry);
              });
    m_evaluate->setEnabled(selection);
    m_evaluateBranch->setEnabled(branch);
    m_cancel->setEnabled(m_evaluation->isRunning());
}

} // namespace rg
