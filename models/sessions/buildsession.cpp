#include "sessions/buildsession.h"

#include "analysis/analysis.h"
#include "analysis/cellselector.h"
#include "analysis/recipecontentkey.h"
#include "builds/buildhistory.h"
#include "builds/buildqueue.h"
#include "builds/logstore.h"
#include "vcs/gitrepositoryinfo.h"
#include "vcs/repositorysource.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace rg {

namespace {

// The recipe's path relative to the repository, as the analysis names it.
QString relativeRecipePath(const BuildTarget& target, const QString& repository)
{
    return QDir(QFileInfo(repository).absoluteFilePath()).relativeFilePath(target.recipeFile);
}

} // namespace

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
    connect(m_queue, &BuildQueue::jobQueued, this, &BuildSession::jobChanged);
    connect(m_queue, &BuildQueue::jobStarted, this, &BuildSession::jobChanged);
    connect(m_queue, &BuildQueue::jobProgress, this, &BuildSession::jobChanged);
    connect(m_queue, &BuildQueue::jobPlaced, this, &BuildSession::jobChanged);
    connect(m_queue, &BuildQueue::jobVerificationStarted, this, &BuildSession::jobChanged);
    connect(m_queue, &BuildQueue::jobFinished, this, &BuildSession::jobChanged);
}

