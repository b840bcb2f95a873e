#include "pins/pinprefetcher.h"

#include <QProcess>
#include <QTimer>

namespace rg {

namespace {

QStringList argumentsFor(const std::string& url, bool unpack)
{
    QStringList arguments;
    if (unpack)
        arguments << QStringLiteral("--unpack");
    // "--" so a URL can never be taken for an option.
    arguments << QStringLiteral("--") << QString::fromStdString(url);
    return arguments;
}

// Nix repeats its error as warnings while it retries; the last "error:" line is the verdict.
std::string nixMessage(const QByteArray& standardError)
{
    const QList<QByteArray> lines = standardError.trimmed().split('\n');
    for (auto it = lines.crbegin(); it != lines.crend(); ++it)
        if (it->trimmed().startsWith("error:"))
            return it->trimmed().toStdString();
    return lines.isEmpty() ? std::string() : lines.back().trimmed().toStdString();
}

// stdout is the hash (and the store path with --print-path, which is not passed).
std::string hashFrom(const QByteArray& standardOutput)
{
    const QList<QByteArray> lines = standardOutput.trimmed().split('\n');
    return lines.isEmpty() ? std::string() : lines.front().trimmed().toStdString();
}

PrefetchResult resultOf(const std::string& url, const QProcess& process, const QByteArray& out,
                        const QByteArray& err, bool timedOut, int timeout)
{
    PrefetchResult result;
    result.url = url;
    if (timedOut) {
        result.error = url + ": no answer within " +
                       (timeout >= 1000 ? std::to_string(timeout / 1000) + " s"
                                        : std::to_string(timeout) + " ms") +
                       "; the download was stopped";
    } else if (process.error() == QProcess::FailedToStart) {
        result.error = url + ": cannot run " + process.program().toStdString() + " (" +
                       process.errorString().toStdString() + "); is Nix installed?";
    } else if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        const std::string message = nixMessage(err);
        result.error = url + ": " +
                       (message.empty() ? "nix-prefetch-url failed (exit status " +
                                              std::to_string(process.exitCode()) + ")"
                                        : message);
    } else {
        result.hash = hashFrom(out);
        if (result.hash.empty())
            result.error = url + ": nix-prefetch-url printed no hash";
    }
    return result;
}

} // namespace

PinPrefetcher::PinPrefetcher(QObject* parent) : QObject(parent) {}

PinPrefetcher::~PinPrefetcher()
{
    // Nothing may be reported, let alone started, from an object being destroyed.
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(5000);
    }
}

void PinPrefetcher::setProgram(const QString& program)
{
    m_program = program;
}

void PinPrefetcher::setTimeout(int milliseconds)
{
    m_timeout = milliseconds;
}

void PinPrefetcher::setEnvironment(const QProcessEnvironment& environment)
{
    m_environment = environment;
}

bool PinPrefetcher::isRunning() const
{
    return m_process != nullptr;
}

void PinPrefetcher::start(const std::vector<std::string>& urls, bool unpack)
{
    if (isRunning())
        return;
    m_urls = urls;
    m_unpack = unpack;
    m_next = 0;
    m_results.clear();
    m_cancelled = false;
    startNext();
}

void PinPrefetcher::cancel()
{
    m_cancelled = true;
    if (m_process)
        m_process->kill();
}

void PinPrefetcher::startNext()
{
    if (m_next >= m_urls.size() || m_cancelled) {
        emit finished();
        return;
    }
    const QString url = QString::fromStdString(m_urls[m_next]);
    emit started(static_cast<int>(m_next), static_cast<int>(m_urls.size()), url);
    m_stderr.clear();
    m_timedOut = false;
    m_process = new QProcess(this);
    m_process->setProcessEnvironment(m_environment);
    connect(m_process, &QProcess::readyReadStandardError, this, [this, url] {
        const QByteArray chunk = m_process->readAllStandardError();
        m_stderr += chunk;
        for (const QByteArray& line : chunk.split('\n'))
            if (!line.trimmed().isEmpty())
                emit output(url, QString::fromUtf8(line.trimmed()));
    });
    connect(m_process, &QProcess::finished, this, &PinPrefetcher::onProcessFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            onProcessFinished();
    });
    m_timer = new QTimer(m_process);
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, [this] {
        m_timedOut = true;
        m_process->kill();
    });
    m_timer->start(m_timeout);
    m_process->start(m_program, argumentsFor(m_urls[m_next], m_unpack));
}

void PinPrefetcher::onProcessFinished()
{
    QProcess* process = m_process;
    if (!process)
        return;
    m_process = nullptr;
    m_timer = nullptr;
    const std::string url = m_urls[m_next];
    PrefetchResult result =
        resultOf(url, *process, process->readAllStandardOutput(),
                 m_stderr + process->readAllStandardError(), m_timedOut, m_timeout);
    if (m_cancelled && !result.ok())
        result.error = url + ": cancelled";
    process->deleteLater();
    m_results.push_back(result);
    if (result.ok())
        emit fetched(QString::fromStdString(url), QString::fromStdString(result.hash));
    else
        emit failed(QString::fromStdString(url), QString::fromStdString(result.error));
    ++m_next;
    startNext();
}

PrefetchResult PinPrefetcher::fetch(const std::string& url, bool unpack, int timeoutMilliseconds,
                                    const QString& program, const QProcessEnvironment& environment)
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(program, argumentsFor(url, unpack));
    bool timedOut = false;
    if (process.waitForStarted(timeoutMilliseconds) &&
        !process.waitForFinished(timeoutMilliseconds)) {
        timedOut = true;
        process.kill();
        process.waitForFinished(5000);
    }
    return resultOf(url, process, process.readAllStandardOutput(), process.readAllStandardError(),
                    timedOut, timeoutMilliseconds);
}

} // namespace rg
