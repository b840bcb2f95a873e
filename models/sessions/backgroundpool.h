#pragma once

// The thread pool RecipeGrid's background work runs on: scans, plans, applies, pin listings,
// evaluations, the preview's reads. Never Qt's global pool: Qt 6.4's raster engine splits the
// GUI thread's large fills and image conversions across the global pool and waits for the
// pieces, so a long task holding one of its threads stalls every paint until it ends.

#include <QFuture>
#include <exception>
#include <functional>
#include <memory>
#include <utility>

class QThreadPool;

namespace rg {

// Made on first use; owned by the application object when there is one (its destruction
// waits for the tasks still running), else kept for the life of the process.
QThreadPool* backgroundPool();

// Runs `free` on the background pool when called on the GUI thread of a running application,
// else at once on the calling thread.
void freeOffTheGuiThread(std::function<void()> free);

// The deleter of a value shared with the GUI thread that is freed off it when its last owner
// lets go there. A branch's analysis is some hundred thousand allocations: freeing one of 2,000
// recipes stalled the window some 13 ms each time a new analysis replaced it, in whichever
// widget let go of it last.
template <typename T> struct FreeOffTheGuiThread
{
    void operator()(T* value) const
    {
        freeOffTheGuiThread([value] { delete value; });
    }
};

template <typename T, typename... Args>
std::shared_ptr<T> makeSharedFreedOffTheGuiThread(Args&&... args)
{
    return std::shared_ptr<T>(new T(std::forward<Args>(args)...), FreeOffTheGuiThread<T>{});
}

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
