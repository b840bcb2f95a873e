#include "changesetreviewdialog.h"

#include "changes/removalreport.h"
#include "diffview.h"
#include "sessions/qtext.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace rg {

namespace {

constexpr int indexRole = Qt::UserRole + 1;

QString fileName(const std::string& path)
{
    const QString text = qs(path);
    return text.mid(text.lastIndexOf(QLatin1Char('/')) + 1);
}

QString kindLabel(FileOperationKind kind)
{
    const std::string_view id = fileOperationKindId(kind);
    return QString::fromLatin1(id.data(), static_cast<qsizetype>(id.size()));
}

QColor kindColor(FileOperationKind kind, const QPalette& palette)
{
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    switch (kind) {
    case FileOperationKind::Create:
        return dark ? QColor(0x66, 0xbb, 0x6a) : QColor(0x2e, 0x7d, 0x32);
    case FileOperationKind::Modify:
        return dark ? QColor(0x64, 0xb5, 0xf6) : QColor(0x15, 0x65, 0xc0);
    case FileOperationKind::Delete:
        return dark ? QColor(0xef, 0x53, 0x50) : QColor(0xc6, 0x28, 0x28);
    }
    return palette.color(QPalette::Text);
}

// A plus, a dot or a minus on the kind's colour: the kind reads without its colour too.
QIcon kindIcon(FileOperationKind kind, const QPalette& palette)
{
    const int size = 16;
    QPixmap pixmap(size * 2, size * 2);
    pixmap.setDevicePixelRatio(2);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(kindColor(kind, palette));
    painter.drawRoundedRect(QRectF(1.5, 1.5, size - 3, size - 3), 3, 3);
    painter.setPen(QPen(Qt::white, 2, Qt::SolidLine, Qt::RoundCap));
    const qreal mid = size / 2.0;
    if (kind != FileOperationKind::Modify)
        painter.drawLine(QPointF(4.5, mid), QPointF(size - 4.5, mid));
    if (kind == FileOperationKind::Create)
        painter.drawLine(QPointF(mid, 4.5), QPointF(mid, size - 4.5));
    if (kind == FileOperationKind::Modify) {
        painter.setPen(Qt::NoPen);
        painter.setBrush(Qt::white);
        painter.drawEllipse(QPointF(mid, mid), 2.6, 2.6);
    }
    return QIcon(pixmap);
}

void setTextColour(QLabel* label, const QColor& colour)
{
    QPalette colours = label->palette();
    colours.setColor(QPalette::WindowText, colour);
    label->setPalette(colours);
}

// Nix's words, and where in the repository it points ("file.nix:12").
QString nixError(const NixErrorReport& error)
{
    QString text = qs(error.message);
    if (!error.file.empty())
        text += QStringLiteral(" (%1:%2)").arg(qs(error.file)).arg(error.line);
    return text;
}

struct VerdictText
{
    QString cell;   // the Nix column
    QString detail; // the current file's line, and the column's tool tip
    bool bad = false;
};

VerdictText verdictText(const RecipeImpact& impact)
{
    using Verdict = RecipeImpact::Verdict;
    const QString derivation = impact.derivationChanges()
                                   ? ChangeSetReviewDialog::tr("new derivation")
                                   : ChangeSetReviewDialog::tr("same derivation");
    const QString versions = qs(impact.versionChanges());
    const QString changes =
        versions.isEmpty() ? derivation : derivation + QStringLiteral(" \u00b7 ") + versions;
    switch (impact.verdict()) {
    case Verdict::Evaluates:
        return {ChangeSetReviewDialog::tr("\u2713 evaluates"),
                ChangeSetReviewDialog::tr("Nix: evaluates before and after the change \u00b7 %1")
                    .arg(changes)};
    case Verdict::Breaks:
        return {ChangeSetReviewDialog::tr("\u2717 breaks"),
                ChangeSetReviewDialog::tr("Nix: stops evaluating with the change: %1")
                    .arg(nixError(impact.after.error)),
                true};
    case Verdict::Mends:
        return {ChangeSetReviewDialog::tr("\u2713 evaluates again"),
                ChangeSetReviewDialog::tr("Nix: evaluates with the change, not before it "
                                          "(%1) \u00b7 %2")
                    .arg(nixError(impact.before.error), changes)};
    case Verdict::FailsOnBoth:
        return {ChangeSetReviewDialog::tr("\u2717 fails on both"),
                ChangeSetReviewDialog::tr("Nix: does not evaluate before or after the change: %1")
                    .arg(nixError(impact.after.error))};
    case Verdict::Unanswered:
        break;
    }
    const NixErrorReport& error = !impact.after.evaluated && impact.after.transient
                                      ? impact.after.error
                                      : impact.before.error;
    return {ChangeSetReviewDialog::tr("? not answered"),
            ChangeSetReviewDialog::tr("Nix did not answer: %1").arg(nixError(error))};
}

} // namespace

