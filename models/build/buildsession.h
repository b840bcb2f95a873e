#pragma once

// Everything the window needs for builds in one object: settings, the queue, the log store,
// the history and the jobs model, plus per-variant state for the grid's cell overlays.
//
//   auto* builds = new rg::BuildSession({}, this);          // AppDataLocation
//   builds->setSettings(rg::BuildSettings::load(settings));
//   builds->build(repoRoot, {"pytorch-python313-cuda13_0-sm120-avx512"});
//   connect(builds, &rg::BuildSession::variantStateChanged, grid, …);
//   builds->variantState(variant) → running / progress / last result / duration / verification

#include "build/buildrecord.h"
#include "build/buildsettings.h"

#include <QObject>
#include <QStringList>
#include <memory>

namespace rg {

class BuildHistory;
class BuildJobsModel;
class BuildQueue;
class LogStore;

// What a grid cell shows on top of its status.
struct VariantBuildState
{
    bool queued = false;
    bool running = false;
    bool verifying = false;
    int progressDone = 0; // last `[n/m]`; total 0 when unknown
    int progressTotal = 0;
    quint64 currentJobId = 0; // the queued/running job, 0 when none
    // The newest finished build of the variant (this session or history).
    quint64 lastJobId = 0;                 // 0 when never built
    JobState lastState = JobState::Queued; // Succeeded / Failed / Cancelled when lastJobId
    qint64 lastDurationMs = -1;
    QDateTime lastFinishedAt;
    VerificationResult lastVerification;
    qint64 estimatedRemainingMs = -1; // for queued/running, from past durations

    bool hasResult() const { return lastJobId != 0; }
};

class BuildSession : public QObject
{
    Q_OBJECT
public:
    // `dataDirectory` holds logs/ and build-history.json; empty → AppDataLocation.
    explicit BuildSession(const QString& dataDirectory = {}, QObject* parent = nullptr);
    ~BuildSession() override;

    BuildQueue* queue() const { return m_queue; }
    BuildJobsModel* jobsModel() const { return m_model; }
    LogStore* logStore() const { return m_logStore.get(); }
    BuildHistory* history() const { return m_history.get(); }

    const BuildSettings& settings() const;
    void setSettings(const BuildSettings& settings);
    // Recipe directory relative to the repository (".flox/pkgs").
    void setRecipeDirectory(const QString& recipeDir) { m_recipeDir = recipeDir; }
    // The torch version verification expects (the matrix spec's torchVersion); empty = any.
    void setExpectedTorchVersion(const QString& version) { m_torchVersion = version; }

    // Resolves each variant's recipe and queues a build; returns the ids queued, and one
    // message per variant that could not be queued in `errors`.
    QList<quint64> build(const QString& repository, const QStringList& variants,
                         QStringList* errors = nullptr);
    // `flox publish -o ORG PNAME` (ORG from settings) as a job; 0 with `error` on failure.
    quint64 publish(const QString& repository, const QString& variant, QString* error = nullptr);
    void cancel(quint64 jobId);
    void cancelAll();
    bool hasRunningJobs() const;

    VariantBuildState variantState(const QString& variant) const;
    // Non-empty when the history file was corrupt (it was moved aside) or unreadable.
    QString historyError() const;

signals:
    // Any change of variantState(variant): queued, started, progress, finished.
    void variantStateChanged(const QString& variant);

private:
    void jobChanged(quint64 id);

    QString m_recipeDir = QStringLiteral(".flox/pkgs");
    QString m_torchVersion;
    std::unique_ptr<LogStore> m_logStore;
    std::unique_ptr<BuildHistory> m_history;
    BuildQueue* m_queue;     // child; destroyed in ~BuildSession before the history
    BuildJobsModel* m_model; // child
};

} // namespace rg
