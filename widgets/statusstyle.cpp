#include "statusstyle.h"

#include <QCoreApplication>
#include <QHash>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
#include <cmath>

namespace rg {

namespace {

// The square an icon is drawn in, its points given as fractions of its side so that icons
// scale to any cell.
struct IconSquare
{
    QRectF rect;
    qreal side;

    QPointF at(qreal x, qreal y) const
    {
        return QPointF(rect.left() + x * side, rect.top() + y * side);
    }
    QRectF inset(qreal fraction) const
    {
        return rect.adjusted(side * fraction, side * fraction, -side * fraction, -side * fraction);
    }
};

// The ground of a mark drawn in white, which stays readable on every status colour; the pen is
// left set for the mark, `side / widthDivisor` wide.
void fillDisc(QPainter* painter, const IconSquare& square, const QColor& color,
              qreal widthDivisor = 7)
{
    painter->setBrush(color);
    painter->setPen(Qt::NoPen);
    painter->drawEllipse(square.inset(0.04));
    painter->setPen(QPen(Qt::white, std::max<qreal>(1.5, square.side / widthDivisor), Qt::SolidLine,
                         Qt::RoundCap, Qt::RoundJoin));
    painter->setBrush(Qt::NoBrush);
}

void paintExclamationDiamond(QPainter* painter, const IconSquare& square, const QColor& color)
{
    QPainterPath diamond(square.at(0.5, 0.06));
    diamond.lineTo(square.at(0.94, 0.5));
    diamond.lineTo(square.at(0.5, 0.94));
    diamond.lineTo(square.at(0.06, 0.5));
    diamond.closeSubpath();
    painter->setBrush(color);
    painter->setPen(Qt::NoPen);
    painter->drawPath(diamond);
    QPen mark(Qt::white, std::max<qreal>(1.5, square.side / 8), Qt::SolidLine, Qt::RoundCap);
    painter->setPen(mark);
    painter->drawLine(square.at(0.5, 0.3), square.at(0.5, 0.56));
    painter->drawPoint(square.at(0.5, 0.7));
}

// What `make` gives for `key`, made once; icons are painted per look (status, colour, size).
template <typename Value, typename Make>
Value cached(QHash<QString, Value>& cache, const QString& key, Make make)
{
    const auto it = cache.constFind(key);
    if (it != cache.constEnd())
        return *it;
    if (cache.size() > 512)
        cache.clear();
    return *cache.insert(key, make());
}

} // namespace

QString StatusStyle::label(CellStatus status)
{
    return QString::fromLatin1(cellStatusId(status).data(),
                               static_cast<qsizetype>(cellStatusId(status).size()));
}

QString StatusStyle::description(CellStatus status)
{
    switch (status) {
    case CellStatus::Ok:
        return QCoreApplication::translate(
            "rg::StatusStyle", "present, no error (warnings, if any, show as a warning sign)");
    case CellStatus::Broken:
        return QCoreApplication::translate("rg::StatusStyle",
                                           "present with an error: it will not evaluate or build, "
                                           "or builds another variant than its name says");
    case CellStatus::Redundant:
        return QCoreApplication::translate(
            "rg::StatusStyle",
            "a second recipe for a variant that already has one (-magma, -nightly)");
    case CellStatus::Missing:
        return QCoreApplication::translate("rg::StatusStyle",
                                           "the spec expects it, no recipe file");
    case CellStatus::Unexpected:
        return QCoreApplication::translate("rg::StatusStyle",
                                           "present, but the spec does not ask for it");
    case CellStatus::Impossible:
        return QCoreApplication::translate("rg::StatusStyle",
                                           "the hardware cannot run this pairing");
    case CellStatus::Gap:
        return QCoreApplication::translate(
            "rg::StatusStyle", "no spec: the recipes around it suggest it, none builds it");
    case CellStatus::Unchecked:
        return QCoreApplication::translate(
            "rg::StatusStyle",
            "present, not checked: nested deeper than RecipeGrid reads; Nix may accept it");
    }
    return {};
}

bool StatusStyle::isDark(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

QColor StatusStyle::color(CellStatus status, const QPalette& palette)
{
    const bool dark = isDark(palette);
    switch (status) {
    case CellStatus::Ok:
        return dark ? QColor(0x81, 0xc7, 0x84) : QColor(0x1b, 0x6e, 0x20);
    case CellStatus::Broken:
        return dark ? QColor(0xef, 0x9a, 0x9a) : QColor(0xb7, 0x1c, 0x1c);
    case CellStatus::Redundant:
        return dark ? QColor(0xff, 0xcc, 0x80) : QColor(0xa8, 0x4b, 0x00);
    case CellStatus::Missing:
        return dark ? QColor(0x90, 0xca, 0xf9) : QColor(0x15, 0x65, 0xc0);
    case CellStatus::Unexpected:
        return dark ? QColor(0xce, 0x93, 0xd8) : QColor(0x6a, 0x1b, 0x9a);
    case CellStatus::Impossible:
        return dark ? QColor(0xbd, 0xbd, 0xbd) : QColor(0x61, 0x61, 0x61);
    case CellStatus::Gap: // a lighter missing: a suggestion, not a demand
        return dark ? QColor(0x6f, 0x8f, 0xab) : QColor(0x8a, 0xa9, 0xc8);
    case CellStatus::Unchecked: // neither ok's green nor an error's red: not known
        return dark ? QColor(0xe6, 0xd3, 0x6a) : QColor(0x7a, 0x6a, 0x00);
    }
    return palette.color(QPalette::Text);
}

QColor StatusStyle::fill(CellStatus status, const QPalette& palette)
{
    // Absence reads as an outline, not a block. An impossible pairing has a fill only where
    // a recipe file is, which is a block like every other file: something to delete.
    if (status == CellStatus::Missing || status == CellStatus::Gap)
        return Qt::transparent;
    QColor base = palette.color(QPalette::Base);
    const QColor own = color(status, palette);
    const double mix = isDark(palette) ? 0.28 : 0.14;
    return QColor::fromRgbF(base.redF() * (1 - mix) + own.redF() * mix,
                            base.greenF() * (1 - mix) + own.greenF() * mix,
                            base.blueF() * (1 - mix) + own.blueF() * mix);
}

void StatusStyle::paintIcon(QPainter* painter, const QRectF& area, CellStatus status,
                            const QColor& color)
{
    const qreal side = std::min(area.width(), area.height());
    const IconSquare square{
        QRectF(area.center().x() - side / 2, area.center().y() - side / 2, side, side), side};
    const auto at = [&square](qreal x, qreal y) { return square.at(x, y); };
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    QPen pen(color, std::max<qreal>(1.5, side / 8), Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
    painter->setPen(pen);
    painter->setBrush(Qt::NoBrush);
    switch (status) {
    case CellStatus::Ok: { // check mark in a filled disc
        fillDisc(painter, square, color);
        QPainterPath path(at(0.28, 0.52));
        path.lineTo(at(0.44, 0.68));
        path.lineTo(at(0.73, 0.34));
        painter->drawPath(path);
        break;
    }
    case CellStatus::Broken: { // cross in a filled disc
        fillDisc(painter, square, color);
        painter->drawLine(at(0.33, 0.33), at(0.67, 0.67));
        painter->drawLine(at(0.67, 0.33), at(0.33, 0.67));
        break;
    }
    case CellStatus::Redundant: { // two overlapping sheets
        painter->drawRoundedRect(QRectF(at(0.12, 0.12), at(0.62, 0.62)), side * 0.08, side * 0.08);
        painter->setBrush(color);
        painter->drawRoundedRect(QRectF(at(0.38, 0.38), at(0.88, 0.88)), side * 0.08, side * 0.08);
        break;
    }
    case CellStatus::Missing: { // dashed empty circle with a plus
        QPen dashed = pen;
        dashed.setStyle(Qt::DashLine);
        dashed.setDashPattern({2.0, 1.6});
        painter->setPen(dashed);
        painter->drawEllipse(square.inset(0.1));
        painter->setPen(pen);
        painter->drawLine(at(0.5, 0.33), at(0.5, 0.67));
        painter->drawLine(at(0.33, 0.5), at(0.67, 0.5));
        break;
    }
    case CellStatus::Unexpected: // diamond with an exclamation mark
        paintExclamationDiamond(painter, square, color);
        break;
    case CellStatus::Gap: { // dotted empty circle
        QPen dotted = pen;
        dotted.setStyle(Qt::DotLine);
        painter->setPen(dotted);
        painter->drawEllipse(square.inset(0.18));
        break;
    }
    case CellStatus::Impossible: { // no-entry sign
        painter->drawEllipse(square.inset(0.1));
        painter->drawLine(at(0.24, 0.76), at(0.76, 0.24));
        break;
    }
    case CellStatus::Unchecked: { // question mark in a filled disc
        fillDisc(painter, square, color, 8);
        QPainterPath hook(at(0.36, 0.38));
        hook.cubicTo(at(0.36, 0.18), at(0.66, 0.18), at(0.64, 0.38));
        hook.cubicTo(at(0.62, 0.5), at(0.5, 0.48), at(0.5, 0.6));
        painter->drawPath(hook);
        painter->drawPoint(at(0.5, 0.76));
        break;
    }
    }
    painter->restore();
}

QIcon StatusStyle::icon(CellStatus status, const QPalette& palette, int size)
{
    // Kept: the details panel asks for one per recipe of the selection at each new analysis,
    // and painting them each time took milliseconds of the GUI thread for a large selection.
    static QHash<QString, QIcon> cache;
    const QColor shade = color(status, palette);
    return cached(cache, QStringLiteral("%1/%2/%3").arg(int(status)).arg(shade.rgba()).arg(size),
                  [&] {
                      QIcon icon;
                      for (const qreal scale : {1.0, 2.0}) {
                          QPixmap pixmap(int(size * scale), int(size * scale));
                          pixmap.setDevicePixelRatio(scale);
                          pixmap.fill(Qt::transparent);
                          QPainter painter(&pixmap);
                          paintIcon(&painter, QRectF(1, 1, size - 2, size - 2), status, shade);
                          painter.end();
                          icon.addPixmap(pixmap);
                      }
                      return icon;
                  });
}

QPixmap StatusStyle::iconPixmap(CellStatus status, const QColor& color, int size,
                                qreal devicePixelRatio)
{
    static QHash<QString, QPixmap> cache;
    const QString key = QStringLiteral("%1/%2/%3/%4")
                            .arg(int(status))
                            .arg(color.rgba())
                            .arg(size)
                            .arg(devicePixelRatio);
    return cached(cache, key, [&] {
        const int side = int(std::ceil(size * devicePixelRatio));
        QPixmap pixmap(side, side);
        pixmap.setDevicePixelRatio(devicePixelRatio);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        paintIcon(&painter, QRectF(0, 0, size, size), status, color);
        painter.end();
        return pixmap;
    });
}

QBrush StatusStyle::hatch(const QPalette& palette)
{
    QColor lines = color(CellStatus::Impossible, palette);
    lines.setAlpha(isDark(palette) ? 90 : 70);
    return QBrush(lines, Qt::BDiagPattern);
}

QColor StatusStyle::warningColor(const QPalette& palette)
{
    // Amber, apart from redundant's burnt orange and broken's red: caution, not failure.
    return isDark(palette) ? QColor(0xff, 0xca, 0x28) : QColor(0xe0, 0x9b, 0x00);
}

void StatusStyle::paintWarningMark(QPainter* painter, const QRectF& area, const QPalette& palette)
{
    const qreal side = std::min(area.width(), area.height());
    const QRectF r(area.center().x() - side / 2, area.center().y() - side / 2, side, side);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    QPainterPath triangle(QPointF(r.center().x(), r.top() + side * 0.04));
    triangle.lineTo(QPointF(r.right() - side * 0.02, r.bottom() - side * 0.06));
    triangle.lineTo(QPointF(r.left() + side * 0.02, r.bottom() - side * 0.06));
    triangle.closeSubpath();
    // A thin rim in the base colour keeps the sign apart from the chip's fill and border.
    painter->setPen(QPen(palette.color(QPalette::Base), std::max<qreal>(1.0, side / 10),
                         Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter->setBrush(warningColor(palette));
    painter->drawPath(triangle);
    // The exclamation mark is dark on either palette: amber is light in both.
    QPen mark(QColor(0x21, 0x21, 0x21), std::max<qreal>(1.1, side / 8), Qt::SolidLine,
              Qt::RoundCap);
    painter->setPen(mark);
    const qreal x = r.center().x();
    painter->drawLine(QPointF(x, r.top() + side * 0.38), QPointF(x, r.top() + side * 0.62));
    painter->drawPoint(QPointF(x, r.top() + side * 0.78));
    painter->restore();
}

QIcon StatusStyle::warningIcon(const QPalette& palette, int size)
{
    QIcon icon;
    for (const qreal scale : {1.0, 2.0}) {
        QPixmap pixmap(static_cast<int>(size * scale), static_cast<int>(size * scale));
        pixmap.setDevicePixelRatio(scale);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        paintWarningMark(&painter, QRectF(0, 0, size, size), palette);
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

} // namespace rg
