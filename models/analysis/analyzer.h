#pragma once

// Runs the whole pipeline on a repository: list → read → parse → facts → rules → statuses.
// Pure function of its inputs; safe on a worker thread. A RecipeCache makes a re-scan after
// one changed file parse only that file.

#include "analysis/analysis.h"
#include "matrix/catalog.h"
#include "nix/moduleloader.h"
#include "vcs/repositorysource.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace rg {

// Facts by path and stamp, reused between scans of the same source. A file whose stamp changed
// but whose bytes did not (touched, rewritten alike, or planned by a change set) is read and
// hashed, not parsed again: facts are a function of the path, the bytes and the modules read.
class RecipeCache
{
public:
    std::shared_ptr<const RecipeFacts> find(const std::string& path,
                                            const std::string& stamp) const;
    // The facts at `path` when they were extracted from bytes of that digest, whatever the stamp.
    std::shared_ptr<const RecipeFacts> findContent(const std::string& path,
                                                   const std::string& digest) const;
    void store(const std::string& path, const std::string& stamp,
               std::shared_ptr<const RecipeFacts> facts);
    // Facts an earlier analysis holds, from a source whose stamps are not known: found by
    // content alone.
    void seed(const Analysis& analysis);
    void retainOnly(const std::vector<std::string>& paths);
    int parsedCount() const { return m_parsed; } // files actually parsed since construction

private:
    friend class Analyzer;
    mutable std::mutex m_mutex;
    std::map<std::string, std::pair<std::string, std::shared_ptr<const RecipeFacts>>> m_entries;
    int m_parsed = 0;
};

struct AnalyzerOptions
{
    std::string specPath;  // relative to the root or absolute; "" → MatrixSpec::defaultPath
    std::string recipeDir; // overrides the spec's recipeDir when non-empty
    static constexpr uint64_t defaultMaxFileSize = 4 * 1024 * 1024;
    uint64_t maxFileSize = defaultMaxFileSize;
    int threads = 0; // 0 → QThread::idealThreadCount()
    // Called from worker threads after each file is read (done of total), so a window can
    // show real progress for large repositories; must be thread-safe and cheap.
    std::function<void(int done, int total)> progress;
};

class Analyzer
{
public:
    Analyzer(); // on the built-in catalog
    // `base` is the catalog a spec extends with its own "catalog" entries (Analysis::catalog).
    explicit Analyzer(const Catalog& base);

    Analysis analyze(const RepositorySource& source, const AnalyzerOptions& options = {},
                     RecipeCache* cache = nullptr) const;

    // Facts of one file's bytes (the parser plus fact extraction, no rules); `modules` reaches
    // the repository's own Nix modules the file imports.
    RecipeFacts extract(const std::string& path, std::string bytes,
                        nix::ModuleLoader* modules = nullptr) const;

private:
    std::vector<std::shared_ptr<const RecipeFacts>> scan(const RepositorySource& source,
                                                         const std::vector<SourceEntry>& listed,
                                                         const AnalyzerOptions& options,
                                                         RecipeCache* cache) const;

    const Catalog& m_catalog;
};

} // namespace rg
