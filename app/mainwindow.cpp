#include "mainwindow.h"

#include "aboutdialog.h"
#include "branchoverviewview.h"
#include "build/buildjobsmodel.h"
#include "build/buildqueue.h"
#include "build/buildsession.h"
#include "buildjobsview.h"
#include "buildsettingsdialog.h"
#include "changeactions.h"
#include "demorepository.h"
#include "detailspanel.h"
#include "dockfitter.h"
#include "emptystatepage.h"
#include "filterbar.h"
#include "logpane.h"
#include "matrixview.h"
#include "messagebanner.h"
#include "pinactions.h"
#include "recipepreview.h"
#include "recipes/branchoverviewmodel.h"
#include "recipes/matrixcounts.h"
#include "recipes/matrixmodel.h"
#include "recipes/qtext.h"
#include "recipes/repositorysession.h"
#include "slicechooser.h"
#include "statuslegend.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QDir>
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
#include <QtConcurrent/QtConcurrentRun>
#include <set>

namespace rg {

namespace {

constexpr int maxRecent = 8;

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_session(new RepositorySession(this)), m_model(new MatrixModel(this)),
      m_branchModel(new BranchOverviewModel(this)), m_stack(new QStackedWidget(this)),
      m_empty(new EmptyStatePage(this)), m_slices(new SliceChooser(this)),
      m_filter(new FilterBar(this)), m_banner(new MessageBanner(this)),
      m_view(new MatrixView(this)), m_details(new DetailsPanel(this)),
      m_preview(new RecipePreview(this)), m_branches(new BranchOverviewView(this)),
      m_progress(new QProgressBar(this)), m_summary(new QLabel(this)), m_git(new QLabel(this)),
      m_scanInfo(new QLabel(this)), m_buildInfo(new QLabel(this)), m_chipOrder(new QLabel(this)),
      m_previewRead(new QFutureWatcher<SourceFile>(this))
{
    setWindowTitle(QStringLiteral("RecipeGrid"));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

    auto* gridPage = new QWidget(this);
    auto* layout = new QVBoxLayout(gridPage);
    layout->setContentsMargins(0, 0, 0, 4);
    layout->setSpacing(6);
    layout->addWidget(m_slices);
    m_chipOrder->setAccessibleName(tr("Chip order"));
    m_chipOrder->hide();
    layout->addWidget(m_chipOrder);
    layout->addWidget(m_filter);
    m_view->setModel(m_model);
    layout->addWidget(m_view, 1);
    layout->addWidget(new StatusLegend(gridPage));
    m_gridLayout = layout;
    m_stack->addWidget(m_empty);
    m_stack->addWidget(gridPage);
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
    m_buildInfo->setAccessibleName(tr("Builds"));
    statusBar()->addPermanentWidget(m_buildInfo);

    createActions();
    m_changes = new ChangeActions(this);
    createBuilds();
    createDocks();
    m_pins = new PinActions(this); // its docks join the View menu createMenus() fills
    createMenus();

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
        m_banner->showMessage(MessageBanner::Kind::Error, message);
        statusBar()->showMessage(message, 8000);
    });
    connect(m_session, &RepositorySession::opened, this, [this] {
        m_firstAnalysis = true;
        updateTitle();
    });

    connect(m_slices, &SliceChooser::selectionChanged, this, &MainWindow::slicesChanged);
    connect(m_filter, &FilterBar::filterChanged, this, &MainWindow::filterChanged);
    connect(m_view, &MatrixView::selectedCellsChanged, this, &MainWindow::selectionChanged);
    connect(m_view, &MatrixView::cellMenuRequested, this, &MainWindow::showCellMenu);
    // Enter on a cell moves on to its findings; Enter there highlights one in the recipe.
    connect(m_view, &MatrixView::activated, this,
            [this] { m_details->findingsView()->setFocus(); });
    connect(m_details, &DetailsPanel::currentEntryChanged, this, &MainWindow::showEntry);
    connect(m_details, &DetailsPanel::findingActivated, this, &MainWindow::showFinding);
    connect(m_details, &DetailsPanel::rangeActivated, m_preview, &RecipePreview::highlightRange);
    connect(m_previewRead, &QFutureWatcher<SourceFile>::finished, this, &MainWindow::previewRead);
    connect(m_branches, &BranchOverviewView::branchActivated, this, &MainWindow::branchActivated);

