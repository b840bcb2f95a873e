#include "builds/buildsettings.h"

#include <QRegularExpression>
#include <QSettings>

namespace rg {

QString backendKindName(BackendKind kind)
{
    switch (kind) {
    case BackendKind::Auto:
        return QStringLiteral("auto");
    case BackendKind::Flox:
        return QStringLiteral("flox");
    case BackendKind::Nix:
        return QStringLiteral("nix");
    case BackendKind::Custom:
        return QStringLiteral("custom");
    }
    return QStringLiteral("auto");
}

std::optional<BackendKind> backendKindFromName(const QString& name)
{
    for (BackendKind kind :
         {BackendKind::Auto, BackendKind::Flox, BackendKind::Nix, BackendKind::Custom}) {
        if (name.compare(backendKindName(kind), Qt::CaseInsensitive) == 0)
            return kind;
    }
    return std::nullopt;
}

QList<QPair<QString, QString>> BuildSettings::nixOptionPairs(QString* error) const
{
    QList<QPair<QString, QString>> pairs;
    QStringList bad;
    for (const QString& option : nixOptions) {
        const qsizetype eq = option.indexOf(QLatin1Char('='));
        const QString key = eq < 0 ? QString() : option.left(eq).trimmed();
        if (key.isEmpty()) {
            bad << option;
            continue;
        }
        pairs.append({key, option.mid(eq + 1).trimmed()});
    }
    // Nix separates machines by ';' as by newlines; one line keeps NIX_CONFIG's format.
    if (!builders.isEmpty())
        pairs.append(
            {QStringLiteral("builders"),
             builders.split(QLatin1Char('\n'), Qt::SkipEmptyParts).join(QLatin1Char(';'))});
    if (maxJobs >= 0)
        pairs.append({QStringLiteral("max-jobs"), QString::number(maxJobs)});
    if (error) {
        *error = bad.isEmpty() ? QString()
                               : QStringLiteral("ignored Nix option(s) without key=value: %1")
                                     .arg(bad.join(QStringLiteral(", ")));
    }
    return pairs;
}

QStringList BuildSettings::binaryCaches() const
{
    QStringList caches;
    for (const auto& [key, value] : nixOptionPairs())
        if (key == QLatin1String("substituters") || key == QLatin1String("extra-substituters"))
            for (const QString& url : value.split(QLatin1Char(' '), Qt::SkipEmptyParts))
                if (!caches.contains(url))
                    caches << url;
    return caches;
}

QStringList BuildSettings::nixArguments() const
{
    QStringList arguments;
    for (const auto& [key, value] : nixOptionPairs())
        arguments << QStringLiteral("--option") << key << value;
    if (!store.isEmpty())
        arguments << QStringLiteral("--store") << store;
    return arguments;
}

QString BuildSettings::nixConfigLines() const
{
    QStringList lines;
    for (const auto& [key, value] : nixOptionPairs())
        lines << key + QStringLiteral(" = ") + value;
    if (!store.isEmpty())
        lines << QStringLiteral("store = ") + store;
    return lines.join(QLatin1Char('\n'));
}

QString BuildSettings::nixpkgsSourcesText() const
{
    QStringList lines;
    for (auto it = nixpkgsSources.begin(); it != nixpkgsSources.end(); ++it)
        lines << it.key() + QLatin1Char('=') + it.value();
    return lines.join(QLatin1Char('\n'));
}

QMap<QString, QString> BuildSettings::nixpkgsSourcesFrom(const QString& text, QStringList* bad)
{
    static const QRegularExpression line(QStringLiteral("^([0-9a-fA-F]{40})\\s*=\\s*(\\S.*)$"));
    QMap<QString, QString> sources;
    for (const QString& raw : text.split(QLatin1Char('\n'))) {
        const QString trimmed = raw.trimmed();
        if (trimmed.isEmpty())
            continue;
        const QRegularExpressionMatch match = line.match(trimmed);
        if (match.hasMatch())
            sources[match.captured(1).toLower()] = match.captured(2).trimmed();
        else if (bad)
            *bad << trimmed;
    }
    return sources;
}

BuildSettings BuildSettings::load(QSettings& settings)
{
    BuildSettings s;
    settings.beginGroup(QStringLiteral("build"));
    s.backend = backendKindFromName(settings.value(QStringLiteral("backend")).toString())
                    .value_or(BackendKind::Auto);
    s.customCommand = settings.value(QStringLiteral("customCommand")).toString();
    s.nixOptions = settings.value(QStringLiteral("nixOptions")).toStringList();
    s.builders = settings.value(QStringLiteral("builders")).toString();
    // "maxJobs" held 0 for Nix's default before 0 could mean "build nothing here";
    // "localJobs" replaced it.
    if (settings.contains(QStringLiteral("localJobs")))
        s.maxJobs = qMax(-1, settings.value(QStringLiteral("localJobs")).toInt());
    else if (const int old = settings.value(QStringLiteral("maxJobs"), 0).toInt(); old > 0)
        s.maxJobs = old;
    s.store = settings.value(QStringLiteral("store")).toString();
    s.concurrency = qMax(1, settings.value(QStringLiteral("concurrency"), 1).toInt());
    s.publishOrg = settings.value(QStringLiteral("publishOrg")).toString();
    s.verify = settings.value(QStringLiteral("verify"), true).toBool();
    s.cancelGraceMs = settings.value(QStringLiteral("cancelGraceMs"), 5000).toInt();
    const QVariantMap sources = settings.value(QStringLiteral("nixpkgsSources")).toMap();
    for (auto it = sources.begin(); it != sources.end(); ++it)
        s.nixpkgsSources[it.key()] = it.value().toString();
    s.defaultNixpkgs = settings.value(QStringLiteral("defaultNixpkgs")).toString();
    settings.endGroup();
    return s;
}

void BuildSettings::save(QSettings& settings) const
{
    settings.beginGroup(QStringLiteral("build"));
    settings.setValue(QStringLiteral("backend"), backendKindName(backend));
    settings.setValue(QStringLiteral("customCommand"), customCommand);
    settings.setValue(QStringLiteral("nixOptions"), nixOptions);
    settings.setValue(QStringLiteral("builders"), builders);
    settings.setValue(QStringLiteral("localJobs"), maxJobs);
    settings.remove(QStringLiteral("maxJobs"));
    settings.setValue(QStringLiteral("store"), store);
    settings.setValue(QStringLiteral("concurrency"), concurrency);
    settings.setValue(QStringLiteral("publishOrg"), publishOrg);
    settings.setValue(QStringLiteral("verify"), verify);
    settings.setValue(QStringLiteral("cancelGraceMs"), cancelGraceMs);
    QVariantMap sources;
    for (auto it = nixpkgsSources.begin(); it != nixpkgsSources.end(); ++it)
        sources[it.key()] = it.value();
    settings.setValue(QStringLiteral("nixpkgsSources"), sources);
    settings.setValue(QStringLiteral("defaultNixpkgs"), defaultNixpkgs);
    settings.endGroup();
}

} // namespace rg
