#include "vcs/pathwatcher.h"

#include <QFileSystemWatcher>
#include <set>

namespace rg {

PathWatcher::PathWatcher(QObject* parent) : QObject(parent)
{
    m_thread.setObjectName(QStringLiteral("PathWatcher"));
    m_context = new QObject;
    m_context->moveToThread(&m_thread);
    m_thread.start();
    // Created in its thread, so its inotify notifier belongs to that thread's event loop.
    runOnThread([this] {
        m_watcher = new QFileSystemWatcher(m_context);
        connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &PathWatcher::changed);
        connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, &PathWatcher::changed);
    });
}

PathWatcher::~PathWatcher()
{
    runOnThread([this] { delete m_context; });
    m_thread.quit();
    m_thread.wait();
}

template <typename Function> void PathWatcher::runOnThread(Function&& function) const
{
    if (QThread::currentThread() == &m_thread)
        function();
    else
        QMetaObject::invokeMethod(m_context, std::forward<Function>(function),
                                  Qt::BlockingQueuedConnection);
}

void PathWatcher::watch(quint64 generation, const QStringList& files, const QStringList& dirs)
{
    runOnThread([&] { apply(generation, files, dirs); });
}

void PathWatcher::clear(quint64 generation)
{
    QMetaObject::invokeMethod(
        m_context, [this, generation] { apply(generation, {}, {}); }, Qt::QueuedConnection);
}

QStringList PathWatcher::watchedFiles() const
{
    QStringList files;
    runOnThread([&] { files = m_watcher->files(); });
    return files;
}

QStringList PathWatcher::watchedDirectories() const
{
    QStringList dirs;
    runOnThread([&] { dirs = m_watcher->directories(); });
    return dirs;
}

void PathWatcher::apply(quint64 generation, const QStringList& files, const QStringList& dirs)
{
    if (generation < m_generation)
        return;
    m_generation = generation;
    // A file replaced by rename drops out of the watcher by itself; re-adding what is
    // missing keeps edits by any editor visible.
    const QStringList watchedFiles = m_watcher->files();
    const QStringList watchedDirs = m_watcher->directories();
    const std::set<QString> wanted(files.begin(), files.end());
    const std::set<QString> wantedDirs(dirs.begin(), dirs.end());
    QStringList stale;
    for (const QString& file : watchedFiles) {
        if (!wanted.count(file))
            stale << file;
    }
    for (const QString& dir : watchedDirs) {
        if (!wantedDirs.count(dir))
            stale << dir;
    }
    if (!stale.isEmpty())
        m_watcher->removePaths(stale);
    std::set<QString> have(watchedFiles.begin(), watchedFiles.end());
    have.insert(watchedDirs.begin(), watchedDirs.end());
    QStringList add;
    for (const QString& path : files + dirs) {
        if (!have.count(path))
            add << path;
    }
    if (!add.isEmpty())
        m_watcher->addPaths(add);
}

} // namespace rg
