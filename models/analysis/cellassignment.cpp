#include "analysis/cellassignment.h"

#include "analysis/recipegrouping.h"
#include "analysis/rules/cellcheck.h"
#include "analysis/ruleset.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace rg {

namespace {

bool impossible(const VariantExpectation& expectation)
{
    return !expectation.feasibility.possible() && !expectation.askedFor;
}

bool hasErrors(const std::vector<Finding>& findings)
{
    return std::any_of(findings.begin(), findings.end(),
                       [](const Finding& f) { return f.severity == Severity::Error; });
}

// A recipe in its own cell: broken with an error; otherwise ok only when its meaning was read.
// A file left unread without an error (nested deeper than the parser follows) is unchecked.
CellStatus judged(const RecipeFacts& recipe, const std::vector<Finding>& findings)
{
    return hasErrors(findings)                   ? CellStatus::Broken
           : recipe.problem != FileProblem::None ? CellStatus::Unchecked
                                                 : CellStatus::Ok;
}

std::string withoutDotSlash(std::string path)
{
    if (path.starts_with("./"))
        path.erase(0, 2);
    return path;
}

// `pytorch291-…` that wraps the `pytorch-…` recipe of its own cell: a versioned name users
// install by, kept on purpose, not a second copy to delete.
bool publishesUnderAnotherName(const RecipeFacts& recipe, const RecipeFacts& other)
{
    if (!recipe.wrappedFile || !recipe.variant || !other.variant ||
        recipe.variant->package == other.variant->package)
        return false;
    return withoutDotSlash(recipe.wrappedFile->value) == other.fileName;
}

std::string reasonOf(const std::vector<Finding>& findings)
{
    std::string reason;
    std::set<std::string> seen;
    for (const Finding& finding : findings) {
        const RuleInfo* info = RuleSet::rule(finding.ruleId);
        const std::string title = info ? std::string(info->title) : finding.ruleId;
        if (!seen.insert(title).second)
            continue;
        if (!reason.empty())
            reason += "; ";
        reason += title;
    }
    return reason;
}

} // namespace

CellAssignment::CellAssignment(const MatrixSpec& spec, const Catalog& catalog)
    : m_spec(spec), m_catalog(catalog)
{}

CellId CellAssignment::cellOf(const VariantName& name) const
{
    return CellId::of(name, RecipeGrouping::packageOf(name.package, m_spec, m_catalog));
}

CellId CellAssignment::withoutCuda(VariantName name) const
{
    name.cuda.clear();
    return cellOf(name);
}

// Which file stands for each cell: an unsuffixed recipe the spec expects, else the first
// unsuffixed recipe of that cell.
CellAssignment::Primaries
CellAssignment::primaries(const std::vector<std::shared_ptr<const RecipeFacts>>& recipes) const
{
    Primaries chosen;
    for (size_t i = 0; i < recipes.size(); ++i) {
        const RecipeFacts& recipe = *recipes[i];
        if (!recipe.variant || !recipe.variant->suffixes.empty())
            continue;
        auto [it, added] = chosen.primary.emplace(cellOf(*recipe.variant), i);
        if (!added && m_spec.expects(*recipe.variant) &&
            !m_spec.expects(*recipes[it->second]->variant))
            it->second = i;
    }
    for (const auto& [key, index] : chosen.primary) {
        const VariantName& name = *recipes[index]->variant;
        if (name.accelerator == Accelerator::Cuda && !name.cuda.empty())
            chosen.versioned.emplace(withoutCuda(name), index);
    }
    return chosen;
}

std::vector<const RecipeFacts*>
CellAssignment::builtBy(const std::vector<std::shared_ptr<const RecipeFacts>>& recipes) const
{
    const Primaries chosen = primaries(recipes);
    std::vector<const RecipeFacts*> others(recipes.size());
    for (size_t i = 0; i < recipes.size(); ++i) {
        const RecipeFacts& recipe = *recipes[i];
        if (!recipe.variant)
            continue;
        const auto primary = chosen.primary.find(cellOf(*recipe.variant));
        if (primary == chosen.primary.end() || primary->second == i)
            continue;
        const RecipeFacts& other = *recipes[primary->second];
        if (!publishesUnderAnotherName(recipe, other))
            others[i] = &other;
    }
    return others;
}

Cell CellAssignment::entryFor(const VariantName& name) const
{
    Cell entry;
    entry.variant = name;
    entry.package = RecipeGrouping::packageOf(name.package, m_spec, m_catalog);
    entry.id = cellOf(name);
    return entry;
}

// One assignment run: which recipe stands for each cell, then each recipe's place.
class CellAssignment::Run
{
public:
    Run(const CellAssignment& cells, const std::vector<std::shared_ptr<const RecipeFacts>>& recipes,
        std::vector<std::vector<Finding>>& findings, RecipeExpectations& expectations,
        Analysis& analysis)
        : cells(cells), spec(cells.m_spec), recipes(recipes), findings(findings),
          expectations(expectations), analysis(analysis), chosen(cells.primaries(recipes))
    {
        addExpectedCells();
        for (const auto& recipe : recipes)
            if (recipe->wrappedFile)
                wrapped.insert(withoutDotSlash(recipe->wrappedFile->value));
    }

