#include "mainwindow.h"

#include "aboutdialog.h"
#include "branchoverviewview.h"
#include "build/buildqueue.h"
#include "build/buildsession.h"
#include "buildactions.h"
#include "buildjobsview.h"
#include "changeactions.h"
#include "demorepository.h"
#include "detailspanel.h"
#include "dockfitter.h"
#include "emptystatepage.h"
#include "filterbar.h"
#include "gridcontroller.h"
#include "matrixview.h"
#include "messagebanner.h"
#include "pinactions.h"
#include "recipepreview.h"
#include "recipes/branchoverviewmodel.h"
#include "recipes/matrixcounts.h"
#include "recipes/qtext.h"
#include "recipes/repositorysession.h"

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
#include <QProgressBar>
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

constexpr int maxRecent = 8;
constexpr int rightDockWidth = 560; // Details and Recipe: the recipe text wants the width
const QString recentKey = QStringLiteral("recentRepositories");

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_session(new RepositorySession(this)),
      m_branchModel(new BranchOverviewModel(this)), m_stack(new QStackedWidget(this)),
      m_empty(new EmptyStatePage(this)), m_banner(new MessageBanner(this)),
      m_grid(new GridController(*this, this)), m_branches(new BranchOverviewView(this)),
      m_progress(new QProgressBar(this)), m_summary(new QLabel(this)), m_git(new QLabel(this)),
      m_scanInfo(new QLabel(this))
{
    setWindowTitle(QStringLiteral("RecipeGrid"));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    createPages();
    m_changes = new ChangeActions(*this, this);
    m_buildActions = new BuildActions(*this, this);
    m_grid->showBuildStates(m_buildActions->builds());
    createStatusBar();
    createActions();
    createDocks();
    // Its docks join the View menu createMenus() fills.
    m_pins = new PinActions(*this, m_changes->session(), this);
    createMenus();
    connectControllers();
    connectSession();

    resize(1500, 920);
    new DockFitter(this); // every dock exists by now, PinActions' too
    restoreSettings();
    m_empty->showWelcome(QSettings().value(recentKey).toStringList());
    m_stack->setCurrentWidget(m_empty);
    updateStatusBar();
    updateGitLabel();
}

MainWindow::~MainWindow() = default;

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

void MainWindow::createStatusBar()
{
    m_progress->setMaximumWidth(160);
    m_progress->setTextVisible(false);
    m_progress->setAccessibleName(tr("Scan progress"));
    m_progress->hide();
    statusBar()->addWidget(m_progress);
    m_summary->setAccessibleName(tr("Status counts"));
    statusBar()->addWidget(m_summary, 1);
    m_scanInfo->setAccessibleName(tr("Last scan"));
    statusBar()->addPermanentWidget(m_scanInfo);
    m_git->setAccessibleName(tr("Git branch"));
    statusBar()->addPermanentWidget(m_git);
    statusBar()->addPermanentWidget(m_buildActions->statusLabel());
}

void MainWindow::createActions()
{
    m_openAction = new QAction(tr("&Open Repository\u2026"), this);
    m_openAction->setShortcut(QKeySequence::Open);
    connect(m_openAction, &QAction::triggered, this, &MainWindow::chooseRepository);

    m_demoAction = new QAction(tr("Open &Demo Repository"), this);
    connect(m_demoAction, &QAction::triggered, this, &MainWindow::openDemo);

    m_reloadAction = new QAction(tr("&Reload"), this);
    m_reloadAction->setShortcuts({QKeySequence::Refresh, QKeySequence(Qt::CTRL | Qt::Key_R)});
    connect(m_reloadAction, &QAction::triggered, m_session, &RepositorySession::reload);

    m_aboutAction = new QAction(tr("&About RecipeGrid"), this);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::showAbout);
}

