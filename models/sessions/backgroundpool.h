#pragma once

// The thread pool RecipeGrid's background work runs on: scans, plans, applies, pin listings,
// evaluations, the preview's reads. Never Qt's global pool: Qt 6.4's raster engine splits the
// GUI thread's large fills and image conversions across the global pool and waits for the
// pieces, so a long task holding one of its threads stalls every paint until it ends.

#include <QFuture>
#include <exception>

class QThreadPool;

namespace rg {

// Made on first use; owned by the application object when there is one (its destruction
// waits for the tasks still running), else kept for the life of the process.
QThreadPool* backgroundPool();

// A finished task's outcome; a task that threw gives an outcome whose `error` holds what it
// threw (QtConcurrent passes the exception on to result()).
template <typename Outcome> Outcome outcomeOf(const QFuture<Outcome>& future)
{
    try {
        return future.result();
    } catch (const std::exception& error) {
        Outcome outcome;
        outcome.error = error.what();
        return outcome;
    }
}

} // namespace rg
