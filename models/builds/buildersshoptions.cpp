#include "builds/buildersshoptions.h"

#include "builds/buildermachine.h"

#include <QCryptographicHash>
#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

namespace rg {

const QString BuilderSshOptions::timeLimits =
    QStringLiteral("-o ConnectTimeout=15 -o ServerAliveInterval=15 -o ServerAliveCountMax=3");

namespace {

// A socket's path holds at most 107 bytes: the directory, "/", the 8-character key of the
// builders, "-", ssh's %C (40 characters), and the 17 characters ssh appends while it makes the
// socket.
constexpr int keyLength = 8;
constexpr qsizetype longestDirectory = 107 - (1 + keyLength + 1 + 40 + 17);

} // namespace

QString BuilderSshOptions::socketDirectory()
{
    static const QString directory = [] {
        // Qt makes it 0700: only this user reaches the sockets.
        static QTemporaryDir made(QDir::tempPath() + QStringLiteral("/rg-ssh-XXXXXX"));
        const QString path = made.isValid() ? made.path() : QString();
        static const QRegularExpression unsafe(QStringLiteral("[\\s'\"\\\\%]"));
        if (path.toLocal8Bit().size() > longestDirectory || path.contains(unsafe))
            return QString();
        return path;
    }();
    return directory;
}

QString BuilderSshOptions::forBuilders(const QString& builders)
{
    const QString directory = socketDirectory();
    if (directory.isEmpty())
        return timeLimits;
    const QString key =
        QString::fromLatin1(QCryptographicHash::hash(builders.toUtf8(), QCryptographicHash::Sha256)
                                .toHex()
                                .left(keyLength));
    // ControlPersist: the connection outlives the build that opened it by a minute, for the
    // next build of the batch (or the next batch) to take over.
    return timeLimits +
           QStringLiteral(" -o ControlMaster=auto -o ControlPersist=%1 -o ControlPath=%2/%3-%C")
               .arg(QString::number(persistSeconds), directory, key);
}

void BuilderSshOptions::closeKilledSessions(const QString& sshOptions,
                                            const QList<BuilderMachine>& machines)
{
    if (!sshOptions.contains(QLatin1String("ControlPath")))
        return;
    // Nix splits NIX_SSHOPTS at whitespace; so does this, to name the same sockets.
    const QStringList options =
        sshOptions.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
    for (const BuilderMachine& machine : machines) {
        // The destination Nix gives ssh: the machine's user@host, which with the options names
        // the socket (%C). A machine without a connection makes ssh say so and exit.
        QProcess check;
        check.setProgram(QStringLiteral("ssh"));
        check.setArguments(
            options + QStringList{QStringLiteral("-O"), QStringLiteral("check"), machine.label()});
        check.setStandardInputFile(QProcess::nullDevice());
        check.setStandardOutputFile(QProcess::nullDevice());
        check.setStandardErrorFile(QProcess::nullDevice());
        check.startDetached();
    }
}

} // namespace rg
