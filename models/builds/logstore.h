#pragma once

// Every job's whole log on disk, appended as it arrives: `<directory>/job-<id>.log`.
// Views keep only a tail in memory; this is the full text.

#include <QByteArray>
#include <QString>
#include <map>
#include <memory>

class QFile;

namespace rg {

class LogStore
{
public:
    // `directory` empty → `<AppDataLocation>/logs`.
    explicit LogStore(const QString& directory = {});
    ~LogStore();
    LogStore(const LogStore&) = delete;
    LogStore& operator=(const LogStore&) = delete;

    QString directory() const { return m_directory; }
    QString logPath(quint64 jobId) const;

    // Appends raw bytes (the child's output as it came) straight to the file; false with
    // `error()` ("<file>: No space left on device") when they are not all written.
    bool append(quint64 jobId, const QByteArray& bytes);
    // Flushes and closes the job's file; later appends reopen it.
    void close(quint64 jobId);
    // Writes buffered bytes so readers see everything appended so far.
    void flush(quint64 jobId);
    // The last `maxLines` lines of a log file (reading only its end), decoded as UTF-8.
    static QString readTail(const QString& logPath, int maxLines);
    // Copies a log to `destination` atomically (QSaveFile).
    static bool exportTo(const QString& logPath, const QString& destination, QString* error);

    QString error() const { return m_error; }

private:
    QString m_directory;
    QString m_error;
    std::map<quint64, std::unique_ptr<QFile>> m_open;
};

} // namespace rg
