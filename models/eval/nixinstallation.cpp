#include "eval/nixinstallation.h"

#include <QProcess>
#include <QStandardPaths>
#include <regex>

namespace rg {

bool NixInstallation::atLeast(const std::string& version, int major, int minor)
{
    static const std::regex numbers(R"((\d+)\.(\d+))");
    std::smatch match;
    if (!std::regex_search(version, match, numbers))
        return false;
    const int foundMajor = std::stoi(match[1].str());
    return foundMajor > major || (foundMajor == major && std::stoi(match[2].str()) >= minor);
}

NixInstallation NixInstallation::find()
{
    NixInstallation nix;
    nix.instantiate = QStandardPaths::findExecutable(QStringLiteral("nix-instantiate"));
    if (nix.instantiate.isEmpty()) {
        nix.error = "nix-instantiate is not on PATH: evaluating recipes needs Nix 2.8 or newer";
        return nix;
    }
    QProcess process;
    process.start(nix.instantiate, {QStringLiteral("--version")});
    if (!process.waitForFinished(30000) || process.exitStatus() != QProcess::NormalExit ||
        process.exitCode() != 0) {
        process.kill();
        nix.error = nix.instantiate.toStdString() +
                    " --version failed: " + process.errorString().toStdString();
        return nix;
    }
    // "nix-instantiate (Nix) 2.8.0"
    const std::string output = process.readAllStandardOutput().trimmed().toStdString();
    nix.version = output.substr(output.rfind(' ') + 1);
    if (!atLeast(nix.version, 2, 8))
        nix.error = "Nix " + nix.version + " is too old: evaluating recipes needs Nix 2.8 or newer";
    return nix;
}

void NixInstallation::openStore(const std::string& store) const
{
    QStringList arguments = {QStringLiteral("--eval"), QStringLiteral("-E"), QStringLiteral("1")};
    if (!store.empty())
        arguments << QStringLiteral("--store") << QString::fromStdString(store);
    QProcess process;
    process.start(instantiate, arguments);
    if (!process.waitForFinished(60000))
        process.kill();
    process.waitForFinished();
}

} // namespace rg
