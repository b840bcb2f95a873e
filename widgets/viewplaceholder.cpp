#include "viewplaceholder.h"

#include <QAbstractItemView>
#include <QPainter>

namespace rg {

void ViewPlaceholder::paint(QAbstractItemView* view, const QString& text)
{
    if (text.isEmpty() || !view->model() || view->model()->rowCount() > 0)
        return;
    QPainter painter(view->viewport());
    painter.setPen(view->palette().color(QPalette::PlaceholderText));
    painter.drawText(view->viewport()->rect().adjusted(12, 8, -12, -8),
                     Qt::AlignCenter | Qt::TextWordWrap, text);
}

} // namespace rg
