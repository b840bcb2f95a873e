#include "viewrows.h"

#include <QHeaderView>
#include <QStyle>
#include <QTableView>

namespace rg {

int ViewRows::rowHeight(const QAbstractItemView* view)
{
    if (const auto* table = qobject_cast<const QTableView*>(view))
        return table->verticalHeader()->defaultSectionSize();
    if (view->model() && view->model()->rowCount() > 0)
        if (const int height = view->sizeHintForRow(0); height > 0)
            return height;
    // An empty tree or list: a line of text within the style's item margins.
    return view->fontMetrics().height() +
           2 * (view->style()->pixelMetric(QStyle::PM_FocusFrameVMargin) + 1);
}

} // namespace rg
