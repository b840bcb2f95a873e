#pragma once

// The jobs list: this session's jobs (live, from BuildQueue) and earlier sessions' jobs (from
// BuildHistory), newest first, one row per job, each with where it ran: repository, branch,
// commit (the Source column).

#include "builds/buildrecord.h"

#include <QAbstractTableModel>
#include <vector>

class QTimer;

namespace rg {

class BuildHistory;
class BuildQueue;

class BuildJobsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        VariantColumn,
        SourceColumn, // "repo @ branch · 1a2b3c4"; the tooltip has the path, commit and key
        KindColumn,
        BackendColumn,
        BuilderColumn, // where Nix built it: "user@host", "this machine"; "" before a build
        StateColumn,
        ProgressColumn,
        StartedColumn,
        DurationColumn, // elapsed for running jobs, "~ETA" for queued ones
        VerificationColumn,
        ClosureSizeColumn,
        CommandColumn,
        ColumnCount
    };
    enum Role {
        JobIdRole = Qt::UserRole + 1, // quint64
        StateRole,                    // int(JobState)
        ProgressRole,                 // double 0..1, -1 when unknown
        LogPathRole,                  // QString
        VariantRole,                  // QString
        IsLiveRole,                   // bool: in this session's queue
        VerificationStatusRole,       // int(VerificationResult::Status)
        EstimatedRemainingRole,       // qint64 ms, -1 when unknown
        RepositoryRole,               // QString, the work tree's canonical path
        BranchRole,                   // QString, "" when detached, not git, or not recorded
        CommitRole,                   // QString, 40 hex; "" when not git or not recorded
        ContentKeyRole,               // QString, "" for records from before content keys
    };

    // Neither is owned; either may be null.
    BuildJobsModel(BuildQueue* queue, BuildHistory* history, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    quint64 jobId(int row) const;
    int rowOf(quint64 id) const; // -1 when absent
    const BuildRecord* record(int row) const;

    // "build-pytorch @ main · 1a2b3c4", "build-pytorch" without git; "" without a repository.
    static QString formatSource(const BuildRecord& record);
    static QString builderToolTip(const BuildRecord& record);

private:
    void jobAdded(quint64 id);
    void jobChanged(quint64 id);
    void tick();
    void reload();
    qint64 remainingMs(const BuildRecord& record) const;
    QVariant toolTip(const BuildRecord& record, int column) const;
    QVariant displayText(const BuildRecord& record, int column) const;

    BuildQueue* m_queue;
    BuildHistory* m_history;
    std::vector<quint64> m_ids; // descending: newest first
    QTimer* m_tick;
};

} // namespace rg
