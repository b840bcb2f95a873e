#include "changeactions.h"

#include "actioncontext.h"
#include "changesetreviewdialog.h"
#include "sessions/changeimpactsession.h"
#include "sessions/changesession.h"
#include "sessions/repositorysession.h"

#include <QAction>
#include <QMenu>
#include <algorithm>
#include <optional>

namespace rg {

namespace {

const char* const nothingFor[] = {
    QT_TRANSLATE_NOOP("rg::ChangeActions", "Nothing to create: no missing cell is selected"),
    QT_TRANSLATE_NOOP("rg::ChangeActions", "Nothing to fix: no broken recipe is selected"),
    QT_TRANSLATE_NOOP("rg::ChangeActions",
                      "Nothing to delete: no redundant, unexpected or impossible recipe is "
                      "selected"),
};

} // namespace

ChangeActions::ChangeActions(ActionContext& context, QObject* parent)
    : QObject(parent), m_context(context), m_session(new ChangeSession(context.session(), this))
{
    createActions();
    connectSession();
    connect(context.session(), &RepositorySession::analysisChanged, this,
            &ChangeActions::updateActions);
    updateActions();
}

void ChangeActions::createActions()
{
    m_create = new QAction(tr("&Create Recipe"), this);
    m_create->setObjectName(QStringLiteral("createRecipeAction"));
    m_create->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_N));
    m_create->setToolTip(tr("Generate the recipes of the selected missing cells, for review"));
    connect(m_create, &QAction::triggered, this, [this] { request(ChangeAction::Create); });

    m_fix = new QAction(tr("&Fix Recipe"), this);
    m_fix->setObjectName(QStringLiteral("fixRecipeAction"));
    m_fix->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    m_fix->setToolTip(tr("Fix the selected broken recipes, for review"));
    connect(m_fix, &QAction::triggered, this, [this] { request(ChangeAction::Fix); });

    // Delete only while the grid has the focus: the key belongs to text fields elsewhere.
    m_delete = new QAction(tr("&Delete Recipe\u2026"), this);
    m_delete->setObjectName(QStringLiteral("deleteRecipeAction"));
    m_delete->setShortcut(QKeySequence::Delete);
    m_delete->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_delete->setToolTip(
        tr("Delete the selected redundant, unexpected or impossible recipes, after review"));
    connect(m_delete, &QAction::triggered, this, [this] { request(ChangeAction::Delete); });
    m_context.addGridAction(m_delete);

    m_complete = new QAction(tr("Complete &Matrix\u2026"), this);
    m_complete->setObjectName(QStringLiteral("completeMatrixAction"));
    m_complete->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    m_complete->setToolTip(tr("Create, fix and delete what the shown slices need (the whole "
                              "package when no cell is selected), for review"));
    connect(m_complete, &QAction::triggered, this, [this] { request(ChangeAction::Complete); });

    // Off by default: a README may document its matrix by hand, and a second, generated
    // section is then noise. A section between the markers is updated either way.
    m_readmeSection = new QAction(tr("Add a Variant-Matrix &Section to README"), this);
    m_readmeSection->setObjectName(QStringLiteral("readmeSectionAction"));
    m_readmeSection->setCheckable(true);
    m_readmeSection->setToolTip(
        tr("Create and Complete also add a generated variant-matrix section to a README.md "
           "that has none; a section between <!-- recipegrid:matrix --> markers is always "
           "kept up to date"));

    m_undo = new QAction(tr("&Undo Last Change"), this);
    m_undo->setObjectName(QStringLiteral("undoChangeAction"));
    m_undo->setShortcut(QKeySequence::Undo);
    m_undo->setToolTip(tr("Put the files of the last applied change set back as they were"));
    connect(m_undo, &QAction::triggered, m_session, &ChangeSession::undo);
}

void ChangeActions::connectSession()
{
    connect(m_session, &ChangeSession::planned, this, &ChangeActions::showReview);
    connect(m_session, &ChangeSession::planFailed, this, &ChangeActions::showError);
    // A message box, not the banner: the next re-scan (a file watched changing, the one after
    // applying) redraws the banner, and a refused apply or undo must not go unseen.
    connect(m_session, &ChangeSession::applyFailed, this,
            [this](const QString& message) { showWarning(tr("Nothing was changed"), message); });
    connect(m_session, &ChangeSession::applied, this, &ChangeActions::showStatus);
    connect(m_session, &ChangeSession::committed, this,
            [this](const QString& id) { showStatus(tr("Committed %1").arg(id.left(12))); });
    connect(m_session, &ChangeSession::commitFailed, this,
            [this](const QString& message) { showWarning(tr("Commit failed"), message); });
    connect(m_session, &ChangeSession::busyChanged, this, &ChangeActions::updateActions);
    connect(m_session, &ChangeSession::undoAvailableChanged, this, &ChangeActions::updateActions);
}

void ChangeActions::addToMenu(QMenu* menu)
{
    menu->addAction(m_create);
    menu->addAction(m_fix);
    menu->addAction(m_delete);
    menu->addSeparator();
    menu->addAction(m_complete);
    menu->addAction(m_readmeSection);
    menu->addSeparator();
    menu->addAction(m_undo);
}

