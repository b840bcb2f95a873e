#include "sessions/pininspectionsession.h"

#include "sessions/backgroundpool.h"

#include <QtConcurrent/QtConcurrentRun>

namespace rg {

PinInspectionSession::PinInspectionSession(QObject* parent) : QObject(parent)
{
    connect(&m_run, &QFutureWatcher<Outcome>::finished, this, &PinInspectionSession::runFinished);
}

PinInspectionSession::~PinInspectionSession()
{
    cancel();
    m_run.waitForFinished();
}

void PinInspectionSession::start(Request request)
{
    if (m_running) {
        m_next = std::move(request);
        cancel(); // its answer would not be shown
        return;
    }
    run(std::move(request));
}

void PinInspectionSession::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

void PinInspectionSession::run(Request request)
{
    m_running = true;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    // Finding Nix runs a process: it is looked for on the worker too.
    m_run.setFuture(
        QtConcurrent::run(backgroundPool(), [request = std::move(request), cancel = m_cancel] {
            Outcome outcome;
            const NixInstallation nix = NixInstallation::find();
            if (!nix.usable()) {
                outcome.error = nix.error;
                return outcome;
            }
            outcome.contents =
                PinInspection::inspect(nix, request.settings, request.revisions, request.pythonSets,
                                       request.cudaSets, cancel.get());
            return outcome;
        }));
}

void PinInspectionSession::runFinished()
{
    m_running = false;
    if (m_next) {
        Request next = std::move(*m_next);
        m_next.reset();
        run(std::move(next)); // the one asked for last is the one shown
        return;
    }
    Outcome outcome = outcomeOf(m_run.future());
    if (!outcome.error.empty())
        emit failed(QString::fromStdString(outcome.error));
    else
        emit finished(outcome.contents);
}

} // namespace rg
