#pragma once

// Pin alignment as a table for the alignment view: one row per package × Python ×
// accelerator, the row's name first, then one column per compared revision (local branches,
// other repositories) with the pins its recipes of the row write. Rows where the columns
// disagree are mismatches (MismatchRole); every distinct pin has a stable index
// (PinIndexRole) so the view can give one pin one colour. A column that could not be read
// keeps its place, its error in the header's tooltip and in columnErrors(). Qt Core only.

#include "pins/pinalignment.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <memory>
#include <string>
#include <vector>

namespace rg {

class AlignmentModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Role {
        MismatchRole = Qt::UserRole + 1, // bool: the row's columns disagree
        PinRole,                         // QString: the cell's (most used) pin; "" when empty
        PinIndexRole,                    // int: the pin's index in pins(); -1 when empty
        RecipesRole,                     // int: recipes of the cell
        ColumnErrorRole,                 // QString: the column could not be read, and why
        // bool: the home column's recipes of the row can be aligned to this cell's pin.
        CanAlignRole,
        HomeRole, // bool, header: the column of the open work tree
    };

    explicit AlignmentModel(QObject* parent = nullptr);

    void setAlignment(std::shared_ptr<const PinAlignment> alignment);
    std::shared_ptr<const PinAlignment> alignment() const { return m_alignment; }
    // The column (index into PinAlignment::columns) a bump would change: the open work tree.
    void setHomeColumn(int column);
    int homeColumn() const { return m_home; }

    // Model column of alignment column `column`, and back (-1 for the name column).
    static int modelColumn(int column) { return column + 1; }
    static int alignmentColumn(int modelColumn) { return modelColumn - 1; }

    // Every distinct full pin, in order of first appearance (row by row, column by column).
    const std::vector<std::string>& pins() const { return m_pins; }
    // "main @ /path: not a git repository" per unreadable column.
    QStringList columnErrors() const;
    int mismatchCount() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant nameData(const AlignmentRow& row, int role) const;
    QVariant cellData(const AlignmentRow& row, size_t column, int role) const;
    bool canAlign(const AlignmentRow& row, size_t column) const;
    int pinIndex(const std::string& pin) const;

    std::shared_ptr<const PinAlignment> m_alignment;
    std::vector<std::string> m_pins;
    int m_home = -1;
};

} // namespace rg
