#include "builds/buildtarget.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace rg {

bool BuildTarget::isValidName(const QString& name)
{
    static const QRegularExpression valid(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._+-]*$"));
    return valid.match(name).hasMatch();
}

QString BuildTarget::variantOf(const QString& argument)
{
    return argument.endsWith(QLatin1String(".nix")) ? argument.chopped(4) : argument;
}

std::optional<BuildTarget> BuildTarget::resolve(const QString& repository, const QString& variant,
                                                const QString& recipeDir, QString* error)
{
    auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return std::nullopt;
    };
    const QString name = variantOf(variant);
    if (!isValidName(name))
        return fail(QStringLiteral("invalid variant name '%1': only letters, digits and ._+- "
                                   "are allowed, starting with a letter or digit")
                        .arg(variant));
    const QFileInfo repo(repository);
    if (!repo.isDir())
        return fail(QStringLiteral("%1: not a directory").arg(repository));
    const QString dir = QDir(repo.absoluteFilePath()).absoluteFilePath(recipeDir);
    const QFileInfo file(QDir(dir).absoluteFilePath(name + QStringLiteral(".nix")));
    if (!file.isFile())
        return fail(
            QStringLiteral("%1: no recipe for variant '%2'").arg(file.absoluteFilePath(), name));
    BuildTarget target;
    target.variant = name;
    target.pname = name;
    target.recipeFile = file.absoluteFilePath();
    target.repository = QDir(repo.absoluteFilePath()).canonicalPath();
    target.expected = VerificationExpectation::fromVariant(name);
    return target;
}

QString BuildTarget::resultLink() const
{
    return QDir(repository).absoluteFilePath(QStringLiteral("result-") + pname);
}

} // namespace rg
