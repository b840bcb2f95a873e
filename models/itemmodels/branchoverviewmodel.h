#pragma once

// Every local branch of a repository × its status counts, analysed straight from git
// (no checkout) on a worker thread, one branch after another. Rows appear with "…" once the
// branches are listed and fill in as each branch's analysis ends.

#include "analysis/analysis.h"
#include "analysis/matrixcounts.h"

#include <QAbstractTableModel>
#include <QFuture>
#include <array>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rg {

class BranchOverviewModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // Expected and not expected cells together are every cell but the gaps; the status
    // columns count every cell, whichever of the two it is.
    enum Column { BranchColumn, ExpectedColumn, NotExpectedColumn, FirstStatusColumn };
    enum Role { BranchRole = Qt::UserRole + 1, CountsRole, LoadedRole };

    explicit BranchOverviewModel(QObject* parent = nullptr);
    ~BranchOverviewModel() override;

    // Lists the branches and analyses them, both on a worker thread; `current` is marked as
    // checked out. Rows appear once the listing is in; loading lasts until every row is.
    void setRepository(const QString& repositoryPath, const QString& current = {});
    // No rows, because the work tree at `path` is not in a git repository.
    void setNotGit(const QString& path);
    // What the overview says while it has no rows: why there are none (not a git repository,
    // no branch yet, git's error); empty before a repository is opened.
    QString emptyText() const;
    // The checked-out branch's row shows the work tree as analysed (uncommitted changes
    // included), not its last commit: what the grid shows beside it.
    void setWorkTreeCounts(const MatrixCounts& counts);
    QString repositoryPath() const { return m_path; }
    QString error() const { return m_error; }
    bool isLoading() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

signals:
    void loadingFinished();

private:
    struct Row
    {
        std::string branch;
        bool loaded = false;
        std::string error;
        MatrixCounts counts;
        std::string summary;
    };
    void stop();
    void branchesListed(quint64 generation, const std::vector<std::string>& branches,
                        const std::string& error);
    void branchDone(quint64 generation, int row, std::shared_ptr<Row> result);
    void showWorkTree(Row& row) const;

    QString m_path;
    QString m_current;
    QString m_error;
    bool m_notGit = false;
    bool m_listing = false;
    std::vector<Row> m_rows;
    std::optional<MatrixCounts> m_workTree;
    quint64 m_generation = 0;
    std::shared_ptr<std::atomic_bool> m_cancel;
    // The current repository's work, and earlier ones' still ending after they were cancelled:
    // the model outlives each of them.
    std::vector<QFuture<void>> m_work;
    int m_pendingRows = 0;
};

} // namespace rg
