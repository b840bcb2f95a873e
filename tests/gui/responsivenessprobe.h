#pragma once

// Measures how long the GUI thread stops answering: a timer on it fires every 10 ms, and the
// largest delay between when a tick was due and when it came is kept. A GUI that waits on a
// process or a disk shows it as a lateness of that wait. Time the thread spent runnable but
// waiting for a CPU (Linux's schedstat run-queue wait) is taken off: on two cores the Nix
// children of an evaluation can hold both, and the scheduler's delay is not the window's stall.

#include <QElapsedTimer>
#include <QFile>
#include <QObject>
#include <QTimer>

namespace rg::test {

class ResponsivenessProbe : public QObject
{
public:
    static constexpr int intervalMs = 10;
    // What a user notices as a stall; tick scheduling on a loaded machine stays well below.
    static constexpr qint64 budgetMs = 50;

    ResponsivenessProbe()
    {
        m_timer.setInterval(intervalMs);
        m_timer.setTimerType(Qt::PreciseTimer);
        QObject::connect(&m_timer, &QTimer::timeout, this, [this] {
            const qint64 now = m_clock.elapsed();
            const qint64 waited = runQueueWaitNs();
            qint64 late = now - m_last - intervalMs;
            if (waited >= 0 && m_lastWaited >= 0)
                late -= (waited - m_lastWaited) / 1000000;
            if (late > m_maxLateness) {
                m_maxLateness = late;
                m_worstAt = now;
            }
            m_last = now;
            m_lastWaited = waited;
            ++m_ticks;
        });
    }

    void start()
    {
        m_maxLateness = 0;
        m_worstAt = 0;
        m_ticks = 0;
        m_clock.start();
        m_last = 0;
        m_lastWaited = runQueueWaitNs();
        m_timer.start();
    }
    void stop() { m_timer.stop(); }

    qint64 maxLatenessMs() const { return m_maxLateness; }
    qint64 worstAtMs() const { return m_worstAt; } // when the longest stall ended, from start()
    int ticks() const { return m_ticks; }

private:
    // Nanoseconds the calling thread has waited runnable for a CPU, or -1 where unknown.
    static qint64 runQueueWaitNs()
    {
        QFile file(QStringLiteral("/proc/thread-self/schedstat"));
        if (!file.open(QIODevice::ReadOnly))
            return -1;
        const QList<QByteArray> fields = file.readAll().split(' ');
        bool ok = false;
        const qint64 waited = fields.size() >= 2 ? fields[1].toLongLong(&ok) : -1;
        return ok ? waited : -1;
    }

    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    qint64 m_lastWaited = -1;
    qint64 m_maxLateness = 0;
    qint64 m_worstAt = 0;
    int m_ticks = 0;
};

} // namespace rg::test
