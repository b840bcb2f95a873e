#pragma once

// Keeps the docks of a main window readable: a dock brought to the front, or whose list got
// rows, is made tall enough for several of them (all of them when fewer). A dock squeezed to
// one row reads as empty. A dock is only ever grown, and only then, so a size the user chose
// stays; QMainWindow::saveState() keeps it per user.

#include <QList>
#include <QObject>

class QAbstractItemView;
class QDockWidget;
class QMainWindow;

namespace rg {

class DockFitter : public QObject
{
    Q_OBJECT
public:
    static constexpr int severalRows = 5;

    // Watches every dock `window` has now.
    explicit DockFitter(QMainWindow* window);

    // Grows `dock` until its lists show several rows, if it is in sight.
    void fit(QDockWidget* dock);

    // A first start (no saved geometry): the window fills its screen's free area, up to
    // 1760 × 1080, and the right-hand docks take under a third of its width, up to `rightWidth`.
    // On a 1600 × 1000 screen the grid then shows every ISA column of a CUDA slice.
    static void fitToScreen(QMainWindow* window, const QList<QDockWidget*>& right, int rightWidth);

private:
    static QList<QAbstractItemView*> listsOf(QDockWidget* dock);
    int tabGroupHeight(QDockWidget* dock) const;
    void fitLater(QDockWidget* dock);

    QMainWindow* m_window;
};

} // namespace rg
