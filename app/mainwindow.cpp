#include "mainwindow.h"

#include "aboutdialog.h"
#include "analysis/matrixcounts.h"
#include "branchoverviewview.h"
#include "buildactions.h"
#include "buildjobsview.h"
#include "changeactions.h"
#include "demorepository.h"
#include "detailspanel.h"
#include "dockfitter.h"
#include "emptystatepage.h"
#include "evalactions.h"
#include "filterbar.h"
#include "gridcontroller.h"
#include "itemmodels/branchoverviewmodel.h"
#include "matrixview.h"
#include "messagebanner.h"
#include "pinactions.h"
#include "recentrepositories.h"
#include "recipepreview.h"
#include "sessions/buildsession.h"
#include "sessions/qtext.h"
#include "sessions/repositorysession.h"
#include "sessionstatus.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>

namespace rg {

namespace {

constexpr int rightDockWidth = 560; // Details and Recipe: the recipe text wants the width

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_session(new RepositorySession(this)),
      m_branchModel(new BranchOverviewModel(this)), m_stack(new QStackedWidget(this)),
      m_empty(new EmptyStatePage(this)), m_banner(new MessageBanner(this)),
      m_grid(new GridController(*this, this)), m_branches(new BranchOverviewView(this)),
      m_status(new SessionStatus(m_session, m_banner, statusBar(), this)),
      m_recent(new RecentRepositories(this))
{
    setWindowTitle(QStringLiteral("RecipeGrid"));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    createPages();
    m_changes = new ChangeActions(*this, this);
    m_buildActions = new BuildActions(*this, this);
    m_grid->showBuildStates(m_buildActions->builds());
    statusBar()->addPermanentWidget(m_buildActions->statusLabel());
    m_eval = new EvalActions(*this, builds(), this);
    statusBar()->addPermanentWidget(m_eval->statusWidget());
    createActions();
    createDocks();
    // Its docks join the View menu createMenus() fills.
    m_pins = new PinActions(*this, m_changes->session(), this);
    const auto evalSettings = [this](const QString& root) { return m_eval->settingsFor(root); };
    m_pins->setContentsSettings(evalSettings);
    m_changes->setEvalSettings(evalSettings);
    createMenus();
    connectControllers();
    connectSession();

    new DockFitter(this); // every dock exists by now, PinActions' too
    restoreSettings();
    m_empty->showWelcome(m_recent->paths());
    m_stack->setCurrentWidget(m_empty);
}

// The demo is a temporary copy, gone with its window.
MainWindow::~MainWindow()
{
    DemoRepository::remove(m_demoPath);
}

void MainWindow::createPages()
{
    m_stack->addWidget(m_empty);
    m_stack->addWidget(m_grid->page());
    // The banner stands above both pages: an error (a folder that does not exist) must be seen
    // on the welcome or "no recipes" page as much as over the grid.
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(6, 6, 6, 0);
    centralLayout->setSpacing(6);
    centralLayout->addWidget(m_banner);
    centralLayout->addWidget(m_stack, 1);
    setCentralWidget(central);
    m_branches->setModel(m_branchModel);
}

void MainWindow::createActions()
{
    m_openAction = new QAction(tr("&Open Repository\u2026"), this);
    m_openAction->setShortcut(QKeySequence::Open);
    connect(m_openAction, &QAction::triggered, this, &MainWindow::chooseRepository);

    m_demoAction = new QAction(tr("Open &Demo Repository"), this);
    connect(m_demoAction, &QAction::triggered, this, &MainWindow::openDemo);

    m_reloadAction = new QAction(tr("R&eload"), this);
    m_reloadAction->setShortcuts({QKeySequence::Refresh, QKeySequence(Qt::CTRL | Qt::Key_R)});
    connect(m_reloadAction, &QAction::triggered, m_session, &RepositorySession::reload);
    m_reloadAction->setEnabled(false); // until a repository opens

    m_aboutAction = new QAction(tr("&About RecipeGrid"), this);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::showAbout);
}

void MainWindow::createDocks()
{
    // The object names key the saved window state.
    const auto dock = [this](const QString& title, const char* name, QWidget* widget,
                             Qt::DockWidgetArea area) {
        auto* added = new QDockWidget(title, this);
        added->setObjectName(QLatin1String(name));
        added->setWidget(widget);
        addDockWidget(area, added);
        return added;
    };
    QDockWidget* details =
        dock(tr("Details"), "detailsDock", m_grid->detailsPanel(), Qt::RightDockWidgetArea);
    QDockWidget* preview =
        dock(tr("Recipe"), "previewDock", m_grid->preview(), Qt::RightDockWidgetArea);
    QDockWidget* branches =
        dock(tr("Branches"), "branchesDock", m_branches, Qt::BottomDockWidgetArea);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_buildActions->jobsView());
    split->addWidget(m_buildActions->logTabs());
    split->setStretchFactor(1, 2);
    tabifyDockWidget(branches, dock(tr("Builds"), "buildsDock", split, Qt::BottomDockWidgetArea));
    branches->raise();
    // The right-hand panels run the full height: the recipe text wants every line it can get.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);

