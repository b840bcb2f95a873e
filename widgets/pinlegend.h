#pragma once

// What the colours mean while the grid is coloured by pin: a swatch, the short revision and
// the number of recipes per pin, most used first. Also where those colours come from, so the
// grid, the pins view and the alignment view give one pin one colour.

#include "pins/pininventory.h"

#include <QColor>
#include <QPalette>
#include <QWidget>
#include <vector>

namespace rg {

class PinLegend : public QWidget
{
    Q_OBJECT
public:
    explicit PinLegend(QWidget* parent = nullptr);

    void setEntries(std::vector<PinLegendEntry> entries);
    const std::vector<PinLegendEntry>& entries() const { return m_entries; }
    // "6a030d5: 66 recipes; 0182a36: 2 recipes", what a screen reader hears.
    QString text() const;

    // The colour of the pin at `index` of the legend, readable as text and border on the
    // palette's base; distinct for the first ten, then spread around the hue circle.
    static QColor color(int index, const QPalette& palette);
    // A quiet fill behind it, as StatusStyle::fill is for statuses.
    static QColor fill(const QColor& color, const QPalette& palette);
    // Text for a recipe without a pin of its own (a wrapper, an unpinned import).
    static QColor noPinColor(const QPalette& palette);

    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<PinLegendEntry> m_entries;
};

} // namespace rg
