#pragma once

// Filter of the grid: free text (variant, file, reason, finding), one toggle per status (on:
// shown) and a warnings toggle (on: only recipes with warnings), off by default.

#include "analysis/analysis.h"

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
    bool warningsOnly() const;
    void setWarningsOnly(bool only);
    // Entries per status, and recipes with warnings (MatrixModel::countWithWarnings).
    void setCounts(const std::array<int, cellStatusCount>& counts, int withWarnings = 0);
    QLineEdit* lineEdit() const { return m_text; }
    QToolButton* statusButton(CellStatus status) const;
    QToolButton* warningsButton() const { return m_warnings; }

signals:
    void filterChanged();

private:
    QLineEdit* m_text;
    std::array<QToolButton*, cellStatusCount> m_status{};
    QToolButton* m_warnings;
};

} // namespace rg
