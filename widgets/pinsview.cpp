#include "pinsview.h"

#include "itemmodels/pinsmodel.h"
#include "matrix/versionspelling.h"
#include "pincontentspane.h"
#include "pinlegend.h"
#include "statusstyle.h"

#include <QHeaderView>
#include <QIdentityProxyModel>
#include <QLabel>
#include <QMenu>
#include <QTreeView>
#include <QVBoxLayout>

namespace rg {

namespace {

// Colours for what PinsModel only names: a swatch per pin, marked notes in the warning
// colour. The model stays Qt Core; the palette is the widget's.
class PinsStyleProxy : public QIdentityProxyModel
{
public:
    PinsStyleProxy(QWidget* owner) : QIdentityProxyModel(owner), m_owner(owner) {}

    QVariant data(const QModelIndex& index, int role) const override
    {
        // The source's own roles, not index.data(): that would come back here.
        const auto own = [&](int sourceRole) {
            return QIdentityProxyModel::data(index, sourceRole);
        };
        const auto kind = static_cast<PinsModel::Kind>(own(PinsModel::KindRole).toInt());
        if (role == Qt::DecorationRole && index.column() == PinsModel::NameColumn &&
            kind == PinsModel::Kind::Pin)
            return PinLegend::color(own(PinsModel::LegendIndexRole).toInt(), m_owner->palette());
        if (role == Qt::ForegroundRole && index.column() == PinsModel::NotesColumn &&
            own(PinsModel::MarksRole).toInt() != 0 && kind != PinsModel::Kind::Group)
            return StatusStyle::warningColor(m_owner->palette());
        if (role == Qt::TextAlignmentRole && index.column() == PinsModel::RecipesColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        if (role == Qt::FontRole && kind == PinsModel::Kind::Group) {
            QFont bold = m_owner->font();
            bold.setBold(true);
            return bold;
        }
        return QIdentityProxyModel::data(index, role);
    }

private:
    QWidget* m_owner;
};

} // namespace

PinsView::PinsView(QWidget* parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_tree(new QTreeView(this)),
      m_contents(new PinContentsPane(this, PinContentsPane::Mode::OnePin))
{
    setAccessibleName(tr("Pins"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_summary->setObjectName(QStringLiteral("pinsSummary"));
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_tree->setAccessibleName(tr("Pins by package and accelerator"));
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    m_tree->setToolTip(tr("Every nixpkgs pin with the recipes that write it; Enter or a "
                          "double-click on a recipe shows it in the grid"));
    layout->addWidget(m_tree, 1);
    layout->addWidget(m_contents);
    connect(m_tree, &QWidget::customContextMenuRequested, this, &PinsView::showMenu);
    connect(m_tree, &QTreeView::activated, this, [this](const QModelIndex& index) {
        const QString path = index.data(PinsModel::PathRole).toString();
        if (!path.isEmpty())
            emit recipeActivated(index.data(PinsModel::VariantRole).toString(), path);
    });
}

void PinsView::setModel(PinsModel* model)
{
    m_model = model;
    auto* proxy = new PinsStyleProxy(this);
    proxy->setSourceModel(model);
    m_tree->setModel(proxy);
    m_tree->header()->setStretchLastSection(true);
    m_tree->header()->setSectionResizeMode(PinsModel::NameColumn, QHeaderView::Interactive);
    m_tree->header()->setSectionResizeMode(PinsModel::RecipesColumn, QHeaderView::ResizeToContents);
    connect(model, &QAbstractItemModel::modelReset, this, &PinsView::modelReset);
    // The pane reads the pin of the current row: a pin's or one of its recipes'.
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& current) {
                m_contents->setPin(current.data(PinsModel::RevisionRole).toString().toStdString());
            });
    modelReset();
}

void PinsView::modelReset()
{
    m_summary->setText(m_model ? m_model->summaryText() : QString());
    // Groups and their pins open, recipes folded: a branch has dozens on one pin.
    m_tree->expandToDepth(0);
    m_tree->resizeColumnToContents(PinsModel::NameColumn);
    m_tree->setColumnWidth(PinsModel::NameColumn,
                           std::max(m_tree->columnWidth(PinsModel::NameColumn), 220));
}

void PinsView::showMenu(const QPoint& position)
{
    const QModelIndex index = m_tree->indexAt(position);
    const QString revision = index.data(PinsModel::RevisionRole).toString();
    if (revision.isEmpty())
        return;
    QMenu menu(this);
    const QString shortForm = shortRevision(revision);
    menu.addAction(tr("Select Its Recipes in the Grid"), this,
                   [this, revision] { emit selectRecipesRequested(revision); });
    menu.addAction(tr("Bump %1\u2026").arg(shortForm), this,
                   [this, revision] { emit bumpRequested(revision); });
    menu.addAction(tr("What %1 Contains (Ask Nix)").arg(shortForm), this, [this, index] {
        m_tree->setCurrentIndex(index);
        m_contents->ask();
    });
    const QString path = index.data(PinsModel::PathRole).toString();
    if (!path.isEmpty()) {
        menu.addSeparator();
        menu.addAction(tr("Show in the Grid"), this, [this, index, path] {
            emit recipeActivated(index.data(PinsModel::VariantRole).toString(), path);
        });
    }
    menu.exec(m_tree->viewport()->mapToGlobal(position));
}

} // namespace rg
