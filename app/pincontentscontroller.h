#pragma once

// "What the pins contain" wired, for the Bump Pin dialog's pane or the Pins dock's: the pane's
// button goes to Nix through a PinInspectionSession (off the GUI thread) with the window's
// evaluation settings (local nixpkgs sources, store) and the package sets the open
// repository's recipes use; the revisions come back to the pane (PinComparison).

#include "eval/evalsettings.h"
#include "eval/pininspection.h"

#include <QObject>
#include <QPointer>
#include <functional>
#include <string>
#include <vector>

namespace rg {

class PinContentsPane;
class PinInspectionSession;
class RepositorySession;

class PinContentsController : public QObject
{
    Q_OBJECT
public:
    using SettingsFor = std::function<EvalSettings(const QString& root)>;
    PinContentsController(RepositorySession* session, SettingsFor settings, QObject* parent);

    // From now on, answers go to `pane`; a pane attached earlier gets none.
    void attach(PinContentsPane* pane);
    PinInspectionSession* inspection() const { return m_inspection; }

private:
    void compare(const std::string& from, const std::string& to);
    void finished(const std::vector<PinContents>& contents);
    void failed(const QString& message);

    RepositorySession* m_session;
    SettingsFor m_settings;
    PinInspectionSession* m_inspection;
    QPointer<PinContentsPane> m_pane;
    std::string m_from; // the pair asked for last
    std::string m_to;
};

} // namespace rg
