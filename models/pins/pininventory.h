#pragma once

// Every nixpkgs pin a branch's recipes write, with the recipes that write it, grouped by
// package and accelerator (CUDA version, CPU-only, Darwin): what the pins view lists, what
// "colour the grid by pin" colours by, and what a pin bump offers as from-pins. Only pins a
// recipe writes count: a wrapper that callPackages another recipe has none of its own, so
// bumping it would change nothing. Value type; built on any thread from an Analysis.

#include "analysis/analysis.h"

#include <string>
#include <vector>

namespace rg {

// One recipe on a pin.
struct PinUse
{
    std::string path;     // relative to the repository root
    std::string variant;  // "pytorch-python313-cuda12_9-sm90-avx512"; "" for unnamed files
    std::string cellKey;  // "pytorch:python313-cuda12_9-sm90-avx512"; "" for unnamed files
    int line = 0;         // 1-based line of the revision string
    bool hasHash = false; // the fetcher pins a hash (sha256 / hash / narHash)
};

// One pin within a package × accelerator group.
struct PinEntry
{
    std::string revision;        // as written in the recipes
    std::string shortForm;       // the first 7 characters
    int count = 0;               // recipes of the group on it
    std::vector<PinUse> recipes; // sorted by path
    // Marks. A pin can carry several at once.
    bool differsFromSpec = false;  // the spec file names another pin for this accelerator
    bool differsFromGroup = false; // not the group's dominant pin
    bool notFullRevision = false;  // not 40 lower-case hex digits: not reproducible
    int withoutHash = 0;           // recipes whose fetcher pins no hash
};

struct PinGroup
{
    std::string package;        // "pytorch", "vllm"
    std::string accelerator;    // "CUDA 12.9", "CPU-only", "Darwin" (RecipeGrouping's label)
    std::string acceleratorId;  // "cuda12.9", "cuda", "cpu", "darwin": a bump scope's word
    std::string specPin;        // the spec file's pin for it; "" when inferred or not named
    std::string dominantPin;    // the most used pin of the group
    std::vector<PinEntry> pins; // most used first, then by revision
};

struct PinLegendEntry
{
    std::string revision;
    std::string shortForm;
    int count = 0; // recipes on it across all groups
};

class PinInventory
{
public:
    static PinInventory of(const Analysis& analysis);

    const std::vector<PinGroup>& groups() const { return m_groups; }
    // Every distinct pin, most used first (ties by revision): the legend of "colour by pin".
    // A pin's index in it is stable for an unchanged repository, so colours are too.
    const std::vector<PinLegendEntry>& legend() const { return m_legend; }
    // Index into legend() of the pin of a cell (the first pin of its first recipe that writes
    // one); -1 when the cell is missing or its recipes pin nothing.
    int legendIndexOfCell(const std::string& cellKey) const;
    std::string pinOfCell(const std::string& cellKey) const; // "" as above
    // Recipes (any group) writing `revision`, sorted by path.
    std::vector<PinUse> recipesOn(const std::string& revision) const;
    int recipeCount(const std::string& revision) const;
    // Every pin written, for resolving an abbreviated pin the user types.
    std::vector<std::string> revisions() const;

    // "cuda12.9" / "cuda" / "cpu" / "darwin" for a variant name.
    static std::string acceleratorIdOf(const VariantName& name);

private:
    std::vector<PinGroup> m_groups;
    std::vector<PinLegendEntry> m_legend;
    std::vector<std::pair<std::string, int>> m_cells; // sorted cell key → legend index
};

} // namespace rg
