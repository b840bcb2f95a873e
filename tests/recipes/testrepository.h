#pragma once

// Small recipe repositories written into a temporary directory for one test, and git
// commands for setting them up (tests read git only through libgit2; the CLI is setup only).

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <string>

namespace rg::test {

class TestRepository
{
public:
    TestRepository() { QVERIFY2(m_dir.isValid(), "cannot create a temporary directory"); }

    QString root() const { return m_dir.path(); }
    std::string rootPath() const { return m_dir.path().toStdString(); }

    void write(const QString& relative, const QByteArray& bytes) const
    {
        const QString path = m_dir.filePath(relative);
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile file(path);
        QVERIFY2(file.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
        file.write(bytes);
    }
    // Copies a fixture repository (hidden `.flox/` included) into this one.
    void copyFrom(const QString& fixture) const
    {
        QDirIterator it(fixture, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            QFile file(path);
            QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
            write(QDir(fixture).relativeFilePath(path), file.readAll());
        }
    }
    void writeRecipe(const QString& name, const QByteArray& bytes) const
    {
        write(QStringLiteral(".flox/pkgs/") + name, bytes);
    }

    // Runs git in the repository; aborts the suite (a failure) when git fails.
    QByteArray git(const QStringList& arguments) const
    {
        QProcess process;
        process.setWorkingDirectory(root());
        QStringList all{QStringLiteral("-c"), QStringLiteral("user.name=RecipeGrid Test"),
                        QStringLiteral("-c"), QStringLiteral("user.email=test@example.invalid"),
                        QStringLiteral("-c"), QStringLiteral("init.defaultBranch=main"),
                        QStringLiteral("-c"), QStringLiteral("commit.gpgsign=false")};
        all += arguments;
        process.start(QStringLiteral("git"), all);
        // A fixture that could not be set up makes every later assertion meaningless: stop the
        // suite with git's own words instead of testing a half-made repository.
        if (!process.waitForFinished(30000) || process.exitStatus() != QProcess::NormalExit ||
            process.exitCode() != 0)
            qFatal("git %s failed: %s", qPrintable(arguments.join(QLatin1Char(' '))),
                   process.readAllStandardError().constData());
        return process.readAllStandardOutput().trimmed();
    }
    // The fixture's files as the first commit of a new git repository.
    void commitFixture(const QString& fixture, const QString& message) const
    {
        copyFrom(fixture);
        git({QStringLiteral("init"), QStringLiteral("-q")});
        commitAll(message);
    }

    // A committer in the repository's own config: the window commits through libgit2, which
    // reads it there, while git() passes one on its command line only.
    void setCommitter() const
    {
        git({QStringLiteral("config"), QStringLiteral("user.name"),
             QStringLiteral("Release Engineer")});
        git({QStringLiteral("config"), QStringLiteral("user.email"),
             QStringLiteral("re@example.org")});
    }

    void commitAll(const QString& message) const
    {
        git({QStringLiteral("add"), QStringLiteral("-A")});
        git({QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("-m"), message});
    }

private:
    QTemporaryDir m_dir;
};

} // namespace rg::test
