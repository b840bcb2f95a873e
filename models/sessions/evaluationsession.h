#pragma once

// Evaluation for a window: runs RecipeEvaluator on a worker (QtConcurrent) and reports on the
// thread the session lives on, so a GUI never waits on Nix. It keeps Nix's answers by recipe
// path and content key; an analysis of a later scan gets back the answers of the recipes whose
// content is unchanged (refiner()), and loses those of changed ones.
//
// One run at a time: start() while a run goes on is refused (returns false). Queueing it
// instead would evaluate an analysis of the moment it was asked for, which the scan that the
// user's edits set off may already have replaced; the user asks again once the run ends, or
// cancels it. A cancelled run keeps none of its answers: a part of a branch evaluated would
// read as the branch evaluated.

#include "analysis/analysis.h"
#include "eval/evalsettings.h"
#include "eval/evaluatedrecipe.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rg {

class EvaluationSession : public QObject
{
    Q_OBJECT
public:
    explicit EvaluationSession(QObject* parent = nullptr);
    ~EvaluationSession() override; // cancels a run and waits for it: its workers report here

    // Evaluates `items` (EvaluationMerge::itemsOf, keyed by content) with `settings`; false
    // when a run is going on (nothing starts) or there is nothing to evaluate.
    bool start(EvalSettings settings, std::vector<EvalItem> items);
    // Stops the run's Nix processes; finished(…, true) follows once they are gone.
    void cancel();
    bool isRunning() const { return m_running; }

    // Forgets every answer (another repository was opened).
    void clear();
    // How many recipes have an answer kept.
    int answerCount() const { return static_cast<int>(m_answers ? m_answers->size() : 0); }
    // Puts the kept answers of the recipes whose content key is unchanged into `analysis`
    // (EvaluationMerge::apply). Thread-safe: it reads only a snapshot of the answers.
    using Refiner = std::function<void(Analysis&)>;
    // A refiner holding the answers kept now, for RepositorySession::setRefiner; null when
    // there are none.
    Refiner refiner() const;

signals:
    void started(int total);
    // `current`: the recipe Nix has just begun, "" when a finished one is reported.
    void progress(int done, int total, const QString& current);
    // Every item's result, in the items' order (a cancelled run's unanswered ones transient).
    // The answers are kept before it is emitted.
    void finished(const std::vector<rg::EvaluatedRecipe>& results, bool cancelled);
    // Nix cannot be used (missing, too old): nothing was evaluated.
    void failed(const QString& message);

private:
    struct Answer
    {
        std::string contentKey;
        EvaluatedRecipe result;
    };
    using Answers = std::map<std::string, Answer>; // by recipe path
    struct Outcome
    {
        std::vector<EvaluatedRecipe> results;
        std::string error; // Nix cannot be used
    };

    void runFinished();
    static void applyAnswers(const Answers& answers, Analysis& analysis);

    std::shared_ptr<const Answers> m_answers;
    std::vector<EvalItem> m_items; // of the running evaluation
    std::atomic<bool> m_cancel{false};
    bool m_running = false;
    quint64 m_generation = 0; // progress of an earlier run is not reported for this one
    QFutureWatcher<Outcome> m_run;
};

} // namespace rg
