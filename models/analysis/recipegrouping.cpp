#include "analysis/recipegrouping.h"

#include "facts/archnotation.h"
#include "matrix/versionspelling.h"

#include <algorithm>
#include <map>

namespace rg {

namespace {

std::vector<OverlayKind> overlaySet(const RecipeFacts& facts)
{
    std::vector<OverlayKind> kinds;
    for (const OverlayFact& overlay : facts.overlays)
        if (overlay.kind != OverlayKind::Other &&
            std::find(kinds.begin(), kinds.end(), overlay.kind) == kinds.end())
            kinds.push_back(overlay.kind);
    std::sort(kinds.begin(), kinds.end());
    return kinds;
}

std::string pinOf(const RecipeFacts& facts)
{
    return facts.pins.empty() ? std::string() : facts.pins.front().revision;
}

// Per pin: the recipes that select nixpkgs' unversioned python3Packages, by the Python
// version their names say.
std::map<std::string, std::map<std::string, std::vector<std::string>>>
defaultPythonUsers(const std::vector<std::shared_ptr<const RecipeFacts>>& recipes,
                   const std::vector<int>& bases)
{
    std::map<std::string, std::map<std::string, std::vector<std::string>>> users;
    for (size_t i = 0; i < recipes.size(); ++i) {
        const RecipeFacts& recipe = *recipes[i];
        if (recipe.variant && recipe.problem == FileProblem::None && recipe.pythonPackageSet &&
            recipe.pythonPackageSet->value == "python3Packages")
            users[pinOf(bases[i] >= 0 ? *recipes[static_cast<size_t>(bases[i])] : recipe)]
                 [recipe.variant->python]
                     .push_back(recipe.fileName);
    }
    return users;
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

} // namespace

std::string RecipeGrouping::packageOf(const std::string& word, const MatrixSpec& spec,
                                      const Catalog& catalog)
{
    if (word == spec.package || std::find(spec.extraPackages.begin(), spec.extraPackages.end(),
                                          word) != spec.extraPackages.end())
        return word;
    // pytorch210 is pytorch with a version tail; any other word is its own package.
    if (const PackageInfo* known = catalog.package(word))
        return known->id;
    std::string stem = word;
    while (!stem.empty() && isDigit(stem.back()))
        stem.pop_back();
    return !stem.empty() && stem == spec.package ? stem : word;
}

std::string RecipeGrouping::acceleratorLabel(const VariantName& name)
{
    switch (name.accelerator) {
    case Accelerator::Cuda:
        return name.cuda.empty() ? "CUDA (no version in the name)" : "CUDA " + name.cuda;
    case Accelerator::Cpu:
        return "CPU-only";
    case Accelerator::Darwin:
        return "Darwin";
    }
    return "";
}

// What every step of grouping reads: the recipes, the base each wrapper wraps, and what is
// known of them.
struct RecipeGrouping::Inputs
{
    const std::vector<std::shared_ptr<const RecipeFacts>>& recipes;
    const std::vector<int>& bases;
    const MatrixSpec& spec;
    const Catalog& catalog;
    const std::vector<bool>& broken;

