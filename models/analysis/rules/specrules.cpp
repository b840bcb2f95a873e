#include "analysis/rules/specrules.h"

#include "analysis/rules/speccheck.h"
#include "analysis/ruleset.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace rg {

void SpecRules::inferred(SpecCheck& c)
{
    Analysis& analysis = c.analysis;
    if (!analysis.spec.isInferred())
        return;
    Finding note;
    note.file = analysis.specPath;
    if (analysis.specError) {
        note.ruleId = std::string(rule::specInvalid);
        note.severity = Severity::Error;
        note.message = analysis.specError->toString() + " (the spec was inferred instead)";
        note.line = static_cast<uint32_t>(std::max(0, analysis.specError->line));
        note.column = static_cast<uint32_t>(std::max(0, analysis.specError->column));
    } else {
        note.ruleId = std::string(rule::specInferred);
        note.severity = Severity::Info;
        note.message = "no matrix spec at " + std::string(MatrixSpec::defaultPath) +
                       "; the expected matrix is what the " + std::to_string(c.inferredFrom) +
                       " recipes build, and cells they only suggest are gaps";
    }
    analysis.repositoryFindings.push_back(std::move(note));
}

// A spec file decides what is expected, so a variant it asks for stays expected (missing until
// created) even when it cannot work; the user hears of it once per reason, with the variants
// it covers, so that the spec can be mended where that was not meant. An inferred spec asks for
// nothing: the recipes in such cells are impossible by their own rules.
void SpecRules::asksForImpossible(SpecCheck& c)
{
    Analysis& analysis = c.analysis;
    std::map<std::string, std::vector<std::string>> variantsBy; // reason → variants
    // reason → the first place in the spec that asks for one of them
    std::map<std::string, std::pair<int, int>> positionBy;
    for (const Cell& cell : analysis.cells) {
        const VariantExpectation* e = cell.expectation.get();
        if (!e || !e->askedForImpossible())
            continue;
        const std::string& why = e->feasibility.why();
        variantsBy[why].push_back(cell.variant.toString());
        const std::pair<int, int> at = analysis.spec.positionAskingFor(cell.variant);
        if (std::pair<int, int>& first = positionBy[why]; at.first > 0)
            first = first.first > 0 ? std::min(first, at) : at;
    }
    for (auto& [why, variants] : variantsBy) {
        std::sort(variants.begin(), variants.end());
        Finding finding;
        finding.ruleId = std::string(rule::specAsksImpossible);
        finding.severity = Severity::Warning;
        finding.file = analysis.specPath;
        finding.line = static_cast<uint32_t>(positionBy[why].first);
        finding.column = static_cast<uint32_t>(positionBy[why].second);
        std::string list;
        for (const std::string& v : variants)
            list += (list.empty() ? "" : ", ") + v;
        const bool one = variants.size() == 1;
        finding.message =
            "the spec asks for " +
            (one ? list : std::to_string(variants.size()) + " variants (" + list + ")") +
            ", which cannot work: " + why + " (" + (one ? "it stays" : "they stay") + " expected)";
        analysis.repositoryFindings.push_back(std::move(finding));
    }
}

} // namespace rg
