#include "ansilogview.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QFontDatabase>
#include <QMenu>
#include <QPainter>
#include <QScrollBar>

namespace rg {

namespace {

constexpr int margin = 4;

QString cutMarker()
{
    return AnsiLogView::tr(" … [line cut here; the full line is in the log file]");
}

} // namespace

AnsiLogView::AnsiLogView(QWidget* parent) : QAbstractScrollArea(parent)
{
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setCursor(Qt::IBeamCursor);
    viewport()->setAutoFillBackground(false);
    setAccessibleName(tr("Build log"));
    updateMetrics();
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, [this] {
        viewport()->update();
        if (!m_adjusting)
            emit userScrolled(isAtEnd());
    });
    connect(horizontalScrollBar(), &QScrollBar::valueChanged, viewport(),
            QOverload<>::of(&QWidget::update));
}

void AnsiLogView::updateMetrics()
{
    const QFontMetrics metrics(font());
    m_lineHeight = qMax(1, metrics.lineSpacing());
    m_charWidth = qMax(1, metrics.horizontalAdvance(QLatin1Char('M')));
    m_ascent = metrics.ascent();
    updateScrollBars();
}

void AnsiLogView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        updateMetrics();
    QAbstractScrollArea::changeEvent(event);
}

void AnsiLogView::appendToLine(Line& line, QStringView text, const QList<AnsiRenderer::Run>& runs,
                               qsizetype offset, qsizetype& runIndex)
{
    if (line.cut || text.isEmpty())
        return;
    qsizetype take = text.size();
    const bool cut = line.text.size() + take > m_maximumLineLength;
    if (cut)
        take = qMax<qsizetype>(0, m_maximumLineLength - line.text.size());
    // Formatting of the part kept: runs are sorted, so one cursor walks them across lines.
    const qsizetype end = offset + take;
    while (runIndex < runs.size() && runs[runIndex].start + runs[runIndex].length <= offset)
        ++runIndex;
    for (qsizetype r = runIndex; r < runs.size() && runs[r].start < end; ++r) {
        const AnsiRenderer::Run& run = runs[r];
        if (run.style < 0)
            continue;
        const std::size_t style = std::size_t(run.style);
        if (style >= m_formats.size()) {
            m_formats.resize(style + 1);
            m_formatKnown.resize(style + 1);
        }
        if (!m_formatKnown[style]) {
            m_formats[style] = run.format;
            m_formatKnown[style] = true;
        }
        const qsizetype from = qMax(run.start, offset);
        const qsizetype to = qMin(run.start + run.length, end);
        if (to > from)
            line.spans.push_back(
                {int(line.text.size() + from - offset), int(to - from), run.style});
    }
    line.text.append(text.left(take));
    if (cut) {
        line.text.append(cutMarker());
        line.cut = true;
    }
    m_widestLine = qMax(m_widestLine, int(line.text.size()));
}

void AnsiLogView::append(const QString& plain, const QList<AnsiRenderer::Run>& runs)
{
    if (plain.isEmpty())
        return;
    const bool follow = isAtEnd();
    qsizetype runIndex = 0;
    qsizetype from = 0;
    while (from <= plain.size()) {
        const qsizetype nl = plain.indexOf(QLatin1Char('\n'), from);
        const qsizetype end = nl < 0 ? plain.size() : nl;
        if (nl < 0 && end == from)
            break; // the text ended with '\n': no new line yet
        if (!m_lastOpen)
            m_lines.emplace_back();
        appendToLine(m_lines.back(), QStringView(plain).mid(from, end - from), runs, from,
                     runIndex);
        m_lastOpen = nl < 0;
        if (nl < 0)
            break;
        from = nl + 1;
    }
    trim();
    updateScrollBars();
    if (follow)
        scrollToEnd();
    viewport()->update();
}

void AnsiLogView::trim()
{
    const std::size_t limit = std::size_t(m_maximumLines);
    if (m_lines.size() <= limit)
        return;
    const std::size_t drop = m_lines.size() - limit;
    m_lines.erase(m_lines.begin(), m_lines.begin() + qsizetype(drop));
    m_base += qint64(drop);
    // Keep what the user looks at in place while lines leave at the top.
    if (!isAtEnd())
        setScrollValue(verticalScrollBar()->value() - int(drop));
    if (m_anchor.line >= 0 && std::min(m_anchor, m_cursor).line < m_base)
        clearSelection();
}

