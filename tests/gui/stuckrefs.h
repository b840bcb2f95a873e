#pragma once

// A git repository whose packed refs hang: `.git/packed-refs` is a FIFO, so libgit2 blocks
// reading it, as it would on a hung network mount, until release(). For tests that what reads
// git runs off the GUI thread: returnsWithin() says whether a call came back while git was
// stuck, and frees git if it did not, so that such a test fails instead of hanging.

#include <QDeadlineTimer>
#include <QFile>
#include <QString>
#include <QThread>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <fcntl.h>
#include <functional>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace rg::test {

class StuckRefs
{
public:
    explicit StuckRefs(const QString& repositoryRoot)
        : m_path(QFile::encodeName(repositoryRoot + QStringLiteral("/.git/packed-refs")))
    {
        ::unlink(m_path.constData());
        m_valid = ::mkfifo(m_path.constData(), 0600) == 0;
    }
    StuckRefs(const StuckRefs&) = delete;
    ~StuckRefs() { release(); }

    bool isValid() const { return m_valid; }

    // Git's reader, once it opens the FIFO, reads an empty file, and every later read finds a
    // regular empty file there. Waits up to 10 s for a reader; false when none came.
    bool release()
    {
        if (!m_valid)
            return false;
        m_valid = false;
        int fd = -1;
        const QDeadlineTimer deadline(10000);
        while ((fd = ::open(m_path.constData(), O_WRONLY | O_NONBLOCK)) < 0 && errno == ENXIO &&
               !deadline.hasExpired())
            QThread::msleep(5);
        const QByteArray plain = m_path + ".plain";
        const int made = ::open(plain.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (made >= 0)
            ::close(made);
        ::rename(plain.constData(), m_path.constData());
        if (fd < 0)
            return false;
        ::close(fd);
        return true;
    }

private:
    QByteArray m_path;
    bool m_valid = false;
};

// Runs `call` and says whether it returned within `seconds`; if it did not, `refs` is released
// from another thread meanwhile, so that a call waiting for git ends.
inline bool returnsWithin(int seconds, StuckRefs& refs, const std::function<void()>& call)
{
    std::mutex mutex;
    std::condition_variable returned;
    bool done = false;
    bool late = false;
    std::thread watchdog([&] {
        std::unique_lock lock(mutex);
        if (!returned.wait_for(lock, std::chrono::seconds(seconds), [&] { return done; })) {
            late = true;
            refs.release();
        }
    });
    call();
    {
        std::lock_guard lock(mutex);
        done = true;
    }
    returned.notify_one();
    watchdog.join();
    return !late;
}

} // namespace rg::test