    connect(m_empty, &EmptyStatePage::openRequested, this, &MainWindow::chooseRepository);
    connect(m_empty, &EmptyStatePage::demoRequested, this, &MainWindow::openDemo);
    connect(m_empty, &EmptyStatePage::recentRequested, this, &MainWindow::openRepository);

    resize(1500, 920);
    new DockFitter(this); // every dock exists by now, PinActions' too
    restoreSettings();
    const QStringList recent =
        QSettings().value(QStringLiteral("recentRepositories")).toStringList();
    m_empty->showWelcome(recent);
    m_stack->setCurrentWidget(m_empty);
    updateStatusBar();
    updateGitLabel();
}

MainWindow::~MainWindow()
{
    m_previewRead->waitForFinished();
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

    m_showAllAction = new QAction(tr("Show &All Architectures and ISAs"), this);
    m_showAllAction->setCheckable(true);
    connect(m_showAllAction, &QAction::toggled, m_model, &MatrixModel::setShowAll);

    m_editAction = new QAction(tr("Open in &Editor"), this);
    m_editAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(m_editAction, &QAction::triggered, this, &MainWindow::openInEditor);

    m_copyNameAction = new QAction(tr("&Copy Variant Name"), this);
    m_copyNameAction->setShortcut(QKeySequence::Copy);
    m_copyNameAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(m_copyNameAction, &QAction::triggered, this, &MainWindow::copyVariantNames);
    m_view->addAction(m_copyNameAction);

    m_copyPathAction = new QAction(tr("Copy &Path"), this);
    m_copyPathAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    connect(m_copyPathAction, &QAction::triggered, this, &MainWindow::copyPaths);

    m_buildAction = new QAction(tr("&Build"), this);
    m_buildAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    m_buildAction->setToolTip(
        tr("Build the selected variants (flox build / nix build) with live logs"));
    connect(m_buildAction, &QAction::triggered, this, &MainWindow::buildSelection);

    m_publishAction = new QAction(tr("&Publish"), this);
    m_publishAction->setToolTip(
        tr("flox publish the selected variants whose last build succeeded"));
    connect(m_publishAction, &QAction::triggered, this, &MainWindow::publishSelection);

    m_buildSettingsAction = new QAction(tr("Build &Settings\u2026"), this);
    connect(m_buildSettingsAction, &QAction::triggered, this, [this] {
        BuildSettingsDialog dialog(m_builds->settings(), this);
        if (dialog.exec() == QDialog::Accepted)
            applyBuildSettings(dialog.settings());
    });

    m_aboutAction = new QAction(tr("&About RecipeGrid"), this);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::showAbout);
}

