#pragma once

// The grid: SM rows × ISA columns of a MatrixModel, painted by MatrixCellDelegate.
// Click, arrows, Shift/Ctrl and header clicks select; the context menu (mouse or the menu
// key) is left to whoever owns the actions.

#include <QTableView>

namespace rg {

class MatrixCellDelegate;

class MatrixView : public QTableView
{
    Q_OBJECT
public:
    explicit MatrixView(QWidget* parent = nullptr);

    void setModel(QAbstractItemModel* model) override;
    QModelIndexList selectedCells() const; // row-major order
    // Resizes rows and columns to the delegate's hint (after slices change).
    void fitToContents();

signals:
    void cellMenuRequested(const QModelIndex& index, const QPoint& globalPosition);
    void selectedCellsChanged();

protected:
    void contextMenuEvent(QContextMenuEvent* event) override;
    void selectionChanged(const QItemSelection& selected,
                          const QItemSelection& deselected) override;

private:
    MatrixCellDelegate* m_delegate;
};

} // namespace rg
