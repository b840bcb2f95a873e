#include "statuslegend.h"

#include "recipes/analysis.h"
#include "statusstyle.h"

#include <QPainter>

namespace rg {

StatusLegend::StatusLegend(QWidget* parent) : QWidget(parent)
{
    setAccessibleName(tr("Legend"));
    QStringList parts;
    for (int i = 0; i < cellStatusCount; ++i) {
        const auto status = static_cast<CellStatus>(i);
        parts << StatusStyle::label(status) + QStringLiteral(": ") +
                     StatusStyle::description(status);
    }
    setAccessibleDescription(parts.join(QStringLiteral("; ")));
    setToolTip(parts.join(QLatin1Char('\n')));
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

QSize StatusLegend::sizeHint() const
{
    return {600, fontMetrics().height() + 10};
}

void StatusLegend::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const QPalette& pal = palette();
    const int h = height();
    const int icon = std::min(14, h - 6);
    int x = 2;
    painter.setPen(pal.color(QPalette::PlaceholderText));
    painter.drawText(QRect(x, 0, 60, h), Qt::AlignVCenter, tr("Legend:"));
    x += fontMetrics().horizontalAdvance(tr("Legend:")) + 10;
    for (int i = 0; i < cellStatusCount; ++i) {
        const auto status = static_cast<CellStatus>(i);
        if (status == CellStatus::Impossible) {
            const QRect swatch(x, (h - icon) / 2, icon + 10, icon);
            painter.fillRect(swatch, StatusStyle::hatch(pal));
            painter.setPen(StatusStyle::color(status, pal));
            painter.drawRect(swatch.adjusted(0, 0, -1, -1));
            x += swatch.width() + 4;
        } else {
            StatusStyle::paintIcon(&painter, QRectF(x, (h - icon) / 2.0, icon, icon), status,
                                   StatusStyle::color(status, pal));
            x += icon + 4;
        }
        const QString text = StatusStyle::label(status);
        painter.setPen(pal.color(QPalette::WindowText));
        painter.drawText(QRect(x, 0, 200, h), Qt::AlignVCenter, text);
        x += fontMetrics().horizontalAdvance(text) + 14;
    }
    painter.setPen(pal.color(QPalette::PlaceholderText));
    painter.drawText(QRect(x, 0, width() - x, h), Qt::AlignVCenter,
                     tr("\u2022 dot: nothing expected \u2022 several chips: one per slice"));
}

} // namespace rg
