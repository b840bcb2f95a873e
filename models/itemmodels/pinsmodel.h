#pragma once

// The pins of a branch as a tree for the pins view: package × accelerator groups, the pins
// each group's recipes write (most used first), and the recipes on each pin. Pins that
// differ from the spec or from their group's dominant pin, short revisions and fetchers
// without a hash are marked (MarksRole, and said in the notes column). Qt Core only: colours
// are the view's business, LegendIndexRole tells it which.

#include "pins/pininventory.h"

#include <QAbstractItemModel>
#include <memory>
#include <vector>

namespace rg {

class PinsModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, RecipesColumn, NotesColumn, ColumnCount };
    enum class Kind { Group, Pin, Recipe };
    enum Mark {
        DiffersFromSpec = 1,
        DiffersFromGroup = 2,
        NotFullRevision = 4,
        WithoutHash = 8, // a pin with recipes whose fetcher pins no hash, or such a recipe
    };
    enum Role {
        KindRole = Qt::UserRole + 1, // int (Kind)
        RevisionRole,                // QString: the pin as written (pin and recipe rows)
        PathRole,                    // QString: the recipe file (recipe rows)
        VariantRole,                 // QString: the recipe's variant name (recipe rows)
        LineRole,                    // int: line of the revision string (recipe rows)
        MarksRole,                   // int: Mark bits
        LegendIndexRole,             // int: the pin's index in the inventory legend; -1
        PackageRole,                 // QString: the group's package
        AcceleratorRole,             // QString: the group's accelerator id ("cuda12.9")
    };

    explicit PinsModel(QObject* parent = nullptr);

    void setInventory(std::shared_ptr<const PinInventory> inventory);
    std::shared_ptr<const PinInventory> inventory() const { return m_inventory; }
    // "1 pin · 66 recipes · 66 differ from the spec"
    QString summaryText() const;
    // The pin row of `revision` in the first group that has it; invalid when none.
    QModelIndex indexOfPin(const QString& revision) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Node
    {
        Kind kind = Kind::Group;
        int parent = -1; // node index; -1 for groups
        int row = 0;
        size_t group = 0;
        size_t pin = 0;
        size_t recipe = 0;
        std::vector<int> children;
    };

    void rebuild();
    const Node* nodeOf(const QModelIndex& index) const;
    QVariant groupData(const PinGroup& group, int column, int role) const;
    QVariant pinData(const PinGroup& group, const PinEntry& pin, int column, int role) const;
    QVariant recipeData(const PinEntry& pin, const PinUse& use, int column, int role) const;
    int legendIndexOf(const std::string& revision) const;
    static int marksOf(const PinEntry& pin);
    static QString notesOf(const PinGroup& group, const PinEntry& pin);

    std::shared_ptr<const PinInventory> m_inventory;
    std::vector<Node> m_nodes;
    std::vector<int> m_groups; // node indexes of the top-level rows
};

} // namespace rg
