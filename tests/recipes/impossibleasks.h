#pragma once

// What seed 001's spec asks for that cannot work, for the suites that hold its repositories to
// "no finding" otherwise.

#include "analysis/analysis.h"
#include "analysis/ruleset.h"

#include <algorithm>

namespace rg::test {

// Seed 001's spec asks for sm110 and sm121 with the four x86 ISAs, which no machine can run:
// they stay expected, and the analysis says so once per pair (spec-asks-impossible).
inline constexpr int seed001ImpossibleAsks = 8;

// The findings of `analysis` besides what the spec asks for that cannot work.
inline int findingsBesidesImpossibleAsks(const Analysis& analysis)
{
    return analysis.findingCount() -
           int(std::count_if(
               analysis.repositoryFindings.begin(), analysis.repositoryFindings.end(),
               [](const Finding& f) { return f.ruleId == rule::specAsksImpossible; }));
}

} // namespace rg::test
