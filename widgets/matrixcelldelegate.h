#pragma once

// Paints one grid cell: per selected slice a chip with the status' icon, colour and word,
// extra recipes of the cell (-magma, -nightly) as small tags under it, a warning sign in its
// bottom-right corner when the recipe has warnings, a dotted outline for gaps, hatching for
// impossible pairings, and a faded cell when the filter hides it.

#include <QStyledItemDelegate>

namespace rg {

class MatrixCellDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

    static constexpr int minimumChipWidth = 66;
    static constexpr int cellHeight = 48;
};

} // namespace rg
