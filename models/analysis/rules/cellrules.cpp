#include "analysis/rules/cellrules.h"

#include "analysis/rules/cellcheck.h"
#include "analysis/ruleset.h"

namespace rg {

// Files other recipes wrap are shared bases, not variants.
void CellRules::notAVariantName(CellCheck& c)
{
    if (c.placement != CellCheck::Placement::Unnamed || c.sharedBase)
        return;
    const RecipeFacts& recipe = *c.recipe;
    c.findings->push_back(RuleSet::make(
        rule::notAVariantName, recipe,
        "'" + recipe.fileName + "' is not a variant name (package-pythonXYZ-cudaX_Y-smNN-isa)"));
}

void CellRules::publishedAlias(CellCheck& c)
{
    if (c.placement != CellCheck::Placement::Alias)
        return;
    const RecipeFacts& recipe = *c.recipe;
    c.findings->push_back(RuleSet::make(rule::publishedAlias, recipe,
                                        recipe.fileName + " publishes the build of " +
                                            c.other->fileName + " under the name " +
                                            c.entry->variant.package + "-…"));
}

// A suffixed second recipe is reported by its suffix (NamingRules::naming), against the
// recipe of its cell.
void CellRules::duplicate(CellCheck& c)
{
    if (c.placement != CellCheck::Placement::Duplicate || !c.entry->variant.suffixes.empty())
        return;
    const RecipeFacts& recipe = *c.recipe;
    c.findings->push_back(
        RuleSet::make(rule::duplicateVariant, recipe,
                      recipe.fileName + " builds the same cell as " + c.other->fileName));
}

// A cell that cannot exist says so by its own rules; an inferred spec asks for every recipe
// it was inferred from.
void CellRules::unexpected(CellCheck& c)
{
    if (c.placement != CellCheck::Placement::Extra || c.entry->status == CellStatus::Impossible ||
        c.spec.isInferred())
        return;
    c.findings->push_back(RuleSet::make(rule::unexpectedVariant, *c.recipe,
                                        c.entry->variant.toString() + " is not in the spec"));
}

void CellRules::missing(CellCheck& c)
{
    if (c.placement != CellCheck::Placement::Missing)
        return;
    const Cell& entry = *c.entry;
    Finding finding;
    finding.ruleId = std::string(rule::missingVariant);
    finding.severity = Severity::Warning;
    finding.fix = FixKind::Create;
    finding.file = c.recipeDir + "/" + entry.variant.toString() + ".nix";
    finding.message = entry.variant.toString() + " is expected by the spec but has no recipe";
    // The spec asks for it, so it is missing, though it cannot work (spec-asks-impossible).
    if (entry.expectation && entry.expectation->askedForImpossible())
        finding.message += "; it cannot work: " + entry.expectation->feasibility.why();
    c.findings->push_back(std::move(finding));
}

void CellRules::gap(CellCheck& c)
{
    if (c.placement != CellCheck::Placement::Gap)
        return;
    const VariantName& name = c.entry->variant;
    Finding finding;
    finding.ruleId = std::string(rule::gap);
    finding.severity = Severity::Info;
    finding.fix = FixKind::Create;
    finding.file = c.recipeDir + "/" + name.toString() + ".nix";
    finding.message = name.toString() + ": " + std::to_string(c.suggestedBy) + " of the " +
                      std::to_string(c.peers) +
                      " archs here built for every ISA this arch is built for also have a " +
                      name.isa + " recipe; no spec says whether it is wanted";
    c.findings->push_back(std::move(finding));
}

} // namespace rg
