#pragma once

// Turns terminal output with ANSI SGR escapes (16 and 256 colours, 24-bit colours, bold,
// italic, underline, inverse) into plain text plus formatted runs. Keeps its state between
// calls: a colour set in one chunk applies to the next, and an escape split across chunks
// is completed by the next call. Other escapes (cursor movement, OSC titles) are dropped.

#include <QColor>
#include <QHash>
#include <QList>
#include <QString>
#include <QTextCharFormat>

namespace rg {

class AnsiRenderer
{
public:
    struct Run
    {
        qsizetype start = 0; // in the returned plain text
        qsizetype length = 0;
        QTextCharFormat format;
        // This renderer's id for `format`: equal ids mean equal formats, -1 the default
        // format. Lets views store a format once instead of comparing formats per run.
        int style = -1;
    };

    // Plain text of `input` (escapes removed, "\r\n" → "\n", lone '\r' dropped) and the runs
    // that cover it, in order; runs with the default format are included.
    QString render(QStringView input, QList<Run>* runs);
    void reset();

    // The xterm palette: 0–15 the 16 colours, 16–231 the cube, 232–255 greys.
    static QColor paletteColor(int index);

private:
    void applySgr(QStringView parameters);
    QTextCharFormat currentFormat() const;
    void refreshStyle(); // m_format and m_style for the current SGR state

    QString m_pendingEscape; // an escape sequence cut off at the end of the last chunk
    int m_foreground = -1;   // palette index, -1 default, -2 m_foregroundRgb
    int m_background = -1;
    QColor m_foregroundRgb;
    QColor m_backgroundRgb;
    bool m_bold = false;
    bool m_italic = false;
    bool m_underline = false;
    bool m_inverse = false;
    bool m_formatDirty = true;
    QTextCharFormat m_format; // cache of currentFormat()
    int m_style = -1;         // id of m_format
    // Formats by id, found by the SGR state that made them.
    struct StyleKey
    {
        int foreground, background;
        QRgb foregroundRgb, backgroundRgb;
        int flags;
        friend bool operator==(const StyleKey&, const StyleKey&) = default;
        friend size_t qHash(const StyleKey& k, size_t seed = 0)
        {
            return qHashMulti(seed, k.foreground, k.background, k.foregroundRgb, k.backgroundRgb,
                              k.flags);
        }
    };
    QHash<StyleKey, int> m_styleIds;
    QList<QTextCharFormat> m_styles;
};

} // namespace rg
