#include "builds/logstore.h"

#include "vcs/atomicfile.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>

namespace rg {

LogStore::LogStore(const QString& directory)
    : m_directory(directory.isEmpty()
                      ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                            QStringLiteral("/logs")
                      : directory)
{}

LogStore::~LogStore() = default;

QString LogStore::logPath(quint64 jobId) const
{
    return QDir(m_directory).absoluteFilePath(QStringLiteral("job-%1.log").arg(jobId));
}

bool LogStore::append(quint64 jobId, const QByteArray& bytes)
{
    auto it = m_open.find(jobId);
    if (it == m_open.end()) {
        if (!QDir().mkpath(m_directory)) {
            m_error = QStringLiteral("%1: cannot create the log directory").arg(m_directory);
            return false;
        }
        auto file = std::make_unique<QFile>(logPath(jobId));
        // Unbuffered: a write that fails (a full disk) says so here, not in a later flush or a
        // close nobody checks.
        if (!file->open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Unbuffered)) {
            m_error = QStringLiteral("%1: %2").arg(file->fileName(), file->errorString());
            return false;
        }
        it = m_open.emplace(jobId, std::move(file)).first;
    }
    if (it->second->write(bytes) != bytes.size()) {
        m_error = QStringLiteral("%1: %2").arg(it->second->fileName(), it->second->errorString());
        return false;
    }
    return true;
}

void LogStore::close(quint64 jobId)
{
    m_open.erase(jobId); // QFile's destructor flushes and closes
}

void LogStore::flush(quint64 jobId)
{
    if (auto it = m_open.find(jobId); it != m_open.end())
        it->second->flush();
}

QString LogStore::readTail(const QString& logPath, int maxLines)
{
    QFile file(logPath);
    if (maxLines <= 0 || !file.open(QIODevice::ReadOnly))
        return {};
    // Read backwards in blocks until enough newlines are seen; a log may be gigabytes.
    const qint64 size = file.size();
    qint64 from = size;
    QByteArray tail;
    int newlines = 0;
    constexpr qint64 block = 1 << 20;
    while (from > 0 && newlines <= maxLines) {
        const qint64 start = qMax<qint64>(0, from - block);
        file.seek(start);
        const QByteArray chunk = file.read(from - start);
        newlines += int(chunk.count('\n'));
        tail.prepend(chunk);
        from = start;
    }
    // Keep the last maxLines lines; a trailing newline ends the last line, it does not start one.
    qsizetype pos = tail.endsWith('\n') ? tail.size() - 1 : tail.size();
    for (int i = 0; i < maxLines && pos > 0; ++i)
        pos = tail.lastIndexOf('\n', pos - 1);
    if (pos > 0 || (pos == 0 && tail.startsWith('\n')))
        tail.remove(0, pos + 1);
    return QString::fromUtf8(tail);
}

bool LogStore::exportTo(const QString& logPath, const QString& destination, QString* error)
{
    QFile in(logPath);
    if (!in.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(logPath, in.errorString());
        return false;
    }
    AtomicFile out(destination);
    if (!out.open()) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(destination, out.errorString());
        return false;
    }
    while (!in.atEnd()) {
        const QByteArray chunk = in.read(1 << 20);
        if (!out.append(chunk)) {
            if (error)
                *error = QStringLiteral("%1: %2").arg(destination, out.errorString());
            return false;
        }
    }
    if (!out.commit()) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(destination, out.errorString());
        return false;
    }
    return true;
}

} // namespace rg
