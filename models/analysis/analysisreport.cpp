#include "analysis/analysisreport.h"

#include "analysis/matrixcounts.h"
#include "analysis/ruleset.h"

#include <nlohmann/json.hpp>
#include <set>

namespace rg {

using nlohmann::ordered_json;

namespace {

template <typename Visit> void forEachFinding(const Analysis& analysis, Visit&& visit)
{
    for (const Cell& entry : analysis.cells)
        for (const Finding& finding : entry.findings)
            visit(finding);
    for (const Finding& finding : analysis.repositoryFindings)
        visit(finding);
}

ordered_json findingJson(const Finding& finding)
{
    ordered_json json;
    json["ruleId"] = finding.ruleId;
    json["severity"] = severityId(finding.severity);
    json["message"] = finding.message;
    json["file"] = finding.file;
    json["line"] = finding.line;
    json["column"] = finding.column;
    json["fix"] = fixKindId(finding.fix);
    return json;
}

std::string_view sarifLevel(Severity severity)
{
    switch (severity) {
    case Severity::Error:
        return "error";
    case Severity::Warning:
        return "warning";
    case Severity::Info:
        return "note";
    }
    return "note";
}

struct Palette
{
    bool on = false;
    std::string paint(std::string_view text, std::string_view code) const
    {
        if (!on)
            return std::string(text);
        return "\x1b[" + std::string(code) + "m" + std::string(text) + "\x1b[0m";
    }
};

std::string_view statusColor(CellStatus status)
{
    switch (status) {
    case CellStatus::Ok:
        return "32";
    case CellStatus::Broken:
        return "1;31";
    case CellStatus::Redundant:
        return "33";
    case CellStatus::Missing:
        return "36";
    case CellStatus::Unexpected:
        return "35";
    case CellStatus::Unchecked:
        return "34";
    case CellStatus::Impossible:
    case CellStatus::Gap:
        return "2";
    }
    return "0";
}

std::string_view severityColor(Severity severity)
{
    switch (severity) {
    case Severity::Error:
        return "31";
    case Severity::Warning:
        return "33";
    case Severity::Info:
        return "34";
    }
    return "0";
}

// A path as a URI reference (RFC 3986): every byte outside the unreserved set and '/' is
// percent-encoded, so spaces, newlines and UTF-8 in file names still make a valid URI.
std::string uriPath(std::string_view path)
{
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : path) {
        const auto byte = static_cast<unsigned char>(c);
        const bool unreserved = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
                                (byte >= '0' && byte <= '9') || byte == '-' || byte == '.' ||
                                byte == '_' || byte == '~' || byte == '/';
        if (unreserved) {
            out += c;
        } else {
            out += '%';
            out += hex[byte >> 4];
            out += hex[byte & 15];
        }
    }
    return out;
}

} // namespace

std::string AnalysisReport::printable(std::string_view text)
{
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f) {
            out += "\\x";
            out += hex[byte >> 4];
            out += hex[byte & 15];
        } else {
            out += c;
        }
    }
    return out;
}

