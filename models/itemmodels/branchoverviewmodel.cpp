#include "itemmodels/branchoverviewmodel.h"

#include "analysis/analyzer.h"
#include "sessions/backgroundpool.h"
#include "sessions/qtext.h"
#include "vcs/sessiongitinfo.h"

#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace rg {

BranchOverviewModel::BranchOverviewModel(QObject* parent) : QAbstractTableModel(parent) {}

BranchOverviewModel::~BranchOverviewModel()
{
    stop();
    for (QFuture<void>& work : m_work)
        work.waitForFinished();
}

void BranchOverviewModel::stop()
{
    // The old repository's work is told to stop and left to end by itself: what it still
    // reports carries the old generation and is dropped. Waiting for it here would hold the GUI
    // thread for as long as git lists refs or one branch's analysis lasts.
    if (m_cancel)
        m_cancel->store(true);
    ++m_generation;
}

bool BranchOverviewModel::isLoading() const
{
    return m_listing || m_pendingRows > 0;
}

void BranchOverviewModel::setNotGit(const QString& path)
{
    stop();
    beginResetModel();
    m_rows.clear();
    m_workTree.reset();
    m_path = path;
    m_error.clear();
    m_notGit = true;
    m_listing = false;
    m_pendingRows = 0;
    endResetModel();
}

QString BranchOverviewModel::emptyText() const
{
    if (!m_rows.empty() || m_path.isEmpty())
        return {};
    if (m_listing)
        return tr("Listing the branches of %1\u2026").arg(m_path);
    if (m_notGit)
        return tr("%1 is not in a git repository. In one, every local branch shows here with "
                  "its counts, each analysed from git without a checkout.")
            .arg(m_path);
    if (!m_error.isEmpty())
        return tr("The branches of %1 cannot be listed: %2").arg(m_path, m_error);
    return tr("No branch of %1 has a commit yet: a branch shows here once it has one.").arg(m_path);
}

void BranchOverviewModel::setRepository(const QString& repositoryPath, const QString& current)
{
    stop();
    beginResetModel();
    m_path = repositoryPath;
    m_current = current;
    m_workTree.reset();
    m_error.clear();
    m_notGit = false;
    m_listing = true;
    m_rows.clear();
    m_pendingRows = 0;
    endResetModel();

    m_cancel = std::make_shared<std::atomic_bool>(false);
    const auto cancel = m_cancel;
    const quint64 generation = m_generation;
    const std::string path = repositoryPath.toStdString();
    QPointer<BranchOverviewModel> self(this);
    // Listing reads the repository's refs, so it runs here too, not on the caller's (GUI)
    // thread. One branch at a time: the overview must not starve the open repository's own scan.
    std::erase_if(m_work, [](const QFuture<void>& work) { return work.isFinished(); });
    m_work.push_back(QtConcurrent::run(backgroundPool(), [self, cancel, generation, path]() {
        std::string listError;
        const std::vector<std::string> branches = SessionGitInfo::localBranches(path, &listError);
        QMetaObject::invokeMethod(
            self.data(),
            [self, generation, branches, listError]() {
                if (self)
                    self->branchesListed(generation, branches, listError);
            },
            Qt::QueuedConnection);
        const Analyzer analyzer;
        AnalyzerOptions options;
        options.threads = 1;
        for (size_t i = 0; i < branches.size() && !cancel->load(); ++i) {
            auto row = std::make_shared<Row>();
            row->branch = branches[i];
            std::string error;
            if (auto source = openGitRevision(path, branches[i], &error)) {
                const Analysis analysis = analyzer.analyze(*source, options);
                row->counts = MatrixCounts::of(analysis);
                row->summary = row->counts.summary();
            } else {
                row->error = error;
            }
            row->loaded = true;
            QMetaObject::invokeMethod(
                self.data(),
                [self, generation, i, row]() {
                    if (self)
                        self->branchDone(generation, static_cast<int>(i), row);
                },
                Qt::QueuedConnection);
        }
    }));
}

