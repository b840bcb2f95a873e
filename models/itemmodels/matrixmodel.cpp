#include "itemmodels/matrixmodel.h"

#include "analysis/ruleset.h"
#include "matrix/versionspelling.h"
#include "sessions/qtext.h"

#include <QDateTime>
#include <algorithm>
#include <map>
#include <set>

namespace rg {

namespace {

QString familyName(CpuFamily family)
{
    switch (family) {
    case CpuFamily::X86:
        return QStringLiteral("x86");
    case CpuFamily::Arm:
        return QStringLiteral("ARM");
    case CpuFamily::Apple:
        return QStringLiteral("Apple");
    }
    return {};
}

// What an empty status says when the analyzer gave no reason.
QString defaultReason(const Cell& entry)
{
    switch (entry.status) {
    case CellStatus::Missing:
        return QStringLiteral("expected by the spec, no recipe file");
    case CellStatus::Unexpected:
        return QStringLiteral("present, not in the spec");
    case CellStatus::Ok:
        return QStringLiteral("no findings");
    default:
        return {};
    }
}

QString entryReason(const Cell& entry)
{
    return entry.reason.empty() ? defaultReason(entry) : qs(entry.reason);
}

// The warning finding a status is named after, which the status word already says.
bool namesStatus(const Finding& finding, CellStatus status)
{
    switch (status) {
    case CellStatus::Unexpected:
        return finding.ruleId == rule::unexpectedVariant;
    case CellStatus::Redundant:
        return finding.ruleId == rule::duplicateVariant ||
               finding.ruleId == rule::nonstandardSuffix;
    case CellStatus::Impossible:
        return finding.ruleId == rule::impossiblePairing;
    case CellStatus::Missing:
        return finding.ruleId == rule::missingVariant;
    case CellStatus::Unchecked:
        return finding.ruleId == rule::nestedTooDeep;
    default:
        return false;
    }
}

bool countsAsWarning(const Cell& entry, const Finding& finding)
{
    return finding.severity == Severity::Warning && !namesStatus(finding, entry.status);
}

// "ok, 2 warnings: deprecated pytorch attribute; unpinned <nixpkgs>", "broken — pin differs".
// An ok cell's reason is all warnings and infos, so the warnings lead; any other status keeps
// its own reason first.
QString statusText(const Cell& entry)
{
    QString text = qs(cellStatusId(entry.status));
    const int warnings = MatrixModel::warningCount(entry);
    const QString reason = entryReason(entry);
    if (warnings == 0)
        return reason.isEmpty() ? text : text + QStringLiteral(" \u2014 ") + reason;
    text += warnings == 1 ? QStringLiteral(", 1 warning")
                          : QStringLiteral(", %1 warnings").arg(warnings);
    if (entry.status != CellStatus::Ok)
        return reason.isEmpty() ? text : text + QStringLiteral(" \u2014 ") + reason;
    QStringList titles, others;
    for (const Finding& finding : entry.findings) {
        const RuleInfo* info = RuleSet::rule(finding.ruleId);
        const QString title = info ? qs(info->title) : qs(finding.ruleId);
        QStringList& list = countsAsWarning(entry, finding) ? titles : others;
        if (!titles.contains(title) && !others.contains(title))
            list << title;
    }
    text += QStringLiteral(": ") + titles.join(QStringLiteral("; "));
    if (!others.isEmpty())
        text += QStringLiteral(" \u2014 ") + others.join(QStringLiteral("; "));
    return text;
}

} // namespace

MatrixModel::MatrixModel(QObject* parent) : QAbstractTableModel(parent) {}

void MatrixModel::setAnalysis(std::shared_ptr<const Analysis> analysis)
{
    m_analysis = std::move(analysis);
    rebuild();
}

void MatrixModel::setSlices(std::vector<MatrixSlice> slices)
{
    if (slices == m_slices)
        return;
    m_slices = std::move(slices);
    rebuild();
}

void MatrixModel::setShowAll(bool showAll)
{
    if (showAll == m_showAll)
        return;
    m_showAll = showAll;
    rebuild();
}

void MatrixModel::setFilter(const QString& text, unsigned statusMask, bool warningsOnly)
{
    const QString trimmed = text.trimmed();
    statusMask &= allStatuses;
    if (trimmed == m_filterText && statusMask == m_statusMask && warningsOnly == m_warningsOnly)
        return;
    m_filterText = trimmed;
    m_statusMask = statusMask;
    m_warningsOnly = warningsOnly;
    rebuild();
}

int MatrixModel::warningCount(const Cell& entry)
{
    if (!entry.recipe)
        return 0;
    return static_cast<int>(
        std::count_if(entry.findings.begin(), entry.findings.end(),
                      [&](const Finding& finding) { return countsAsWarning(entry, finding); }));
}

int MatrixModel::countWithWarnings(const Analysis& analysis)
{
    return static_cast<int>(
        std::count_if(analysis.cells.begin(), analysis.cells.end(),
                      [](const Cell& entry) { return warningCount(entry) > 0; }));
}

void MatrixModel::setBuildStateProvider(BuildStateProvider provider)
{
    m_buildState = std::move(provider);
    if (rowCount() > 0 && columnCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), {BuildStateRole});
}

