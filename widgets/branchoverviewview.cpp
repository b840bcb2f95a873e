#include "branchoverviewview.h"

#include "itemmodels/branchoverviewmodel.h"
#include "viewplaceholder.h"

#include <QHeaderView>

namespace rg {

BranchOverviewView::BranchOverviewView(QWidget* parent) : QTableView(parent)
{
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setAlternatingRowColors(true);
    setShowGrid(false);
    setWordWrap(false);
    verticalHeader()->hide();
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(false);
    setAccessibleName(tr("Branches"));
    setToolTip(tr("Every local branch analysed from git without checkout; press Enter or "
                  "double-click to open a branch read-only"));
    connect(this, &QTableView::activated, this, [this](const QModelIndex& index) {
        const QString branch =
            index.siblingAtColumn(0).data(BranchOverviewModel::BranchRole).toString();
        if (!branch.isEmpty())
            emit branchActivated(branch);
    });
}

void BranchOverviewView::paintEvent(QPaintEvent* event)
{
    QTableView::paintEvent(event);
    const auto* overview = qobject_cast<const BranchOverviewModel*>(model());
    ViewPlaceholder::paint(this, overview ? overview->emptyText() : QString());
}

} // namespace rg
