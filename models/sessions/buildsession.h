#pragma once

// Everything the window needs for builds in one object: settings, the queue, the log store
// and the history, plus per-recipe state for the grid's cell overlays. The jobs list is a
// BuildJobsModel over queue() and history(), made by whoever shows it.
//
//   auto* builds = new rg::BuildSession({}, this);          // AppDataLocation
//   builds->setSettings(rg::BuildSettings::load(settings));
//   builds->build(repoRoot, {"pytorch-python313-cuda13_0-sm120-avx512"});
//   connect(builds, &rg::BuildSession::variantStateChanged, grid, …);
//   builds->variantState(variant, entry.contentKey, repoRoot)
//       → running / progress / last result / duration / verification, or an older version's
//
// State belongs to what was built: each job records the content key of its recipe
// (RecipeContentKey: the recipe and the files it imports, hashed) with the repository, branch
// and commit it was made in, and the derivation Nix evaluated it to when it was evaluated. A recipe
// shows the newest build of its very content, from any clone or work tree; when there is none but
// this repository built an older version of it, that build is reported as such, never as the
// recipe's result.

#include "analysis/analysis.h"
#include "builds/buildrecord.h"
#include "builds/buildsettings.h"
#include "builds/buildtarget.h"
#include "builds/cellbuildstate.h"

#include <QHash>
#include <QObject>
#include <QStringList>
#include <memory>
#include <optional>

namespace rg {

class BuildHistory;
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
    // The newest finished build of this content (this session or history, any repository).
    quint64 lastJobId = 0;                 // 0 when never built
    JobState lastState = JobState::Queued; // Succeeded / Failed / Cancelled when lastJobId
    qint64 lastDurationMs = -1;
    QDateTime lastFinishedAt;
    VerificationResult lastVerification;
    QString lastRepository; // where it ran: this repository, another clone or work tree
    // The machine Nix built it on (BuildRecord::builderLabel): the running job's once its log
    // has said, otherwise the last build's; "" when unknown or nothing was built.
    QString builder;
    bool builtRemotely = false;       // `builder` is a remote builder, not this machine
    qint64 estimatedRemainingMs = -1; // for queued/running, from past durations
    // Without a build of this content: the newest build of the variant in this repository
    // from other content (the recipe or a file it imports changed since). 0 when none.
    quint64 olderJobId = 0;
    JobState olderState = JobState::Queued;
    QDateTime olderFinishedAt;

    bool hasResult() const { return lastJobId != 0; }
    bool builtFromOlderVersion() const { return lastJobId == 0 && olderJobId != 0; }
};

class BuildSession : public QObject
{
    Q_OBJECT
public:
    // `dataDirectory` holds logs/ and build-history.json; empty → AppDataLocation.
    explicit BuildSession(const QString& dataDirectory = {}, QObject* parent = nullptr);
    ~BuildSession() override;

    BuildQueue* queue() const { return m_queue; }
    LogStore* logStore() const { return m_logStore.get(); }
    BuildHistory* history() const { return m_history.get(); }

    const BuildSettings& settings() const;
    void setSettings(const BuildSettings& settings);
    // Recipe directory relative to the repository (".flox/pkgs").
    void setRecipeDirectory(const QString& recipeDir) { m_recipeDir = recipeDir; }
    // The torch version verification expects. Unless one is set here ("" accepts any), it is
    // the spec's torchVersion of the scan of the repository built (setAnalysis), else any.
    void setExpectedTorchVersion(const QString& version) { m_torchVersion = version; }
    // The last scan of `repository`: its facts say which files each recipe imports, so a
    // build's content key reads those files without parsing the recipe again. Builds of other
    // repositories, or of recipes it does not have, extract that one recipe's facts.
    void setAnalysis(const QString& repository, std::shared_ptr<const Analysis> analysis);

    // Resolves each variant's recipe, keys its content, records the repository's branch and
    // commit, and queues a build; returns the ids queued, and one message per variant that
    // could not be queued in `errors` (for a variant without a recipe, with the recipes of the
    // scan whose names end in its words: "did you mean …?").
    QList<quint64> build(const QString& repository, const QStringList& variants,
                         QStringList* errors = nullptr);
    // `flox publish -o ORG PNAME` (ORG from settings) as a job; 0 with `error` on failure.
    quint64 publish(const QString& repository, const QString& variant, QString* error = nullptr);
    void cancel(quint64 jobId);
    void cancelAll();
    bool hasRunningJobs() const;

    // What a cell shows for `variant` of `repository` whose recipe's content key is
    // `contentKey` (Cell::contentKey): empty without a key, a recipe shows no build. With no
    // build of that content, a success of `derivationKey` ("drv:…", from an evaluation) is
    // the recipe's: a comment-only edit keeps its build.
    VariantBuildState variantState(const QString& variant, const QString& contentKey,
                                   const QString& repository,
                                   const QString& derivationKey = {}) const;
    // "drv:<drvPath>" of the cell's evaluation, when Nix evaluated it; "" otherwise.
    static QString derivationKeyOf(const Cell& entry);
    // The same for the recipe as it is on disk now (keyed here, on the calling thread: one
    // recipe, for the command line and tests).
    VariantBuildState recipeState(const QString& repository, const QString& variant) const;
    // The content key of `variant`'s recipe in `repository` as it is now; "" when it has none.
    QString contentKeyOf(const QString& repository, const QString& variant) const;
    // variantState() as the grid shows it: the badge's result and the tooltip's words
    // ("succeeded in 4m 05s, verified", "built from an older version: failed 2026-11-20 10:05").
    CellBuildState cellState(const Cell& entry, const QString& repository) const;
    // Non-empty when the history file was corrupt (it was moved aside) or unreadable.
    QString historyError() const;

signals:
    // Any change of variantState(variant): queued, started, progress, finished.
    void variantStateChanged(const QString& variant);

private:
    static void setBuilder(VariantBuildState* state, const BuildRecord& job);
    struct JobPlace;
    void jobChanged(quint64 id);
    QString canonical(const QString& repository) const;
    std::unique_ptr<JobPlace> placeOf(const QString& repository) const;
    void describe(BuildTarget& target, JobPlace& place) const;
    // "; did you mean …?" with the scanned recipes whose names end in `variant`'s words.
    QString recipesEndingIn(const QString& repository, const QString& variant) const;

    QString m_recipeDir = QStringLiteral(".flox/pkgs");
    std::optional<QString> m_torchVersion;
    QString m_analysisRoot; // canonical
    std::shared_ptr<const Analysis> m_analysis;
    mutable QHash<QString, QString> m_canonical; // repository path as given → canonical
    std::unique_ptr<LogStore> m_logStore;
    std::unique_ptr<BuildHistory> m_history;
    BuildQueue* m_queue; // child; destroyed in ~BuildSession before the history
};

} // namespace rg
