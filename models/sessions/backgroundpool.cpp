#include "sessions/backgroundpool.h"

#include <QCoreApplication>
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

} // namespace rg