void MatrixModel::setPinProvider(PinProvider provider)
{
    m_pins = std::move(provider);
    if (rowCount() > 0 && columnCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), {PinsRole});
}

void MatrixModel::buildStateChanged(const std::string& variantName)
{
    const QModelIndex cell = indexOf(CellSelector(variantName));
    if (cell.isValid())
        emit dataChanged(cell, cell, {BuildStateRole, Qt::ToolTipRole});
}

bool MatrixModel::filterActive() const
{
    return !m_filterText.isEmpty() || m_statusMask != allStatuses || m_warningsOnly;
}

void MatrixModel::rebuild()
{
    const std::vector<Cell> noEntries;
    const std::vector<Cell>& entries = m_analysis ? m_analysis->cells : noEntries;
    std::vector<Row> rows;
    std::vector<Column> columns;
    axesOf(entries, rows, columns);

    const bool sameShape = rows == m_rows && columns == m_columns;
    if (!sameShape)
        beginResetModel();
    m_rows = std::move(rows);
    m_columns = std::move(columns);

    const size_t sliceCount = m_slices.size();
    m_cells.assign(m_rows.size() * m_columns.size() * sliceCount, MatrixCellSlice{});
    m_matches.assign(m_rows.size() * m_columns.size(), 1);
    placeEntries(entries);
    if (m_analysis)
        identifyCells();
    if (filterActive())
        matchFilter(entries);

    if (!sameShape) {
        endResetModel();
    } else if (!m_rows.empty() && !m_columns.empty()) {
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
        emit headerDataChanged(Qt::Vertical, 0, rowCount() - 1);
        emit headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
    }
}

// The catalog's order, restricted to what the repository or spec mentions (all with "show
// all"); archs and ISAs the catalog does not know come after.
void MatrixModel::axesOf(const std::vector<Cell>& entries, std::vector<Row>& rows,
                         std::vector<Column>& columns) const
{
    std::set<std::string> archs, isas;
    bool hasCpu = false, hasDarwin = false;
    for (const Cell& entry : entries) {
        const VariantName& name = entry.variant;
        if (name.accelerator == Accelerator::Cuda)
            archs.insert(name.gpuArch);
        hasCpu |= name.accelerator == Accelerator::Cpu;
        hasDarwin |= name.accelerator == Accelerator::Darwin;
        isas.insert(name.isa);
    }
    if (m_analysis) {
        for (const GpuArch& arch : m_analysis->catalog.gpuArchs()) {
            if (m_showAll || archs.erase(arch.id))
                rows.push_back({RowKind::Gpu, arch.id, &arch});
        }
        for (const std::string& unknown : archs)
            rows.push_back({RowKind::Gpu, unknown, nullptr});
        if (m_showAll || hasCpu)
            rows.push_back({RowKind::Cpu, "cpu", nullptr});
        if (m_showAll || hasDarwin)
            rows.push_back({RowKind::Darwin, "darwin", nullptr});
        for (const CpuIsa& isa : m_analysis->catalog.isas()) {
            if (m_showAll || isas.erase(isa.id))
                columns.push_back({isa.id, &isa});
        }
        for (const std::string& unknown : isas)
            columns.push_back({unknown, nullptr});
    }
}

