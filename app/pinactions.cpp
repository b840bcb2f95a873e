#include "pinactions.h"

#include "actioncontext.h"
#include "alignmentview.h"
#include "itemmodels/alignmentmodel.h"
#include "itemmodels/pinsmodel.h"
#include "pinbumpdialog.h"
#include "pincontentscontroller.h"
#include "pinlegend.h"
#include "pinsview.h"
#include "sessions/backgroundpool.h"
#include "sessions/changesession.h"
#include "sessions/pinprefetchrun.h"
#include "sessions/qtext.h"
#include "sessions/repositorysession.h"

#include <QAction>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <exception>
#include <stdexcept>

namespace rg {

namespace {

// Per repository: what build-pytorch is compared with means nothing to another clone.
const QString comparedKey = QStringLiteral("pins/comparedRepositories");

QStringList loadCompared(const QString& root)
{
    return QSettings().value(comparedKey).toMap().value(root).toStringList();
}

void saveCompared(const QString& root, const QStringList& compared)
{
    QSettings settings;
    QVariantMap all = settings.value(comparedKey).toMap();
    if (compared.isEmpty())
        all.remove(root);
    else
        all.insert(root, compared);
    settings.setValue(comparedKey, all);
}
constexpr int alignmentHeight = 280;

// "PATH\tREV" in the settings: a path may hold '@', a tab it practically never does.
AlignmentSource sourceOf(const QString& entry)
{
    const qsizetype tab = entry.indexOf(QLatin1Char('\t'));
    AlignmentSource source;
    source.repository = (tab < 0 ? entry : entry.left(tab)).toStdString();
    source.revision = tab < 0 ? std::string() : entry.mid(tab + 1).toStdString();
    return source;
}

// This repository's branches, the checked-out one read from the work tree (what a bump
// changes), then the compared repositories. Runs on a worker: libgit2 reads.
std::vector<AlignmentSource> sourcesOf(const std::string& root, const std::string& branch,
                                       const QStringList& compared)
{
    std::string error;
    std::vector<AlignmentSource> sources = PinAlignment::localBranches(root, &error);
    bool workTree = false;
    for (AlignmentSource& source : sources) {
        if (!branch.empty() && source.revision == branch) {
            source.revision.clear();
            source.label = branch + " (work tree)";
            workTree = true;
        }
    }
    if (!workTree)
        sources.insert(sources.begin(), AlignmentSource{root, {}, "work tree"});
    for (const QString& entry : compared)
        sources.push_back(sourceOf(entry));
    return sources;
}

} // namespace

PinActions::PinActions(ActionContext& context, ChangeSession* changes, QObject* parent)
    : QObject(parent), m_context(context), m_changes(changes), m_pinsModel(new PinsModel(this)),
      m_alignmentModel(new AlignmentModel(this)), m_legend(new PinLegend(context.mainWidget())),
      m_prefetch(new PinPrefetchRun(this))
{
    m_alignmentPool.setMaxThreadCount(1);
    createActions();
    createDocks();
    connectViews();
    m_legend->hide();
    m_context.addGridFooter(m_legend);
    connect(&m_inventoryWatcher, &QFutureWatcher<Inventoried>::finished, this,
            &PinActions::inventoryFinished);
    connect(&m_alignmentWatcher, &QFutureWatcher<PinAlignment>::finished, this,
            &PinActions::alignmentFinished);
    connect(m_context.session(), &RepositorySession::analysisChanged, this,
            &PinActions::analysisChanged);
    connect(m_context.session(), &RepositorySession::opened, this, [this] {
        m_compared = loadCompared(m_context.session()->rootPath());
        m_alignment.reset();
        m_alignmentModel->setAlignment(nullptr);
    });
    connect(m_changes, &ChangeSession::busyChanged, this, &PinActions::updateActions);
    updateActions();
}

PinActions::~PinActions()
{
    m_inventoryWatcher.waitForFinished();
    m_alignmentWatcher.waitForFinished();
}

void PinActions::createActions()
{
    m_colour = new QAction(tr("&Colour Grid by Pin"), this);
    m_colour->setObjectName(QStringLiteral("colourByPinAction"));
    m_colour->setCheckable(true);
    m_colour->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    m_colour->setToolTip(tr("Colour each recipe by its nixpkgs pin, with a legend of short "
                            "revisions and counts under the grid"));
    connect(m_colour, &QAction::toggled, this, &PinActions::setColouring);

    // Shows and raises the dock; the View menu keeps the dock's own show/hide toggle.
    m_pinsViewAction = new QAction(tr("&Pins View"), this);
    m_pinsViewAction->setObjectName(QStringLiteral("pinsViewAction"));
    m_pinsViewAction->setToolTip(tr("Every nixpkgs pin with the recipes that use it"));
    connect(m_pinsViewAction, &QAction::triggered, this, [this] {
        m_pinsDock->show();
        m_pinsDock->raise();
    });

    m_bump = new QAction(tr("&Bump Pin\u2026"), this);
    m_bump->setObjectName(QStringLiteral("bumpPinAction"));
    m_bump->setToolTip(tr("Move recipes from one nixpkgs pin to another, for review"));
    connect(m_bump, &QAction::triggered, this, [this] { openBumpDialog(); });

    m_alignmentAction = new QAction(tr("&Alignment\u2026"), this);
    m_alignmentAction->setObjectName(QStringLiteral("pinAlignmentAction"));
    m_alignmentAction->setToolTip(
        tr("Pins of every local branch and of other repositories, side by side"));
    connect(m_alignmentAction, &QAction::triggered, this, [this] {
        m_alignmentDock->show();
        m_alignmentDock->raise();
        // The bottom area is sized for the branch list; pins side by side need rows to show.
        if (m_alignmentDock->height() < alignmentHeight)
            m_context.resizeDock(m_alignmentDock, alignmentHeight, Qt::Vertical);
        if (!m_alignmentWatcher.isRunning())
            reloadAlignment(); // asked for: read the branches as they are now
    });
}

void PinActions::setContentsSettings(
    const std::function<EvalSettings(const QString& root)>& settings)
{
    m_contents = new PinContentsController(m_context.session(), settings, this);
    auto* dock = new PinContentsController(m_context.session(), settings, this);
    dock->attach(m_pinsView->contentsPane());
}

void PinActions::createDocks()
{
    QWidget* window = m_context.mainWidget();
    m_pinsView = new PinsView(window);
    m_pinsView->setModel(m_pinsModel);
    m_pinsDock = new QDockWidget(tr("Pins"), window);
    m_pinsDock->setObjectName(QStringLiteral("pinsDock"));
    m_pinsDock->setWidget(m_pinsView);
    m_context.addDock(m_pinsDock, QStringLiteral("detailsDock"), Qt::RightDockWidgetArea);

    m_alignmentView = new AlignmentView(window);
    m_alignmentView->setModel(m_alignmentModel);
    m_alignmentDock = new QDockWidget(tr("Pin Alignment"), window);
    m_alignmentDock->setObjectName(QStringLiteral("alignmentDock"));
    m_alignmentDock->setWidget(m_alignmentView);
    m_context.addDock(m_alignmentDock, QStringLiteral("branchesDock"), Qt::BottomDockWidgetArea);
    // Read when first looked at: every branch is a libgit2 read of every recipe.
    // Not isVisible(): a dock behind another tab is "visible", only moved out of sight.
    connect(m_alignmentDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        m_alignmentShown = visible;
        if (visible && !m_alignment && !m_alignmentWatcher.isRunning() &&
            m_context.session()->isOpen())
            reloadAlignment();
    });
}