void MainWindow::createDocks()
{
    auto* details = new QDockWidget(tr("Details"), this);
    details->setObjectName(QStringLiteral("detailsDock"));
    details->setWidget(m_grid->detailsPanel());
    addDockWidget(Qt::RightDockWidgetArea, details);

    auto* preview = new QDockWidget(tr("Recipe"), this);
    preview->setObjectName(QStringLiteral("previewDock"));
    preview->setWidget(m_grid->preview());
    addDockWidget(Qt::RightDockWidgetArea, preview);

    auto* branches = new QDockWidget(tr("Branches"), this);
    branches->setObjectName(QStringLiteral("branchesDock"));
    branches->setWidget(m_branches);
    addDockWidget(Qt::BottomDockWidgetArea, branches);

    auto* builds = new QDockWidget(tr("Builds"), this);
    builds->setObjectName(QStringLiteral("buildsDock"));
    auto* split = new QSplitter(Qt::Vertical, builds);
    split->addWidget(m_buildActions->jobsView());
    split->addWidget(m_buildActions->logTabs());
    split->setStretchFactor(1, 2);
    builds->setWidget(split);
    addDockWidget(Qt::BottomDockWidgetArea, builds);
    tabifyDockWidget(branches, builds);
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
    recipe->addAction(buildAction());
    recipe->addAction(publishAction());
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
    QAction* focusGrid =
        view->addAction(tr("Focus &Grid"), this, [this] { matrixView()->setFocus(); });
    focusGrid->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    QAction* focusDetails = view->addAction(tr("Focus &Findings"), this,
                                            [this] { detailsPanel()->findingsView()->setFocus(); });
    focusDetails->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));
    QAction* focusPreview =
        view->addAction(tr("Focus &Recipe"), this, [this] { preview()->setFocus(); });
    focusPreview->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_3));
    QAction* focusFilter = view->addAction(tr("&Filter"), this, [this] {
        filterBar()->lineEdit()->setFocus();
        filterBar()->lineEdit()->selectAll();
    });
    focusFilter->setShortcut(QKeySequence::Find);
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
    connect(matrixView(), &MatrixView::selectedCellsChanged, m_changes,
            &ChangeActions::updateActions);
    connect(m_grid, &GridController::previewUpdated, this, &MainWindow::previewUpdated);
    connect(m_branches, &BranchOverviewView::branchActivated, this, &MainWindow::branchActivated);
    connect(m_empty, &EmptyStatePage::openRequested, this, &MainWindow::chooseRepository);
    connect(m_empty, &EmptyStatePage::demoRequested, this, &MainWindow::openDemo);
    connect(m_empty, &EmptyStatePage::recentRequested, this, &MainWindow::openRepository);
}

void MainWindow::connectSession()
{
    connect(m_session, &RepositorySession::analysisChanged, this, &MainWindow::analysisChanged);
    connect(m_session, &RepositorySession::gitStateChanged, this, &MainWindow::updateGitLabel);
    connect(m_session, &RepositorySession::scanStarted, this, [this] {
        m_progress->setRange(0, 0);
        m_progress->show();
    });
    connect(m_session, &RepositorySession::scanProgress, this, [this](int done, int total) {
        m_progress->setRange(0, total);
        m_progress->setValue(done);
        if (total > 0 && done >= total)
            m_progress->hide();
    });
    connect(m_session, &RepositorySession::errorOccurred, this, [this](const QString& message) {
        showError(message);
        showStatus(message, 8000);
    });
    connect(m_session, &RepositorySession::opened, this, [this] {
        m_firstAnalysis = true;
        updateTitle();
    });
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
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

void MainWindow::addRecent(const QString& path)
{
    if (!m_demoPath.isEmpty() && path == m_demoPath)
        return; // a temporary copy is gone next time
    QSettings settings;
    QStringList recent = settings.value(recentKey).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > maxRecent)
        recent.removeLast();
    settings.setValue(recentKey, recent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(recentKey).toStringList();
    for (const QString& path : recent)
        m_recentMenu->addAction(path, this, [this, path] { openRepository(path); });
    m_recentMenu->setEnabled(!recent.isEmpty());
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
    if (!m_session->openWorkTree(path))
        return;
    addRecent(m_session->rootPath());
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
    m_demoPath = path;
    openRepository(path);
    return true;
}

bool MainWindow::isShowingGrid() const
{
    return m_stack->currentIndex() == 1;
}

QString MainWindow::summaryText() const
{
    return m_summary->text();
}

QString MainWindow::scanText() const
{
    return m_scanInfo->text();
}

QString MainWindow::gitText() const
{
    return m_git->text();
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
        updateStatusBar();
        return;
    }
    const bool hasRecipes = !analysis->entries.empty() || !analysis->unnamed.empty();
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
            m_branchModel->clear();
    }
    // The checked-out branch is what the grid shows, applied changes and edits included.
    if (m_session->revision().isEmpty() && m_session->git().isRepository)
        m_branchModel->setWorkTreeCounts(MatrixCounts::of(*analysis));
    updateBanner();
    updateStatusBar();
    updateGitLabel();
    updateTitle();
}

