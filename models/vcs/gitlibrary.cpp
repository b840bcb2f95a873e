#include "vcs/gitlibrary.h"

#include <git2.h>

namespace rg {

namespace {

// A function-local static is initialised exactly once even under concurrent first calls.
struct Initialiser
{
    Initialiser() { git_libgit2_init(); }
    ~Initialiser() { git_libgit2_shutdown(); }
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
