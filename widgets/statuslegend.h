#pragma once

// What the grid's icons, colours and hatching mean, in one line under the grid.

#include <QWidget>

namespace rg {

class StatusLegend : public QWidget
{
    Q_OBJECT
public:
    explicit StatusLegend(QWidget* parent = nullptr);
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
};

} // namespace rg