void PinActions::connectViews()
{
    connect(m_pinsView, &PinsView::recipeActivated, this,
            [this](const QString& variant, const QString&) {
                if (!variant.isEmpty())
                    m_context.selectCell(CellSelector(variant.toStdString()));
            });
    connect(m_pinsView, &PinsView::selectRecipesRequested, this, &PinActions::selectRecipes);
    connect(m_pinsView, &PinsView::bumpRequested, this,
            [this](const QString& revision) { openBumpDialog(revision.toStdString()); });
    connect(m_alignmentView, &AlignmentView::reloadRequested, this, &PinActions::reloadAlignment);
    connect(m_alignmentView, &AlignmentView::addRequested, this,
            &PinActions::addComparedRepository);
    connect(m_alignmentView, &AlignmentView::removeRequested, this, &PinActions::removeCompared);
    connect(m_alignmentView, &AlignmentView::alignRequested, this, &PinActions::align);
    connect(m_prefetch, &PinPrefetchRun::downloadStarted, this,
            [this](int index, int total, const QString& url) {
                if (m_dialog)
                    m_dialog->prefetchStarted(index, total, url);
            });
    connect(m_prefetch, &PinPrefetchRun::output, this, [this](const QString& line) {
        if (m_dialog)
            m_dialog->prefetchOutput(line);
    });
    connect(m_prefetch, &PinPrefetchRun::finished, this,
            [this](const PrefetchedHashes& hashes, const QStringList& errors) {
                if (m_dialog)
                    m_dialog->prefetchFinished(hashes, errors);
            });
}

