#pragma once

// Runs the real `recipegrid` binary for CLI tests and keeps what it said.

#include <QProcess>
#include <QString>
#include <QStringList>

namespace rg::test {

struct Run
{
    int exitCode = -1; // -1: crashed or did not finish
    QByteArray out;
    QByteArray err;
};

inline Run
runRecipegrid(const QStringList& arguments,
              const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment(),
              const QString& workingDirectory = QString(), int timeoutMs = 120000)
{
    QProcess process;
    process.setProcessEnvironment(environment);
    if (!workingDirectory.isEmpty())
        process.setWorkingDirectory(workingDirectory);
    process.start(QStringLiteral(RG_BINARY_DIR "/app/recipegrid"), arguments);
    Run run;
    if (!process.waitForFinished(timeoutMs)) {
        // A hang is a failure: no exit code a test could take for a result.
        process.kill();
        process.waitForFinished(5000);
        run.err =
            "recipegrid " + arguments.join(QLatin1Char(' ')).toUtf8() + " did not finish in time";
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

} // namespace rg::test
