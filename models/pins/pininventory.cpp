#include "pins/pininventory.h"

#include "analysis/recipegrouping.h"
#include "matrix/versionspelling.h"

#include <algorithm>
#include <map>

namespace rg {

namespace {

struct Sighting
{
    const RecipeFacts* recipe = nullptr;
    const Cell* entry = nullptr; // null for unnamed files
};

// The package an unnamed file belongs to is unknown; it still pins nixpkgs, so it is listed
// rather than dropped from the inventory a bump works from.
constexpr const char* unnamedPackage = "(unnamed files)";

PinUse useOf(const RecipeFacts& recipe, const Cell* entry, const PinFact& pin)
{
    PinUse use;
    use.path = recipe.path;
    if (entry) {
        use.variant = entry->variant.toString();
        use.cellKey = entry->id.toKey();
    }
    use.line = static_cast<int>(recipe.position(pin.range.begin).line);
    use.hasHash = pin.hasHash;
    return use;
}

using Groups = std::map<std::pair<std::string, std::string>, PinGroup>;

PinGroup& groupFor(const Analysis& analysis, const Sighting& s, Groups* groups)
{
    const VariantName* name = s.entry ? &s.entry->variant : nullptr;
    const std::string package = s.entry ? s.entry->package : unnamedPackage;
    const std::string accelerator = name ? RecipeGrouping::acceleratorLabel(*name) : "";
    PinGroup& group = (*groups)[{package, accelerator}];
    if (group.package.empty()) {
        group.package = package;
        group.accelerator = accelerator;
        group.acceleratorId = name ? PinInventory::acceleratorIdOf(*name) : "";
        if (name && !analysis.spec.isInferred())
            group.specPin = analysis.spec.expectedPin(*name).value_or("");
    }
    return group;
}

// False when the recipe was already counted on this pin (it writes the revision twice).
bool addUse(const Sighting& s, const PinFact& pin, PinGroup* group)
{
    auto found = std::find_if(group->pins.begin(), group->pins.end(),
                              [&](const PinEntry& e) { return e.revision == pin.revision; });
    if (found == group->pins.end()) {
        PinEntry entry;
        entry.revision = pin.revision;
        entry.shortForm = shortRevision(pin.revision);
        entry.notFullRevision = !isFullRevision(pin.revision);
        group->pins.push_back(std::move(entry));
        found = group->pins.end() - 1;
    } else if (found->recipes.back().path == s.recipe->path) {
        return false;
    }
    ++found->count;
    found->withoutHash += pin.hasHash ? 0 : 1;
    found->recipes.push_back(useOf(*s.recipe, s.entry, pin));
    return true;
}

bool mostUsedFirst(const PinEntry& a, const PinEntry& b)
{
    return a.count != b.count ? a.count > b.count : a.revision < b.revision;
}

} // namespace

std::string PinInventory::acceleratorIdOf(const VariantName& name)
{
    switch (name.accelerator) {
    case Accelerator::Cuda:
        return "cuda" + name.cuda;
    case Accelerator::Cpu:
        return "cpu";
    case Accelerator::Darwin:
        return "darwin";
    }
    return {};
}

PinInventory PinInventory::of(const Analysis& analysis)
{
    std::vector<Sighting> sightings;
    for (const Cell& entry : analysis.cells)
        if (entry.recipe)
            sightings.push_back({entry.recipe.get(), &entry});
    for (const RecipeFacts& facts : analysis.unnamed)
        sightings.push_back({&facts, nullptr});

    PinInventory inventory;
    Groups groups;
    std::map<std::string, int> totals;
    std::map<std::string, std::string> cellPins; // cell key → its first recipe's first pin
    for (const Sighting& s : sightings) {
        PinGroup& group = groupFor(analysis, s, &groups);
        for (const PinFact& pin : s.recipe->pins)
            if (addUse(s, pin, &group))
                ++totals[pin.revision];
        if (s.entry && !s.recipe->pins.empty())
            cellPins.emplace(s.entry->id.toKey(), s.recipe->pins.front().revision);
    }

    for (auto& [key, group] : groups) {
        if (group.pins.empty())
            continue;
        std::sort(group.pins.begin(), group.pins.end(), mostUsedFirst);
        group.dominantPin = group.pins.front().revision;
        for (PinEntry& entry : group.pins) {
            std::sort(entry.recipes.begin(), entry.recipes.end(),
                      [](const PinUse& a, const PinUse& b) { return a.path < b.path; });
            entry.differsFromSpec = !group.specPin.empty() && entry.revision != group.specPin;
            entry.differsFromGroup = entry.revision != group.dominantPin;
        }
        inventory.m_groups.push_back(std::move(group));
    }

    for (const auto& [revision, count] : totals)
        inventory.m_legend.push_back({revision, shortRevision(revision), count});
    std::sort(inventory.m_legend.begin(), inventory.m_legend.end(),
              [](const PinLegendEntry& a, const PinLegendEntry& b) {
                  return a.count != b.count ? a.count > b.count : a.revision < b.revision;
              });
    for (const auto& cellPin : cellPins) {
        // Not a structured binding: clang 14, which builds the fuzz targets, cannot capture one.
        const std::string& revision = cellPin.second;
        const auto at =
            std::find_if(inventory.m_legend.begin(), inventory.m_legend.end(),
                         [&](const PinLegendEntry& e) { return e.revision == revision; });
        inventory.m_cells.emplace_back(cellPin.first,
                                       static_cast<int>(at - inventory.m_legend.begin()));
    }
    return inventory;
}

int PinInventory::legendIndexOfCell(const std::string& cellKey) const
{
    const auto it = std::lower_bound(
        m_cells.begin(), m_cells.end(), cellKey,
        [](const std::pair<std::string, int>& a, const std::string& key) { return a.first < key; });
    return it != m_cells.end() && it->first == cellKey ? it->second : -1;
}

std::string PinInventory::pinOfCell(const std::string& cellKey) const
{
    const int index = legendIndexOfCell(cellKey);
    return index < 0 ? std::string() : m_legend[static_cast<size_t>(index)].revision;
}

std::vector<PinUse> PinInventory::recipesOn(const std::string& revision) const
{
    std::vector<PinUse> out;
    for (const PinGroup& group : m_groups)
        for (const PinEntry& entry : group.pins)
            if (entry.revision == revision)
                out.insert(out.end(), entry.recipes.begin(), entry.recipes.end());
    std::sort(out.begin(), out.end(),
              [](const PinUse& a, const PinUse& b) { return a.path < b.path; });
    return out;
}

int PinInventory::recipeCount(const std::string& revision) const
{
    for (const PinLegendEntry& entry : m_legend)
        if (entry.revision == revision)
            return entry.count;
    return 0;
}

std::vector<std::string> PinInventory::revisions() const
{
    std::vector<std::string> out;
    for (const PinLegendEntry& entry : m_legend)
        out.push_back(entry.revision);
    return out;
}

} // namespace rg
