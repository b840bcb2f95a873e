#include "detailspanel.h"

#include "itemmodels/findingsmodel.h"
#include "itemmodels/matrixmodel.h"
#include "matrix/cpufeatureset.h"
#include "sessions/qtext.h"
#include "statusstyle.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

namespace rg {

namespace {

QString link(const nix::SourceRange& range, const QString& text)
{
    if (range.end == 0 && range.begin == 0)
        return text.toHtmlEscaped();
    return QStringLiteral("<a href=\"range:%1:%2\">%3</a>")
        .arg(range.begin)
        .arg(range.end)
        .arg(text.toHtmlEscaped());
}

// A fact made outside the recipe (by a builder module) says where, without a link.
QString linkOrWhere(const Fact<std::string>& fact)
{
    if (fact.in.empty())
        return link(fact.range, qs(fact.value));
    return qs(fact.value).toHtmlEscaped() +
           QStringLiteral(" <i>(%1)</i>").arg(qs(fact.in).toHtmlEscaped());
}

QString joined(const std::vector<std::string>& values)
{
    QStringList parts;
    for (const std::string& value : values)
        parts << QLatin1Char('"') + qs(value) + QLatin1Char('"');
    return QStringLiteral("[ ") + parts.join(QLatin1Char(' ')) + QStringLiteral(" ]");
}

QString patternName(PatternKind kind)
{
    switch (kind) {
    case PatternKind::PinnedOverlays:
        return QObject::tr("pinned nixpkgs with overlays");
    case PatternKind::PinnedPlain:
        return QObject::tr("pinned nixpkgs, no overlays");
    case PatternKind::CallPackage:
        return QObject::tr("callPackage-style function");
    case PatternKind::FromScratch:
        return QObject::tr("from scratch (buildPythonPackage / mkDerivation)");
    case PatternKind::Wrapper:
        return QObject::tr("wrapper around another file");
    case PatternKind::Unknown:
        break;
    }
    return QObject::tr("not recognised");
}

QString problemText(const RecipeFacts& facts)
{
    switch (facts.problem) {
    case FileProblem::None:
        return {};
    case FileProblem::Unreadable:
        return QObject::tr("unreadable: %1").arg(qs(facts.problemDetail));
    case FileProblem::NotUtf8:
        return QObject::tr("not UTF-8 text");
    case FileProblem::Oversized:
        return QObject::tr("too large to analyse (%1 bytes)").arg(facts.size);
    case FileProblem::SyntaxError:
        if (facts.parseError)
            return QObject::tr("Nix syntax error at %1:%2: %3")
                .arg(facts.parseError->line)
                .arg(facts.parseError->column)
                .arg(qs(facts.parseError->message));
        return QObject::tr("Nix syntax error: %1").arg(qs(facts.problemDetail));
    case FileProblem::TooDeep:
        return QObject::tr("not checked: nested deeper than RecipeGrid's parser follows (line "
                           "%1); Nix may accept it")
            .arg(facts.parseError ? facts.parseError->line : 0);
    case FileProblem::Symlink:
        return QObject::tr("symbolic link, not followed: %1").arg(qs(facts.problemDetail));
    }
    return {};
}

QString lineOf(const RecipeFacts& facts, const nix::SourceRange& range)
{
    return QObject::tr("line %1").arg(facts.position(range.begin).line);
}

// `gpuTargets ← "8.6" via gpuArchNum (line 12)`: the sink, the entry and the binding it came
// through, each a link to where it is written.
QString archSinkText(const RecipeFacts& facts, const ArchSinkFact& sink)
{
    // A sink in a builder module the recipe calls has no range in the recipe: name where it is.
    if (!sink.sinkIn.empty()) {
        QString text = QObject::tr("%1 in <code>%2</code> \u2190 \"%3\"")
                           .arg(qs(archSinkName(sink.sink)), qs(sink.sinkIn).toHtmlEscaped(),
                                qs(sink.value).toHtmlEscaped());
        if (!sink.via.empty())
            text += QObject::tr(" via %1").arg(qs(sink.via).toHtmlEscaped());
        return text +
               QObject::tr(", written in <code>%1</code>").arg(qs(sink.writtenIn).toHtmlEscaped());
    }
    QString text = link(sink.sinkRange, qs(archSinkName(sink.sink))) + QStringLiteral(" \u2190 ") +
                   link(sink.range, QLatin1Char('"') + qs(sink.value) + QLatin1Char('"'));
    if (!sink.via.empty())
        text += QObject::tr(" via %1").arg(link(sink.viaRange, qs(sink.via)));
    text += QStringLiteral(" (%1)").arg(lineOf(facts, sink.range).toHtmlEscaped());
    if (!sink.writtenIn.empty())
        text += QObject::tr(", written in <code>%1</code>").arg(qs(sink.writtenIn).toHtmlEscaped());
    return text;
}

// `CXXFLAGS ← -march=x86-64-v3 via cpuFlags (line 8)`, then what the flags turn on.
QString compilerFlagsText(const RecipeFacts& facts, const CpuFlagsFact& flags)
{
    QStringList words;
    for (const std::string& flag : flags.flags)
        words << qs(flag);
    QString text = flags.sink.empty()
                       ? QObject::tr("the <code>cpuFlags</code> list (no flag sink read): ")
                       : qs(flags.sink).toHtmlEscaped() + QStringLiteral(" \u2190 ");
    text += link(flags.range, words.join(QLatin1Char(' ')));
    if (!flags.via.empty())
        text += QObject::tr(" via %1").arg(qs(flags.via).toHtmlEscaped());
    // Flags read in a builder module have no range in the recipe, only where they are written.
    if (flags.range.length() > 0 || flags.writtenIn.empty())
        text += QStringLiteral(" (%1)").arg(lineOf(facts, flags.range).toHtmlEscaped());
    if (!flags.writtenIn.empty())
        text +=
            QObject::tr(", written in <code>%1</code>").arg(qs(flags.writtenIn).toHtmlEscaped());
    text += QStringLiteral("<br><i>%1</i>")
                .arg(qs(CpuFeatureSet(flags.flags).describe()).toHtmlEscaped());
    return text;
}

QString platformsText(const PlatformsFact& platforms)
{
    switch (platforms.origin) {
    case ValueOrigin::Known:
        return link(platforms.range, joined(platforms.platforms));
    case ValueOrigin::Inherited:
        return QObject::tr("inherited from nixpkgs (%1)")
            .arg(link(platforms.range, qs(platforms.expression)));
    case ValueOrigin::Unknown:
        break;
    }
    return QObject::tr("unknown: %1").arg(link(platforms.range, qs(platforms.expression)));
}

// The group a recipe belongs to (package × accelerator × pin), by its path.
const RecipeGroup* groupOf(const Analysis& analysis, const RecipeFacts& facts)
{
    for (const RecipeGroup& group : analysis.groups)
        if (std::find(group.files.begin(), group.files.end(), facts.path) != group.files.end())
            return &group;
    return nullptr;
}

// QTreeView asks for row heights without a width, so wrapped text would stay one line: give
// the delegate the column's actual width.
class WrappingDelegate : public QStyledItemDelegate
{
public:
    explicit WrappingDelegate(QTreeView* view) : QStyledItemDelegate(view), m_view(view) {}
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyleOptionViewItem sized = option;
        sized.rect = QRect(0, 0, m_view->columnWidth(index.column()), 1); // valid: width counts
        return QStyledItemDelegate::sizeHint(sized, index);
    }

private:
    QTreeView* m_view;
};

} // namespace

