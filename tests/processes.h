#pragma once

// Processes of the machine as the tests look for them: a Nix left behind by a cancel shows up
// as a command line that mentions the repository it was evaluating.

#include <QByteArray>
#include <QDirIterator>
#include <QFile>

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

} // namespace rg::test
