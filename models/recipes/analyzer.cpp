#include "recipes/analyzer.h"

#include "nix/syntaxtree.h"
#include "recipes/factextractor.h"
#include "recipes/ruleset.h"

#include <QThread>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
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

bool hasProblems(const std::vector<Finding>& findings)
{
    return std::any_of(findings.begin(), findings.end(),
                       [](const Finding& f) { return f.severity != Severity::Info; });
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

// A thin wrapper takes its pin, overlays and torch from the file it wraps: the rules that
// depend on the variant are checked on that file for each wrapper, and point into that file.
// Rules that do not depend on the variant are reported once, on the base itself.
void addWrappedFindings(const std::vector<std::shared_ptr<const RecipeFacts>>& recipes,
                        const std::vector<int>& bases, const MatrixSpec& spec,
                        const Catalog& catalog, std::vector<std::vector<Finding>>& findings)
{
    static const std::set<std::string> inherited = {
        "pin-mismatch",           "pin-missing",
        "missing-overlay",        "cuda-version-mismatch",
        "torch-version-mismatch", "python-version-mismatch",
        "cpu-recipe-cuda-inputs"};
    for (size_t i = 0; i < recipes.size(); ++i) {
        if (bases[i] < 0 || !recipes[i]->variant)
            continue;
        RecipeFacts asVariant = *recipes[static_cast<size_t>(bases[i])];
        asVariant.variant = recipes[i]->variant;
        std::set<std::string> own;
        for (const Finding& finding : findings[i])
            own.insert(finding.ruleId);
        for (Finding& finding : RuleSet::check(asVariant, spec, catalog))
            if (inherited.count(finding.ruleId) && !own.count(finding.ruleId)) {
                finding.message += " (inherited from " + asVariant.fileName + ")";
                findings[i].push_back(std::move(finding));
            }
        RuleSet::sort(findings[i]);
    }
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

Analyzer::Analyzer(const Catalog& catalog) : m_catalog(catalog) {}

RecipeFacts Analyzer::extract(const std::string& path, std::string bytes) const
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
        facts.problem = FileProblem::SyntaxError;
        facts.parseError = tree.error();
        facts.problemDetail = tree.error() ? tree.error()->message : "unparsable";
        return facts;
    }
    FactExtractor::extract(tree, facts);
    return facts;
}

