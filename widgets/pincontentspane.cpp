#include "pincontentspane.h"

#include "sessions/qtext.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace rg {

PinContentsPane::PinContentsPane(QWidget* parent, Mode mode)
    : QGroupBox(mode == Mode::OnePin ? tr("What this pin contains") : tr("What the pins contain"),
                parent),
      m_mode(mode)
{
    auto* layout = new QVBoxLayout(this);
    auto* row = new QHBoxLayout;
    m_compare = new QPushButton(this);
    m_compare->setToolTip(tr("Ask Nix what the pin's nixpkgs holds: Python, torch, CUDA, cuDNN, "
                             "NCCL and MAGMA versions (Build Settings \u203a Local nixpkgs "
                             "sources are used instead of downloading)"));
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("pinContentsStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row->addWidget(m_compare, 0, Qt::AlignTop);
    row->addWidget(m_status, 1);
    layout->addLayout(row);
    m_tree = new QTreeWidget(this);
    m_tree->setRootIsDecorated(false);
    if (mode == Mode::OnePin)
        m_tree->setHeaderLabels({tr("Value"), tr("Version")});
    else
        m_tree->setHeaderLabels({tr("Value"), tr("From"), tr("To")});
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tree->setMinimumHeight(m_tree->fontMetrics().lineSpacing() * 11);
    m_tree->hide();
    layout->addWidget(m_tree);
    connect(m_compare, &QPushButton::clicked, this, &PinContentsPane::buttonClicked);
    updateButton();
}

void PinContentsPane::buttonClicked()
{
    if (m_asking)
        emit stopRequested(); // the answer, "cancelled", ends the asking
    else
        ask();
}

void PinContentsPane::ask()
{
    if (m_asking || !m_inputsEnabled || !pinsChosen())
        return;
    m_asking = true;
    m_tree->clear();
    m_tree->hide();
    m_status->setText(tr("Asking Nix\u2026"));
    updateButton();
    emit compareRequested(m_from, m_to);
}

void PinContentsPane::setPins(const std::string& from, const std::string& to)
{
    if (from == m_from && to == m_to)
        return;
    m_from = from;
    m_to = to;
    m_asking = false;
    m_tree->clear();
    m_tree->hide();
    m_status->clear();
    updateButton();
}

void PinContentsPane::setInputsEnabled(bool enabled)
{
    m_inputsEnabled = enabled;
    updateButton();
}

bool PinContentsPane::isCurrent(const std::string& from, const std::string& to) const
{
    return m_asking && from == m_from && to == m_to;
}

bool PinContentsPane::pinsChosen() const
{
    return m_mode == Mode::OnePin ? !m_from.empty()
                                  : !m_from.empty() && !m_to.empty() && m_from != m_to;
}

void PinContentsPane::updateButton()
{
    if (m_asking)
        m_compare->setText(tr("&Stop"));
    else
        m_compare->setText(m_mode == Mode::OnePin ? tr("Ask &Nix") : tr("Compare &with Nix"));
    m_compare->setEnabled(m_asking || (m_inputsEnabled && pinsChosen()));
}

void PinContentsPane::showComparison(const std::string& from, const std::string& to,
                                     const std::vector<PinComparison::Row>& rows)
{
    if (!isCurrent(from, to))
        return;
    m_asking = false;
    updateButton();
    int changed = 0;
    QList<QTreeWidgetItem*> items;
    for (const PinComparison::Row& row : rows) {
        auto* item = new QTreeWidgetItem(
            m_mode == Mode::OnePin ? QStringList{qs(row.label), qs(row.after)}
                                   : QStringList{qs(row.label), qs(row.before), qs(row.after)});
        if (row.changed) {
            ++changed;
            QFont bold = item->font(2);
            bold.setBold(true);
            item->setFont(0, bold);
            item->setFont(2, bold);
            item->setToolTip(2, tr("was %1").arg(qs(row.before)));
        }
        items << item;
    }
    m_tree->addTopLevelItems(items);
    m_tree->setVisible(!items.isEmpty());
    // A narrow dock would cut the versions off: ask for the width both columns need.
    if (m_mode == Mode::OnePin)
        m_tree->setMinimumWidth(std::min(m_tree->header()->length() + 2 * m_tree->frameWidth() +
                                             m_tree->verticalScrollBar()->sizeHint().width(),
                                         480));
    if (m_mode == Mode::OnePin)
        m_status->setText(tr("%1, as Nix reads it.").arg(qs(to.substr(0, 12))));
    else
        m_status->setText(
            changed == 0 ? tr("The same versions on both pins.")
                         : tr("%1 of %2 values change (in bold).").arg(changed).arg(rows.size()));
}

void PinContentsPane::showError(const std::string& from, const std::string& to,
                                const QString& message)
{
    if (!isCurrent(from, to))
        return;
    m_asking = false;
    updateButton();
    m_status->setText(message);
}

} // namespace rg