void MainWindow::createDocks()
{
    auto* details = new QDockWidget(tr("Details"), this);
    details->setObjectName(QStringLiteral("detailsDock"));
    details->setWidget(m_details);
    addDockWidget(Qt::RightDockWidgetArea, details);

    auto* preview = new QDockWidget(tr("Recipe"), this);
    preview->setObjectName(QStringLiteral("previewDock"));
    preview->setWidget(m_preview);
    addDockWidget(Qt::RightDockWidgetArea, preview);

    auto* branches = new QDockWidget(tr("Branches"), this);
    branches->setObjectName(QStringLiteral("branchesDock"));
    branches->setWidget(m_branches);
    addDockWidget(Qt::BottomDockWidgetArea, branches);

    auto* builds = new QDockWidget(tr("Builds"), this);
    builds->setObjectName(QStringLiteral("buildsDock"));
    auto* split = new QSplitter(Qt::Vertical, builds);
    split->addWidget(m_jobs);
    split->addWidget(m_logTabs);
    split->setStretchFactor(1, 2);
    builds->setWidget(split);
    addDockWidget(Qt::BottomDockWidgetArea, builds);
    tabifyDockWidget(branches, builds);
    branches->raise();
    // The right-hand panels run the full height: the recipe text wants every line it can get.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);

    resizeDocks({details, preview}, {560, 560}, Qt::Horizontal);
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

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    m_viewMenu->addAction(m_showAllAction);
    m_viewMenu->addAction(m_pins->colourAction());
    m_viewMenu->addSeparator();
    QAction* focusGrid =
        m_viewMenu->addAction(tr("Focus &Grid"), this, [this] { m_view->setFocus(); });
    focusGrid->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    QAction* focusDetails = m_viewMenu->addAction(
        tr("Focus &Findings"), this, [this] { m_details->findingsView()->setFocus(); });
    focusDetails->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));
    QAction* focusPreview =
        m_viewMenu->addAction(tr("Focus &Recipe"), this, [this] { m_preview->setFocus(); });
    focusPreview->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_3));
    QAction* focusFilter = m_viewMenu->addAction(tr("&Filter"), this, [this] {
        m_filter->lineEdit()->setFocus();
        m_filter->lineEdit()->selectAll();
    });
    focusFilter->setShortcut(QKeySequence::Find);
    m_viewMenu->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        m_viewMenu->addAction(dock->toggleViewAction());

    QMenu* recipe = menuBar()->addMenu(tr("&Recipe"));
    recipe->addAction(m_editAction);
    recipe->addAction(m_copyNameAction);
    recipe->addAction(m_copyPathAction);

    recipe->addSeparator();
    recipe->addAction(m_buildAction);
    recipe->addAction(m_publishAction);
    recipe->addSeparator();
    recipe->addAction(m_buildSettingsAction);

    m_changes->addToMenu(menuBar()->addMenu(tr("&Changes")));
    m_pins->addToMenu(menuBar()->addMenu(tr("&Pins")));

    QToolBar* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->addAction(m_openAction);
    toolbar->addAction(m_reloadAction);
    toolbar->addSeparator();
    toolbar->addAction(m_buildAction);
    toolbar->addAction(m_editAction);
    toolbar->addSeparator();
    toolbar->addAction(m_pins->colourAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_aboutAction);
}

void MainWindow::addGridFooter(QWidget* widget)
{
    m_gridLayout->addWidget(widget);
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_showAllAction->setChecked(settings.value(QStringLiteral("grid/showAll"), false).toBool());
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("grid/showAll"), m_showAllAction->isChecked());
    QStringList slices;
    for (const MatrixSlice& slice : m_slices->selected())
        slices << QString::fromStdString(slice.key());
    if (!slices.isEmpty())
        settings.setValue(QStringLiteral("grid/slices"), slices);
}

