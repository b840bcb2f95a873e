#include "build/nixbackend.h"

#include <QHash>
#include <QMutex>
#include <QProcess>
#include <QProcessEnvironment>

namespace rg {

namespace {

QMutex probeMutex;
std::optional<bool> forced;
QHash<QString, bool> probes; // key: PATH + NIX_CONFIG, both change what `nix` does

bool probe()
{
    QProcess nix;
    nix.setProgram(QStringLiteral("nix"));
    nix.setArguments({QStringLiteral("eval"), QStringLiteral("--raw"), QStringLiteral("--expr"),
                      QStringLiteral("\"ok\"")});
    nix.start();
    if (!nix.waitForFinished(30000)) {
        nix.kill();
        nix.waitForFinished(1000);
        return false;
    }
    return nix.exitStatus() == QProcess::NormalExit && nix.exitCode() == 0 &&
           nix.readAllStandardOutput().trimmed() == "ok";
}

} // namespace

bool NixBackend::hasNewCli()
{
    QMutexLocker lock(&probeMutex);
    if (forced)
        return *forced;
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QString key =
        env.value(QStringLiteral("PATH")) + QChar(0) + env.value(QStringLiteral("NIX_CONFIG"));
    auto it = probes.find(key);
    if (it == probes.end())
        it = probes.insert(key, probe());
    return it.value();
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
    const QString outLink = QStringLiteral("result-") + target.pname;
    ProcessSpec spec;
    spec.workingDirectory = target.repository;
    spec.resultPath = target.resultLink();
    if (hasNewCli()) {
        spec.program = QStringLiteral("nix");
        spec.arguments = {QStringLiteral("build"), QStringLiteral("-f"),         target.recipeFile,
                          QStringLiteral("-L"),    QStringLiteral("--out-link"), outLink};
    } else {
        spec.program = QStringLiteral("nix-build");
        spec.arguments = {target.recipeFile, QStringLiteral("-o"), outLink};
    }
    spec.arguments << settings.nixArguments();
    return spec;
}

} // namespace rg
