#pragma once

#include <QMainWindow>

namespace rg {

// The window release engineers live in (placeholder until the grid issue lands).
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    void openRepository(const QString& path);
};

} // namespace rg
