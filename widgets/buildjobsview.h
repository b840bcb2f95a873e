#pragma once

// The jobs list: a table over BuildJobsModel with a progress bar in the Progress column and a
// context menu. It only asks: cancel, show log, rebuild and publish are signals the window
// connects to BuildSession.

#include <QTableView>
#include <memory>

class QMenu;

namespace rg {

class BuildJobsView : public QTableView
{
    Q_OBJECT
public:
    explicit BuildJobsView(QWidget* parent = nullptr);

    quint64 currentJobId() const; // 0 when none
    // The context menu for a row: Show log, Cancel (while queued or running), Build again,
    // Publish… (once succeeded); nullptr for no row.
    std::unique_ptr<QMenu> menuFor(const QModelIndex& index);

signals:
    void logRequested(quint64 jobId); // double click, Enter, "Show log"
    void cancelRequested(quint64 jobId);
    void rebuildRequested(const QString& variant);
    void publishRequested(const QString& variant);

protected:
    void contextMenuEvent(QContextMenuEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void paintEvent(QPaintEvent* event) override; // without jobs: how to start one
    // Both widen the columns to the new jobs' text (the Variant column up to two fifths of the
    // view, the others one fifth): variants differ at their ends (…-sm120-avx2), so a name cut
    // there names no variant.
    void rowsInserted(const QModelIndex& parent, int start, int end) override;
    void reset() override; // the history, loaded

private:
    void fitColumns(int firstRow, int lastRow);
};

} // namespace rg
