#include "itemmodels/pinsmodel.h"

#include "matrix/versionspelling.h"
#include "sessions/qtext.h"

#include <QStringList>
#include <algorithm>

namespace rg {

namespace {

QString groupName(const PinGroup& group)
{
    if (group.accelerator.empty())
        return qs(group.package);
    return qs(group.package) + QStringLiteral(" \u00b7 ") + qs(group.accelerator);
}

} // namespace

PinsModel::PinsModel(QObject* parent) : QAbstractItemModel(parent) {}

void PinsModel::setInventory(std::shared_ptr<const PinInventory> inventory)
{
    beginResetModel();
    m_inventory = std::move(inventory);
    rebuild();
    endResetModel();
}

void PinsModel::rebuild()
{
    m_nodes.clear();
    m_groups.clear();
    if (!m_inventory)
        return;
    const std::vector<PinGroup>& groups = m_inventory->groups();
    // Children are appended as their parent's index, never a reference: push_back moves nodes.
    const auto add = [this](Kind kind, int parent, size_t g, size_t p, size_t r) {
        const int node = static_cast<int>(m_nodes.size());
        std::vector<int>& siblings =
            parent < 0 ? m_groups : m_nodes[static_cast<size_t>(parent)].children;
        const int row = static_cast<int>(siblings.size());
        siblings.push_back(node);
        m_nodes.push_back({kind, parent, row, g, p, r, {}});
        return node;
    };
    for (size_t g = 0; g < groups.size(); ++g) {
        const int groupNode = add(Kind::Group, -1, g, 0, 0);
        for (size_t p = 0; p < groups[g].pins.size(); ++p) {
            const int pinNode = add(Kind::Pin, groupNode, g, p, 0);
            for (size_t r = 0; r < groups[g].pins[p].recipes.size(); ++r)
                add(Kind::Recipe, pinNode, g, p, r);
        }
    }
}

const PinsModel::Node* PinsModel::nodeOf(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this || index.internalId() >= m_nodes.size())
        return nullptr;
    return &m_nodes[index.internalId()];
}

QModelIndex PinsModel::index(int row, int column, const QModelIndex& parent) const
{
    if (column < 0 || column >= ColumnCount || row < 0)
        return {};
    const Node* node = nodeOf(parent);
    if (parent.isValid() && !node)
        return {};
    const std::vector<int>& children = node ? node->children : m_groups;
    if (row >= static_cast<int>(children.size()))
        return {};
    return createIndex(row, column, static_cast<quintptr>(children[static_cast<size_t>(row)]));
}

QModelIndex PinsModel::parent(const QModelIndex& child) const
{
    const Node* node = nodeOf(child);
    if (!node || node->parent < 0)
        return {};
    const Node& parent = m_nodes[static_cast<size_t>(node->parent)];
    return createIndex(parent.row, 0, static_cast<quintptr>(node->parent));
}

int PinsModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_groups.size());
    if (parent.column() != 0)
        return 0;
    const Node* node = nodeOf(parent);
    return node ? static_cast<int>(node->children.size()) : 0;
}

int PinsModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

int PinsModel::legendIndexOf(const std::string& revision) const
{
    const std::vector<PinLegendEntry>& legend = m_inventory->legend();
    const auto found = std::find_if(legend.begin(), legend.end(), [&](const PinLegendEntry& e) {
        return e.revision == revision;
    });
    return found == legend.end() ? -1 : static_cast<int>(found - legend.begin());
}

int PinsModel::marksOf(const PinEntry& pin)
{
    return (pin.differsFromSpec ? DiffersFromSpec : 0) |
           (pin.differsFromGroup ? DiffersFromGroup : 0) |
           (pin.notFullRevision ? NotFullRevision : 0) | (pin.withoutHash > 0 ? WithoutHash : 0);
}

QString PinsModel::notesOf(const PinGroup& group, const PinEntry& pin)
{
    QStringList notes;
    if (pin.differsFromSpec)
        notes << tr("differs from the spec (%1)").arg(qs(shortRevision(group.specPin)));
    if (pin.differsFromGroup)
        notes << tr("not the group's pin (%1)").arg(qs(shortRevision(group.dominantPin)));
    if (pin.notFullRevision)
        notes << tr("short revision: not reproducible");
    if (pin.withoutHash > 0)
        notes << counted(pin.withoutHash, tr("1 fetcher without a hash"),
                         tr("%1 fetchers without a hash"));
    return notes.join(QStringLiteral("; "));
}

QVariant PinsModel::data(const QModelIndex& index, int role) const
{
    const Node* node = nodeOf(index);
    if (!node || !m_inventory)
        return {};
    const PinGroup& group = m_inventory->groups()[node->group];
    if (role == PackageRole)
        return qs(group.package);
    if (role == AcceleratorRole)
        return qs(group.acceleratorId);
    if (role == KindRole)
        return static_cast<int>(node->kind);
    switch (node->kind) {
    case Kind::Group:
        return groupData(group, index.column(), role);
    case Kind::Pin:
        return pinData(group, group.pins[node->pin], index.column(), role);
    case Kind::Recipe: {
        const PinEntry& pin = group.pins[node->pin];
        return recipeData(pin, pin.recipes[node->recipe], index.column(), role);
    }
    }
    return {};
}

