#include "eval/recipeevaluator.h"

#include "eval/evalbatch.h"

#include <QThread>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentMap>
#include <algorithm>
#include <mutex>

namespace rg {

RecipeEvaluator::RecipeEvaluator(EvalSettings settings)
    : RecipeEvaluator(std::move(settings), NixInstallation::find())
{}

RecipeEvaluator::RecipeEvaluator(EvalSettings settings, NixInstallation nix)
    : m_settings(std::move(settings)), m_nix(std::move(nix))
{
    if (m_settings.jobs <= 0)
        m_settings.jobs = std::max(1, QThread::idealThreadCount());
}

std::vector<std::vector<size_t>> RecipeEvaluator::batches(const std::vector<EvalItem>& items,
                                                          const std::vector<size_t>& todo, int jobs)
{
    std::vector<size_t> ordered = todo;
    std::stable_sort(ordered.begin(), ordered.end(),
                     [&](size_t a, size_t b) { return items[a].pin < items[b].pin; });
    const size_t count = std::min(ordered.size(), size_t(std::max(1, jobs)));
    std::vector<std::vector<size_t>> out(count);
    for (size_t i = 0; i < ordered.size(); ++i)
        out[i * count / ordered.size()].push_back(ordered[i]);
    return out;
}

std::vector<EvaluatedRecipe> RecipeEvaluator::evaluate(const std::vector<EvalItem>& items,
                                                       const Progress& progress,
                                                       const std::atomic<bool>* cancel) const
{
    std::vector<EvaluatedRecipe> results(items.size());
    const std::atomic<bool> never{false};
    const std::atomic<bool>& stop = cancel ? *cancel : never;
    const EvalCache cache(m_settings, m_nix.version);
    std::vector<std::string> keys(items.size());
    std::vector<size_t> todo;
    int done = 0;
    for (size_t i = 0; i < items.size(); ++i) {
        results[i].path = items[i].path;
        if (!m_nix.usable()) {
            results[i].error.message = m_nix.error;
            results[i].transient = true;
            continue;
        }
        keys[i] = cache.keyOf(items[i]);
        if (auto cached = cache.find(keys[i])) {
            results[i] = std::move(*cached);
            ++done;
        } else {
            todo.push_back(i);
        }
    }
    if (todo.empty())
        return results;

    m_nix.openStore(m_settings.store);
    std::mutex mutex; // guards results, done and the progress callback
    const int total = int(items.size());
    if (progress)
        progress(done, total, {});
    QThreadPool pool;
    pool.setMaxThreadCount(m_settings.jobs);
    std::vector<std::vector<size_t>> groups = batches(items, todo, m_settings.jobs);
    QtConcurrent::blockingMap(&pool, groups, [&](const std::vector<size_t>& batch) {
        std::vector<EvalItem> mine;
        for (size_t index : batch)
            mine.push_back(items[index]);
        std::map<std::string, size_t> indexOf;
        for (size_t index : batch)
            indexOf[items[index].path] = index;
        EvalBatch(m_nix, m_settings, stop)
            .run(
                mine,
                [&](const std::string& path) {
                    const std::lock_guard lock(mutex);
                    if (progress)
                        progress(done, total, path);
                },
                [&](EvaluatedRecipe result) {
                    const size_t index = indexOf.at(result.path);
                    cache.store(keys[index], result);
                    const std::lock_guard lock(mutex);
                    results[index] = std::move(result);
                    ++done;
                    if (progress)
                        progress(done, total, {});
                });
    });
    return results;
}

} // namespace rg
