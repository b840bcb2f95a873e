#pragma once

// What nixpkgs revisions contain (PinInspection), asked for a window: Nix runs on a worker and
// the answer comes back on the thread the session lives on, so a GUI never waits on Nix. One
// inspection at a time; a newer request while one runs stops that one and follows it, so the
// answer shown is always the one last asked for.

#include "eval/evalsettings.h"
#include "eval/pininspection.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rg {

class PinInspectionSession : public QObject
{
    Q_OBJECT
public:
    struct Request
    {
        EvalSettings settings;
        std::vector<std::string> revisions;
        std::vector<std::string> pythonSets;
        std::vector<std::string> cudaSets;
    };

    explicit PinInspectionSession(QObject* parent = nullptr);
    ~PinInspectionSession() override; // stops a running inspection, and waits for it to end

    void start(Request request);
    // Stops the running inspection and its Nix processes; its revisions come back with the
    // error "cancelled".
    void cancel();
    bool isRunning() const { return m_running; }

signals:
    // The revisions' contents, in the request's order; each may carry its own error.
    void finished(const std::vector<rg::PinContents>& contents);
    // Nix cannot be used (missing, too old): nothing was asked.
    void failed(const QString& message);

private:
    struct Outcome
    {
        std::vector<PinContents> contents;
        std::string error;
    };
    void run(Request request);
    void runFinished();

    bool m_running = false;
    std::shared_ptr<std::atomic<bool>> m_cancel; // the running inspection's
    std::optional<Request> m_next;
    QFutureWatcher<Outcome> m_run;
};

} // namespace rg
