#pragma once

// Everything known about one build job: what ran, when, how it ended, where its log and
// result are, and what verification found. Live jobs in BuildQueue and past jobs in
// BuildHistory are the same value.

#include "builds/buildplacement.h"
#include "builds/buildsettings.h"
#include "builds/verificationresult.h"

#include <QDateTime>
#include <QString>
#include <QStringList>

namespace rg {

enum class JobState { Queued, Running, Succeeded, Failed, Cancelled };
enum class JobKind { Build, Publish };

QString jobStateName(JobState state); // "queued", "running", "succeeded", "failed", "cancelled"
std::optional<JobState> jobStateFromName(const QString& name);
QString jobKindName(JobKind kind); // "build", "publish"
QString formatDuration(qint64 ms); // "1h 02m 03s", "4m 05s", "12s"; "" when negative

struct BuildRecord
{
    quint64 id = 0;
    JobKind kind = JobKind::Build;
    QString variant;
    QString repository; // canonical path of the work tree it ran in
    QString branch;     // checked out when the job was made; "" when detached or not git
    QString commit;     // HEAD then, 40 hex digits; "" when not a git repository
    // RecipeContentKey::toString() of what was built: the recipe and the files it imports, as
    // they were when the job was made. Build state is looked up by it; "" in records from
    // before keys, which list in the history and never show on a cell.
    QString contentKey;
    // "drv:/nix/store/…drv": the derivation Nix evaluated the recipe to when the job was made;
    // "" when it had not been evaluated. A success speaks for every recipe that evaluates to
    // the same derivation (a comment-only edit keeps it), whatever its content key.
    QString derivationKey;
    BackendKind backend = BackendKind::Nix;
    QString program;
    QStringList arguments;
    QString command; // display form of program + arguments
    JobState state = JobState::Queued;
    QDateTime queuedAt;
    QDateTime startedAt;
    QDateTime finishedAt;
    int exitCode = -1; // -1 until the process exits normally
    QString error;     // why it failed to start / crashed / was cancelled; empty otherwise
    QString logPath;
    // Why the log file stops short of what the job printed ("…/job-7.log: No space left on
    // device"); "" while it holds everything.
    QString logError;
    QString resultPath; // the out-link; only meaningful when succeeded
    VerificationResult verification;
    qint64 closureSize = -1; // bytes, `nix path-info -S`; -1 unknown
    int progressDone = 0;    // last `[n/m]` seen in the log; 0/0 when none
    int progressTotal = 0;
    // What the log says of where Nix built the job's derivations, in order: the machine of each
    // build, and each builder that refused one (with Nix's reason).
    QList<BuildPlacement> placements;
    // The job this one builds again because a builder failed it (refused it, or was lost
    // mid-build); 0 for a first attempt.
    quint64 retryOf = 0;

    bool isFinished() const
    {
        return state == JobState::Succeeded || state == JobState::Failed ||
               state == JobState::Cancelled;
    }
    // Milliseconds from start to end (to now while running); -1 before it started.
    qint64 durationMs() const;
    // Where the job's own derivation was built: the last build the log names (Nix builds a
    // derivation's inputs first); nullptr when nothing was built (the output was there, or
    // came from a binary cache) or the log has not said yet.
    const BuildPlacement* builtOn() const;
    // "user@host" or "this machine" for builtOn(); "" when it is nullptr.
    QString builderLabel() const;
    // The log line that says where the log file stops (logError), ending in a newline and
    // starting with one when the text before it does not end a line; "" while the file holds
    // everything. The live log shows it there, and a view that reads the file after it.
    QString logStopNote(bool atLineStart = true) const;
    // The builders that could not take a build, with Nix's reason: "host: reason" each.
    QStringList builderFailures() const;

    friend bool operator==(const BuildRecord&, const BuildRecord&) = default;
};

} // namespace rg
