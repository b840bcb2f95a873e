#pragma once

// Every local branch × its status counts (a BranchOverviewModel); activating a row opens
// that branch read-only. Without rows it says why there are none.

#include <QTableView>

namespace rg {

class BranchOverviewView : public QTableView
{
    Q_OBJECT
public:
    explicit BranchOverviewView(QWidget* parent = nullptr);

signals:
    void branchActivated(const QString& branch);

protected:
    void paintEvent(QPaintEvent* event) override;
};

} // namespace rg