QVariant PinsModel::groupData(const PinGroup& group, int column, int role) const
{
    int recipes = 0, marked = 0;
    for (const PinEntry& pin : group.pins) {
        recipes += pin.count;
        marked |= marksOf(pin);
    }
    switch (role) {
    case Qt::DisplayRole:
        if (column == NameColumn)
            return groupName(group);
        if (column == RecipesColumn)
            return recipes;
        if (column == NotesColumn) {
            QStringList notes;
            if (group.pins.size() > 1)
                notes << tr("%1 pins").arg(group.pins.size());
            if (!group.specPin.empty())
                notes << tr("spec: %1").arg(qs(shortRevision(group.specPin)));
            return notes.join(QStringLiteral(" \u00b7 "));
        }
        return {};
    case Qt::ToolTipRole:
        return group.specPin.empty()
                   ? tr("%1: no pin in the spec; dominant pin %2")
                         .arg(groupName(group), qs(group.dominantPin))
                   : tr("%1: the spec asks for %2; dominant pin %3")
                         .arg(groupName(group), qs(group.specPin), qs(group.dominantPin));
    case MarksRole:
        return marked;
    case LegendIndexRole:
        return -1;
    default:
        return {};
    }
}

QVariant PinsModel::pinData(const PinGroup& group, const PinEntry& pin, int column, int role) const
{
    switch (role) {
    case Qt::DisplayRole:
        if (column == NameColumn)
            return pin.notFullRevision ? qs(pin.revision) : qs(pin.shortForm);
        if (column == RecipesColumn)
            return pin.count;
        if (column == NotesColumn)
            return notesOf(group, pin);
        return {};
    case Qt::ToolTipRole: {
        const QString notes = notesOf(group, pin);
        return notes.isEmpty() ? qs(pin.revision) : qs(pin.revision) + QLatin1Char('\n') + notes;
    }
    case Qt::AccessibleTextRole:
        return tr("pin %1, %2")
            .arg(qs(pin.shortForm), counted(pin.count, tr("1 recipe"), tr("%1 recipes")));
    case RevisionRole:
        return qs(pin.revision);
    case MarksRole:
        return marksOf(pin);
    case LegendIndexRole:
        return legendIndexOf(pin.revision);
    default:
        return {};
    }
}

QVariant PinsModel::recipeData(const PinEntry& pin, const PinUse& use, int column, int role) const
{
    const QString name =
        use.variant.empty() ? qs(use.path.substr(use.path.rfind('/') + 1)) : qs(use.variant);
    switch (role) {
    case Qt::DisplayRole:
        if (column == NameColumn)
            return name;
        if (column == RecipesColumn)
            return tr("line %1").arg(use.line);
        if (column == NotesColumn)
            return use.hasHash ? QString() : tr("fetcher pins no hash");
        return {};
    case Qt::ToolTipRole:
        return QStringLiteral("%1:%2").arg(qs(use.path)).arg(use.line);
    case RevisionRole:
        return qs(pin.revision);
    case PathRole:
        return qs(use.path);
    case VariantRole:
        return qs(use.variant);
    case LineRole:
        return use.line;
    case MarksRole:
        return use.hasHash ? 0 : int(WithoutHash);
    case LegendIndexRole:
        return legendIndexOf(pin.revision);
    default:
        return {};
    }
}

QVariant PinsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Pin");
    case RecipesColumn:
        return tr("Recipes");
    case NotesColumn:
        return tr("Notes");
    default:
        return {};
    }
}

QString PinsModel::summaryText() const
{
    if (!m_inventory)
        return tr("No repository");
    const std::vector<PinLegendEntry>& legend = m_inventory->legend();
    if (legend.empty())
        return tr("No recipe pins nixpkgs");
    int recipes = 0, differ = 0;
    for (const PinLegendEntry& entry : legend)
        recipes += entry.count;
    for (const PinGroup& group : m_inventory->groups())
        for (const PinEntry& pin : group.pins)
            differ += pin.differsFromSpec ? pin.count : 0;
    QString text = counted(static_cast<int>(legend.size()), tr("1 pin"), tr("%1 pins")) +
                   QStringLiteral(" \u00b7 ") + counted(recipes, tr("1 recipe"), tr("%1 recipes"));
    if (differ > 0)
        text += QStringLiteral(" \u00b7 ") +
                counted(differ, tr("1 differs from the spec"), tr("%1 differ from the spec"));
    return text;
}

QModelIndex PinsModel::indexOfPin(const QString& revision) const
{
    for (const Node& node : m_nodes) {
        if (node.kind != Kind::Pin)
            continue;
        const PinEntry& pin = m_inventory->groups()[node.group].pins[node.pin];
        if (qs(pin.revision) == revision)
            return createIndex(node.row, 0, static_cast<quintptr>(&node - m_nodes.data()));
    }
    return {};
}

} // namespace rg
