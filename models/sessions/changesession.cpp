#include "sessions/changesession.h"

#include "changes/changesetapplier.h"
#include "changes/gitcommitter.h"
#include "sessions/backgroundpool.h"
#include "sessions/qtext.h"
#include "sessions/repositorysession.h"

#include <QStringList>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <exception>
#include <set>

namespace rg {

namespace {

bool isCreateTarget(CellStatus status)
{
    return status == CellStatus::Missing || status == CellStatus::Gap;
}

// A recipe nobody asks for (redundant, outside the spec, impossible) may go; so may a broken
// one outside the spec or under another name than its variant's, which Complete removes too.
bool isDeleteTarget(const Cell& entry)
{
    switch (entry.status) {
    case CellStatus::Redundant:
    case CellStatus::Unexpected:
    case CellStatus::Impossible:
        return true;
    case CellStatus::Broken:
        return !entry.expected || !entry.variant.suffixes.empty();
    default:
        return false;
    }
}

} // namespace

ChangeSession::ChangeSession(RepositorySession* repository, QObject* parent)
    : QObject(parent), m_repository(repository)
{
    connect(&m_plan, &QFutureWatcher<std::shared_ptr<const Planned>>::finished, this,
            &ChangeSession::planFinished);
    connect(&m_apply, &QFutureWatcher<Applied>::finished, this, &ChangeSession::applyFinished);
    // The inverse was planned against the files of the repository that was open.
    connect(m_repository, &RepositorySession::opened, this, [this] {
        if (!m_undo)
            return;
        m_undo.reset();
        m_undoTitle.clear();
        emit undoAvailableChanged(false);
    });
}

ChangeSession::~ChangeSession()
{
    m_plan.waitForFinished();
    m_apply.waitForFinished();
}

std::vector<std::string> ChangeSession::targetsOf(ChangeAction action,
                                                  const std::vector<const Cell*>& entries)
{
    std::vector<std::string> targets;
    const auto add = [&](const std::string& target) {
        if (!target.empty() && std::find(targets.begin(), targets.end(), target) == targets.end())
            targets.push_back(target);
    };
    for (const Cell* entry : entries) {
        const bool hasFile = entry->recipe != nullptr;
        switch (action) {
        case ChangeAction::Create:
            if (isCreateTarget(entry->status) && !hasFile)
                add(entry->id.toKey());
            break;
        // A cell can hold a sound recipe next to a broken or redundant one: name the file.
        case ChangeAction::Fix:
            if (entry->status == CellStatus::Broken && hasFile)
                add(entry->recipe->path);
            break;
        case ChangeAction::Delete:
            if (hasFile && isDeleteTarget(*entry))
                add(entry->recipe->path);
            break;
        case ChangeAction::Complete:
            if (entry->status != CellStatus::Ok && entry->status != CellStatus::Unchecked)
                add(entry->id.toKey());
            break;
        }
    }
    return targets;
}

std::optional<ChangeRequest> ChangeSession::completeRequest(const Analysis* analysis,
                                                            const std::vector<MatrixSlice>& slices,
                                                            bool wholePackage)
{
    ChangeRequest request;
    request.action = ChangeAction::Complete;
    std::set<std::string> packages;
    for (const MatrixSlice& slice : slices)
        packages.insert(slice.package);
    // Empty cells ask the planner for the whole package, every slice of it.
    if (wholePackage && packages.size() <= 1) {
        request.package = packages.empty() ? std::string() : *packages.begin();
        return request;
    }
    std::vector<const Cell*> entries;
    if (analysis) {
        for (const Cell& entry : analysis->cells) {
            const bool shown = std::any_of(slices.begin(), slices.end(),
                                           [&](const MatrixSlice& s) { return s.contains(entry); });
            if (shown)
                entries.push_back(&entry);
        }
    }
    request.cells = targetsOf(ChangeAction::Complete, entries);
    if (request.cells.empty())
        return std::nullopt;
    return request;
}

bool ChangeSession::refused(bool planning)
{
    QString why;
    if (m_busy)
        why = tr("A change set is still being planned or applied");
    else if (!m_repository->isOpen())
        why = tr("No repository is open");
    else if (m_repository->isReadOnly())
        why = tr("A revision opened from git is read-only: open the work tree to change recipes");
    else if (planning && !m_repository->analysis())
        why = tr("The repository is still being scanned");
    if (why.isEmpty())
        return false;
    if (planning)
        emit planFailed(why);
    else
        emit applyFailed(why);
    return true;
}

bool ChangeSession::plan(const ChangeRequest& request)
{
    return plan([request](std::shared_ptr<const RepositorySource> source,
                          std::shared_ptr<const Analysis> analysis) {
        return ChangePlanner(std::move(source), std::move(analysis)).plan(request);
    });
}

bool ChangeSession::plan(Planner planner)
{
    if (refused(true))
        return false;
    setBusy(true);
    const std::shared_ptr<const RepositorySource> source = m_repository->source();
    const std::shared_ptr<const Analysis> analysis = m_repository->analysis();
    // Found with the plan, so the review can say before Apply that a commit would fail.
    const std::string gitRoot = canCommit() ? m_repository->rootPath().toStdString() : "";
    auto work = [source, analysis, gitRoot,
                 planner = std::move(planner)]() -> std::shared_ptr<const Planned> {
        auto out = std::make_shared<Planned>();
        if (!gitRoot.empty())
            out->commitBlocker = GitCommitter::precondition(gitRoot);
        // An exception escaping the worker would be rethrown by result() on the GUI thread.
        try {
            out->changes = planner(source, analysis);
            out->diffs.reserve(out->changes.operations.size());
            out->stats.reserve(out->changes.operations.size());
            for (const FileOperation& operation : out->changes.operations) {
                out->diffs.push_back(UnifiedDiff::of(operation));
                out->stats.push_back(UnifiedDiff::statOf(operation));
            }
        } catch (const std::exception& error) {
            out->error = error.what();
        }
        return out;
    };
    m_plan.setFuture(QtConcurrent::run(backgroundPool(), std::move(work)));
    return true;
}

void ChangeSession::planFinished()
{
    const std::shared_ptr<const Planned> out = m_plan.result();
    setBusy(false);
    m_commitBlocker = qs(out->commitBlocker);
    if (!out->error.empty()) {
        emit planFailed(tr("Could not plan the change set: %1").arg(qs(out->error)));
        return;
    }
    emit planned(out->changes, out->diffs, out->stats);
}

bool ChangeSession::apply(std::shared_ptr<const ChangeSet> changes, bool commit,
                          const QString& message)
{
    if (refused(false))
        return false;
    if (!changes || !changes->hasSelected()) {
        emit applyFailed(tr("Nothing to apply: every operation was left out"));
        return false;
    }
    // Shared, not copied: the caller, the worker and the result read the one change set.
    startApply(std::move(changes), false, commit, message);
    return true;
}

bool ChangeSession::undo()
{
    if (refused(false))
        return false;
    if (!m_undo || m_undo->operations.empty()) {
        emit applyFailed(tr("Nothing to undo"));
        return false;
    }
    startApply(m_undo, true, false, {});
    return true;
}

void ChangeSession::startApply(std::shared_ptr<const ChangeSet> changes, bool undo, bool commit,
                               const QString& message)
{
    setBusy(true);
    const std::string root = m_repository->rootPath().toStdString();
    const std::string text = message.toStdString();
    m_apply.setFuture(QtConcurrent::run(
        backgroundPool(), [root, changes = std::move(changes), undo, commit, text] {
            Applied out;
            out.changes = changes;
            out.undo = undo;
            out.commit = commit;
            try {
                // A commit that must fail is refused before anything is written: the work
                // tree is not left changed and uncommitted.
                if (commit) {
                    out.error = GitCommitter::precondition(root);
                    if (!out.error.empty()) {
                        out.error = "cannot commit: " + out.error;
                        return out;
                    }
                }
                const ApplyResult result = ChangeSetApplier(root).apply(*changes);
                out.ok = result.applied;
                out.file = result.file;
                out.error = result.error;
                if (out.ok && !undo)
                    out.inverse = std::make_shared<const ChangeSet>(changes->inverse());
                if (out.ok && commit) {
                    const CommitResult committed = GitCommitter::commit(root, *changes, text);
                    out.committed = committed.committed;
                    out.commitId = committed.id;
                    out.commitError = committed.error;
                }
            } catch (const std::exception& error) {
                out.error = error.what();
            }
            return out;
        }));
}

void ChangeSession::applyFinished()
{
    const Applied out = m_apply.result();
    setBusy(false);
    // An undo is named after what it reverts, not after its own "Undo: …" title.
    const QString title = out.undo ? m_undoTitle : qs(out.changes->title);
    if (!out.ok) {
        QString error = qs(out.error);
        if (!out.file.empty() && !error.contains(qs(out.file)))
            error = qs(out.file) + QStringLiteral(": ") + error;
        emit applyFailed(out.undo ? tr("Cannot undo \u201c%1\u201d: %2").arg(title, error)
                                  : tr("Cannot apply \u201c%1\u201d: %2").arg(title, error));
        emit undoAvailableChanged(canUndo());
        return;
    }
    m_undo = out.undo ? nullptr : out.inverse;
    m_undoTitle = out.undo ? QString() : title;
    emit undoAvailableChanged(canUndo());
    m_repository->reload();
    const QString counts = countsText(*out.changes);
    emit applied(out.undo ? tr("Undid \u201c%1\u201d: %2").arg(title, counts)
                          : tr("Applied \u201c%1\u201d: %2").arg(title, counts));
    if (!out.commit)
        return;
    if (out.committed)
        emit committed(qs(out.commitId));
    else
        emit commitFailed(
            tr("The files were changed but not committed: %1").arg(qs(out.commitError)));
}

bool ChangeSession::isBusy() const
{
    return m_busy;
}

bool ChangeSession::canCommit() const
{
    return m_repository->isOpen() && !m_repository->isReadOnly() &&
           m_repository->git().isRepository;
}

void ChangeSession::setBusy(bool busy)
{
    if (m_busy == busy)
        return;
    m_busy = busy;
    emit busyChanged(busy);
    emit undoAvailableChanged(canUndo());
}

QString ChangeSession::countsText(const ChangeSet& changes)
{
    QStringList parts;
    const auto add = [&](FileOperationKind kind, const QString& word) {
        if (const int n = changes.count(kind))
            parts << QStringLiteral("%1 %2").arg(n).arg(word);
    };
    add(FileOperationKind::Create, tr("created"));
    add(FileOperationKind::Modify, tr("modified"));
    add(FileOperationKind::Delete, tr("deleted"));
    return parts.isEmpty() ? tr("no files") : parts.join(QStringLiteral(" \u00b7 "));
}

} // namespace rg
