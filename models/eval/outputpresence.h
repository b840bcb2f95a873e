#pragma once

// Whether a variant's output is built already, asked of Nix's own store queries: valid in the
// store builds go to (`nix-store --check-validity --print-invalid`), else in the first binary
// cache named that has it (the same query against the cache's URL), else it needs a build.
// What must be rebuilt is then the outputs Missing. Blocking: runs processes, so call it off
// the GUI thread.

#include "eval/evaluatedrecipe.h"
#include "eval/nixinstallation.h"
#include "eval/outputstate.h"

#include <string>
#include <vector>

namespace rg {

class OutputPresence
{
public:
    // One state per path, in order; a path that is "" stays Unknown ("not evaluated").
    // `store`: Nix's --store for the local store ("" for Nix's default); `caches`: binary cache
    // URLs (https://cache.nixos.org, file:///srv/cache, s3://…), asked in order.
    static std::vector<OutputState> of(const NixInstallation& nix, const std::string& store,
                                       const std::vector<std::string>& caches,
                                       const std::vector<std::string>& outPaths);
    // Sets `output` of each result that evaluated; the others' stays Unknown.
    static void fill(const NixInstallation& nix, const std::string& store,
                     const std::vector<std::string>& caches, std::vector<EvaluatedRecipe>& results);
};

} // namespace rg
