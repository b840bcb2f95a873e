#include "mainwindow.h"

#include <QLabel>

namespace rg {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("RecipeGrid"));
    setCentralWidget(new QLabel(tr("Open a recipe repository"), this));
}

void MainWindow::openRepository(const QString& path)
{
    setWindowTitle(QStringLiteral("RecipeGrid — %1").arg(path));
}

} // namespace rg