BuildSession::~BuildSession()
{
    // The queue references the history and the log store: end it first.
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

void BuildSession::setAnalysis(const QString& repository, std::shared_ptr<const Analysis> analysis)
{
    m_analysisRoot = canonical(repository);
    m_analysis = std::move(analysis);
}

QString BuildSession::canonical(const QString& repository) const
{
    const auto known = m_canonical.constFind(repository);
    if (known != m_canonical.cend())
        return *known;
    const QString path = QFileInfo(repository).canonicalFilePath();
    const QString result = path.isEmpty() ? QDir::cleanPath(repository) : path;
    m_canonical.insert(repository, result);
    return result;
}

// What every job made in one repository at one time records: the branch and commit checked
// out, and each recipe's content key, read from the work tree now (as the build reads it).
struct BuildSession::JobPlace
{
    QString repository;
    QString branch;
    QString commit;
    std::unique_ptr<RepositorySource> source;
    RecipeContentKey::FileDigests digests;
};

std::unique_ptr<BuildSession::JobPlace> BuildSession::placeOf(const QString& repository) const
{
    auto place = std::make_unique<JobPlace>();
    place->repository = repository;
    std::string gitError;
    if (const auto git = GitRepositoryInfo::open(repository.toStdString(), &gitError)) {
        place->branch = QString::fromStdString(git->currentBranch());
        place->commit = QString::fromStdString(git->headCommit());
    }
    place->source = openWorkTree(QFileInfo(repository).absoluteFilePath().toStdString());
    return place;
}

void BuildSession::describe(BuildTarget& target, JobPlace& place) const
{
    target.branch = place.branch;
    target.commit = place.commit;
    const std::string path = relativeRecipePath(target, place.repository).toStdString();
    // The scan's facts say which files the recipe imports; without them (another repository,
    // a recipe the scan has not seen) the recipe's own facts are extracted.
    const Cell* scanned = nullptr;
    if (m_analysis && m_analysisRoot == canonical(place.repository))
        for (const Cell& entry : m_analysis->cells)
            if (entry.recipe && entry.recipe->path == path) {
                scanned = &entry;
                break;
            }
    target.contentKey =
        (scanned ? RecipeContentKey::compute(*place.source, *scanned->recipe, &place.digests)
                 : RecipeContentKey::computeForFile(*place.source, path))
            .toQString();
    // Nix's answer is for the content the scan saw: it names this build only while the files
    // are still that content.
    if (scanned && target.contentKey == QString::fromStdString(scanned->contentKey)) {
        target.derivationKey = derivationKeyOf(*scanned);
        if (!target.derivationKey.isEmpty()) {
            target.system = QString::fromStdString(scanned->evaluation->system);
            for (const std::string& feature : scanned->evaluation->requiredSystemFeatures)
                target.requiredFeatures << QString::fromStdString(feature);
        }
    }
}

QString BuildSession::derivationKeyOf(const Cell& entry)
{
    if (!entry.evaluation || !entry.evaluation->evaluated || entry.evaluation->drvPath.empty())
        return {};
    return QString::fromStdString(
        RecipeContentKey::fromString("drv:" + entry.evaluation->drvPath).toString());
}

QString BuildSession::recipesEndingIn(const QString& repository, const QString& variant) const
{
    if (!m_analysis || m_analysisRoot != canonical(repository))
        return {};
    const std::vector<std::string> near =
        CellSelector(variant.toStdString()).namesEndingInIt(m_analysis->cells, [](const Cell& e) {
            return e.recipe != nullptr;
        });
    return QString::fromStdString(CellSelector::didYouMean(near));
}

QList<quint64> BuildSession::build(const QString& repository, const QStringList& variants,
                                   QStringList* errors)
{
    const std::unique_ptr<JobPlace> place = placeOf(repository); // once for all the jobs
    QString torch = m_torchVersion.value_or(QString());
    if (!m_torchVersion && m_analysis && m_analysisRoot == canonical(repository))
        torch = QString::fromStdString(m_analysis->spec.torchVersion);
    QList<quint64> ids;
    for (const QString& variant : variants) {
        QString error;
        auto target = BuildTarget::resolve(repository, variant, m_recipeDir, &error);
        if (target) {
            target->expected.torch = torch;
            describe(*target, *place);
            if (const quint64 id = m_queue->enqueue(*target, &error)) {
                ids << id;
                continue;
            }
        } else {
            error += recipesEndingIn(repository, variant);
        }
        if (errors)
            *errors << error;
    }
    return ids;
}

quint64 BuildSession::publish(const QString& repository, const QString& variant, QString* error)
{
    auto target = BuildTarget::resolve(repository, variant, m_recipeDir, error);
    if (!target)
        return 0;
    describe(*target, *placeOf(repository));
    return m_queue->enqueuePublish(*target, error);
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

QString BuildSession::contentKeyOf(const QString& repository, const QString& variant) const
{
    const auto target = BuildTarget::resolve(repository, variant, m_recipeDir, nullptr);
    if (!target)
        return {};
    const std::unique_ptr<RepositorySource> source =
        openWorkTree(QFileInfo(repository).absoluteFilePath().toStdString());
    return RecipeContentKey::computeForFile(*source,
                                            relativeRecipePath(*target, repository).toStdString())
        .toQString();
}

VariantBuildState BuildSession::recipeState(const QString& repository, const QString& variant) const
{
    return variantState(variant, contentKeyOf(repository, variant), repository);
}

void BuildSession::setBuilder(VariantBuildState* state, const BuildRecord& job)
{
    const BuildPlacement* on = job.builtOn();
    state->builder = on ? on->machineLabel() : QString();
    state->builtRemotely = on && on->isRemote();
}

VariantBuildState BuildSession::variantState(const QString& variant, const QString& contentKey,
                                             const QString& repository,
                                             const QString& derivationKey) const
{
    VariantBuildState state;
    if (contentKey.isEmpty())
        return state; // no recipe (or not keyed yet): nothing was built from it
    const QString here = canonical(repository);
    // The newest finished build: this session's jobs are newer than the history's, and
    // finished ones are in the history too, so the history answers for both. Without one of
    // this content, a success of the same derivation: Nix has that output.
    const BuildRecord* last = m_history->latestOfContent(contentKey, here);
    if (!last)
        last = m_history->latestOfDerivation(derivationKey);
    if (last) {
        state.lastJobId = last->id;
        state.lastState = last->state;
        state.lastDurationMs = last->durationMs();
        state.lastFinishedAt = last->finishedAt;
        state.lastVerification = last->verification;
        state.lastRepository = last->repository;
        setBuilder(&state, *last);
    } else if (const BuildRecord* older = m_history->latestKeyed(here, variant)) {
        state.olderJobId = older->id;
        state.olderState = older->state;
        state.olderFinishedAt = older->finishedAt;
    }
    // A job under way for this content, or for this very recipe here (edited since it was
    // queued: it still builds this cell).
    const QList<quint64> ids = m_queue->jobIds();
    for (auto it = ids.crbegin(); it != ids.crend(); ++it) {
        const BuildRecord* job = m_queue->job(*it);
        if (job->kind != JobKind::Build || job->isFinished())
            continue;
        if (job->contentKey != contentKey && (job->variant != variant || job->repository != here))
            continue;
        state.currentJobId = job->id;
        state.queued = job->state == JobState::Queued;
        state.running = job->state == JobState::Running;
        state.verifying = state.running && job->startedAt.isValid() &&
                          job->exitCode == 0; // the process ended well, the check runs
        state.progressDone = job->progressDone;
        state.progressTotal = job->progressTotal;
        if (job->builtOn())
            setBuilder(&state, *job);
        if (const auto estimate = m_queue->estimatedDurationMs(job->id))
            state.estimatedRemainingMs =
                std::max<qint64>(0, *estimate - std::max<qint64>(0, job->durationMs()));
        break;
    }
    return state;
}

CellBuildState BuildSession::cellState(const Cell& entry, const QString& repository) const
{
    const VariantBuildState state =
        variantState(QString::fromStdString(entry.variant.toString()),
                     QString::fromStdString(entry.contentKey), repository, derivationKeyOf(entry));
    CellBuildState cell;
    cell.queued = state.queued;
    cell.running = state.running || state.verifying;
    cell.progress =
        state.progressTotal > 0 ? double(state.progressDone) / double(state.progressTotal) : -1;
    if (state.hasResult()) {
        cell.last = state.lastState == JobState::Succeeded ? CellBuildState::Result::Succeeded
                    : state.lastState == JobState::Failed  ? CellBuildState::Result::Failed
                                                           : CellBuildState::Result::Cancelled;
        cell.verificationFailed =
            state.lastVerification.status == VerificationResult::Status::Failed;
    } else if (state.builtFromOlderVersion()) {
        cell.last = CellBuildState::Result::Outdated;
    }
    if (state.builtRemotely)
        cell.builder = state.builder;
    if (cell.running)
        cell.summary = (state.progressTotal > 0
                            ? tr("running %1/%2").arg(state.progressDone).arg(state.progressTotal)
                            : tr("running")) +
                       (state.builtRemotely ? tr(" on %1").arg(state.builder) : QString());
    else if (cell.queued)
        cell.summary = tr("queued");
    else if (state.hasResult()) {
        cell.summary =
            tr("%1 in %2%3")
                .arg(jobStateName(state.lastState), formatDuration(state.lastDurationMs),
                     state.lastVerification.status == VerificationResult::Status::Passed
                         ? tr(", verified")
                     : cell.verificationFailed
                         ? tr(", verification failed: %1").arg(state.lastVerification.reason)
                         : QString());
        if (state.builtRemotely)
            cell.summary += tr(" on %1").arg(state.builder);
        // The same content built elsewhere: say where, it is not this work tree's own build.
        if (!state.lastRepository.isEmpty() && state.lastRepository != canonical(repository))
            cell.summary += tr(" (built in %1)").arg(state.lastRepository);
    } else if (state.builtFromOlderVersion()) {
        cell.summary =
            tr("built from an older version: %1 %2")
                .arg(jobStateName(state.olderState), state.olderFinishedAt.toLocalTime().toString(
                                                         QStringLiteral("yyyy-MM-dd HH:mm")));
    }
    return cell;
}

void BuildSession::jobChanged(quint64 id)
{
    if (const BuildRecord* job = m_queue->job(id))
        emit variantStateChanged(job->variant);
}

} // namespace rg