namespace {

std::string overlayText(const std::vector<OverlayKind>& overlays)
{
    if (overlays.empty())
        return "none";
    std::string text;
    for (OverlayKind kind : overlays)
        text += (text.empty() ? "" : ", ") + std::string(overlayKindId(kind));
    return text;
}

std::string upper(std::string_view text)
{
    std::string out(text);
    for (char& c : out)
        if (c >= 'a' && c <= 'z')
            c = static_cast<char>(c - 'a' + 'A');
    return out;
}

std::string findingLine(const Finding& finding, const Palette& palette, bool withFile)
{
    std::string where;
    if (withFile && !finding.file.empty())
        where = AnalysisReport::printable(finding.file);
    if (finding.line > 0)
        where += (where.empty() ? "" : ":") + std::to_string(finding.line) + ":" +
                 std::to_string(finding.column);
    std::string severity(severityId(finding.severity));
    severity.resize(7, ' ');
    return "    " + palette.paint(severity, severityColor(finding.severity)) + " " +
           (where.empty() ? std::string() : where + "  ") + palette.paint(finding.ruleId, "1") +
           "  " + AnalysisReport::printable(finding.message) + "\n";
}

ordered_json summaryJson(const Analysis& analysis)
{
    ordered_json summary;
    const MatrixCounts matrixCounts = MatrixCounts::of(analysis);
    summary["expected"] = matrixCounts.expectedTotal();
    summary["notExpected"] = matrixCounts.notExpectedTotal();
    const auto counts = matrixCounts.byStatus();
    for (int i = 0; i < cellStatusCount; ++i)
        summary[std::string(cellStatusId(static_cast<CellStatus>(i)))] =
            counts[static_cast<size_t>(i)];
    int errors = 0, warnings = 0, infos = 0;
    forEachFinding(analysis, [&](const Finding& f) {
        (f.severity == Severity::Error     ? errors
         : f.severity == Severity::Warning ? warnings
                                           : infos)++;
    });
    summary["findings"] = errors + warnings + infos;
    summary["errors"] = errors;
    summary["warnings"] = warnings;
    summary["infos"] = infos;
    return summary;
}

ordered_json entryJson(const Cell& entry)
{
    ordered_json item;
    item["variant"] = entry.variant.toString();
    item["status"] = cellStatusId(entry.status);
    item["expected"] = entry.expected;
    item["file"] = entry.recipe ? ordered_json(entry.recipe->path) : ordered_json(nullptr);
    item["reason"] = entry.reason;
    if (entry.recipe) {
        ordered_json facts;
        facts["pattern"] = patternKindId(entry.recipe->pattern);
        ordered_json pins = ordered_json::array();
        for (const PinFact& pin : entry.recipe->pins)
            pins.push_back(pin.revision);
        facts["pins"] = pins;
        facts["torchVersion"] = entry.recipe->torchVersion
                                    ? ordered_json(entry.recipe->torchVersion->value)
                                    : ordered_json(nullptr);
        facts["pname"] =
            entry.recipe->pname ? ordered_json(entry.recipe->pname->value) : ordered_json(nullptr);
        item["facts"] = facts;
    }
    ordered_json findings = ordered_json::array();
    for (const Finding& finding : entry.findings)
        findings.push_back(findingJson(finding));
    item["findings"] = findings;
    return item;
}

ordered_json groupJson(const RecipeGroup& group)
{
    const GroupProfile& profile = group.profile;
    ordered_json item;
    item["label"] = profile.label;
    item["pin"] = profile.pin.empty() ? ordered_json(nullptr) : ordered_json(profile.pin);
    ordered_json overlays = ordered_json::array();
    for (OverlayKind kind : profile.overlays)
        overlays.push_back(overlayKindId(kind));
    item["overlays"] = overlays;
    item["canonical"] =
        profile.canonical.empty() ? ordered_json(nullptr) : ordered_json(profile.canonical);
    item["canonicalWhy"] = profile.canonicalWhy;
    item["files"] = group.files;
    return item;
}

} // namespace

int AnalysisReport::problemCount(const Analysis& analysis)
{
    int count = 0;
    forEachFinding(analysis, [&](const Finding& finding) {
        count += finding.severity == Severity::Info ? 0 : 1;
    });
    return count;
}

std::string AnalysisReport::json(const Analysis& analysis, const ReportContext& context)
{
    ordered_json root;
    root["schema"] = 1;
    root["repository"] = context.repository;
    root["revision"] =
        context.revision.empty() ? ordered_json(nullptr) : ordered_json(context.revision);
    root["recipeDir"] = analysis.recipeDir;
    ordered_json spec;
    spec["path"] =
        analysis.specPath.empty() ? ordered_json(nullptr) : ordered_json(analysis.specPath);
    spec["inferred"] = analysis.spec.isInferred();
    spec["error"] =
        analysis.specError ? ordered_json(analysis.specError->toString()) : ordered_json(nullptr);
    root["spec"] = spec;
    root["summary"] = summaryJson(analysis);
    ordered_json entries = ordered_json::array();
    for (const Cell& entry : analysis.cells)
        entries.push_back(entryJson(entry));
    root["entries"] = entries;
    ordered_json repository = ordered_json::array();
    for (const Finding& finding : analysis.repositoryFindings)
        repository.push_back(findingJson(finding));
    root["repositoryFindings"] = repository;
    ordered_json groups = ordered_json::array();
    for (const RecipeGroup& group : analysis.groups)
        groups.push_back(groupJson(group));
    root["groups"] = groups;
    ordered_json unnamed = ordered_json::array();
    for (const RecipeFacts& facts : analysis.unnamed)
        unnamed.push_back(facts.path);
    root["unnamed"] = unnamed;
    return root.dump(2) + "\n";
}

