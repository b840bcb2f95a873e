#include "pinlegend.h"

#include "sessions/qtext.h"
#include "statusstyle.h"

#include <QPainter>
#include <array>
#include <cmath>

namespace rg {

namespace {

// Hues far apart, none the amber of warnings; dark enough to read as text on white.
constexpr std::array<QRgb, 10> lightColors = {0x2f6db5, 0xc8610a, 0x1f8a84, 0x8a4fa8, 0x6b7d12,
                                              0xb8327a, 0x8a5a36, 0x4b5d73, 0x2e8540, 0x3b3fb8};

} // namespace

PinLegend::PinLegend(QWidget* parent) : QWidget(parent)
{
    setAccessibleName(tr("Pin legend"));
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void PinLegend::setEntries(std::vector<PinLegendEntry> entries)
{
    m_entries = std::move(entries);
    QStringList lines;
    for (const PinLegendEntry& entry : m_entries)
        lines << qs(entry.revision) + QStringLiteral(": ") +
                     counted(entry.count, tr("1 recipe"), tr("%1 recipes"));
    setToolTip(lines.isEmpty() ? tr("No recipe pins nixpkgs") : lines.join(QLatin1Char('\n')));
    setAccessibleDescription(text());
    update();
}

QString PinLegend::text() const
{
    QStringList parts;
    for (const PinLegendEntry& entry : m_entries)
        parts << qs(entry.shortForm) + QStringLiteral(": ") +
                     counted(entry.count, tr("1 recipe"), tr("%1 recipes"));
    return parts.join(QStringLiteral("; "));
}

QColor PinLegend::color(int index, const QPalette& palette)
{
    if (index < 0)
        return noPinColor(palette);
    QColor color;
    if (index < static_cast<int>(lightColors.size())) {
        color = QColor::fromRgb(lightColors[static_cast<size_t>(index)]);
    } else {
        // Golden-angle steps keep neighbours apart however many pins there are.
        const double hue = std::fmod(index * 137.508, 360.0);
        color = QColor::fromHsl(static_cast<int>(hue), 150, 90);
    }
    if (StatusStyle::isDark(palette))
        color = QColor::fromHsl(color.hslHue(), std::min(255, color.hslSaturation() + 20),
                                std::max(160, color.lightness() + 80));
    return color;
}

QColor PinLegend::fill(const QColor& color, const QPalette& palette)
{
    QColor fill = color;
    fill.setAlpha(StatusStyle::isDark(palette) ? 60 : 38);
    return fill;
}

QColor PinLegend::noPinColor(const QPalette& palette)
{
    return palette.color(QPalette::PlaceholderText);
}

QSize PinLegend::sizeHint() const
{
    return {600, fontMetrics().height() + 10};
}

void PinLegend::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const QPalette& pal = palette();
    const int h = height();
    const int swatch = std::min(14, h - 6);
    int x = 2;
    const QString title = tr("Pins:");
    painter.setPen(pal.color(QPalette::PlaceholderText));
    painter.drawText(QRect(x, 0, width() - x, h), Qt::AlignVCenter, title);
    x += fontMetrics().horizontalAdvance(title) + 10;
    if (m_entries.empty()) {
        painter.drawText(QRect(x, 0, width() - x, h), Qt::AlignVCenter,
                         tr("no recipe pins nixpkgs"));
        return;
    }
    painter.setRenderHint(QPainter::Antialiasing);
    for (size_t i = 0; i < m_entries.size(); ++i) {
        const QColor color = PinLegend::color(static_cast<int>(i), pal);
        const QString text =
            tr("%1 \u00d7%2").arg(qs(m_entries[i].shortForm)).arg(m_entries[i].count);
        const int width = swatch + 4 + fontMetrics().horizontalAdvance(text);
        if (x + width > this->width() - 2) {
            // The rest is in the tooltip; say how much is hidden rather than cut a hash.
            painter.setPen(pal.color(QPalette::PlaceholderText));
            painter.drawText(QRect(x, 0, this->width() - x, h), Qt::AlignVCenter,
                             tr("+%1 more").arg(m_entries.size() - i));
            break;
        }
        const QRectF box(x + 0.5, (h - swatch) / 2.0 + 0.5, swatch - 1, swatch - 1);
        painter.setPen(QPen(color, 1.2));
        painter.setBrush(fill(color, pal));
        painter.drawRoundedRect(box, 3, 3);
        painter.setPen(color);
        painter.drawText(QRect(x + swatch + 4, 0, width, h), Qt::AlignVCenter, text);
        x += width + 14;
    }
}

} // namespace rg
