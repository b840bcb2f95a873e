#pragma once

// Pins side by side (an AlignmentModel): one row per package × Python × accelerator, one
// column per local branch and per compared repository. Rows whose columns disagree are
// highlighted, each pin in its colour; a column that could not be read says why above the
// table while the rest stays usable. "Align to…" on a mismatching cell asks for the bump
// that makes the open work tree use that cell's pin. Adding a repository to compare (a path
// to a clone, bare or not, and a branch or tag) and reloading are requests too: the view
// reads no repository itself.

#include <QWidget>

class QAction;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class QToolButton;

namespace rg {

class AlignmentModel;

class AlignmentView : public QWidget
{
    Q_OBJECT
public:
    explicit AlignmentView(QWidget* parent = nullptr);

    void setModel(AlignmentModel* model);
    AlignmentModel* model() const { return m_model; }
    // While the columns are read: a busy bar, the table keeps what it had.
    void setLoading(bool loading);
    bool isLoading() const;
    // Columns (alignment indexes) the user added and may remove again.
    void setRemovableColumns(const QList<int>& columns);

    QTableView* tableView() const { return m_table; }
    QLabel* summaryLabel() const { return m_summary; }
    QLabel* messageLabel() const { return m_messages; }
    QLineEdit* pathEdit() const { return m_path; }
    QLineEdit* revisionEdit() const { return m_revision; }
    QPushButton* addButton() const { return m_add; }
    QAction* alignAction() const { return m_align; }
    QAction* reloadAction() const { return m_reload; }

signals:
    void addRequested(const QString& path, const QString& revision);
    void removeRequested(int column);
    void reloadRequested();
    // Make the open work tree's recipes of `row` (all on that pin with `wholeBranch`) use the
    // pin of alignment column `column`.
    void alignRequested(int row, int column, bool wholeBranch);

private:
    QWidget* createToolbar();
    QWidget* createCompareRow();
    void updateState();
    void showCellMenu(const QPoint& position);
    void showHeaderMenu(const QPoint& position);
    void requestAdd();
    void browse();

    AlignmentModel* m_model = nullptr;
    QList<int> m_removable;
    QLabel* m_summary = nullptr;
    QProgressBar* m_busy = nullptr;
    QLabel* m_messages = nullptr;
    QTableView* m_table = nullptr;
    QLineEdit* m_path = nullptr;
    QLineEdit* m_revision = nullptr;
    QToolButton* m_browse = nullptr;
    QPushButton* m_add = nullptr;
    QAction* m_align = nullptr;
    QAction* m_reload = nullptr;
};

} // namespace rg
