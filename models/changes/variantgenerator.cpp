#include "changes/variantgenerator.h"

#include "analysis/analyzer.h"
#include "analysis/recipegrouping.h"
#include "analysis/recipemodules.h"
#include "analysis/ruleset.h"
#include "changes/linepairing.h"
#include "changes/overridemerge.h"
#include "changes/pinbumpplanner.h"
#include "changes/recipemerge.h"
#include "changes/textedits.h"
#include "changes/unifieddiff.h"
#include "facts/archnotation.h"
#include "nix/nixhash.h"
#include "nix/syntaxtree.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace rg {

namespace {

constexpr uint64_t maxRecipeSize = AnalyzerOptions::defaultMaxFileSize;

// Whether a finding (of any severity) says a value of this kind is wrong: then the
// variant's own value is not worth keeping.
bool implicates(const Cell& entry, std::string_view rulePrefix)
{
    return std::any_of(entry.findings.begin(), entry.findings.end(), [&](const Finding& f) {
        return f.ruleId.compare(0, rulePrefix.size(), rulePrefix) == 0;
    });
}

// Whether an error or warning of the recipe asks for a fix of one of `kinds`.
bool hasFinding(const Cell& entry, std::initializer_list<FixKind> kinds)
{
    return std::any_of(entry.findings.begin(), entry.findings.end(), [&](const Finding& f) {
        return f.severity != Severity::Info &&
               std::find(kinds.begin(), kinds.end(), f.fix) != kinds.end();
    });
}

// `word` in `text` not glued to letters or digits on either side.
bool containsWord(const std::string& text, const std::string& word)
{
    auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
        const size_t end = at + word.size();
        if ((at == 0 || !alnum(text[at - 1])) && (end >= text.size() || !alnum(text[end])))
            return true;
    }
    return false;
}

// Whether Nix reads `hash` as a SHA-256 (any notation); the empty fake hash counts as read.
bool acceptedSha256(const std::string& hash)
{
    return nix::NixHash::problem("sha256", hash).empty();
}

std::string textAt(const std::string& text, nix::SourceRange range)
{
    return text.substr(range.begin, range.length());
}

// Indents an overlay copied from a recipe for the template's overlay list.
std::string reindented(const std::string& source, nix::SourceRange range)
{
    size_t lineStart = source.rfind('\n', range.begin == 0 ? 0 : range.begin - 1);
    lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
    size_t indent = 0;
    while (lineStart + indent < range.begin && source[lineStart + indent] == ' ')
        ++indent;
    std::string out;
    const std::string text = textAt(source, range);
    size_t at = 0;
    while (at <= text.size()) {
        size_t end = text.find('\n', at);
        end = end == std::string::npos ? text.size() : end;
        std::string line = text.substr(at, end - at);
        if (at > 0) {
            size_t strip = 0;
            while (strip < indent && strip < line.size() && line[strip] == ' ')
                ++strip;
            line = line.substr(strip);
            out += "\n";
        }
        out += line;
        at = end + 1;
    }
    return out;
}

// What the source recipe states and its clone no longer does (an ISA module without the
// target's entry, an arch whose new value a module lacks): such a clone would not build.
std::string lostValues(const RecipeFacts& source, const RecipeFacts& clone)
{
    if (source.compilerFlags && !clone.compilerFlags)
        return "the compiler flags";
    if (source.archSinks.size() > clone.archSinks.size())
        return "the GPU arch at " +
               std::to_string(source.archSinks.size() - clone.archSinks.size()) + " sink(s)";
    if (source.platformsValue && source.platformsValue->origin == ValueOrigin::Known &&
        (!clone.platformsValue || clone.platformsValue->origin != ValueOrigin::Known))
        return "meta.platforms";
    return {};
}

} // namespace

VariantGenerator::VariantGenerator(const RepositorySource& source, const Analysis& analysis)
    : m_source(source), m_analysis(analysis), m_cloner(analysis.catalog),
      m_templates(source, analysis.catalog)
{}

