#include "itemmodels/buildjobsmodel.h"

#include "builds/buildhistory.h"
#include "builds/buildqueue.h"

#include <QFileInfo>
#include <QLocale>
#include <QTimer>
#include <algorithm>

namespace rg {

BuildJobsModel::BuildJobsModel(BuildQueue* queue, BuildHistory* history, QObject* parent)
    : QAbstractTableModel(parent), m_queue(queue), m_history(history), m_tick(new QTimer(this))
{
    reload();
    if (m_queue) {
        connect(m_queue, &BuildQueue::jobQueued, this, &BuildJobsModel::jobAdded);
        connect(m_queue, &BuildQueue::jobStarted, this, &BuildJobsModel::jobChanged);
        connect(m_queue, &BuildQueue::jobProgress, this, &BuildJobsModel::jobChanged);
        connect(m_queue, &BuildQueue::jobPlaced, this, &BuildJobsModel::jobChanged);
        connect(m_queue, &BuildQueue::jobVerificationStarted, this, &BuildJobsModel::jobChanged);
        connect(m_queue, &BuildQueue::jobFinished, this, &BuildJobsModel::jobChanged);
    }
    // Elapsed times of running jobs move on their own.
    m_tick->setInterval(1000);
    connect(m_tick, &QTimer::timeout, this, &BuildJobsModel::tick);
    m_tick->start();
}

void BuildJobsModel::reload()
{
    beginResetModel();
    m_ids.clear();
    if (m_history) {
        for (const BuildRecord& r : m_history->records())
            m_ids.push_back(r.id);
    }
    if (m_queue) {
        for (quint64 id : m_queue->jobIds())
            m_ids.push_back(id);
    }
    std::sort(m_ids.begin(), m_ids.end(), std::greater<>());
    m_ids.erase(std::unique(m_ids.begin(), m_ids.end()), m_ids.end());
    endResetModel();
}

int BuildJobsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_ids.size());
}

int BuildJobsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

quint64 BuildJobsModel::jobId(int row) const
{
    return row >= 0 && row < int(m_ids.size()) ? m_ids[std::size_t(row)] : 0;
}

int BuildJobsModel::rowOf(quint64 id) const
{
    const auto it = std::lower_bound(m_ids.begin(), m_ids.end(), id, std::greater<>());
    return it != m_ids.end() && *it == id ? int(it - m_ids.begin()) : -1;
}

const BuildRecord* BuildJobsModel::record(int row) const
{
    const quint64 id = jobId(row);
    if (id == 0)
        return nullptr;
    if (m_queue) {
        if (const BuildRecord* live = m_queue->job(id))
            return live;
    }
    return m_history ? m_history->record(id) : nullptr;
}

void BuildJobsModel::jobAdded(quint64 id)
{
    if (rowOf(id) >= 0) {
        jobChanged(id);
        return;
    }
    const auto it = std::lower_bound(m_ids.begin(), m_ids.end(), id, std::greater<>());
    const int row = int(it - m_ids.begin());
    beginInsertRows({}, row, row);
    m_ids.insert(it, id);
    endInsertRows();
}

