#include "vcs/gitlibrary.h"

#include <git2.h>

namespace rg {

namespace {

// A function-local static is initialised exactly once even under concurrent first calls.
// libgit2 stays initialised until the process ends. Shutting it down during static destruction
// raced the worker threads still alive then: the shutdown deletes libgit2's thread-state key, so
// a worker's state is never freed (LeakSanitizer caught it, now and then, in CLI runs), and a
// worker still inside a git call would lose the global state under it.
struct Initialiser
{
    Initialiser() { git_libgit2_init(); }
};

} // namespace

void GitLibrary::ensureInitialised()
{
    static Initialiser initialiser;
}

std::string GitLibrary::lastError(const std::string& fallback)
{
    const git_error* error = git_error_last();
    if (!error || !error->message)
        return fallback;
    return error->message;
}

} // namespace rg
