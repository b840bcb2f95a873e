#include "diffhighlighter.h"

#include <QPalette>
#include <QTextBlock>

namespace rg {

namespace {

bool inHunk(int previousState)
{
    using Line = DiffHighlighter::Line;
    return previousState == int(Line::Hunk) || previousState == int(Line::Context) ||
           previousState == int(Line::Added) || previousState == int(Line::Removed) ||
           previousState == int(Line::NoNewline);
}

} // namespace

DiffHighlighter::DiffHighlighter(QTextDocument* document, const QPalette& palette)
    : QSyntaxHighlighter(document)
{
    setPalette(palette);
}

QTextCharFormat DiffHighlighter::format(Line line) const
{
    return m_formats[static_cast<int>(line)];
}

DiffHighlighter::Line DiffHighlighter::lineOf(const QTextBlock& block)
{
    const int state = block.userState();
    return state >= 0 && state < lineKinds ? static_cast<Line>(state) : Line::Header;
}

QColor DiffHighlighter::lineBackground(Line line) const
{
    const QBrush brush = format(line).background();
    return brush.style() == Qt::NoBrush ? QColor() : brush.color();
}

void DiffHighlighter::setPalette(const QPalette& palette)
{
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    const QColor text = palette.color(QPalette::Text);
    for (QTextCharFormat& format : m_formats)
        format = QTextCharFormat();

    QTextCharFormat& added = m_formats[static_cast<int>(Line::Added)];
    added.setBackground(dark ? QColor(0x1f, 0x3d, 0x2a) : QColor(0xe6, 0xff, 0xec));
    added.setForeground(dark ? QColor(0xb8, 0xf0, 0xc4) : QColor(0x0f, 0x4d, 0x1f));

    QTextCharFormat& removed = m_formats[static_cast<int>(Line::Removed)];
    removed.setBackground(dark ? QColor(0x4a, 0x22, 0x26) : QColor(0xff, 0xeb, 0xe9));
    removed.setForeground(dark ? QColor(0xff, 0xc4, 0xc0) : QColor(0x82, 0x07, 0x1e));

    QTextCharFormat& hunk = m_formats[static_cast<int>(Line::Hunk)];
    hunk.setBackground(dark ? QColor(0x1e, 0x2c, 0x45) : QColor(0xdd, 0xf4, 0xff));
    hunk.setForeground(dark ? QColor(0x8c, 0xb4, 0xff) : QColor(0x05, 0x50, 0xae));

    QTextCharFormat& file = m_formats[static_cast<int>(Line::FileHeader)];
    file.setFontWeight(QFont::Bold);
    file.setForeground(text);

    QTextCharFormat& header = m_formats[static_cast<int>(Line::Header)];
    header.setForeground(palette.color(QPalette::PlaceholderText));
    header.setFontWeight(QFont::Bold);

    QTextCharFormat& noNewline = m_formats[static_cast<int>(Line::NoNewline)];
    noNewline.setForeground(palette.color(QPalette::PlaceholderText));
    noNewline.setFontItalic(true);

    rehighlight();
}

void DiffHighlighter::highlightBlock(const QString& text)
{
    // "---"/"+++" are file headers only before the first hunk: inside one, a removed line
    // whose text starts with "--" reads the same.
    Line line = Line::Header;
    if (text.startsWith(QLatin1String("@@")))
        line = Line::Hunk;
    else if (text.startsWith(QLatin1String("diff ")))
        line = Line::Header;
    else if (!inHunk(previousBlockState()))
        line = text.startsWith(QLatin1String("--- ")) || text.startsWith(QLatin1String("+++ "))
                   ? Line::FileHeader
                   : Line::Header;
    else if (text.startsWith(QLatin1Char('+')))
        line = Line::Added;
    else if (text.startsWith(QLatin1Char('-')))
        line = Line::Removed;
    else if (text.startsWith(QLatin1Char('\\')))
        line = Line::NoNewline;
    else
        line = Line::Context;
    setCurrentBlockState(static_cast<int>(line));
    if (line != Line::Context)
        setFormat(0, static_cast<int>(text.size()), format(line));
}

} // namespace rg
