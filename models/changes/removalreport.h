#pragma once

// What a fix takes out of a recipe besides what its findings name: the lines it deletes, or
// rewrites beyond a changed value, outside every finding's range. A review lists them
// ("also removes 24 lines: cmakeFlags …, USE_FBGEMM=0 …") so that nothing the author wrote
// disappears unseen.

#include "nix/node.h"

#include <string>
#include <vector>

namespace rg {

class RemovalReport
{
public:
    // The removed lines of `before`, trimmed, in order: lines outside `named` that no line of
    // the same shape replaces (a changed value is no removal: LinePairing).
    static std::vector<std::string> outsideFindings(const std::string& before,
                                                    const std::string& after,
                                                    const std::vector<nix::SourceRange>& named);
    // "also removes 3 lines: export USE_FBGEMM=0, …" (at most `shown` of them quoted).
    static std::string summary(const std::vector<std::string>& lines, size_t shown = 3);
};

} // namespace rg
