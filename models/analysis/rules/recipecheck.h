#pragma once

// One recipe being judged: what the per-recipe rules read (its facts, the expectation of its
// cell, the catalog) and where their findings go.

#include "analysis/finding.h"
#include "facts/recipefacts.h"
#include "matrix/catalog.h"
#include "matrix/variantexpectation.h"

#include <string>
#include <string_view>
#include <vector>

namespace rg {

class RecipeCheck
{
public:
    // `expected` is null for a recipe whose file name is no variant; `builtBy` is the recipe
    // that already builds this one's cell when this one is a second recipe of it (what its
    // suffix is then reported against), else null.
    RecipeCheck(const RecipeFacts& facts, const VariantExpectation* expected,
                const Catalog& catalog, const RecipeFacts* builtBy = nullptr);

    const RecipeFacts& facts() const { return m_facts; }
    const VariantExpectation* expected() const { return m_expected; }
    const Catalog& catalog() const { return m_catalog; }
    const RecipeFacts* builtBy() const { return m_builtBy; }

    // A finding of rule `id` positioned in this recipe; the reference lets the rule that made
    // it adjust what only it knows (a fix other than the rule's usual one).
    Finding& add(std::string_view id, std::string message, nix::SourceRange range = {});
    void add(Finding finding);
    // A finding on a value the build makes (arch, flags, platforms, package sets, CUDA). A
    // recipe derived from a sibling with `.override` may write the wrong value nowhere in
    // itself: then the message adds that the recipe leaves that value to the one it overrides.
    Finding& addMadeValue(std::string_view id, std::string message, nix::SourceRange range = {});

    // The findings, most severe first.
    std::vector<Finding> take();

private:
    const RecipeFacts& m_facts;
    const VariantExpectation* m_expected;
    const Catalog& m_catalog;
    const RecipeFacts* m_builtBy;
    std::vector<Finding> m_findings;
};

// How the rules' messages quote what a recipe says and where it says it.
namespace ruletext {

std::string inQuotes(std::string_view text);
std::string listText(const std::vector<std::string>& items); // ["a" "b"]
std::string lineOf(const RecipeFacts& facts, nix::SourceRange range);
// Where a pin is written: "line 11", or "written in .flox/pkgs/lib/pin.nix:7" for a module's.
std::string whereIs(const RecipeFacts& facts, const PinFact& pin);
// Where a fact is: "line 11", or where a builder module makes it.
template <typename T> std::string whereIs(const RecipeFacts& facts, const Fact<T>& fact)
{
    return fact.in.empty() ? lineOf(facts, fact.range) : fact.in;
}
// A finding's range in the recipe: none for a pin written in a module.
nix::SourceRange rangeOf(const PinFact& pin);

} // namespace ruletext

} // namespace rg
