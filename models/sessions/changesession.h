#pragma once

// Change sets for the window: plans them, with the diffs the review shows, and applies them
// off the GUI thread; commits after applying when asked; keeps the inverse of the last apply
// so it can be undone. After an apply or an undo it asks the repository session to re-scan,
// so the grid shows what the files now are.

#include "analysis/analysis.h"
#include "analysis/matrixslice.h"
#include "changes/changeplanner.h"
#include "changes/changeset.h"
#include "changes/unifieddiff.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rg {

class RepositorySession;

class ChangeSession : public QObject
{
    Q_OBJECT
public:
    explicit ChangeSession(RepositorySession* repository, QObject* parent = nullptr);
    ~ChangeSession() override; // waits for a running plan or apply: they hold no pointer to us

    // The targets `action` has among `entries`, as ChangeRequest::cells: the cell keys of
    // missing and gap cells for Create, the recipe paths of broken recipes for Fix, of
    // redundant, unexpected and impossible recipes for Delete, the cell keys of them all for
    // Complete.
    static std::vector<std::string> targetsOf(ChangeAction action,
                                              const std::vector<const Cell*>& entries);

    // Complete Matrix for the grid: with `wholePackage`, every cell of the package the shown
    // slices belong to (the spec's when they name none); otherwise the cells of the shown
    // slices. When the slices span several packages, their cells. Nullopt when there is nothing
    // to complete.
    static std::optional<ChangeRequest> completeRequest(const Analysis* analysis,
                                                        const std::vector<MatrixSlice>& slices,
                                                        bool wholePackage);

    // Starts planning against the repository's current analysis and returns at once: planned()
    // or planFailed() follows. False (and planFailed) when busy or nothing writable is open.
    bool plan(const ChangeRequest& request);
    // The same for any planner (a pin bump, …): run off the GUI thread with the repository's
    // source and analysis, diffs included; it may throw std::exception to fail with a message.
    using Planner = std::function<ChangeSet(std::shared_ptr<const RepositorySource>,
                                            std::shared_ptr<const Analysis>)>;
    bool plan(Planner planner);
    // Writes the selected operations; with `commit`, commits them with `message` afterwards.
    // applied() or applyFailed() follows, then committed() or commitFailed() when committing.
    bool apply(std::shared_ptr<const ChangeSet> changes, bool commit = false,
               const QString& message = {});
    // Applies the inverse of the last apply; refused (applyFailed) when one of its files was
    // changed since.
    bool undo();

    bool isBusy() const;
    bool canUndo() const { return m_undo && !m_undo->operations.empty() && !isBusy(); }
    // The title of the change set Undo would revert ("Create pytorch-python313-cpu-avx2").
    QString undoTitle() const { return m_undoTitle; }
    // Whether the open repository is a git work tree a commit can go to.
    bool canCommit() const;
    // Why a commit cannot be made there ("no git identity: …"), as found when the last plan
    // was made; "" when it can. Apply asks again before writing anything.
    QString commitBlocker() const { return m_commitBlocker; }

    // "2 created · 1 modified · 1 deleted" of the selected operations.
    static QString countsText(const ChangeSet& changes);

signals:
    // `diffs` and `stats` are per operation, in the order of changes.operations.
    void planned(const rg::ChangeSet& changes, const std::vector<std::string>& diffs,
                 const std::vector<rg::DiffStat>& stats);
    void planFailed(const QString& message);
    void applied(const QString& summary);
    void applyFailed(const QString& message); // names the file
    void committed(const QString& id);
    void commitFailed(const QString& message);
    void busyChanged(bool busy);
    void undoAvailableChanged(bool available);

private:
    // A result is copied out of its future, and a change set of hundreds of recipes (their
    // texts and diffs) takes tens of milliseconds to copy, which the GUI thread must not spend:
    // a plan comes back by shared pointer, and an apply holds its change sets by one.
    struct Planned
    {
        ChangeSet changes;
        std::vector<std::string> diffs;
        std::vector<DiffStat> stats;
        std::string error;
        std::string commitBlocker;
    };
    struct Applied
    {
        std::shared_ptr<const ChangeSet> changes;
        std::shared_ptr<const ChangeSet> inverse; // of an apply that succeeded, not of an undo
        bool undo = false;
        bool commit = false;
        bool ok = false;
        std::string file;
        std::string error;
        bool committed = false;
        std::string commitId;
        std::string commitError;
    };

    bool refused(bool planning);
    void planFinished();
    void applyFinished();
    void setBusy(bool busy);
    void startApply(std::shared_ptr<const ChangeSet> changes, bool undo, bool commit,
                    const QString& message);

    RepositorySession* m_repository;
    bool m_busy = false;
    // The inverse of the last apply; null or empty when there is nothing to undo.
    std::shared_ptr<const ChangeSet> m_undo;
    QString m_undoTitle;
    QString m_commitBlocker;
    QFutureWatcher<std::shared_ptr<const Planned>> m_plan;
    QFutureWatcher<Applied> m_apply;
};

} // namespace rg
