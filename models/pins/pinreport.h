#pragma once

// The pins of a repository written out, as `recipegrid pins` prints them: the inventory (per
// package × accelerator group, each pin with its count and marks, then the legend) and the
// alignment across branches, as text for people and JSON for scripts. Kept beside
// AnalysisReport so the window can export the same.

#include "pins/pinalignment.h"
#include "pins/pininventory.h"

#include <nlohmann/json.hpp>
#include <string>

namespace rg {

class PinReport
{
public:
    static std::string inventoryText(const PinInventory& inventory);
    // {"groups": [...], "legend": [...]}: merged into the command's document.
    static nlohmann::json inventoryJson(const PinInventory& inventory);
    // "\nALIGNMENT\n", a table with a MISMATCH column, then each column's error.
    static std::string alignmentText(const PinAlignment& alignment);
    static nlohmann::json alignmentJson(const PinAlignment& alignment);
};

} // namespace rg
