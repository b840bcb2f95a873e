#include "slicechooser.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolButton>
#include <algorithm>

namespace rg {

SliceChooser::SliceChooser(QWidget* parent) : QWidget(parent), m_buttons(new QHBoxLayout)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* label = new QLabel(tr("Slices:"), this);
    layout->addWidget(label);
    // Repositories with many Python × CUDA slices must not widen the window: the toggles
    // scroll sideways instead.
    auto* scroll = new QScrollArea(this);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    scroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    auto* strip = new QWidget(scroll);
    strip->setLayout(m_buttons);
    m_buttons->setContentsMargins(0, 0, 0, 0);
    m_buttons->setSpacing(4);
    m_buttons->addStretch(1);
    scroll->setWidget(strip);
    layout->addWidget(scroll, 1);
    m_scroll = scroll;
    setAccessibleName(tr("Slice chooser"));
}

void SliceChooser::setSlices(const std::vector<MatrixSlice>& available,
                             const std::vector<MatrixSlice>& selected)
{
    m_available = available;
    rebuild();
    setSelected(selected);
}

void SliceChooser::rebuild()
{
    for (QToolButton* button : m_toggles)
        delete button;
    m_toggles.clear();
    for (const MatrixSlice& slice : m_available) {
        auto* button = new QToolButton(this);
        const QString label = QString::fromStdString(slice.label());
        button->setText(label);
        button->setCheckable(true);
        button->setFocusPolicy(Qt::StrongFocus);
        button->setAutoRaise(false);
        button->setToolTip(tr("Show %1 in the grid (toggle several to compare)").arg(label));
        button->setAccessibleName(label);
        connect(button, &QToolButton::toggled, this, [this, button](bool on) {
            // One slice always stays on: an empty grid explains nothing.
            if (!on && selected().empty()) {
                const QSignalBlocker blocker(button);
                button->setChecked(true);
                return;
            }
            emit selectionChanged();
        });
        m_buttons->insertWidget(m_buttons->count() - 1, button);
        m_toggles.push_back(button);
    }
    const int buttonHeight = m_toggles.empty() ? 24 : m_toggles.front()->sizeHint().height();
    m_scroll->setFixedHeight(buttonHeight + m_scroll->horizontalScrollBar()->sizeHint().height() +
                             2);
}

std::vector<MatrixSlice> SliceChooser::selected() const
{
    std::vector<MatrixSlice> result;
    for (size_t i = 0; i < m_toggles.size(); ++i) {
        if (m_toggles[i]->isChecked())
            result.push_back(m_available[i]);
    }
    return result;
}

void SliceChooser::setSelected(const std::vector<MatrixSlice>& wanted)
{
    bool any = false;
    for (size_t i = 0; i < m_toggles.size(); ++i) {
        const bool on = std::find(wanted.begin(), wanted.end(), m_available[i]) != wanted.end();
        const QSignalBlocker blocker(m_toggles[i]);
        m_toggles[i]->setChecked(on);
        any |= on;
    }
    if (!any && !m_toggles.empty()) {
        const QSignalBlocker blocker(m_toggles.front());
        m_toggles.front()->setChecked(true);
    }
    emit selectionChanged();
}

QToolButton* SliceChooser::button(const MatrixSlice& slice) const
{
    for (size_t i = 0; i < m_available.size(); ++i) {
        if (m_available[i] == slice)
            return m_toggles[i];
    }
    return nullptr;
}

} // namespace rg