void MainWindow::addRecent(const QString& path)
{
    if (!m_demoPath.isEmpty() && path == m_demoPath)
        return; // a temporary copy is gone next time
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recentRepositories")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > maxRecent)
        recent.removeLast();
    settings.setValue(QStringLiteral("recentRepositories"), recent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    const QStringList recent =
        QSettings().value(QStringLiteral("recentRepositories")).toStringList();
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
        m_banner->showMessage(MessageBanner::Kind::Error,
                              tr("Could not create the demo repository: %1").arg(error));
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

std::vector<std::pair<std::string, std::string>> MainWindow::selectedCellIds() const
{
    std::vector<std::pair<std::string, std::string>> ids;
    for (const QModelIndex& index : m_view->selectedCells())
        ids.emplace_back(m_model->rowId(index.row()), m_model->columnId(index.column()));
    return ids;
}

void MainWindow::analysisChanged()
{
    const std::shared_ptr<const Analysis> analysis = m_session->analysis();
    if (!analysis) {
        m_model->setAnalysis(nullptr);
        m_details->clear();
        m_preview->clearRecipe();
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

    // Keep the selection across a re-scan: by cell identity, not by row number.
    const auto previousCells = selectedCellIds();
    const QModelIndex current = m_view->currentIndex();
    const auto currentId = current.isValid() ? std::make_pair(m_model->rowId(current.row()),
                                                              m_model->columnId(current.column()))
                                             : std::make_pair(std::string(), std::string());

    const std::vector<MatrixSlice> available = MatrixSlice::slicesOf(*analysis);
    std::vector<MatrixSlice> wanted = m_slices->selected();
    if (m_firstAnalysis) {
        wanted.clear();
        for (const QString& key : QSettings().value(QStringLiteral("grid/slices")).toStringList()) {
            if (auto slice = MatrixSlice::fromKey(key.toStdString()))
                wanted.push_back(*slice);
        }
    }
    std::erase_if(wanted, [&](const MatrixSlice& slice) {
        return std::find(available.begin(), available.end(), slice) == available.end();
    });
    if (wanted.empty()) {
        if (auto busiest = MatrixSlice::busiest(*analysis))
            wanted.push_back(*busiest);
    }
    {
        const QSignalBlocker blocker(m_slices);
        m_slices->setSlices(available, wanted);
    }
    updateChipOrder();
    m_model->setSlices(m_slices->selected());
    m_model->setAnalysis(analysis);
    m_view->fitToContents();

    if (!previousCells.empty() && m_view->selectedCells().isEmpty()) {
        QItemSelection selection;
        for (int r = 0; r < m_model->rowCount(); ++r) {
            for (int c = 0; c < m_model->columnCount(); ++c) {
                const auto id = std::make_pair(m_model->rowId(r), m_model->columnId(c));
                if (std::find(previousCells.begin(), previousCells.end(), id) !=
                    previousCells.end())
                    selection.select(m_model->index(r, c), m_model->index(r, c));
                if (id == currentId)
                    m_view->selectionModel()->setCurrentIndex(m_model->index(r, c),
                                                              QItemSelectionModel::NoUpdate);
            }
        }
        m_view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
    }
    selectionChanged(); // the entries behind the selection are new objects

    if (m_firstAnalysis) {
        m_firstAnalysis = false;
        if (m_view->selectedCells().isEmpty() && m_model->rowCount() > 0)
            m_view->setCurrentIndex(m_model->index(0, 0));
        m_view->setFocus();
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
    m_filter->setCounts(analysis->counts(), withWarnings);
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

void MainWindow::slicesChanged()
{
    updateChipOrder();
    m_model->setSlices(m_slices->selected());
    m_view->fitToContents();
    selectionChanged();
}

void MainWindow::updateChipOrder()
{
    // With small multiples, say which chip is which slice.
    const std::vector<MatrixSlice> selected = m_slices->selected();
    QStringList order;
    for (const MatrixSlice& slice : selected)
        order << QString::fromStdString(slice.label());
    m_chipOrder->setText(
        tr("Chips in each cell, left to right: %1").arg(order.join(QStringLiteral("  |  "))));
    m_chipOrder->setVisible(selected.size() > 1);
}

void MainWindow::filterChanged()
{
    m_model->setFilter(m_filter->text(), m_filter->statusMask(), m_filter->warningsOnly());
}

std::vector<const MatrixEntry*> MainWindow::selectedEntries() const
{
    std::vector<const MatrixEntry*> entries;
    std::set<const MatrixEntry*> seen;
    QModelIndexList cells = m_view->selectedCells();
    if (cells.isEmpty() && m_view->currentIndex().isValid())
        cells << m_view->currentIndex();
    for (const QModelIndex& cell : cells) {
        for (const MatrixEntry* entry : m_model->entriesAt(cell)) {
            if (seen.insert(entry).second)
                entries.push_back(entry);
        }
    }
    return entries;
}

void MainWindow::selectionChanged()
{
    const QModelIndexList cells = m_view->selectedCells();
    const std::shared_ptr<const Analysis> analysis = m_session->analysis();
    if (!analysis || cells.isEmpty()) {
        m_details->clear();
        m_preview->clearRecipe();
        m_previewPath.clear();
        return;
    }
    QString title =
        cells.size() == 1
            ? m_model->headerData(cells.front().row(), Qt::Vertical, Qt::AccessibleTextRole)
                      .toString() +
                  QStringLiteral(" \u00d7 ") + qs(m_model->columnId(cells.front().column()))
            : tr("%n cells selected", nullptr, static_cast<int>(cells.size()));
    m_details->setEntries(analysis, selectedEntries(), title);
}

bool MainWindow::selectVariant(const QString& variantName)
{
    QModelIndex index = m_model->indexOfVariant(variantName.toStdString());
    const auto analysis = m_model->analysis();
    const auto name = VariantName::parse(variantName.toStdString());
    if (!index.isValid() && analysis && name) {
        // A variant of a slice not shown: show that slice instead.
        const std::vector<MatrixSlice> available = MatrixSlice::slicesOf(*analysis);
        const auto slice =
            std::find_if(available.begin(), available.end(), [&](const MatrixSlice& s) {
                return s.contains(*name) && (s.package.empty() || s.package == name->package);
            });
        if (slice != available.end()) {
            m_slices->setSlices(available, {*slice});
            index = m_model->indexOfVariant(variantName.toStdString());
        }
    }
    if (!index.isValid())
        return false;
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index);
    m_details->selectVariant(variantName);
    return true;
}

void MainWindow::showEntry(const MatrixEntry* entry)
{
    if (!entry) {
        m_previewPath.clear();
        m_preview->clearRecipe();
        return;
    }
    if (!entry->recipe) {
        m_previewPath.clear();
        const QString text =
            entry->status == CellStatus::Gap
                ? tr("No recipe file.\n\nNo spec asks for it; the recipes around it suggest "
                     "%1.nix in %2.")
                : tr("No recipe file.\n\nThe spec expects %1.nix in %2.");
        m_preview->showMessage({}, text.arg(qs(entry->variant.toString()), m_session->recipeDir()));
        emit previewUpdated();
        return;
    }
    // Read off the GUI thread: a recipe on a slow disk must not freeze the grid.
    m_previewPath = qs(entry->recipe->path);
    const std::shared_ptr<const RepositorySource> source = m_session->source();
    const std::string path = entry->recipe->path;
    const uint64_t maxBytes = m_session->maxFileSize();
    m_previewRead->setFuture(QtConcurrent::run([source, path, maxBytes]() {
        return source ? source->read(path, maxBytes) : SourceFile{path, {}, "no repository open"};
    }));
}

void MainWindow::previewRead()
{
    const SourceFile file = m_previewRead->result();
    const QString path = qs(file.path);
    if (path != m_previewPath)
        return; // the selection moved on while reading
    const MatrixEntry* entry = m_details->currentEntry();
    if (!file.error.empty()) {
        m_preview->showMessage(path,
                               tr("%1\n\nCannot read this recipe: %2").arg(path, qs(file.error)));
    } else {
        m_preview->showRecipe(path, QByteArray::fromStdString(file.bytes));
        if (entry) {
            std::vector<RecipePreview::Marker> markers;
            for (const Finding& finding : entry->findings) {
                if (finding.file == file.path && (finding.range.end > 0 || finding.line > 0))
                    markers.push_back({finding.range.begin, finding.range.end, finding.severity,
                                       qs(finding.message)});
            }
            m_preview->setMarkers(std::move(markers));
        }
    }
    emit previewUpdated();
}

void MainWindow::showFinding(const Finding& finding)
{
    if (finding.range.end > finding.range.begin)
        m_preview->highlightRange(finding.range.begin, finding.range.end);
    else if (finding.line > 0)
        m_preview->highlightLine(static_cast<int>(finding.line));
}

void MainWindow::showCellMenu(const QModelIndex& index, const QPoint& globalPosition)
{
    if (!index.isValid())
        return;
    QMenu menu(this);
    const bool hasFile = !index.data(MatrixModel::PathsRole).toStringList().isEmpty();
    m_editAction->setEnabled(hasFile && !m_session->isReadOnly());
    m_copyPathAction->setEnabled(hasFile);
    menu.addAction(m_editAction);
    menu.addAction(m_copyNameAction);
    menu.addAction(m_copyPathAction);
    menu.addSeparator();
    m_buildAction->setEnabled(hasFile && !m_session->isReadOnly());
    menu.addAction(m_buildAction);
    m_publishAction->setEnabled(!publishableVariants().isEmpty());
    menu.addAction(m_publishAction);
    emit cellMenuAboutToShow(&menu, m_view->selectedCells());
    menu.exec(globalPosition);
    m_editAction->setEnabled(true);
    m_copyPathAction->setEnabled(true);
    m_buildAction->setEnabled(true);
    m_publishAction->setEnabled(true);
}

void MainWindow::openInEditor()
{
    for (const MatrixEntry* entry : selectedEntries()) {
        if (!entry->recipe)
            continue;
        const QString path = m_session->absolutePath(qs(entry->recipe->path));
        if (path.isEmpty()) {
            statusBar()->showMessage(tr("A revision opened from git has no files to edit"), 5000);
            return;
        }
        QDesktopServices::openUrl(QUrl::fromLocalFile(path));
    }
}

void MainWindow::copyVariantNames()
{
    QStringList names;
    for (const MatrixEntry* entry : selectedEntries())
        names << qs(entry->variant.toString());
    QGuiApplication::clipboard()->setText(names.join(QLatin1Char('\n')));
    statusBar()->showMessage(
        tr("Copied %n variant name(s)", nullptr, static_cast<int>(names.size())), 3000);
}

void MainWindow::copyPaths()
{
    QStringList paths;
    for (const MatrixEntry* entry : selectedEntries()) {
        if (!entry->recipe)
            continue;
        const QString absolute = m_session->absolutePath(qs(entry->recipe->path));
        paths << (absolute.isEmpty() ? qs(entry->recipe->path) : absolute);
    }
    QGuiApplication::clipboard()->setText(paths.join(QLatin1Char('\n')));
    statusBar()->showMessage(tr("Copied %n path(s)", nullptr, static_cast<int>(paths.size())),
                             3000);
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
    if (m_builds->hasRunningJobs()) {
        const int active = m_builds->queue()->runningCount() + m_builds->queue()->queuedCount();
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
        m_builds->cancelAll();
    }
    saveSettings();
    QSettings settings;
    m_builds->settings().save(settings);
    event->accept();
}

void MainWindow::createBuilds()
{
    m_builds = new BuildSession({}, this);
    QSettings settings;
    m_builds->setSettings(BuildSettings::load(settings));
    m_jobs = new BuildJobsView(this);
    m_jobs->setModel(m_builds->jobsModel());
    m_logTabs = new QTabWidget(this);
    m_logTabs->setTabsClosable(true); // closing a pane leaves its build running
    m_logTabs->setDocumentMode(true);
    m_logTabs->setAccessibleName(tr("Build logs"));
    connect(m_logTabs, &QTabWidget::tabCloseRequested, this, [this](int index) {
        QWidget* pane = m_logTabs->widget(index);
        m_logTabs->removeTab(index);
        pane->deleteLater();
    });

    // By the recipe's content key, computed with the scan: a cell shows the builds of what it
    // holds now, from whichever clone or work tree built it.
    m_model->setBuildStateProvider([this](const MatrixEntry& entry) {
        return m_builds->cellState(entry, m_session->rootPath());
    });
    m_details->setBuildSummaryProvider([this](const MatrixEntry& entry) {
        return m_builds->cellState(entry, m_session->rootPath()).summary;
    });
    connect(m_builds, &BuildSession::variantStateChanged, this, [this](const QString& variant) {
        m_model->buildStateChanged(variant.toStdString());
        m_details->buildStateChanged(variant);
        updateBuildStatus();
    });
    BuildQueue* queue = m_builds->queue();
    connect(queue, &BuildQueue::jobStarted, this, [this](quint64 id) { showLog(id); });
    connect(queue, &BuildQueue::jobFinished, this, [this](quint64 id) {
        const BuildRecord* record = m_builds->queue()->job(id);
        if (record)
            statusBar()->showMessage(tr("%1: %2").arg(record->variant, jobStateName(record->state)),
                                     8000);
        updateBuildStatus();
    });
    connect(queue, &BuildQueue::jobQueued, this, &MainWindow::updateBuildStatus);
    connect(m_jobs, &BuildJobsView::logRequested, this, [this](quint64 id) { showLog(id); });
    connect(m_jobs, &BuildJobsView::cancelRequested, m_builds, &BuildSession::cancel);
    connect(m_jobs, &BuildJobsView::rebuildRequested, this, [this](const QString& variant) {
        QStringList errors;
        m_builds->build(m_session->rootPath(), {variant}, &errors);
        if (!errors.isEmpty())
            m_banner->showMessage(MessageBanner::Kind::Error, errors.join(QLatin1Char('\n')));
    });
    connect(m_jobs, &BuildJobsView::publishRequested, this, [this](const QString& variant) {
        QString error;
        if (m_builds->publish(m_session->rootPath(), variant, &error) == 0)
            m_banner->showMessage(MessageBanner::Kind::Error, error);
    });
    if (const QString error = m_builds->historyError(); !error.isEmpty())
        statusBar()->showMessage(error, 10000);
    updateBuildStatus();
}

int MainWindow::buildSelection()
{
    if (!m_session->isOpen() || m_session->isReadOnly()) {
        statusBar()->showMessage(tr("Builds need a work tree (not a revision opened from git)"),
                                 5000);
        return 0;
    }
    QStringList variants;
    for (const MatrixEntry* entry : selectedEntries()) {
        if (entry->recipe)
            variants << qs(entry->variant.toString());
    }
    if (variants.isEmpty()) {
        statusBar()->showMessage(tr("Nothing to build: the selection has no recipe files"), 5000);
        return 0;
    }
    if (const auto analysis = m_session->analysis()) {
        m_builds->setRecipeDirectory(m_session->recipeDir());
        m_builds->setExpectedTorchVersion(qs(analysis->spec.torchVersion));
        m_builds->setAnalysis(m_session->rootPath(), analysis);
    }
    QStringList errors;
    const QList<quint64> queued = m_builds->build(m_session->rootPath(), variants, &errors);
    if (!errors.isEmpty())
        m_banner->showMessage(MessageBanner::Kind::Error, errors.join(QLatin1Char('\n')));
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("buildsDock"))) {
        dock->show();
        dock->raise();
    }
    updateBuildStatus();
    return static_cast<int>(queued.size());
}

QStringList MainWindow::publishableVariants() const
{
    QStringList variants;
    if (!m_session->isOpen() || m_session->isReadOnly())
        return variants;
    for (const MatrixEntry* entry : selectedEntries()) {
        const QString variant = qs(entry->variant.toString());
        const VariantBuildState state =
            m_builds->variantState(variant, qs(entry->contentKey), m_session->rootPath());
        if (entry->recipe && state.hasResult() && state.lastState == JobState::Succeeded)
            variants << variant;
    }
    return variants;
}

int MainWindow::publishSelection()
{
    const QStringList variants = publishableVariants();
    if (variants.isEmpty()) {
        statusBar()->showMessage(tr("Nothing to publish: build the selected variants first"), 5000);
        return 0;
    }
    QStringList errors;
    int queued = 0;
    for (const QString& variant : variants) {
        QString error;
        if (m_builds->publish(m_session->rootPath(), variant, &error) != 0)
            ++queued;
        else
            errors << tr("%1: %2").arg(variant, error);
    }
    if (!errors.isEmpty())
        m_banner->showMessage(MessageBanner::Kind::Error, errors.join(QLatin1Char('\n')));
    updateBuildStatus();
    return queued;
}

void MainWindow::applyBuildSettings(const BuildSettings& settings)
{
    m_builds->setSettings(settings);
    QSettings store;
    settings.save(store);
}

LogPane* MainWindow::showLog(quint64 jobId)
{
    for (int i = 0; i < m_logTabs->count(); ++i) {
        auto* pane = qobject_cast<LogPane*>(m_logTabs->widget(i));
        if (pane && pane->jobId() == jobId) {
            m_logTabs->setCurrentIndex(i);
            return pane;
        }
    }
    const int row = m_builds->jobsModel()->rowOf(jobId);
    const BuildRecord* record = row >= 0 ? m_builds->jobsModel()->record(row) : nullptr;
    auto* pane = new LogPane(m_logTabs);
    pane->attachJob(m_builds->queue(), jobId);
    if (record)
        pane->setLogFilePath(record->logPath);
    const int index = m_logTabs->addTab(pane, record ? record->variant : tr("job %1").arg(jobId));
    m_logTabs->setTabToolTip(index, record ? record->command : QString());
    m_logTabs->setCurrentIndex(index);
    return pane;
}

QString MainWindow::buildsText() const
{
    return m_buildInfo->text();
}

void MainWindow::updateBuildStatus()
{
    const int running = m_builds->queue()->runningCount();
    const int queued = m_builds->queue()->queuedCount();
    m_buildInfo->setText(running + queued == 0
                             ? QString()
                             : tr("builds: %1 running \u00b7 %2 queued").arg(running).arg(queued));
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
        m_view->viewport()->update();
}

} // namespace rg