std::string AnalysisReport::sarif(const Analysis& analysis, const ReportContext& context)
{
    ordered_json rules = ordered_json::array();
    std::map<std::string, size_t> ruleIndex;
    for (const RuleInfo& info : RuleSet::rules()) {
        ordered_json rule;
        rule["id"] = info.id;
        rule["name"] = info.id;
        rule["shortDescription"] = {{"text", info.title}};
        rule["fullDescription"] = {{"text", info.description}};
        rule["defaultConfiguration"] = {{"level", sarifLevel(info.severity)}};
        ruleIndex[std::string(info.id)] = rules.size();
        rules.push_back(std::move(rule));
    }
    ordered_json results = ordered_json::array();
    forEachFinding(analysis, [&](const Finding& finding) {
        ordered_json result;
        result["ruleId"] = finding.ruleId;
        if (auto it = ruleIndex.find(finding.ruleId); it != ruleIndex.end())
            result["ruleIndex"] = it->second;
        result["level"] = sarifLevel(finding.severity);
        result["message"] = {{"text", finding.message}};
        if (!finding.file.empty()) {
            ordered_json physical;
            physical["artifactLocation"] = {{"uri", uriPath(finding.file)},
                                            {"uriBaseId", "SRCROOT"}};
            if (finding.line > 0) {
                ordered_json region;
                region["startLine"] = finding.line;
                region["startColumn"] = std::max<uint32_t>(1, finding.column);
                physical["region"] = region;
            }
            result["locations"] = ordered_json::array({{{"physicalLocation", physical}}});
        }
        result["properties"] = {{"fix", fixKindId(finding.fix)}};
        results.push_back(std::move(result));
    });

    ordered_json driver;
    driver["name"] = "RecipeGrid";
    if (!context.toolVersion.empty())
        driver["version"] = context.toolVersion;
    driver["rules"] = rules;
    ordered_json run;
    run["tool"] = {{"driver", driver}};
    std::string root = context.repository;
    if (!root.empty() && root.back() != '/')
        root += '/';
    run["originalUriBaseIds"] = {{"SRCROOT", {{"uri", "file://" + uriPath(root)}}}};
    if (!context.revision.empty())
        run["properties"] = {{"revision", context.revision}};
    run["results"] = results;

    ordered_json log;
    log["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
    log["version"] = "2.1.0";
    log["runs"] = ordered_json::array({run});
    return log.dump(2) + "\n";
}

std::string AnalysisReport::text(const Analysis& analysis, const ReportContext& context, bool color)
{
    const Palette palette{color};
    std::string out;
    out += palette.paint("recipegrid check", "1") + ": " +
           AnalysisReport::printable(context.repository) +
           (context.revision.empty() ? std::string() : " @ " + context.revision) + " (" +
           analysis.recipeDir + ")\n";
    if (analysis.specError)
        out += "spec: " + palette.paint("invalid", "31") + " — " + analysis.specError->toString() +
               "; inferred from the recipes instead\n";
    else if (analysis.spec.isInferred())
        out += "spec: none found; inferred from the recipes\n";
    else
        out += "spec: " + analysis.specPath + "\n";
    out += analysis.summary() + "\n";

    static constexpr CellStatus order[] = {CellStatus::Broken,     CellStatus::Unchecked,
                                           CellStatus::Redundant,  CellStatus::Unexpected,
                                           CellStatus::Impossible, CellStatus::Missing,
                                           CellStatus::Gap,        CellStatus::Ok};
    for (CellStatus status : order) {
        std::vector<const Cell*> group;
        for (const Cell& entry : analysis.cells)
            if (entry.status == status)
                group.push_back(&entry);
        if (group.empty())
            continue;
        std::sort(group.begin(), group.end(), [](const Cell* a, const Cell* b) {
            const std::string& pa = a->recipe ? a->recipe->path : a->variant.toString();
            const std::string& pb = b->recipe ? b->recipe->path : b->variant.toString();
            return pa < pb;
        });
        out +=
            "\n" +
            palette.paint(upper(cellStatusId(status)) + " (" + std::to_string(group.size()) + ")",
                          statusColor(status)) +
            "\n";
        for (const Cell* entry : group) {
            if (status == CellStatus::Missing || status == CellStatus::Gap) {
                out += "  " + entry->variant.toString() + "\n";
                continue;
            }
            out += "  " +
                   AnalysisReport::printable(entry->recipe ? entry->recipe->path
                                                           : entry->variant.toString()) +
                   "\n";
            for (const Finding& finding : entry->findings)
                out += findingLine(finding, palette, false);
        }
    }
    if (!analysis.groups.empty()) {
        out += "\n" +
               palette.paint("GROUPS (" + std::to_string(analysis.groups.size()) + ")", "1") + "\n";
        for (const RecipeGroup& group : analysis.groups) {
            const GroupProfile& profile = group.profile;
            out += "  " + profile.label + " — " + std::to_string(profile.members) + " recipe" +
                   (profile.members == 1 ? "" : "s") + ", overlays " +
                   overlayText(profile.overlays) + "\n    canonical: " +
                   (profile.canonical.empty()
                        ? std::string("none (no recipe carries the group's "
                                      "overlay set cleanly)")
                        : profile.canonical + " (" + profile.canonicalWhy + ")") +
                   "\n";
        }
    }
    if (!analysis.repositoryFindings.empty()) {
        out += "\n" + palette.paint("REPOSITORY", "1") + "\n";
        for (const Finding& finding : analysis.repositoryFindings)
            out += findingLine(finding, palette, true);
    }
    int errors = 0, warnings = 0, infos = 0;
    forEachFinding(analysis, [&](const Finding& f) {
        (f.severity == Severity::Error     ? errors
         : f.severity == Severity::Warning ? warnings
                                           : infos)++;
    });
    out += "\n" + std::to_string(errors) + " error" + (errors == 1 ? "" : "s") + ", " +
           std::to_string(warnings) + " warning" + (warnings == 1 ? "" : "s") + ", " +
           std::to_string(infos) + " note" + (infos == 1 ? "" : "s") + "\n";
    return out;
}

} // namespace rg