    // A wrapper's pin, overlays and shape are those of the file it wraps.
    const RecipeFacts& sourceOf(size_t i) const
    {
        return bases[i] >= 0 ? *recipes[static_cast<size_t>(bases[i])] : *recipes[i];
    }
    bool isBroken(size_t i) const { return i < broken.size() && broken[i]; }
};

RecipeGrouping::RecipeGrouping(const std::vector<std::shared_ptr<const RecipeFacts>>& recipes,
                               const std::vector<int>& bases, const MatrixSpec& spec,
                               const Catalog& catalog, const std::vector<bool>& broken)
    : m_groupOf(recipes.size(), -1)
{
    const Inputs in{recipes, bases, spec, catalog, broken};
    // package × accelerator → pin counts, for the dominant pin.
    std::map<std::string, std::map<std::string, int>> pinCounts;
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < recipes.size(); ++i) {
        const RecipeFacts& recipe = *recipes[i];
        if (!recipe.variant || recipe.problem != FileProblem::None)
            continue;
        const std::string package = packageOf(recipe.variant->package, spec, catalog);
        const std::string accelerator = acceleratorLabel(*recipe.variant);
        const std::string pin = pinOf(in.sourceOf(i));
        ++pinCounts[package + '\n' + accelerator][pin];
        const std::string key = package + '\n' + accelerator + '\n' + pin;
        auto [it, added] = index.emplace(key, m_groups.size());
        if (added) {
            RecipeGroup group;
            group.profile.label =
                package + " \u00b7 " + accelerator +
                (pin.empty() ? " \u00b7 no pin" : " \u00b7 " + shortRevision(pin));
            group.profile.pin = pin;
            m_groups.push_back(std::move(group));
        }
        m_groupOf[i] = static_cast<int>(it->second);
        m_groups[it->second].files.push_back(recipe.path);
    }
    auto pythonUsers = defaultPythonUsers(recipes, bases);
    for (auto& [key, group] : index) {
        GroupProfile& profile = m_groups[group].profile;
        profile.defaultPythonUsers = pythonUsers[profile.pin];
        for (const auto& [pin, count] : pinCounts[key.substr(0, key.rfind('\n'))]) {
            profile.acceleratorMembers += count;
            // Ties go to the lexically first pin, so the choice does not depend on file order.
            if (!pin.empty() && count > profile.dominantPinCount) {
                profile.dominantPin = pin;
                profile.dominantPinCount = count;
            }
        }
        std::sort(m_groups[group].files.begin(), m_groups[group].files.end());
        profileMembers(in, static_cast<int>(group));
    }
}

// The group's overlay set, canonical recipe and arch notation, from its members.
void RecipeGrouping::profileMembers(const Inputs& in, int group)
{
    GroupProfile& profile = m_groups[static_cast<size_t>(group)].profile;
    // Members' overlay sets; the most frequent one (ties: the larger set) is the group's.
    std::map<std::vector<OverlayKind>, int> sets;
    std::vector<size_t> members;
    for (size_t i = 0; i < in.recipes.size(); ++i)
        if (m_groupOf[i] == group) {
            members.push_back(i);
            if (in.recipes[i]->variant->suffixes.empty() &&
                in.sourceOf(i).pattern != PatternKind::FromScratch)
                ++sets[overlaySet(in.sourceOf(i))];
        }
    profile.members = static_cast<int>(members.size());
    for (const auto& [set, count] : sets)
        if (count > profile.overlaysCount ||
            (count == profile.overlaysCount && set.size() > profile.overlays.size())) {
            profile.overlays = set;
            profile.overlaysCount = count;
        }
    chooseCanonical(in, members, profile);
    // The form the canonical recipe writes its own arch in at each sink.
    for (size_t i : members) {
        const RecipeFacts& recipe = *in.recipes[i];
        if (recipe.fileName != profile.canonical)
            continue;
        const std::string own = in.catalog.describeGpuArch(recipe.variant->gpuArch).number;
        for (const ArchSinkFact& entry : recipe.archSinks) {
            const ArchReading reading = ArchNotation::read(entry.sink, entry.value);
            if (std::find(reading.numbers.begin(), reading.numbers.end(), own) !=
                reading.numbers.end())
                profile.archSuffixes.emplace(std::string(archSinkName(entry.sink)),
                                             ArchNotation::suffixOf(entry.sink, entry.value));
        }
    }
}

// The spec's canonical recipe when it is in the group; else the first (by name) unsuffixed,
// non-wrapper recipe carrying the group's overlay set, falling back to wrappers (a group of
// companions, torchvision wrapping the pytorch recipe of its cell, has only wrappers) and
// then to recipes with errors.
void RecipeGrouping::chooseCanonical(const Inputs& in, const std::vector<size_t>& members,
                                     GroupProfile& profile)
{
    for (size_t i : members) {
        const RecipePattern* pattern = in.spec.patternFor(*in.recipes[i]->variant);
        if (pattern && !in.spec.isInferred() &&
            pattern->canonicalRecipe == in.recipes[i]->fileName) {
            profile.canonical = in.recipes[i]->fileName;
            profile.canonicalWhy = "the spec names it";
        }
    }
    for (int round = 0; round < 4 && profile.canonical.empty(); ++round) {
        const bool wrappers = round % 2 == 1;
        const bool withErrors = round >= 2;
        int candidates = 0;
        for (size_t i : members) {
            const RecipeFacts& recipe = *in.recipes[i];
            const bool wrapper = in.bases[i] >= 0 || recipe.pattern == PatternKind::Wrapper;
            if (!recipe.variant->suffixes.empty() || (wrapper && !wrappers) ||
                (in.isBroken(i) && !withErrors) || recipe.pattern == PatternKind::FromScratch ||
                overlaySet(in.sourceOf(i)) != profile.overlays)
                continue;
            ++candidates;
            if (profile.canonical.empty() || recipe.fileName < profile.canonical)
                profile.canonical = recipe.fileName;
        }
        if (!profile.canonical.empty())
            profile.canonicalWhy =
                std::string(wrappers ? "wraps a base recipe and " : "") +
                "carries the group's overlay set (" + std::to_string(profile.overlaysCount) +
                " of " + std::to_string(profile.members) + " recipes); first by name of " +
                std::to_string(candidates) + " such recipe" + (candidates == 1 ? "" : "s") +
                (in.broken.empty() ? ""
                 : withErrors      ? ", though it has errors: no candidate is without"
                                   : " without errors");
    }
}

const GroupProfile* RecipeGrouping::profileOf(size_t recipe) const
{
    if (recipe >= m_groupOf.size() || m_groupOf[recipe] < 0)
        return nullptr;
    return &m_groups[static_cast<size_t>(m_groupOf[recipe])].profile;
}

} // namespace rg
