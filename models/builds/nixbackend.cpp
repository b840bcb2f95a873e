#include "builds/nixbackend.h"

#include "builds/buildersshoptions.h"

#include <QHash>
#include <QMutex>
#include <QProcess>
#include <QProcessEnvironment>

namespace rg {

namespace {

QMutex probeMutex;
std::optional<bool> forced;
QHash<QString, bool> probes;           // key: PATH + NIX_CONFIG, both change what `nix` does
QHash<QString, QString> probeMessages; // why a probe said no, in nix's own words

bool probe(QString* why)
{
    QProcess nix;
    nix.setProgram(QStringLiteral("nix"));
    nix.setArguments({QStringLiteral("eval"), QStringLiteral("--raw"), QStringLiteral("--expr"),
                      QStringLiteral("\"ok\"")});
    nix.start();
    if (!nix.waitForStarted(30000)) {
        *why = QStringLiteral("nix could not be started: ") + nix.errorString();
        return false;
    }
    if (!nix.waitForFinished(30000)) {
        nix.kill();
        nix.waitForFinished(1000);
        *why = QStringLiteral("`nix eval` did not answer within 30 s");
        return false;
    }
    const bool ok = nix.exitStatus() == QProcess::NormalExit && nix.exitCode() == 0 &&
                    nix.readAllStandardOutput().trimmed() == "ok";
    if (!ok)
        *why = QStringLiteral("`nix eval` exited with %1: %2")
                   .arg(nix.exitCode())
                   .arg(QString::fromLocal8Bit(nix.readAllStandardError()).trimmed());
    return ok;
}

QString probeKey()
{
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    return env.value(QStringLiteral("PATH")) + QChar(0) + env.value(QStringLiteral("NIX_CONFIG"));
}

} // namespace

bool NixBackend::hasNewCli()
{
    if (const std::optional<bool> known = knownNewCli())
        return *known;
    // The probe runs without the lock, so knownNewCli() answers at once meanwhile; two
    // threads probing at the same time both get nix's answer.
    const QString key = probeKey();
    QString why;
    const bool ok = probe(&why);
    QMutexLocker lock(&probeMutex);
    probes.insert(key, ok);
    probeMessages.insert(key, why);
    return ok;
}

std::optional<bool> NixBackend::knownNewCli()
{
    QMutexLocker lock(&probeMutex);
    if (forced)
        return *forced;
    const auto it = probes.constFind(probeKey());
    if (it == probes.cend())
        return std::nullopt;
    return it.value();
}

QString NixBackend::probeMessage()
{
    QMutexLocker lock(&probeMutex);
    return probeMessages.value(probeKey());
}

void NixBackend::setNewCliOverride(std::optional<bool> available)
{
    QMutexLocker lock(&probeMutex);
    forced = available;
}

std::optional<ProcessSpec> NixBackend::buildProcess(const BuildTarget& target,
                                                    const BuildSettings& settings,
                                                    QString* error) const
{
    if (!checkTarget(target, error))
        return std::nullopt;
    return buildProcessWith(target, settings, hasNewCli());
}

std::optional<ProcessSpec> NixBackend::provisionalProcess(const BuildTarget& target,
                                                          const BuildSettings& settings,
                                                          QString* error) const
{
    if (!checkTarget(target, error))
        return std::nullopt;
    return buildProcessWith(target, settings, knownNewCli().value_or(false));
}

ProcessSpec NixBackend::buildProcessWith(const BuildTarget& target, const BuildSettings& settings,
                                         bool newCli, const QString& sharedFor) const
{
    const QString outLink = QStringLiteral("result-") + target.pname;
    ProcessSpec spec;
    spec.workingDirectory = target.repository;
    spec.resultPath = target.resultLink();
    if (newCli) {
        spec.program = QStringLiteral("nix");
        spec.arguments = {QStringLiteral("build"), QStringLiteral("-f"),         target.recipeFile,
                          QStringLiteral("-L"),    QStringLiteral("--out-link"), outLink};
    } else {
        spec.program = QStringLiteral("nix-build");
        spec.arguments = {target.recipeFile, QStringLiteral("-o"), outLink};
    }
    spec.arguments << settings.nixArguments();
    // Time limits and shared connections; a NIX_SSHOPTS of the user's own stands instead.
    if (!settings.builders.isEmpty() && !qEnvironmentVariableIsSet("NIX_SSHOPTS"))
        spec.environment.insert(
            QStringLiteral("NIX_SSHOPTS"),
            BuilderSshOptions::forBuilders(sharedFor.isEmpty() ? settings.builders : sharedFor));
    return spec;
}

} // namespace rg
