#include "filterbar.h"

#include "statusstyle.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QToolButton>

namespace rg {

FilterBar::FilterBar(QWidget* parent) : QWidget(parent), m_text(new QLineEdit(this))
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    m_text->setPlaceholderText(tr("Filter: variant, file, reason or finding (Ctrl+F)"));
    m_text->setClearButtonEnabled(true);
    m_text->setAccessibleName(tr("Filter text"));
    layout->addWidget(m_text, 1);
    for (int i = 0; i < cellStatusCount; ++i) {
        const auto status = static_cast<CellStatus>(i);
        auto* button = new QToolButton(this);
        button->setCheckable(true);
        button->setChecked(true);
        button->setIcon(StatusStyle::icon(status, palette()));
        button->setText(StatusStyle::label(status));
        button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        button->setFocusPolicy(Qt::StrongFocus);
        button->setToolTip(tr("Show %1 cells: %2")
                               .arg(StatusStyle::label(status), StatusStyle::description(status)));
        button->setAccessibleName(tr("Show %1 cells").arg(StatusStyle::label(status)));
        connect(button, &QToolButton::toggled, this, &FilterBar::filterChanged);
        layout->addWidget(button);
        m_status[static_cast<size_t>(i)] = button;
    }
    connect(m_text, &QLineEdit::textChanged, this, &FilterBar::filterChanged);
}

QString FilterBar::text() const
{
    return m_text->text();
}

unsigned FilterBar::statusMask() const
{
    unsigned mask = 0;
    for (int i = 0; i < cellStatusCount; ++i) {
        if (m_status[static_cast<size_t>(i)]->isChecked())
            mask |= 1u << i;
    }
    return mask;
}

void FilterBar::setText(const QString& text)
{
    m_text->setText(text);
}

void FilterBar::setStatusShown(CellStatus status, bool shown)
{
    m_status[static_cast<size_t>(status)]->setChecked(shown);
}

void FilterBar::setCounts(const std::array<int, cellStatusCount>& counts)
{
    for (int i = 0; i < cellStatusCount; ++i) {
        m_status[static_cast<size_t>(i)]->setText(
            QStringLiteral("%1 %2")
                .arg(counts[static_cast<size_t>(i)])
                .arg(StatusStyle::label(static_cast<CellStatus>(i))));
    }
}

QToolButton* FilterBar::statusButton(CellStatus status) const
{
    return m_status[static_cast<size_t>(status)];
}

} // namespace rg
