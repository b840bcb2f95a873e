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

private:
    static QList<QAbstractItemView*> listsOf(QDockWidget* dock);
    int tabGroupHeight(QDockWidget* dock) const;
    void fitLater(QDockWidget* dock);

    QMainWindow* m_window;
};

} // namespace rg