// Each entry into the cell of its row and column, per selected slice that contains it; a
// plain recipe is the cell's primary, suffixed ones are extras beside it.
void MatrixModel::placeEntries(const std::vector<Cell>& entries)
{
    const size_t sliceCount = m_slices.size();
    std::map<std::pair<RowKind, std::string>, size_t> rowOf;
    for (size_t r = 0; r < m_rows.size(); ++r)
        rowOf[{m_rows[r].kind, m_rows[r].id}] = r;
    std::map<std::string, size_t> columnOf;
    for (size_t c = 0; c < m_columns.size(); ++c)
        columnOf[m_columns[c].isa] = c;

    for (size_t i = 0; i < entries.size(); ++i) {
        const VariantName& name = entries[i].variant;
        const RowKind kind = name.accelerator == Accelerator::Cuda  ? RowKind::Gpu
                             : name.accelerator == Accelerator::Cpu ? RowKind::Cpu
                                                                    : RowKind::Darwin;
        const auto row = rowOf.find({kind, kind == RowKind::Gpu   ? name.gpuArch
                                           : kind == RowKind::Cpu ? std::string("cpu")
                                                                  : std::string("darwin")});
        const auto column = columnOf.find(name.isa);
        if (row == rowOf.end() || column == columnOf.end())
            continue;
        for (size_t s = 0; s < sliceCount; ++s) {
            if (!m_slices[s].contains(entries[i]))
                continue;
            MatrixCellSlice& cell =
                m_cells[(row->second * m_columns.size() + column->second) * sliceCount + s];
            const bool plain = name.suffixes.empty();
            if (cell.primary < 0) {
                cell.primary = static_cast<int>(i);
            } else if (plain &&
                       !entries[static_cast<size_t>(cell.primary)].variant.suffixes.empty()) {
                // The plain recipe is the cell's own; the suffixed one is an extra beside it.
                cell.extras.insert(cell.extras.begin(), cell.primary);
                cell.primary = static_cast<int>(i);
            } else {
                cell.extras.push_back(static_cast<int>(i));
            }
        }
    }
}

// Impossible pairings, per slice because the CUDA version and the package matter (sm110
// needs 13.0, vLLM needs 7.0); the same verdict the cell assignment gives a recipe there.
// Every slice of every cell gets its identity, and whether it can exist: the recipe's own cell
// where one is placed, else the point the row, column and slice name.
void MatrixModel::identifyCells()
{
    const size_t sliceCount = m_slices.size();
    for (size_t r = 0; r < m_rows.size(); ++r) {
        for (size_t c = 0; c < m_columns.size(); ++c) {
            for (size_t s = 0; s < sliceCount; ++s) {
                MatrixCellSlice& cell = m_cells[(r * m_columns.size() + c) * sliceCount + s];
                const VariantName name = pointName(r, c, s);
                cell.id = cell.primary >= 0
                              ? m_analysis->cells[static_cast<size_t>(cell.primary)].id
                              : CellId::of(name);
                if (!m_columns[c].info)
                    continue;
                const Feasibility feasibility = m_analysis->catalog.feasibility(name);
                cell.impossible = !feasibility.possible();
                cell.impossibleWhy = feasibility.why();
            }
        }
    }
}

VariantName MatrixModel::pointName(size_t row, size_t column, size_t slice) const
{
    VariantName name;
    name.package =
        m_slices[slice].package.empty() ? m_analysis->spec.package : m_slices[slice].package;
    name.python = m_slices[slice].python;
    name.isa = m_columns[column].isa;
    switch (m_rows[row].kind) {
    case RowKind::Gpu:
        name.accelerator = Accelerator::Cuda;
        name.cuda = m_slices[slice].cuda;
        name.gpuArch = m_rows[row].id;
        break;
    case RowKind::Cpu:
        name.accelerator = Accelerator::Cpu;
        break;
    case RowKind::Darwin:
        name.accelerator = Accelerator::Darwin;
        break;
    }
    return name;
}

