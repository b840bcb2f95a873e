#include "nixhighlighter.h"

#include <QPalette>
#include <QSet>

namespace rg {

namespace {

bool isIdentifierStart(QChar c)
{
    return c.isLetter() || c == QLatin1Char('_');
}

bool isIdentifierChar(QChar c)
{
    return c.isLetterOrNumber() || c == QLatin1Char('_') || c == QLatin1Char('\'') ||
           c == QLatin1Char('-');
}

bool isPathChar(QChar c)
{
    return c.isLetterOrNumber() || QStringLiteral("._+-/").contains(c);
}

const QSet<QString>& keywords()
{
    static const QSet<QString> words = {QStringLiteral("let"),     QStringLiteral("in"),
                                        QStringLiteral("with"),    QStringLiteral("rec"),
                                        QStringLiteral("inherit"), QStringLiteral("if"),
                                        QStringLiteral("then"),    QStringLiteral("else"),
                                        QStringLiteral("assert"),  QStringLiteral("or")};
    return words;
}

const QSet<QString>& builtins()
{
    static const QSet<QString> words = {
        QStringLiteral("builtins"),     QStringLiteral("import"),
        QStringLiteral("true"),         QStringLiteral("false"),
        QStringLiteral("null"),         QStringLiteral("throw"),
        QStringLiteral("abort"),        QStringLiteral("map"),
        QStringLiteral("toString"),     QStringLiteral("derivation"),
        QStringLiteral("fetchTarball"), QStringLiteral("fetchGit"),
        QStringLiteral("baseNameOf"),   QStringLiteral("dirOf"),
        QStringLiteral("isNull"),       QStringLiteral("removeAttrs"),
        QStringLiteral("placeholder"),  QStringLiteral("scopedImport")};
    return words;
}

} // namespace

NixHighlighter::NixHighlighter(QTextDocument* document, const QPalette& palette)
    : QSyntaxHighlighter(document)
{
    setPalette(palette);
}

QTextCharFormat NixHighlighter::format(Token token) const
{
    return m_formats[static_cast<int>(token)];
}

void NixHighlighter::setPalette(const QPalette& palette)
{
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    const auto make = [](const QColor& color, bool bold = false, bool italic = false) {
        QTextCharFormat f;
        f.setForeground(color);
        if (bold)
            f.setFontWeight(QFont::Bold);
        f.setFontItalic(italic);
        return f;
    };
    m_formats[static_cast<int>(Token::Keyword)] =
        make(dark ? QColor(0xc7, 0x92, 0xea) : QColor(0x7b, 0x1f, 0xa2), true);
    m_formats[static_cast<int>(Token::Builtin)] =
        make(dark ? QColor(0x82, 0xaa, 0xff) : QColor(0x1a, 0x4f, 0xa0), true);
    m_formats[static_cast<int>(Token::String)] =
        make(dark ? QColor(0xc3, 0xe8, 0x8d) : QColor(0x2e, 0x6b, 0x1f));
    m_formats[static_cast<int>(Token::Escape)] =
        make(dark ? QColor(0xff, 0xcb, 0x6b) : QColor(0x9a, 0x5b, 0x00), true);
    m_formats[static_cast<int>(Token::Interpolation)] =
        make(dark ? QColor(0xf7, 0x8c, 0x6c) : QColor(0xb0, 0x3a, 0x00));
    m_formats[static_cast<int>(Token::Comment)] =
        make(dark ? QColor(0x8a, 0x93, 0x9e) : QColor(0x6a, 0x73, 0x7d), false, true);
    m_formats[static_cast<int>(Token::Number)] =
        make(dark ? QColor(0xf7, 0x8c, 0x6c) : QColor(0xa3, 0x4a, 0x00));
    m_formats[static_cast<int>(Token::Path)] =
        make(dark ? QColor(0x89, 0xdd, 0xff) : QColor(0x00, 0x6d, 0x77));
    m_formats[static_cast<int>(Token::Attribute)] =
        make(dark ? QColor(0x9c, 0xdc, 0xfe) : QColor(0x0d, 0x47, 0xa1));
    rehighlight();
}

// Formats the inside of a string from `from` until it closes (returns the index after the
// closing quote and leaves state Normal) or the line ends (returns text.size(), state kept).
int NixHighlighter::stringBody(const QString& text, int from, State state)
{
    const QTextCharFormat& stringFormat = m_formats[static_cast<int>(Token::String)];
    const QTextCharFormat& escapeFormat = m_formats[static_cast<int>(Token::Escape)];
    const QTextCharFormat& interpolationFormat = m_formats[static_cast<int>(Token::Interpolation)];
    int i = from;
    const int n = static_cast<int>(text.size());
    while (i < n) {
        const QChar c = text[i];
        if (state == String) {
            if (c == QLatin1Char('\\') && i + 1 < n) {
                setFormat(i, 2, escapeFormat);
                i += 2;
                continue;
            }
            if (c == QLatin1Char('"')) {
                setFormat(i, 1, stringFormat);
                setCurrentBlockState(Normal);
                return i + 1;
            }
        } else {
            if (text.mid(i, 2) == QStringLiteral("''")) {
                if (i + 2 < n &&
                    (text[i + 2] == QLatin1Char('$') || text[i + 2] == QLatin1Char('\'') ||
                     text[i + 2] == QLatin1Char('\\'))) {
                    const int length = text[i + 2] == QLatin1Char('\\') && i + 3 < n ? 4 : 3;
                    setFormat(i, length, escapeFormat);
                    i += length;
                    continue;
                }
                setFormat(i, 2, stringFormat);
                setCurrentBlockState(Normal);
                return i + 2;
            }
        }
        if (c == QLatin1Char('$') && i + 1 < n && text[i + 1] == QLatin1Char('{')) {
            int depth = 0;
            int j = i;
            for (; j < n; ++j) {
                if (text[j] == QLatin1Char('{'))
                    ++depth;
                else if (text[j] == QLatin1Char('}') && --depth == 0)
                    break;
            }
            const int end = std::min(j + 1, n);
            setFormat(i, end - i, interpolationFormat);
            i = end;
            continue;
        }
        setFormat(i, 1, stringFormat);
        ++i;
    }
    setCurrentBlockState(state);
    return n;
}

// Paths: ./x, ../x, ~/x, /abs/x, a/b; search paths <nixpkgs>. Returns where the one at `i`
// ends, `i` when none starts there.
int NixHighlighter::highlightPath(const QString& text, int i)
{
    const int n = static_cast<int>(text.size());
    const QChar c = text[i];
    if ((c == QLatin1Char('.') || c == QLatin1Char('~') || c == QLatin1Char('/')) &&
        (text.mid(i, 2) == QStringLiteral("./") || text.mid(i, 3) == QStringLiteral("../") ||
         text.mid(i, 2) == QStringLiteral("~/") ||
         (c == QLatin1Char('/') && i + 1 < n && text[i + 1].isLetterOrNumber() &&
          (i == 0 || text[i - 1].isSpace() || text[i - 1] == QLatin1Char('('))))) {
        int j = i + 1;
        while (j < n && isPathChar(text[j]))
            ++j;
        setFormat(i, j - i, m_formats[static_cast<int>(Token::Path)]);
        return j;
    }
    if (c == QLatin1Char('<')) {
        int j = i + 1;
        while (j < n && isPathChar(text[j]))
            ++j;
        if (j > i + 1 && j < n && text[j] == QLatin1Char('>')) {
            setFormat(i, j + 1 - i, m_formats[static_cast<int>(Token::Path)]);
            return j + 1;
        }
    }
    return i;
}

// An identifier is coloured by its role: keyword, builtin, or attribute (assigned or
// selected); a URI (https://…) is a path. Returns where the word at `i` ends.
int NixHighlighter::highlightWord(const QString& text, int i)
{
    const int n = static_cast<int>(text.size());
    int j = i + 1;
    while (j < n && isIdentifierChar(text[j]))
        ++j;
    // An URI such as https://github.com/… is one token.
    if (j < n && text[j] == QLatin1Char(':') && j + 1 < n && !text[j + 1].isSpace()) {
        int k = j + 1;
        while (k < n && !text[k].isSpace() && text[k] != QLatin1Char(';') &&
               text[k] != QLatin1Char(')') && text[k] != QLatin1Char(']'))
            ++k;
        if (k > j + 1 && text[j + 1] != QLatin1Char('{')) {
            setFormat(i, k - i, m_formats[static_cast<int>(Token::Path)]);
            return k;
        }
    }
    const QString word = text.mid(i, j - i);
    int next = j;
    while (next < n && text[next].isSpace())
        ++next;
    const bool assigned = next < n && text[next] == QLatin1Char('=') &&
                          !(next + 1 < n && text[next + 1] == QLatin1Char('='));
    const bool selected = i > 0 && text[i - 1] == QLatin1Char('.');
    if (keywords().contains(word))
        setFormat(i, j - i, m_formats[static_cast<int>(Token::Keyword)]);
    else if (builtins().contains(word) && !assigned)
        setFormat(i, j - i, m_formats[static_cast<int>(Token::Builtin)]);
    else if (assigned || selected)
        setFormat(i, j - i, m_formats[static_cast<int>(Token::Attribute)]);
    return j;
}

void NixHighlighter::highlightBlock(const QString& text)
{
    int state = previousBlockState();
    if (state < 0)
        state = Normal;
    setCurrentBlockState(Normal);
    int i = 0;
    const int n = static_cast<int>(text.size());

    if (state == BlockComment) {
        const int end = static_cast<int>(text.indexOf(QStringLiteral("*/")));
        if (end < 0) {
            setFormat(0, n, m_formats[static_cast<int>(Token::Comment)]);
            setCurrentBlockState(BlockComment);
            return;
        }
        setFormat(0, end + 2, m_formats[static_cast<int>(Token::Comment)]);
        i = end + 2;
    } else if (state == String || state == IndentedString) {
        i = stringBody(text, 0, static_cast<State>(state));
        if (currentBlockState() != Normal)
            return;
    }

    while (i < n) {
        const QChar c = text[i];
        if (c == QLatin1Char('#')) {
            setFormat(i, n - i, m_formats[static_cast<int>(Token::Comment)]);
            return;
        }
        if (c == QLatin1Char('/') && i + 1 < n && text[i + 1] == QLatin1Char('*')) {
            const int end = static_cast<int>(text.indexOf(QStringLiteral("*/"), i + 2));
            if (end < 0) {
                setFormat(i, n - i, m_formats[static_cast<int>(Token::Comment)]);
                setCurrentBlockState(BlockComment);
                return;
            }
            setFormat(i, end + 2 - i, m_formats[static_cast<int>(Token::Comment)]);
            i = end + 2;
            continue;
        }
        if (c == QLatin1Char('"')) {
            setFormat(i, 1, m_formats[static_cast<int>(Token::String)]);
            i = stringBody(text, i + 1, String);
            if (currentBlockState() != Normal)
                return;
            continue;
        }
        if (c == QLatin1Char('\'') && i + 1 < n && text[i + 1] == QLatin1Char('\'')) {
            setFormat(i, 2, m_formats[static_cast<int>(Token::String)]);
            i = stringBody(text, i + 2, IndentedString);
            if (currentBlockState() != Normal)
                return;
            continue;
        }
        if (const int end = highlightPath(text, i); end > i) {
            i = end;
            continue;
        }
        if (c.isDigit()) {
            int j = i;
            while (j < n && (text[j].isDigit() || text[j] == QLatin1Char('.') ||
                             text[j] == QLatin1Char('e') || text[j] == QLatin1Char('E')))
                ++j;
            setFormat(i, j - i, m_formats[static_cast<int>(Token::Number)]);
            i = j;
            continue;
        }
        if (isIdentifierStart(c)) {
            i = highlightWord(text, i);
            continue;
        }
        ++i;
    }
}

} // namespace rg
