#include "pins/pinreport.h"

#include "analysis/analysisreport.h"
#include "matrix/versionspelling.h"

#include <algorithm>

namespace rg {

namespace {

const char* const dot = " \xc2\xb7 "; // " · "

std::string marksOf(const PinEntry& pin, const PinGroup& group)
{
    std::vector<std::string> marks;
    if (pin.differsFromSpec)
        marks.push_back("differs from the spec's " + shortRevision(group.specPin));
    if (pin.differsFromGroup)
        marks.push_back("not the group's dominant " + shortRevision(group.dominantPin));
    if (pin.notFullRevision)
        marks.push_back("not a full revision");
    if (pin.withoutHash > 0)
        marks.push_back(std::to_string(pin.withoutHash) + " without a hash");
    std::string out;
    for (const std::string& mark : marks)
        out += (out.empty() ? "  [" : ", ") + mark;
    return out.empty() ? out : out + "]";
}

std::string cellText(const AlignmentCell& cell)
{
    if (cell.pins.empty())
        return "-";
    std::string out;
    for (const auto& [pin, count] : cell.pins)
        out += (out.empty() ? "" : " + ") + AnalysisReport::printable(shortRevision(pin)) + " (" +
               std::to_string(count) + ")";
    return out;
}

} // namespace

std::string PinReport::inventoryText(const PinInventory& inventory)
{
    std::string out;
    for (const PinGroup& group : inventory.groups()) {
        out += "\n" + AnalysisReport::printable(group.package) + dot + group.accelerator;
        if (!group.specPin.empty())
            out += " (spec: " + shortRevision(group.specPin) + ")";
        out += "\n";
        for (const PinEntry& pin : group.pins)
            out += "  " + AnalysisReport::printable(pin.shortForm) + "  " +
                   AnalysisReport::printable(pin.revision) + "  " + std::to_string(pin.count) +
                   (pin.count == 1 ? " recipe" : " recipes") + marksOf(pin, group) + "\n";
    }
    out += "\nLegend:";
    for (const PinLegendEntry& entry : inventory.legend())
        out += "  " + AnalysisReport::printable(entry.shortForm) + " (" +
               std::to_string(entry.count) + ")";
    return out + "\n";
}

nlohmann::json PinReport::inventoryJson(const PinInventory& inventory)
{
    nlohmann::json groups = nlohmann::json::array();
    for (const PinGroup& group : inventory.groups()) {
        nlohmann::json pins = nlohmann::json::array();
        for (const PinEntry& pin : group.pins) {
            nlohmann::json recipes = nlohmann::json::array();
            for (const PinUse& use : pin.recipes)
                recipes.push_back({{"path", use.path},
                                   {"variant", use.variant},
                                   {"line", use.line},
                                   {"hasHash", use.hasHash}});
            pins.push_back({{"revision", pin.revision},
                            {"short", pin.shortForm},
                            {"count", pin.count},
                            {"differsFromSpec", pin.differsFromSpec},
                            {"differsFromGroup", pin.differsFromGroup},
                            {"notFullRevision", pin.notFullRevision},
                            {"withoutHash", pin.withoutHash},
                            {"recipes", std::move(recipes)}});
        }
        groups.push_back(
            {{"package", group.package},
             {"accelerator", group.accelerator},
             {"acceleratorId", group.acceleratorId},
             {"specPin", group.specPin.empty() ? nlohmann::json() : nlohmann::json(group.specPin)},
             {"dominantPin", group.dominantPin},
             {"pins", std::move(pins)}});
    }
    nlohmann::json legend = nlohmann::json::array();
    for (const PinLegendEntry& entry : inventory.legend())
        legend.push_back(
            {{"revision", entry.revision}, {"short", entry.shortForm}, {"count", entry.count}});
    return {{"groups", std::move(groups)}, {"legend", std::move(legend)}};
}

std::string PinReport::alignmentText(const PinAlignment& alignment)
{
    std::vector<std::vector<std::string>> table{{"package", "python", "accelerator"}};
    for (const AlignmentColumn& column : alignment.columns())
        table.front().push_back(AnalysisReport::printable(column.label));
    for (const AlignmentRow& row : alignment.rows()) {
        std::vector<std::string> line{AnalysisReport::printable(row.key.package), row.key.python,
                                      row.key.accelerator};
        for (const AlignmentCell& cell : row.cells)
            line.push_back(cellText(cell));
        line.push_back(row.mismatch ? "MISMATCH" : "");
        table.push_back(std::move(line));
    }
    std::vector<size_t> widths;
    for (const auto& line : table)
        for (size_t i = 0; i < line.size(); ++i) {
            widths.resize(std::max(widths.size(), i + 1));
            widths[i] = std::max(widths[i], line[i].size());
        }
    std::string out = "\nALIGNMENT\n";
    for (const auto& line : table) {
        std::string text;
        for (size_t i = 0; i < line.size(); ++i)
            text += line[i] + std::string(widths[i] - line[i].size() + 2, ' ');
        out += text.substr(0, text.find_last_not_of(' ') + 1) + "\n";
    }
    for (const AlignmentColumn& column : alignment.columns())
        if (!column.error.empty())
            out += AnalysisReport::printable(column.label) + ": " +
                   AnalysisReport::printable(column.error) + "\n";
    return out;
}

nlohmann::json PinReport::alignmentJson(const PinAlignment& alignment)
{
    nlohmann::json columns = nlohmann::json::array();
    for (const AlignmentColumn& column : alignment.columns())
        columns.push_back(
            {{"label", column.label},
             {"repository", column.source.repository},
             {"revision", column.source.revision},
             {"commit",
              column.commitId.empty() ? nlohmann::json() : nlohmann::json(column.commitId)},
             {"recipes", column.recipes},
             {"error", column.error.empty() ? nlohmann::json() : nlohmann::json(column.error)}});
    nlohmann::json rows = nlohmann::json::array();
    for (const AlignmentRow& row : alignment.rows()) {
        nlohmann::json cells = nlohmann::json::array();
        for (const AlignmentCell& cell : row.cells) {
            nlohmann::json pins = nlohmann::json::object();
            for (const auto& [pin, count] : cell.pins)
                pins[pin] = count;
            cells.push_back(
                {{"pin", cell.pins.empty() ? nlohmann::json() : nlohmann::json(cell.pin())},
                 {"pins", std::move(pins)}});
        }
        rows.push_back({{"package", row.key.package},
                        {"python", row.key.python},
                        {"accelerator", row.key.accelerator},
                        {"acceleratorId", row.key.acceleratorId},
                        {"cells", std::move(cells)},
                        {"mismatch", row.mismatch}});
    }
    return {{"columns", std::move(columns)}, {"rows", std::move(rows)}};
}

} // namespace rg