// The facts table: a row a name, each with its value as HTML.
class DetailsPanel::FactRows
{
public:
    void operator()(const QString& name, const QString& valueHtml)
    {
        m_rows << QStringLiteral(
                      "<tr><td style=\"padding-right:10px\"><b>%1</b></td><td>%2</td></tr>")
                      .arg(name.toHtmlEscaped(), valueHtml);
    }
    QString table() const
    {
        return QStringLiteral("<table>") + m_rows.join(QString()) + QStringLiteral("</table>");
    }

private:
    QStringList m_rows;
};

DetailsPanel::DetailsPanel(QWidget* parent)
    : QWidget(parent), m_title(new QLabel(this)), m_chooser(new QComboBox(this)),
      m_status(new QLabel(this)), m_build(new QLabel(this)), m_evaluation(new QLabel(this)),
      m_facts(new QTextBrowser(this)), m_findingsTitle(new QLabel(this)),
      m_findings(new QTreeView(this)), m_findingsModel(new FindingsModel(this)),
      m_findingsProxy(new QSortFilterProxyModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.1);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setWordWrap(true);
    layout->addWidget(m_title);
    m_chooser->setAccessibleName(tr("Recipe in the selection"));
    layout->addWidget(m_chooser);
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    layout->addWidget(m_status);
    m_build->setWordWrap(true);
    m_build->setTextFormat(Qt::RichText);
    m_build->hide();
    layout->addWidget(m_build);
    m_evaluation->setWordWrap(true);
    m_evaluation->setTextFormat(Qt::RichText);
    m_evaluation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_evaluation->setAccessibleName(tr("Nix's answer"));
    m_evaluation->hide();
    layout->addWidget(m_evaluation);
    m_facts->setOpenLinks(false);
    m_facts->setAccessibleName(tr("Recipe facts"));
    m_facts->setFrameShape(QFrame::NoFrame);
    m_facts->viewport()->setAutoFillBackground(false); // the panel's background, as text has
    m_facts->document()->setDocumentMargin(2);
    // Facts above, findings below, the split adjustable: some recipes have many findings.
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setChildrenCollapsible(false);
    split->addWidget(m_facts);
    auto* findingsBox = new QWidget(split);
    auto* findingsLayout = new QVBoxLayout(findingsBox);
    findingsLayout->setContentsMargins(0, 4, 0, 0);
    split->addWidget(findingsBox);
    // The findings are what a broken cell is opened for: they get the larger share.
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setSizes({200, 300});
    layout->addWidget(split, 1);
    m_findingsTitle->setText(tr("Findings"));
    m_findingsTitle->setFont(titleFont);
    findingsLayout->addWidget(m_findingsTitle);
    setUpFindingsView();
    findingsLayout->addWidget(m_findings, 1);
    // Row heights are measured at layout time; re-measure when the message column changes
    // width so wrapped messages never end in an ellipsis.
    connect(m_findings->header(), &QHeaderView::sectionResized, m_findings, [this](int section) {
        if (section == FindingsModel::MessageColumn)
            QMetaObject::invokeMethod(m_findings, &QTreeView::doItemsLayout, Qt::QueuedConnection);
    });
    m_findings->setTextElideMode(Qt::ElideNone);

    connectSignals();
    clear();
}

