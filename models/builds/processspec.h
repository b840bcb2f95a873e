#pragma once

// A process to start, as an argument list (never a shell string).

#include <QMap>
#include <QString>
#include <QStringList>

namespace rg {

struct ProcessSpec
{
    QString program;
    QStringList arguments;
    QString workingDirectory;
    QMap<QString, QString> environment; // set on top of the inherited environment
    QString resultPath;                 // the out-link the build leaves; empty for publish

    // "flox build pytorch-…": for logs, history and the UI; quotes arguments with spaces.
    QString displayString() const;
};

} // namespace rg
