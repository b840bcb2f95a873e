#include "gridcontroller.h"

#include "actioncontext.h"
#include "detailspanel.h"
#include "filterbar.h"
#include "itemmodels/matrixmodel.h"
#include "matrixview.h"
#include "recipepreview.h"
#include "sessions/backgroundpool.h"
#include "sessions/buildsession.h"
#include "sessions/qtext.h"
#include "sessions/repositorysession.h"
#include "slicechooser.h"
#include "statuslegend.h"

#include <QAction>
#include <QClipboard>
#include <QDesktopServices>
#include <QGuiApplication>
#include <QLabel>
#include <QMenu>
#include <QSettings>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <set>

namespace rg {

namespace {

const QString showAllKey = QStringLiteral("grid/showAll");
const QString slicesKey = QStringLiteral("grid/slices");

} // namespace

GridController::GridController(ActionContext& context, QObject* parent)
    : QObject(parent), m_context(context), m_model(new MatrixModel(this)),
      m_previewRead(new QFutureWatcher<SourceFile>(this))
{
    createPage();
    m_details = new DetailsPanel(m_context.mainWidget());
    m_preview = new RecipePreview(m_context.mainWidget());
    createActions();
    connectWidgets();
    updateActions();
}

GridController::~GridController()
{
    m_previewRead->waitForFinished();
}

void GridController::createPage()
{
    m_page = new QWidget(m_context.mainWidget());
    m_layout = new QVBoxLayout(m_page);
    m_layout->setContentsMargins(0, 0, 0, 4);
    m_layout->setSpacing(6);
    m_slices = new SliceChooser(m_page);
    m_layout->addWidget(m_slices);
    m_chipOrder = new QLabel(m_page);
    m_chipOrder->setAccessibleName(tr("Chip order"));
    m_chipOrder->hide();
    m_layout->addWidget(m_chipOrder);
    m_filter = new FilterBar(m_page);
    m_layout->addWidget(m_filter);
    m_view = new MatrixView(m_page);
    m_view->setModel(m_model);
    m_layout->addWidget(m_view, 1);
    m_layout->addWidget(new StatusLegend(m_page));
}

void GridController::createActions()
{
    m_showAllAction = new QAction(tr("Show &All Architectures and ISAs"), this);
    m_showAllAction->setCheckable(true);
    connect(m_showAllAction, &QAction::toggled, m_model, &MatrixModel::setShowAll);

    m_editAction = new QAction(tr("&Open in Editor"), this);
    m_editAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    connect(m_editAction, &QAction::triggered, this, &GridController::openInEditor);

    m_copyNameAction = new QAction(tr("Copy &Variant Name"), this);
    m_copyNameAction->setShortcut(QKeySequence::Copy);
    m_copyNameAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(m_copyNameAction, &QAction::triggered, this, &GridController::copyVariantNames);
    m_view->addAction(m_copyNameAction);

    m_copyPathAction = new QAction(tr("Copy Pa&th"), this);
    m_copyPathAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    connect(m_copyPathAction, &QAction::triggered, this, &GridController::copyPaths);

    m_nextBrokenAction = new QAction(tr("&Next Broken Recipe"), this);
    m_nextBrokenAction->setShortcut(QKeySequence(Qt::Key_F8));
    connect(m_nextBrokenAction, &QAction::triggered, this, [this] { goToBroken(false); });
    m_previousBrokenAction = new QAction(tr("Pre&vious Broken Recipe"), this);
    m_previousBrokenAction->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F8));
    connect(m_previousBrokenAction, &QAction::triggered, this, [this] { goToBroken(true); });
}

void GridController::goToBroken(bool backwards)
{
    const Cell* entry = nullptr;
    const QModelIndex next = m_model->brokenAfter(m_view->currentIndex(), backwards, &entry);
    if (!next.isValid()) {
        m_context.showStatus(tr("No broken recipe in the slices shown"), 5000);
        return;
    }
    showCell(next, entry);
    m_view->setFocus();
}

void GridController::showCell(const QModelIndex& index, const Cell* entry)
{
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index);
    if (entry) // a cell's broken extra recipe, not the missing one it stands beside
        m_details->selectVariant(qs(entry->variant.toString()));
}

