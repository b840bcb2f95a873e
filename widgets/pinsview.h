#pragma once

// Every nixpkgs pin of the branch (a PinsModel): package × accelerator groups, their pins
// with a swatch in the pin's colour and the marks that need attention (differs from the
// spec or the group, short revision, fetchers without a hash), and the recipes on each pin.
// Activating a recipe asks to show it in the grid; a pin's context menu offers to select its
// recipes in the grid, to bump it, or to ask Nix what it contains (shown under the pins, in a
// PinContentsPane for the current pin). The view decides nothing else.

#include <QWidget>

class QLabel;
class QMenu;
class QTreeView;

namespace rg {

class PinContentsPane;
class PinsModel;

class PinsView : public QWidget
{
    Q_OBJECT
public:
    explicit PinsView(QWidget* parent = nullptr);

    void setModel(PinsModel* model);
    QTreeView* treeView() const { return m_tree; }
    QLabel* summaryLabel() const { return m_summary; }
    PinContentsPane* contentsPane() const { return m_contents; }

signals:
    void recipeActivated(const QString& variant, const QString& path);
    void selectRecipesRequested(const QString& revision);
    void bumpRequested(const QString& revision);

private:
    void showMenu(const QPoint& position);
    void modelReset();

    PinsModel* m_model = nullptr;
    QLabel* m_summary;
    QTreeView* m_tree;
    PinContentsPane* m_contents;
};

} // namespace rg
