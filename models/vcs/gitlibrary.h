#pragma once

// libgit2 must be initialised once per process before any call; every git user in RecipeGrid
// goes through here so the first caller, on whatever thread, does it exactly once.

#include <string>

namespace rg {

class GitLibrary
{
public:
    static void ensureInitialised();
    // The last libgit2 error of this thread, or `fallback` when libgit2 recorded none.
    static std::string lastError(const std::string& fallback = "unknown libgit2 error");
};

} // namespace rg