void DetailsPanel::setUpFindingsView()
{
    m_findingsProxy->setSourceModel(m_findingsModel);
    m_findings->setModel(m_findingsProxy);
    m_findings->setRootIsDecorated(false);
    m_findings->setUniformRowHeights(false);
    m_findings->setWordWrap(true); // messages name their evidence; show all of it
    m_findings->setItemDelegate(new WrappingDelegate(m_findings));
    m_findings->setAlternatingRowColors(true);
    m_findings->setAccessibleName(tr("Findings of the recipe"));
    m_findings->header()->setStretchLastSection(true);
    m_findings->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_findings->header()->setSectionResizeMode(FindingsModel::MessageColumn, QHeaderView::Stretch);
}

void DetailsPanel::connectSignals()
{
    connect(m_chooser, &QComboBox::currentIndexChanged, this, &DetailsPanel::showEntry);
    connect(m_findings, &QTreeView::activated, this, &DetailsPanel::activateFinding);
    connect(m_findings, &QTreeView::clicked, this, &DetailsPanel::activateFinding);
    // Moving through the list with the arrow keys shows each finding as it becomes current.
    connect(m_findings->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid())
                    activateFinding(current);
            });
    connect(m_facts, &QTextBrowser::anchorClicked, this, [this](const QUrl& link) {
        const QStringList parts = link.toString().split(QLatin1Char(':'));
        if (parts.size() == 3 && parts[0] == QLatin1String("range"))
            emit rangeActivated(parts[1].toUInt(), parts[2].toUInt());
    });
}