ChangeSetReviewDialog::ChangeSetReviewDialog(ChangeSet changes, std::vector<std::string> diffs,
                                             std::vector<DiffStat> stats, QWidget* parent)
    : QDialog(parent), m_changes(std::make_shared<ChangeSet>(std::move(changes))),
      m_diffs(std::move(diffs)), m_stats(std::move(stats))
{
    setWindowTitle(tr("Review Changes"));
    auto* title = new QLabel(qs(m_changes->title), this);
    QFont titleFont = title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    title->setFont(titleFont);
    title->setAccessibleName(tr("Change set"));
    auto* hint = new QLabel(tr("Nothing is written until you apply. Uncheck a file to leave it "
                               "out; Up/Down, or n/p in the diff, go from file to file."),
                            this);
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(createOperationsPane());
    split->addWidget(createDiffPane());
    split->setChildrenCollapsible(false);
    split->setSizes({560, 680});

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_apply = buttons->button(QDialogButtonBox::Ok);
    m_apply->setText(tr("&Apply"));
    m_apply->setDefault(true);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title);
    layout->addWidget(hint);
    layout->addWidget(split, 1);
    layout->addWidget(createCommitPane());
    layout->addWidget(buttons);

    // From anywhere in the dialog, so the list and the diff agree on what "next" is.
    auto* next = new QShortcut(QKeySequence(Qt::ALT | Qt::Key_Down), this);
    connect(next, &QShortcut::activated, this, [this] { moveCurrent(1); });
    auto* previous = new QShortcut(QKeySequence(Qt::ALT | Qt::Key_Up), this);
    connect(previous, &QShortcut::activated, this, [this] { moveCurrent(-1); });

    fillOperations();
    fillSkipped();
    updateCounts();
    resize(1240, 780);
    m_operations->setFocus();
}

QWidget* ChangeSetReviewDialog::createOperationsPane()
{
    auto* pane = new QWidget(this);
    m_operations = new QTreeWidget(pane);
    m_operations->setAccessibleName(tr("Files"));
    m_operations->setRootIsDecorated(false);
    m_operations->setUniformRowHeights(true);
    m_operations->setAlternatingRowColors(true);
    m_operations->setSelectionMode(QAbstractItemView::SingleSelection);
    m_operations->setHeaderLabels({tr("File"), tr("Change"), QStringLiteral("+"),
                                   QStringLiteral("\u2212"), tr("Nix"), tr("Reason")});
    // Beside the name once shown: it is what decides the review then; the reason of a bump is
    // the same on every row.
    m_operations->header()->moveSection(NixColumn, KindColumn);
    m_operations->setColumnHidden(NixColumn, true); // until Nix is offered
    m_operations->header()->setStretchLastSection(true);
    m_operations->header()->setSectionResizeMode(QHeaderView::Interactive);
    connect(m_operations, &QTreeWidget::itemChanged, this, &ChangeSetReviewDialog::itemChanged);
    connect(m_operations, &QTreeWidget::currentItemChanged, this,
            &ChangeSetReviewDialog::currentChanged);

    m_counts = new QLabel(pane);
    m_counts->setAccessibleName(tr("Selected changes"));
    auto* all = new QToolButton(pane);
    all->setText(tr("Select all"));
    connect(all, &QToolButton::clicked, this, [this] { selectAll(true); });
    auto* none = new QToolButton(pane);
    none->setText(tr("Select none"));
    connect(none, &QToolButton::clicked, this, [this] { selectAll(false); });
    auto* countsRow = new QHBoxLayout;
    countsRow->addWidget(m_counts, 1);
    countsRow->addWidget(all);
    countsRow->addWidget(none);

    m_nixButton = new QPushButton(tr("What It &Breaks (Ask Nix)"), pane);
    m_nixButton->setToolTip(tr("Evaluate each recipe the change modifies as it is and as the "
                               "change leaves it, before anything is written"));
    connect(m_nixButton, &QPushButton::clicked, this,
            [this] { emit m_nixAsking ? nixStopRequested() : nixCheckRequested(); });
    m_nixSummary = new QLabel(pane);
    m_nixSummary->setWordWrap(true);
    m_nixSummary->setAccessibleName(tr("What Nix says"));
    auto* nixRow = new QHBoxLayout;
    nixRow->addWidget(m_nixButton);
    nixRow->addWidget(m_nixSummary, 1);
    m_nixButton->setVisible(false);
    m_nixSummary->setVisible(false);

    m_skippedTitle = new QLabel(pane);
    m_skipped = new QTreeWidget(pane);
    m_skipped->setAccessibleName(tr("Skipped cells"));
    m_skipped->setRootIsDecorated(false);
    m_skipped->setHeaderLabels({tr("Cell"), tr("Why it was skipped")});
    m_skipped->setMaximumHeight(140);

    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_operations, 1);
    layout->addLayout(countsRow);
    layout->addLayout(nixRow);
    layout->addWidget(m_skippedTitle);
    layout->addWidget(m_skipped);
    return pane;
}

