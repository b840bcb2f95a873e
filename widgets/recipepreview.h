#pragma once

// Read-only view of one recipe: line numbers, the current line, every finding's range
// underlined (with a mark in the gutter), and the chosen finding's range highlighted.
// Ranges arrive as byte offsets into the file's UTF-8 bytes, as the engine reports them.

#include "analysis/finding.h"

#include <QPlainTextEdit>
#include <vector>

class QSyntaxHighlighter;

class QTextBlock;

namespace rg {

class RecipePreview : public QPlainTextEdit
{
    Q_OBJECT
public:
    struct Marker
    {
        uint32_t begin = 0; // bytes
        uint32_t end = 0;
        Severity severity = Severity::Error;
        QString message;
    };

    explicit RecipePreview(QWidget* parent = nullptr);

    void showRecipe(const QString& path, const QByteArray& bytes);
    // Instead of a file: why there is nothing to show ("deleted", "permission denied", …).
    void showMessage(const QString& path, const QString& message);
    void clearRecipe();
    QString path() const { return m_path; }
    bool hasRecipe() const { return m_hasRecipe; }

    // The first markers of a recipe just shown also scroll it, when needed, so that its first
    // error (else its first marker) is in sight: whoever clicks a broken cell wants to see what
    // is wrong, not the file's header. Markers for a re-read of the same file keep the place.
    void setMarkers(std::vector<Marker> markers);
    bool isLineVisible(int line) const; // 1-based
    // Scrolls to and highlights [begin, end) (bytes); an empty range highlights its line.
    void highlightRange(uint32_t begin, uint32_t end);
    void highlightLine(int line); // 1-based
    QString highlightedText() const;
    int highlightedLine() const; // 1-based; 0 when nothing is highlighted
    int characterPosition(uint32_t byteOffset) const;

    QSyntaxHighlighter* highlighter() const { return m_highlighter; }
    int lineNumberAreaWidth() const;

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    friend class LineNumberArea;
    void paintLineNumbers(QPaintEvent* event);
    void updateExtraSelections();
    void showAsCode(bool code);
    void showHighlight(const QTextBlock& block);
    void showHighlight(int begin, int end); // character positions
    void revealFirstMarker();
    int visibleLineCount() const;

    QWidget* m_lineNumbers;
    QSyntaxHighlighter* m_highlighter;
    QString m_path;
    QByteArray m_bytes;
    bool m_hasRecipe = false;
    bool m_revealPending = false; // a recipe just shown: its first markers bring it into sight
    std::vector<Marker> m_markers;
    int m_highlightBegin = -1; // characters
    int m_highlightEnd = -1;
};

} // namespace rg
