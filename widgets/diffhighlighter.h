#pragma once

// The built-in unified diff highlighter, used when no Qt 6 build of KSyntaxHighlighting (or
// none with its Diff definition) is available: added lines on green, removed lines on red,
// hunk headers and file headers set apart. Colours follow the palette (light or dark).

#include <QColor>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

class QTextBlock;

namespace rg {

class DiffHighlighter : public QSyntaxHighlighter
{
    Q_OBJECT
public:
    // What a line of a unified diff is; kept as the block state, so a view can paint a whole
    // line's background and not only behind its characters.
    enum class Line { Header = 0, FileHeader, Hunk, Context, Added, Removed, NoNewline };

    explicit DiffHighlighter(QTextDocument* document, const QPalette& palette);
    void setPalette(const QPalette& palette); // re-highlights
    QTextCharFormat format(Line line) const;  // for tests and views
    // The line's kind once highlighted; Header for a block not highlighted yet.
    static Line lineOf(const QTextBlock& block);
    // The full-width background of a line of that kind; invalid when it has none.
    QColor lineBackground(Line line) const;

protected:
    void highlightBlock(const QString& text) override;

private:
    static constexpr int lineKinds = 7;
    QTextCharFormat m_formats[lineKinds];
};

} // namespace rg