Analysis Analyzer::analyze(const RepositorySource& source, const AnalyzerOptions& options,
                           RecipeCache* cache) const
{
    Analysis analysis;

    // The spec: loaded when present and valid, inferred after the scan otherwise.
    const std::string specPath =
        options.specPath.empty() ? std::string(MatrixSpec::defaultPath) : options.specPath;
    std::optional<MatrixSpec> spec;
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
    if (specFound) {
        analysis.specPath = specPath;
        SpecError error;
        if (specReadError.empty())
            spec = MatrixSpec::fromJson(specBytes, specPath, m_catalog, &error);
        else
            error = SpecError{specPath, 0, 0, "", specReadError};
        if (!spec)
            analysis.specError = error;
    }

    analysis.recipeDir = !options.recipeDir.empty() ? options.recipeDir
                         : spec                     ? spec->recipeDir
                                                    : std::string(".flox/pkgs");
    std::string listError;
    const std::vector<SourceEntry> listed = source.list(analysis.recipeDir, &listError);
    if (!listError.empty())
        analysis.sourceError = listError;

    // Read, parse and extract in parallel; unchanged files come from the cache.
    std::vector<std::shared_ptr<const RecipeFacts>> recipes(listed.size());
    std::atomic<int> parsed{0};
    std::atomic<int> done{0};
    const int total = static_cast<int>(listed.size());
    const auto reportProgress = [&] {
        const int now = ++done;
        if (options.progress)
            options.progress(now, total);
    };
    const int threads = options.threads > 0 ? options.threads : QThread::idealThreadCount();
    parallelFor(listed.size(), threads, [&](size_t i) {
        const SourceEntry& entry = listed[i];
        if (cache)
            if (auto known = cache->find(entry.path, entry.stamp)) {
                recipes[i] = std::move(known);
                reportProgress();
                return;
            }
        SourceFile file = source.read(entry.path, options.maxFileSize);
        std::shared_ptr<RecipeFacts> facts;
        if (!file.error.empty()) {
            facts = std::make_shared<RecipeFacts>();
            facts->path = entry.path;
            facts->fileName = fileNameOf(entry.path);
            facts->variant = VariantName::parse(stemOf(facts->fileName));
            facts->size = entry.size;
            facts->problem = file.oversized           ? FileProblem::Oversized
                             : file.outsideRepository ? FileProblem::Symlink
                                                      : FileProblem::Unreadable;
            facts->problemDetail = file.error;
        } else {
            facts = std::make_shared<RecipeFacts>(extract(entry.path, std::move(file.bytes)));
            ++parsed;
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

    const std::vector<int> bases = wrappedBases(recipes);
    if (!spec) {
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
        spec = MatrixSpec::infer(samples, m_catalog);
        spec->recipeDir = analysis.recipeDir;
        Finding note;
        note.file = analysis.specPath;
        if (analysis.specError) {
            note.ruleId = "spec-invalid";
            note.severity = Severity::Error;
            note.message = analysis.specError->toString() + " (the spec was inferred instead)";
            note.line = static_cast<uint32_t>(std::max(0, analysis.specError->line));
            note.column = static_cast<uint32_t>(std::max(0, analysis.specError->column));
        } else {
            note.ruleId = "spec-inferred";
            note.severity = Severity::Info;
            note.message = "no matrix spec at " + specPath +
                           "; the expected matrix was inferred from " +
                           std::to_string(samples.size()) + " recipes";
        }
        analysis.repositoryFindings.push_back(std::move(note));
    }
    analysis.spec = std::move(*spec);
    const MatrixSpec& theSpec = analysis.spec;

    // Per-recipe rules.
    std::vector<std::vector<Finding>> findings(recipes.size());
    parallelFor(recipes.size(), threads,
                [&](size_t i) { findings[i] = RuleSet::check(*recipes[i], theSpec, m_catalog); });
    addWrappedFindings(recipes, bases, theSpec, m_catalog, findings);

    // A grid cell is a matrix point of one package: the spec's package words each have their
    // own cells; any other package word (pytorch210-…) competes for the main package's cell.
    auto cellOf = [&theSpec](const VariantName& name) {
        const bool own = name.package == theSpec.package ||
                         std::find(theSpec.extraPackages.begin(), theSpec.extraPackages.end(),
                                   name.package) != theSpec.extraPackages.end();
        return (own ? name.package : theSpec.package) + ':' + name.cellKey();
    };

    // Expected cells first, in spec order.
    const std::vector<VariantName> expected = theSpec.expectedVariants();
    std::unordered_map<std::string, size_t> cellIndex;
    analysis.entries.reserve(expected.size() + recipes.size() / 8);
    for (const VariantName& name : expected) {
        MatrixEntry entry;
        entry.variant = name;
        entry.expected = true;
        entry.status = CellStatus::Missing;
        cellIndex.emplace(cellOf(name), analysis.entries.size());
        analysis.entries.push_back(std::move(entry));
    }

    // Which file stands for each cell: an unsuffixed recipe the spec expects, else the first
    // unsuffixed recipe of that cell.
    std::unordered_map<std::string, size_t> primary;
    for (size_t i = 0; i < recipes.size(); ++i) {
        const RecipeFacts& recipe = *recipes[i];
        if (!recipe.variant || !recipe.variant->suffixes.empty())
            continue;
        const std::string key = cellOf(*recipe.variant);
        auto it = primary.find(key);
        if (it == primary.end())
            primary.emplace(key, i);
        else if (theSpec.expects(*recipe.variant) &&
                 !theSpec.expects(*recipes[it->second]->variant))
            it->second = i;
    }

    // Legacy names carry no CUDA version (pytorch-py313-sm90-avx512); such a file duplicates a
    // canonically named recipe of the same Python, arch and ISA.
    auto withoutCuda = [&cellOf](VariantName name) {
        name.cuda.clear();
        return cellOf(name);
    };
    std::unordered_map<std::string, size_t> versioned;
    for (const auto& [key, index] : primary) {
        const VariantName& name = *recipes[index]->variant;
        if (name.accelerator == Accelerator::Cuda && !name.cuda.empty())
            versioned.emplace(withoutCuda(name), index);
    }

    std::set<std::string> wrapped; // files other recipes wrap are shared bases, not variants
    for (const auto& recipe : recipes)
        if (recipe->wrappedFile) {
            std::string target = recipe->wrappedFile->value;
            if (target.rfind("./", 0) == 0)
                target.erase(0, 2);
            wrapped.insert(target);
        }

    for (size_t i = 0; i < recipes.size(); ++i) {
        const auto& recipe = recipes[i];
        std::vector<Finding>& own = findings[i];
        if (!recipe->variant) {
            if (!wrapped.count(recipe->fileName))
                analysis.repositoryFindings.push_back(RuleSet::make(
                    "not-a-variant-name", *recipe,
                    "'" + recipe->fileName +
                        "' is not a variant name (package-pythonXYZ-cudaX_Y-smNN-isa)"));
            analysis.repositoryFindings.insert(analysis.repositoryFindings.end(), own.begin(),
                                               own.end());
            analysis.unnamed.push_back(*recipe);
            continue;
        }
        const VariantName& variant = *recipe->variant;
        const std::string key = cellOf(variant);
        const auto primaryIt = primary.find(key);
        const bool isPrimary = primaryIt != primary.end() && primaryIt->second == i;
        const bool expected = isPrimary && theSpec.expects(variant);
        const auto cell = cellIndex.find(key);

        if (expected && cell != cellIndex.end()) {
            MatrixEntry& entry = analysis.entries[cell->second];
            entry.recipe = recipe;
            entry.findings = std::move(own);
            const bool impossible =
                std::any_of(entry.findings.begin(), entry.findings.end(),
                            [](const Finding& f) { return f.ruleId == "impossible-pairing"; });
            entry.status = impossible                    ? CellStatus::Impossible
                           : hasProblems(entry.findings) ? CellStatus::Broken
                                                         : CellStatus::Ok;
            continue;
        }

        MatrixEntry entry;
        entry.variant = variant;
        entry.recipe = recipe;
        entry.expected = false;
        std::optional<size_t> duplicateOf;
        if (!isPrimary && primaryIt != primary.end())
            duplicateOf = primaryIt->second;
        else if (variant.accelerator == Accelerator::Cuda && variant.cuda.empty() &&
                 variant.suffixes.empty())
            if (auto it = versioned.find(withoutCuda(variant)); it != versioned.end())
                duplicateOf = it->second;
        if (duplicateOf) {
            // Another unsuffixed recipe already builds this cell.
            const RecipeFacts& other = *recipes[*duplicateOf];
            for (Finding& finding : own)
                if (finding.ruleId == "nonstandard-suffix") {
                    finding.fix = FixKind::Delete;
                    finding.message += ", which " + other.fileName + " already builds";
                }
            if (variant.suffixes.empty())
                own.push_back(
                    RuleSet::make("duplicate-variant", *recipe,
                                  recipe->fileName + " builds the same cell as " + other.fileName));
            entry.status = CellStatus::Redundant;
        } else if (cell != cellIndex.end() && !variant.suffixes.empty()) {
            // A suffixed recipe standing in for an expected cell that has no proper recipe.
            entry.status = hasProblems(own) ? CellStatus::Broken : CellStatus::Ok;
        } else {
            const bool impossible = std::any_of(own.begin(), own.end(), [](const Finding& f) {
                return f.ruleId == "impossible-pairing" || f.ruleId == "cuda-below-minimum";
            });
            // A stray file that is also wrong is reported as broken, as release engineers
            // call it (seed 001's sm120-avx); "unexpected" is left for sound recipes the spec
            // does not ask for.
            entry.status = impossible         ? CellStatus::Impossible
                           : hasProblems(own) ? CellStatus::Broken
                                              : CellStatus::Unexpected;
            if (!impossible)
                own.push_back(RuleSet::make("unexpected-variant", *recipe,
                                            variant.toString() + " is not in the spec" +
                                                (theSpec.isInferred() ? " (inferred)" : "")));
        }
        RuleSet::sort(own);
        entry.findings = std::move(own);
        analysis.entries.push_back(std::move(entry));
    }

    for (MatrixEntry& entry : analysis.entries) {
        if (entry.status == CellStatus::Missing) {
            Finding finding;
            finding.ruleId = "missing-variant";
            finding.severity = Severity::Warning;
            finding.fix = FixKind::Create;
            finding.file = analysis.recipeDir + "/" + entry.variant.toString() + ".nix";
            finding.message =
                entry.variant.toString() + " is expected by the spec but has no recipe";
            entry.findings.push_back(std::move(finding));
        }
        entry.reason = reasonOf(entry.findings);
    }
    RuleSet::sort(analysis.repositoryFindings);
    return analysis;
}

} // namespace rg
