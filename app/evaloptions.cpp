#include "evaloptions.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

namespace rg {

namespace {

enum Option { Nixpkgs, DefaultNixpkgs, Jobs, Store, Timeout, MemoryLimit, NoCache };

// A positive whole number, or -1.
int positive(const QString& text)
{
    bool ok = false;
    const int value = text.toInt(&ok);
    return ok && value > 0 ? value : -1;
}

std::string localPath(const QString& path, const QString& option, std::string* error)
{
    const QFileInfo info(path);
    if (!info.exists())
        *error =
            "--" + option.toStdString() + ": " + path.toStdString() + ": no such file or directory";
    return QDir::cleanPath(info.absoluteFilePath()).toStdString();
}

} // namespace

EvalOptions::EvalOptions()
{
    m_options = {
        {QStringLiteral("nixpkgs"),
         QStringLiteral("Evaluate the pinned nixpkgs revision REV (40 hex digits) from a local "
                        "nixpkgs directory or tarball instead of fetching it; repeatable."),
         QStringLiteral("REV=PATH")},
        {QStringLiteral("default-nixpkgs"),
         QStringLiteral("The nixpkgs for recipes that are functions of a package set "
                        "(callPackage style) and for <nixpkgs>."),
         QStringLiteral("PATH")},
        {QStringLiteral("jobs"),
         QStringLiteral("Nix processes at once (default: the number of cores)."),
         QStringLiteral("N")},
        {QStringLiteral("store"),
         QStringLiteral("The Nix store to evaluate against (Nix's --store)."),
         QStringLiteral("URI")},
        {QStringLiteral("timeout"),
         QStringLiteral("Stop a recipe's evaluation after this many seconds (default 300)."),
         QStringLiteral("SECONDS")},
        {QStringLiteral("memory-limit"),
         QStringLiteral("Memory one Nix process may use, in MiB (default 6144)."),
         QStringLiteral("MIB")},
        {QStringLiteral("no-cache"),
         QStringLiteral("Evaluate every recipe again instead of reusing unchanged results.")},
    };
}

EvalSettings EvalOptions::settingsFrom(const QCommandLineParser& parser, const std::string& root,
                                       std::string* error) const
{
    EvalSettings settings;
    settings.repoRoot = root;
    static const QRegularExpression pinned(QStringLiteral("^([0-9a-fA-F]{40})=(.+)$"));
    for (const QString& value : parser.values(m_options[Nixpkgs])) {
        const QRegularExpressionMatch match = pinned.match(value);
        if (!match.hasMatch()) {
            *error = "--nixpkgs " + value.toStdString() +
                     ": expected REV=PATH with a 40-hex-digit revision";
            return settings;
        }
        settings.sources[match.captured(1).toLower().toStdString()] =
            localPath(match.captured(2), QStringLiteral("nixpkgs"), error);
    }
    if (parser.isSet(m_options[DefaultNixpkgs]))
        settings.defaultNixpkgs = localPath(parser.value(m_options[DefaultNixpkgs]),
                                            QStringLiteral("default-nixpkgs"), error);
    const auto number = [&](Option option, int* target) {
        if (!parser.isSet(m_options[option]))
            return;
        *target = positive(parser.value(m_options[option]));
        if (*target < 0)
            *error = "--" + m_options[option].names().front().toStdString() +
                     ": expected a positive number, got " +
                     parser.value(m_options[option]).toStdString();
    };
    number(Jobs, &settings.jobs);
    number(Timeout, &settings.timeoutSeconds);
    int mib = int(settings.memoryLimitBytes >> 20);
    number(MemoryLimit, &mib);
    settings.memoryLimitBytes = int64_t(mib) << 20;
    settings.store = parser.value(m_options[Store]).toStdString();
    if (!parser.isSet(m_options[NoCache]))
        settings.cacheDir =
            (QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) +
             QStringLiteral("/recipegrid/eval"))
                .toStdString();
    return settings;
}

} // namespace rg
