#include "builds/buildbackend.h"

#include "builds/custombackend.h"
#include "builds/floxbackend.h"
#include "builds/nixbackend.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace rg {

BuildBackend::~BuildBackend() = default;

BackendKind BuildBackend::detect(const QString& repository, const QString& path)
{
    if (!QFileInfo(QDir(repository).absoluteFilePath(QStringLiteral(".flox"))).isDir())
        return BackendKind::Nix;
    const QStringList dirs = path.isEmpty() ? QStringList() : path.split(QLatin1Char(':'));
    const QString flox = QStandardPaths::findExecutable(QStringLiteral("flox"), dirs);
    return flox.isEmpty() ? BackendKind::Nix : BackendKind::Flox;
}

std::unique_ptr<BuildBackend> BuildBackend::create(BackendKind kind, const QString& repository)
{
    if (kind == BackendKind::Auto)
        kind = detect(repository);
    switch (kind) {
    case BackendKind::Flox:
        return std::make_unique<FloxBackend>();
    case BackendKind::Custom:
        return std::make_unique<CustomBackend>();
    case BackendKind::Nix:
    case BackendKind::Auto:
        break;
    }
    return std::make_unique<NixBackend>();
}

bool BuildBackend::checkTarget(const BuildTarget& target, QString* error)
{
    for (const QString& name : {target.variant, target.pname}) {
        if (!BuildTarget::isValidName(name)) {
            if (error)
                *error = QStringLiteral("invalid variant or package name '%1'").arg(name);
            return false;
        }
    }
    if (target.repository.isEmpty() || target.recipeFile.isEmpty()) {
        if (error)
            *error = QStringLiteral("%1: no repository or recipe file").arg(target.variant);
        return false;
    }
    return true;
}

} // namespace rg
