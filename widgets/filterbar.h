#pragma once

// Filter of the grid: free text (variant, file, reason, finding) and one toggle per status.

#include "recipes/analysis.h"

#include <QWidget>
#include <array>

class QLineEdit;
class QToolButton;

namespace rg {

class FilterBar : public QWidget
{
    Q_OBJECT
public:
    explicit FilterBar(QWidget* parent = nullptr);

    QString text() const;
    unsigned statusMask() const; // bit (1 << CellStatus) per status shown
    void setText(const QString& text);
    void setStatusShown(CellStatus status, bool shown);
    void setCounts(const std::array<int, cellStatusCount>& counts);
    QLineEdit* lineEdit() const { return m_text; }
    QToolButton* statusButton(CellStatus status) const;

signals:
    void filterChanged();

private:
    QLineEdit* m_text;
    std::array<QToolButton*, cellStatusCount> m_status{};
};

} // namespace rg