void DetailsPanel::clear(const QString& message)
{
    m_analysis.reset();
    m_entries.clear();
    {
        const QSignalBlocker blocker(m_chooser);
        m_chooser->clear();
    }
    m_chooser->hide();
    m_title->setText(message.isEmpty() ? tr("Nothing selected") : message);
    m_status->setText(tr("Select a cell of the grid (click, or the arrow keys) to see its "
                         "recipe's facts and findings."));
    m_factsHtml.clear();
    m_facts->clear();
    showBuild(nullptr);
    showEvaluation(nullptr);
    m_findingsModel->setFindings({});
    m_findingsTitle->setText(tr("Findings"));
    emit currentEntryChanged(nullptr);
}

void DetailsPanel::setEntries(std::shared_ptr<const Analysis> analysis,
                              std::vector<const Cell*> entries, const QString& cellTitle,
                              const QString& emptyReason)
{
    const QString previous = currentVariantName();
    m_analysis = std::move(analysis);
    m_entries = std::move(entries);
    m_title->setText(cellTitle);
    if (m_entries.empty()) {
        const QString title = cellTitle;
        clear();
        m_title->setText(title);
        m_status->setText(emptyReason.isEmpty()
                              ? tr("No recipe here, and the spec does not expect one.")
                              : tr("No recipe here.<br>%1")
                                    .arg(emptyReason.toHtmlEscaped().replace(
                                        QLatin1Char('\n'), QStringLiteral("<br>"))));
        return;
    }
    {
        const QSignalBlocker blocker(m_chooser);
        m_chooser->clear();
        for (const Cell* entry : m_entries)
            m_chooser->addItem(StatusStyle::icon(entry->status, palette()),
                               qs(entry->variant.toString()));
    }
    m_chooser->setVisible(m_entries.size() > 1);
    int index = m_chooser->findText(previous);
    showEntry(index >= 0 ? index : 0);
    {
        const QSignalBlocker blocker(m_chooser);
        m_chooser->setCurrentIndex(index >= 0 ? index : 0);
    }
}

bool DetailsPanel::selectVariant(const QString& variantName)
{
    const int index = m_chooser->findText(variantName);
    if (index < 0)
        return false;
    m_chooser->setCurrentIndex(index);
    return true;
}

const Cell* DetailsPanel::currentEntry() const
{
    const int index = m_chooser->currentIndex();
    if (index < 0 || index >= static_cast<int>(m_entries.size()))
        return nullptr;
    return m_entries[static_cast<size_t>(index)];
}

QString DetailsPanel::currentVariantName() const
{
    const Cell* entry = currentEntry();
    return entry ? qs(entry->variant.toString()) : QString();
}

QString DetailsPanel::factsText() const
{
    QTextDocument document;
    document.setHtml(m_status->text() + QStringLiteral("<br>") +
                     (m_build->text().isEmpty() ? QString() : m_build->text() + "<br>") +
                     (m_evaluation->text().isEmpty() ? QString() : m_evaluation->text() + "<br>") +
                     m_factsHtml);
    return document.toPlainText();
}

QString DetailsPanel::evaluationText() const
{
    QTextDocument document;
    document.setHtml(m_evaluation->text() + m_evaluationTable);
    return document.toPlainText();
}

