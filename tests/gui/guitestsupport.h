#pragma once

// Shared by the GUI suites: fixture repositories copied into a temporary directory (so tests
// may edit them), file helpers, and settings kept out of the user's own.

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace rg::test {

// Copies tests/fixtures/<name> (hidden .flox included) to `target`.
inline bool copyFixture(const QString& name, const QString& target)
{
    const QString source = QStringLiteral(RG_FIXTURES_DIR "/") + name;
    QDirIterator it(source, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    int copied = 0;
    while (it.hasNext()) {
        const QString from = it.next();
        const QString to = target + from.mid(source.size());
        QDir().mkpath(QFileInfo(to).absolutePath());
        if (!QFile::copy(from, to))
            return false;
        QFile::setPermissions(to, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup |
                                      QFile::ReadOther);
        ++copied;
    }
    return copied > 0;
}

inline QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

inline bool writeAll(const QString& path, const QByteArray& bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return file.write(bytes) == bytes.size();
}

// QSettings and QStandardPaths under ~/.qttest, cleared: tests never see the user's recent
// list or build history, nor an earlier run's.
// CTest runs the GUI suites in parallel: each suite gets settings and data folders of its own
// (named after its executable), so wiping them at start cannot pull another suite's away.
inline void isolateSettings()
{
    QStandardPaths::setTestModeEnabled(true);
    const QString suite = QStringLiteral("RecipeGridTests-") +
                          QFileInfo(QCoreApplication::applicationFilePath()).completeBaseName();
    QCoreApplication::setOrganizationName(suite);
    QCoreApplication::setApplicationName(suite);
    QDir(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
         QLatin1Char('/') + suite)
        .removeRecursively();
    // Build history and logs live in the app data directory: start each run without them.
    QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).removeRecursively();
}

inline const char* recipe(const char* variant)
{
    static thread_local QByteArray path;
    path = QByteArray(".flox/pkgs/") + variant + ".nix";
    return path.constData();
}

} // namespace rg::test
