#pragma once

// What a nixpkgs pin bump is asked to do: from which revision to which, in which scope, and
// what besides the recipes' pins it updates. The alignment view makes requests and the bump
// planner (changes/pinbumpplanner) carries them out; both speak this vocabulary.

#include <map>
#include <string>
#include <vector>

namespace rg {

// Which recipes a bump may touch; every non-empty field must match (an empty scope: all).
struct PinBumpScope
{
    std::vector<std::string> cells; // what CellSelector reads: cell keys, variant names
                                    // or recipe paths; any of them
    std::string package;            // "pytorch"
    std::string accelerator;        // PinInventory::acceleratorIdOf: "cuda12.9", "cpu", "darwin"
    std::string python;             // dotted "3.13" (an alignment row)

    bool isAll() const
    {
        return cells.empty() && package.empty() && accelerator.empty() && python.empty();
    }
    friend bool operator==(const PinBumpScope&, const PinBumpScope&) = default;
};

struct PinBumpRequest
{
    std::string from; // a revision the recipes write, as written: full, abbreviated, a branch
    std::string to;   // 40 lower-case hex digits
    PinBumpScope scope;
    bool renamePythonSet = false;
    bool readme = false;
    bool docs = false;
    // Hash of the new pin's source, keyed by the fetcher's URL after the bump or by the new
    // revision: "https://github.com/NixOS/nixpkgs/archive/<to>.tar.gz" → "0abc…" / "sha256-…".
    std::map<std::string, std::string> newHashes;

    friend bool operator==(const PinBumpRequest&, const PinBumpRequest&) = default;
};

} // namespace rg