// Nix's answer: a headline line above the facts, and its values as the first table of the
// facts, before what the static reading found (a separate label would be squeezed to one line
// in a short dock; the facts scroll). The static findings Nix overrules stay in the list below
// as notes that name both answers.
void DetailsPanel::showEvaluation(const Cell* entry)
{
    const EvaluationSummary* evaluation = entry ? entry->evaluation.get() : nullptr;
    m_evaluation->setVisible(evaluation != nullptr);
    m_evaluationTable.clear();
    if (!evaluation) {
        m_evaluation->clear();
        return;
    }
    m_evaluation->setText(
        QStringLiteral("<b>%1</b> %2")
            .arg(tr("Nix:"), MatrixModel::evaluationText(*entry).toHtmlEscaped()));
    FactRows row;
    if (evaluation->evaluated) {
        const auto value = [](const std::string& text) {
            return text.empty() ? QStringLiteral("\u2014")
                                : QStringLiteral("<code>%1</code>").arg(qs(text).toHtmlEscaped());
        };
        std::string arch;
        for (const std::string& item : evaluation->archList)
            arch += (arch.empty() ? "" : ";") + item;
        row(tr("torch"), value(evaluation->torchVersion));
        row(tr("CUDA"), value(evaluation->cudaVersion));
        row(tr("Python"), value(evaluation->pythonVersion));
        row(tr("Arch list"), value(arch));
        row(tr("drvPath"), value(evaluation->drvPath));
        if (!evaluation->outputText.empty())
            row(tr("Output"), qs(evaluation->outputText).toHtmlEscaped());
    } else {
        row(tr("Nix says"), qs(evaluation->error)
                                .toHtmlEscaped()
                                .replace(QLatin1Char('\n'), QStringLiteral("<br>")));
    }
    row(tr("Pin"), evaluation->pin.empty() ? tr("none") : qs(evaluation->pin).toHtmlEscaped());
    row(tr("Nix"), qs(evaluation->nixVersion).toHtmlEscaped() +
                       (evaluation->fromCache ? tr(" (answer from the cache)") : QString()));
    int overruled = 0;
    for (const Finding& finding : entry->findings)
        overruled += finding.ruleId == "eval-overrules-static" ? 1 : 0;
    if (overruled > 0)
        row(tr("Overruled"),
            tr("%n static finding(s) Nix shows wrong: notes below", nullptr, overruled));
    m_evaluationTable = QStringLiteral("<p><b>%1</b></p>").arg(tr("Nix's answer")) + row.table() +
                        QStringLiteral("<p><b>%1</b></p>").arg(tr("Static reading"));
}

void DetailsPanel::setBuildSummaryProvider(BuildSummaryProvider provider)
{
    m_buildSummary = std::move(provider);
    showBuild(currentEntry());
}

void DetailsPanel::buildStateChanged(const QString& variantName)
{
    if (currentVariantName() == variantName)
        showBuild(currentEntry());
}

// Its own line, so progress ticks of a running build repaint one label, not the facts.
void DetailsPanel::showBuild(const Cell* entry)
{
    const QString build = entry && m_buildSummary ? m_buildSummary(*entry) : QString();
    m_build->setText(build.isEmpty()
                         ? QString()
                         : QStringLiteral("<b>%1</b> %2").arg(tr("Build:"), build.toHtmlEscaped()));
    m_build->setVisible(!build.isEmpty());
}

void DetailsPanel::showEntry(int index)
{
    if (index < 0 || index >= static_cast<int>(m_entries.size()))
        return;
    const Cell& entry = *m_entries[static_cast<size_t>(index)];
    m_status->setText(statusText(entry));

    FactRows row;
    if (const auto& facts = entry.recipe) {
        addRecipeRows(row, *facts);
        addValueRows(row, *facts);
        addGroupRows(row, *facts);
    } else if (entry.status == CellStatus::Gap) {
        row(tr("File"), tr("none \u2014 the recipes around it suggest <code>%1.nix</code>")
                            .arg(qs(entry.variant.toString()).toHtmlEscaped()));
    } else {
        row(tr("File"), tr("none \u2014 the spec expects <code>%1.nix</code>")
                            .arg(qs(entry.variant.toString()).toHtmlEscaped()));
    }
    showEvaluation(&entry);
    // Each new analysis shows the selected recipe again, mostly with the same facts: laying
    // them out again took milliseconds of the GUI thread and scrolled the facts back up.
    if (QString html = m_evaluationTable + row.table(); html != m_factsHtml) {
        m_factsHtml = std::move(html);
        m_facts->setHtml(m_factsHtml);
    }

    m_findingsModel->setFindings(entry.findings);
    m_findingsTitle->setText(tr("Findings (%1)").arg(entry.findings.size()));
    showBuild(&entry);
    emit currentEntryChanged(&entry);
}

