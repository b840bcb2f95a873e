#include "ansirenderer.h"

#include <QFont>

namespace rg {

QColor AnsiRenderer::paletteColor(int index)
{
    // Readable on light and dark backgrounds alike, close to common terminal themes.
    static const QRgb base[16] = {0x000000, 0xcd3131, 0x0dbc79, 0xb58900, 0x2472c8, 0xbc3fbc,
                                  0x11a8cd, 0x9e9e9e, 0x666666, 0xf14c4c, 0x23d18b, 0xd7ba00,
                                  0x3b8eea, 0xd670d6, 0x29b8db, 0xe5e5e5};
    if (index < 0)
        return {};
    if (index < 16)
        return QColor::fromRgb(base[index]);
    if (index < 232) {
        const int i = index - 16;
        auto level = [](int v) { return v == 0 ? 0 : 55 + v * 40; };
        return QColor(level(i / 36), level((i / 6) % 6), level(i % 6));
    }
    if (index < 256) {
        const int grey = 8 + (index - 232) * 10;
        return QColor(grey, grey, grey);
    }
    return {};
}

void AnsiRenderer::reset()
{
    *this = AnsiRenderer();
}

QTextCharFormat AnsiRenderer::currentFormat() const
{
    QTextCharFormat format;
    QColor fg = m_foreground == -2 ? m_foregroundRgb : paletteColor(m_foreground);
    QColor bg = m_background == -2 ? m_backgroundRgb : paletteColor(m_background);
    // Bold with a basic colour brightens it, as terminals do.
    if (m_bold && m_foreground >= 0 && m_foreground < 8)
        fg = paletteColor(m_foreground + 8);
    if (m_inverse) {
        std::swap(fg, bg);
        if (!fg.isValid())
            fg = QColor(Qt::white);
        if (!bg.isValid())
            bg = QColor(Qt::black);
    }
    if (fg.isValid())
        format.setForeground(fg);
    if (bg.isValid())
        format.setBackground(bg);
    if (m_bold)
        format.setFontWeight(QFont::Bold);
    if (m_italic)
        format.setFontItalic(true);
    if (m_underline)
        format.setFontUnderline(true);
    return format;
}

void AnsiRenderer::applySgr(QStringView parameters)
{
    QList<int> codes;
    for (QStringView p : parameters.split(QLatin1Char(';')))
        codes << (p.isEmpty() ? 0 : p.toInt());
    if (codes.isEmpty())
        codes << 0;
    for (qsizetype i = 0; i < codes.size(); ++i) {
        const int c = codes[i];
        if (c == 0) {
            m_foreground = m_background = -1;
            m_bold = m_italic = m_underline = m_inverse = false;
        } else if (c == 1) {
            m_bold = true;
        } else if (c == 3) {
            m_italic = true;
        } else if (c == 4) {
            m_underline = true;
        } else if (c == 7) {
            m_inverse = true;
        } else if (c == 22) {
            m_bold = false;
        } else if (c == 23) {
            m_italic = false;
        } else if (c == 24) {
            m_underline = false;
        } else if (c == 27) {
            m_inverse = false;
        } else if (c >= 30 && c <= 37) {
            m_foreground = c - 30;
        } else if (c == 39) {
            m_foreground = -1;
        } else if (c >= 40 && c <= 47) {
            m_background = c - 40;
        } else if (c == 49) {
            m_background = -1;
        } else if (c >= 90 && c <= 97) {
            m_foreground = c - 90 + 8;
        } else if (c >= 100 && c <= 107) {
            m_background = c - 100 + 8;
        } else if (c == 38 || c == 48) {
            int* index = c == 38 ? &m_foreground : &m_background;
            QColor* rgb = c == 38 ? &m_foregroundRgb : &m_backgroundRgb;
            if (i + 2 < codes.size() && codes[i + 1] == 5) {
                *index = qBound(0, codes[i + 2], 255);
                i += 2;
            } else if (i + 4 < codes.size() && codes[i + 1] == 2) {
                *rgb = QColor(qBound(0, codes[i + 2], 255), qBound(0, codes[i + 3], 255),
                              qBound(0, codes[i + 4], 255));
                *index = -2;
                i += 4;
            } else {
                break; // malformed: ignore the rest of this sequence
            }
        }
    }
    m_formatDirty = true;
}

// A format is made once per distinct SGR state and then found by it: a colourful log has
// thousands of runs but few styles.
void AnsiRenderer::refreshStyle()
{
    if (!m_formatDirty)
        return;
    m_formatDirty = false;
    const StyleKey key{m_foreground, m_background, m_foreground == -2 ? m_foregroundRgb.rgba() : 0,
                       m_background == -2 ? m_backgroundRgb.rgba() : 0,
                       int(m_bold) | int(m_italic) << 1 | int(m_underline) << 2 |
                           int(m_inverse) << 3};
    if (key == StyleKey{-1, -1, 0, 0, 0}) {
        m_style = -1;
        m_format = QTextCharFormat();
    } else if (const auto it = m_styleIds.constFind(key); it != m_styleIds.cend()) {
        m_style = it.value();
        m_format = m_styles[m_style];
    } else {
        m_format = currentFormat();
        m_style = int(m_styles.size());
        m_styles.append(m_format);
        m_styleIds.insert(key, m_style);
    }
}

QString AnsiRenderer::render(QStringView chunk, QList<Run>* runs)
{
    QString joined;
    QStringView input = chunk;
    if (!m_pendingEscape.isEmpty()) {
        joined = std::exchange(m_pendingEscape, QString());
        joined.append(chunk);
        input = joined;
    }
    QString out;
    out.reserve(input.size());
    qsizetype runStart = 0;
    auto closeRun = [&] {
        if (out.size() > runStart) {
            refreshStyle();
            runs->append({runStart, out.size() - runStart, m_format, m_style});
        }
        runStart = out.size();
    };
    const qsizetype n = input.size();
    qsizetype i = 0;
    while (i < n) {
        // Copy the plain stretch up to the next ESC or CR in one go.
        qsizetype j = i;
        while (j < n && input[j] != QChar(0x1b) && input[j] != QLatin1Char('\r'))
            ++j;
        out.append(input.mid(i, j - i));
        i = j;
        if (i >= n)
            break;
        if (input[i] == QLatin1Char('\r')) {
            ++i;
            continue;
        }
        // ESC: CSI "ESC [ params final", OSC "ESC ] … BEL|ESC \", or a two-byte escape.
        if (i + 1 >= n) {
            m_pendingEscape = input.mid(i).toString();
            break;
        }
        const QChar kind = input[i + 1];
        if (kind == QLatin1Char('[')) {
            qsizetype k = i + 2;
            while (k < n && !(input[k].unicode() >= 0x40 && input[k].unicode() <= 0x7e))
                ++k;
            if (k >= n) {
                if (n - i < 64) // a real escape is short; longer means garbage, drop it
                    m_pendingEscape = input.mid(i).toString();
                break;
            }
            if (input[k] == QLatin1Char('m')) {
                closeRun();
                applySgr(input.mid(i + 2, k - i - 2));
            }
            i = k + 1;
        } else if (kind == QLatin1Char(']')) {
            qsizetype k = i + 2;
            while (k < n && input[k] != QChar(0x07) &&
                   !(input[k] == QChar(0x1b) && k + 1 < n && input[k + 1] == QLatin1Char('\\')))
                ++k;
            if (k >= n) {
                if (n - i < 512)
                    m_pendingEscape = input.mid(i).toString();
                break;
            }
            i = input[k] == QChar(0x07) ? k + 1 : k + 2;
        } else {
            i += 2;
        }
    }
    closeRun();
    return out;
}

} // namespace rg
