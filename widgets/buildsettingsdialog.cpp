#include "buildsettingsdialog.h"

#include "builds/buildermachine.h"
#include "itemmodels/buildertablemodel.h"
#include "statusstyle.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFont>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIdentityProxyModel>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QSpinBox>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

namespace rg {

namespace {

constexpr BackendKind backends[] = {BackendKind::Auto, BackendKind::Flox, BackendKind::Nix,
                                    BackendKind::Custom};

// Styles what BuilderTableModel only names: entries kept as written in italics, a machine Nix
// would not read and a builder down in red, one up in green. The model stays Qt Core.
class BuilderStyleProxy : public QIdentityProxyModel
{
public:
    explicit BuilderStyleProxy(QWidget* owner) : QIdentityProxyModel(owner), m_owner(owner) {}

    QVariant data(const QModelIndex& index, int role) const override
    {
        const QString kind =
            QIdentityProxyModel::data(index, BuilderTableModel::KindRole).toString();
        const bool kept = kind == QLatin1String("kept") || kind == QLatin1String("problem");
        if (role == Qt::FontRole && kept) {
            QFont italic = m_owner->font();
            italic.setItalic(true);
            return italic;
        }
        if (role == Qt::ForegroundRole &&
            (kind == QLatin1String("problem") || kind == QLatin1String("down")))
            return StatusStyle::color(CellStatus::Broken, m_owner->palette());
        if (role == Qt::ForegroundRole && kind == QLatin1String("up"))
            return StatusStyle::color(CellStatus::Ok, m_owner->palette());
        return QIdentityProxyModel::data(index, role);
    }

private:
    QWidget* m_owner;
};

} // namespace

BuildSettingsDialog::BuildSettingsDialog(const BuildSettings& settings, QWidget* parent)
    : QDialog(parent), m_initial(settings)
{
    setWindowTitle(tr("Build Settings"));

    m_backend = new QComboBox(this);
    m_backend->addItem(tr("Follow the repository (flox when .flox/ and flox exist, else nix)"));
    m_backend->addItem(tr("flox build"));
    m_backend->addItem(tr("nix build (nix-build where the new CLI is unavailable)"));
    m_backend->addItem(tr("Custom command"));
    for (int i = 0; i < int(std::size(backends)); ++i)
        if (backends[i] == settings.backend)
            m_backend->setCurrentIndex(i);

    m_customCommand = new QLineEdit(settings.customCommand, this);
    m_customCommand->setPlaceholderText(QStringLiteral("nix build -f {file} -o {out}"));
    m_customCommand->setToolTip(
        tr("Split like a shell would, never run through one. Placeholders: {variant} {pname} "
           "{file} {repo} {out}"));

    m_concurrency = new QSpinBox(this);
    m_concurrency->setRange(1, 64);
    m_concurrency->setValue(settings.concurrency);
    m_concurrency->setToolTip(tr("Builds that run at once; PyTorch builds need a lot of memory"));

    m_maxJobs = new QSpinBox(this);
    m_maxJobs->setRange(-1, 1024);
    m_maxJobs->setSpecialValueText(tr("Nix's default"));
    m_maxJobs->setValue(settings.maxJobs);
    m_maxJobs->setToolTip(tr("Builds this machine runs itself; 0 sends every build to the "
                             "remote builders"));
    m_store = new QLineEdit(settings.store, this);
    m_store->setPlaceholderText(tr("the default store"));
    m_nixOptions = new QPlainTextEdit(settings.nixOptions.join(QLatin1Char('\n')), this);
    m_nixOptions->setObjectName(QStringLiteral("nixOptions"));
    m_nixOptions->setPlaceholderText(QStringLiteral("cores=16\nkeep-going=true"));
    m_nixOptions->setToolTip(tr("One key=value per line, passed as --option key value"));
    m_nixOptions->setTabChangesFocus(true);
    m_nixOptions->setFixedHeight(m_nixOptions->fontMetrics().lineSpacing() * 4);

    m_publishOrg = new QLineEdit(settings.publishOrg, this);
    m_publishOrg->setPlaceholderText(tr("organisation for flox publish -o"));
    m_verify = new QCheckBox(tr("Check torch, CUDA and Python versions of each result"), this);
    m_verify->setChecked(settings.verify);

    auto* form = new QFormLayout;
    form->addRow(tr("&Backend:"), m_backend);
    form->addRow(tr("C&ustom command:"), m_customCommand);
    form->addRow(tr("&Concurrent builds:"), m_concurrency);
    form->addRow(tr("&Local jobs:"), m_maxJobs);
    form->addRow(tr("&Store:"), m_store);
    form->addRow(tr("Nix &options:"), m_nixOptions);
    form->addRow(tr("&Publish to:"), m_publishOrg);
    form->addRow(QString(), m_verify);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_backend, &QComboBox::currentIndexChanged, this, &BuildSettingsDialog::updateEnabled);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(createBuildersBox());
    layout->addWidget(createSourcesBox());
    layout->addWidget(buttons);
    updateEnabled();
}

