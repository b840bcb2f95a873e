#pragma once

// How recipes are evaluated: where the repository is, which local nixpkgs stands for which
// pinned revision, which store Nix uses, and the limits one recipe's evaluation gets.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rg {

struct EvalSettings
{
    std::string repoRoot; // absolute, no trailing '/'
    // Revision (40 hex digits) → local nixpkgs directory or tarball, used instead of fetching.
    std::map<std::string, std::string> sources;
    std::string defaultNixpkgs; // for recipes that are functions of a package set; "" for none
    std::string store;          // Nix's --store; "" for Nix's own default
    int timeoutSeconds = 300;   // per recipe: a recipe that recurses forever is stopped
    int64_t memoryLimitBytes = int64_t(6) << 30; // per Nix process (its address space)
    int jobs = 0;                                // Nix processes at once; 0: the number of cores
    std::string cacheDir;                        // "" for no cache
    // Binary caches a built output may be in (OutputPresence), asked in order after `store`.
    std::vector<std::string> binaryCaches;
};

// One recipe to evaluate.
struct EvalItem
{
    std::string path;       // relative to the repository root
    std::string pin;        // the nixpkgs revision it pins, "" when unknown
    std::string contentKey; // RecipeContentKey of the recipe; "" to skip the cache
};

} // namespace rg
