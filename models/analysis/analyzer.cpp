#include "analysis/analyzer.h"

#include "analysis/cellassignment.h"
#include "analysis/recipecontentkey.h"
#include "analysis/recipegrouping.h"
#include "analysis/recipemodules.h"
#include "analysis/rules/repositorycheck.h"
#include "analysis/rules/speccheck.h"
#include "analysis/ruleset.h"
#include "facts/factextractor.h"
#include "nix/syntaxtree.h"

#include <QThread>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>

namespace rg {

namespace {

// Offset of the first byte that is not part of valid UTF-8, or npos.
size_t invalidUtf8Offset(std::string_view text)
{
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const size_t n = text.size();
    size_t i = 0;
    while (i < n) {
        // Fast path over ASCII, eight bytes at a time.
        while (i + 8 <= n) {
            uint64_t chunk;
            std::memcpy(&chunk, s + i, 8);
            if (chunk & 0x8080808080808080ULL)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        const unsigned char c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t length = 0;
        uint32_t min = 0;
        uint32_t cp = 0;
        if ((c & 0xE0) == 0xC0) {
            length = 2;
            cp = c & 0x1F;
            min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            length = 3;
            cp = c & 0x0F;
            min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            length = 4;
            cp = c & 0x07;
            min = 0x10000;
        } else {
            return i;
        }
        if (i + length > n)
            return i;
        for (size_t k = 1; k < length; ++k) {
            if ((s[i + k] & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += length;
    }
    return std::string_view::npos;
}

std::string fileNameOf(const std::string& path)
{
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string stemOf(const std::string& fileName)
{
    return fileName.ends_with(".nix") ? fileName.substr(0, fileName.size() - 4) : fileName;
}

// Runs `work(i)` for i in [0, count) on up to `threads` threads.
template <typename Work> void parallelFor(size_t count, int threads, Work&& work)
{
    const size_t workers = std::min<size_t>(count, static_cast<size_t>(std::max(1, threads)));
    if (workers <= 1) {
        for (size_t i = 0; i < count; ++i)
            work(i);
        return;
    }
    std::atomic<size_t> next{0};
    auto loop = [&] {
        for (size_t i = next++; i < count; i = next++)
            work(i);
    };
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (size_t t = 1; t < workers; ++t)
        pool.emplace_back(loop);
    loop();
    for (std::thread& thread : pool)
        thread.join();
}

int threadsFor(const AnalyzerOptions& options)
{
    return options.threads > 0 ? options.threads : QThread::idealThreadCount();
}

// For each recipe, the index of the recipe it wraps (pattern e), when that file was scanned
// and is readable; -1 otherwise. One level: a wrapper of a wrapper gets no base.
std::vector<int> wrappedBases(const std::vector<std::shared_ptr<const RecipeFacts>>& recipes)
{
    std::vector<int> bases(recipes.size(), -1);
    std::unordered_map<std::string, size_t> byPath;
    for (size_t i = 0; i < recipes.size(); ++i)
        byPath.emplace(recipes[i]->path, i);
    for (size_t i = 0; i < recipes.size(); ++i) {
        const RecipeFacts& wrapper = *recipes[i];
        if (wrapper.pattern != PatternKind::Wrapper || !wrapper.wrappedFile)
            continue;
        const auto slash = wrapper.path.rfind('/');
        const std::string directory =
            slash == std::string::npos ? "" : wrapper.path.substr(0, slash + 1);
        const std::string target = std::filesystem::path(directory + wrapper.wrappedFile->value)
                                       .lexically_normal()
                                       .generic_string();
        const auto base = byPath.find(target);
        if (base == byPath.end() || base->second == i)
            continue;
        const RecipeFacts& facts = *recipes[base->second];
        if (facts.problem == FileProblem::None && facts.pattern != PatternKind::Wrapper)
            bases[i] = static_cast<int>(base->second);
    }
    return bases;
}

} // namespace

// ---- RecipeCache ------------------------------------------------------------------------------

std::shared_ptr<const RecipeFacts> RecipeCache::find(const std::string& path,
                                                     const std::string& stamp) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_entries.find(path);
    if (it == m_entries.end() || it->second.first != stamp)
        return nullptr;
    return it->second.second;
}

std::shared_ptr<const RecipeFacts> RecipeCache::findContent(const std::string& path,
                                                            const std::string& digest) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_entries.find(path);
    if (it == m_entries.end() || digest.empty() || it->second.second->digest != digest)
        return nullptr;
    return it->second.second;
}

void RecipeCache::seed(const Analysis& analysis)
{
    std::lock_guard lock(m_mutex);
    for (const Cell& cell : analysis.cells)
        if (cell.recipe && !cell.recipe->digest.empty())
            m_entries.try_emplace(cell.recipe->path, std::string(), cell.recipe);
}

void RecipeCache::store(const std::string& path, const std::string& stamp,
                        std::shared_ptr<const RecipeFacts> facts)
{
    std::lock_guard lock(m_mutex);
    m_entries[path] = {stamp, std::move(facts)};
}

void RecipeCache::retainOnly(const std::vector<std::string>& paths)
{
    std::lock_guard lock(m_mutex);
    const std::set<std::string> keep(paths.begin(), paths.end());
    for (auto it = m_entries.begin(); it != m_entries.end();)
        it = keep.count(it->first) ? std::next(it) : m_entries.erase(it);
}

// ---- Analyzer ---------------------------------------------------------------------------------

Analyzer::Analyzer() : m_catalog(Catalog::builtin()) {}

Analyzer::Analyzer(const Catalog& base) : m_catalog(base) {}

RecipeFacts Analyzer::extract(const std::string& path, std::string bytes,
                              nix::ModuleLoader* modules) const
{
    RecipeFacts facts;
    facts.path = path;
    facts.fileName = fileNameOf(path);
    facts.variant = VariantName::parse(stemOf(facts.fileName));
    facts.size = bytes.size();
    if (const size_t bad = invalidUtf8Offset(bytes); bad != std::string_view::npos) {
        nix::LineIndex lines(std::string_view(bytes).substr(0, bad));
        const nix::TextPosition at = lines.position(static_cast<uint32_t>(bad));
        facts.problem = FileProblem::NotUtf8;
        facts.problemDetail = "invalid UTF-8 at line " + std::to_string(at.line) + ", column " +
                              std::to_string(at.column) + " (byte " + std::to_string(bad) + ")";
        return facts;
    }
    facts.lines = std::make_shared<const nix::LineIndex>(bytes);
    const nix::SyntaxTree tree = nix::SyntaxTree::parse(std::move(bytes));
    if (tree.error() || !tree.root()) {
        facts.problem = tree.error() && tree.error()->beyondLimit ? FileProblem::TooDeep
                                                                  : FileProblem::SyntaxError;
        facts.parseError = tree.error();
        facts.problemDetail = tree.error() ? tree.error()->message : "unparsable";
        return facts;
    }
    FactExtractor::extract(tree, facts, modules);
    return facts;
}

namespace {

// The spec: loaded when present and valid; nullopt otherwise (then it is inferred). Fills
// the analysis' specPath and specError.
std::optional<MatrixSpec> loadSpec(const RepositorySource& source, const AnalyzerOptions& options,
                                   const Catalog& catalog, Analysis& analysis)
{
    const std::string specPath =
        options.specPath.empty() ? std::string(MatrixSpec::defaultPath) : options.specPath;
    bool specFound = false;
    std::string specBytes;
    std::string specReadError;
    if (std::filesystem::path(specPath).is_absolute()) {
        std::ifstream in(specPath, std::ios::binary);
        if (in) {
            specFound = true;
            std::ostringstream text;
            text << in.rdbuf();
            specBytes = text.str();
        } else if (!options.specPath.empty()) {
            specFound = true;
            specReadError = "cannot read the spec file";
        }
    } else if (source.exists(specPath)) {
        specFound = true;
        SourceFile file = source.read(specPath, options.maxFileSize);
        if (file.error.empty())
            specBytes = std::move(file.bytes);
        else
            specReadError = file.error;
    } else if (!options.specPath.empty()) {
        specFound = true;
        specReadError = "no such file";
    }
    if (!specFound)
        return std::nullopt;
    analysis.specPath = specPath;
    SpecError error;
    std::optional<MatrixSpec> spec;
    if (specReadError.empty())
        spec = MatrixSpec::fromJson(specBytes, specPath, catalog, &error);
    else
        error = SpecError{specPath, 0, 0, "", specReadError};
    if (!spec)
        analysis.specError = error;
    return spec;
}

// Without a spec file: what the recipes themselves say the branch builds.
MatrixSpec inferSpec(const std::vector<std::shared_ptr<const RecipeFacts>>& recipes,
                     const std::vector<int>& bases, const Catalog& catalog, Analysis& analysis,
                     size_t& inferredFrom)
{
    std::vector<InferenceSample> samples;
    for (size_t i = 0; i < recipes.size(); ++i) {
        const auto& recipe = recipes[i];
        // A recipe that cannot be read still names its cell; only its facts are unknown.
        if (!recipe->variant)
            continue;
        // A wrapper's pin and torch are its base's.
        const RecipeFacts& source =
            bases[i] >= 0 ? *recipes[static_cast<size_t>(bases[i])] : *recipe;
        InferenceSample sample;
        sample.name = *recipe->variant;
        if (!source.pins.empty())
            sample.pin = source.pins.front().revision;
        if (source.torchVersion)
            sample.torchVersion = source.torchVersion->value;
        if (recipe->pname)
            sample.pname = recipe->pname->value;
        sample.fileName = recipe->fileName;
        sample.pattern.kind = recipe->pattern;
        for (const OverlayFact& overlay : recipe->overlays)
            if (overlay.kind != OverlayKind::Other)
                sample.pattern.overlays.push_back(overlay.kind);
        samples.push_back(std::move(sample));
    }
    MatrixSpec spec = MatrixSpec::infer(samples, catalog);
    spec.recipeDir = analysis.recipeDir;
    inferredFrom = samples.size();
    return spec;
}

// A recipe that cannot be read still names its cell; only its facts are unknown.
std::shared_ptr<const RecipeFacts> unreadFacts(const SourceEntry& entry, const SourceFile& file)
{
    auto facts = std::make_shared<RecipeFacts>();
    facts->path = entry.path;
    facts->fileName = fileNameOf(entry.path);
    facts->variant = VariantName::parse(stemOf(facts->fileName));
    facts->size = entry.size;
    facts->problem = file.oversized           ? FileProblem::Oversized
                     : file.outsideRepository ? FileProblem::Symlink
                                              : FileProblem::Unreadable;
    facts->problemDetail = file.error;
    return facts;
}

bool canonicalsDiffer(const RecipeGrouping& a, const RecipeGrouping& b)
{
    return !std::equal(a.groups().begin(), a.groups().end(), b.groups().begin(), b.groups().end(),
                       [](const RecipeGroup& x, const RecipeGroup& y) {
                           return x.profile.canonical == y.profile.canonical;
                       });
}

} // namespace

std::vector<std::shared_ptr<const RecipeFacts>>
Analyzer::scan(const RepositorySource& source, const std::vector<SourceEntry>& listed,
               const AnalyzerOptions& options, RecipeCache* cache) const
{
    // Read, parse and extract in parallel; unchanged files come from the cache.
    std::vector<std::shared_ptr<const RecipeFacts>> recipes(listed.size());
    RecipeModules modules(source, options.maxFileSize); // each parsed once per scan
    std::atomic<int> parsed{0};
    std::atomic<int> done{0};
    const int total = static_cast<int>(listed.size());
    const auto reportProgress = [&] {
        const int now = ++done;
        if (options.progress)
            options.progress(now, total);
    };
    // A recipe's facts from an earlier scan hold while the modules it read do.
    const auto current = [&](const std::shared_ptr<const RecipeFacts>& known) {
        return known &&
               std::all_of(known->modules.begin(), known->modules.end(), [&](const auto& module) {
                   return modules.stamp(module.first) == module.second;
               });
    };
    parallelFor(listed.size(), threadsFor(options), [&](size_t i) {
        const SourceEntry& entry = listed[i];
        if (cache)
            if (auto known = cache->find(entry.path, entry.stamp); current(known)) {
                recipes[i] = std::move(known);
                reportProgress();
                return;
            }
        SourceFile file = source.read(entry.path, options.maxFileSize);
        std::shared_ptr<const RecipeFacts> facts;
        if (!file.error.empty()) {
            facts = unreadFacts(entry, file);
        } else {
            std::string digest = RecipeContentKey::digestOf(file.bytes);
            if (cache)
                facts = cache->findContent(entry.path, digest);
            if (!current(facts)) {
                ModuleTrail trail(modules);
                auto read = std::make_shared<RecipeFacts>(
                    extract(entry.path, std::move(file.bytes), &trail));
                read->digest = std::move(digest);
                for (const std::string& module : trail.reached())
                    read->modules.emplace_back(module, modules.stamp(module));
                facts = std::move(read);
                ++parsed;
            }
        }
        recipes[i] = facts;
        if (cache)
            cache->store(entry.path, entry.stamp, facts);
        reportProgress();
    });
    if (cache) {
        std::vector<std::string> paths;
        paths.reserve(listed.size());
        for (const SourceEntry& entry : listed)
            paths.push_back(entry.path);
        cache->retainOnly(paths);
        std::lock_guard lock(cache->m_mutex);
        cache->m_parsed += parsed.load();
    }
    return recipes;
}

Analysis Analyzer::analyze(const RepositorySource& source, const AnalyzerOptions& options,
                           RecipeCache* cache) const
{
    Analysis analysis;
    std::optional<MatrixSpec> spec = loadSpec(source, options, m_catalog, analysis);
    analysis.recipeDir = !options.recipeDir.empty() ? options.recipeDir
                         : spec                     ? spec->recipeDir
                                                    : std::string(".flox/pkgs");
    std::string listError;
    const std::vector<SourceEntry> listed = source.list(analysis.recipeDir, &listError);
    if (!listError.empty())
        analysis.sourceError = listError;
    for (const SourceEntry& entry : listed)
        analysis.files.push_back(entry.path);

    const auto recipes = scan(source, listed, options, cache);
    std::set<std::string> modules;
    for (const auto& recipe : recipes)
        for (const auto& [module, stamp] : recipe->modules)
            modules.insert(module);
    analysis.modules.assign(modules.begin(), modules.end());
    const std::vector<int> bases = wrappedBases(recipes);
    size_t inferredFrom = 0;
    if (!spec)
        spec = inferSpec(recipes, bases, m_catalog, analysis, inferredFrom);
    analysis.spec = std::move(*spec);
    const MatrixSpec& theSpec = analysis.spec;
    // A spec may declare archs, CUDA versions or ISAs newer than this build of RecipeGrid.
    analysis.catalog = theSpec.effectiveCatalog(m_catalog);
    const Catalog& catalog = analysis.catalog;

    std::vector<std::vector<Finding>> findings(recipes.size());
    RecipeExpectations expectations(recipes.size());
    const CellAssignment cells(theSpec, catalog);
    const std::vector<const RecipeFacts*> builtBy = cells.builtBy(recipes);
    auto judge = [&](const RecipeGrouping& grouping) {
        parallelFor(recipes.size(), threadsFor(options), [&](size_t i) {
            if (recipes[i]->variant)
                expectations[i] =
                    analysis.expectationFor(*recipes[i]->variant, grouping.profileOf(i));
            findings[i] = RuleSet::check(*recipes[i], expectations[i].get(), catalog, builtBy[i]);
        });
        // A wrapper is judged as its base under the wrapper's own name and group.
        RepositoryCheck across{source, recipes, bases, expectations, catalog, findings};
        RuleSet::check(across);
    };
    RecipeGrouping grouping(recipes, bases, theSpec, catalog);
    judge(grouping);
    // Missing and broken variants are cloned from a group's canonical recipe, and notations
    // are judged against it: one that does not build its own name is chosen only when its
    // group has nothing better.
    std::vector<bool> broken(recipes.size());
    for (size_t i = 0; i < recipes.size(); ++i)
        broken[i] = std::any_of(findings[i].begin(), findings[i].end(),
                                [](const Finding& f) { return f.severity == Severity::Error; });
    RecipeGrouping sound(recipes, bases, theSpec, catalog, broken);
    const bool rejudge = canonicalsDiffer(sound, grouping);
    grouping = std::move(sound);
    if (rejudge)
        judge(grouping);
    analysis.groups = grouping.groups();

    cells.assign(recipes, std::move(findings), std::move(expectations), analysis);
    SpecCheck specCheck{analysis, inferredFrom};
    RuleSet::check(specCheck);
    RuleSet::sort(analysis.repositoryFindings);
    return analysis;
}

} // namespace rg
