#include "recipepreview.h"

#include "statusstyle.h"
#include "syntaxhighlighting.h"

#include <QFontDatabase>
#include <QPainter>
#include <QScrollBar>
#include <QSyntaxHighlighter>
#include <QTextBlock>
#include <algorithm>
#include <map>

namespace rg {

class LineNumberArea : public QWidget
{
public:
    explicit LineNumberArea(RecipePreview* preview) : QWidget(preview), m_preview(preview) {}
    QSize sizeHint() const override { return {m_preview->lineNumberAreaWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { m_preview->paintLineNumbers(event); }

private:
    RecipePreview* m_preview;
};

namespace {

QColor severityColor(Severity severity, const QPalette& palette)
{
    switch (severity) {
    case Severity::Error:
        return StatusStyle::color(CellStatus::Broken, palette);
    case Severity::Warning:
        return StatusStyle::color(CellStatus::Redundant, palette);
    case Severity::Info:
        return StatusStyle::color(CellStatus::Missing, palette);
    }
    return palette.color(QPalette::Text);
}

} // namespace

RecipePreview::RecipePreview(QWidget* parent)
    : QPlainTextEdit(parent), m_lineNumbers(new LineNumberArea(this))
{
    setReadOnly(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setAccessibleName(tr("Recipe preview"));
    m_highlighter = SyntaxHighlighting::attach(document(), palette());
    connect(this, &QPlainTextEdit::blockCountChanged, this,
            [this] { setViewportMargins(lineNumberAreaWidth(), 0, 0, 0); });
    connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
        if (dy)
            m_lineNumbers->scroll(0, dy);
        else
            m_lineNumbers->update(0, rect.y(), m_lineNumbers->width(), rect.height());
    });
    connect(this, &QPlainTextEdit::cursorPositionChanged, this,
            &RecipePreview::updateExtraSelections);
    setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
    clearRecipe();
}

int RecipePreview::lineNumberAreaWidth() const
{
    int digits = 1;
    for (int max = std::max(1, blockCount()); max >= 10; max /= 10)
        ++digits;
    return 14 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(3, digits);
}

void RecipePreview::resizeEvent(QResizeEvent* event)
{
    QPlainTextEdit::resizeEvent(event);
    const QRect area = contentsRect();
    m_lineNumbers->setGeometry(
        QRect(area.left(), area.top(), lineNumberAreaWidth(), area.height()));
}

void RecipePreview::changeEvent(QEvent* event)
{
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        SyntaxHighlighting::setPalette(m_highlighter, palette());
        updateExtraSelections();
    }
}

void RecipePreview::paintLineNumbers(QPaintEvent* event)
{
    QPainter painter(m_lineNumbers);
    const QPalette& pal = palette();
    painter.fillRect(event->rect(), pal.color(QPalette::AlternateBase));
    if (!m_hasRecipe)
        return;
    // Lines with findings get a mark in the gutter, coloured by the worst severity.
    std::map<int, Severity> marked;
    for (const Marker& marker : m_markers) {
        const int line = document()->findBlock(characterPosition(marker.begin)).blockNumber();
        auto [it, inserted] = marked.emplace(line, marker.severity);
        if (!inserted && marker.severity < it->second)
            it->second = marker.severity;
    }
    const int current = textCursor().blockNumber();
    QTextBlock block = firstVisibleBlock();
    int number = block.blockNumber();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    int bottom = top + qRound(blockBoundingRect(block).height());
    const int width = m_lineNumbers->width();
    while (block.isValid() && top <= event->rect().bottom()) {
        if (block.isVisible() && bottom >= event->rect().top()) {
            if (auto it = marked.find(number); it != marked.end()) {
                painter.setRenderHint(QPainter::Antialiasing);
                painter.setPen(Qt::NoPen);
                painter.setBrush(severityColor(it->second, pal));
                painter.drawEllipse(QPointF(5, (top + bottom) / 2.0), 3, 3);
            }
            QColor color = pal.color(QPalette::PlaceholderText);
            QFont font = this->font();
            if (number == current) {
                color = pal.color(QPalette::Text);
                font.setBold(true);
            }
            painter.setFont(font);
            painter.setPen(color);
            painter.drawText(0, top, width - 5, fontMetrics().height(), Qt::AlignRight,
                             QString::number(number + 1));
        }
        block = block.next();
        top = bottom;
        bottom = top + qRound(blockBoundingRect(block).height());
        ++number;
    }
}

void RecipePreview::showRecipe(const QString& path, const QByteArray& bytes)
{
    const bool samePath = path == m_path && m_hasRecipe;
    // The same text read again (a second read of one selection, a touch on disk): what the
    // reader highlighted and where they are stay.
    if (samePath && bytes == m_bytes)
        return;
    const int scroll = verticalScrollBar()->value();
    m_path = path;
    m_bytes = bytes;
    m_hasRecipe = true;
    m_revealPending = !samePath;
    m_markers.clear();
    m_highlightBegin = m_highlightEnd = -1;
    setPlainText(QString::fromUtf8(bytes));
    showAsCode(true);
    if (samePath) // a re-read after an edit keeps the reader's place
        verticalScrollBar()->setValue(scroll);
    updateExtraSelections();
}

void RecipePreview::showMessage(const QString& path, const QString& message)
{
    m_path = path;
    m_bytes.clear();
    m_hasRecipe = false;
    m_revealPending = false;
    m_markers.clear();
    m_highlightBegin = m_highlightEnd = -1;
    showAsCode(false);
    setPlainText(message);
    updateExtraSelections();
}

// A message is prose: wrapped to the pane, and not coloured as Nix (its numbers and words
// would be). A recipe keeps its lines as written, coloured before it is first painted: a
// highlighter attached anew colours only on its next event, so it is asked at once.
void RecipePreview::showAsCode(bool code)
{
    setLineWrapMode(code ? QPlainTextEdit::NoWrap : QPlainTextEdit::WidgetWidth);
    if (!m_highlighter || (m_highlighter->document() != nullptr) == code)
        return;
    m_highlighter->setDocument(code ? document() : nullptr);
    if (code)
        m_highlighter->rehighlight();
}

void RecipePreview::clearRecipe()
{
    showMessage({}, tr("Select a cell to see its recipe."));
}

int RecipePreview::characterPosition(uint32_t byteOffset) const
{
    const auto offset = std::min<qsizetype>(byteOffset, m_bytes.size());
    return static_cast<int>(QString::fromUtf8(m_bytes.constData(), offset).size());
}

void RecipePreview::setMarkers(std::vector<Marker> markers)
{
    m_markers = std::move(markers);
    updateExtraSelections();
    m_lineNumbers->update();
    if (m_revealPending && !m_markers.empty())
        revealFirstMarker();
    m_revealPending = false;
}

void RecipePreview::revealFirstMarker()
{
    const auto before = [](const Marker& a, const Marker& b) {
        const bool aError = a.severity == Severity::Error;
        const bool bError = b.severity == Severity::Error;
        return aError != bError ? aError : a.begin < b.begin;
    };
    const Marker& first = *std::min_element(m_markers.begin(), m_markers.end(), before);
    const int line = document()->findBlock(characterPosition(first.begin)).blockNumber() + 1;
    if (isLineVisible(line))
        return;
    // A third down the view, so that the lines leading to it are in sight too. Without line
    // wrapping the scroll bar counts lines.
    verticalScrollBar()->setValue(std::max(0, line - 1 - visibleLineCount() / 3));
}

bool RecipePreview::isLineVisible(int line) const
{
    const int first = firstVisibleBlock().blockNumber() + 1;
    return line >= first && line < first + visibleLineCount();
}

int RecipePreview::visibleLineCount() const
{
    return viewport()->height() / std::max(1, fontMetrics().lineSpacing());
}

void RecipePreview::highlightRange(uint32_t begin, uint32_t end)
{
    if (!m_hasRecipe)
        return;
    const int from = characterPosition(begin);
    const int to = characterPosition(std::max(begin, end));
    if (to == from) // an absence (e.g. a missing overlay) points at its whole line
        showHighlight(document()->findBlock(from));
    else
        showHighlight(from, to);
}

void RecipePreview::highlightLine(int line)
{
    if (!m_hasRecipe || line < 1)
        return;
    const QTextBlock block = document()->findBlockByNumber(line - 1);
    if (block.isValid())
        showHighlight(block);
}

void RecipePreview::showHighlight(const QTextBlock& block)
{
    showHighlight(block.position(), block.position() + static_cast<int>(block.length()) - 1);
}

void RecipePreview::showHighlight(int begin, int end)
{
    m_highlightBegin = begin;
    m_highlightEnd = end;
    QTextCursor cursor(document());
    cursor.setPosition(m_highlightBegin);
    setTextCursor(cursor);
    centerCursor();
    updateExtraSelections();
}

QString RecipePreview::highlightedText() const
{
    if (m_highlightBegin < 0)
        return {};
    QTextCursor cursor(document());
    cursor.setPosition(m_highlightBegin);
    cursor.setPosition(m_highlightEnd, QTextCursor::KeepAnchor);
    return cursor.selectedText().replace(QChar::ParagraphSeparator, QLatin1Char('\n'));
}

int RecipePreview::highlightedLine() const
{
    return m_highlightBegin < 0 ? 0 : document()->findBlock(m_highlightBegin).blockNumber() + 1;
}

void RecipePreview::updateExtraSelections()
{
    QList<QTextEdit::ExtraSelection> selections;
    const QPalette& pal = palette();
    if (m_hasRecipe) {
        QTextEdit::ExtraSelection line;
        QColor lineColor = pal.color(QPalette::Highlight);
        lineColor.setAlpha(28);
        line.format.setBackground(lineColor);
        line.format.setProperty(QTextFormat::FullWidthSelection, true);
        line.cursor = textCursor();
        line.cursor.clearSelection();
        selections << line;

        for (const Marker& marker : m_markers) {
            QTextEdit::ExtraSelection underline;
            underline.cursor = QTextCursor(document());
            const int begin = characterPosition(marker.begin);
            int end = characterPosition(marker.end);
            if (end <= begin) {
                const QTextBlock block = document()->findBlock(begin);
                end = block.position() + static_cast<int>(block.length()) - 1;
            }
            underline.cursor.setPosition(begin);
            underline.cursor.setPosition(end, QTextCursor::KeepAnchor);
            underline.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
            underline.format.setUnderlineColor(severityColor(marker.severity, pal));
            underline.format.setToolTip(marker.message);
            selections << underline;
        }
        if (m_highlightBegin >= 0) {
            QTextEdit::ExtraSelection active;
            active.cursor = QTextCursor(document());
            active.cursor.setPosition(m_highlightBegin);
            active.cursor.setPosition(m_highlightEnd, QTextCursor::KeepAnchor);
            QColor color = StatusStyle::color(CellStatus::Redundant, pal);
            color.setAlpha(StatusStyle::isDark(pal) ? 110 : 80);
            active.format.setBackground(color);
            active.format.setProperty(QTextFormat::OutlinePen, QPen(color.darker(), 1));
            selections << active;
        }
    }
    setExtraSelections(selections);
}

} // namespace rg