void MainWindow::updateBanner()
{
    const std::shared_ptr<const Analysis> analysis = m_session->analysis();
    if (analysis && analysis->specError) {
        m_banner->showMessage(
            MessageBanner::Kind::Error,
            tr("The matrix spec is invalid \u2014 %1. The grid uses a spec inferred from the "
               "recipes until it is fixed.")
                .arg(qs(analysis->specError->toString())));
    } else if (!m_session->scanError().isEmpty()) {
        m_banner->showMessage(
            MessageBanner::Kind::Error,
            tr("Cannot list %1: %2").arg(m_session->recipeDir(), m_session->scanError()));
    } else if (m_session->isReadOnly()) {
        m_banner->showMessage(MessageBanner::Kind::Info,
                              tr("Viewing %1 read-only, straight from git (no checkout). Use File "
                                 "\u203a Open Recent or Reload the work tree to edit.")
                                  .arg(m_session->revision()));
    } else if (analysis && analysis->spec.isInferred()) {
        m_banner->showMessage(MessageBanner::Kind::Info,
                              tr("No matrix spec (%1): the expected variants are inferred from "
                                 "the recipes present, so nothing shows as missing; cells the "
                                 "recipes around them suggest show as gaps.")
                                  .arg(QString::fromLatin1(MatrixSpec::defaultPath.data(),
                                                           MatrixSpec::defaultPath.size())));
    } else {
        m_banner->hide();
    }
}

void MainWindow::updateStatusBar()
{
    const std::shared_ptr<const Analysis> analysis = m_session->analysis();
    if (!analysis) {
        m_summary->setText(m_session->isOpen() ? tr("Scanning\u2026") : tr("No repository open"));
        m_scanInfo->clear();
        return;
    }
    // Warnings are not a status: counted apart, since an ok recipe may have some.
    const int withWarnings = MatrixModel::countWithWarnings(*analysis);
    QString summary = qs(analysis->summary());
    if (withWarnings > 0)
        summary += tr(" \u00b7 %1 with warnings").arg(withWarnings);
    m_summary->setText(summary);
    // A scan that found nothing changed (the file watcher's echo of files just written and
    // already re-analysed) leaves the line about the last scan that read something.
    if (m_session->lastParsedCount() > 0 || m_scanInfo->text().isEmpty())
        m_scanInfo->setText(tr("%n file(s) parsed", nullptr, m_session->lastParsedCount()) +
                            QStringLiteral(" \u00b7 %1 ms").arg(m_session->lastScanMilliseconds()));
    m_progress->hide();
}

void MainWindow::updateGitLabel()
{
    const SessionGitInfo& git = m_session->git();
    if (!m_session->isOpen()) {
        m_git->clear();
        return;
    }
    if (!git.isRepository) {
        m_git->setText(tr("not a git repository"));
        m_git->setToolTip(qs(git.error));
        return;
    }
    QString text =
        QStringLiteral("\u2387 ") +
        (git.branch.empty() ? tr("detached at %1").arg(qs(git.headCommit)) : qs(git.branch));
    if (!m_session->revision().isEmpty())
        text = QStringLiteral("\u2387 ") + m_session->revision() + tr(" (read-only)");
    else
        text += git.dirty ? tr("  \u25cf uncommitted changes") : tr("  \u2713 clean");
    m_git->setText(text);
    m_git->setToolTip(tr("HEAD %1").arg(qs(git.headCommit)));
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
    BuildSession* builds = this->builds();
    if (builds->hasRunningJobs()) {
        const int active = builds->queue()->runningCount() + builds->queue()->queuedCount();
        const bool quit =
            m_confirmQuit
                ? m_confirmQuit(active)
                : QMessageBox::question(
                      this, tr("Builds are running"),
                      tr("%n build(s) are running or queued. Quit and cancel them?", nullptr,
                         active),
                      QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes;
        if (!quit) {
            event->ignore();
            return;
        }
        builds->cancelAll();
    }
    saveSettings();
    QSettings settings;
    builds->settings().save(settings);
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
