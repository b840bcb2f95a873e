#include "builds/buildercheck.h"

#include "builds/buildersshoptions.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTimer>
#include <QUrl>
#include <memory>

namespace rg {

namespace {

// Nix's last "error:" line ("cannot connect to 'root@host'") with ssh's last words before it
// ("Host key verification failed.", "connect to host … port 22: Connection timed out"): Nix
// says which builder, ssh says why. ssh ends its lines with "\r"; its banners start with '@'.
QString reasonOf(const QString& stderrText)
{
    QString nixError;
    QString sshWords;
    for (QString line : stderrText.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        line = line.trimmed();
        if (line.startsWith(QLatin1String("error:")))
            nixError = line.mid(6).trimmed();
        else if (!line.isEmpty() && !line.startsWith(QLatin1Char('@')) &&
                 !line.startsWith(QLatin1String("Store URL:")))
            sshWords = line.startsWith(QLatin1String("ssh: ")) ? line.mid(5) : line;
    }
    if (nixError.isEmpty())
        return sshWords;
    return sshWords.isEmpty() ? nixError : nixError + QStringLiteral(": ") + sshWords;
}

} // namespace

BuilderCheck::BuilderCheck(QObject* parent) : QObject(parent) {}

BuilderCheck::~BuilderCheck()
{
    for (QProcess* process : m_processes) {
        if (process && process->state() != QProcess::NotRunning) {
            process->disconnect(this);
            process->kill();
            process->waitForFinished(2000);
        }
    }
}

QString BuilderCheck::storeUri(const BuilderMachine& machine)
{
    QString uri = machine.uri.contains(QLatin1String("://"))
                      ? machine.uri
                      : QStringLiteral("ssh://") + machine.uri;
    QStringList settings;
    if (!machine.sshKey.isEmpty())
        settings << QStringLiteral("ssh-key=") +
                        QString::fromLatin1(QUrl::toPercentEncoding(machine.sshKey));
    if (!machine.publicHostKey.isEmpty())
        settings << QStringLiteral("base64-ssh-public-host-key=") +
                        QString::fromLatin1(QUrl::toPercentEncoding(machine.publicHostKey));
    if (settings.isEmpty())
        return uri;
    return uri + (uri.contains(QLatin1Char('?')) ? QLatin1Char('&') : QLatin1Char('?')) +
           settings.join(QLatin1Char('&'));
}

void BuilderCheck::start(const QList<BuilderMachine>& machines, int timeoutMs,
                         const QString& sharedFor)
{
    const QString sshOptions = sharedFor.isEmpty() ? BuilderSshOptions::timeLimits
                                                   : BuilderSshOptions::forBuilders(sharedFor);
    m_results.clear();
    m_processes.clear();
    m_pending = int(machines.size());
    for (int i = 0; i < machines.size(); ++i) {
        m_results << BuilderHealth{machines[i].uri, machines[i].label(), false, {}, -1};
        auto* process = new QProcess(this);
        m_processes << process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        if (!env.contains(QStringLiteral("NIX_SSHOPTS")))
            env.insert(QStringLiteral("NIX_SSHOPTS"), sshOptions);
        process->setProcessEnvironment(env);
        auto clock = std::make_shared<QElapsedTimer>();
        clock->start();
        auto* limit = new QTimer(process);
        limit->setSingleShot(true);
        connect(limit, &QTimer::timeout, process,
                [this, i, process] { conclude(i, process, true); });
        connect(process, &QProcess::finished, this, [this, i, process, clock] {
            m_results[i].elapsedMs = clock->elapsed();
            conclude(i, process, false);
        });
        connect(process, &QProcess::errorOccurred, this,
                [this, i, process](QProcess::ProcessError e) {
                    if (e == QProcess::FailedToStart)
                        conclude(i, process, false);
                });
        process->start(QStringLiteral("nix"),
                       {QStringLiteral("--extra-experimental-features"),
                        QStringLiteral("nix-command"), QStringLiteral("store"),
                        QStringLiteral("ping"), QStringLiteral("--store"), storeUri(machines[i])});
        limit->start(timeoutMs);
    }
    if (m_pending == 0)
        QTimer::singleShot(0, this, &BuilderCheck::finished);
}

void BuilderCheck::conclude(int index, QProcess* process, bool timedOut)
{
    if (!m_processes.value(index))
        return; // answered already (a time limit and the exit can both arrive)
    m_processes[index] = nullptr;
    process->disconnect(this);
    BuilderHealth& health = m_results[index];
    health.answered = true;
    if (timedOut) {
        process->kill();
        health.message = tr("no answer within the time limit");
    } else if (process->error() == QProcess::FailedToStart) {
        health.message = tr("cannot start nix: %1").arg(process->errorString());
    } else if (process->exitStatus() == QProcess::NormalExit && process->exitCode() == 0) {
        health.up = true;
    } else {
        health.message = reasonOf(QString::fromUtf8(process->readAllStandardError()));
        if (health.message.isEmpty())
            health.message = tr("nix exited with code %1").arg(process->exitCode());
    }
    process->deleteLater();
    --m_pending;
    emit builderAnswered(index);
    if (m_pending == 0)
        emit finished();
}

} // namespace rg
