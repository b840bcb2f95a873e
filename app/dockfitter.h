#pragma once

// Keeps the docks of a main window readable: a dock brought to the front, or whose list got
// rows, is made tall enough for several of them (all of them when fewer), and one showing a
// build's log for several of its lines. A dock squeezed to one row reads as empty. A dock is
// only ever grown, and only then, so a size the user chose stays; QMainWindow::saveState()
// keeps it per user.

#include <QList>
#include <QObject>

class QAbstractItemView;
class QAbstractScrollArea;
class QDockWidget;
class QMainWindow;

namespace rg {

class DockFitter : public QObject
{
    Q_OBJECT
public:
    static constexpr int severalRows = 5;
    static constexpr int severalLogLines = 12;

    // Watches every dock `window` has now.
    explicit DockFitter(QMainWindow* window);

    // Grows `dock` until its lists show several rows and its log several lines, if it is in
    // sight. A layout settles in steps: after growing it, it looks again `looksLeft` times.
    void fit(QDockWidget* dock, int looksLeft = 2);

    // A first start (no saved geometry): the window fills its screen's free area, up to
    // 1760 × 1080, and the right-hand docks take under a third of its width, up to `rightWidth`.
    // On a 1600 × 1000 screen the grid then shows every ISA column of a CUDA slice.
    static void fitToScreen(QMainWindow* window, const QList<QDockWidget*>& right, int rightWidth);

private:
    static QList<QAbstractItemView*> listsOf(QDockWidget* dock);
    // What the dock is read through and sized for: its lists and the log in front.
    static QList<QAbstractScrollArea*> contentsOf(QDockWidget* dock);
    int tabGroupHeight(QDockWidget* dock) const;
    void fitLater(QDockWidget* dock, int looksLeft = 2);

    QMainWindow* m_window;
};

} // namespace rg