void MatrixModel::matchFilter(const std::vector<Cell>& entries)
{
    const size_t sliceCount = m_slices.size();
    for (size_t cellIndex = 0; cellIndex < m_matches.size(); ++cellIndex) {
        bool match = false;
        bool impossibleEmpty = sliceCount > 0;
        for (size_t s = 0; s < sliceCount && !match; ++s) {
            const MatrixCellSlice& cell = m_cells[cellIndex * sliceCount + s];
            if (cell.primary >= 0)
                match |= entryMatchesFilter(entries[static_cast<size_t>(cell.primary)]);
            for (int extra : cell.extras)
                match |= entryMatchesFilter(entries[static_cast<size_t>(extra)]);
            impossibleEmpty &= cell.primary < 0 && cell.impossible;
        }
        // A hatched empty pairing holds no recipe, so no warning either.
        if (!match && impossibleEmpty && m_filterText.isEmpty() && !m_warningsOnly)
            match = (m_statusMask & (1u << static_cast<unsigned>(CellStatus::Impossible))) != 0;
        m_matches[cellIndex] = match ? 1 : 0;
    }
}

bool MatrixModel::entryMatchesFilter(const Cell& entry) const
{
    if ((m_statusMask & (1u << static_cast<unsigned>(entry.status))) == 0)
        return false;
    if (m_warningsOnly && warningCount(entry) == 0)
        return false;
    if (m_filterText.isEmpty())
        return true;
    const auto has = [this](std::string_view text) {
        return qs(text).contains(m_filterText, Qt::CaseInsensitive);
    };
    if (has(entry.variant.toString()) || has(entry.reason) || has(cellStatusId(entry.status)))
        return true;
    if (entry.recipe && has(entry.recipe->path))
        return true;
    return std::any_of(entry.findings.begin(), entry.findings.end(), [&](const Finding& finding) {
        return has(finding.message) || has(finding.ruleId);
    });
}

int MatrixModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int MatrixModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_columns.size());
}

MatrixModel::RowKind MatrixModel::rowKind(int row) const
{
    return m_rows.at(static_cast<size_t>(row)).kind;
}

std::string MatrixModel::rowId(int row) const
{
    return m_rows.at(static_cast<size_t>(row)).id;
}

std::string MatrixModel::columnId(int column) const
{
    return m_columns.at(static_cast<size_t>(column)).isa;
}

const MatrixCellSlice& MatrixModel::cellAt(int row, int column, int slice) const
{
    const size_t cell = static_cast<size_t>(row) * m_columns.size() + static_cast<size_t>(column);
    return m_cells[cell * m_slices.size() + static_cast<size_t>(slice)];
}

const MatrixCellSlice* MatrixModel::cellSlice(const QModelIndex& index, int slice) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || slice < 0 ||
        slice >= static_cast<int>(m_slices.size()))
        return nullptr;
    return &cellAt(index.row(), index.column(), slice);
}

std::vector<const Cell*> MatrixModel::entriesAt(const QModelIndex& index) const
{
    std::vector<const Cell*> result;
    if (!m_analysis)
        return result;
    for (int s = 0; s < static_cast<int>(m_slices.size()); ++s) {
        const MatrixCellSlice* cell = cellSlice(index, s);
        if (!cell)
            break;
        if (cell->primary >= 0)
            result.push_back(&m_analysis->cells[static_cast<size_t>(cell->primary)]);
        for (int extra : cell->extras)
            result.push_back(&m_analysis->cells[static_cast<size_t>(extra)]);
    }
    return result;
}

QModelIndex MatrixModel::openingIndex(const Cell** entry) const
{
    if (const QModelIndex broken = brokenAfter({}, false, entry); broken.isValid())
        return broken;
    for (int row = 0; row < rowCount(); ++row)
        for (int column = 0; column < columnCount(); ++column) {
            const QModelIndex at = index(row, column);
            for (const Cell* candidate : entriesAt(at))
                if (candidate->recipe) {
                    if (entry)
                        *entry = candidate;
                    return at;
                }
        }
    if (entry)
        *entry = nullptr;
    return index(0, 0);
}

QModelIndex MatrixModel::brokenAfter(const QModelIndex& from, bool backwards,
                                     const Cell** entry) const
{
    const int columns = columnCount();
    const int positions = rowCount() * columns;
    const int step = backwards ? positions - 1 : 1; // -1, modulo the positions
    int at = from.isValid() ? from.row() * columns + from.column()
                            : (backwards ? 0 : positions - 1); // the search begins one step on
    for (int tried = 0; tried < positions; ++tried) {
        at = (at + step) % positions;
        const QModelIndex position = index(at / columns, at % columns);
        for (const Cell* candidate : entriesAt(position))
            if (candidate->recipe && candidate->status == CellStatus::Broken) {
                if (entry)
                    *entry = candidate;
                return position;
            }
    }
    return {};
}