void GridController::connectWidgets()
{
    connect(m_slices, &SliceChooser::selectionChanged, this, &GridController::slicesChanged);
    connect(m_filter, &FilterBar::filterChanged, this, &GridController::filterChanged);
    connect(m_view, &MatrixView::selectedCellsChanged, this, &GridController::selectionChanged);
    // With nothing selected, the current cell is what the actions act on.
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &GridController::updateActions);
    connect(m_view, &MatrixView::cellMenuRequested, this, &GridController::showCellMenu);
    // Enter on a cell moves on to its findings; Enter there highlights one in the recipe.
    connect(m_view, &MatrixView::activated, this,
            [this] { m_details->findingsView()->setFocus(); });
    connect(m_details, &DetailsPanel::currentEntryChanged, this, &GridController::showEntry);
    connect(m_details, &DetailsPanel::findingActivated, this, &GridController::showFinding);
    connect(m_details, &DetailsPanel::rangeActivated, m_preview, &RecipePreview::highlightRange);
    connect(m_previewRead, &QFutureWatcher<SourceFile>::finished, this,
            &GridController::previewRead);
}

void GridController::restoreSettings(const QSettings& settings)
{
    m_showAllAction->setChecked(settings.value(showAllKey, false).toBool());
}

void GridController::saveSettings(QSettings& settings) const
{
    settings.setValue(showAllKey, m_showAllAction->isChecked());
    QStringList slices;
    for (const MatrixSlice& slice : m_slices->selected())
        slices << QString::fromStdString(slice.key());
    if (!slices.isEmpty())
        settings.setValue(slicesKey, slices);
}

void GridController::addFooter(QWidget* widget)
{
    m_layout->addWidget(widget);
}

void GridController::showBuildStates(BuildSession* builds)
{
    // By the recipe's content key, computed with the scan: a cell shows the builds of what it
    // holds now, from whichever clone or work tree built it.
    RepositorySession* session = m_context.session();
    m_model->setBuildStateProvider([builds, session](const Cell& entry) {
        return builds->cellState(entry, session->rootPath());
    });
    m_details->setBuildSummaryProvider([builds, session](const Cell& entry) {
        return builds->cellState(entry, session->rootPath()).summary;
    });
    connect(builds, &BuildSession::variantStateChanged, this, [this](const QString& variant) {
        m_model->buildStateChanged(variant.toStdString());
        m_details->buildStateChanged(variant);
    });
}

void GridController::clear()
{
    m_model->setAnalysis(nullptr);
    m_details->clear();
    m_preview->clearRecipe();
    updateActions();
}

void GridController::showAnalysis(const std::shared_ptr<const Analysis>& analysis, bool opened)
{
    // Keep the selection across a re-scan: by cell identity, not by row number.
    const std::vector<CellId> previousCells = selectedCellIds();
    const std::vector<CellId> currentCells = m_model->cellIdsAt(m_view->currentIndex());

    const std::vector<MatrixSlice> available = MatrixSlice::slicesOf(*analysis);
    {
        const QSignalBlocker blocker(m_slices);
        m_slices->setSlices(available, slicesToShow(*analysis, available, opened));
    }
    updateChipOrder();
    m_model->setSlices(m_slices->selected());
    m_model->setAnalysis(analysis);
    m_view->fitToContents();

    if (!previousCells.empty() && m_view->selectedCells().isEmpty())
        reselect(previousCells, currentCells);
    selectionChanged(); // the entries behind the selection are new objects

    if (opened) {
        if (m_view->selectedCells().isEmpty() && m_model->rowCount() > 0) {
            const Cell* entry = nullptr;
            const QModelIndex opening = m_model->openingIndex(&entry);
            showCell(opening, entry);
        }
        m_view->setFocus();
    }
    // Warnings are not a status: counted apart, since an ok recipe may have some.
    m_filter->setCounts(analysis->counts(), MatrixModel::countWithWarnings(*analysis));
}

std::vector<MatrixSlice> GridController::slicesToShow(const Analysis& analysis,
                                                      const std::vector<MatrixSlice>& available,
                                                      bool opened) const
{
    std::vector<MatrixSlice> wanted = m_slices->selected();
    if (opened) {
        wanted.clear();
        for (const QString& key : QSettings().value(slicesKey).toStringList()) {
            if (auto slice = MatrixSlice::fromKey(key.toStdString()))
                wanted.push_back(*slice);
        }
    }
    std::erase_if(wanted, [&](const MatrixSlice& slice) {
        return std::find(available.begin(), available.end(), slice) == available.end();
    });
    if (wanted.empty()) {
        if (auto busiest = MatrixSlice::busiest(analysis))
            wanted.push_back(*busiest);
    }
    return wanted;
}

