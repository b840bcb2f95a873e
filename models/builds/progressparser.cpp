#include "builds/progressparser.h"

#include <QString>

namespace rg {

namespace {

// Reads digits at `i`; returns -1 when there are none (or too many to be a count).
int readNumber(QStringView s, qsizetype& i)
{
    const qsizetype start = i;
    int value = 0;
    while (i < s.size() && s[i].isDigit() && i - start < 9)
        value = value * 10 + (s[i++].unicode() - '0');
    return i == start ? -1 : value;
}

// "[n/m]" or "[n/m built" at `i` (which points at '['); ninja requires the ']'.
std::optional<BuildProgress> bracketAt(QStringView s, qsizetype i, bool ninjaPosition)
{
    ++i;
    const int done = readNumber(s, i);
    if (done < 0 || i >= s.size() || s[i] != QLatin1Char('/'))
        return std::nullopt;
    ++i;
    const int total = readNumber(s, i);
    if (total <= 0 || done > total || i >= s.size())
        return std::nullopt;
    if (s[i] == QLatin1Char(']') && ninjaPosition)
        return BuildProgress{done, total};
    if (s.mid(i).startsWith(QLatin1String(" built")))
        return BuildProgress{done, total};
    return std::nullopt;
}

} // namespace

std::optional<BuildProgress> ProgressParser::parseLine(QStringView line)
{
    // Drop ANSI escapes (ninja and nix color their output) into a small buffer; only the
    // head of the line matters for ninja, so long lines are not copied whole.
    const qsizetype limit = qMin<qsizetype>(line.size(), 512);
    if (!line.left(limit).contains(QLatin1Char('[')))
        return std::nullopt; // the common case: most lines carry no progress
    QString plain;
    plain.reserve(limit);
    for (qsizetype i = 0; i < limit; ++i) {
        if (line[i] == QChar(0x1b)) {
            ++i;
            if (i < limit && line[i] == QLatin1Char('[')) {
                ++i;
                while (i < limit && !(line[i].unicode() >= 0x40 && line[i].unicode() <= 0x7e))
                    ++i;
            }
            continue;
        }
        plain += line[i];
    }
    QStringView s(plain);
    // ninja: "[n/m] " at the start, possibly behind "name> " (nix -L) or spaces.
    qsizetype start = 0;
    const qsizetype prompt = s.indexOf(QLatin1String("> "));
    if (prompt > 0 && !s.left(prompt).contains(QLatin1Char(' ')))
        start = prompt + 2;
    while (start < s.size() && s[start] == QLatin1Char(' '))
        ++start;
    if (start < s.size() && s[start] == QLatin1Char('[')) {
        if (auto p = bracketAt(s, start, true))
            return p;
    }
    // nix: "[n/m built, …]" anywhere in its status line.
    for (qsizetype i = s.indexOf(QLatin1Char('[')); i >= 0;
         i = s.indexOf(QLatin1Char('['), i + 1)) {
        if (auto p = bracketAt(s, i, false))
            return p;
    }
    return std::nullopt;
}

} // namespace rg
