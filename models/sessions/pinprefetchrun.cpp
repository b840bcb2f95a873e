#include "sessions/pinprefetchrun.h"

#include "analysis/analysis.h"
#include "pins/pinprefetcher.h"
#include "sessions/backgroundpool.h"
#include "sessions/qtext.h"
#include "vcs/repositorysource.h"

#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

namespace rg {

PinPrefetchRun::PinPrefetchRun(QObject* parent)
    : QObject(parent), m_prefetcher(new PinPrefetcher(this))
{
    connect(&m_targets, &QFutureWatcher<std::vector<PrefetchTarget>>::finished, this,
            &PinPrefetchRun::targetsFound);
    connect(m_prefetcher, &PinPrefetcher::started, this,
            [this](int index, int, const QString& url) {
                emit downloadStarted(m_fetchedBefore + index, m_total, url);
            });
    connect(m_prefetcher, &PinPrefetcher::output, this,
            [this](const QString&, const QString& line) { emit output(line); });
    connect(m_prefetcher, &PinPrefetcher::finished, this, &PinPrefetchRun::batchFinished);
}

PinPrefetchRun::~PinPrefetchRun()
{
    m_targets.waitForFinished();
}

void PinPrefetchRun::setProgram(const QString& program)
{
    m_program = program;
    m_prefetcher->setProgram(program);
}

bool PinPrefetchRun::isRunning() const
{
    return m_running;
}

bool PinPrefetchRun::start(std::shared_ptr<const RepositorySource> source,
                           std::shared_ptr<const Analysis> analysis, const PinBumpRequest& request)
{
    if (m_running || !source || !analysis)
        return false;
    m_running = true;
    m_stopped = false;
    m_targets.setFuture(QtConcurrent::run(backgroundPool(), [source, analysis, request] {
        std::vector<PrefetchTarget> targets =
            PinBumpPlanner(source, analysis).prefetchTargets(request);
        std::erase_if(targets, [&](const PrefetchTarget& target) {
            return request.newHashes.count(target.key) > 0;
        });
        return targets;
    }));
    return true;
}

void PinPrefetchRun::stop()
{
    if (!m_running || m_stopped)
        return;
    m_stopped = true;
    if (m_prefetcher->isRunning())
        m_prefetcher->cancel(); // batchFinished() follows and ends the run
}

void PinPrefetchRun::targetsFound()
{
    const std::vector<PrefetchTarget> targets = m_targets.result();
    if (m_stopped) {
        finish({tr("The download was stopped.")});
        return;
    }
    m_batches.clear();
    for (const bool unpack : {true, false}) {
        Batch batch{unpack, {}};
        for (const PrefetchTarget& target : targets)
            if (target.unpack == unpack)
                batch.targets.push_back(target);
        if (!batch.targets.empty())
            m_batches.push_back(std::move(batch));
    }
    m_batch = 0;
    m_fetchedBefore = 0;
    m_total = static_cast<int>(targets.size());
    m_fetched.clear();
    m_errors.clear();
    startBatch();
}

void PinPrefetchRun::startBatch()
{
    if (m_batch >= m_batches.size()) {
        finish(m_errors);
        return;
    }
    std::vector<std::string> urls;
    for (const PrefetchTarget& target : m_batches[m_batch].targets)
        urls.push_back(target.url);
    m_prefetcher->start(urls, m_batches[m_batch].unpack);
}

void PinPrefetchRun::batchFinished()
{
    if (m_batch >= m_batches.size())
        return;
    const Batch& batch = m_batches[m_batch];
    for (const PrefetchResult& result : m_prefetcher->results()) {
        const auto target =
            std::find_if(batch.targets.begin(), batch.targets.end(),
                         [&](const PrefetchTarget& t) { return t.url == result.url; });
        if (result.ok() && target != batch.targets.end())
            m_fetched[target->key] = result.hash;
        else if (!result.ok())
            m_errors << qs(result.error);
    }
    m_fetchedBefore += static_cast<int>(batch.targets.size());
    ++m_batch;
    if (m_stopped) {
        finish({tr("The download was stopped.")});
        return;
    }
    startBatch();
}

void PinPrefetchRun::finish(const QStringList& errors)
{
    m_batches.clear();
    m_batch = 0;
    const PrefetchedHashes fetched = std::move(m_fetched);
    m_fetched.clear();
    m_running = false;
    emit finished(fetched, errors);
}

} // namespace rg
