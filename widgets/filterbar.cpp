#include "filterbar.h"

#include "statusstyle.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QToolButton>

namespace rg {

FilterBar::FilterBar(QWidget* parent)
    : QWidget(parent), m_text(new QLineEdit(this)), m_warnings(new QToolButton(this))
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    m_text->setPlaceholderText(tr("Filter: variant, file, reason or finding (Ctrl+F)"));
    m_text->setToolTip(m_text->placeholderText());
    m_text->setMinimumWidth(m_text->fontMetrics().horizontalAdvance(QStringLiteral("x")) * 22);
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
    // Not a status but a narrowing: off shows everything, on only what has warnings to tidy.
    m_warnings->setCheckable(true);
    m_warnings->setIcon(StatusStyle::warningIcon(palette()));
    m_warnings->setText(tr("warnings"));
    m_warnings->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_warnings->setFocusPolicy(Qt::StrongFocus);
    m_warnings->setToolTip(tr("Show only recipes with warnings: they build, but something is "
                              "risky or deprecated (unpinned <nixpkgs>, deprecated attribute, …)"));
    m_warnings->setAccessibleName(tr("Show only cells with warnings"));
    connect(m_warnings, &QToolButton::toggled, this, &FilterBar::filterChanged);
    layout->addSpacing(6);
    layout->addWidget(m_warnings);
    connect(m_text, &QLineEdit::textChanged, this, &FilterBar::filterChanged);
    // Nothing counted yet: every toggle steps aside until an analysis gives it something to
    // count, so that an empty bar does not widen the window's minimum.
    setCounts({});
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

bool FilterBar::warningsOnly() const
{
    return m_warnings->isChecked();
}

void FilterBar::setWarningsOnly(bool only)
{
    m_warnings->setChecked(only);
}

void FilterBar::setCounts(const std::array<int, cellStatusCount>& counts, int withWarnings)
{
    // Eight statuses and the warnings toggle crowd out the text field, so a toggle with
    // nothing to count steps aside while it is in its neutral state (a status shown, warnings
    // off): hidden, it cannot hide anything. One the user switched stays, to be switched back.
    m_warnings->setText(tr("%1 with warnings").arg(withWarnings));
    m_warnings->setVisible(withWarnings > 0 || m_warnings->isChecked());
    for (int i = 0; i < cellStatusCount; ++i) {
        QToolButton* button = m_status[static_cast<size_t>(i)];
        const int count = counts[static_cast<size_t>(i)];
        button->setText(
            QStringLiteral("%1 %2").arg(count).arg(StatusStyle::label(static_cast<CellStatus>(i))));
        button->setVisible(count > 0 || !button->isChecked());
    }
}

QToolButton* FilterBar::statusButton(CellStatus status) const
{
    return m_status[static_cast<size_t>(status)];
}

} // namespace rg