QString DetailsPanel::statusText(const Cell& entry) const
{
    const QColor color = StatusStyle::color(entry.status, palette());
    QString status = QStringLiteral("<b style=\"color:%1\">%2</b> &nbsp;<code>%3</code>")
                         .arg(color.name(), StatusStyle::label(entry.status).toHtmlEscaped(),
                              qs(entry.variant.toString()).toHtmlEscaped());
    if (const int warnings = MatrixModel::warningCount(entry); warnings > 0)
        status += QStringLiteral(" &nbsp;<b style=\"color:%1\">\u26a0 %2</b>")
                      .arg(StatusStyle::warningColor(palette()).name(),
                           warnings == 1 ? tr("1 warning") : tr("%1 warnings").arg(warnings));
    // A reason that only repeats the status word ("gap") gives way to the description.
    if (const QString reason = qs(entry.reason);
        !reason.isEmpty() && reason != StatusStyle::label(entry.status))
        status += QStringLiteral("<br>") + reason.toHtmlEscaped();
    else if (entry.status != CellStatus::Gap) // described below
        status += QStringLiteral("<br>") + StatusStyle::description(entry.status).toHtmlEscaped();
    // Without a spec file there is no spec for an entry to be outside of.
    const bool inferred = m_analysis && m_analysis->spec.isInferred();
    if (entry.status == CellStatus::Gap)
        status += QStringLiteral("<br><i>%1</i>")
                      .arg(StatusStyle::description(entry.status).toHtmlEscaped());
    else if (!entry.expected && !inferred)
        status += QStringLiteral("<br><i>%1</i>").arg(tr("Not in the matrix spec."));
    // The spec asks for it though it cannot work: it stays expected, and only the hatch under
    // its chip would say so.
    if (const VariantExpectation* e = entry.expectation.get(); e && e->askedForImpossible())
        status += QStringLiteral("<br><i>%1</i>")
                      .arg(tr("Cannot work: %1. The spec asks for it.")
                               .arg(qs(e->feasibility.why()))
                               .toHtmlEscaped());
    return status;
}

void DetailsPanel::addRecipeRows(FactRows& row, const RecipeFacts& facts) const
{
    row(tr("File"), QStringLiteral("<code>%1</code> (%2 bytes)")
                        .arg(qs(facts.path).toHtmlEscaped())
                        .arg(facts.size));
    if (const QString problem = problemText(facts); !problem.isEmpty()) {
        const nix::SourceRange at =
            facts.parseError
                ? nix::SourceRange{facts.parseError->offset, facts.parseError->offset + 1}
                : nix::SourceRange{};
        row(tr("Problem"),
            QStringLiteral("<span style=\"color:%1\">%2</span>")
                .arg(StatusStyle::color(CellStatus::Broken, palette()).name(), link(at, problem)));
    }
    row(tr("Pattern"), patternName(facts.pattern).toHtmlEscaped());
    if (facts.pname)
        row(tr("pname"), link(facts.pname->range, qs(facts.pname->value)));
    QStringList pins;
    for (const PinFact& pin : facts.pins)
        pins << (pin.file.empty() ? link(pin.range, qs(pin.revision))
                                  : tr("%1 <i>(written in %2:%3)</i>")
                                        .arg(qs(pin.revision), qs(pin.file).toHtmlEscaped())
                                        .arg(pin.line)) +
                    (pin.hasHash ? QString() : QStringLiteral(" <i>(no hash)</i>"));
    row(tr("nixpkgs pin"), pins.isEmpty() ? tr("none") : pins.join(QStringLiteral("<br>")));
    QStringList overlays;
    for (const OverlayFact& overlay : facts.overlays) {
        QString text = qs(overlayKindId(overlay.kind));
        if (!overlay.detail.empty())
            text += QStringLiteral(": ") + qs(overlay.detail);
        overlays << link(overlay.range, text);
    }
    row(tr("Overlays"), overlays.isEmpty() ? tr("none") : overlays.join(QStringLiteral("<br>")));
}

