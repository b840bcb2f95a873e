#include "builds/buildermachine.h"

#include "builds/buildplacement.h"

#include <QFile>
#include <QObject>
#include <QRegularExpression>

namespace rg {

namespace {

QStringList listField(const QString& field)
{
    return field == QLatin1String("-") ? QStringList()
                                       : field.split(QLatin1Char(','), Qt::SkipEmptyParts);
}

// A positive whole number, or "-" for Nix's default of 1.
bool countField(const QString& field, int* value)
{
    if (field == QLatin1String("-"))
        return true;
    bool ok = false;
    const int n = field.toInt(&ok);
    if (ok && n >= 0)
        *value = n;
    return ok && n >= 0;
}

bool isBase64(const QString& text)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9+/]+={0,2}$"));
    return text.size() % 4 == 0 && re.match(text).hasMatch();
}

// One entry's fields into `machine`; false with the reason in `why`.
bool readFields(const QStringList& f, BuilderMachine* m, QString* why)
{
    m->uri = f[0];
    if (f.size() > 8) {
        *why = QObject::tr("%1 fields where Nix reads at most 8").arg(f.size());
        return false;
    }
    auto field = [&](int i) { return i < f.size() ? f[i] : QStringLiteral("-"); };
    m->systems = listField(field(1));
    m->sshKey = field(2) == QLatin1String("-") ? QString() : field(2);
    if (!countField(field(3), &m->maxJobs)) {
        *why = QObject::tr("max jobs '%1' is not a whole number").arg(field(3));
        return false;
    }
    if (field(4) != QLatin1String("-")) {
        bool ok = false;
        m->speedFactor = field(4).toDouble(&ok);
        if (!ok || m->speedFactor <= 0) {
            *why = QObject::tr("speed factor '%1' is not a positive number").arg(field(4));
            return false;
        }
    }
    m->supportedFeatures = listField(field(5));
    m->mandatoryFeatures = listField(field(6));
    m->publicHostKey = field(7) == QLatin1String("-") ? QString() : field(7);
    if (!m->publicHostKey.isEmpty() && !isBase64(m->publicHostKey)) {
        *why = QObject::tr("the public host key is not base64 (Nix wants the key file's line, "
                           "base64-encoded)");
        return false;
    }
    if (!m->sshKey.isEmpty() && !QFile::exists(m->sshKey)) {
        *why = QObject::tr("the SSH key %1 does not exist").arg(m->sshKey);
        return false;
    }
    return true;
}

void parseInto(const QString& text, const QString& file, QList<BuilderMachine>* out,
               QStringList* errors, int depth);

void parseEntry(const QString& entry, const QString& origin, QList<BuilderMachine>* out,
                QStringList* errors, int depth)
{
    QString text = entry;
    if (const qsizetype hash = text.indexOf(QLatin1Char('#')); hash >= 0)
        text.truncate(hash);
    text = text.trimmed();
    if (text.isEmpty())
        return;
    if (text.startsWith(QLatin1Char('@'))) {
        const QString path = text.mid(1);
        QFile file(path);
        if (depth > 4 || !file.open(QIODevice::ReadOnly)) {
            if (errors)
                *errors << QObject::tr("%1: cannot read the builders file %2: %3")
                               .arg(origin, path,
                                    depth > 4 ? QObject::tr("nested too deeply")
                                              : file.errorString());
            return;
        }
        parseInto(QString::fromUtf8(file.readAll()), path, out, errors, depth + 1);
        return;
    }
    BuilderMachine m;
    m.origin = origin;
    QString why;
    if (readFields(text.split(QRegularExpression(QStringLiteral("[ \t]+"))), &m, &why))
        out->append(m);
    else if (errors)
        *errors << QObject::tr("%1 (%2): %3").arg(origin, BuildPlacement::labelOf(m.uri), why);
}

// Nix splits the value at newlines and ';' alike; a file's entries are named by line, the
// option's by position.
void parseInto(const QString& text, const QString& file, QList<BuilderMachine>* out,
               QStringList* errors, int depth)
{
    const QStringList lines = text.split(QLatin1Char('\n'));
    int entryNumber = 0;
    for (int line = 0; line < lines.size(); ++line) {
        for (const QString& entry : lines[line].split(QLatin1Char(';'))) {
            if (entry.trimmed().isEmpty() || entry.trimmed().startsWith(QLatin1Char('#')))
                continue;
            ++entryNumber;
            const QString origin = file.isEmpty()
                                       ? QObject::tr("builder %1").arg(entryNumber)
                                       : QObject::tr("%1 line %2").arg(file).arg(line + 1);
            parseEntry(entry, origin, out, errors, depth);
        }
    }
}

} // namespace

QString BuilderMachine::label() const
{
    return BuildPlacement::labelOf(uri);
}

QString BuilderMachine::toLine() const
{
    const auto orDash = [](const QString& text) {
        return text.isEmpty() ? QStringLiteral("-") : text;
    };
    return QStringList{uri,
                       orDash(systems.join(QLatin1Char(','))),
                       orDash(sshKey),
                       QString::number(maxJobs),
                       QString::number(speedFactor),
                       orDash(supportedFeatures.join(QLatin1Char(','))),
                       orDash(mandatoryFeatures.join(QLatin1Char(','))),
                       orDash(publicHostKey)}
        .join(QLatin1Char(' '));
}

QString BuilderMachine::toLines(const QList<BuilderMachine>& machines)
{
    QStringList lines;
    for (const BuilderMachine& m : machines)
        lines << m.toLine();
    return lines.join(QLatin1Char('\n'));
}

QString BuilderMachine::whyNot(const QString& system, const QStringList& features) const
{
    if (!systems.isEmpty() && !systems.contains(system))
        return QObject::tr("builds %1 only").arg(systems.join(QStringLiteral(", ")));
    QStringList missing;
    for (const QString& f : features) {
        if (!supportedFeatures.contains(f) && !mandatoryFeatures.contains(f))
            missing << f;
    }
    if (!missing.isEmpty())
        return QObject::tr("offers no %1").arg(missing.join(QStringLiteral(", ")));
    for (const QString& f : mandatoryFeatures) {
        if (!features.contains(f))
            return QObject::tr("takes only builds that require %1")
                .arg(mandatoryFeatures.join(QStringLiteral(", ")));
    }
    return {};
}

QList<BuilderMachine> BuilderMachine::parse(const QString& spec, QStringList* errors)
{
    QList<BuilderMachine> machines;
    parseInto(spec, QString(), &machines, errors, 0);
    return machines;
}

} // namespace rg