void GridController::reselect(const std::vector<CellId>& cells, const std::vector<CellId>& current)
{
    select(cells);
    for (const CellId& id : current)
        if (const QModelIndex index = m_model->indexOf(id); index.isValid()) {
            m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::NoUpdate);
            break;
        }
}

void GridController::slicesChanged()
{
    updateChipOrder();
    m_model->setSlices(m_slices->selected());
    m_view->fitToContents();
    selectionChanged();
}

void GridController::updateChipOrder()
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

void GridController::filterChanged()
{
    m_model->setFilter(m_filter->text(), m_filter->statusMask(), m_filter->warningsOnly());
}

QModelIndexList GridController::selectedCells() const
{
    return m_view->selectedCells();
}

std::vector<const Cell*> GridController::entriesOf(const QModelIndexList& cells) const
{
    std::vector<const Cell*> entries;
    std::set<const Cell*> seen;
    for (const QModelIndex& cell : cells) {
        for (const Cell* entry : m_model->entriesAt(cell)) {
            if (seen.insert(entry).second)
                entries.push_back(entry);
        }
    }
    return entries;
}

std::vector<const Cell*> GridController::selectedEntries() const
{
    QModelIndexList cells = m_view->selectedCells();
    if (cells.isEmpty() && m_view->currentIndex().isValid())
        cells << m_view->currentIndex();
    return entriesOf(cells);
}

void GridController::selectionChanged()
{
    const QModelIndexList cells = m_view->selectedCells();
    const std::shared_ptr<const Analysis> analysis = m_context.session()->analysis();
    updateActions();
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
    std::vector<const Cell*> entries = selectedEntries();
    const QString emptyReason = entries.empty() ? emptyCellReason() : QString();
    m_details->setEntries(analysis, std::move(entries), title, emptyReason);
}

// Why the one selected cell has nothing in it, as the grid's tooltip says it ("Python 3.13 ·
// CUDA 13.0: impossible — …"); "" when several cells are selected or the spec simply does not
// ask for it.
QString GridController::emptyCellReason() const
{
    const QModelIndexList cells = m_view->selectedCells();
    return cells.size() == 1 ? cells.front().data(MatrixModel::ReasonRole).toString() : QString();
}

std::vector<CellId> GridController::selectedCellIds() const
{
    std::vector<CellId> ids;
    for (const QModelIndex& index : m_view->selectedCells())
        for (CellId& id : m_model->cellIdsAt(index))
            ids.push_back(std::move(id));
    return ids;
}

bool GridController::selectCell(const CellSelector& selector)
{
    QModelIndex index = m_model->indexOf(selector);
    const auto analysis = m_model->analysis();
    if (!index.isValid() && analysis) {
        // A recipe of a slice not shown: show that slice instead.
        const auto entry = std::find_if(analysis->cells.begin(), analysis->cells.end(),
                                        [&](const Cell& e) { return selector.matches(e); });
        const std::vector<MatrixSlice> available = MatrixSlice::slicesOf(*analysis);
        const auto slice =
            entry == analysis->cells.end()
                ? available.end()
                : std::find_if(available.begin(), available.end(),
                               [&](const MatrixSlice& s) { return s.contains(*entry); });
        if (slice != available.end()) {
            m_slices->setSlices(available, {*slice});
            index = m_model->indexOf(selector);
        }
    }
    if (!index.isValid())
        return false;
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index);
    for (const Cell* entry : m_model->entriesAt(index))
        if (selector.matches(*entry)) {
            m_details->selectVariant(qs(entry->variant.toString()));
            break;
        }
    return true;
}

bool GridController::selectCells(const std::vector<CellId>& cells)
{
    if (!select(cells))
        return false;
    m_view->setFocus();
    return true;
}

bool GridController::select(const std::vector<CellId>& cells)
{
    QItemSelection selection;
    for (const CellId& id : cells) {
        const QModelIndex cell = m_model->indexOf(id);
        if (cell.isValid())
            selection.select(cell, cell);
    }
    if (selection.isEmpty())
        return false;
    m_view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
    return true;
}

