#include "alignmentview.h"

#include "itemmodels/alignmentmodel.h"
#include "matrix/versionspelling.h"
#include "pinlegend.h"
#include "sessions/qtext.h"
#include "statusstyle.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace rg {

namespace {

// A mismatching row shows each pin as a chip in its colour, so equal pins read as equal at a
// glance; an aligned row stays plain text.
class AlignmentDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override
    {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        adjust(&opt, index);
        const int pin = index.data(AlignmentModel::PinIndexRole).toInt();
        if (!index.data(AlignmentModel::MismatchRole).toBool() || index.column() == 0 || pin < 0) {
            style(opt)->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);
            return;
        }
        const QString text = opt.text;
        opt.text.clear();
        style(opt)->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);
        const QColor color = PinLegend::color(pin, opt.palette);
        const QRectF chip = QRectF(opt.rect).adjusted(3, 3, -3, -3);
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        // Opaque under the tint: the chip stays readable on a selected cell's highlight.
        painter->setPen(Qt::NoPen);
        painter->setBrush(opt.palette.color(QPalette::Base));
        painter->drawRoundedRect(chip, 4, 4);
        painter->setPen(QPen(color, 1.2));
        painter->setBrush(PinLegend::fill(color, opt.palette));
        painter->drawRoundedRect(chip, 4, 4);
        painter->setPen(color);
        painter->setFont(opt.font);
        painter->drawText(
            chip.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
            opt.fontMetrics.elidedText(text, Qt::ElideRight, static_cast<int>(chip.width()) - 12));
        painter->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        adjust(&opt, index);
        const QSize size =
            style(opt)->sizeFromContents(QStyle::CT_ItemViewItem, &opt, QSize(), opt.widget);
        return size + QSize(16, 6); // room for the chip's border and padding
    }

private:
    // A mismatching row's name in bold; an unreadable column's cells greyed.
    static void adjust(QStyleOptionViewItem* opt, const QModelIndex& index)
    {
        if (index.column() == 0 && index.data(AlignmentModel::MismatchRole).toBool()) {
            opt->font.setBold(true);
            opt->fontMetrics = QFontMetrics(opt->font);
        }
        if (!index.data(AlignmentModel::ColumnErrorRole).toString().isEmpty())
            opt->palette.setColor(QPalette::Text, opt->palette.color(QPalette::PlaceholderText));
    }

    static QStyle* style(const QStyleOptionViewItem& opt)
    {
        return opt.widget ? opt.widget->style() : QApplication::style();
    }
};

} // namespace