    resizeDocks({details, preview}, {rightDockWidth, rightDockWidth}, Qt::Horizontal);
    resizeDocks({details, preview}, {500, 420}, Qt::Vertical);
    resizeDocks({branches}, {130}, Qt::Vertical);
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(m_demoAction);
    file->addSeparator();
    file->addAction(m_reloadAction);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    updateRecentMenu();

    createViewMenu();

    QMenu* recipe = menuBar()->addMenu(tr("&Recipe"));
    recipe->addAction(m_grid->editAction());
    recipe->addAction(m_grid->copyNameAction());
    recipe->addAction(m_grid->copyPathAction());
    recipe->addSeparator();
    m_buildActions->addToMenu(recipe);
    recipe->addSeparator();
    m_eval->addToMenu(recipe);
    recipe->addSeparator();
    recipe->addAction(m_buildActions->settingsAction());

    m_changes->addToMenu(menuBar()->addMenu(tr("&Changes")));
    m_pins->addToMenu(menuBar()->addMenu(tr("&Pins")));
    createToolBar();

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_aboutAction);
}

void MainWindow::createViewMenu()
{
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_grid->showAllAction());
    view->addAction(m_pins->colourAction());
    view->addSeparator();
    view->addAction(tr("Focus &Grid"), QKeySequence(Qt::CTRL | Qt::Key_1), this,
                    [this] { matrixView()->setFocus(); });
    view->addAction(tr("Focus &Findings"), QKeySequence(Qt::CTRL | Qt::Key_2), this,
                    [this] { detailsPanel()->findingsView()->setFocus(); });
    view->addAction(tr("Focus &Recipe"), QKeySequence(Qt::CTRL | Qt::Key_3), this,
                    [this] { preview()->setFocus(); });
    QAction* focusFilter = view->addAction(tr("Fil&ter"), this, [this] {
        filterBar()->lineEdit()->setFocus();
        filterBar()->lineEdit()->selectAll();
    });
    focusFilter->setShortcut(QKeySequence::Find);
    view->addSeparator();
    view->addActions(m_grid->navigationActions());
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
}

void MainWindow::createToolBar()
{
    QToolBar* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->addAction(m_openAction);
    toolbar->addAction(m_reloadAction);
    toolbar->addSeparator();
    toolbar->addAction(buildAction());
    toolbar->addAction(m_grid->editAction());
    m_eval->addToToolBar(toolbar);
    toolbar->addSeparator();
    toolbar->addAction(m_pins->colourAction());
}

