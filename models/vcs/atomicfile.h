#pragma once

// Writes a whole file so that readers see the old bytes or the new ones, never a mixture, and
// so that any failure — a full disk included — is reported and leaves the old file in place.
// Qt 6.4's QSaveFile::commit() returns true after a buffered write failed with ENOSPC and
// renames the short temporary file over the target; every write here is flushed and its
// error checked before the commit.

#include <QByteArrayView>
#include <QSaveFile>
#include <QString>

namespace rg {

class AtomicFile
{
public:
    explicit AtomicFile(const QString& path);

    bool open();
    bool append(QByteArrayView bytes);
    // Flushes, checks and renames over the target; false (target untouched) on any error.
    bool commit();
    // Drops what was written; the target stays as it was.
    void cancel();
    QString errorString() const { return m_error; }

    // The whole file at once: "" when written, else the OS error text.
    static QString write(const QString& path, QByteArrayView bytes);

private:
    bool fail();

    QSaveFile m_file;
    QString m_error;
};

} // namespace rg
