#include "dockfitter.h"

#include "ansilogview.h"
#include "viewrows.h"

#include <QAbstractItemView>
#include <QDockWidget>
#include <QHeaderView>
#include <QMainWindow>
#include <QPointer>
#include <QScreen>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <algorithm>
#include <limits>
#include <optional>

namespace rg {

namespace {

// The height `content` wants its viewport to have: a list several rows (all of them when
// fewer), a build's log several lines (its text is what its user watches).
int wantedHeight(const QAbstractScrollArea* content)
{
    if (const auto* log = qobject_cast<const AnsiLogView*>(content))
        return DockFitter::severalLogLines * log->lineHeight();
    const auto* list = static_cast<const QAbstractItemView*>(content);
    return std::min(list->model()->rowCount(), DockFitter::severalRows) * ViewRows::rowHeight(list);
}

// What `content` lacks of its wanted height, measured on the viewport (whatever the header,
// frame and scroll bar take now); negative when it has room to spare.
int lackOf(const QAbstractScrollArea* content)
{
    return wantedHeight(content) - content->viewport()->height();
}

// The dock's own vertical splitter (the Builds dock: jobs above their logs); nullptr for none.
// Splitters inside a panel are the panel's to arrange.
QSplitter* splitterOf(const QDockWidget* dock)
{
    auto* split = qobject_cast<QSplitter*>(dock->widget());
    return split && split->orientation() == Qt::Vertical ? split : nullptr;
}

// What the splitter's `child` lacks: the most any of the contents in it lacks. A child
// without contents can spare what it has over its minimum.
int lackIn(const QWidget* child, const QList<QAbstractScrollArea*>& contents)
{
    std::optional<int> lack;
    for (const QAbstractScrollArea* content : contents)
        if (content == child || child->isAncestorOf(content))
            lack = std::max(lack.value_or(std::numeric_limits<int>::min()), lackOf(content));
    return lack.value_or(child->minimumSizeHint().height() - child->height());
}

// Moves height between the children of `split` (the Builds dock: jobs above their logs)
// from those that can spare it to those that lack it, none below its own need; returns what
// the dock still has to grow by.
int balance(QSplitter* split, const QList<QAbstractScrollArea*>& contents)
{
    QList<int> sizes = split->sizes();
    QList<int> lack;
    for (int i = 0; i < split->count(); ++i)
        lack << lackIn(split->widget(i), contents);
    QList<int> wanted = sizes;
    for (qsizetype i = 0; i < lack.size(); ++i) {
        if (lack[i] <= 0)
            continue;
        wanted[i] += lack[i];
        for (qsizetype j = 0; j < lack.size() && lack[i] > 0; ++j) {
            const int moved = std::min(lack[i], -lack[j]);
            if (moved <= 0)
                continue;
            sizes[i] += moved;
            sizes[j] -= moved;
            lack[i] -= moved;
            lack[j] += moved;
        }
    }
    split->setSizes(sizes);
    // Measured after the move: a child does not go below its minimum size.
    const QList<int> given = split->sizes();
    int unmet = 0;
    for (qsizetype i = 0; i < given.size(); ++i)
        unmet += std::max(0, wanted[i] - given[i]);
    return unmet;
}

} // namespace

DockFitter::DockFitter(QMainWindow* window) : QObject(window), m_window(window)
{
    for (QDockWidget* dock : window->findChildren<QDockWidget*>()) {
        // Not isVisible(): a dock behind another tab is "visible", only moved out of sight.
        connect(dock, &QDockWidget::visibilityChanged, this, [this, dock](bool visible) {
            if (visible)
                fitLater(dock);
        });
        for (QAbstractItemView* list : listsOf(dock)) {
            const auto grown = [this, dock] { fitLater(dock); };
            connect(list->model(), &QAbstractItemModel::rowsInserted, this, grown);
            connect(list->model(), &QAbstractItemModel::modelReset, this, grown);
            connect(list->model(), &QAbstractItemModel::layoutChanged, this, grown);
        }
        // A log opens in a tab of its own: the Builds dock is raised before its first log.
        for (QTabWidget* tabs : dock->findChildren<QTabWidget*>())
            connect(tabs, &QTabWidget::currentChanged, this, [this, dock] { fitLater(dock); });
    }
}

void DockFitter::fit(QDockWidget* dock, int looksLeft)
{
    if (dock->isFloating() || dock->visibleRegion().isEmpty())
        return;
    // What shares the dock's splitter is balanced inside it first; the dock grows by what is
    // left.
    const QList<QAbstractScrollArea*> contents = contentsOf(dock);
    QSplitter* split = splitterOf(dock);
    int missing = split ? balance(split, contents) : 0;
    for (const QAbstractScrollArea* content : contents)
        if (!split || !split->isAncestorOf(content))
            missing = std::max(missing, lackOf(content));
    // Half the window at most: the grid is what the window is for.
    const int height = tabGroupHeight(dock);
    const int wanted = std::min(height + missing, m_window->height() / 2);
    if (wanted <= height)
        return;
    m_window->resizeDocks({dock}, {wanted}, Qt::Vertical);
    // A squeezed pane's own bars take their share of the growth first: look again once it is
    // laid out (twice at most, should the layout refuse the height).
    if (looksLeft > 0)
        fitLater(dock, looksLeft - 1);
}

// resizeDocks() sizes a tabbed dock's whole group, its tab bar included.
int DockFitter::tabGroupHeight(QDockWidget* dock) const
{
    if (m_window->tabifiedDockWidgets(dock).isEmpty())
        return dock->height();
    for (const QTabBar* bar : m_window->findChildren<QTabBar*>(Qt::FindDirectChildrenOnly))
        for (int i = 0; bar->isVisible() && i < bar->count(); ++i)
            if (bar->tabText(i) == dock->windowTitle())
                return dock->height() + bar->height();
    return dock->height();
}

QList<QAbstractItemView*> DockFitter::listsOf(QDockWidget* dock)
{
    QList<QAbstractItemView*> lists;
    auto* own = qobject_cast<QAbstractItemView*>(dock->widget());
    const QList<QAbstractItemView*> views = dock->widget()->findChildren<QAbstractItemView*>();
    for (QAbstractItemView* view : own ? views + QList<QAbstractItemView*>{own} : views)
        if (view->model() && view->isVisibleTo(dock) && view->window() == dock->window() &&
            !qobject_cast<QHeaderView*>(view)) // not a popup list, not a table's header
            lists << view;
    return lists;
}

QList<QAbstractScrollArea*> DockFitter::contentsOf(QDockWidget* dock)
{
    QList<QAbstractScrollArea*> contents;
    for (QAbstractItemView* list : listsOf(dock))
        contents << list;
    for (AnsiLogView* log : dock->widget()->findChildren<AnsiLogView*>())
        if (log->isVisibleTo(dock)) // the log of the tab in front
            contents << log;
    return contents;
}

void DockFitter::fitLater(QDockWidget* dock, int looksLeft)
{
    // After the layout: a dock just raised or a list just filled has not its new size yet.
    QTimer::singleShot(0, dock, [this, dock, looksLeft] { fit(dock, looksLeft); });
}

void DockFitter::fitToScreen(QMainWindow* window, const QList<QDockWidget*>& right, int rightWidth)
{
    const QScreen* screen = window->screen();
    if (!screen)
        return;
    // Room for a window manager's frame and title, which resize() does not count.
    const QRect free = screen->availableGeometry().adjusted(0, 0, -16, -48);
    const QSize size = free.size().boundedTo(QSize(1760, 1080));
    window->resize(size);
    window->move(free.center() - QPoint(size.width() / 2, size.height() / 2));
    const QList<int> widths(right.size(), std::min(rightWidth, size.width() * 3 / 10));
    window->resizeDocks(right, widths, Qt::Horizontal);
}

} // namespace rg
