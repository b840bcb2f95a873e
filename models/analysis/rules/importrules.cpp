#include "analysis/rules/importrules.h"

#include "analysis/rules/recipecheck.h"
#include "analysis/rules/repositorycheck.h"
#include "analysis/ruleset.h"
#include "vcs/repositorysource.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace rg {

using namespace ruletext;

// A sibling recipe imported by file name is a base this one builds on (a companion's
// torch): it must be of the same cell.
void ImportRules::imports(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    const VariantExpectation* e = c.expected();
    for (const Fact<std::string>& imported : f.importedFiles) {
        const std::string& path = imported.value;
        const auto base = VariantName::ofSiblingPath(path);
        if (!base || e->name.matchesBase(*base) || std::ranges::count(f.derivedFrom, path) > 0)
            continue;
        c.add(rule::importedCellMismatch,
              "imports " + path + " (" + whereIs(f, imported) + "), the recipe of " +
                  base->cellKey() + ": this " + e->name.package + " builds on it instead of on " +
                  e->name.cellKey(),
              imported.range);
    }
}

// A recipe whose arch and flags cannot be read is not "ok" by evidence: say it was not
// checked, and where its values come from when a builder module makes them.
void ImportRules::unread(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    const VariantExpectation* e = c.expected();
    if (f.pattern == PatternKind::Wrapper)
        return; // checked on its base
    // Only with evidence that values exist: a builder called with arguments, or a flag
    // setting whose value is unknown. A recipe that sets no flags at all is judged as it is.
    const std::string& builder =
        f.builderModule.empty() && !f.derivedFrom.empty() ? f.derivedFrom.front() : f.builderModule;
    std::vector<std::string> unread;
    if (e->name.accelerator == Accelerator::Cuda && !e->archNumber.empty() && f.archSinks.empty() &&
        !builder.empty())
        unread.push_back("GPU arch");
    if (e->isa && !e->isa->flags.empty() && !f.compilerFlags &&
        (!builder.empty() || !f.unreadFlagSinks.empty()))
        unread.push_back("compiler flags" + (f.unreadFlagSinks.empty()
                                                 ? std::string()
                                                 : " (" + f.unreadFlagSinks.front() + ")"));
    if (unread.empty())
        return;
    c.add(rule::valuesNotRead,
          "the " + unread.front() + (unread.size() > 1 ? " and the " + unread[1] : "") +
              " reaching the build could not be read" +
              (builder.empty() ? std::string()
               : f.builderModule.empty()
                   ? "; they are made by the function of " + builder +
                         ", called again with other arguments (.override), which RecipeGrid "
                         "does not follow"
                   : "; they are made in " + builder +
                         " from the arguments the recipe passes, and RecipeGrid could not "
                         "work them out there") +
              ": not checked");
}

// A thin wrapper takes its pin, overlays and torch from the file it wraps: the rules that
// depend on the variant are checked on that file for each wrapper, and point into that file.
// Rules that do not depend on the variant are reported once, on the base itself.
void ImportRules::inherited(RepositoryCheck& c)
{
    const auto& recipes = c.recipes;
    const std::vector<int>& bases = c.bases;
    std::vector<std::vector<Finding>>& findings = c.findings;
    static const std::set<std::string_view> inherited = {
        rule::pinMismatch,          rule::pinDiffersFromGroup,     rule::pinMissing,
        rule::missingOverlay,       rule::overlayDiffersFromGroup, rule::cudaVersionMismatch,
        rule::torchVersionMismatch, rule::pythonVersionMismatch,   rule::cpuRecipeCudaInputs,
        rule::cpuRecipeEnablesCuda};
    static const std::set<std::string_view> ofItsNixpkgs = {
        rule::pinMismatch, rule::pinDiffersFromGroup, rule::pinMissing, rule::missingOverlay,
        rule::overlayDiffersFromGroup};
    for (size_t i = 0; i < recipes.size(); ++i) {
        if (bases[i] < 0 || !recipes[i]->variant)
            continue;
        RecipeFacts asVariant = *recipes[static_cast<size_t>(bases[i])];
        asVariant.variant = recipes[i]->variant;
        std::set<std::string_view> own;
        for (const Finding& finding : findings[i])
            own.insert(finding.ruleId);
        // A recipe derived with `.override` may change any argument of its base: only where
        // its nixpkgs comes from is surely the base's.
        const auto& rules = recipes[i]->derivedFrom.empty() ? inherited : ofItsNixpkgs;
        for (Finding& finding : RuleSet::check(asVariant, c.expectations[i].get(), c.catalog))
            if (rules.count(finding.ruleId) && !own.count(finding.ruleId)) {
                finding.message += " (inherited from " + asVariant.fileName + ")";
                findings[i].push_back(std::move(finding));
            }
        RuleSet::sort(findings[i]);
    }
}

// An imported file that is not there stops Nix's evaluation ("path … does not exist").
void ImportRules::missingFiles(RepositoryCheck& c)
{
    const auto& recipes = c.recipes;
    std::vector<std::vector<Finding>>& findings = c.findings;
    std::map<std::string, bool> exists;
    for (size_t i = 0; i < recipes.size(); ++i) {
        const RecipeFacts& recipe = *recipes[i];
        const std::string directory = recipe.path.substr(0, recipe.path.rfind('/') + 1);
        for (const Fact<std::string>& imported : recipe.importedFiles) {
            if (!imported.value.starts_with("./") && !imported.value.starts_with("../"))
                continue;
            const std::string path = std::filesystem::path(directory + imported.value)
                                         .lexically_normal()
                                         .generic_string();
            auto known = exists.find(path);
            if (known == exists.end())
                known =
                    exists.emplace(path, path.starts_with("../") || c.source.exists(path)).first;
            if (known->second)
                continue;
            const std::string where =
                imported.in.empty()
                    ? "line " + std::to_string(recipe.position(imported.range.begin).line)
                    : imported.in;
            findings[i].push_back(
                RuleSet::make(rule::importedFileMissing, recipe,
                              "imports " + imported.value + " (" + where +
                                  "), which does not exist: Nix stops with \"path '" + path +
                                  "' does not exist\"",
                              imported.range));
            RuleSet::sort(findings[i]);
        }
    }
}

} // namespace rg
