#include "builds/resultverifier.h"

#include "builds/processsignal.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTimer>
#include <csignal>

namespace rg {

ResultVerifier::ResultVerifier(QObject* parent) : QObject(parent) {}

ResultVerifier::~ResultVerifier()
{
    cancel();
}

void ResultVerifier::start(const QString& resultPath, const VerificationExpectation& expected,
                           bool checkPython, const QStringList& nixArguments)
{
    cancel();
    m_resultPath = resultPath;
    m_expected = expected;
    m_checkPython = checkPython;
    m_nixArguments = nixArguments;
    m_torchOutput.clear();
    m_versionOutput.clear();
    m_result = {};
    m_closureSize = -1;
    m_step = Step::Torch;
    if (!checkPython) {
        m_step = Step::Closure;
    } else if (!QFileInfo(QDir(resultPath).filePath(QStringLiteral("bin/python"))).isExecutable()) {
        m_result.status = VerificationResult::Status::Failed;
        m_result.reason =
            QStringLiteral("%1/bin/python does not exist or is not executable").arg(resultPath);
        m_step = Step::Closure;
    }
    // Start from the event loop so finished() never fires inside start().
    QTimer::singleShot(0, this, &ResultVerifier::runStep);
}

void ResultVerifier::cancel()
{
    if (!m_process)
        return;
    m_process->disconnect(this);
    m_process->kill();
    m_process->waitForFinished(1000);
    m_process->deleteLater();
    m_process = nullptr;
    m_step = Step::Done;
}

void ResultVerifier::runStep()
{
    if (m_step == Step::Done)
        return;
    const QString python = QDir(m_resultPath).filePath(QStringLiteral("bin/python"));
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    switch (m_step) {
    case Step::Torch:
        m_process->setProgram(python);
        m_process->setArguments(
            {QStringLiteral("-c"),
             QStringLiteral("import torch; print(torch.__version__); print(torch.version.cuda)")});
        break;
    case Step::Version:
        m_process->setProgram(python);
        m_process->setArguments({QStringLiteral("--version")});
        break;
    case Step::Closure:
        m_process->setProgram(QStringLiteral("nix"));
        // The flag keeps this working where nix-command is not enabled (Debian's Nix 2.8).
        m_process->setArguments(QStringList{QStringLiteral("--extra-experimental-features"),
                                            QStringLiteral("nix-command"),
                                            QStringLiteral("path-info"), QStringLiteral("-S")} +
                                m_nixArguments + QStringList{m_resultPath});
        break;
    case Step::Done:
        return;
    }
    connect(m_process, &QProcess::finished, this, &ResultVerifier::stepFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            stepFinished();
    });
    m_timedOut = false;
    QTimer::singleShot(m_timeoutMs, m_process, [this, process = m_process] {
        m_timedOut = true;
        process->kill();
    });
    m_process->start();
}

void ResultVerifier::stepFinished()
{
    QProcess* process = m_process;
    if (!process)
        return;
    m_process = nullptr;
    process->disconnect(this);
    process->deleteLater();
    const QString output = QString::fromUtf8(process->readAll());
    const bool ok = process->error() != QProcess::FailedToStart &&
                    process->exitStatus() == QProcess::NormalExit && process->exitCode() == 0;
    switch (m_step) {
    case Step::Torch:
        if (!ok) {
            m_result.status = VerificationResult::Status::Failed;
            m_result.reason = QStringLiteral("`bin/python -c \"import torch …\"` failed (%1): %2")
                                  .arg(howItFailed(*process), output.trimmed().right(500));
            m_step = Step::Closure;
        } else {
            m_torchOutput = output;
            m_step = Step::Version;
        }
        break;
    case Step::Version:
        if (!ok) {
            m_result.status = VerificationResult::Status::Failed;
            m_result.reason = QStringLiteral("`bin/python --version` failed (%1): %2")
                                  .arg(howItFailed(*process), output.trimmed().right(500));
        } else {
            m_result = compare(m_expected, m_torchOutput, output);
        }
        m_step = Step::Closure;
        break;
    case Step::Closure:
        if (ok)
            m_closureSize = parseClosureSize(output);
        m_step = Step::Done;
        break;
    case Step::Done:
        break;
    }
    if (m_step == Step::Done)
        finish();
    else
        runStep();
}

QString ResultVerifier::howItFailed(const QProcess& process) const
{
    if (process.error() == QProcess::FailedToStart)
        return process.errorString();
    if (m_timedOut)
        return QStringLiteral("no answer within %1 s").arg(m_timeoutMs / 1000.0);
    if (process.exitStatus() == QProcess::NormalExit)
        return QStringLiteral("exit code %1").arg(process.exitCode());
    // A crashed process's exit code is the signal that ended it.
    const int signal = process.exitCode();
    QString text = QStringLiteral("killed by ") + ProcessSignal::name(signal);
    // What an import of torch dies of when it was built for a CPU ISA this machine lacks.
    if (signal == SIGILL)
        text += QStringLiteral(": most likely an instruction this machine's CPU lacks, from a "
                               "build for a newer ISA");
    return text;
}

void ResultVerifier::finish()
{
    emit finished(m_result, m_closureSize);
}

VerificationResult ResultVerifier::compare(const VerificationExpectation& expected,
                                           const QString& torchOutput, const QString& versionOutput)
{
    VerificationResult result;
    // The program prints exactly two lines; anything before them (warnings) is noise.
    QStringList lines = torchOutput.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (QString& l : lines)
        l = l.trimmed();
    if (lines.size() >= 2) {
        result.torch = lines[lines.size() - 2];
        result.cuda = lines[lines.size() - 1];
    }
    static const QRegularExpression pythonVersion(QStringLiteral("Python\\s+(\\d+\\.\\d+[^\\s]*)"));
    if (const auto m = pythonVersion.match(versionOutput); m.hasMatch())
        result.python = m.captured(1);

    QStringList problems;
    if (lines.size() < 2)
        problems << QStringLiteral("torch printed %1 line(s), expected its version and CUDA "
                                   "version")
                        .arg(lines.size());
    if (!expected.torch.isEmpty() && lines.size() >= 2 && result.torch != expected.torch &&
        !result.torch.startsWith(expected.torch + QLatin1Char('+')))
        problems << QStringLiteral("torch %1, expected %2").arg(result.torch, expected.torch);
    if (!expected.cuda.isEmpty() && lines.size() >= 2 && result.cuda != expected.cuda)
        problems << QStringLiteral("CUDA %1, expected %2").arg(result.cuda, expected.cuda);
    if (result.python.isEmpty())
        problems << QStringLiteral("`python --version` printed no version (\"%1\")")
                        .arg(versionOutput.trimmed().left(200));
    else if (!expected.python.isEmpty() && result.python != expected.python &&
             !result.python.startsWith(expected.python + QLatin1Char('.')))
        problems << QStringLiteral("Python %1, expected %2.x").arg(result.python, expected.python);
    result.status = problems.isEmpty() ? VerificationResult::Status::Passed
                                       : VerificationResult::Status::Failed;
    result.reason = problems.join(QStringLiteral("; "));
    return result;
}

qint64 ResultVerifier::parseClosureSize(const QString& output)
{
    for (const QString& line : output.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const QStringList fields = line.simplified().split(QLatin1Char(' '));
        if (fields.size() >= 2 && fields.first().startsWith(QLatin1Char('/'))) {
            bool ok = false;
            const qint64 size = fields.last().toLongLong(&ok);
            if (ok)
                return size;
        }
    }
    return -1;
}

} // namespace rg