void AnsiLogView::clear()
{
    m_base += qint64(m_lines.size());
    m_lines.clear();
    m_lastOpen = false;
    m_widestLine = 0;
    clearSelection();
    updateScrollBars();
    viewport()->update();
}

void AnsiLogView::setMaximumLines(int lines)
{
    m_maximumLines = qMax(1, lines);
    trim();
    updateScrollBars();
}

void AnsiLogView::setMaximumLineLength(int chars)
{
    m_maximumLineLength = qMax(1, chars);
}

QString AnsiLogView::lineText(int line) const
{
    return line >= 0 && line < lineCount() ? m_lines[std::size_t(line)].text : QString();
}

QTextCharFormat AnsiLogView::formatAt(int line, int column) const
{
    if (line < 0 || line >= lineCount())
        return {};
    for (const Span& span : m_lines[std::size_t(line)].spans) {
        if (column >= span.start && column < span.start + span.length)
            return m_formats[std::size_t(span.format)];
    }
    return {};
}

QString AnsiLogView::toPlainText() const
{
    QString text;
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        if (i > 0)
            text += QLatin1Char('\n');
        text += m_lines[i].text;
    }
    return text;
}

void AnsiLogView::select(int line, int column, int endLine, int endColumn)
{
    m_anchor = {m_base + line, column};
    m_cursor = {m_base + endLine, endColumn};
    viewport()->update();
}

void AnsiLogView::selectAll()
{
    if (m_lines.empty())
        return;
    select(0, 0, lineCount() - 1, int(m_lines.back().text.size()));
}

void AnsiLogView::clearSelection()
{
    m_anchor = m_cursor = Position{};
    viewport()->update();
}

bool AnsiLogView::hasSelection() const
{
    return m_anchor.line >= 0 && m_anchor != m_cursor;
}

int AnsiLogView::selectionStartLine() const
{
    return hasSelection() ? int(std::min(m_anchor, m_cursor).line - m_base) : -1;
}

QString AnsiLogView::selectedText() const
{
    if (!hasSelection())
        return {};
    const Position from = std::min(m_anchor, m_cursor);
    const Position to = std::max(m_anchor, m_cursor);
    QStringList parts;
    for (qint64 l = qMax(from.line, m_base); l <= to.line && l - m_base < lineCount(); ++l) {
        const QString& text = m_lines[std::size_t(l - m_base)].text;
        const int start = l == from.line ? qMin(from.column, int(text.size())) : 0;
        const int end = l == to.line ? qMin(to.column, int(text.size())) : int(text.size());
        parts << text.mid(start, end - start);
    }
    return parts.join(QLatin1Char('\n'));
}

bool AnsiLogView::find(const QString& needle, bool backward)
{
    if (needle.isEmpty() || m_lines.empty())
        return false;
    const int n = lineCount();
    // Start just after (or before) the current selection, else at the top (or bottom).
    int line = backward ? n - 1 : 0;
    int column = backward ? int(m_lines.back().text.size()) : 0;
    if (hasSelection()) {
        const Position from = std::min(m_anchor, m_cursor);
        line = int(from.line - m_base);
        column = backward ? from.column - 1 : from.column + 1;
    }
    for (int step = 0; step <= n; ++step) {
        const int l = backward ? ((line - step) % n + n) % n : (line + step) % n;
        const QString& text = m_lines[std::size_t(l)].text;
        qsizetype at;
        if (backward) {
            const qsizetype from = step == 0 ? column : text.size();
            at = from < 0 ? -1 : text.lastIndexOf(needle, from, Qt::CaseInsensitive);
        } else {
            at = text.indexOf(needle, step == 0 ? column : 0, Qt::CaseInsensitive);
        }
        if (at >= 0) {
            select(l, int(at), l, int(at + needle.size()));
            scrollToLine(l, true);
            return true;
        }
    }
    return false;
}

bool AnsiLogView::findFirst(const QRegularExpression& pattern)
{
    for (int l = 0; l < lineCount(); ++l) {
        if (pattern.match(m_lines[std::size_t(l)].text).hasMatch()) {
            select(l, 0, l, int(m_lines[std::size_t(l)].text.size()));
            scrollToLine(l, true);
            return true;
        }
    }
    return false;
}

int AnsiLogView::visibleLineCount() const
{
    return qMax(1, viewport()->height() / m_lineHeight);
}

int AnsiLogView::firstVisibleLine() const
{
    return verticalScrollBar()->value();
}

