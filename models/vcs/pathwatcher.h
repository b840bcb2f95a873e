#pragma once

// Watches a work tree's files and folders for changes from a thread of its own. Adding a
// watch is a system call per path: for 2,000 recipes that is 30-50 ms, which the GUI thread
// must not spend. watch() may be called from any thread and returns once the watches are in
// place, so a scan that watches before it reports cannot miss an edit made after its report.

#include <QObject>
#include <QStringList>
#include <QThread>

class QFileSystemWatcher;

namespace rg {

class PathWatcher : public QObject
{
    Q_OBJECT
public:
    explicit PathWatcher(QObject* parent = nullptr);
    ~PathWatcher() override;

    // Watches exactly `files` and `dirs` from now on. `generation` orders the calls of
    // concurrent scans: a call older than one already applied is ignored (a scan of the
    // repository opened before is finishing).
    void watch(quint64 generation, const QStringList& files, const QStringList& dirs);
    // Watches nothing from `generation` on. Returns at once (removing thousands of watches
    // takes a while); calls after it are applied after it.
    void clear(quint64 generation);

    QStringList watchedFiles() const;
    QStringList watchedDirectories() const;

signals:
    void changed(); // a watched file or folder changed (queued to this object's thread)

private:
    void apply(quint64 generation, const QStringList& files, const QStringList& dirs);
    template <typename Function> void runOnThread(Function&& function) const;

    QThread m_thread;
    QObject* m_context = nullptr;            // lives in m_thread; calls are queued to it
    QFileSystemWatcher* m_watcher = nullptr; // lives in m_thread
    quint64 m_generation = 0;                // touched in m_thread only
};

} // namespace rg