std::string VariantGenerator::pathOf(const std::string& fileName) const
{
    const std::string& dir = m_analysis.recipeDir;
    return (dir.empty() ? std::string() : dir + "/") + fileName;
}

const Cell* VariantGenerator::entryOfPath(const std::string& path) const
{
    for (const Cell& entry : m_analysis.cells)
        if (entry.recipe && entry.recipe->path == path)
            return &entry;
    return nullptr;
}

RecipeFacts VariantGenerator::factsOf(const std::string& path, const std::string& bytes) const
{
    RecipeModules modules(m_source, maxRecipeSize);
    return Analyzer(m_analysis.catalog).extract(path, bytes, &modules);
}

// The group whose canonical recipe a variant is cloned from: same package, accelerator and
// CUDA version; on the variant's expected pin when a group is, else the largest.
const RecipeGroup* VariantGenerator::cloneSource(const VariantName& name) const
{
    const auto expected = m_analysis.expectationFor(name);
    const VariantExpectation& expectation = *expected;
    const std::string package =
        RecipeGrouping::packageOf(name.package, m_analysis.spec, m_analysis.catalog);
    const RecipeGroup* best = nullptr;
    for (const RecipeGroup& group : m_analysis.groups) {
        const std::string& file = group.profile.canonical;
        if (!file.ends_with(".nix"))
            continue;
        const auto canonical = VariantName::parse(file.substr(0, file.size() - 4));
        if (!canonical || canonical->accelerator != name.accelerator ||
            canonical->cuda != name.cuda ||
            RecipeGrouping::packageOf(canonical->package, m_analysis.spec, m_analysis.catalog) !=
                package)
            continue;
        const bool onPin = expectation.pin && group.profile.pin == *expectation.pin;
        const bool bestOnPin = best && expectation.pin && best->profile.pin == *expectation.pin;
        if (!best || (onPin && !bestOnPin) ||
            (onPin == bestOnPin && group.profile.members > best->profile.members))
            best = &group;
    }
    return best;
}

GeneratedRecipe VariantGenerator::create(const VariantName& name) const
{
    // The flags and platform of an ISA come from the catalog (the built-in one or the spec's
    // own "catalog" entries); a word it does not know has nothing to write.
    if (!name.isa.empty() && !m_analysis.catalog.isa(name.isa)) {
        GeneratedRecipe out;
        out.error = "ISA '" + name.isa +
                    "' is unknown to the catalog, so its compiler flags and platform are "
                    "unknown; declare it in the spec's \"catalog\" to generate it";
        return out;
    }
    return generate(name, nullptr);
}

GeneratedRecipe VariantGenerator::generate(const VariantName& name, const Cell* replacing) const
{
    const RecipeGroup* group = cloneSource(name);
    const auto expected = m_analysis.expectationFor(name, group ? &group->profile : nullptr);
    const VariantExpectation& expectation = *expected;
    if (!group)
        return fromTemplate(expectation);
    GeneratedRecipe out;
    const std::string canonicalPath = pathOf(group->profile.canonical);
    const Cell* canonical = entryOfPath(canonicalPath);
    if (!canonical || !canonical->recipe || !canonical->recipe->variant) {
        out.error = "the canonical recipe " + canonicalPath + " is not in the repository";
        return out;
    }
    const std::vector<const Cell*> sources = cloneSources(*group, name, replacing);
    if (sources.empty()) {
        if (const Finding* error = canonical == replacing ? nullptr : canonical->firstError())
            out.error = "the canonical recipe " + canonicalPath + " is itself broken (" +
                        error->ruleId + "): " + error->message;
        else
            out.error = "no recipe of its group is sound enough to clone it from";
        return out;
    }
    // The canonical recipe is the model; a sibling more like the variant stands in when the
    // canonical one's clone would not build it (a builder call that leaves `python` to the
    // builder's default cannot be cloned into another Python by editing the call). The
    // planner's analysis of the whole change set stays the last word.
    for (size_t i = 0; i < sources.size() && i < 4; ++i) {
        std::string error;
        GeneratedRecipe attempt = cloneFrom(*sources[i], name, expectation, &error);
        if (i == 0)
            out = attempt;
        if (!attempt.text.empty() && error.empty())
            return attempt;
    }
    return out;
}