int MatrixModel::statusOf(const MatrixCellSlice& cell) const
{
    if (cell.primary >= 0)
        return static_cast<int>(m_analysis->cells[static_cast<size_t>(cell.primary)].status);
    return cell.impossible ? static_cast<int>(CellStatus::Impossible) : NoStatus;
}

std::vector<CellId> MatrixModel::cellIdsAt(const QModelIndex& index) const
{
    std::vector<CellId> ids;
    for (int s = 0; s < static_cast<int>(m_slices.size()); ++s)
        if (const MatrixCellSlice* cell = cellSlice(index, s))
            ids.push_back(cell->id);
    return ids;
}

QModelIndex MatrixModel::indexOf(const CellId& id) const
{
    const size_t sliceCount = m_slices.size();
    for (size_t i = 0; i < m_cells.size(); ++i)
        if (m_cells[i].id == id) {
            const size_t cell = i / sliceCount;
            return index(static_cast<int>(cell / m_columns.size()),
                         static_cast<int>(cell % m_columns.size()));
        }
    return {};
}

QModelIndex MatrixModel::indexOf(const CellSelector& selector) const
{
    for (int r = 0; r < rowCount(); ++r) {
        for (int c = 0; c < columnCount(); ++c) {
            const QModelIndex at = index(r, c);
            const std::vector<const Cell*> entries = entriesAt(at);
            if (std::any_of(entries.begin(), entries.end(),
                            [&](const Cell* entry) { return selector.matches(*entry); }))
                return at;
            for (const CellId& id : cellIdsAt(at))
                if (selector.namesCellKey(id.toKey()))
                    return at;
        }
    }
    return {};
}

QString MatrixModel::sliceText(const MatrixCellSlice& cell, const MatrixSlice& slice) const
{
    QString text = qs(slice.label()) + QStringLiteral(": ");
    if (cell.primary < 0) {
        text += cell.impossible ? QStringLiteral("impossible \u2014 ") + qs(cell.impossibleWhy)
                                : QStringLiteral("no recipe, not expected");
        return text;
    }
    const Cell& entry = m_analysis->cells[static_cast<size_t>(cell.primary)];
    text += statusText(entry);
    // A hatched cell the spec asks for: its recipe (or its absence) is judged as any other,
    // and the hatch says why it cannot work.
    if (entry.expectation && entry.expectation->askedForImpossible())
        text += QStringLiteral("; it cannot work: ") + qs(entry.expectation->feasibility.why());
    for (int extra : cell.extras) {
        const Cell& other = m_analysis->cells[static_cast<size_t>(extra)];
        text +=
            QStringLiteral("; also %1: %2").arg(qs(other.variant.toString()), statusText(other));
    }
    return text;
}

QString MatrixModel::accessibleName(const QModelIndex& index) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Row& row = m_rows[static_cast<size_t>(index.row())];
    const QString rowName = row.kind == RowKind::Gpu   ? qs(row.id)
                            : row.kind == RowKind::Cpu ? QStringLiteral("CPU-only")
                                                       : QStringLiteral("Darwin");
    QString text = rowName + QStringLiteral(" \u00d7 ") + qs(columnId(index.column()));
    if (m_slices.empty())
        return text + QStringLiteral(": no slice selected");
    QStringList parts;
    for (size_t s = 0; s < m_slices.size(); ++s) {
        const MatrixCellSlice& cell = cellAt(index.row(), index.column(), static_cast<int>(s));
        QString part = m_slices[s].package.empty() ? QString()
                                                   : QStringLiteral(", ") + qs(m_slices[s].package);
        part += QStringLiteral(", Python ") + qs(dottedPython(m_slices[s].python));
        if (row.kind == RowKind::Gpu && !m_slices[s].cuda.empty())
            part += QStringLiteral(", CUDA ") + qs(m_slices[s].cuda);
        part += QStringLiteral(": ");
        if (cell.primary >= 0) {
            part += statusText(m_analysis->cells[static_cast<size_t>(cell.primary)]);
            if (!cell.extras.empty())
                part += QStringLiteral(" (+%1 more)").arg(cell.extras.size());
        } else if (cell.impossible) {
            part += QStringLiteral("impossible \u2014 ") + qs(cell.impossibleWhy);
        } else {
            part += QStringLiteral("empty");
        }
        parts << part;
    }
    return text + parts.join(QStringLiteral(";"));
}

