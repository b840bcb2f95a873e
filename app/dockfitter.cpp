#include "dockfitter.h"

#include "viewrows.h"

#include <QAbstractItemView>
#include <QDockWidget>
#include <QHeaderView>
#include <QMainWindow>
#include <QPointer>
#include <QScreen>
#include <QSplitter>
#include <QTabBar>
#include <QTimer>
#include <algorithm>

namespace rg {

namespace {

// A list sharing a splitter (the Builds dock: jobs above their logs) takes its rows from its
// neighbours first; returns what the dock itself still has to grow by.
int heightTakenFromNeighbours(QSplitter* split, QWidget* list, int wanted)
{
    QList<int> sizes = split->sizes();
    const auto at = split->indexOf(list);
    int missing = wanted - sizes[at];
    for (qsizetype i = 0; i < sizes.size() && missing > 0; ++i) {
        if (i == at)
            continue;
        const int taken = std::min(missing, sizes[i]);
        sizes[i] -= taken;
        sizes[at] += taken;
        missing -= taken;
    }
    split->setSizes(sizes);
    return wanted - split->sizes()[at]; // neighbours keep their minimum sizes
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
    }
}

void DockFitter::fit(QDockWidget* dock)
{
    if (dock->isFloating() || dock->visibleRegion().isEmpty())
        return;
    int missing = 0;
    for (QAbstractItemView* list : listsOf(dock)) {
        // Measured on the viewport: whatever the header, frame and scroll bar take now.
        const int rows = std::min(list->model()->rowCount(), severalRows);
        int lacking = rows * ViewRows::rowHeight(list) - list->viewport()->height();
        if (lacking <= 0)
            continue;
        if (auto* split = qobject_cast<QSplitter*>(list->parentWidget()))
            lacking = heightTakenFromNeighbours(split, list, list->height() + lacking);
        missing = std::max(missing, lacking);
    }
    // Half the window at most: the grid is what the window is for.
    if (missing > 0)
        m_window->resizeDocks({dock},
                              {std::min(tabGroupHeight(dock) + missing, m_window->height() / 2)},
                              Qt::Vertical);
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

void DockFitter::fitLater(QDockWidget* dock)
{
    // After the layout: a dock just raised or a list just filled has not its new size yet.
    QTimer::singleShot(0, dock, [this, dock] { fit(dock); });
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
