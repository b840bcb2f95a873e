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
        QObject::connect(&m_timer, &QTimer::timeout, this, &ResponsivenessProbe::tick);
    }

    void start()
    {
        m_maxLateness = 0;
        m_worstAt = 0;
        m_worst = {};
        m_worstSpanMs = 0;
        m_ticks = 0;
        m_clock.start();
        m_last = 0;
        m_lastCounters = Counters::now();
        m_timer.start();
    }
    // The figures go to the log whether the test passes or not: the margin left, and where the
    // longest stall's time went: running, waiting for a CPU, or off the CPU (asleep: the event
    // loop's own wait for the tick, a lock, the disk).
    void stop()
    {
        // A stall still going on (stop() called from inside it, or the stretch ended before the
        // next tick could come) counts up to now.
        if (m_timer.isActive())
            tick();
        m_timer.stop();
        const qint64 running = m_worst.runningNs / 1000000;
        const qint64 waiting = m_worst.waitingNs / 1000000;
        qInfo("responsiveness: GUI thread late by at most %lld ms, %lld ms after start; of the "
              "%lld ms between its ticks it ran %lld ms, waited for a CPU %lld ms and slept "
              "%lld ms, and %lld page faults read the disk; %d ticks",
              m_maxLateness, m_worstAt, m_worstSpanMs, running, waiting,
              m_worstSpanMs - running - waiting, m_worst.majorFaults, m_ticks);
    }

    qint64 maxLatenessMs() const { return m_maxLateness; }
    qint64 worstAtMs() const { return m_worstAt; } // when the longest stall ended, from start()
    int ticks() const { return m_ticks; }

private:
    void tick()
    {
        const qint64 now = m_clock.elapsed();
        const Counters counters = Counters::now();
        qint64 late = now - m_last - intervalMs;
        if (counters.known && m_lastCounters.known)
            late -= (counters.waitingNs - m_lastCounters.waitingNs) / 1000000;
        if (late > m_maxLateness) {
            m_maxLateness = late;
            m_worstAt = now;
            m_worst = counters.since(m_lastCounters);
            m_worstSpanMs = now - m_last;
        }
        m_last = now;
        m_lastCounters = counters;
        ++m_ticks;
    }

    // The calling thread's counters from Linux's /proc/thread-self: time on a CPU and time
    // runnable but waiting for one (schedstat), and page faults that read from disk (stat).
    struct Counters
    {
        bool known = false;
        qint64 runningNs = 0;
        qint64 waitingNs = 0;
        qint64 majorFaults = 0;

        static Counters now()
        {
            Counters counters;
            const QList<QByteArray> sched = read("schedstat").split(' ');
            bool running = false;
            bool waiting = false;
            if (sched.size() >= 2) {
                counters.runningNs = sched[0].toLongLong(&running);
                counters.waitingNs = sched[1].toLongLong(&waiting);
            }
            counters.known = running && waiting;
            // Fields after the command name, which may hold spaces, start after its closing
            // ')'; majflt is field 12 of stat, the 10th after the name.
            const QByteArray stat = read("stat");
            const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
            counters.majorFaults = fields.size() > 9 ? fields[9].toLongLong() : 0;
            return counters;
        }
        Counters since(const Counters& before) const
        {
            return {known && before.known, runningNs - before.runningNs,
                    waitingNs - before.waitingNs, majorFaults - before.majorFaults};
        }
        static QByteArray read(const char* name)
        {
            QFile file(QStringLiteral("/proc/thread-self/") + QLatin1String(name));
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        }
    };

    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    Counters m_lastCounters;
    Counters m_worst;
    qint64 m_worstSpanMs = 0;
    qint64 m_maxLateness = 0;
    qint64 m_worstAt = 0;
    int m_ticks = 0;
};

} // namespace rg::test
