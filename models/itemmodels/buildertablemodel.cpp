#include "itemmodels/buildertablemodel.h"

#include <QRegularExpression>
#include <algorithm>

namespace rg {

namespace {

constexpr int machineFields = BuilderTableModel::HealthColumn; // the columns that are fields

// A list field as typed ("a, b c") in the machine format's spelling ("a,b,c").
QString listField(const QString& typed)
{
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    return typed.split(separators, Qt::SkipEmptyParts).join(QLatin1Char(','));
}

// The parser names a lone entry "builder 1"; the user sees a row of the table.
QString rowProblem(QString why, int row)
{
    const QString lone = BuilderTableModel::tr("builder %1").arg(1);
    if (why.startsWith(lone))
        why.replace(0, lone.size(), BuilderTableModel::tr("row %1").arg(row + 1));
    return why;
}

bool isListColumn(int column)
{
    return column == BuilderTableModel::SystemsColumn ||
           column == BuilderTableModel::FeaturesColumn ||
           column == BuilderTableModel::MandatoryColumn;
}

} // namespace

BuilderTableModel::BuilderTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void BuilderTableModel::setText(const QString& builders)
{
    beginResetModel();
    m_rows.clear();
    // Entries as BuilderMachine::parse splits them: lines, then ';'.
    for (const QString& line : builders.split(QLatin1Char('\n'))) {
        for (const QString& entry : line.split(QLatin1Char(';'))) {
            const QString text = entry.trimmed();
            if (text.isEmpty())
                continue;
            Row row;
            if (text.startsWith(QLatin1Char('@')) || text.contains(QLatin1Char('#'))) {
                row.verbatim = text;
            } else {
                QStringList errors;
                const QList<BuilderMachine> parsed = BuilderMachine::parse(text, &errors);
                if (parsed.size() == 1 && errors.isEmpty()) {
                    row.machine = parsed.first();
                } else {
                    row.verbatim = text;
                    row.problem = rowProblem(errors.value(0), int(m_rows.size()));
                }
            }
            m_rows << row;
        }
    }
    endResetModel();
}

QString BuilderTableModel::text() const
{
    QStringList lines;
    for (const Row& row : m_rows)
        lines << (row.machine ? row.machine->toLine() : row.verbatim);
    return lines.join(QLatin1Char('\n'));
}

bool BuilderTableModel::allMachines() const
{
    return std::all_of(m_rows.cbegin(), m_rows.cend(),
                       [](const Row& row) { return row.machine.has_value(); });
}

int BuilderTableModel::addMachine()
{
    const int row = int(m_rows.size());
    beginInsertRows({}, row, row);
    BuilderMachine machine;
    machine.uri = QStringLiteral("ssh://");
    m_rows << Row{machine, {}, {}};
    endInsertRows();
    return row;
}

void BuilderTableModel::setHealth(const QList<BuilderHealth>& health)
{
    m_health = health;
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, HealthColumn), index(rowCount() - 1, HealthColumn));
}

int BuilderTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int BuilderTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BuilderTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Row& row = m_rows[index.row()];
    return row.machine ? machineData(*row.machine, index.column(), role)
                       : verbatimData(row, index.column(), role);
}

QVariant BuilderTableModel::machineData(const BuilderMachine& m, int column, int role) const
{
    if (column == HealthColumn)
        return healthData(m, role);
    if (role != Qt::DisplayRole && role != Qt::EditRole && role != Qt::ToolTipRole)
        return {};
    const bool edit = role == Qt::EditRole;
    switch (column) {
    case UriColumn:
        return m.uri;
    case SystemsColumn:
        return m.systems.isEmpty() && !edit ? tr("this machine's")
                                            : m.systems.join(QStringLiteral(", "));
    case KeyColumn:
        return m.sshKey.isEmpty() && !edit ? tr("ssh's own") : m.sshKey;
    case MaxJobsColumn:
        return m.maxJobs;
    case SpeedColumn:
        return m.speedFactor;
    case FeaturesColumn:
        return m.supportedFeatures.join(QStringLiteral(", "));
    case MandatoryColumn:
        return m.mandatoryFeatures.join(QStringLiteral(", "));
    case HostKeyColumn:
        if (edit || role == Qt::ToolTipRole)
            return m.publicHostKey;
        return m.publicHostKey.isEmpty() ? tr("known hosts")
                                         : m.publicHostKey.left(12) + QChar(0x2026);
    }
    return {};
}

QVariant BuilderTableModel::verbatimData(const Row& row, int column, int role) const
{
    if (column != UriColumn)
        return {};
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        return row.verbatim;
    case Qt::ToolTipRole:
        if (!row.problem.isEmpty())
            return row.problem;
        return row.verbatim.startsWith(QLatin1Char('@'))
                   ? tr("The machines this file lists when Nix runs; edit the builders as text "
                        "to change this entry")
                   : tr("Kept as written; edit the builders as text to change it");
    case KindRole:
        return row.problem.isEmpty() ? QStringLiteral("kept") : QStringLiteral("problem");
    }
    return {};
}

