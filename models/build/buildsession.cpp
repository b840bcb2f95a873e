#include "build/buildsession.h"

#include "build/buildhistory.h"
#include "build/buildjobsmodel.h"
#include "build/buildqueue.h"
#include "build/logstore.h"

#include <QDir>
#include <QStandardPaths>

namespace rg {

BuildSession::BuildSession(const QString& dataDirectory, QObject* parent) : QObject(parent)
{
    const QString dir = dataDirectory.isEmpty()
                            ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                            : dataDirectory;
    m_logStore = std::make_unique<LogStore>(QDir(dir).filePath(QStringLiteral("logs")));
    m_history =
        std::make_unique<BuildHistory>(QDir(dir).filePath(QStringLiteral("build-history.json")));
    m_queue = new BuildQueue(this);
    m_queue->setLogStore(m_logStore.get());
    m_queue->setHistory(m_history.get());
    m_model = new BuildJobsModel(m_queue, m_history.get(), this);
    connect(m_queue, &BuildQueue::jobQueued, this, &BuildSession::jobChanged);
    connect(m_queue, &BuildQueue::jobStarted, this, &BuildSession::jobChanged);
    connect(m_queue, &BuildQueue::jobProgress, this, &BuildSession::jobChanged);
    connect(m_queue, &BuildQueue::jobVerificationStarted, this, &BuildSession::jobChanged);
    connect(m_queue, &BuildQueue::jobFinished, this, &BuildSession::jobChanged);
}

BuildSession::~BuildSession()
{
    // The model and queue reference the history and the log store: end them first.
    delete m_model;
    delete m_queue;
}

const BuildSettings& BuildSession::settings() const
{
    return m_queue->settings();
}

void BuildSession::setSettings(const BuildSettings& settings)
{
    m_queue->setSettings(settings);
}

QList<quint64> BuildSession::build(const QString& repository, const QStringList& variants,
                                   QStringList* errors)
{
    QList<quint64> ids;
    for (const QString& variant : variants) {
        QString error;
        auto target = BuildTarget::resolve(repository, variant, m_recipeDir, &error);
        if (target) {
            target->expected.torch = m_torchVersion;
            if (const quint64 id = m_queue->enqueue(*target, &error)) {
                ids << id;
                continue;
            }
        }
        if (errors)
            *errors << error;
    }
    return ids;
}

quint64 BuildSession::publish(const QString& repository, const QString& variant, QString* error)
{
    const auto target = BuildTarget::resolve(repository, variant, m_recipeDir, error);
    return target ? m_queue->enqueuePublish(*target, error) : 0;
}

void BuildSession::cancel(quint64 jobId)
{
    m_queue->cancel(jobId);
}

void BuildSession::cancelAll()
{
    m_queue->cancelAll();
}

bool BuildSession::hasRunningJobs() const
{
    return m_queue->hasRunningJobs();
}

QString BuildSession::historyError() const
{
    return m_history->loadError();
}

VariantBuildState BuildSession::variantState(const QString& variant) const
{
    VariantBuildState state;
    // The newest finished build: this session's jobs are newer than the history's, and
    // finished ones are in the history too, so the history answers for both.
    if (const BuildRecord* last = m_history->latest(variant)) {
        state.lastJobId = last->id;
        state.lastState = last->state;
        state.lastDurationMs = last->durationMs();
        state.lastFinishedAt = last->finishedAt;
        state.lastVerification = last->verification;
    }
    const QList<quint64> ids = m_queue->jobIds();
    for (auto it = ids.crbegin(); it != ids.crend(); ++it) {
        const BuildRecord* job = m_queue->job(*it);
        if (job->variant != variant || job->kind != JobKind::Build || job->isFinished())
            continue;
        state.currentJobId = job->id;
        state.queued = job->state == JobState::Queued;
        state.running = job->state == JobState::Running;
        state.verifying = state.running && job->startedAt.isValid() &&
                          job->exitCode == 0; // the process ended well, the check runs
        state.progressDone = job->progressDone;
        state.progressTotal = job->progressTotal;
        if (const auto estimate = m_queue->estimatedDurationMs(job->id))
            state.estimatedRemainingMs =
                std::max<qint64>(0, *estimate - std::max<qint64>(0, job->durationMs()));
        break;
    }
    return state;
}

void BuildSession::jobChanged(quint64 id)
{
    if (const BuildRecord* job = m_queue->job(id))
        emit variantStateChanged(job->variant);
}

} // namespace rg
