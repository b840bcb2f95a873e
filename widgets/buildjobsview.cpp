#include "buildjobsview.h"

#include "itemmodels/buildjobsmodel.h"
#include "viewplaceholder.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QHeaderView>
#include <QMenu>
#include <QPainter>
#include <QStyledItemDelegate>
#include <algorithm>

namespace rg {

namespace {

// A progress bar where the log showed `[n/m]`; the text elsewhere.
class ProgressDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override
    {
        const double progress = index.data(BuildJobsModel::ProgressRole).toDouble();
        if (progress < 0) {
            QStyledItemDelegate::paint(painter, option, index);
            return;
        }
        QStyleOptionProgressBar bar;
        bar.rect = option.rect.adjusted(2, 2, -2, -2);
        bar.minimum = 0;
        bar.maximum = 1000;
        bar.progress = int(progress * 1000);
        bar.text = index.data().toString();
        bar.textVisible = true;
        bar.state = option.state | QStyle::State_Horizontal;
        const QWidget* widget = option.widget;
        QStyle* style = widget ? widget->style() : QApplication::style();
        style->drawControl(QStyle::CE_ProgressBar, &bar, painter, widget);
    }
};

} // namespace

BuildJobsView::BuildJobsView(QWidget* parent) : QTableView(parent)
{
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setAlternatingRowColors(true);
    setWordWrap(false);
    setTextElideMode(Qt::ElideMiddle); // what tells variants (and paths) apart is at their ends
    verticalHeader()->hide();
    horizontalHeader()->setStretchLastSection(true);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    setItemDelegateForColumn(BuildJobsModel::ProgressColumn, new ProgressDelegate(this));
    setAccessibleName(tr("Build jobs"));
    connect(this, &QAbstractItemView::activated, this, [this](const QModelIndex& index) {
        if (const quint64 id = index.data(BuildJobsModel::JobIdRole).toULongLong())
            emit logRequested(id);
    });
}

void BuildJobsView::rowsInserted(const QModelIndex& parent, int start, int end)
{
    QTableView::rowsInserted(parent, start, end);
    fitColumns(start, end);
}

void BuildJobsView::reset()
{
    QTableView::reset();
    if (model())
        fitColumns(0, model()->rowCount() - 1);
}

void BuildJobsView::fitColumns(int firstRow, int lastRow)
{
    const int padding = 2 * style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, this) + 8;
    // The command, last, stretches to the view's edge; the progress bar has no text to fit.
    for (int column = 0; column < BuildJobsModel::CommandColumn; ++column) {
        if (column == BuildJobsModel::ProgressColumn)
            continue;
        int widest = 0;
        for (int row = firstRow; row <= lastRow; ++row) {
            const QModelIndex cell = model()->index(row, column);
            widest = std::max(widest, fontMetrics().horizontalAdvance(cell.data().toString()));
        }
        const int share = column == BuildJobsModel::VariantColumn ? 2 : 1;
        const int wanted =
            std::min(widest + padding, std::max(150 * share, viewport()->width() * share / 5));
        if (wanted > columnWidth(column)) // never narrower than the user made it
            setColumnWidth(column, wanted);
    }
}

quint64 BuildJobsView::currentJobId() const
{
    return currentIndex().data(BuildJobsModel::JobIdRole).toULongLong();
}

void BuildJobsView::contextMenuEvent(QContextMenuEvent* event)
{
    if (const std::unique_ptr<QMenu> menu = menuFor(indexAt(event->pos())))
        menu->exec(event->globalPos());
}

std::unique_ptr<QMenu> BuildJobsView::menuFor(const QModelIndex& index)
{
    if (!index.isValid())
        return nullptr;
    const quint64 id = index.data(BuildJobsModel::JobIdRole).toULongLong();
    const QString variant = index.data(BuildJobsModel::VariantRole).toString();
    const auto state = JobState(index.data(BuildJobsModel::StateRole).toInt());
    const bool live = index.data(BuildJobsModel::IsLiveRole).toBool();
    const bool active = live && (state == JobState::Queued || state == JobState::Running);

    auto menu = std::make_unique<QMenu>(this);
    menu->addAction(tr("Show log"), this, [this, id] { emit logRequested(id); });
    QAction* cancel = menu->addAction(tr("Cancel"), this, [this, id] { emit cancelRequested(id); });
    cancel->setEnabled(active);
    menu->addSeparator();
    menu->addAction(tr("Build again"), this, [this, variant] { emit rebuildRequested(variant); });
    QAction* publish =
        menu->addAction(tr("Publish…"), this, [this, variant] { emit publishRequested(variant); });
    publish->setEnabled(state == JobState::Succeeded);
    return menu;
}

void BuildJobsView::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Delete) {
        if (const quint64 id = currentJobId()) {
            emit cancelRequested(id);
            return;
        }
    }
    QTableView::keyPressEvent(event);
}

void BuildJobsView::paintEvent(QPaintEvent* event)
{
    QTableView::paintEvent(event);
    ViewPlaceholder::paint(this, tr("No builds yet: select cells with recipes and press Build "
                                    "(Ctrl+B), or use Recipe \u25b8 Build What Needs It. Jobs "
                                    "of earlier sessions show here too."));
}

} // namespace rg