BuildSettings BuildSettingsDialog::settings() const
{
    BuildSettings result = m_initial;
    result.backend = backends[m_backend->currentIndex()];
    result.customCommand = m_customCommand->text().trimmed();
    result.concurrency = m_concurrency->value();
    result.builders = m_builders->toPlainText().trimmed();
    result.maxJobs = m_maxJobs->value();
    result.store = m_store->text().trimmed();
    result.nixOptions.clear();
    for (const QString& line : m_nixOptions->toPlainText().split(QLatin1Char('\n')))
        if (!line.trimmed().isEmpty())
            result.nixOptions << line.trimmed();
    result.publishOrg = m_publishOrg->text().trimmed();
    result.verify = m_verify->isChecked();
    result.nixpkgsSources = BuildSettings::nixpkgsSourcesFrom(m_sources->toPlainText(), nullptr);
    result.defaultNixpkgs = m_defaultNixpkgs->text().trimmed();
    return result;
}

// Remote builders: a table with a field of Nix's machine format per column, and the same value
// as text (what Nix reads, and where "@FILE" and comments are written); each follows the other.
QWidget* BuildSettingsDialog::createBuildersBox()
{
    auto* box = new QGroupBox(tr("Remote builders"), this);
    m_builderTable = new BuilderTableModel(this);
    m_builderTable->setText(m_initial.builders);
    m_builderView = new QTableView(box);
    m_builderView->setObjectName(QStringLiteral("builderTable"));
    auto* styled = new BuilderStyleProxy(m_builderView);
    styled->setSourceModel(m_builderTable);
    m_builderView->setModel(styled);
    m_builderView->verticalHeader()->hide();
    m_builderView->setWordWrap(false);
    // Fields are short but for the URI, which takes the room left.
    m_builderView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_builderView->horizontalHeader()->setSectionResizeMode(BuilderTableModel::UriColumn,
                                                            QHeaderView::Stretch);
    m_builderView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_builderView->setAccessibleName(tr("Remote builders"));
    m_builderView->setMinimumHeight(m_builderView->verticalHeader()->defaultSectionSize() * 5);

    m_builders = new QPlainTextEdit(m_initial.builders, box);
    m_builders->setObjectName(QStringLiteral("builders"));
    m_builders->setPlaceholderText(
        QStringLiteral("ssh://builder x86_64-linux /root/.ssh/id_builder 8 1 big-parallel\n"
                       "@/etc/nix/machines"));
    m_builders->setToolTip(tr("One machine per line in Nix's machine format: URI, systems, SSH "
                              "key, max jobs, speed factor, supported features, mandatory "
                              "features, public host key (\"-\" for a default); @FILE for the "
                              "machines a file lists"));
    m_builders->setAccessibleName(tr("Remote builders as text"));
    m_builders->setTabChangesFocus(true);
    m_builders->setFixedHeight(m_builders->fontMetrics().lineSpacing() * 4);

    auto* add = new QPushButton(tr("&Add Builder"), box);
    auto* remove = new QPushButton(tr("&Remove"), box);
    m_testBuilders = new QPushButton(tr("&Test Connections"), box);
    m_testBuilders->setToolTip(tr("Ask Nix to reach each builder (nix store ping)"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addStretch();
    buttons->addWidget(m_testBuilders);

    m_buildersProblem = new QLabel(box);
    m_buildersProblem->setWordWrap(true);
    m_buildersProblem->setStyleSheet(QStringLiteral("color: #c0392b"));
    m_buildersProblem->hide();
    m_featureWarning = new QLabel(box);
    m_featureWarning->setObjectName(QStringLiteral("builderFeatureWarning"));
    m_featureWarning->setWordWrap(true);
    m_featureWarning->setStyleSheet(QStringLiteral("color: #9a6700"));
    m_featureWarning->hide();
    m_builderHealth = new QLabel(box);
    m_builderHealth->setWordWrap(true);
    m_builderHealth->setTextFormat(Qt::RichText);
    m_builderHealth->hide();

    auto* layout = new QVBoxLayout(box);
    layout->addWidget(m_builderView);
    layout->addLayout(buttons);
    layout->addWidget(new QLabel(tr("As Nix reads them:"), box));
    layout->addWidget(m_builders);
    layout->addWidget(m_buildersProblem);
    layout->addWidget(m_featureWarning);
    layout->addWidget(m_builderHealth);

    connectBuildersBox(add, remove);
    return box;
}

void BuildSettingsDialog::connectBuildersBox(QPushButton* add, QPushButton* remove)
{
    connect(m_builders, &QPlainTextEdit::textChanged, this, [this] { syncBuilders(true); });
    const auto fromTable = [this] { syncBuilders(false); };
    connect(m_builderTable, &QAbstractItemModel::dataChanged, this, fromTable);
    connect(m_builderTable, &QAbstractItemModel::rowsInserted, this, fromTable);
    connect(m_builderTable, &QAbstractItemModel::rowsRemoved, this, fromTable);
    // Once the table has sized its columns to what they now hold.
    const auto widen = [this] { QTimer::singleShot(0, this, &BuildSettingsDialog::widenToTable); };
    connect(m_builderTable, &QAbstractItemModel::dataChanged, this, widen);
    connect(m_builderTable, &QAbstractItemModel::rowsInserted, this, widen);
    connect(m_builderTable, &QAbstractItemModel::modelReset, this, widen);
    connect(m_builderTable, &BuilderTableModel::editRejected, this, [this](const QString& why) {
        m_buildersProblem->setText(why);
        m_buildersProblem->show();
    });
    connect(add, &QPushButton::clicked, this, [this] {
        const QModelIndex uri = m_builderView->model()->index(m_builderTable->addMachine(), 0);
        m_builderView->setCurrentIndex(uri);
        m_builderView->edit(uri);
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        QList<int> rows; // the proxy's rows are the model's
        for (const QModelIndex& row : m_builderView->selectionModel()->selectedRows())
            rows << row.row();
        std::sort(rows.rbegin(), rows.rend()); // the last first: the others keep their rows
        for (int row : rows)
            m_builderTable->removeRow(row);
    });
    connect(m_maxJobs, &QSpinBox::valueChanged, this, &BuildSettingsDialog::updateFeatureWarning);
    connect(m_testBuilders, &QPushButton::clicked, this, [this] {
        QStringList errors;
        BuilderMachine::parse(m_builders->toPlainText(), &errors);
        m_buildersProblem->setText(errors.join(QLatin1Char('\n')));
        m_buildersProblem->setVisible(!errors.isEmpty());
        m_testBuilders->setEnabled(false);
        m_builderHealth->setText(tr("Asking each builder\u2026"));
        m_builderHealth->show();
        emit builderCheckRequested(m_builders->toPlainText());
    });
}

// The table and the text are two views of the builders: an edit in one is shown in the other.
void BuildSettingsDialog::syncBuilders(bool fromText)
{
    if (std::exchange(m_syncing, true))
        return;
    if (fromText)
        m_builderTable->setText(m_builders->toPlainText());
    else
        m_builders->setPlainText(m_builderTable->text());
    m_buildersProblem->hide();
    m_syncing = false;
    updateFeatureWarning();
}

void BuildSettingsDialog::setRequirements(const QString& who, const QString& system,
                                          const QStringList& features)
{
    m_requiredBy = who;
    m_requiredSystem = system;
    m_requiredFeatures = features;
    updateFeatureWarning();
}

// Nix sends a derivation only to a machine that offers every feature it requires; with none,
// the build stays on this machine, or goes nowhere when this machine builds nothing.
void BuildSettingsDialog::updateFeatureWarning()
{
    const QList<BuilderMachine> machines = BuilderMachine::parse(m_builders->toPlainText());
    QStringList unoffered;
    for (const QString& feature : m_requiredFeatures) {
        const bool offered = std::any_of(machines.cbegin(), machines.cend(), [&](const auto& m) {
            const bool system = m.systems.isEmpty() || m_requiredSystem.isEmpty() ||
                                m.systems.contains(m_requiredSystem);
            return system &&
                   (m.supportedFeatures.contains(feature) || m.mandatoryFeatures.contains(feature));
        });
        if (!offered)
            unoffered << feature;
    }
    const bool show = !machines.isEmpty() && !unoffered.isEmpty();
    if (show)
        m_featureWarning->setText(
            tr("Needed by %1: %2 on %3, which no builder offers; %4")
                .arg(m_requiredBy, unoffered.join(QStringLiteral(", ")), m_requiredSystem,
                     m_maxJobs->value() == 0 ? tr("with local jobs 0 they cannot be built")
                                             : tr("they build only on this machine")));
    m_featureWarning->setVisible(show);
}

void BuildSettingsDialog::showBuilderHealth(const QList<BuilderHealth>& health)
{
    QStringList lines;
    bool allAnswered = true;
    for (const BuilderHealth& h : health) {
        allAnswered = allAnswered && h.answered;
        if (!h.answered)
            lines << tr("\u2026 %1: asking").arg(h.label.toHtmlEscaped());
        else if (h.up)
            lines << tr("<span style=\"color:#2e7d32\">\u2713</span> %1: up, %2 ms")
                         .arg(h.label.toHtmlEscaped())
                         .arg(h.elapsedMs);
        else
            lines << tr("<span style=\"color:#c0392b\">\u2717</span> %1: %2")
                         .arg(h.label.toHtmlEscaped(), h.message.toHtmlEscaped());
    }
    m_builderHealth->setText(lines.isEmpty() ? tr("No builder to ask.")
                                             : lines.join(QStringLiteral("<br>")));
    m_builderHealth->show();
    m_testBuilders->setEnabled(allAnswered);
    m_builderTable->setHealth(health);
    growToFit();
}

void BuildSettingsDialog::setBuilderHealth(const QList<BuilderHealth>& health)
{
    m_builderTable->setHealth(health);
}

// A shown dialog keeps its size when a label grows; the answers would be cut off.
void BuildSettingsDialog::growToFit()
{
    layout()->activate();
    const int extra =
        m_builderHealth->heightForWidth(m_builderHealth->width()) - m_builderHealth->height();
    if (extra > 0)
        resize(width(), height() + extra);
}

// The builders table shows every field without scrolling sideways where the screen has the
// room: a URI squeezed to "s…" names no builder. Only ever wider, so a width the user chose
// stays.
void BuildSettingsDialog::widenToTable()
{
    const QHeaderView* header = m_builderView->horizontalHeader();
    const QAbstractItemView* view = m_builderView; // sizeHintForColumn() is public here
    // The URI stretches into what is left, so its section says nothing of what it holds.
    int wanted =
        2 * m_builderView->frameWidth() + m_builderView->verticalScrollBar()->sizeHint().width();
    for (int column = 0; column < header->count(); ++column)
        wanted += column == BuilderTableModel::UriColumn
                      ? std::max(view->sizeHintForColumn(column), header->sectionSizeHint(column))
                      : header->sectionSize(column);
    const int extra = wanted - m_builderView->width();
    const QScreen* on = screen();
    const int room = on ? on->availableGeometry().width() * 9 / 10 : width() + extra;
    if (extra > 0 && width() < room)
        resize(std::min(width() + extra, room), height());
}

void BuildSettingsDialog::showEvent(QShowEvent* event)
{
    QDialog::showEvent(event);
    QTimer::singleShot(0, this, &BuildSettingsDialog::widenToTable);
}

QWidget* BuildSettingsDialog::createSourcesBox()
{
    auto* box = new QGroupBox(tr("Local nixpkgs sources (Evaluate)"), this);
    m_sources = new QPlainTextEdit(m_initial.nixpkgsSourcesText(), box);
    m_sources->setPlaceholderText(
        QStringLiteral("6a030d535719c5190187c4cec156f335e95e3211=/srv/nixpkgs"));
    m_sources->setToolTip(tr("One pinned revision=local nixpkgs directory or tarball per line; "
                             "Nix evaluates that pin from it instead of fetching it"));
    m_sources->setTabChangesFocus(true);
    m_sources->setAccessibleName(tr("Local nixpkgs sources"));
    m_defaultNixpkgs = new QLineEdit(m_initial.defaultNixpkgs, box);
    m_defaultNixpkgs->setPlaceholderText(tr("none"));
    m_defaultNixpkgs->setToolTip(
        tr("The nixpkgs for recipes that are functions of a package set, and for <nixpkgs>"));
    m_sourcesProblem = new QLabel(box);
    m_sourcesProblem->setWordWrap(true);
    m_sourcesProblem->setStyleSheet(QStringLiteral("color: #c0392b"));
    m_sourcesProblem->hide();
    auto* form = new QFormLayout(box);
    form->addRow(tr("&Revisions:"), m_sources);
    form->addRow(tr("&Default nixpkgs:"), m_defaultNixpkgs);
    form->addRow(QString(), m_sourcesProblem);
    return box;
}

void BuildSettingsDialog::accept()
{
    // Nix would only say that no machine can take a build; the malformed builder is named here.
    QStringList builderErrors;
    BuilderMachine::parse(m_builders->toPlainText(), &builderErrors);
    m_buildersProblem->setText(builderErrors.join(QLatin1Char('\n')));
    m_buildersProblem->setVisible(!builderErrors.isEmpty());
    if (!builderErrors.isEmpty()) {
        m_builders->setFocus();
        return;
    }
    QStringList bad;
    BuildSettings::nixpkgsSourcesFrom(m_sources->toPlainText(), &bad);
    if (!bad.isEmpty()) {
        m_sourcesProblem->setText(tr("Not REV=PATH with a 40-hex-digit revision: %1")
                                      .arg(bad.join(QStringLiteral(", "))));
        m_sourcesProblem->show();
        m_sources->setFocus();
        return;
    }
    QDialog::accept();
}

void BuildSettingsDialog::updateEnabled()
{
    m_customCommand->setEnabled(backends[m_backend->currentIndex()] == BackendKind::Custom);
}

} // namespace rg
