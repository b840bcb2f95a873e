#pragma once

// Two revisions' contents (PinContents) side by side, as a reviewer of a pin bump reads them:
// one row per value either revision holds, the rows whose values differ marked. A package set
// only one revision has gets its rows too, with "-" on the other side.

#include "eval/pininspection.h"

#include <string>
#include <vector>

namespace rg {

class PinComparison
{
public:
    struct Row
    {
        std::string label; // "torch (python313Packages)", "cuDNN (cudaPackages_12_9)"
        std::string before;
        std::string after;
        bool changed = false;
    };

    static std::vector<Row> of(const PinContents& before, const PinContents& after);
};

} // namespace rg