QVariant MatrixModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_analysis)
        return {};
    const int sliceCount = static_cast<int>(m_slices.size());
    switch (role) {
    case Qt::DisplayRole: {
        QStringList parts; // "broken / ok": the status words of the slices
        for (int s = 0; s < sliceCount; ++s)
            parts << statusWord(statusOf(cellAt(index.row(), index.column(), s)));
        return parts.join(QStringLiteral(" / "));
    }
    case Qt::ToolTipRole: {
        QStringList lines;
        for (int s = 0; s < sliceCount; ++s)
            lines << toolTipOf(cellAt(index.row(), index.column(), s),
                               m_slices[static_cast<size_t>(s)]);
        return lines.join(QStringLiteral("\n\n"));
    }
    case Qt::AccessibleTextRole:
        return accessibleName(index);
    case StatusesRole:
    case ExtraStatusesRole:
    case ExtraLabelsRole:
    case BuildStateRole:
    case WarningCountsRole:
    case PinsRole:
    case EvaluationRole:
    case HasRecipeRole: {
        QVariantList perSlice;
        for (int s = 0; s < sliceCount && (role != PinsRole || m_pins); ++s)
            perSlice << sliceData(cellAt(index.row(), index.column(), s), role);
        return perSlice;
    }
    case VariantNamesRole:
    case PathsRole:
    case EntryIndexesRole:
        return entryListData(index, role);
    case ReasonRole: {
        QStringList lines;
        for (int s = 0; s < sliceCount; ++s) {
            const MatrixCellSlice& cell = cellAt(index.row(), index.column(), s);
            if (cell.primary >= 0 || cell.impossible)
                lines << sliceText(cell, m_slices[static_cast<size_t>(s)]);
        }
        return lines.join(QLatin1Char('\n'));
    }
    case ImpossibleRole: {
        bool all = sliceCount > 0;
        for (int s = 0; s < sliceCount; ++s)
            all &= cellAt(index.row(), index.column(), s).impossible;
        return all;
    }
    case MatchesFilterRole:
        return m_matches[static_cast<size_t>(index.row()) * m_columns.size() +
                         static_cast<size_t>(index.column())] != 0;
    default:
        return {};
    }
}

// The cell's entries as lists: variant names, recipe paths, or their indexes in the analysis.
QVariant MatrixModel::entryListData(const QModelIndex& index, int role) const
{
    if (role == EntryIndexesRole) {
        QVariantList indexes;
        for (int s = 0; s < static_cast<int>(m_slices.size()); ++s) {
            const MatrixCellSlice& cell = cellAt(index.row(), index.column(), s);
            if (cell.primary >= 0)
                indexes << cell.primary;
            for (int extra : cell.extras)
                indexes << extra;
        }
        return indexes;
    }
    QStringList texts;
    for (const Cell* entry : entriesAt(index)) {
        if (role == VariantNamesRole)
            texts << qs(entry->variant.toString());
        else if (entry->recipe)
            texts << qs(entry->recipe->path);
    }
    return texts;
}

QString MatrixModel::statusWord(int status)
{
    return status == NoStatus ? QString() : qs(cellStatusId(static_cast<CellStatus>(status)));
}

QString MatrixModel::toolTipOf(const MatrixCellSlice& cell, const MatrixSlice& slice) const
{
    QString line = sliceText(cell, slice);
    if (cell.primary >= 0) {
        const Cell& entry = m_analysis->cells[static_cast<size_t>(cell.primary)];
        line.prepend(qs(entry.variant.toString()) + QLatin1Char('\n'));
        if (const QString evaluation = evaluationText(entry); !evaluation.isEmpty())
            line += QLatin1Char('\n') + evaluation;
        if (m_buildState) {
            const QString build = m_buildState(entry).summary;
            if (!build.isEmpty())
                line += QStringLiteral("\nbuild: ") + build;
        }
    }
    return line;
}

