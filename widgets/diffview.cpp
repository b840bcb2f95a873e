#include "diffview.h"

#include "diffhighlighter.h"
#include "syntaxhighlighting.h"

#include <QFontDatabase>
#include <QKeyEvent>
#include <QPainter>
#include <QSyntaxHighlighter>
#include <QTextBlock>

namespace rg {

DiffView::DiffView(QWidget* parent) : QPlainTextEdit(parent)
{
    setReadOnly(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setAccessibleName(tr("Diff"));
    m_highlighter = SyntaxHighlighting::attachDiff(document(), palette());
}

void DiffView::setDiff(const QString& diff)
{
    m_diff = diff;
    setPlainText(diff);
    moveCursor(QTextCursor::Start);
}

void DiffView::showMessage(const QString& message)
{
    m_diff.clear();
    setPlainText(message);
}

void DiffView::keyPressEvent(QKeyEvent* event)
{
    const Qt::KeyboardModifiers modifiers = event->modifiers() & ~Qt::KeypadModifier;
    const bool next = (event->key() == Qt::Key_N && modifiers == Qt::NoModifier) ||
                      (event->key() == Qt::Key_Down && modifiers == Qt::AltModifier);
    const bool previous = (event->key() == Qt::Key_P && modifiers == Qt::NoModifier) ||
                          (event->key() == Qt::Key_Up && modifiers == Qt::AltModifier);
    if (next || previous) {
        if (next)
            emit nextFileRequested();
        else
            emit previousFileRequested();
        event->accept();
        return;
    }
    QPlainTextEdit::keyPressEvent(event);
}

void DiffView::paintEvent(QPaintEvent* event)
{
    // The highlighter colours the characters; a changed line reads better tinted edge to edge.
    if (auto* diff = qobject_cast<DiffHighlighter*>(m_highlighter)) {
        QPainter painter(viewport());
        const int width = viewport()->width();
        for (QTextBlock block = firstVisibleBlock(); block.isValid(); block = block.next()) {
            const QRectF rect = blockBoundingGeometry(block).translated(contentOffset());
            if (rect.top() > event->rect().bottom())
                break;
            const QColor color = diff->lineBackground(DiffHighlighter::lineOf(block));
            if (color.isValid())
                painter.fillRect(QRectF(0, rect.top(), width, rect.height()), color);
        }
    }
    QPlainTextEdit::paintEvent(event);
}

void DiffView::changeEvent(QEvent* event)
{
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        SyntaxHighlighting::setPalette(m_highlighter, palette());
}

} // namespace rg
