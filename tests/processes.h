#pragma once

// Processes of the machine as the tests look for them: a Nix left behind by a cancel shows up
// as a command line that mentions the repository it was evaluating. And a Nix that hangs.

#include <QByteArray>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>

namespace rg::test {

// Processes whose command line mentions `marker`.
inline int processesMentioning(const QByteArray& marker)
{
    int count = 0;
    QDirIterator proc(QStringLiteral("/proc"));
    while (proc.hasNext()) {
        QFile cmdline(proc.next() + QStringLiteral("/cmdline"));
        if (cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().contains(marker))
            ++count;
    }
    return count;
}

// A nix-instantiate in `dir` that says it is Nix 2.26, opens any store at once, and never
// answers an inspection (a download that hangs): it waits on a child whose command line names
// `dir`, so that a stop that kills Nix and leaves what it started is seen. Its path; "" when
// it cannot be written.
inline QString hangingNix(const QTemporaryDir& dir)
{
    const QString path = dir.filePath(QStringLiteral("nix-instantiate"));
    QFile script(path);
    if (!script.open(QIODevice::WriteOnly))
        return {};
    script.write("#!/bin/sh\n"
                 "case \"$*\" in\n"
                 "  --version) echo 'nix-instantiate (Nix) 2.26.3' ;;\n"
                 "  *request*) sh -c 'sleep 120; : " +
                 dir.path().toUtf8() +
                 "' ;;\n"
                 "  *) echo 1 ;;\n"
                 "esac\n");
    script.close();
    script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

} // namespace rg::test
