#include "matrixview.h"

#include "matrixcelldelegate.h"

#include <QContextMenuEvent>
#include <QHeaderView>
#include <algorithm>

namespace rg {

MatrixView::MatrixView(QWidget* parent)
    : QTableView(parent), m_delegate(new MatrixCellDelegate(this))
{
    setItemDelegate(m_delegate);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setSelectionBehavior(QAbstractItemView::SelectItems);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setShowGrid(true);
    setWordWrap(false);
    setTabKeyNavigation(false); // Tab leaves the grid for the next panel
    setMouseTracking(true);
    setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    horizontalHeader()->setDefaultAlignment(Qt::AlignCenter);
    verticalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    horizontalHeader()->setHighlightSections(true);
    verticalHeader()->setHighlightSections(true);
    setCornerButtonEnabled(true);
    setAccessibleName(tr("Variant grid"));
}

void MatrixView::setModel(QAbstractItemModel* model)
{
    QTableView::setModel(model);
    if (model) {
        connect(model, &QAbstractItemModel::modelReset, this, &MatrixView::fitToContents);
        connect(model, &QAbstractItemModel::layoutChanged, this, &MatrixView::fitToContents);
    }
    fitToContents();
}

void MatrixView::fitToContents()
{
    if (!model())
        return;
    QStyleOptionViewItem option;
    initViewItemOption(&option);
    int width = 0;
    if (model()->rowCount() > 0 && model()->columnCount() > 0)
        width = m_delegate->sizeHint(option, model()->index(0, 0)).width();
    width = std::max({width, horizontalHeader()->sectionSizeHint(0), 84});
    horizontalHeader()->setDefaultSectionSize(width);
    verticalHeader()->setDefaultSectionSize(MatrixCellDelegate::cellHeight);
    for (int c = 0; c < model()->columnCount(); ++c)
        horizontalHeader()->resizeSection(c, width);
    for (int r = 0; r < model()->rowCount(); ++r)
        verticalHeader()->resizeSection(r, MatrixCellDelegate::cellHeight);
}

QModelIndexList MatrixView::selectedCells() const
{
    QModelIndexList cells =
        selectionModel() ? selectionModel()->selectedIndexes() : QModelIndexList();
    std::sort(cells.begin(), cells.end(), [](const QModelIndex& a, const QModelIndex& b) {
        return a.row() != b.row() ? a.row() < b.row() : a.column() < b.column();
    });
    return cells;
}

void MatrixView::contextMenuEvent(QContextMenuEvent* event)
{
    QModelIndex index;
    QPoint global = event->globalPos();
    if (event->reason() == QContextMenuEvent::Keyboard) {
        index = currentIndex();
        const QRect rect = visualRect(index);
        global = viewport()->mapToGlobal(rect.isValid() ? rect.center() : QPoint(8, 8));
    } else {
        index = indexAt(viewport()->mapFromGlobal(event->globalPos()));
        if (index.isValid() && !selectionModel()->isSelected(index))
            setCurrentIndex(index);
    }
    emit cellMenuRequested(index, global);
    event->accept();
}

void MatrixView::selectionChanged(const QItemSelection& selected, const QItemSelection& deselected)
{
    QTableView::selectionChanged(selected, deselected);
    emit selectedCellsChanged();
}

} // namespace rg