void GridController::showEntry(const Cell* entry)
{
    if (!entry) {
        m_previewPath.clear();
        // A selected cell with nothing in it says so, as the details do: "Select a cell" would
        // tell a user who just did to do it again.
        if (m_view->selectedCells().isEmpty()) {
            m_preview->clearRecipe();
            return;
        }
        const QString reason = emptyCellReason();
        m_preview->showMessage({}, reason.isEmpty()
                                       ? tr("No recipe file.\n\nThe spec does not expect one here.")
                                       : tr("No recipe file.\n\n%1").arg(reason));
        emit previewUpdated();
        return;
    }
    RepositorySession* session = m_context.session();
    if (!entry->recipe) {
        m_previewPath.clear();
        const QString text =
            entry->status == CellStatus::Gap
                ? tr("No recipe file.\n\nNo spec asks for it; the recipes around it suggest "
                     "%1.nix in %2.")
                : tr("No recipe file.\n\nThe spec expects %1.nix in %2.");
        m_preview->showMessage({}, text.arg(qs(entry->variant.toString()), session->recipeDir()));
        emit previewUpdated();
        return;
    }
    // Read off the GUI thread: a recipe on a slow disk must not freeze the grid.
    m_previewPath = qs(entry->recipe->path);
    const std::shared_ptr<const RepositorySource> source = session->source();
    const std::string path = entry->recipe->path;
    const uint64_t maxBytes = session->maxFileSize();
    m_previewRead->setFuture(QtConcurrent::run(backgroundPool(), [source, path, maxBytes]() {
        return source ? source->read(path, maxBytes) : SourceFile{path, {}, "no repository open"};
    }));
}

void GridController::previewRead()
{
    const SourceFile file = m_previewRead->result();
    const QString path = qs(file.path);
    if (path != m_previewPath)
        return; // the selection moved on while reading
    const Cell* entry = m_details->currentEntry();
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

void GridController::showFinding(const Finding& finding)
{
    if (finding.range.end > finding.range.begin)
        m_preview->highlightRange(finding.range.begin, finding.range.end);
    else if (finding.line > 0)
        m_preview->highlightLine(static_cast<int>(finding.line));
}

void GridController::showCellMenu(const QModelIndex& index, const QPoint& globalPosition)
{
    if (!index.isValid())
        return;
    QMenu menu(m_context.mainWidget());
    const bool hasFile = !index.data(MatrixModel::PathsRole).toStringList().isEmpty();
    m_editAction->setEnabled(hasFile && !m_context.session()->isReadOnly());
    m_copyPathAction->setEnabled(hasFile);
    menu.addAction(m_editAction);
    menu.addAction(m_copyNameAction);
    menu.addAction(m_copyPathAction);
    menu.addSeparator();
    emit cellMenuAboutToShow(&menu, index);
    menu.exec(globalPosition);
    updateActions(); // the menu and the window share the actions
}

// Open in Editor and Copy Path act on the selection's recipe files, Copy Variant Name on its
// cells: off while there are none, as with nothing open, so a click never does nothing.
void GridController::updateActions()
{
    const std::vector<const Cell*> entries = selectedEntries();
    const bool hasFile =
        std::any_of(entries.begin(), entries.end(), [](const Cell* e) { return e->recipe; });
    m_editAction->setEnabled(hasFile && !m_context.session()->isReadOnly());
    m_copyPathAction->setEnabled(hasFile);
    m_copyNameAction->setEnabled(!entries.empty());
    const bool anyBroken = m_model->brokenAfter({}, false).isValid();
    m_nextBrokenAction->setEnabled(anyBroken);
    m_previousBrokenAction->setEnabled(anyBroken);
    emit actionTargetsChanged();
}

void GridController::openInEditor()
{
    for (const Cell* entry : selectedEntries()) {
        if (!entry->recipe)
            continue;
        const QString path = m_context.session()->absolutePath(qs(entry->recipe->path));
        if (path.isEmpty()) {
            m_context.showStatus(tr("A revision opened from git has no files to edit"), 5000);
            return;
        }
        QDesktopServices::openUrl(QUrl::fromLocalFile(path));
    }
}

void GridController::copyVariantNames()
{
    QStringList names;
    for (const Cell* entry : selectedEntries())
        names << qs(entry->variant.toString());
    QGuiApplication::clipboard()->setText(names.join(QLatin1Char('\n')));
    m_context.showStatus(tr("Copied %n variant name(s)", nullptr, static_cast<int>(names.size())),
                         3000);
}

void GridController::copyPaths()
{
    QStringList paths;
    for (const Cell* entry : selectedEntries()) {
        if (!entry->recipe)
            continue;
        const QString absolute = m_context.session()->absolutePath(qs(entry->recipe->path));
        paths << (absolute.isEmpty() ? qs(entry->recipe->path) : absolute);
    }
    QGuiApplication::clipboard()->setText(paths.join(QLatin1Char('\n')));
    m_context.showStatus(tr("Copied %n path(s)", nullptr, static_cast<int>(paths.size())), 3000);
}

} // namespace rg