void MainWindow::connectControllers()
{
    // The cell menu: the grid's own actions, then Build and Publish, then the change sets'.
    connect(m_grid, &GridController::cellMenuAboutToShow, m_buildActions,
            &BuildActions::addToCellMenu);
    connect(m_grid, &GridController::cellMenuAboutToShow, this,
            [this](QMenu* menu) { emit cellMenuAboutToShow(menu, selectedCells()); });
    connect(this, &MainWindow::cellMenuAboutToShow, m_changes, &ChangeActions::addToCellMenu);
    connect(m_grid, &GridController::actionTargetsChanged, m_changes,
            &ChangeActions::updateActions);
    connect(m_grid, &GridController::actionTargetsChanged, m_buildActions,
            &BuildActions::updateActions);
    connect(m_grid, &GridController::actionTargetsChanged, m_eval, &EvalActions::updateActions);
    connect(m_grid, &GridController::previewUpdated, this, &MainWindow::previewUpdated);
    connect(m_branches, &BranchOverviewView::branchActivated, this, &MainWindow::branchActivated);
    connect(m_empty, &EmptyStatePage::openRequested, this, &MainWindow::chooseRepository);
    connect(m_empty, &EmptyStatePage::demoRequested, this, &MainWindow::openDemo);
    connect(m_empty, &EmptyStatePage::recentRequested, this, &MainWindow::openRepository);
    connect(m_recent, &RecentRepositories::changed, this, [this] {
        updateRecentMenu();
        m_empty->setRecent(m_recent->paths());
    });
}

void MainWindow::connectSession()
{
    connect(m_session, &RepositorySession::analysisChanged, this, &MainWindow::analysisChanged);
    connect(m_session, &RepositorySession::errorOccurred, this, [this](const QString& message) {
        showError(message);
        showStatus(message, 8000);
    });
    connect(m_session, &RepositorySession::opened, this, [this] {
        m_firstAnalysis = true;
        m_reloadAction->setEnabled(true);
        updateTitle();
    });
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    const QList<QDockWidget*> right = {findChild<QDockWidget*>(QStringLiteral("detailsDock")),
                                       findChild<QDockWidget*>(QStringLiteral("previewDock"))};
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        DockFitter::fitToScreen(this, right, rightDockWidth);
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_grid->restoreSettings(settings);
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    m_grid->saveSettings(settings);
}

void MainWindow::updateRecentMenu()
{
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    for (const QString& path : m_recent->paths())
        m_recentMenu->addAction(path, this, [this, path] { openRepository(path); });
    m_recentMenu->setEnabled(!m_recent->paths().isEmpty());
}

void MainWindow::chooseRepository()
{
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open Recipe Repository"),
                                                           m_session->rootPath());
    if (!path.isEmpty())
        openRepository(path);
}

void MainWindow::openRepository(const QString& path)
{
    m_banner->hide();
    if (!m_session->openWorkTree(path)) {
        m_recent->openFailed(path);
        return;
    }
    if (m_demoPath.isEmpty() || m_session->rootPath() != m_demoPath)
        m_recent->add(m_session->rootPath()); // not the demo: a temporary copy, gone next time
}

void MainWindow::openRevision(const QString& repositoryPath, const QString& revision)
{
    m_banner->hide();
    m_session->openRevision(repositoryPath, revision);
}

bool MainWindow::openDemo()
{
    QString error;
    const QString path = DemoRepository::create(&error);
    if (path.isEmpty()) {
        showError(tr("Could not create the demo repository: %1").arg(error));
        m_stack->setCurrentIndex(1);
        return false;
    }
    const QString previous = std::exchange(m_demoPath, path);
    openRepository(path);
    DemoRepository::remove(previous); // a scan of it still running is dropped as stale
    return true;
}

bool MainWindow::isShowingGrid() const
{
    return m_stack->currentIndex() == 1;
}

void MainWindow::updateTitle()
{
    if (!m_session->isOpen()) {
        setWindowTitle(QStringLiteral("RecipeGrid"));
        return;
    }
    QString title = QFileInfo(m_session->rootPath()).fileName();
    if (!m_session->revision().isEmpty())
        title += QStringLiteral(" @ ") + m_session->revision() + tr(" (read-only)");
    else if (!m_session->git().branch.empty())
        title += QStringLiteral(" (") + qs(m_session->git().branch) + QStringLiteral(")");
    setWindowTitle(title + QStringLiteral(" \u2014 RecipeGrid"));
}

