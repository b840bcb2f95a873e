#include "sessions/backgroundpool.h"

#include <QCoreApplication>
#include <QThread>
#include <QThreadPool>

namespace rg {

QThreadPool* backgroundPool()
{
    static QThreadPool* const pool = [] {
        auto* made = new QThreadPool(QCoreApplication::instance());
        made->setObjectName(QStringLiteral("RecipeGrid background"));
        return made;
    }();
    return pool;
}

void freeOffTheGuiThread(std::function<void()> free)
{
    // The application's destructor clears instance() before it deletes the pool, its child,
    // which waits for what was handed to it: nothing is handed to a pool that is going.
    const QCoreApplication* application = QCoreApplication::instance();
    if (!application || QThread::currentThread() != application->thread()) {
        free();
        return;
    }
    backgroundPool()->start(std::move(free));
}

} // namespace rg