bool AnsiLogView::isAtEnd() const
{
    return verticalScrollBar()->value() >= verticalScrollBar()->maximum();
}

void AnsiLogView::setScrollValue(int value)
{
    m_adjusting = true;
    verticalScrollBar()->setValue(value);
    m_adjusting = false;
}

void AnsiLogView::scrollToEnd()
{
    setScrollValue(verticalScrollBar()->maximum());
}

void AnsiLogView::scrollToLine(int line, bool center)
{
    const int rows = visibleLineCount();
    int value = verticalScrollBar()->value();
    if (center)
        value = line - rows / 2;
    else if (line < value)
        value = line;
    else if (line >= value + rows)
        value = line - rows + 1;
    verticalScrollBar()->setValue(value); // a user-visible move: emits userScrolled
}

void AnsiLogView::updateScrollBars()
{
    const int rows = visibleLineCount();
    m_adjusting = true;
    verticalScrollBar()->setRange(0, qMax(0, lineCount() - rows));
    verticalScrollBar()->setPageStep(rows);
    verticalScrollBar()->setSingleStep(1);
    const int width = m_widestLine * m_charWidth + 2 * margin;
    horizontalScrollBar()->setRange(0, qMax(0, width - viewport()->width()));
    horizontalScrollBar()->setPageStep(viewport()->width());
    horizontalScrollBar()->setSingleStep(m_charWidth * 4);
    m_adjusting = false;
}

void AnsiLogView::resizeEvent(QResizeEvent* event)
{
    const bool follow = isAtEnd();
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
    if (follow)
        scrollToEnd();
}

void AnsiLogView::paintEvent(QPaintEvent*)
{
    QPainter painter(viewport());
    const QPalette& pal = palette();
    painter.fillRect(viewport()->rect(), pal.base());
    const QFont normal = font();
    QFont bold = normal;
    bold.setBold(true);
    QFont italic = normal;
    italic.setItalic(true);
    const QFontMetrics metrics(normal);
    const int first = verticalScrollBar()->value();
    const int rows = viewport()->height() / m_lineHeight + 1;
    const int x0 = margin - horizontalScrollBar()->value();
    const Position selFrom = std::min(m_anchor, m_cursor);
    const Position selTo = std::max(m_anchor, m_cursor);
    const bool selection = hasSelection();

    for (int r = 0; r < rows; ++r) {
        const int index = first + r;
        if (index < 0 || index >= lineCount())
            break;
        const Line& line = m_lines[std::size_t(index)];
        const int top = r * m_lineHeight;
        const qint64 absolute = m_base + index;
        if (selection && absolute >= selFrom.line && absolute <= selTo.line) {
            const int start = absolute == selFrom.line ? selFrom.column : 0;
            const int end = absolute == selTo.line ? selTo.column : int(line.text.size()) + 1;
            const int left = x0 + metrics.horizontalAdvance(line.text.left(start));
            const int right = x0 + metrics.horizontalAdvance(line.text.left(end)) +
                              (end > line.text.size() ? m_charWidth / 2 : 0);
            painter.fillRect(QRect(left, top, qMax(1, right - left), m_lineHeight),
                             pal.highlight());
        }
        // Draw the line as segments of equal formatting.
        int x = x0;
        int pos = 0;
        auto draw = [&](int from, int to, const QTextCharFormat* format) {
            if (to <= from)
                return;
            const QString segment = line.text.mid(from, to - from);
            QFont f = normal;
            if (format && format->fontWeight() >= QFont::Bold)
                f = bold;
            else if (format && format->fontItalic())
                f = italic;
            if (format)
                f.setUnderline(format->fontUnderline());
            const QFontMetrics fm(f);
            const int width = fm.horizontalAdvance(segment);
            if (x + width >= 0 && x <= viewport()->width()) {
                if (format && format->background().style() != Qt::NoBrush)
                    painter.fillRect(QRect(x, top, width, m_lineHeight), format->background());
                painter.setFont(f);
                painter.setPen(format && format->foreground().style() != Qt::NoBrush
                                   ? format->foreground().color()
                                   : pal.text().color());
                painter.drawText(x, top + m_ascent, segment);
            }
            x += width;
        };
        for (const Span& span : line.spans) {
            draw(pos, span.start, nullptr);
            draw(span.start, span.start + span.length, &m_formats[std::size_t(span.format)]);
            pos = span.start + span.length;
            if (x > viewport()->width())
                break;
        }
        if (x <= viewport()->width())
            draw(pos, int(line.text.size()), nullptr);
    }
}

