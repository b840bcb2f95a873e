#pragma once

// Small recipe repositories written into a temporary directory for one test, and git
// commands for setting them up (tests read git only through libgit2; the CLI is setup only).

#include <QDir>
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
    void writeRecipe(const QString& name, const QByteArray& bytes) const
    {
        write(QStringLiteral(".flox/pkgs/") + name, bytes);
    }

    // Runs git in the repository; fails the test when git fails.
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
        process.waitForFinished(30000);
        if (process.exitCode() != 0)
            qWarning() << "git" << arguments << process.readAllStandardError();
        return process.readAllStandardOutput().trimmed();
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
