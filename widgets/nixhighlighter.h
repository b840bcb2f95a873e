#pragma once

// The built-in Nix highlighter, used when no Qt 6 build of KSyntaxHighlighting is available:
// keywords, builtins, strings (also indented strings and ${} interpolation), escapes,
// comments, numbers, paths, URIs and attribute names. Colours follow the palette.

#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace rg {

class NixHighlighter : public QSyntaxHighlighter
{
    Q_OBJECT
public:
    enum class Token {
        Keyword,
        Builtin,
        String,
        Escape,
        Interpolation,
        Comment,
        Number,
        Path,
        Attribute
    };

    explicit NixHighlighter(QTextDocument* document, const QPalette& palette);
    void setPalette(const QPalette& palette);  // re-highlights
    QTextCharFormat format(Token token) const; // for tests and legends

protected:
    void highlightBlock(const QString& text) override;

private:
    enum State { Normal = 0, BlockComment = 1, IndentedString = 2, String = 3 };
    int stringBody(const QString& text, int from, State state);
    int highlightPath(const QString& text, int i);
    int highlightWord(const QString& text, int i);

    QTextCharFormat m_formats[9];
};

} // namespace rg