QVariant BuilderTableModel::healthData(const BuilderMachine& m, int role) const
{
    const auto it = std::find_if(m_health.cbegin(), m_health.cend(),
                                 [&](const BuilderHealth& h) { return h.uri == m.uri; });
    if (it == m_health.cend())
        return role == Qt::ToolTipRole ? tr("Not checked yet: Test Connections asks it")
                                       : QVariant();
    if (!it->answered) {
        switch (role) {
        case Qt::DisplayRole:
            return tr("asking\u2026");
        case Qt::ToolTipRole:
            return tr("Being asked whether it is reachable (Test Connections, or the build queue "
                      "ahead of a batch)");
        case KindRole:
            return QStringLiteral("asking");
        }
        return {};
    }
    switch (role) {
    case Qt::DisplayRole:
        return it->up ? tr("\u2713 up, %1 ms").arg(it->elapsedMs) : tr("\u2717 down");
    case Qt::ToolTipRole:
        return it->up ? tr("Nix reached it in %1 ms").arg(it->elapsedMs) : it->message;
    case KindRole:
        return it->up ? QStringLiteral("up") : QStringLiteral("down");
    }
    return {};
}

bool BuilderTableModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !(flags(index) & Qt::ItemIsEditable))
        return false;
    Row& row = m_rows[index.row()];
    QString typed = value.toString().trimmed();
    if (isListColumn(index.column()))
        typed = listField(typed);
    if (index.column() == UriColumn && (typed.isEmpty() || typed == QLatin1String("-"))) {
        emit editRejected(tr("row %1: the URI is empty").arg(index.row() + 1));
        return false;
    }
    if (typed.contains(QRegularExpression(QStringLiteral("\\s")))) {
        emit editRejected(tr("%1: a field holds no spaces")
                              .arg(headerData(index.column(), Qt::Horizontal).toString()));
        return false;
    }
    // The machine's line with the field replaced, read back as Nix's format reads it: the
    // parser is the one judge of what a field may hold.
    QStringList fields = row.machine->toLine().split(QLatin1Char(' '));
    fields[index.column()] = typed.isEmpty() ? QStringLiteral("-") : typed;
    QStringList errors;
    const QList<BuilderMachine> parsed =
        BuilderMachine::parse(fields.join(QLatin1Char(' ')), &errors);
    if (parsed.size() != 1 || !errors.isEmpty()) {
        emit editRejected(
            errors.isEmpty() ? tr("row %1: Nix would not read it as a machine").arg(index.row() + 1)
                             : rowProblem(errors.first(), index.row()));
        return false;
    }
    row.machine = parsed.first();
    emit dataChanged(index.siblingAtColumn(0), index.siblingAtColumn(HealthColumn));
    return true;
}

Qt::ItemFlags BuilderTableModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    const Qt::ItemFlags base = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    const bool field = index.column() < machineFields;
    return m_rows[index.row()].machine && field ? base | Qt::ItemIsEditable : base;
}

QVariant BuilderTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    static const char* const titles[] = {
        QT_TR_NOOP("URI"),       QT_TR_NOOP("Systems"),  QT_TR_NOOP("SSH key"),
        QT_TR_NOOP("Max jobs"),  QT_TR_NOOP("Speed"),    QT_TR_NOOP("Features"),
        QT_TR_NOOP("Mandatory"), QT_TR_NOOP("Host key"), QT_TR_NOOP("Health")};
    static const char* const tips[] = {
        QT_TR_NOOP("ssh://user@host or ssh-ng://user@host; store settings after '?'"),
        QT_TR_NOOP("The systems it builds for, comma-separated; empty for this machine's"),
        QT_TR_NOOP("The identity file ssh uses; empty for ssh's own choice"),
        QT_TR_NOOP("Builds it runs at once"),
        QT_TR_NOOP("Nix prefers faster machines: a higher factor gets builds first"),
        QT_TR_NOOP("Features it offers (big-parallel, kvm, …): a recipe that requires one "
                   "goes only to machines that offer it"),
        QT_TR_NOOP("Features a recipe must require to be sent here"),
        QT_TR_NOOP("The host's public key, base64 of its .pub line; empty to trust known_hosts"),
        QT_TR_NOOP("What the last connection check found")};
    if (section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole)
        return tr(titles[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    return {};
}

bool BuilderTableModel::removeRows(int row, int count, const QModelIndex& parent)
{
    if (parent.isValid() || row < 0 || count <= 0 || row + count > m_rows.size())
        return false;
    beginRemoveRows({}, row, row + count - 1);
    m_rows.remove(row, count);
    endRemoveRows();
    return true;
}

} // namespace rg
