#include "statuslegend.h"

#include "analysis/analysis.h"
#include "statusstyle.h"

#include <QPainter>

namespace rg {

namespace {

// Painted after the symbols, where a narrow grid elides them; the tooltip has them whole.
QStringList hints()
{
    return {StatusLegend::tr("dot: nothing expected"),
            StatusLegend::tr("several chips: one per slice (Python \u00d7 CUDA) shown")};
}

} // namespace

StatusLegend::StatusLegend(QWidget* parent) : QWidget(parent)
{
    setAccessibleName(tr("Legend"));
    QStringList parts;
    for (int i = 0; i < cellStatusCount; ++i) {
        const auto status = static_cast<CellStatus>(i);
        parts << StatusStyle::label(status) + QStringLiteral(": ") +
                     StatusStyle::description(status);
    }
    parts << tr("warning sign: the recipe builds, but has warnings (risky or deprecated)");
    parts << hints();
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
    // Warnings sit on top of a status rather than being one.
    StatusStyle::paintWarningMark(&painter, QRectF(x, (h - icon) / 2.0, icon, icon), pal);
    x += icon + 4;
    const QString warnings = tr("warnings");
    painter.setPen(pal.color(QPalette::WindowText));
    painter.drawText(QRect(x, 0, 200, h), Qt::AlignVCenter, warnings);
    x += fontMetrics().horizontalAdvance(warnings) + 14;
    // The hints give way first when the grid is narrow: the symbols above matter more.
    painter.setPen(pal.color(QPalette::PlaceholderText));
    const QRect rest(x, 0, width() - x, h);
    painter.drawText(rest, Qt::AlignVCenter,
                     fontMetrics().elidedText(QStringLiteral("\u2022 ") +
                                                  hints().join(QStringLiteral(" \u2022 ")),
                                              Qt::ElideRight, rest.width()));
}

} // namespace rg