void MainWindow::analysisChanged()
{
    const std::shared_ptr<const Analysis> analysis = m_session->analysis();
    if (!analysis) {
        m_grid->clear();
        m_stack->setCurrentWidget(m_empty);
        m_status->updateSummary();
        return;
    }
    const bool hasRecipes = !analysis->cells.empty() || !analysis->unnamed.empty();
    if (!m_session->recipeDirFound() && !hasRecipes) {
        m_empty->showNoRecipes(m_session->rootPath(), m_session->recipeDir());
        m_stack->setCurrentWidget(m_empty);
    } else {
        m_stack->setCurrentIndex(1);
    }
    m_grid->showAnalysis(analysis, m_firstAnalysis);

    if (m_firstAnalysis) {
        m_firstAnalysis = false;
        if (m_session->revision().isEmpty() && m_session->git().isRepository)
            m_branchModel->setRepository(m_session->rootPath(), qs(m_session->git().branch));
        else if (m_session->revision().isEmpty())
            m_branchModel->setNotGit(m_session->rootPath());
    }
    // The checked-out branch is what the grid shows, applied changes and edits included.
    if (m_session->revision().isEmpty() && m_session->git().isRepository)
        m_branchModel->setWorkTreeCounts(MatrixCounts::of(*analysis));
    m_status->analysisChanged();
    updateTitle();
}

void MainWindow::showAbout()
{
    AboutDialog dialog(this);
    dialog.exec();
}

void MainWindow::branchActivated(const QString& branch)
{
    const QString repository = m_branchModel->repositoryPath();
    if (repository.isEmpty())
        return;
    if (qs(m_session->git().branch) == branch && m_session->revision().isEmpty())
        return; // already the checked-out work tree
    if (branch == qs(m_session->git().branch) || QFileInfo(repository).isDir()) {
        const SessionGitInfo info = SessionGitInfo::read(repository.toStdString(), false);
        if (qs(info.branch) == branch) {
            openRepository(repository); // the work tree: live and editable
            return;
        }
    }
    openRevision(repository, branch);
}

void MainWindow::setQuitConfirmation(std::function<bool(int)> confirm)
{
    m_confirmQuit = std::move(confirm);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!m_buildActions->confirmQuit(m_confirmQuit)) {
        event->ignore();
        return;
    }
    m_recent->flush(); // the recent list first, so nothing written later is lost
    saveSettings();
    QSettings settings;
    builds()->settings().save(settings);
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.front().isLocalFile() &&
        QFileInfo(urls.front().toLocalFile()).isDir())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.front().isLocalFile()) {
        openRepository(urls.front().toLocalFile());
        event->acceptProposedAction();
    }
}

void MainWindow::changeEvent(QEvent* event)
{
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        matrixView()->viewport()->update();
}

void MainWindow::showError(const QString& message)
{
    m_banner->showMessage(MessageBanner::Kind::Error, message);
}

void MainWindow::showWarning(const QString& title, const QString& message)
{
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::addDock(QDockWidget* dock, const QString& besideDock, Qt::DockWidgetArea area)
{
    auto* beside = findChild<QDockWidget*>(besideDock);
    if (!beside) {
        addDockWidget(area, dock);
        return;
    }
    tabifyDockWidget(beside, dock);
    beside->raise();
    // Tabifying re-splits the area: give the right-hand tabs back their width.
    if (dockWidgetArea(beside) == Qt::RightDockWidgetArea)
        resizeDocks({beside}, {rightDockWidth}, Qt::Horizontal);
}

void MainWindow::showBuildsDock()
{
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("buildsDock"))) {
        dock->show();
        dock->raise();
    }
}

} // namespace rg
