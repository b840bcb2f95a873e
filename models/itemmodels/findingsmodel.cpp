#include "itemmodels/findingsmodel.h"

#include "sessions/qtext.h"

namespace rg {

FindingsModel::FindingsModel(QObject* parent) : QAbstractTableModel(parent) {}

void FindingsModel::setFindings(std::vector<Finding> findings)
{
    beginResetModel();
    m_findings = std::move(findings);
    endResetModel();
}

const Finding* FindingsModel::finding(const QModelIndex& index) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return nullptr;
    return &m_findings[static_cast<size_t>(index.row())];
}

int FindingsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_findings.size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const
{
    const Finding* f = finding(index);
    if (!f)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case SeverityColumn:
            return qs(severityId(f->severity));
        case LocationColumn:
            if (f->line == 0)
                return f->file.empty() ? QStringLiteral("repository") : QStringLiteral("file");
            return QStringLiteral("%1:%2").arg(f->line).arg(f->column);
        case RuleColumn:
            return qs(f->ruleId);
        case MessageColumn:
            return qs(f->message);
        }
        return {};
    case Qt::ToolTipRole: {
        QString where = qs(f->file);
        if (f->line > 0)
            where += QStringLiteral(":%1:%2").arg(f->line).arg(f->column);
        QString text = QStringLiteral("%1 [%2] %3")
                           .arg(qs(severityId(f->severity)), qs(f->ruleId), qs(f->message));
        if (!where.isEmpty())
            text.prepend(where + QStringLiteral(": "));
        if (f->fix != FixKind::None)
            text += QStringLiteral("\nfix: ") + qs(fixKindId(f->fix));
        return text;
    }
    case Qt::AccessibleTextRole:
        return QStringLiteral("%1 at line %2: %3")
            .arg(qs(severityId(f->severity)))
            .arg(f->line)
            .arg(qs(f->message));
    case SeverityRole:
        return static_cast<int>(f->severity);
    case FileRole:
        return qs(f->file);
    case LineRole:
        return static_cast<int>(f->line);
    case ColumnRole:
        return static_cast<int>(f->column);
    case RangeBeginRole:
        return static_cast<int>(f->range.begin);
    case RangeEndRole:
        return static_cast<int>(f->range.end);
    case RuleRole:
        return qs(f->ruleId);
    case FixRole:
        return qs(fixKindId(f->fix));
    default:
        return {};
    }
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SeverityColumn:
        return tr("Severity");
    case LocationColumn:
        return tr("Line");
    case RuleColumn:
        return tr("Rule");
    case MessageColumn:
        return tr("Message");
    }
    return {};
}

} // namespace rg
