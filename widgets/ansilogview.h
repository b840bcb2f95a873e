#pragma once

// A read-only view of log lines with ANSI formatting, built for floods: lines live in a deque
// (appending is O(length), dropping the oldest is O(1)), and painting touches only the visible
// rows. QPlainTextEdit spends tens of microseconds per line once it trims its first blocks;
// this view spends well under one, which is what lets a build print hundreds of thousands of
// lines per second. Lines longer than maximumLineLength() are cut with a marker.
// Selection is by mouse or keyboard (Ctrl+A), copy with Ctrl+C; search and "select range"
// are for LogPane's find and jump-to-error.

#include "ansirenderer.h"

#include <QAbstractScrollArea>
#include <QRegularExpression>
#include <QTextCharFormat>
#include <deque>
#include <vector>

namespace rg {

class AnsiLogView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    explicit AnsiLogView(QWidget* parent = nullptr);

    // Appends rendered text (output of one AnsiRenderer, whose style ids this view keeps):
    // '\n' ends a line, the last line stays open for more text.
    void append(const QString& plain, const QList<AnsiRenderer::Run>& runs);
    void clear();
    // Ends the open last line, if any (text skipped before the next append ended it).
    void endLine() { m_lastOpen = false; }

    void setMaximumLines(int lines); // oldest lines are dropped beyond it
    int maximumLines() const { return m_maximumLines; }
    void setMaximumLineLength(int chars);
    int maximumLineLength() const { return m_maximumLineLength; }

    int lineCount() const { return int(m_lines.size()); }
    QString lineText(int line) const;
    QTextCharFormat formatAt(int line, int column) const;
    QString toPlainText() const;
    qint64 droppedLines() const { return m_base; } // dropped from the front so far

    // The selection in line/column terms (lines index the current contents).
    void select(int line, int column, int endLine, int endColumn);
    void selectAll();
    void clearSelection();
    bool hasSelection() const;
    QString selectedText() const;
    int selectionStartLine() const; // -1 without a selection

    // Finds `needle` (case-insensitive) after (or before) the selection, wrapping around;
    // selects and shows it.
    bool find(const QString& needle, bool backward);
    // Selects the whole first line matching `pattern`; false when none does.
    bool findFirst(const QRegularExpression& pattern);

    bool isAtEnd() const;
    void scrollToEnd();
    void scrollToLine(int line, bool center);
    int firstVisibleLine() const;
    int visibleLineCount() const;
    int lineHeight() const { return m_lineHeight; } // in pixels

signals:
    // The user (not append()) scrolled: `atEnd` says whether the end is in view.
    void userScrolled(bool atEnd);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct Span
    {
        int start;
        int length;
        int format; // index into m_formats: the renderer's style id
    };
    struct Line
    {
        QString text;
        std::vector<Span> spans; // non-default formatting only
        bool cut = false;
    };
    struct Position
    {
        qint64 line = -1; // absolute: m_base + index
        int column = 0;
        friend auto operator<=>(const Position&, const Position&) = default;
    };

    void appendToLine(Line& line, QStringView text, const QList<AnsiRenderer::Run>& runs,
                      qsizetype offset, qsizetype& runIndex);
    void trim();
    void updateMetrics();
    void updateScrollBars();
    Position positionAt(const QPoint& point) const;
    void setScrollValue(int value);
    void copySelection() const;

    std::deque<Line> m_lines;
    qint64 m_base = 0; // absolute number of m_lines.front()
    bool m_lastOpen = false;
    std::vector<QTextCharFormat> m_formats; // by AnsiRenderer style id
    std::vector<bool> m_formatKnown;

    int m_maximumLines = 50000;
    int m_maximumLineLength = 10000;
    int m_widestLine = 0; // characters
    int m_lineHeight = 1;
    int m_charWidth = 1;
    int m_ascent = 0;
    Position m_anchor;
    Position m_cursor;
    bool m_selecting = false;
    bool m_adjusting = false;
};

} // namespace rg
