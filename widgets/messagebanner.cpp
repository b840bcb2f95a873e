#include "messagebanner.h"

#include "statusstyle.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace rg {

MessageBanner::MessageBanner(QWidget* parent)
    : QFrame(parent), m_icon(new QLabel(this)), m_text(new QLabel(this)),
      m_close(new QToolButton(this))
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    layout->addWidget(m_icon);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    layout->addWidget(m_text, 1);
    m_close->setText(QStringLiteral("\u2715"));
    m_close->setAutoRaise(true);
    m_close->setToolTip(tr("Dismiss"));
    m_close->setAccessibleName(tr("Dismiss message"));
    layout->addWidget(m_close);
    connect(m_close, &QToolButton::clicked, this, &QWidget::hide);
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    hide();
}

void MessageBanner::showMessage(Kind kind, const QString& text)
{
    m_kind = kind;
    m_text->setText(text);
    setAccessibleName(text);
    applyStyle();
    show();
}

QString MessageBanner::text() const
{
    return m_text->text();
}

void MessageBanner::applyStyle()
{
    const CellStatus tone = m_kind == Kind::Error     ? CellStatus::Broken
                            : m_kind == Kind::Warning ? CellStatus::Redundant
                                                      : CellStatus::Missing;
    QPalette pal = palette();
    pal.setColor(QPalette::Window,
                 StatusStyle::fill(tone == CellStatus::Missing ? CellStatus::Ok : tone, pal));
    if (tone == CellStatus::Missing) {
        QColor base = pal.color(QPalette::Base);
        pal.setColor(QPalette::Window, base.darker(104));
    }
    pal.setColor(QPalette::WindowText, pal.color(QPalette::Text));
    setPalette(pal);
    const QStyle::StandardPixmap pixmap = m_kind == Kind::Error ? QStyle::SP_MessageBoxCritical
                                          : m_kind == Kind::Warning
                                              ? QStyle::SP_MessageBoxWarning
                                              : QStyle::SP_MessageBoxInformation;
    m_icon->setPixmap(style()->standardIcon(pixmap).pixmap(18, 18));
}

} // namespace rg
