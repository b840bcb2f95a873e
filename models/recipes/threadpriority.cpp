#include "recipes/threadpriority.h"

#if defined(__linux__)
#include <cerrno>
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace rg {

void lowerCurrentThreadPriority()
{
#if defined(__linux__)
    // On Linux, PRIO_PROCESS with a thread id sets that one thread's nice value.
    const id_t self = static_cast<id_t>(gettid());
    errno = 0;
    const int now = getpriority(PRIO_PROCESS, self);
    if (errno == 0 && now < 5)
        setpriority(PRIO_PROCESS, self, 5);
#endif
}

} // namespace rg