    void place(size_t i)
    {
        const RecipeFacts& recipe = *recipes[i];
        if (!recipe.variant) {
            placeUnnamed(i);
            return;
        }
        Cell entry = cells.entryFor(*recipe.variant);
        const auto& primary = chosen.primary;
        const auto primaryIt = primary.find(entry.id);
        const bool isPrimary = primaryIt != primary.end() && primaryIt->second == i;
        const auto cell = cellIndex.find(entry.id);
        if (isPrimary && spec.expects(*recipe.variant) && cell != cellIndex.end()) {
            Cell& expected = analysis.cells[cell->second];
            expected.recipe = recipes[i];
            expected.expectation = std::move(expectations[i]);
            expected.findings = std::move(findings[i]);
            expected.status = impossible(*expected.expectation) ? CellStatus::Impossible
                                                                : judged(recipe, expected.findings);
            return;
        }
        entry.recipe = recipes[i];
        entry.expectation = std::move(expectations[i]);
        std::optional<size_t> duplicateOf;
        if (!isPrimary && primaryIt != primary.end())
            duplicateOf = primaryIt->second;
        else if (isLegacyName(*recipe.variant))
            if (auto it = chosen.versioned.find(cells.withoutCuda(*recipe.variant));
                it != chosen.versioned.end())
                duplicateOf = it->second;
        std::vector<Finding>& own = findings[i];
        if (duplicateOf)
            placeDuplicate(entry, *recipes[*duplicateOf], own);
        else if (cell != cellIndex.end() && !recipe.variant->suffixes.empty())
            // A suffixed recipe standing in for an expected cell that has no proper recipe.
            entry.status = judged(recipe, own);
        else
            placeExtra(entry, own);
        RuleSet::sort(own);
        entry.findings = std::move(own);
        analysis.cells.push_back(std::move(entry));
    }

private:
    // Legacy names carry no CUDA version (pytorch-py313-sm90-avx512); such a file duplicates
    // a canonically named recipe of the same package, Python, arch and ISA.
    static bool isLegacyName(const VariantName& name)
    {
        return name.accelerator == Accelerator::Cuda && name.cuda.empty() && name.suffixes.empty();
    }

    // Expected cells first, in spec order. Their expectation comes with the recipe placed in
    // them; one that stays empty gets its own in assign(), so none is made to be thrown away.
    void addExpectedCells()
    {
        for (const VariantName& name : spec.expectedVariants()) {
            Cell entry = cells.entryFor(name);
            entry.expected = true;
            entry.status = CellStatus::Missing;
            cellIndex.emplace(entry.id, analysis.cells.size());
            analysis.cells.push_back(std::move(entry));
        }
    }

    void placeUnnamed(size_t i)
    {
        const RecipeFacts& recipe = *recipes[i];
        CellCheck check{.placement = CellCheck::Placement::Unnamed,
                        .spec = spec,
                        .recipeDir = analysis.recipeDir,
                        .recipe = &recipe,
                        .sharedBase = wrapped.count(recipe.fileName) > 0,
                        .findings = &analysis.repositoryFindings};
        RuleSet::check(check);
        analysis.repositoryFindings.insert(analysis.repositoryFindings.end(), findings[i].begin(),
                                           findings[i].end());
        analysis.unnamed.push_back(recipe);
    }

    void placeDuplicate(Cell& entry, const RecipeFacts& other, std::vector<Finding>& own)
    {
        const RecipeFacts& recipe = *entry.recipe;
        const bool alias = publishesUnderAnotherName(recipe, other);
        CellCheck check{.placement =
                            alias ? CellCheck::Placement::Alias : CellCheck::Placement::Duplicate,
                        .spec = spec,
                        .recipeDir = analysis.recipeDir,
                        .entry = &entry,
                        .recipe = &recipe,
                        .other = &other,
                        .findings = &own};
        RuleSet::check(check);
        // Another unsuffixed recipe of the same package already builds this cell, unless it
        // is the build it publishes.
        entry.status = alias ? judged(recipe, own) : CellStatus::Redundant;
    }

    // A recipe of a cell the spec does not ask for. A stray file that is also wrong is
    // reported as broken, as release engineers call it (a wrong-pin sm120-avx next to the
    // spec's avx2); "unexpected" is left for sound recipes the spec does not ask for. An
    // inferred spec asks for every recipe it was inferred from, so nothing is unexpected then.
    void placeExtra(Cell& entry, std::vector<Finding>& own)
    {
        const bool cannotExist = impossible(*entry.expectation);
        entry.status = cannotExist         ? CellStatus::Impossible
                       : hasErrors(own)    ? CellStatus::Broken
                       : spec.isInferred() ? judged(*entry.recipe, own)
                                           : CellStatus::Unexpected;
        CellCheck check{.placement = CellCheck::Placement::Extra,
                        .spec = spec,
                        .recipeDir = analysis.recipeDir,
                        .entry = &entry,
                        .recipe = entry.recipe.get(),
                        .findings = &own};
        RuleSet::check(check);
    }

