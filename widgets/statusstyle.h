#pragma once

// How a cell status looks everywhere (grid, legend, filter buttons, details): a colour that
// follows the light/dark palette, a drawn icon and a word — never colour alone.

#include "analysis/analysis.h"

#include <QColor>
#include <QIcon>
#include <QPalette>
#include <QString>

class QPainter;
class QRectF;

namespace rg {

class StatusStyle
{
public:
    static QString label(CellStatus status);       // "broken"
    static QString description(CellStatus status); // one sentence for legends and tooltips
    static bool isDark(const QPalette& palette);
    // The status' own colour, readable as text and border on the palette's base.
    static QColor color(CellStatus status, const QPalette& palette);
    // A quiet fill for the chip behind the icon and the word.
    static QColor fill(CellStatus status, const QPalette& palette);
    // Draws the status' icon inside `rect` (square or not; centred) in `color`.
    static void paintIcon(QPainter* painter, const QRectF& rect, CellStatus status,
                          const QColor& color);
    static QIcon icon(CellStatus status, const QPalette& palette, int size = 16);
    // The icon pre-rendered and cached (GUI thread): painting thousands of chips per frame
    // must not re-stroke every path.
    static QPixmap iconPixmap(CellStatus status, const QColor& color, int size,
                              qreal devicePixelRatio);
    // Diagonal hatching used for impossible pairings.
    static QBrush hatch(const QPalette& palette);

    // Warnings are not a status (an ok recipe may have some): an amber warning sign drawn
    // on top of a chip, in the legend and on the filter bar's warnings toggle.
    static QColor warningColor(const QPalette& palette);
    static void paintWarningMark(QPainter* painter, const QRectF& rect, const QPalette& palette);
    static QIcon warningIcon(const QPalette& palette, int size = 16);
};

} // namespace rg