void DetailsPanel::addValueRows(FactRows& row, const RecipeFacts& facts) const
{
    if (facts.pythonPackageSet)
        row(tr("Python set"), linkOrWhere(*facts.pythonPackageSet));
    if (facts.torchAttribute)
        row(tr("torch attribute"),
            link(facts.torchAttribute->range, qs(facts.torchAttribute->value)));
    if (facts.torchVersion)
        row(tr("torch version"), link(facts.torchVersion->range, qs(facts.torchVersion->value)));
    if (facts.cudaPackageSet)
        row(tr("CUDA set"), linkOrWhere(*facts.cudaPackageSet));
    // What reaches the build, by flow: each arch entry at its sink (with the binding it came
    // through), the flags at the compiler, the platforms as evaluated.
    if (!facts.archSinks.empty()) {
        QStringList sinks;
        for (const ArchSinkFact& sink : facts.archSinks)
            sinks << archSinkText(facts, sink);
        row(tr("GPU arch sinks"), sinks.join(QStringLiteral("<br>")));
    }
    if (facts.compilerFlags)
        row(tr("compiler flags"), compilerFlagsText(facts, *facts.compilerFlags));
    if (facts.cpuFlags && (!facts.compilerFlags || facts.compilerFlags->via != "cpuFlags"))
        row(tr("cpuFlags"), link(facts.cpuFlags->range, joined(facts.cpuFlags->value)));
    if (facts.platformsValue)
        row(tr("platforms"), platformsText(*facts.platformsValue));
    else if (facts.platforms)
        row(tr("platforms"), link(facts.platforms->range, joined(facts.platforms->value)));
    if (facts.nixpkgsSystem)
        row(tr("nixpkgs for"), linkOrWhere(*facts.nixpkgsSystem));
    if (!facts.unpinnedImports.empty()) {
        QStringList imports;
        for (const Fact<std::string>& import : facts.unpinnedImports)
            imports << link(import.range, qs(import.value)) +
                           QStringLiteral(" (%1)").arg(lineOf(facts, import.range));
        row(tr("unpinned imports"), imports.join(QStringLiteral("<br>")));
    }
    if (facts.description)
        row(tr("description"), link(facts.description->range, qs(facts.description->value)));
    if (facts.wrappedFile)
        row(tr("wraps"), link(facts.wrappedFile->range, qs(facts.wrappedFile->value)));
    for (const auto& magma : facts.magmaDisabled)
        row(tr("MAGMA off"), link(magma.range, qs(magma.value)));
}

void DetailsPanel::addGroupRows(FactRows& row, const RecipeFacts& facts) const
{
    if (const RecipeGroup* group = m_analysis ? groupOf(*m_analysis, facts) : nullptr) {
        const GroupProfile& profile = group->profile;
        row(tr("Group"),
            QStringLiteral("%1 (%2)").arg(
                qs(profile.label).toHtmlEscaped(),
                profile.members == 1 ? tr("1 recipe") : tr("%1 recipes").arg(profile.members)));
        if (!profile.canonical.empty()) {
            QString canonical =
                QStringLiteral("<code>%1</code>").arg(qs(profile.canonical).toHtmlEscaped());
            if (profile.canonical == facts.fileName)
                canonical += tr(" (this recipe)");
            if (!profile.canonicalWhy.empty())
                canonical += QStringLiteral(" \u2014 ") + qs(profile.canonicalWhy).toHtmlEscaped();
            row(tr("canonical"), canonical);
        }
    }
}

void DetailsPanel::activateFinding(const QModelIndex& index)
{
    const Finding* finding = m_findingsModel->finding(m_findingsProxy->mapToSource(index));
    if (finding)
        emit findingActivated(*finding);
}

} // namespace rg