void BranchOverviewModel::branchesListed(quint64 generation,
                                         const std::vector<std::string>& branches,
                                         const std::string& error)
{
    if (generation != m_generation)
        return;
    // A reset, also without rows: the view then paints why it is empty instead of "Listing…".
    beginResetModel();
    m_listing = false;
    m_error = qs(error);
    for (const std::string& branch : branches) {
        Row row;
        row.branch = branch;
        showWorkTree(row);
        m_rows.push_back(std::move(row));
    }
    m_pendingRows = static_cast<int>(m_rows.size());
    endResetModel();
    if (m_rows.empty())
        emit loadingFinished();
}

void BranchOverviewModel::branchDone(quint64 generation, int row, std::shared_ptr<Row> result)
{
    if (generation != m_generation || row >= static_cast<int>(m_rows.size()))
        return;
    m_rows[static_cast<size_t>(row)] = *result;
    showWorkTree(m_rows[static_cast<size_t>(row)]);
    emit dataChanged(index(row, 0), index(row, columnCount() - 1));
    if (--m_pendingRows == 0)
        emit loadingFinished();
}

void BranchOverviewModel::setWorkTreeCounts(const MatrixCounts& counts)
{
    m_workTree = counts;
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (qs(m_rows[i].branch) == m_current) {
            showWorkTree(m_rows[i]);
            const int row = static_cast<int>(i);
            emit dataChanged(index(row, 0), index(row, columnCount() - 1));
        }
}

void BranchOverviewModel::showWorkTree(Row& row) const
{
    if (!m_workTree || qs(row.branch) != m_current)
        return;
    row.loaded = true;
    row.error.clear();
    row.counts = *m_workTree;
    row.summary = m_workTree->summary() + " (work tree)";
}

int BranchOverviewModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int BranchOverviewModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : FirstStatusColumn + cellStatusCount;
}

QVariant BranchOverviewModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Row& row = m_rows[static_cast<size_t>(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        if (column == BranchColumn) {
            return qs(row.branch) == m_current ? qs(row.branch) + QStringLiteral(" (checked out)")
                                               : qs(row.branch);
        }
        if (!row.loaded)
            return QStringLiteral("\u2026");
        if (!row.error.empty())
            return column == ExpectedColumn ? QStringLiteral("error") : QString();
        if (column == ExpectedColumn)
            return row.counts.expectedTotal();
        if (column == NotExpectedColumn)
            return row.counts.notExpectedTotal();
        return row.counts.byStatus()[static_cast<size_t>(column - FirstStatusColumn)];
    case Qt::ToolTipRole:
        if (!row.error.empty())
            return qs(row.branch) + QStringLiteral(": ") + qs(row.error);
        return row.loaded ? qs(row.branch) + QStringLiteral(": ") + qs(row.summary)
                          : tr("%1: analysing…").arg(qs(row.branch));
    case Qt::TextAlignmentRole:
        return column == BranchColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                      : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case BranchRole:
        return qs(row.branch);
    case LoadedRole:
        return row.loaded;
    case CountsRole: {
        QVariantList counts;
        for (int count : row.counts.byStatus())
            counts << count;
        return counts;
    }
    default:
        return {};
    }
}

QVariant BranchOverviewModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    if (section == BranchColumn)
        return tr("Branch");
    if (section == ExpectedColumn)
        return role == Qt::DisplayRole
                   ? tr("expected")
                   : tr("Cells the branch's spec expects (inferred from the recipes without "
                        "one), whatever their status");
    if (section == NotExpectedColumn)
        return role == Qt::DisplayRole
                   ? tr("not expected")
                   : tr("Recipes outside the expected cells: redundant copies, unexpected "
                        "variants, companions an inferred spec does not cover");
    if (section >= FirstStatusColumn && section < FirstStatusColumn + cellStatusCount) {
        const QString status =
            qs(std::string(cellStatusId(static_cast<CellStatus>(section - FirstStatusColumn))));
        return role == Qt::DisplayRole ? status
                                       : tr("Cells that are %1, expected or not").arg(status);
    }
    return {};
}

} // namespace rg