void PinActions::addToMenu(QMenu* menu)
{
    menu->addAction(m_pinsViewAction);
    menu->addAction(m_colour);
    menu->addSeparator();
    menu->addAction(m_bump);
    menu->addAction(m_alignmentAction);
}

void PinActions::analysisChanged()
{
    const std::shared_ptr<const Analysis> analysis = m_context.session()->analysis();
    if (!analysis) {
        m_inventory.reset();
        m_pinsModel->setInventory(nullptr);
        m_legend->setEntries({});
        updateActions();
        return;
    }
    // One listing at a time; the newest analysis is listed when the running one is done.
    if (m_inventoryWatcher.isRunning()) {
        m_inventoryPending = true;
        return;
    }
    const QString program = m_prefetch->program();
    m_inventoryWatcher.setFuture(QtConcurrent::run(backgroundPool(), [analysis, program] {
        Inventoried out;
        out.inventory =
            makeSharedFreedOffTheGuiThread<const PinInventory>(PinInventory::of(*analysis));
        out.prefetchAvailable =
            !QStandardPaths::findExecutable(program).isEmpty() || QFileInfo(program).isExecutable();
        return out;
    }));
    // The work tree column is what was just re-read (or another repository was opened).
    if (m_alignmentShown)
        reloadAlignment();
}

void PinActions::inventoryFinished()
{
    if (m_inventoryPending) {
        m_inventoryPending = false;
        analysisChanged();
        return;
    }
    const Inventoried out = m_inventoryWatcher.result();
    m_inventory = out.inventory;
    m_prefetchAvailable = out.prefetchAvailable;
    m_pinsModel->setInventory(m_inventory);
    m_legend->setEntries(m_inventory->legend());
    if (m_colour->isChecked())
        setColouring(true); // the provider holds the inventory it answers from
    updateActions();
    emit inventoryChanged();
}

void PinActions::setColouring(bool on)
{
    m_legend->setVisible(on);
    if (!on) {
        m_context.setPinProvider({});
        return;
    }
    if (!m_inventory)
        return; // inventoryFinished() colours once the pins are listed
    const std::shared_ptr<const PinInventory> inventory = m_inventory;
    m_context.setPinProvider([inventory](const Cell& entry) {
        CellPin pin;
        pin.index = inventory->legendIndexOfCell(entry.id.toKey());
        if (pin.index >= 0)
            pin.label = qs(inventory->legend()[static_cast<size_t>(pin.index)].shortForm);
        return pin;
    });
}

std::vector<std::string> PinActions::selectedCells() const
{
    std::vector<std::string> cells;
    for (const Cell* entry : m_context.entriesOf(m_context.selectedCells()))
        if (entry->recipe &&
            std::find(cells.begin(), cells.end(), entry->id.toKey()) == cells.end())
            cells.push_back(entry->id.toKey());
    return cells;
}

std::vector<std::string> PinActions::knownPins() const
{
    return m_alignment ? m_alignment->knownPins() : std::vector<std::string>();
}

