#pragma once

// Shared by the build suites: Nix configured for tests, a fresh copy of the fixture
// repository whose recipes carry a random nonce so Nix really builds them, and jobs of an
// earlier session.

#include "builds/buildhistory.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

namespace rg::test {

inline void configureNix()
{
    qputenv("NIX_CONFIG", "build-users-group =\nsandbox = false\nsubstituters =\n"
                          "experimental-features = nix-command");
}

inline QString randomNonce()
{
    return QString::number(QRandomGenerator::global()->generate64(), 36);
}

// Copies tests/fixtures/build/repo into `into`, replacing @NONCE@, @SECONDS@ and @PIDFILE@.
inline bool copyFixtureRepo(const QString& into, int sleepSeconds = 2,
                            const QString& pidFile = QStringLiteral("/dev/null"))
{
    const QString from = QStringLiteral(RG_FIXTURES_DIR "/build/repo");
    const QString nonce = randomNonce();
    QDirIterator it(from, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString target = QDir(into).filePath(QDir(from).relativeFilePath(path));
        QDir().mkpath(QFileInfo(target).absolutePath());
        QFile in(path);
        QFile out(target);
        if (!in.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly))
            return false;
        QByteArray text = in.readAll();
        text.replace("@NONCE@", nonce.toUtf8());
        text.replace("@SECONDS@", QByteArray::number(sleepSeconds));
        text.replace("@PIDFILE@", pidFile.toUtf8());
        out.write(text);
    }
    return true;
}

// Records in `history` a job of an earlier session: `variant`, ended in `state`, started
// `daysAgo` days ago and lasting `seconds`.
inline bool addEarlierJob(BuildHistory& history, const QString& variant, JobState state,
                          int daysAgo, int seconds, const QString& command = {})
{
    BuildRecord old;
    old.id = history.nextJobId();
    old.variant = variant;
    old.state = state;
    old.startedAt = QDateTime::currentDateTimeUtc().addDays(-daysAgo);
    old.finishedAt = old.startedAt.addSecs(seconds);
    old.command = command;
    return history.add(old);
}

inline QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace rg::test