void BuildJobsModel::jobChanged(quint64 id)
{
    const int row = rowOf(id);
    if (row >= 0)
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void BuildJobsModel::tick()
{
    if (!m_queue || !m_queue->hasRunningJobs())
        return;
    for (int row = 0; row < int(m_ids.size()); ++row) {
        const BuildRecord* r = record(row);
        if (r && !r->isFinished())
            emit dataChanged(index(row, DurationColumn), index(row, DurationColumn));
    }
}

qint64 BuildJobsModel::remainingMs(const BuildRecord& r) const
{
    if (r.isFinished() || !m_queue)
        return -1;
    const auto estimate = m_queue->estimatedDurationMs(r.id);
    if (!estimate)
        return -1;
    return std::max<qint64>(0, *estimate - std::max<qint64>(0, r.durationMs()));
}

QString BuildJobsModel::formatSource(const BuildRecord& r)
{
    if (r.repository.isEmpty())
        return {};
    QString text = QFileInfo(r.repository).fileName();
    if (text.isEmpty())
        text = r.repository;
    if (!r.branch.isEmpty())
        text += QStringLiteral(" @ ") + r.branch;
    if (!r.commit.isEmpty())
        text += QStringLiteral(" \u00b7 ") + r.commit.left(7);
    return text;
}

// Tooltips hold what a cell has no room for: the whole source with its content key, the
// reasons, the command.
QVariant BuildJobsModel::toolTip(const BuildRecord& r, int column) const
{
    if (column == SourceColumn) {
        QStringList lines{r.repository.isEmpty() ? tr("repository not recorded") : r.repository};
        if (!r.branch.isEmpty() || !r.commit.isEmpty())
            lines << tr("branch %1, commit %2")
                         .arg(r.branch.isEmpty() ? tr("(none)") : r.branch,
                              r.commit.isEmpty() ? tr("(none)") : r.commit);
        lines << (r.contentKey.isEmpty() ? tr("recorded before content keys: shown on no grid cell")
                                         : tr("recipe content %1").arg(r.contentKey));
        return lines.join(QLatin1Char('\n'));
    }
    if (column == VerificationColumn && !r.verification.reason.isEmpty())
        return r.verification.reason;
    if (column == StateColumn && !r.error.isEmpty())
        return r.error;
    if (column == BuilderColumn)
        return builderToolTip(r);
    if (column == StartedColumn && r.startedAt.isValid())
        return r.startedAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    if (column == CommandColumn || column == VariantColumn)
        return r.command;
    return {};
}

// Every derivation the job built and where, and every builder that could not take one: a torch
// build's inputs may go to other machines than torch itself.
QString BuildJobsModel::builderToolTip(const BuildRecord& r)
{
    QStringList lines;
    for (const BuildPlacement& p : r.placements) {
        const QString name = QFileInfo(p.derivation).fileName();
        lines << (p.isFailure() ? tr("%1 could not build: %2").arg(p.machineLabel(), p.failure)
                                : tr("%1 built on %2").arg(name, p.machineLabel()));
    }
    return lines.join(QLatin1Char('\n'));
}

QVariant BuildJobsModel::displayText(const BuildRecord& r, int column) const
{
    switch (Column(column)) {
    case VariantColumn:
        return r.variant;
    case SourceColumn:
        return formatSource(r);
    case KindColumn:
        return jobKindName(r.kind);
    case BackendColumn:
        return backendKindName(r.backend);
    case BuilderColumn:
        return r.builderLabel();
    case StateColumn:
        return jobStateName(r.state);
    case ProgressColumn:
        if (r.progressTotal <= 0)
            return {};
        return QStringLiteral("%1/%2 (%3%)")
            .arg(r.progressDone)
            .arg(r.progressTotal)
            .arg(100 * qint64(r.progressDone) / r.progressTotal);
    case StartedColumn: {
        // Today's jobs by their time alone: the column stays narrow enough to read whole.
        const QDateTime started = r.startedAt.toLocalTime();
        if (!started.isValid())
            return QString();
        return started.date() == QDate::currentDate()
                   ? started.toString(QStringLiteral("HH:mm:ss"))
                   : started.toString(QStringLiteral("yyyy-MM-dd HH:mm"));
    }
    case DurationColumn: {
        if (r.state == JobState::Queued) {
            const qint64 remaining = remainingMs(r);
            return remaining < 0 ? QString() : QStringLiteral("~") + formatDuration(remaining);
        }
        return formatDuration(r.durationMs());
    }
    case VerificationColumn:
        if (r.verification.status == VerificationResult::Status::NotRun)
            return r.verification.reason;
        return VerificationResult::statusName(r.verification.status);
    case ClosureSizeColumn:
        return r.closureSize < 0 ? QString() : QLocale().formattedDataSize(r.closureSize);
    case CommandColumn:
        return r.command;
    case ColumnCount:
        break;
    }
    return {};
}

QVariant BuildJobsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const BuildRecord* r = record(index.row());
    if (!r)
        return {};
    switch (role) {
    case JobIdRole:
        return QVariant::fromValue(r->id);
    case StateRole:
        return int(r->state);
    case ProgressRole:
        return r->progressTotal > 0 ? double(r->progressDone) / r->progressTotal : -1.0;
    case LogPathRole:
        return r->logPath;
    case VariantRole:
        return r->variant;
    case IsLiveRole:
        return m_queue && m_queue->job(r->id) != nullptr;
    case VerificationStatusRole:
        return int(r->verification.status);
    case EstimatedRemainingRole:
        return remainingMs(*r);
    case RepositoryRole:
        return r->repository;
    case BranchRole:
        return r->branch;
    case CommitRole:
        return r->commit;
    case ContentKeyRole:
        return r->contentKey;
    case Qt::ToolTipRole:
        return toolTip(*r, index.column());
    case Qt::DisplayRole:
        return displayText(*r, index.column());
    default:
        return {};
    }
}

QVariant BuildJobsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case VariantColumn:
        return tr("Variant");
    case SourceColumn:
        return tr("Source");
    case KindColumn:
        return tr("Kind");
    case BackendColumn:
        return tr("Backend");
    case BuilderColumn:
        return tr("Builder");
    case StateColumn:
        return tr("State");
    case ProgressColumn:
        return tr("Progress");
    case StartedColumn:
        return tr("Started");
    case DurationColumn:
        return tr("Duration");
    case VerificationColumn:
        return tr("Verification");
    case ClosureSizeColumn:
        return tr("Closure size");
    case CommandColumn:
        return tr("Command");
    case ColumnCount:
        break;
    }
    return {};
}

QHash<int, QByteArray> BuildJobsModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
    names.insert(JobIdRole, "jobId");
    names.insert(StateRole, "state");
    names.insert(ProgressRole, "progress");
    names.insert(LogPathRole, "logPath");
    names.insert(VariantRole, "variant");
    names.insert(IsLiveRole, "isLive");
    names.insert(VerificationStatusRole, "verificationStatus");
    names.insert(EstimatedRemainingRole, "estimatedRemaining");
    names.insert(RepositoryRole, "repository");
    names.insert(BranchRole, "branch");
    names.insert(CommitRole, "commit");
    names.insert(ContentKeyRole, "contentKey");
    return names;
}

} // namespace rg
