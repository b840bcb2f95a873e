#pragma once

// The fewest flags to take out of and put into a recipe's flag list so that it builds an ISA
// by effect (CpuFeatureSet), keeping every flag that does not stand in the way: the author's
// -mno-… workarounds, -O levels, a -march= that already gives the features.
//  - Out go the flags that on their own enable a feature the ISA forbids or switch off one it
//    requires; from a list that held another ISA's flags (one of a bigger ISA, most of this
//    ISA's flags absent, or another catalog ISA's list exactly) also the flags this ISA's own
//    flags imply or that are not this ISA's.
//  - In go the catalog flags that supply a missing required feature (and, for a list that held
//    another ISA's, a missing recommended one), each placed by its catalog neighbours.

#include "matrix/catalog.h"

#include <optional>
#include <string>
#include <vector>

namespace rg {

struct FlagRepair
{
    struct Insertion
    {
        size_t anchor = 0; // a kept flag's index in the list
        bool after = true; // after it, or before it
        std::string flag;
        bool first = false; // no kept flag places it: it leads the list
    };

    std::vector<size_t> removed; // indexes into the list
    std::vector<Insertion> inserted;

    // nullopt: no such edit makes `have` build `isa`.
    static std::optional<FlagRepair> of(const std::vector<std::string>& have, const CpuIsa& isa,
                                        const Catalog& catalog);
};

} // namespace rg