    const CellAssignment& cells;
    const MatrixSpec& spec;
    const std::vector<std::shared_ptr<const RecipeFacts>>& recipes;
    std::vector<std::vector<Finding>>& findings;
    RecipeExpectations& expectations;
    Analysis& analysis;
    const Primaries chosen;
    std::unordered_map<CellId, size_t, CellIdHash> cellIndex; // expected cell → entry
    std::set<std::string> wrapped;
};

void CellAssignment::assign(const std::vector<std::shared_ptr<const RecipeFacts>>& recipes,
                            std::vector<std::vector<Finding>> findings,
                            RecipeExpectations expectations, Analysis& analysis) const
{
    Run run(*this, recipes, findings, expectations, analysis);
    for (size_t i = 0; i < recipes.size(); ++i)
        run.place(i);

    for (Cell& entry : analysis.cells)
        if (entry.status == CellStatus::Missing) {
            entry.expectation = analysis.expectationFor(entry.variant);
            CellCheck check{.placement = CellCheck::Placement::Missing,
                            .spec = m_spec,
                            .recipeDir = analysis.recipeDir,
                            .entry = &entry,
                            .findings = &entry.findings};
            RuleSet::check(check);
        }
    if (m_spec.isInferred())
        addGaps(analysis);
    for (Cell& entry : analysis.cells)
        entry.reason = reasonOf(entry.findings);
}

void CellAssignment::refresh(Cell& entry)
{
    RuleSet::sort(entry.findings);
    entry.reason = reasonOf(entry.findings);
    if (entry.recipe && (entry.status == CellStatus::Ok || entry.status == CellStatus::Broken ||
                         entry.status == CellStatus::Unchecked))
        entry.status = judged(*entry.recipe, entry.findings);
    else if (entry.status == CellStatus::Unexpected && entry.firstError())
        entry.status = CellStatus::Broken; // as assign() places an unexpected recipe with errors
}

void CellAssignment::addGaps(Analysis& analysis) const
{
    // Per package, Python, accelerator/CUDA version and CPU family: the archs (rows) and ISAs
    // (columns) the recipes populate. An arch's peers are the other archs built for every ISA
    // it is built for; a cell is suggested only where an arch has at least two peers and most
    // of them have the cell's ISA. So an arch the author only ever pairs with avx/avx2 gets no
    // avx512 gap when the archs with avx512 have no avx, and a slice of two archs suggests
    // nothing.
    struct Slice
    {
        VariantName sample;
        std::map<std::string, std::set<std::string>> rows; // arch → ISAs
    };
    std::map<std::string, Slice> slices;
    std::set<CellId> present;
    for (const Cell& entry : analysis.cells) {
        if (!entry.recipe || !entry.variant.suffixes.empty() || entry.variant.isa.empty())
            continue;
        const VariantName& v = entry.variant;
        if (v.accelerator == Accelerator::Cuda && v.cuda.empty())
            continue;
        const CpuIsa* isa = m_catalog.isa(v.isa);
        const std::string family = isa ? std::string(cpuFamilyId(isa->family)) : "?";
        Slice& slice =
            slices[entry.package + '|' + v.python + '|' +
                   std::string(acceleratorId(v.accelerator)) + '|' + v.cuda + '|' + family];
        slice.sample = v;
        slice.sample.package = entry.package;
        slice.rows[v.gpuArch].insert(v.isa);
        present.insert(entry.id);
    }
    for (const auto& [key, slice] : slices) {
        for (const auto& [arch, isas] : slice.rows) {
            std::vector<const std::set<std::string>*> peers;
            for (const auto& [other, otherIsas] : slice.rows)
                if (other != arch &&
                    std::includes(otherIsas.begin(), otherIsas.end(), isas.begin(), isas.end()))
                    peers.push_back(&otherIsas);
            if (peers.size() < 2)
                continue;
            std::map<std::string, int> suggested; // ISA → peers that have it
            for (const auto* peer : peers)
                for (const std::string& isa : *peer)
                    if (!isas.count(isa))
                        ++suggested[isa];
            for (const auto& [isa, count] : suggested) {
                if (static_cast<size_t>(count) * 2 <= peers.size())
                    continue;
                VariantName name = slice.sample;
                name.gpuArch = arch;
                name.isa = isa;
                name.isaAsWritten.clear();
                name.legacyForm = false;
                Cell gap;
                gap.variant = name;
                gap.package = slice.sample.package;
                gap.id = cellOf(name);
                if (present.count(gap.id))
                    continue;
                gap.expectation = analysis.expectationFor(name);
                if (!gap.expectation->feasibility.possible())
                    continue;
                gap.status = CellStatus::Gap;
                CellCheck check{.placement = CellCheck::Placement::Gap,
                                .spec = m_spec,
                                .recipeDir = analysis.recipeDir,
                                .entry = &gap,
                                .suggestedBy = count,
                                .peers = peers.size(),
                                .findings = &gap.findings};
                RuleSet::check(check);
                present.insert(gap.id);
                analysis.cells.push_back(std::move(gap));
            }
        }
    }
}

} // namespace rg