// One slice's value of a role that data() answers per slice.
QVariant MatrixModel::sliceData(const MatrixCellSlice& cell, int role) const
{
    const Cell* primary =
        cell.primary >= 0 ? &m_analysis->cells[static_cast<size_t>(cell.primary)] : nullptr;
    switch (role) {
    case StatusesRole:
        return statusOf(cell);
    case ExtraStatusesRole: {
        QVariantList extras;
        for (int extra : cell.extras)
            extras << static_cast<int>(m_analysis->cells[static_cast<size_t>(extra)].status);
        return extras;
    }
    case ExtraLabelsRole: {
        QStringList labels;
        for (int extra : cell.extras) {
            const Cell& entry = m_analysis->cells[static_cast<size_t>(extra)];
            QStringList suffixes;
            for (const std::string& suffix : entry.variant.suffixes)
                suffixes << qs(suffix);
            labels << (suffixes.isEmpty() ? (entry.recipe ? qs(entry.recipe->fileName)
                                                          : qs(entry.variant.toString()))
                                          : suffixes.join(QLatin1Char('-')));
        }
        return labels;
    }
    case BuildStateRole: {
        QVariantMap state;
        if (m_buildState && primary) {
            const CellBuildState build = m_buildState(*primary);
            state.insert(QStringLiteral("queued"), build.queued);
            state.insert(QStringLiteral("running"), build.running);
            state.insert(QStringLiteral("progress"), build.progress);
            state.insert(QStringLiteral("last"), static_cast<int>(build.last));
            state.insert(QStringLiteral("verificationFailed"), build.verificationFailed);
            state.insert(QStringLiteral("summary"), build.summary);
            state.insert(QStringLiteral("builder"), build.builder);
        }
        return state;
    }
    case WarningCountsRole:
        return primary ? warningCount(*primary) : 0;
    case PinsRole: {
        const CellPin pin = primary ? m_pins(*primary) : CellPin{};
        return QVariantMap{{QStringLiteral("index"), pin.index},
                           {QStringLiteral("label"), pin.label}};
    }
    case HasRecipeRole:
        return primary && primary->recipe != nullptr;
    case EvaluationRole:
        return primary ? QVariantMap{{QStringLiteral("state"), evaluationState(*primary)},
                                     {QStringLiteral("text"), evaluationText(*primary)},
                                     {QStringLiteral("output"),
                                      primary->evaluation ? qs(primary->evaluation->output)
                                                          : QString()}}
                       : QVariantMap{};
    default:
        return {};
    }
}

QString MatrixModel::evaluationState(const Cell& entry)
{
    if (!entry.evaluation)
        return {};
    if (!entry.evaluation->evaluated)
        return QStringLiteral("fails");
    for (const Finding& finding : entry.findings)
        if (finding.ruleId.starts_with("eval-") && finding.severity != Severity::Info)
            return QStringLiteral("findings");
    return QStringLiteral("agrees");
}

QString MatrixModel::evaluationText(const Cell& entry)
{
    const EvaluationSummary* evaluation = entry.evaluation.get();
    if (!evaluation)
        return {};
    const QString state = evaluationState(entry);
    if (state == QLatin1String("fails"))
        return QStringLiteral("does not evaluate: ") +
               qs(evaluation->error).section(QLatin1Char('\n'), 0, 0);
    QString text = QStringLiteral("evaluated \u2713");
    if (state == QLatin1String("findings")) {
        QStringList rules;
        for (const Finding& finding : entry.findings)
            if (finding.ruleId.starts_with("eval-") && finding.severity != Severity::Info)
                rules << qs(finding.ruleId);
        text = QStringLiteral("evaluated: %1 finding%2 (%3)")
                   .arg(rules.size())
                   .arg(rules.size() == 1 ? QString() : QStringLiteral("s"),
                        rules.join(QStringLiteral(", ")));
    }
    text += QStringLiteral(" \u00b7 pin ") +
            (evaluation->pin.empty() ? QStringLiteral("none") : qs(shortRevision(evaluation->pin)));
    if (evaluation->evaluatedAt > 0)
        text += QStringLiteral(" \u00b7 ") + QDateTime::fromSecsSinceEpoch(evaluation->evaluatedAt)
                                                 .toString(QStringLiteral("yyyy-MM-dd HH:mm"));
    if (!evaluation->outputText.empty())
        text += QStringLiteral(" \u00b7 output ") + qs(evaluation->outputText);
    return text;
}