void ChangeActions::addToCellMenu(QMenu* menu, const QModelIndexList& cells)
{
    const std::vector<const Cell*> entries = m_context.entriesOf(cells);
    const bool writable = m_context.session()->isOpen() && !m_context.session()->isReadOnly();
    bool separated = false;
    for (auto [action, kind] : {std::pair{m_create, ChangeAction::Create},
                                {m_fix, ChangeAction::Fix},
                                {m_delete, ChangeAction::Delete}}) {
        if (!writable || ChangeSession::targetsOf(kind, entries).empty())
            continue;
        if (!separated)
            menu->addSeparator();
        separated = true;
        action->setEnabled(!m_session->isBusy());
        menu->addAction(action);
    }
}

void ChangeActions::request(ChangeAction action)
{
    if (m_session->isBusy()) {
        showStatus(tr("A change set is still being planned or applied"));
        return;
    }
    ChangeRequest request;
    if (action == ChangeAction::Complete) {
        const std::shared_ptr<const Analysis> analysis = m_context.session()->analysis();
        const bool wholePackage = m_context.selectedCells().isEmpty();
        const std::optional<ChangeRequest> complete =
            ChangeSession::completeRequest(analysis.get(), m_context.shownSlices(), wholePackage);
        if (!complete) {
            showStatus(tr("Nothing to complete: every cell of the shown slices is ok"));
            return;
        }
        request = *complete;
    } else {
        request.action = action;
        request.cells = ChangeSession::targetsOf(action, m_context.selectedEntries());
        if (request.cells.empty()) {
            showStatus(tr(nothingFor[static_cast<int>(action)]));
            return;
        }
    }
    request.addReadmeSection = m_readmeSection->isChecked();
    if (m_session->plan(request))
        showStatus(tr("Planning the change set\u2026"));
}

void ChangeActions::showReview(const ChangeSet& changes, const std::vector<std::string>& diffs,
                               const std::vector<DiffStat>& stats)
{
    if (changes.operations.empty() && changes.skipped.empty()) {
        showStatus(tr("Nothing to change: the recipes already are what was asked"));
        return;
    }
    m_context.clearStatus();
    auto* dialog = new ChangeSetReviewDialog(changes, diffs, stats, m_context.mainWidget());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setCommitAvailable(m_session->canCommit(), m_session->commitBlocker());
    offerNixCheck(dialog);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        m_session->apply(dialog->sharedChangeSet(), dialog->commitRequested(),
                         dialog->commitMessage());
    });
    m_review = dialog;
    dialog->open();
}

void ChangeActions::setEvalSettings(
    const std::function<EvalSettings(const QString& root)>& settings)
{
    m_evalSettings = settings;
}

// Only a change set that modifies a file can have a recipe Nix evaluates before and after it.
void ChangeActions::offerNixCheck(ChangeSetReviewDialog* dialog)
{
    const auto& operations = dialog->changeSet().operations;
    if (!m_evalSettings || std::none_of(operations.begin(), operations.end(), [](const auto& op) {
            return op.kind == FileOperationKind::Modify;
        }))
        return;
    dialog->offerNixCheck();
    auto* impact = new ChangeImpactSession(dialog); // goes with the dialog, stopping Nix
    connect(dialog, &ChangeSetReviewDialog::nixCheckRequested, impact, [this, dialog, impact] {
        RepositorySession* repository = m_context.session();
        if (impact->start(m_evalSettings(repository->rootPath()), dialog->changeSet(),
                          repository->analysis()))
            dialog->showNixProgress(0, 0);
    });
    connect(dialog, &ChangeSetReviewDialog::nixStopRequested, impact, &ChangeImpactSession::cancel);
    connect(impact, &ChangeImpactSession::progress, dialog,
            &ChangeSetReviewDialog::showNixProgress);
    connect(
        impact, &ChangeImpactSession::finished, dialog,
        [dialog](const std::vector<RecipeImpact>& impacts, const QString& error, bool cancelled) {
            if (cancelled)
                dialog->showNixFailure(tr("Stopped before Nix answered."));
            else if (!error.isEmpty())
                dialog->showNixFailure(tr("Nix was not asked: %1").arg(error));
            else
                dialog->showImpacts(impacts);
        });
}

void ChangeActions::updateActions()
{
    RepositorySession* repository = m_context.session();
    const bool ready = repository->isOpen() && !repository->isReadOnly() &&
                       repository->analysis() != nullptr && !m_session->isBusy();
    const std::vector<const Cell*> entries = m_context.selectedEntries();
    m_create->setEnabled(ready && !ChangeSession::targetsOf(ChangeAction::Create, entries).empty());
    m_fix->setEnabled(ready && !ChangeSession::targetsOf(ChangeAction::Fix, entries).empty());
    m_delete->setEnabled(ready && !ChangeSession::targetsOf(ChangeAction::Delete, entries).empty());
    m_complete->setEnabled(ready);
    m_undo->setEnabled(m_session->canUndo());
    m_undo->setText(m_session->canUndo() ? tr("&Undo \u201c%1\u201d").arg(m_session->undoTitle())
                                         : tr("&Undo Last Change"));
}

void ChangeActions::showError(const QString& message)
{
    m_context.showError(message);
    m_context.showStatus(message, 8000);
}

void ChangeActions::showWarning(const QString& title, const QString& message)
{
    m_context.showStatus(message, 8000);
    m_context.showWarning(title, message);
}

void ChangeActions::showStatus(const QString& message)
{
    m_context.showStatus(message, 8000);
}

} // namespace rg
