#include "builds/buildplacement.h"

#include <QObject>
#include <algorithm>

namespace rg {

namespace {

// The line with ANSI escapes (Nix colours store paths on a terminal, and -L keeps them)
// removed; only lines that start like Nix's own messages get this far.
QString withoutEscapes(QStringView line)
{
    QString out;
    out.reserve(line.size());
    for (qsizetype i = 0; i < line.size(); ++i) {
        if (line[i] == QLatin1Char('\x1b') && i + 1 < line.size() && line[i + 1] == '[') {
            i += 2;
            while (i < line.size() && !(line[i] >= QLatin1Char('@') && line[i] <= '~'))
                ++i;
            continue;
        }
        out += line[i];
    }
    return out;
}

// The text between the quote at `from` and the next one; nullopt when unquoted.
std::optional<QString> quoted(const QString& text, qsizetype from, qsizetype* end)
{
    if (from >= text.size() || text[from] != QLatin1Char('\''))
        return std::nullopt;
    const qsizetype close = text.indexOf(QLatin1Char('\''), from + 1);
    if (close < 0)
        return std::nullopt;
    *end = close + 1;
    return text.mid(from + 1, close - from - 1);
}

} // namespace

QString BuildPlacement::labelOf(const QString& machineUri)
{
    if (machineUri.isEmpty())
        return QObject::tr("this machine");
    QString label = machineUri;
    if (const qsizetype scheme = label.indexOf(QLatin1String("://")); scheme >= 0)
        label = label.mid(scheme + 3);
    if (const qsizetype query = label.indexOf(QLatin1Char('?')); query >= 0)
        label.truncate(query);
    return label.isEmpty() ? machineUri : label;
}

QString BuildPlacement::machineLabel() const
{
    return labelOf(machine);
}

bool BuildPlacement::isConnectionLoss(QStringView line)
{
    static const QLatin1String signs[] = {
        QLatin1String("error: unexpected end-of-file"), QLatin1String(" not responding."),
        QLatin1String("Connection reset by peer"), QLatin1String("Connection closed by"),
        QLatin1String("Broken pipe")};
    return std::any_of(std::begin(signs), std::end(signs),
                       [&](QLatin1String sign) { return line.contains(sign); });
}

std::optional<BuildPlacement> BuildPlacement::parseLine(QStringView line)
{
    static const QLatin1String building("building '");
    static const QLatin1String cannot("cannot build on '");
    // Cheap test first: the reader sees every line of multi-GB logs.
    const qsizetype at = line.indexOf(QLatin1String("build"));
    if (at < 0 || at > 32)
        return std::nullopt;
    const QString text = withoutEscapes(line).trimmed();
    qsizetype end = 0;
    if (text.startsWith(cannot)) {
        const auto machine = quoted(text, cannot.size() - 1, &end);
        if (!machine || !text.mid(end).startsWith(QLatin1String(": ")))
            return std::nullopt;
        BuildPlacement p;
        p.machine = *machine;
        p.failure = text.mid(end + 2).trimmed();
        return p;
    }
    if (!text.startsWith(building))
        return std::nullopt;
    const auto derivation = quoted(text, building.size() - 1, &end);
    if (!derivation || !derivation->endsWith(QLatin1String(".drv")))
        return std::nullopt;
    BuildPlacement p;
    p.derivation = *derivation;
    const QStringView rest = QStringView(text).mid(end);
    if (rest.startsWith(QLatin1String(" on '"))) {
        const auto machine = quoted(text, end + 4, &end);
        if (!machine)
            return std::nullopt;
        p.machine = *machine;
    } else if (!rest.startsWith(QLatin1String("..."))) {
        return std::nullopt;
    }
    return p;
}

} // namespace rg
