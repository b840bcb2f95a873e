#pragma once

// Where a variant's output is, as the store and the binary caches answered when asked
// (OutputPresence): built, in a cache, needing a build, or unknown.

#include <string>

namespace rg {

struct OutputState
{
    enum class Where {
        Unknown, // not asked, or Nix could not answer (`error` says why)
        Missing, // needs a build
        Built,   // valid in the store builds go to
        Cached,  // in the binary cache `cache`
    };
    Where where = Where::Unknown;
    std::string cache;
    std::string error;

    // "needs build", "built", "in cache URL", "unknown"
    std::string label() const;
    // "missing", "built", "cached", "unknown": for JSON and the grid
    std::string id() const;
};

} // namespace rg