AnsiLogView::Position AnsiLogView::positionAt(const QPoint& point) const
{
    if (m_lines.empty())
        return {};
    const int index =
        qBound(0, verticalScrollBar()->value() + point.y() / m_lineHeight, lineCount() - 1);
    const QString& text = m_lines[std::size_t(index)].text;
    const int x = point.x() - margin + horizontalScrollBar()->value();
    // A fixed-pitch font: the column is the x over the character width.
    const int column = qBound(0, (x + m_charWidth / 2) / m_charWidth, int(text.size()));
    return {m_base + index, column};
}

void AnsiLogView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QAbstractScrollArea::mousePressEvent(event);
    const Position p = positionAt(event->position().toPoint());
    if (event->modifiers() & Qt::ShiftModifier && m_anchor.line >= 0) {
        m_cursor = p;
    } else {
        m_anchor = m_cursor = p;
    }
    m_selecting = true;
    viewport()->update();
}

void AnsiLogView::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_selecting)
        return;
    m_cursor = positionAt(event->position().toPoint());
    const int y = event->position().toPoint().y();
    if (y < 0)
        verticalScrollBar()->setValue(verticalScrollBar()->value() - 1);
    else if (y > viewport()->height())
        verticalScrollBar()->setValue(verticalScrollBar()->value() + 1);
    viewport()->update();
}

void AnsiLogView::mouseReleaseEvent(QMouseEvent* event)
{
    m_selecting = false;
    if (hasSelection() && QApplication::clipboard()->supportsSelection())
        QApplication::clipboard()->setText(selectedText(), QClipboard::Selection);
    QAbstractScrollArea::mouseReleaseEvent(event);
}

void AnsiLogView::mouseDoubleClickEvent(QMouseEvent* event)
{
    // Select the word (a path, a target) under the pointer. Nix quotes the paths it names
    // ("building '/nix/store/…drv'..."): quotes and brackets end a word, so that the path
    // alone is what a user copies.
    const Position p = positionAt(event->position().toPoint());
    if (p.line < 0)
        return;
    const QString& text = m_lines[std::size_t(p.line - m_base)].text;
    auto isWord = [&](int i) {
        static const QString ends = QStringLiteral("'\"`()[]{}<>,;");
        return i >= 0 && i < text.size() && !text[i].isSpace() && !ends.contains(text[i]);
    };
    int start = p.column;
    int end = p.column;
    while (isWord(start - 1))
        --start;
    while (isWord(end))
        ++end;
    m_anchor = {p.line, start};
    m_cursor = {p.line, end};
    viewport()->update();
}

void AnsiLogView::copySelection() const
{
    QApplication::clipboard()->setText(hasSelection() ? selectedText() : toPlainText());
}

void AnsiLogView::keyPressEvent(QKeyEvent* event)
{
    if (event == QKeySequence::Copy) {
        copySelection();
        return;
    }
    if (event == QKeySequence::SelectAll) {
        selectAll();
        return;
    }
    QScrollBar* v = verticalScrollBar();
    switch (event->key()) {
    case Qt::Key_Home:
        if (event->modifiers() & Qt::ControlModifier) {
            v->setValue(0);
            return;
        }
        break;
    case Qt::Key_End:
        if (event->modifiers() & Qt::ControlModifier) {
            v->setValue(v->maximum());
            return;
        }
        break;
    case Qt::Key_Up:
        v->setValue(v->value() - 1);
        return;
    case Qt::Key_Down:
        v->setValue(v->value() + 1);
        return;
    case Qt::Key_PageUp:
        v->setValue(v->value() - v->pageStep());
        return;
    case Qt::Key_PageDown:
        v->setValue(v->value() + v->pageStep());
        return;
    default:
        break;
    }
    QAbstractScrollArea::keyPressEvent(event);
}

void AnsiLogView::contextMenuEvent(QContextMenuEvent* event)
{
    QMenu menu(this);
    QAction* copy = menu.addAction(tr("Copy"), this, [this] { copySelection(); });
    copy->setShortcut(QKeySequence::Copy);
    QAction* all = menu.addAction(tr("Select All"), this, &AnsiLogView::selectAll);
    all->setShortcut(QKeySequence::SelectAll);
    menu.exec(event->globalPos());
}

} // namespace rg