QVariant MatrixModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal) {
        if (section < 0 || section >= columnCount())
            return {};
        const Column& column = m_columns[static_cast<size_t>(section)];
        switch (role) {
        case Qt::DisplayRole:
            if (column.isa.empty())
                return QStringLiteral("generic\nno ISA");
            return column.info
                       ? qs(column.isa) + QLatin1Char('\n') + familyName(column.info->family)
                       : qs(column.isa) + QStringLiteral("\nunknown");
        case Qt::ToolTipRole:
        case Qt::AccessibleDescriptionRole:
            if (column.isa.empty())
                return QStringLiteral("Recipes whose names give no CPU ISA: generic builds");
            if (!column.info)
                return QStringLiteral("%1: not an ISA the catalog knows").arg(qs(column.isa));
            return QStringLiteral("%1 \u2014 %2\nplatform %3\ncpuFlags %4")
                .arg(qs(column.isa), qs(column.info->description), qs(column.info->platform), [&] {
                    QStringList flags;
                    for (const std::string& flag : column.info->flags)
                        flags << qs(flag);
                    return flags.isEmpty() ? QStringLiteral("(none)")
                                           : flags.join(QLatin1Char(' '));
                }());
        case Qt::AccessibleTextRole:
            return qs(column.isa);
        default:
            return {};
        }
    }
    if (section < 0 || section >= rowCount())
        return {};
    const Row& row = m_rows[static_cast<size_t>(section)];
    switch (role) {
    case Qt::DisplayRole:
        switch (row.kind) {
        case RowKind::Gpu:
            return row.arch ? qs(row.id) + QLatin1Char('\n') + qs(row.arch->generation)
                            : qs(row.id) + QStringLiteral("\nunknown");
        case RowKind::Cpu:
            return QStringLiteral("CPU\nno GPU");
        case RowKind::Darwin:
            return QStringLiteral("Darwin\nApple MPS");
        }
        return {};
    case Qt::ToolTipRole:
    case Qt::AccessibleDescriptionRole:
        switch (row.kind) {
        case RowKind::Gpu: {
            if (!row.arch)
                return QStringLiteral("%1: not a GPU architecture the catalog knows")
                    .arg(qs(row.id));
            QString text = QStringLiteral("%1 \u2014 %2\ngpuArchSM \"%3\", gpuArchNum \"%4\"")
                               .arg(qs(row.id), qs(row.arch->description), qs(row.arch->dotted),
                                    qs(row.arch->number));
            if (!row.arch->minCuda.empty())
                text += QStringLiteral("\nneeds CUDA \u2265 %1").arg(qs(row.arch->minCuda));
            if (!row.arch->maxCuda.empty())
                text += QStringLiteral("\nlast CUDA: %1").arg(qs(row.arch->maxCuda));
            if (row.arch->armSoc)
                text += QStringLiteral("\nARM system-on-chip: x86 ISAs cannot run");
            return text;
        }
        case RowKind::Cpu:
            return QStringLiteral("CPU-only recipes (no CUDA), one per ISA");
        case RowKind::Darwin:
            return QStringLiteral("Darwin recipes: Apple silicon with Metal (mps)");
        }
        return {};
    case Qt::AccessibleTextRole:
        return row.kind == RowKind::Gpu   ? qs(row.id)
               : row.kind == RowKind::Cpu ? QStringLiteral("CPU-only")
                                          : QStringLiteral("Darwin");
    default:
        return {};
    }
}

QHash<int, QByteArray> MatrixModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
    names.insert(StatusesRole, "statuses");
    names.insert(ExtraStatusesRole, "extraStatuses");
    names.insert(VariantNamesRole, "variantNames");
    names.insert(PathsRole, "paths");
    names.insert(ReasonRole, "reason");
    names.insert(ImpossibleRole, "impossible");
    names.insert(MatchesFilterRole, "matchesFilter");
    names.insert(EntryIndexesRole, "entryIndexes");
    names.insert(ExtraLabelsRole, "extraLabels");
    names.insert(HasRecipeRole, "hasRecipe");
    names.insert(BuildStateRole, "buildState");
    names.insert(WarningCountsRole, "warningCounts");
    names.insert(PinsRole, "pins");
    names.insert(EvaluationRole, "evaluation");
    return names;
}

} // namespace rg
