#pragma once

// What a planned change set does to its recipes (ChangeImpact), asked for a window: the input
// is gathered and Nix run on a worker, and the answer comes back on the thread the session
// lives on, so the review never waits on Nix. One run at a time; the session going (its review
// closed) stops Nix.

#include "analysis/analysis.h"
#include "changes/changeset.h"
#include "eval/changeimpact.h"
#include "eval/evalsettings.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <vector>

namespace rg {

class ChangeImpactSession : public QObject
{
    Q_OBJECT
public:
    // What Nix is asked about a change set: the recipes it modifies (the analysis' items; a
    // created one has no "before", a deleted one no "after") and, for the copy they are
    // evaluated in, every file it writes or deletes. Only the operations left selected.
    struct Input
    {
        std::vector<EvalItem> items;
        ChangeImpact::Planned planned;
    };
    static Input inputOf(const ChangeSet& changes, const Analysis& analysis);

    explicit ChangeImpactSession(QObject* parent = nullptr);
    ~ChangeImpactSession() override; // stops a running run, and waits for it to end

    // False (nothing starts) while a run goes on. A change set with no recipe of `analysis`
    // among its files finishes with an error saying so.
    bool start(EvalSettings settings, ChangeSet changes, std::shared_ptr<const Analysis> analysis);
    // Stops the run's Nix processes; finished(…, true) follows once they are gone.
    void cancel();
    bool isRunning() const { return m_running; }

signals:
    void progress(int done, int total);
    // One impact per item, in the input's order; none when cancelled or on `error` (Nix cannot
    // be used, the work tree could not be copied).
    void finished(const std::vector<rg::RecipeImpact>& impacts, const QString& error,
                  bool cancelled);

private:
    struct Outcome
    {
        std::vector<RecipeImpact> impacts;
        std::string error;
    };
    void runFinished();

    bool m_running = false;
    std::shared_ptr<std::atomic<bool>> m_cancel; // the running run's
    QFutureWatcher<Outcome> m_run;
};

} // namespace rg
