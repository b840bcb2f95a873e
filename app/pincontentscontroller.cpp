#include "pincontentscontroller.h"

#include "eval/pincomparison.h"
#include "pincontentspane.h"
#include "sessions/pininspectionsession.h"
#include "sessions/qtext.h"
#include "sessions/repositorysession.h"

#include <algorithm>

namespace rg {

PinContentsController::PinContentsController(RepositorySession* session, SettingsFor settings,
                                             QObject* parent)
    : QObject(parent), m_session(session), m_settings(std::move(settings)),
      m_inspection(new PinInspectionSession(this))
{
    connect(m_inspection, &PinInspectionSession::finished, this, &PinContentsController::finished);
    connect(m_inspection, &PinInspectionSession::failed, this, &PinContentsController::failed);
}

void PinContentsController::attach(PinContentsPane* pane)
{
    m_pane = pane;
    connect(pane, &PinContentsPane::compareRequested, this, &PinContentsController::compare);
    connect(pane, &PinContentsPane::stopRequested, m_inspection, &PinInspectionSession::cancel);
}

void PinContentsController::compare(const std::string& from, const std::string& to)
{
    m_from = from;
    m_to = to;
    PinInspectionSession::Request request;
    request.settings = m_settings(m_session->rootPath());
    // One pin (the Pins dock) is read once; two (the Bump Pin dialog) at once.
    request.revisions = from == to ? std::vector<std::string>{from} : std::vector{from, to};
    request.settings.jobs = static_cast<int>(request.revisions.size());
    if (const std::shared_ptr<const Analysis> analysis = m_session->analysis()) {
        request.pythonSets = PinInspection::pythonSetsOf(*analysis);
        request.cudaSets = PinInspection::cudaSetsOf(*analysis);
    }
    m_inspection->start(std::move(request));
}

void PinContentsController::finished(const std::vector<PinContents>& contents)
{
    if (!m_pane || contents.empty() || contents.size() > 2)
        return;
    const std::string& from = contents.front().revision;
    const std::string& to = contents.back().revision;
    const auto cancelled = [](const PinContents& pin) { return pin.cancelled; };
    if (std::any_of(contents.begin(), contents.end(), cancelled)) {
        m_pane->showError(from, to, tr("Stopped before Nix answered."));
        return;
    }
    for (const PinContents& pin : contents) {
        if (!pin.error.empty()) {
            m_pane->showError(
                from, to,
                tr("Nix cannot read %1: %2").arg(qs(pin.revision.substr(0, 7)), qs(pin.error)));
            return;
        }
    }
    m_pane->showComparison(from, to, PinComparison::of(contents.front(), contents.back()));
}

void PinContentsController::failed(const QString& message)
{
    if (m_pane)
        m_pane->showError(m_from, m_to, message);
}

} // namespace rg