QWidget* ChangeSetReviewDialog::createDiffPane()
{
    auto* pane = new QWidget(this);
    // The path on a line of its own, clipped rather than widening the pane; the reason below
    // it may take lines (fix reasons list every rule they answer).
    m_fileTitle = new QLabel(pane);
    m_fileTitle->setTextFormat(Qt::PlainText);
    m_fileTitle->setAccessibleName(tr("Current file"));
    m_fileTitle->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    QFont bold = m_fileTitle->font();
    bold.setBold(true);
    m_fileTitle->setFont(bold);
    m_fileReason = new QLabel(pane);
    m_fileReason->setTextFormat(Qt::PlainText);
    m_fileReason->setWordWrap(true);
    m_fileReason->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    QSizePolicy wrapping(QSizePolicy::Preferred, QSizePolicy::Minimum);
    wrapping.setHeightForWidth(true); // else the box layout gives it one line
    m_fileReason->setSizePolicy(wrapping);
    m_fileReason->setAccessibleName(tr("Why"));
    m_alsoRemoves = new QLabel(pane);
    m_alsoRemoves->setTextFormat(Qt::PlainText);
    m_alsoRemoves->setWordWrap(true);
    m_alsoRemoves->setSizePolicy(wrapping);
    m_alsoRemoves->setAccessibleName(tr("Also removes"));
    setTextColour(m_alsoRemoves, kindColor(FileOperationKind::Delete, palette()));
    m_alsoRemoves->setVisible(false);
    m_nixVerdict = new QLabel(pane);
    m_nixVerdict->setTextFormat(Qt::PlainText);
    m_nixVerdict->setWordWrap(true);
    m_nixVerdict->setSizePolicy(wrapping);
    m_nixVerdict->setAccessibleName(tr("What Nix says of this file"));
    m_nixVerdict->setVisible(false);
    m_diff = new DiffView(pane);
    connect(m_diff, &DiffView::nextFileRequested, this, [this] { moveCurrent(1); });
    connect(m_diff, &DiffView::previousFileRequested, this, [this] { moveCurrent(-1); });
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_fileTitle);
    layout->addWidget(m_fileReason);
    layout->addWidget(m_alsoRemoves);
    layout->addWidget(m_nixVerdict);
    layout->addWidget(m_diff, 1);
    return pane;
}

QWidget* ChangeSetReviewDialog::createCommitPane()
{
    auto* pane = new QWidget(this);
    m_commit = new QCheckBox(tr("&Commit after applying"), pane);
    m_message = new QPlainTextEdit(pane);
    m_message->setAccessibleName(tr("Commit message"));
    m_message->setTabChangesFocus(true);
    m_message->setFixedHeight(m_message->fontMetrics().lineSpacing() * 5 + 12);
    m_message->setEnabled(false);
    connect(m_commit, &QCheckBox::toggled, m_message, &QWidget::setEnabled);
    connect(m_message, &QPlainTextEdit::textChanged, this, [this] {
        if (!m_settingMessage)
            m_messageEdited = true;
    });
    m_commitBlocked = new QLabel(pane);
    m_commitBlocked->setWordWrap(true);
    m_commitBlocked->setVisible(false);
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_commit);
    layout->addWidget(m_commitBlocked);
    layout->addWidget(m_message);
    pane->setVisible(false); // until setCommitAvailable(true)
    return pane;
}

