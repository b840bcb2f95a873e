#include "itemmodels/alignmentmodel.h"

#include "matrix/versionspelling.h"
#include "sessions/qtext.h"

#include <algorithm>

namespace rg {

namespace {

QString rowName(const AlignmentRowKey& key)
{
    return QStringLiteral("%1 \u00b7 Python %2 \u00b7 %3")
        .arg(qs(key.package), qs(key.python), qs(key.accelerator));
}

} // namespace

AlignmentModel::AlignmentModel(QObject* parent) : QAbstractTableModel(parent) {}

void AlignmentModel::setAlignment(std::shared_ptr<const PinAlignment> alignment)
{
    beginResetModel();
    m_alignment = std::move(alignment);
    m_pins.clear();
    if (m_alignment) {
        for (const AlignmentRow& row : m_alignment->rows())
            for (const AlignmentCell& cell : row.cells)
                for (const auto& [pin, count] : cell.pins)
                    if (std::find(m_pins.begin(), m_pins.end(), pin) == m_pins.end())
                        m_pins.push_back(pin);
    }
    if (!m_alignment || m_home >= static_cast<int>(m_alignment->columns().size()))
        m_home = -1;
    endResetModel();
}

void AlignmentModel::setHomeColumn(int column)
{
    if (column == m_home)
        return;
    m_home = column;
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), {CanAlignRole});
    emit headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
}

int AlignmentModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_alignment ? 0 : static_cast<int>(m_alignment->rows().size());
}

int AlignmentModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_alignment ? 0
                                            : static_cast<int>(m_alignment->columns().size()) + 1;
}

int AlignmentModel::pinIndex(const std::string& pin) const
{
    const auto found = std::find(m_pins.begin(), m_pins.end(), pin);
    return found == m_pins.end() ? -1 : static_cast<int>(found - m_pins.begin());
}

QStringList AlignmentModel::columnErrors() const
{
    QStringList errors;
    if (!m_alignment)
        return errors;
    for (const AlignmentColumn& column : m_alignment->columns())
        if (!column.error.empty())
            errors << QStringLiteral("%1: %2").arg(qs(column.label), qs(column.error));
    return errors;
}

int AlignmentModel::mismatchCount() const
{
    if (!m_alignment)
        return 0;
    const auto& rows = m_alignment->rows();
    return static_cast<int>(
        std::count_if(rows.begin(), rows.end(), [](const AlignmentRow& r) { return r.mismatch; }));
}

bool AlignmentModel::canAlign(const AlignmentRow& row, size_t column) const
{
    if (m_home < 0 || column == static_cast<size_t>(m_home) || !row.mismatch)
        return false;
    const AlignmentCell& home = row.cells[static_cast<size_t>(m_home)];
    const AlignmentCell& other = row.cells[column];
    // alignRequest moves the home cell's most used pin to the other cell's most used one.
    return !home.pins.empty() && !other.pins.empty() && home.pin() != other.pin();
}

QVariant AlignmentModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_alignment)
        return {};
    const AlignmentRow& row = m_alignment->rows()[static_cast<size_t>(index.row())];
    if (role == MismatchRole)
        return row.mismatch;
    if (index.column() == 0)
        return nameData(row, role);
    return cellData(row, static_cast<size_t>(alignmentColumn(index.column())), role);
}

QVariant AlignmentModel::nameData(const AlignmentRow& row, int role) const
{
    switch (role) {
    case Qt::DisplayRole:
        return rowName(row.key);
    case Qt::ToolTipRole:
        return row.mismatch ? tr("%1: the columns disagree on the pin").arg(rowName(row.key))
                            : tr("%1: one pin everywhere").arg(rowName(row.key));
    case PinIndexRole:
        return -1;
    default:
        return {};
    }
}

QVariant AlignmentModel::cellData(const AlignmentRow& row, size_t column, int role) const
{
    const AlignmentCell& cell = row.cells[column];
    const AlignmentColumn& source = m_alignment->columns()[column];
    switch (role) {
    case Qt::DisplayRole: {
        if (cell.pins.empty())
            return QStringLiteral("\u2014");
        QStringList parts;
        for (const auto& [pin, count] : cell.pins)
            parts << (cell.pins.size() > 1
                          ? QStringLiteral("%1 \u00d7%2").arg(qs(shortRevision(pin))).arg(count)
                          : qs(shortRevision(pin)));
        return parts.join(QStringLiteral(", "));
    }
    case Qt::ToolTipRole: {
        if (!source.error.empty())
            return qs(source.error);
        if (cell.pins.empty())
            return tr("%1 has no recipe of this row").arg(qs(source.label));
        QStringList lines;
        for (const auto& [pin, count] : cell.pins)
            lines << qs(pin) + QStringLiteral(": ") +
                         counted(count, tr("1 recipe"), tr("%1 recipes"));
        return lines.join(QLatin1Char('\n'));
    }
    case PinRole:
        return qs(cell.pin());
    case PinIndexRole:
        return cell.pins.empty() ? -1 : pinIndex(cell.pin());
    case RecipesRole:
        return cell.recipes();
    case ColumnErrorRole:
        return qs(source.error);
    case CanAlignRole:
        return canAlign(row, column);
    default:
        return {};
    }
}

QVariant AlignmentModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    if (section == 0)
        return role == Qt::DisplayRole ? tr("Package \u00b7 Python \u00b7 Accelerator")
                                       : QVariant();
    const size_t column = static_cast<size_t>(alignmentColumn(section));
    const AlignmentColumn& source = m_alignment->columns()[column];
    const bool home = static_cast<int>(column) == m_home;
    switch (role) {
    case Qt::DisplayRole: {
        const QString label = qs(source.label);
        if (!source.error.empty())
            return label + QStringLiteral("\n\u26a0 ") + tr("not readable");
        const QString commit =
            source.commitId.empty() ? tr("no commit") : qs(shortRevision(source.commitId));
        // The column a bump changes says so where the eye reads the columns.
        return label + QLatin1Char('\n') + (home ? tr("open here \u00b7 %1").arg(commit) : commit);
    }
    case Qt::ToolTipRole: {
        QString text = qs(source.source.repository);
        if (!source.source.revision.empty())
            text += QStringLiteral(" @ ") + qs(source.source.revision);
        if (home)
            text +=
                QLatin1Char('\n') + tr("The open work tree: Align to\u2026 changes its recipes");
        if (!source.error.empty())
            return text + QLatin1Char('\n') + qs(source.error);
        return text + QLatin1Char('\n') + counted(source.recipes, tr("1 recipe"), tr("%1 recipes"));
    }
    case ColumnErrorRole:
        return qs(source.error);
    case HomeRole:
        return home;
    default:
        return {};
    }
}

} // namespace rg
