#include "vcs/atomicfile.h"

namespace rg {

AtomicFile::AtomicFile(const QString& path) : m_file(path) {}

bool AtomicFile::fail()
{
    m_error = m_file.errorString();
    m_file.cancelWriting();
    return false;
}

bool AtomicFile::open()
{
    if (!m_file.open(QIODevice::WriteOnly)) {
        m_error = m_file.errorString();
        return false;
    }
    return true;
}

bool AtomicFile::append(QByteArrayView bytes)
{
    if (m_file.write(bytes.data(), bytes.size()) != bytes.size())
        return fail();
    return true;
}

bool AtomicFile::commit()
{
    if (!m_file.flush() || m_file.error() != QFileDevice::NoError)
        return fail();
    if (!m_file.commit()) {
        m_error = m_file.errorString();
        return false;
    }
    return true;
}

void AtomicFile::cancel()
{
    m_file.cancelWriting();
}

QString AtomicFile::write(const QString& path, QByteArrayView bytes)
{
    AtomicFile file(path);
    if (file.open() && file.append(bytes) && file.commit())
        return {};
    return file.errorString();
}

} // namespace rg