void ChangeSetReviewDialog::fillOperations()
{
    const QSignalBlocker blocker(m_operations);
    const QIcon icons[] = {kindIcon(FileOperationKind::Create, palette()),
                           kindIcon(FileOperationKind::Modify, palette()),
                           kindIcon(FileOperationKind::Delete, palette())};
    // File names, not paths: the list stays narrow enough to show kind, size and reason. A
    // name two operations share is shown with its path.
    QHash<QString, int> nameCount;
    for (const FileOperation& op : m_changes->operations)
        ++nameCount[fileName(op.path)];
    QList<QTreeWidgetItem*> items;
    items.reserve(static_cast<qsizetype>(m_changes->operations.size()));
    for (size_t i = 0; i < m_changes->operations.size(); ++i) {
        const FileOperation& op = m_changes->operations[i];
        const DiffStat stat = i < m_stats.size() ? m_stats[i] : DiffStat{};
        auto* item = new QTreeWidgetItem;
        item->setData(PathColumn, indexRole, static_cast<int>(i));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
        item->setCheckState(PathColumn, op.selected ? Qt::Checked : Qt::Unchecked);
        const QString name = fileName(op.path);
        item->setText(PathColumn, nameCount.value(name) > 1 ? qs(op.path) : name);
        item->setToolTip(PathColumn,
                         op.subject.empty() ? qs(op.path) : qs(op.subject + "\n" + op.path));
        item->setIcon(KindColumn, icons[static_cast<int>(op.kind)]);
        item->setText(KindColumn, kindLabel(op.kind));
        // Zeros in grey, so the eye finds the files that add or remove much.
        const QColor none = palette().color(QPalette::PlaceholderText);
        item->setText(AddedColumn, QStringLiteral("+%1").arg(stat.added));
        item->setForeground(
            AddedColumn, stat.added > 0 ? kindColor(FileOperationKind::Create, palette()) : none);
        item->setText(RemovedColumn, QStringLiteral("\u2212%1").arg(stat.removed));
        item->setForeground(RemovedColumn, stat.removed > 0
                                               ? kindColor(FileOperationKind::Delete, palette())
                                               : none);
        item->setTextAlignment(AddedColumn, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(RemovedColumn, Qt::AlignRight | Qt::AlignVCenter);
        item->setText(ReasonColumn, qs(op.reason));
        item->setToolTip(ReasonColumn, qs(op.reason));
        // Unchecked by the plan, and said in red: the author's lines, or a working recipe,
        // would go.
        const QString warning =
            !op.alsoRemoves.empty() ? qs(RemovalReport::summary(op.alsoRemoves)) : qs(op.heldBack);
        if (!warning.isEmpty()) {
            item->setText(ReasonColumn, warning + QStringLiteral(" \u2014 ") + qs(op.reason));
            item->setToolTip(ReasonColumn, warning + QLatin1Char('\n') + qs(op.reason));
            item->setForeground(ReasonColumn, kindColor(FileOperationKind::Delete, palette()));
        }
        items << item;
    }
    m_operations->addTopLevelItems(items);
    for (int column = PathColumn; column < ReasonColumn; ++column)
        m_operations->resizeColumnToContents(column);
    if (!items.isEmpty())
        m_operations->setCurrentItem(items.front());
    else
        m_diff->showMessage(tr("This change set has no files to write."));
    currentChanged();
}

void ChangeSetReviewDialog::fillSkipped()
{
    for (const SkippedCell& cell : m_changes->skipped) {
        auto* item = new QTreeWidgetItem(m_skipped, {qs(cell.subject), qs(cell.why)});
        item->setToolTip(1, qs(cell.why));
    }
    m_skipped->resizeColumnToContents(0);
    const int count = static_cast<int>(m_changes->skipped.size());
    m_skippedTitle->setText(
        tr("%n cell(s) skipped \u2014 the plan could not serve them:", nullptr, count));
    m_skippedTitle->setVisible(count > 0);
    m_skipped->setVisible(count > 0);
}

void ChangeSetReviewDialog::itemChanged(QTreeWidgetItem* item, int column)
{
    if (column != PathColumn)
        return;
    const int index = item->data(PathColumn, indexRole).toInt();
    m_changes->operations[static_cast<size_t>(index)].selected =
        item->checkState(PathColumn) == Qt::Checked;
    updateCounts();
}

void ChangeSetReviewDialog::currentChanged()
{
    const int index = currentOperation();
    if (index < 0) {
        m_fileTitle->clear();
        m_fileReason->clear();
        m_alsoRemoves->setVisible(false);
        showCurrentVerdict({});
        return;
    }
    const FileOperation& op = m_changes->operations[static_cast<size_t>(index)];
    showCurrentVerdict(op.path);
    const DiffStat stat = static_cast<size_t>(index) < m_stats.size() ? m_stats[index] : DiffStat{};
    m_fileTitle->setText(QStringLiteral("%1 \u2014 %2, +%3 \u2212%4")
                             .arg(qs(op.path), kindLabel(op.kind))
                             .arg(stat.added)
                             .arg(stat.removed));
    m_fileTitle->setToolTip(m_fileTitle->text());
    m_fileReason->setText(qs(op.reason));
    m_fileReason->setVisible(!op.reason.empty());
    QStringList removed;
    for (const std::string& line : op.alsoRemoves)
        removed << QStringLiteral("\u2212 ") + qs(line);
    m_alsoRemoves->setText(
        (removed.size() == 1
             ? tr("Also removes 1 line that no finding names:")
             : tr("Also removes %1 lines that no finding names:").arg(removed.size())) +
        QLatin1Char('\n') + removed.join(QLatin1Char('\n')));
    m_alsoRemoves->setVisible(!removed.isEmpty());
    const size_t at = static_cast<size_t>(index);
    if (at < m_diffs.size() && !m_diffs[at].empty())
        m_diff->setDiff(qs(m_diffs[at]));
    else
        m_diff->showMessage(tr("No textual difference for %1.").arg(qs(op.path)));
}

int ChangeSetReviewDialog::currentOperation() const
{
    const QTreeWidgetItem* item = m_operations->currentItem();
    return item ? item->data(PathColumn, indexRole).toInt() : -1;
}

void ChangeSetReviewDialog::setCurrentOperation(int index)
{
    if (QTreeWidgetItem* item = m_operations->topLevelItem(index))
        m_operations->setCurrentItem(item);
}

void ChangeSetReviewDialog::setOperationSelected(int index, bool selected)
{
    if (QTreeWidgetItem* item = m_operations->topLevelItem(index))
        item->setCheckState(PathColumn, selected ? Qt::Checked : Qt::Unchecked);
}

void ChangeSetReviewDialog::moveCurrent(int step)
{
    const int count = m_operations->topLevelItemCount();
    const int row = m_operations->indexOfTopLevelItem(m_operations->currentItem());
    const int target = std::clamp(row + step, 0, count - 1);
    if (count > 0 && target != row)
        setCurrentOperation(target);
}

void ChangeSetReviewDialog::selectAll(bool selected)
{
    {
        const QSignalBlocker blocker(m_operations);
        for (int i = 0; i < m_operations->topLevelItemCount(); ++i) {
            QTreeWidgetItem* item = m_operations->topLevelItem(i);
            item->setCheckState(PathColumn, selected ? Qt::Checked : Qt::Unchecked);
            m_changes->operations[static_cast<size_t>(item->data(PathColumn, indexRole).toInt())]
                .selected = selected;
        }
    }
    m_operations->viewport()->update();
    updateCounts();
}

QString ChangeSetReviewDialog::countsText() const
{
    return m_counts->text();
}

void ChangeSetReviewDialog::updateCounts()
{
    QStringList parts;
    for (FileOperationKind kind :
         {FileOperationKind::Create, FileOperationKind::Modify, FileOperationKind::Delete}) {
        if (const int n = m_changes->count(kind))
            parts << QStringLiteral("%1 %2").arg(n).arg(kindLabel(kind));
    }
    const int total = static_cast<int>(m_changes->operations.size());
    int selected = 0;
    for (const FileOperation& op : m_changes->operations)
        selected += op.selected ? 1 : 0;
    QString text =
        parts.isEmpty() ? tr("nothing selected") : parts.join(QStringLiteral(" \u00b7 "));
    if (selected < total)
        text += tr(" \u2014 %1 of %2 left out").arg(total - selected).arg(total);
    m_counts->setText(text);
    m_apply->setEnabled(selected > 0);
    if (!m_messageEdited) {
        m_settingMessage = true;
        m_message->setPlainText(qs(m_changes->commitMessage()));
        m_settingMessage = false;
    }
}

void ChangeSetReviewDialog::setCommitAvailable(bool available, const QString& blocker)
{
    m_commit->parentWidget()->setVisible(available);
    const bool blocked = !blocker.isEmpty();
    if (!available || blocked)
        m_commit->setChecked(false);
    m_commit->setEnabled(!blocked);
    m_commitBlocked->setVisible(blocked);
    m_commitBlocked->setText(tr("Cannot commit here: %1").arg(blocker));
    m_message->setVisible(!blocked);
}

void ChangeSetReviewDialog::offerNixCheck()
{
    m_nixButton->setVisible(true);
    m_nixSummary->setVisible(true);
}

void ChangeSetReviewDialog::setNixAsking(bool asking)
{
    m_nixAsking = asking;
    m_nixButton->setText(asking ? tr("&Stop") : tr("What It &Breaks (Ask Nix)"));
}

void ChangeSetReviewDialog::showNixProgress(int done, int total)
{
    setNixAsking(true);
    setTextColour(m_nixSummary, palette().color(QPalette::WindowText));
    m_nixSummary->setText(total > 0
                              ? tr("Asking Nix\u2026 %1 of %2 evaluations").arg(done).arg(total)
                              : tr("Asking Nix\u2026"));
}

void ChangeSetReviewDialog::showNixFailure(const QString& message)
{
    setNixAsking(false);
    setTextColour(m_nixSummary, palette().color(QPalette::WindowText));
    m_nixSummary->setText(message);
}

void ChangeSetReviewDialog::showImpacts(const std::vector<RecipeImpact>& impacts)
{
    setNixAsking(false);
    m_impacts.clear();
    int breaking = 0, unanswered = 0, newDerivations = 0;
    for (const RecipeImpact& impact : impacts) {
        breaking += impact.verdict() == RecipeImpact::Verdict::Breaks ? 1 : 0;
        unanswered += impact.verdict() == RecipeImpact::Verdict::Unanswered ? 1 : 0;
        newDerivations += impact.after.evaluated && impact.derivationChanges() ? 1 : 0;
        m_impacts[impact.path] = impact;
    }
    const QColor red = kindColor(FileOperationKind::Delete, palette());
    for (int i = 0; i < m_operations->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = m_operations->topLevelItem(i);
        const auto& op =
            m_changes->operations[static_cast<size_t>(item->data(PathColumn, indexRole).toInt())];
        const auto found = m_impacts.find(op.path);
        if (found == m_impacts.end()) {
            item->setText(NixColumn, QStringLiteral("\u2014"));
            item->setToolTip(NixColumn, tr("Not a recipe Nix evaluates here"));
            continue;
        }
        const VerdictText text = verdictText(found->second);
        item->setText(NixColumn, text.cell);
        item->setToolTip(NixColumn, text.detail);
        if (text.bad)
            item->setForeground(NixColumn, red);
    }
    m_operations->setColumnHidden(NixColumn, false);
    m_operations->resizeColumnToContents(NixColumn);
    const int total = static_cast<int>(impacts.size());
    QString summary =
        breaking > 0
            ? tr("%1 of %n recipe(s) would stop evaluating with the change", nullptr, total)
                  .arg(breaking)
            : tr("%n recipe(s) evaluate before and after the change", nullptr, total);
    summary += tr(" \u00b7 %n new derivation(s)", nullptr, newDerivations);
    if (unanswered > 0)
        summary += tr(" \u00b7 %n not answered", nullptr, unanswered);
    m_nixSummary->setText(summary);
    setTextColour(m_nixSummary, breaking > 0 ? red : palette().color(QPalette::WindowText));
    const int index = currentOperation();
    showCurrentVerdict(index < 0 ? std::string()
                                 : m_changes->operations[static_cast<size_t>(index)].path);
}

void ChangeSetReviewDialog::showCurrentVerdict(const std::string& path)
{
    const auto found = m_impacts.find(path);
    if (found == m_impacts.end()) {
        m_nixVerdict->setVisible(false);
        return;
    }
    const VerdictText text = verdictText(found->second);
    m_nixVerdict->setText(text.detail);
    setTextColour(m_nixVerdict, text.bad ? kindColor(FileOperationKind::Delete, palette())
                                         : palette().color(QPalette::WindowText));
    m_nixVerdict->setVisible(true);
}

bool ChangeSetReviewDialog::commitRequested() const
{
    return m_commit->isChecked() && !m_message->toPlainText().trimmed().isEmpty();
}

QString ChangeSetReviewDialog::commitMessage() const
{
    return m_message->toPlainText();
}

} // namespace rg