AlignmentView::AlignmentView(QWidget* parent) : QWidget(parent)
{
    setAccessibleName(tr("Pin alignment"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(createToolbar());
    m_messages = new QLabel(this);
    m_messages->setObjectName(QStringLiteral("alignmentMessages"));
    m_messages->setWordWrap(true);
    m_messages->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPalette warn = m_messages->palette();
    warn.setColor(QPalette::WindowText, StatusStyle::warningColor(palette()));
    m_messages->setPalette(warn);
    m_messages->hide();
    layout->addWidget(m_messages);
    m_table = new QTableView(this);
    m_table->setAccessibleName(tr("Pins by package, Python and accelerator"));
    m_table->setItemDelegate(new AlignmentDelegate(m_table));
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->setShowGrid(false);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_table->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    m_table->setFont(QFontDatabase::systemFont(QFontDatabase::GeneralFont));
    connect(m_table, &QWidget::customContextMenuRequested, this, &AlignmentView::showCellMenu);
    connect(m_table->horizontalHeader(), &QWidget::customContextMenuRequested, this,
            &AlignmentView::showHeaderMenu);
    layout->addWidget(m_table, 1);
    layout->addWidget(createCompareRow());
}

QWidget* AlignmentView::createToolbar()
{
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    m_summary = new QLabel(bar);
    m_summary->setObjectName(QStringLiteral("alignmentSummary"));
    row->addWidget(m_summary, 1);
    m_busy = new QProgressBar(bar);
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(120);
    m_busy->setTextVisible(false);
    m_busy->setAccessibleName(tr("Reading the branches"));
    m_busy->hide();
    row->addWidget(m_busy);
    m_align = new QAction(tr("&Align to\u2026"), this);
    m_align->setObjectName(QStringLiteral("alignToAction"));
    m_align->setToolTip(tr("Make the open work tree use the selected cell's pin: plans the "
                           "bump of every recipe on the current pin, for review"));
    connect(m_align, &QAction::triggered, this, [this] {
        const QModelIndex cell = m_table->currentIndex();
        if (cell.data(AlignmentModel::CanAlignRole).toBool())
            emit alignRequested(cell.row(), AlignmentModel::alignmentColumn(cell.column()), true);
    });
    m_reload = new QAction(tr("&Reload"), this);
    m_reload->setToolTip(tr("Read every branch and compared repository again"));
    connect(m_reload, &QAction::triggered, this, &AlignmentView::reloadRequested);
    for (QAction* action : {m_align, m_reload}) {
        auto* button = new QToolButton(bar);
        button->setDefaultAction(action);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        row->addWidget(button);
    }
    return bar;
}

QWidget* AlignmentView::createCompareRow()
{
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(new QLabel(tr("Compare with:"), bar));
    m_path = new QLineEdit(bar);
    m_path->setAccessibleName(tr("Repository to compare"));
    m_path->setPlaceholderText(tr("path to a clone (bare or not)"));
    row->addWidget(m_path, 3);
    m_browse = new QToolButton(bar);
    m_browse->setText(tr("Browse\u2026"));
    connect(m_browse, &QToolButton::clicked, this, &AlignmentView::browse);
    row->addWidget(m_browse);
    m_revision = new QLineEdit(bar);
    m_revision->setAccessibleName(tr("Branch or tag"));
    m_revision->setPlaceholderText(tr("branch or tag (empty: as checked out)"));
    row->addWidget(m_revision, 2);
    m_add = new QPushButton(tr("A&dd"), bar);
    m_add->setToolTip(tr("Add the repository as a column"));
    connect(m_add, &QPushButton::clicked, this, &AlignmentView::requestAdd);
    connect(m_path, &QLineEdit::returnPressed, this, &AlignmentView::requestAdd);
    connect(m_revision, &QLineEdit::returnPressed, this, &AlignmentView::requestAdd);
    connect(m_path, &QLineEdit::textChanged, this, &AlignmentView::updateState);
    row->addWidget(m_add);
    return bar;
}

void AlignmentView::setModel(AlignmentModel* model)
{
    m_model = model;
    m_table->setModel(model);
    connect(model, &QAbstractItemModel::modelReset, this, [this] {
        m_table->resizeColumnsToContents();
        for (int c = 1; c < m_model->columnCount(); ++c)
            m_table->setColumnWidth(c, std::max(m_table->columnWidth(c), 110));
        updateState();
    });
    connect(model, &QAbstractItemModel::dataChanged, this, &AlignmentView::updateState);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &AlignmentView::updateState);
    updateState();
}

void AlignmentView::setLoading(bool loading)
{
    m_busy->setVisible(loading);
    m_reload->setEnabled(!loading);
    updateState();
}

bool AlignmentView::isLoading() const
{
    return m_busy->isVisibleTo(this);
}

void AlignmentView::setRemovableColumns(const QList<int>& columns)
{
    m_removable = columns;
}

void AlignmentView::updateState()
{
    m_add->setEnabled(!m_path->text().trimmed().isEmpty());
    if (!m_model)
        return;
    const QModelIndex current = m_table->currentIndex();
    m_align->setEnabled(current.data(AlignmentModel::CanAlignRole).toBool());
    const QStringList errors = m_model->columnErrors();
    m_messages->setText(errors.join(QLatin1Char('\n')));
    m_messages->setVisible(!errors.isEmpty());
    const int rows = m_model->rowCount();
    const int mismatches = m_model->mismatchCount();
    if (isLoading() && m_model->columnCount() == 0)
        m_summary->setText(tr("Reading the branches\u2026"));
    else if (m_model->columnCount() == 0)
        m_summary->setText(tr("No branch read yet"));
    else
        m_summary->setText(
            counted(rows, tr("1 row"), tr("%1 rows")) + QStringLiteral(" \u00b7 ") +
            (mismatches == 0
                 ? tr("every column agrees")
                 : counted(mismatches, tr("1 mismatch: select a cell, then Align to\u2026"),
                           tr("%1 mismatches: select a cell, then Align to\u2026"))));
}

void AlignmentView::showCellMenu(const QPoint& position)
{
    const QModelIndex cell = m_table->indexAt(position);
    if (!cell.data(AlignmentModel::CanAlignRole).toBool())
        return;
    m_table->setCurrentIndex(cell);
    const int column = AlignmentModel::alignmentColumn(cell.column());
    const QString label = m_model->headerData(cell.column(), Qt::Horizontal)
                              .toString()
                              .section(QLatin1Char('\n'), 0, 0);
    const QString pin = shortRevision(cell.data(AlignmentModel::PinRole).toString());
    const QString row = cell.siblingAtColumn(0).data().toString();
    QMenu menu(this);
    QAction* whole =
        menu.addAction(tr("Align to %1 (%2)\u2026").arg(label, pin), this,
                       [this, cell, column] { emit alignRequested(cell.row(), column, true); });
    whole->setObjectName(QStringLiteral("alignBranchAction"));
    QAction* one =
        menu.addAction(tr("Align Only %1 to %2\u2026").arg(row, pin), this,
                       [this, cell, column] { emit alignRequested(cell.row(), column, false); });
    one->setObjectName(QStringLiteral("alignRowAction"));
    menu.exec(m_table->viewport()->mapToGlobal(position));
}

void AlignmentView::showHeaderMenu(const QPoint& position)
{
    const int section = m_table->horizontalHeader()->logicalIndexAt(position);
    const int column = AlignmentModel::alignmentColumn(section);
    if (!m_removable.contains(column))
        return;
    QMenu menu(this);
    const QString label =
        m_model->headerData(section, Qt::Horizontal).toString().section(QLatin1Char('\n'), 0, 0);
    menu.addAction(tr("Remove %1 from the Comparison").arg(label), this,
                   [this, column] { emit removeRequested(column); });
    menu.exec(m_table->horizontalHeader()->viewport()->mapToGlobal(position));
}

void AlignmentView::requestAdd()
{
    const QString path = m_path->text().trimmed();
    if (path.isEmpty())
        return;
    emit addRequested(path, m_revision->text().trimmed());
    m_path->clear();
    m_revision->clear();
}

void AlignmentView::browse()
{
    const QString path =
        QFileDialog::getExistingDirectory(this, tr("Repository to Compare"), m_path->text());
    if (!path.isEmpty())
        m_path->setText(path);
}

} // namespace rg