void PinActions::openBumpDialog(const std::string& from)
{
    if (m_dialog) {
        m_dialog->raise();
        m_dialog->activateWindow();
        return;
    }
    if (isBusy() || !m_inventory) {
        showStatus(tr("The pins are still being read, or a change set is being planned"));
        return;
    }
    auto* dialog = new PinBumpDialog(*m_inventory, m_context.mainWidget());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setKnownPins(knownPins());
    const std::vector<std::string> cells = selectedCells();
    dialog->setSelection(cells);
    std::string start = from;
    if (start.empty() && !cells.empty())
        start = m_inventory->pinOfCell(cells.front());
    if (!start.empty())
        dialog->setFromPin(start);
    if (!m_prefetchAvailable)
        dialog->setPrefetchAvailable(
            false, tr("%1 was not found: install Nix to prefetch, or mark the recipes.")
                       .arg(m_prefetch->program()));
    connect(dialog, &PinBumpDialog::prefetchRequested, this, &PinActions::startPrefetch);
    // Downloads are for the dialog that asked: they stop with it.
    connect(dialog, &PinBumpDialog::prefetchCancelRequested, m_prefetch, &PinPrefetchRun::stop);
    connect(dialog, &QObject::destroyed, m_prefetch, &PinPrefetchRun::stop);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { planBump(dialog->request()); });
    if (m_contents)
        m_contents->attach(dialog->contentsPane());
    m_dialog = dialog;
    dialog->open();
    // Prefixes of the other branches' pins resolve once the alignment has been read.
    if (!m_alignment && !m_alignmentWatcher.isRunning())
        reloadAlignment();
}

void PinActions::startPrefetch(const PinBumpRequest& request)
{
    if (!m_prefetch->start(m_context.session()->source(), m_context.session()->analysis(),
                           request) &&
        m_dialog)
        m_dialog->prefetchFinished({}, {tr("The repository is still being read; try again.")});
}

bool PinActions::planBump(const PinBumpRequest& request)
{
    RepositorySession* repository = m_context.session();
    if (isBusy()) {
        showStatus(tr("A change set is still being planned or applied"));
        return false;
    }
    if (!repository->isOpen() || repository->isReadOnly() || !repository->analysis()) {
        showError(tr("A pin bump needs an open work tree that has been scanned (not a revision "
                     "opened from git)"));
        return false;
    }
    // The window's change-set path from here: the same review, apply, undo and commit.
    const bool started = m_changes->plan([request](std::shared_ptr<const RepositorySource> source,
                                                   std::shared_ptr<const Analysis> analysis) {
        PinBumpPlan plan = PinBumpPlanner(std::move(source), std::move(analysis)).plan(request);
        if (!plan.error.empty())
            throw std::runtime_error("cannot bump the pin: " + plan.error);
        return std::move(plan.changes);
    });
    if (started)
        showStatus(tr("Planning the pin bump\u2026"));
    return started;
}

void PinActions::reloadAlignment()
{
    RepositorySession* repository = m_context.session();
    if (!repository->isOpen())
        return;
    if (m_alignmentWatcher.isRunning()) {
        m_alignmentPending = true;
        return;
    }
    const std::string root = repository->rootPath().toStdString();
    // A revision opened read-only has no work tree a bump could change: branches only.
    const std::string branch = repository->isReadOnly() ? std::string() : repository->git().branch;
    const bool readOnly = repository->isReadOnly();
    const QStringList compared = m_compared;
    m_alignmentView->setLoading(true);
    m_alignmentWatcher.setFuture(
        QtConcurrent::run(&m_alignmentPool, [root, branch, readOnly, compared] {
            std::vector<AlignmentSource> sources = sourcesOf(root, branch, compared);
            if (readOnly)
                std::erase_if(sources, [&](const AlignmentSource& s) {
                    return s.repository == root && s.revision.empty();
                });
            return PinAlignment::compute(sources);
        }));
}

