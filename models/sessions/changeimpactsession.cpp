#include "sessions/changeimpactsession.h"

#include "analysis/cellselector.h"
#include "eval/evaluationmerge.h"
#include "sessions/backgroundpool.h"

#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>

namespace rg {

ChangeImpactSession::Input ChangeImpactSession::inputOf(const ChangeSet& changes,
                                                        const Analysis& analysis)
{
    Input input;
    std::vector<CellSelector> recipes;
    for (const FileOperation& operation : changes.operations) {
        if (!operation.selected)
            continue;
        input.planned[operation.path] = operation.kind == FileOperationKind::Delete
                                            ? std::nullopt
                                            : std::optional<std::string>(operation.after);
        // A deleted recipe has no "after" to judge, a created one no "before".
        if (operation.kind == FileOperationKind::Modify)
            recipes.emplace_back(operation.path);
    }
    // No selector would mean every recipe of the branch.
    if (!recipes.empty())
        input.items = EvaluationMerge::itemsOf(analysis, recipes);
    return input;
}

ChangeImpactSession::ChangeImpactSession(QObject* parent) : QObject(parent)
{
    connect(&m_run, &QFutureWatcher<Outcome>::finished, this, &ChangeImpactSession::runFinished);
}

ChangeImpactSession::~ChangeImpactSession()
{
    cancel();
    m_run.waitForFinished();
}

bool ChangeImpactSession::start(EvalSettings settings, ChangeSet changes,
                                std::shared_ptr<const Analysis> analysis)
{
    if (m_running || !analysis)
        return false;
    m_running = true;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    // Called from the evaluator's workers one at a time; reported here, queued. The destructor
    // waits for the run, so `this` outlives every call.
    const ChangeImpact::Progress report = [this](int done, int total) {
        QMetaObject::invokeMethod(
            this,
            [this, done, total] {
                if (m_running)
                    emit progress(done, total);
            },
            Qt::QueuedConnection);
    };
    // Finding Nix runs a process: it is looked for on the worker too.
    m_run.setFuture(QtConcurrent::run(
        backgroundPool(), [settings = std::move(settings), changes = std::move(changes),
                           analysis = std::move(analysis), cancel = m_cancel, report] {
            Outcome outcome;
            const Input input = inputOf(changes, *analysis);
            if (input.items.empty()) {
                outcome.error = "none of these files is a recipe Nix could evaluate before the "
                                "change";
                return outcome;
            }
            const NixInstallation nix = NixInstallation::find();
            if (!nix.usable()) {
                outcome.error = nix.error;
                return outcome;
            }
            outcome.impacts = ChangeImpact::of(nix, settings, input.items, input.planned,
                                               &outcome.error, report, cancel.get());
            return outcome;
        }));
    return true;
}

void ChangeImpactSession::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

void ChangeImpactSession::runFinished()
{
    m_running = false;
    Outcome outcome = outcomeOf(m_run.future());
    const bool cancelled = m_cancel && m_cancel->load() && outcome.error.empty();
    if (cancelled)
        outcome.impacts.clear();
    emit finished(outcome.impacts, QString::fromStdString(outcome.error), cancelled);
}

} // namespace rg
