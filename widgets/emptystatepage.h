#pragma once

// What the window shows with no grid to show: first run, a folder without a recipe
// directory, or a repository with no recipes yet. Says what RecipeGrid looks for.

#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace rg {

class EmptyStatePage : public QWidget
{
    Q_OBJECT
public:
    explicit EmptyStatePage(QWidget* parent = nullptr);

    void showWelcome(const QStringList& recent);
    // The recent repositories the welcome page offers, also while another page shows.
    void setRecent(const QStringList& recent);
    // `path` was opened but has no `recipeDir` (".flox/pkgs") with recipes.
    void showNoRecipes(const QString& path, const QString& recipeDir);
    QString title() const;
    QString message() const;

signals:
    void openRequested();
    void demoRequested();
    void recentRequested(const QString& path);

private:
    QLabel* m_title;
    QLabel* m_message;
    QPushButton* m_open;
    QPushButton* m_demo;
    QListWidget* m_recent;
    QLabel* m_recentTitle;
    bool m_welcome = false;
};

} // namespace rg