void PinActions::alignmentFinished()
{
    if (m_alignmentPending) {
        m_alignmentPending = false;
        m_alignmentView->setLoading(false);
        reloadAlignment();
        return;
    }
    m_alignment = std::make_shared<const PinAlignment>(m_alignmentWatcher.result());
    const std::string root = m_context.session()->rootPath().toStdString();
    int home = -1;
    QList<int> removable;
    const std::vector<AlignmentColumn>& columns = m_alignment->columns();
    // The compared repositories come last, in the order they were added (sourcesOf).
    const size_t firstCompared =
        columns.size() - std::min<size_t>(columns.size(), m_compared.size());
    for (size_t c = 0; c < columns.size(); ++c) {
        const AlignmentSource& source = columns[c].source;
        if (c < firstCompared && source.repository == root && source.revision.empty() && home < 0 &&
            !m_context.session()->isReadOnly())
            home = static_cast<int>(c);
        if (c >= firstCompared)
            removable << static_cast<int>(c);
    }
    m_alignmentModel->setAlignment(m_alignment);
    m_alignmentModel->setHomeColumn(home);
    m_alignmentView->setRemovableColumns(removable);
    m_alignmentView->setLoading(false);
    if (m_dialog)
        m_dialog->setKnownPins(knownPins());
    emit alignmentLoaded();
}

void PinActions::addComparedRepository(const QString& path, const QString& revision)
{
    const QString entry = revision.isEmpty() ? path : path + QLatin1Char('\t') + revision;
    if (!m_compared.contains(entry)) {
        m_compared << entry;
        saveCompared(m_context.session()->rootPath(), m_compared);
    }
    m_alignmentDock->show();
    reloadAlignment();
}

void PinActions::removeCompared(int column)
{
    if (!m_alignment || column < 0 || column >= static_cast<int>(m_alignment->columns().size()))
        return;
    const AlignmentSource& source = m_alignment->columns()[static_cast<size_t>(column)].source;
    const QString path = qs(source.repository);
    const QString entry =
        source.revision.empty() ? path : path + QLatin1Char('\t') + qs(source.revision);
    if (m_compared.removeAll(entry) == 0)
        return;
    saveCompared(m_context.session()->rootPath(), m_compared);
    reloadAlignment();
}

void PinActions::align(int row, int column, bool wholeBranch)
{
    if (!m_alignment || m_alignmentModel->homeColumn() < 0)
        return;
    std::string error;
    std::optional<PinBumpRequest> request = m_alignment->alignRequest(
        static_cast<size_t>(row), static_cast<size_t>(m_alignmentModel->homeColumn()),
        static_cast<size_t>(column), wholeBranch, &error);
    if (!request) {
        showError(tr("Cannot align: %1").arg(qs(error)));
        return;
    }
    // One click for a whole branch: the quoting files come along (each deselectable in the review)
    // and hashes are marked as needing the new one — nothing is downloaded behind the user's back.
    request->readme = true;
    request->docs = true;
    planBump(*request);
}

void PinActions::selectRecipes(const QString& revision)
{
    if (!m_inventory)
        return;
    std::vector<CellId> cells;
    for (const PinUse& use : m_inventory->recipesOn(revision.toStdString()))
        if (auto cell = CellId::fromKey(use.cellKey))
            cells.push_back(std::move(*cell));
    if (!m_context.selectCells(cells))
        showStatus(tr("None of its recipes is in the shown slices"));
}

bool PinActions::isBusy() const
{
    return m_changes->isBusy();
}

void PinActions::setPrefetchProgram(const QString& program)
{
    m_prefetch->setProgram(program);
    analysisChanged(); // whether it can run is found out with the pins
}

void PinActions::showError(const QString& message)
{
    m_context.showError(message);
    m_context.showStatus(message, 8000);
}

void PinActions::showStatus(const QString& message)
{
    m_context.showStatus(message, 8000);
}

void PinActions::updateActions()
{
    RepositorySession* repository = m_context.session();
    const bool writable = repository->isOpen() && !repository->isReadOnly();
    m_bump->setEnabled(writable && m_inventory && !m_inventory->legend().empty() && !isBusy());
    m_colour->setEnabled(repository->isOpen());
}

} // namespace rg
