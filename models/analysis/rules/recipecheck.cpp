#include "analysis/rules/recipecheck.h"

#include "analysis/ruleset.h"

namespace rg {

RecipeCheck::RecipeCheck(const RecipeFacts& facts, const VariantExpectation* expected,
                         const Catalog& catalog, const RecipeFacts* builtBy)
    : m_facts(facts), m_expected(expected), m_catalog(catalog), m_builtBy(builtBy)
{}

Finding& RecipeCheck::add(std::string_view id, std::string message, nix::SourceRange range)
{
    m_findings.push_back(RuleSet::make(id, m_facts, std::move(message), range));
    return m_findings.back();
}

Finding& RecipeCheck::addMadeValue(std::string_view id, std::string message, nix::SourceRange range)
{
    const RecipeFacts& f = m_facts;
    if (!f.derivedFrom.empty() && !f.builderModule.empty() &&
        message.find(f.path) == std::string::npos)
        message += "; this recipe overrides " + f.derivedFrom.front() +
                   " and leaves what makes this value to it";
    return add(id, std::move(message), range);
}

void RecipeCheck::add(Finding finding)
{
    m_findings.push_back(std::move(finding));
}

std::vector<Finding> RecipeCheck::take()
{
    RuleSet::sort(m_findings);
    return std::move(m_findings);
}

namespace ruletext {

std::string inQuotes(std::string_view text)
{
    return "\"" + std::string(text) + "\"";
}

std::string listText(const std::vector<std::string>& items)
{
    std::string text = "[";
    for (size_t i = 0; i < items.size(); ++i) {
        if (i)
            text += ' ';
        text += inQuotes(items[i]);
    }
    return text + "]";
}

std::string lineOf(const RecipeFacts& facts, nix::SourceRange range)
{
    return "line " + std::to_string(facts.position(range.begin).line);
}

std::string whereIs(const RecipeFacts& facts, const PinFact& pin)
{
    return pin.file.empty() ? lineOf(facts, pin.range)
                            : "written in " + pin.file + ":" + std::to_string(pin.line);
}

nix::SourceRange rangeOf(const PinFact& pin)
{
    return pin.file.empty() ? pin.range : nix::SourceRange{};
}

} // namespace ruletext

} // namespace rg
