#pragma once

// The window's pins, wired: the Pins menu (Pins view, Colour by Pin, Bump Pin…,
// Alignment…), the pins and alignment docks, the pin legend under the grid and the grid's
// colour-by-pin mode. A bump is a change set like any other: PinBumpPlanner plans it on a
// worker, then it goes through the window's ChangeSession (ChangeSession::planned), so the
// same review dialog, atomic apply, undo and commit serve it. Pins are listed and the
// alignment read off the GUI thread; hashes are prefetched by a PinPrefetchRun.

#include "changes/changeset.h"
#include "changes/pinbumpplanner.h"
#include "changes/unifieddiff.h"
#include "eval/evalsettings.h"
#include "pinbumpdialog.h"
#include "pins/pinalignment.h"
#include "pins/pininventory.h"

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QThreadPool>
#include <functional>
#include <memory>
#include <string>
#include <vector>

class QAction;
class QDockWidget;
class QMenu;

namespace rg {

class ActionContext;
class AlignmentModel;
class AlignmentView;
class ChangeSession;
class PinContentsController;
class PinLegend;
class PinPrefetchRun;
class PinsModel;
class PinsView;

class PinActions : public QObject
{
    Q_OBJECT
public:
    // A bump goes through `changes`, the window's change sets.
    PinActions(ActionContext& context, ChangeSession* changes, QObject* parent);
    ~PinActions() override; // waits for its workers: they hold no pointer to it

    QAction* pinsViewAction() const { return m_pinsViewAction; }
    QAction* colourAction() const { return m_colour; }
    QAction* bumpAction() const { return m_bump; }
    QAction* alignmentAction() const { return m_alignmentAction; }
    void addToMenu(QMenu* menu);

    PinsModel* pinsModel() const { return m_pinsModel; }
    PinsView* pinsView() const { return m_pinsView; }
    PinLegend* legend() const { return m_legend; }
    AlignmentModel* alignmentModel() const { return m_alignmentModel; }
    AlignmentView* alignmentView() const { return m_alignmentView; }
    PinBumpDialog* bumpDialog() const { return m_dialog; }
    std::shared_ptr<const PinInventory> inventory() const { return m_inventory; }

    // The bump dialog, with `from` chosen when given; the grid's selection is its scope.
    void openBumpDialog(const std::string& from = {});
    // Plans `request` on a worker and opens the review when it arrives.
    bool planBump(const PinBumpRequest& request);
    // Re-reads every local branch and compared repository on a worker.
    void reloadAlignment();
    // Compared repositories ("PATH" or "PATH@REV"), kept in the settings.
    void addComparedRepository(const QString& path, const QString& revision);
    QStringList comparedRepositories() const { return m_compared; }
    bool isBusy() const;
    // The program prefetching runs (nix-prefetch-url by default); for tests and odd installs.
    void setPrefetchProgram(const QString& program);
    // What the pins contain, asked of Nix with these settings: for the Bump Pin dialog and
    // for the Pins dock, each its own PinContentsController.
    void setContentsSettings(const std::function<EvalSettings(const QString& root)>& settings);

signals:
    void inventoryChanged();
    void alignmentLoaded();

private:
    struct Inventoried
    {
        std::shared_ptr<const PinInventory> inventory;
        bool prefetchAvailable = false;
    };

    void createActions();
    void createDocks();
    void connectViews();
    void analysisChanged();
    void inventoryFinished();
    void setColouring(bool on);
    void alignmentFinished();
    void align(int row, int column, bool wholeBranch);
    void removeCompared(int column);
    void selectRecipes(const QString& revision);
    std::vector<std::string> selectedCells() const;
    std::vector<std::string> knownPins() const;
    void startPrefetch(const PinBumpRequest& request);
    void showError(const QString& message);
    void showStatus(const QString& message);
    void updateActions();

    ActionContext& m_context;
    ChangeSession* m_changes;
    PinsModel* m_pinsModel;
    AlignmentModel* m_alignmentModel;
    PinLegend* m_legend;
    PinPrefetchRun* m_prefetch;
    PinsView* m_pinsView = nullptr;
    AlignmentView* m_alignmentView = nullptr;
    QDockWidget* m_pinsDock = nullptr;
    QDockWidget* m_alignmentDock = nullptr;
    QAction* m_pinsViewAction = nullptr;
    QAction* m_colour = nullptr;
    QAction* m_bump = nullptr;
    QAction* m_alignmentAction = nullptr;
    QPointer<PinBumpDialog> m_dialog;
    PinContentsController* m_contents = nullptr;

    std::shared_ptr<const PinInventory> m_inventory;
    bool m_prefetchAvailable = false;
    bool m_inventoryPending = false;
    std::shared_ptr<const PinAlignment> m_alignment;
    QStringList m_compared;
    bool m_alignmentPending = false;
    bool m_alignmentShown = false; // the dock's tab is the one shown

    // The alignment's own thread: PinAlignment::compute blocks on the global pool (a column
    // per thread), so it must not hold one of the global pool's threads while it waits.
    QThreadPool m_alignmentPool;
    QFutureWatcher<Inventoried> m_inventoryWatcher;
    QFutureWatcher<PinAlignment> m_alignmentWatcher;
};

} // namespace rg
