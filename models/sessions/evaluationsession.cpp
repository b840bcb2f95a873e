#include "sessions/evaluationsession.h"

#include "eval/evaluationmerge.h"
#include "eval/outputpresence.h"
#include "eval/recipeevaluator.h"
#include "sessions/backgroundpool.h"

#include <QtConcurrent/QtConcurrentRun>

namespace rg {

EvaluationSession::EvaluationSession(QObject* parent) : QObject(parent)
{
    connect(&m_run, &QFutureWatcher<Outcome>::finished, this, &EvaluationSession::runFinished);
}

EvaluationSession::~EvaluationSession()
{
    m_cancel = true;
    m_run.waitForFinished();
}

bool EvaluationSession::start(EvalSettings settings, std::vector<EvalItem> items)
{
    if (m_running || items.empty())
        return false;
    m_running = true;
    m_cancel = false;
    m_items = items;
    const quint64 generation = ++m_generation;
    const int total = static_cast<int>(items.size());
    // Called from the evaluator's workers one at a time; reported here, queued. The destructor
    // waits for the run, so `this` outlives every call.
    auto report = [this, generation](int done, int count, const std::string& current) {
        QMetaObject::invokeMethod(
            this,
            [this, generation, done, count, current = QString::fromStdString(current)] {
                if (generation == m_generation && m_running)
                    emit progress(done, count, current);
            },
            Qt::QueuedConnection);
    };
    // Finding Nix runs a process: the evaluator is made on the worker too.
    m_run.setFuture(
        QtConcurrent::run(backgroundPool(), [settings = std::move(settings),
                                             items = std::move(items), report, cancel = &m_cancel] {
            Outcome outcome;
            const RecipeEvaluator evaluator(settings);
            if (!evaluator.nix().usable()) {
                outcome.error = evaluator.nix().error;
                return outcome;
            }
            outcome.results = evaluator.evaluate(items, report, cancel);
            // What must be built: the store's answer, now (a cancelled run's is not kept).
            if (!cancel->load())
                OutputPresence::fill(evaluator.nix(), settings.store, settings.binaryCaches,
                                     outcome.results);
            return outcome;
        }));
    emit started(total);
    return true;
}

void EvaluationSession::cancel()
{
    if (m_running)
        m_cancel = true;
}

void EvaluationSession::clear()
{
    cancel();
    m_answers.reset();
}

void EvaluationSession::runFinished()
{
    m_running = false;
    Outcome outcome = outcomeOf(m_run.future());
    const bool cancelled = m_cancel.load();
    const std::vector<EvalItem> items = std::move(m_items);
    m_items.clear();
    if (!outcome.error.empty()) {
        emit failed(QString::fromStdString(outcome.error));
        return;
    }
    if (!cancelled) {
        auto answers = std::make_shared<Answers>(m_answers ? *m_answers : Answers{});
        for (size_t i = 0; i < items.size() && i < outcome.results.size(); ++i) {
            const EvaluatedRecipe& result = outcome.results[i];
            // A timeout or a missing network says nothing about the recipe: not an answer.
            if (result.transient)
                answers->erase(items[i].path);
            else
                (*answers)[items[i].path] = Answer{items[i].contentKey, result};
        }
        m_answers = std::move(answers);
        const int total = static_cast<int>(items.size());
        emit progress(total, total, {}); // an all-cached run reports nothing on its own
    }
    emit finished(outcome.results, cancelled);
}

EvaluationSession::Refiner EvaluationSession::refiner() const
{
    if (!m_answers || m_answers->empty())
        return {};
    return [answers = m_answers](Analysis& analysis) { applyAnswers(*answers, analysis); };
}

void EvaluationSession::applyAnswers(const Answers& answers, Analysis& analysis)
{
    std::vector<EvaluatedRecipe> unchanged;
    for (const Cell& entry : analysis.cells) {
        if (!entry.recipe || entry.contentKey.empty())
            continue;
        const auto found = answers.find(entry.recipe->path);
        if (found != answers.end() && found->second.contentKey == entry.contentKey)
            unchanged.push_back(found->second.result);
    }
    EvaluationMerge::apply(analysis, unchanged);
}

} // namespace rg