// Sound recipes of `group` a variant may be cloned from: the canonical one first, then the
// others, most like the variant (same Python, then arch, then ISA) first.
std::vector<const Cell*> VariantGenerator::cloneSources(const RecipeGroup& group,
                                                        const VariantName& name,
                                                        const Cell* except) const
{
    std::vector<std::pair<int, const Cell*>> ranked;
    for (const std::string& file : group.files) {
        const Cell* entry = entryOfPath(file);
        if (!entry || entry == except || !entry->recipe || !entry->recipe->variant ||
            !entry->recipe->variant->suffixes.empty() || entry->firstError())
            continue;
        const VariantName& v = *entry->recipe->variant;
        const int alike = (v.python == name.python ? 4 : 0) + (v.gpuArch == name.gpuArch ? 2 : 0) +
                          (v.isa == name.isa ? 1 : 0);
        ranked.emplace_back(entry->recipe->fileName == group.profile.canonical ? 8 : alike, entry);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<const Cell*> sources;
    for (const auto& ranked_ : ranked)
        sources.push_back(ranked_.second);
    return sources;
}

// A clone of `source` for `name`; `*wrong` names the first error the rules find in it.
GeneratedRecipe VariantGenerator::cloneFrom(const Cell& source, const VariantName& name,
                                            const VariantExpectation& expectation,
                                            std::string* wrong) const
{
    GeneratedRecipe out;
    const std::string& sourcePath = source.recipe->path;
    SourceFile file = m_source.read(sourcePath, maxRecipeSize);
    if (!file.error.empty()) {
        out.error = sourcePath + ": " + file.error;
        return out;
    }
    const RecipeFacts facts = factsOf(sourcePath, file.bytes);
    out.text = m_cloner.clone(file.bytes, facts, *source.recipe->variant, expectation, &out.error);
    if (out.text.empty()) {
        out.error = "cloning " + sourcePath + ": " + out.error;
        return out;
    }
    out.how = "cloned from " + source.recipe->fileName;
    const RecipeFacts clone = factsOf(pathOf(name.toString() + ".nix"), out.text);
    if (std::string lost = lostValues(facts, clone); !lost.empty()) {
        out.error = "cloning " + sourcePath + " leaves " + lost + " unknown";
        out.text.clear();
        return out;
    }
    for (const Finding& finding : RuleSet::check(clone, &expectation, m_analysis.catalog))
        if (finding.severity == Severity::Error) {
            *wrong = finding.ruleId;
            break;
        }
    return out;
}

GeneratedRecipe VariantGenerator::fromTemplate(const VariantExpectation& expectation) const
{
    GeneratedRecipe out;
    TemplateInputs inputs;
    // Overlays and the tarball hash come from the repository's own sound recipes.
    const std::vector<OverlayKind> wanted =
        expectation.pattern ? expectation.pattern->overlays : std::vector<OverlayKind>{};
    for (OverlayKind kind : wanted) {
        std::string found;
        for (const Cell& entry : m_analysis.cells) {
            if (!entry.recipe || entry.firstError() || entry.package != expectation.name.package)
                continue;
            for (const OverlayFact& overlay : entry.recipe->overlays)
                if (overlay.kind == kind && found.empty() && overlay.range.length() > 0) {
                    SourceFile file = m_source.read(entry.recipe->path, maxRecipeSize);
                    if (file.error.empty() && overlay.range.end <= file.bytes.size())
                        found = reindented(file.bytes, overlay.range);
                }
            if (!found.empty())
                break;
        }
        if (found.empty()) {
            out.error = "the pattern needs a " + std::string(overlayKindId(kind)) +
                        " overlay and no sound recipe of " + expectation.name.package +
                        " has one to copy";
            return out;
        }
        inputs.overlays.push_back(found);
    }
    if (expectation.pin)
        if (const std::vector<std::string> hashes = hashesOfPin(*expectation.pin); !hashes.empty())
            inputs.pinHash = hashes.front();
    out.text = m_templates.render(expectation, inputs, &out.error);
    out.how = "template " + m_templates.originOf(expectation.name);
    return out;
}

// The hashes written next to `revision` by the recipes (or modules) of the repository that
// pin it, the first one's first; empty when none does. A hash Nix would refuse is no hash of
// the revision, and is never written into another recipe.
std::vector<std::string> VariantGenerator::hashesOfPin(const std::string& revision) const
{
    // Most recipes first: where recipes disagree on the revision's hash, the one most of them
    // pin is the likeliest right, and the likeliest to be the one a broken copy lost.
    std::vector<std::pair<std::string, int>> counted;
    for (const Cell& entry : m_analysis.cells) {
        if (!entry.recipe || entry.recipe->pins.empty())
            continue;
        const PinFact& pin = entry.recipe->pins.front();
        if (pin.revision != revision || !pin.hasHash)
            continue;
        SourceFile file =
            m_source.read(pin.file.empty() ? entry.recipe->path : pin.file, maxRecipeSize);
        if (auto hash = PinBumpPlanner::hashOf(file.bytes, pin)) {
            std::string text = textAt(file.bytes, *hash);
            if (text.empty() || !acceptedSha256(text))
                continue;
            const auto known =
                std::ranges::find(counted, text, &std::pair<std::string, int>::first);
            if (known == counted.end())
                counted.emplace_back(std::move(text), 1);
            else
                ++known->second;
        }
    }
    std::ranges::stable_sort(counted, std::greater<>(), &std::pair<std::string, int>::second);
    std::vector<std::string> hashes;
    for (auto& [text, count] : counted)
        hashes.push_back(std::move(text));
    return hashes;
}

GeneratedRecipe VariantGenerator::fix(const Cell& entry, const std::string& bytes) const
{
    // Wrong values are written in place; only what has no value to write (missing overlays,
    // the from-scratch pattern) asks for regeneration, which merges or is refused.
    GeneratedRecipe inPlace;
    if (hasFinding(entry, {FixKind::EditValue, FixKind::ReplacePin, FixKind::NewHash})) {
        inPlace = fixInPlace(entry, bytes);
        // A value no token of the recipe holds (made in a module from what it passes) cannot
        // be written in place: an unchanged text falls through to regeneration.
        if (inPlace.text == bytes)
            inPlace.text.clear();
    }
    const bool regenerating = hasFinding(entry, {FixKind::Regenerate});
    if (!inPlace.text.empty() && !regenerating)
        return inPlace;
    GeneratedRecipe regenerated = regenerate(entry, bytes);
    if (regenerated.text.empty() && !inPlace.error.empty())
        regenerated.error = inPlace.error + "; " + regenerated.error;
    if (!regenerated.text.empty() || inPlace.text.empty())
        return regenerated;
    inPlace.notRegenerated = regenerated.error;
    inPlace.how += "; not regenerated: " + regenerated.error;
    return inPlace;
}

GeneratedRecipe VariantGenerator::regenerate(const Cell& entry, const std::string& bytes) const
{
    GeneratedRecipe out = generate(entry.variant, &entry);
    if (out.text.empty())
        return out;
    // What the recipe has that the canonical one lacks (workarounds, exports, comments) is
    // merged back; a line both write differently is never settled silently.
    const std::string theirs = keepOwnValues(entry, bytes, out.text);
    MergedRecipe merged = RecipeMerge::merge(bytes, theirs, namedRanges(entry, bytes));
    std::string how = "regenerated (" + out.how + ") and merged with the recipe's own lines";
    // A derived recipe writes only what differs from its base: what it lacks is an override
    // argument, added to its own set.
    if (!merged.conflicts.empty() && !entry.recipe->derivedFrom.empty())
        if (auto completed = OverrideMerge::merge(bytes, theirs)) {
            merged = MergedRecipe{*completed, {}};
            how = "override arguments added from the regenerated recipe (" + out.how + ")";
        }
    if (!merged.conflicts.empty()) {
        out.text.clear();
        out.error = "regenerating it (" + out.how +
                    ") conflicts with what the recipe writes: " + merged.describeConflicts();
        return out;
    }
    if (const std::string foreign = foreignHardwareWords(bytes, merged.text, entry.variant);
        !foreign.empty()) {
        out.text.clear();
        out.error = "regenerating it (" + out.how +
                    ") would write another variant's hardware words into it: " + foreign;
        return out;
    }
    out.text = merged.text;
    out.how = how;
    return out;
}

GeneratedRecipe VariantGenerator::fixInPlace(const Cell& entry, const std::string& bytes) const
{
    GeneratedRecipe out;
    const RecipeFacts facts = factsOf(entry.recipe->path, bytes);
    if (!facts.variant)
        return out;
    const RecipeGroup* group = cloneSource(entry.variant);
    const auto expected =
        m_analysis.expectationFor(entry.variant, group ? &group->profile : nullptr);
    const VariantExpectation& expectation = *expected;
    std::string text = m_cloner.clone(bytes, facts, *facts.variant, expectation, &out.error);
    if (text.empty())
        return out;
    // The pin (with its hash, which must change with it) and the deprecated attribute.
    const RecipeFacts now = factsOf(entry.recipe->path, text);
    TextEdits edits;
    if (expectation.pin && !now.pins.empty() && now.pins.front().revision != *expectation.pin) {
        const PinFact& pin = now.pins.front();
        if (!pin.file.empty()) {
            out.error = "its pin is written in " + pin.file +
                        ", which other recipes read too; bump it there (Pins > Bump Pin)";
            return out;
        }
        if (pin.hasHash) {
            auto at = PinBumpPlanner::hashOf(text, pin);
            const std::vector<std::string> hashes = hashesOfPin(*expectation.pin);
            if (hashes.empty() || !at) {
                out.error = "the new pin needs a new tarball hash and no recipe on it has one";
                return out;
            }
            // A hash some recipe already pins the revision with is the revision's: only the
            // revision was wrong.
            if (std::ranges::count(hashes, textAt(text, *at)) == 0)
                edits.replace(*at, hashes.front());
        }
        edits.replace(pin.range, *expectation.pin);
    } else if (!now.pins.empty() && now.pins.front().file.empty() &&
               !renewPinHash(text, now.pins.front(), &edits, &out.error))
        return out;
    rewriteCudaSet(entry, now, text, &edits);
    if (now.torchAttribute && now.torchAttribute->value == "pytorch" &&
        textAt(text, now.torchAttribute->range) == "pytorch")
        edits.replace(now.torchAttribute->range, "torch");
    if (!retargetImports(entry, now, &edits, &out.error))
        return out;
    out.text = edits.applyTo(text);
    out.how = "values written in place";
    return out;
}

// A pin's hash Nix refuses is replaced by the one other recipes pin the same revision with;
// false (with `*error`) when none has one, since only prefetching the tarball can tell it.
bool VariantGenerator::renewPinHash(const std::string& text, const PinFact& pin, TextEdits* edits,
                                    std::string* error) const
{
    const auto at = pin.hasHash ? PinBumpPlanner::hashOf(text, pin) : std::nullopt;
    if (!at || acceptedSha256(textAt(text, *at)))
        return true;
    const std::vector<std::string> hashes = hashesOfPin(pin.revision);
    if (hashes.empty()) {
        *error = "the pin's hash is one Nix refuses and no recipe pins " + pin.revision +
                 " with a sound one: it needs a new hash, prefetched (nix-prefetch-url --unpack "
                 "on the pin's URL, or Pins > Bump Pin)";
        return false;
    }
    edits->replace(*at, hashes.front());
    return true;
}

// How the recipes of CUDA version `cuda` spell its package set ("cudaPackages_13" or
// "cudaPackages_13_0"): the spelling most of them select, else the catalog's first.
std::string VariantGenerator::cudaSetSpelling(const std::string& cuda) const
{
    const CudaVersion version = m_analysis.catalog.describeCuda(cuda);
    std::map<std::string, int> used;
    for (const Cell& entry : m_analysis.cells)
        if (entry.recipe && entry.recipe->cudaPackageSet && !entry.firstError() &&
            std::ranges::count(version.packageSets, entry.recipe->cudaPackageSet->value) > 0)
            ++used[entry.recipe->cudaPackageSet->value];
    const auto most = std::ranges::max_element(
        used, [](const auto& a, const auto& b) { return a.second < b.second; });
    if (most != used.end())
        return most->first;
    return version.packageSets.empty() ? std::string() : version.packageSets.front();
}

// A CUDA package set of another version than the name's (`cudaPackages_12_6` in a cuda12_8
// recipe) is renamed wherever the recipe writes it: the overlay's attribute and every
// reference, nothing else.
void VariantGenerator::rewriteCudaSet(const Cell& entry, const RecipeFacts& facts,
                                      const std::string& text, TextEdits* edits) const
{
    if (entry.variant.accelerator != Accelerator::Cuda || entry.variant.cuda.empty() ||
        !facts.cudaPackageSet)
        return;
    const std::string& wrong = facts.cudaPackageSet->value;
    const CudaVersion* selected = m_analysis.catalog.cudaByPackageSet(wrong);
    if (!selected || compareVersions(selected->dotted, entry.variant.cuda) == 0)
        return;
    // Selected by a builder from the recipe's arguments: the cloner rewrites the argument
    // (`cudaVersion = "12_6";`), not a rename here.
    if (!facts.cudaPackageSet->in.empty())
        return;
    const std::string spelling = cudaSetSpelling(entry.variant.cuda);
    const nix::SyntaxTree tree = nix::SyntaxTree::parse(text);
    if (!tree.root() || spelling.empty())
        return;
    nix::forEachNode(*tree.root(), [&](const nix::Node& node) {
        const bool name = node.kind == nix::NodeKind::Identifier ||
                          node.kind == nix::NodeKind::AttrName ||
                          node.kind == nix::NodeKind::Formal;
        // A formal's range may cover its default; the name is its first bytes.
        const nix::SourceRange range{node.range.begin,
                                     node.range.begin + static_cast<uint32_t>(wrong.size())};
        if (name && node.text == wrong && textAt(text, range) == wrong)
            edits->replace(range, spelling);
        return true;
    });
}

// A sibling recipe imported from another cell (a torchvision on the avx512 torch in an avx2
// cell) is pointed at the recipe of the same package in this cell, which must exist.
bool VariantGenerator::retargetImports(const Cell& entry, const RecipeFacts& facts,
                                       TextEdits* edits, std::string* error) const
{
    const std::string directory = entry.recipe->path.substr(0, entry.recipe->path.rfind('/') + 1);
    for (const Fact<std::string>& imported : facts.importedFiles) {
        const std::string& path = imported.value;
        auto base = VariantName::ofSiblingPath(path);
        // A derived recipe's base is another cell's by design (`(import ./<base>.nix
        // { … }).override { … }`): pointed at its own cell it would import itself.
        if (!base || entry.variant.matchesBase(*base) ||
            std::ranges::count(facts.derivedFrom, path) > 0)
            continue;
        if (!imported.in.empty()) { // a path a module computes: no bytes of it to point
            *error = "it imports " + path + " of another cell (" + imported.in +
                     "), a path made from its values; set them by hand";
            return false;
        }
        VariantName target = *base;
        target.python = entry.variant.python;
        target.accelerator = entry.variant.accelerator;
        target.gpuArch = entry.variant.gpuArch;
        if (!target.cuda.empty())
            target.cuda = entry.variant.cuda;
        if (!target.isa.empty())
            target.isa = target.isaAsWritten = entry.variant.isa;
        const std::string file = target.toString() + ".nix";
        if (!entryOfPath(directory + file)) {
            *error = "it imports " + path + " of another cell, and there is no " + file +
                     " to build on instead";
            return false;
        }
        edits->replace(imported.range, "./" + file);
    }
    return true;
}

// A pin's hash must change with it: a finding that names the revision names its hash too.
std::vector<nix::SourceRange> VariantGenerator::namedRanges(const Cell& entry,
                                                            const std::string& bytes)
{
    std::vector<nix::SourceRange> ranges = entry.namedRanges();
    if (!entry.recipe)
        return ranges;
    for (const PinFact& pin : entry.recipe->pins) {
        const bool named = std::any_of(ranges.begin(), ranges.end(), [&](nix::SourceRange r) {
            return r.begin < pin.range.end && pin.range.begin < r.end;
        });
        if (named && pin.file.empty() && pin.hasHash)
            if (auto hash = PinBumpPlanner::hashOf(bytes, pin))
                ranges.push_back(*hash);
    }
    return ranges;
}

// Hardware words of another cell in the lines a regeneration adds: an SM number or a GPU
// description of another arch, an ISA word of the other CPU family. "" when there are none.
std::string VariantGenerator::foreignHardwareWords(const std::string& before,
                                                   const std::string& after,
                                                   const VariantName& name) const
{
    const std::vector<std::string> lines = LinePairing::split(after);
    std::string added;
    for (const LineHunk& hunk : UnifiedDiff::hunksOf(before, after))
        for (const std::string& line : LinePairing::slice(lines, hunk.newStart, hunk.newLines))
            added += line + "\n";
    const Catalog& catalog = m_analysis.catalog;
    const std::string number = ArchNotation::numberOf(name.gpuArch);
    for (const GpuArch& arch : catalog.gpuArchs()) {
        if (arch.number == number)
            continue;
        for (const std::string& word :
             {"SM" + arch.number, "sm" + arch.number, "sm_" + arch.number, arch.description})
            if (containsWord(added, word))
                return word;
    }
    const CpuIsa* own = catalog.isa(name.isa);
    for (const CpuIsa& isa : catalog.isas())
        if (own && isa.family != own->family && !isa.description.empty() &&
            containsWord(added, isa.description))
            return isa.description;
    return {};
}

// Regeneration keeps what makes the variant its own: its descriptions and, unless
// a finding says they are wrong, its flags.
std::string VariantGenerator::keepOwnValues(const Cell& entry, const std::string& old,
                                            const std::string& generated) const
{
    const RecipeFacts before = factsOf(entry.recipe->path, old);
    const RecipeFacts after = factsOf(entry.recipe->path, generated);
    TextEdits edits;
    auto keep = [&](const auto& was, const auto& now) {
        if (!was || !now)
            return;
        const std::string text = textAt(old, was->range);
        const std::string current = textAt(generated, now->range);
        if (!text.empty() && !current.empty() && text.front() == current.front())
            edits.replace(now->range, text);
    };
    keep(before.description, after.description);
    keep(before.longDescription, after.longDescription);
    if (!implicates(entry, "pname"))
        keep(before.pname, after.pname);
    // Flags are kept only as a list for a list: a shell setting's bytes mean other things too.
    if (!implicates(entry, "cpu-flags") && before.compilerFlags && after.compilerFlags &&
        textAt(old, before.compilerFlags->range).starts_with('[') &&
        textAt(generated, after.compilerFlags->range).starts_with('['))
        keep(before.compilerFlags, after.compilerFlags);
    return edits.applyTo(generated);
}

} // namespace rg
