#include "pinbumpdialog.h"

#include "analysis/cellselector.h"
#include "matrix/versionspelling.h"
#include "pincontentspane.h"
#include "sessions/qtext.h"
#include "statusstyle.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>
#include <algorithm>
#include <set>

namespace rg {

namespace {

bool inSelection(const std::vector<std::string>& cells, const PinUse& use)
{
    return std::any_of(cells.begin(), cells.end(), [&](const std::string& cell) {
        const CellSelector selector(cell);
        return selector.namesRecipe(use.path, {}) || selector.namesCellKey(use.cellKey);
    });
}

void setTone(QLabel* label, const QColor& color)
{
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, color);
    label->setPalette(palette);
}

} // namespace

PinBumpDialog::PinBumpDialog(PinInventory inventory, QWidget* parent)
    : QDialog(parent), m_inventory(std::move(inventory))
{
    setWindowTitle(tr("Bump nixpkgs Pin"));
    m_known = m_inventory.revisions();
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(createPins());
    m_contents = new PinContentsPane(this);
    layout->addWidget(m_contents);
    layout->addWidget(createScope());
    layout->addWidget(createOptions());
    layout->addWidget(createHashes());
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("bumpError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->hide();
    layout->addWidget(m_error);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    okButton()->setText(tr("Plan Bump\u2026"));
    okButton()->setToolTip(tr("Plan the change set and review it before anything is written"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &PinBumpDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &PinBumpDialog::reject);
    layout->addWidget(m_buttons);
    fillCombos();
    setHashMode(HashMode::Prefetch);
    update();
    m_to->setFocus();
}

QWidget* PinBumpDialog::createPins()
{
    auto* box = new QWidget(this);
    auto* form = new QFormLayout(box);
    form->setContentsMargins(0, 0, 0, 0);
    m_from = new QComboBox(box);
    m_from->setAccessibleName(tr("From pin"));
    form->addRow(tr("&From pin:"), m_from);
    m_to = new QLineEdit(box);
    m_to->setAccessibleName(tr("To pin"));
    m_to->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_to->setPlaceholderText(tr("40 hex digits, or 7 or more of a known pin"));
    m_to->setClearButtonEnabled(true);
    m_to->setMinimumWidth(m_to->fontMetrics().horizontalAdvance(QString(44, QLatin1Char('0'))));
    form->addRow(tr("&To pin:"), m_to);
    m_toStatus = new QLabel(box);
    m_toStatus->setObjectName(QStringLiteral("toPinStatus"));
    m_toStatus->setWordWrap(true);
    m_toStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(QString(), m_toStatus);
    m_inputs << m_from << m_to;
    connect(m_from, &QComboBox::currentIndexChanged, this, [this] {
        m_error->hide();
        update();
    });
    connect(m_to, &QLineEdit::textChanged, this, [this] {
        m_error->hide();
        update();
    });
    return box;
}

QWidget* PinBumpDialog::createScope()
{
    auto* box = new QGroupBox(tr("Recipes"), this);
    auto* grid = new QGridLayout(box);
    m_scopes = new QButtonGroup(box);
    const auto add = [&](Scope scope, const QString& text, int row) {
        auto* button = new QRadioButton(text, box);
        m_scopes->addButton(button, static_cast<int>(scope));
        grid->addWidget(button, row, 0);
        m_inputs << button;
        return button;
    };
    add(Scope::All, tr("&All recipes on the pin"), 0)->setChecked(true);
    add(Scope::Selection, tr("The &selection"), 1);
    add(Scope::Package, tr("One &package:"), 2);
    add(Scope::Accelerator, tr("One a&ccelerator:"), 3);
    m_package = new QComboBox(box);
    m_package->setAccessibleName(tr("Package"));
    grid->addWidget(m_package, 2, 1);
    m_accelerator = new QComboBox(box);
    m_accelerator->setAccessibleName(tr("Accelerator"));
    grid->addWidget(m_accelerator, 3, 1);
    grid->setColumnStretch(2, 1);
    m_scopeText = new QLabel(box);
    m_scopeText->setObjectName(QStringLiteral("scopeSummary"));
    m_scopeText->setWordWrap(true);
    grid->addWidget(m_scopeText, 4, 0, 1, 3);
    m_inputs << m_package << m_accelerator;
    connect(m_scopes, &QButtonGroup::idToggled, this, [this](int, bool on) {
        if (on)
            update();
    });
    connect(m_package, &QComboBox::currentIndexChanged, this, [this] { update(); });
    connect(m_accelerator, &QComboBox::currentIndexChanged, this, [this] { update(); });
    return box;
}

QWidget* PinBumpDialog::createOptions()
{
    auto* box = new QGroupBox(tr("Also"), this);
    auto* layout = new QVBoxLayout(box);
    m_rename = new QCheckBox(tr("&Rename python3Packages to the file's python3XXPackages"), box);
    m_rename->setToolTip(tr("Only where it is the file's only mention: an overlay of "
                            "python3Packages must keep reaching the torch it builds"));
    m_readme = new QCheckBox(tr("Update README.md's &version matrix"), box);
    m_readme->setChecked(true);
    m_docs = new QCheckBox(tr("Update other &Markdown documents quoting the pin"), box);
    m_docs->setChecked(true);
    for (QCheckBox* option : {m_rename, m_readme, m_docs}) {
        layout->addWidget(option);
        m_inputs << option;
    }
    auto* note =
        new QLabel(tr("Each file is its own change in the review: leave any out there."), box);
    setTone(note, palette().color(QPalette::PlaceholderText));
    layout->addWidget(note);
    return box;
}

QWidget* PinBumpDialog::createHashes()
{
    auto* box = new QGroupBox(tr("Hashes"), this);
    auto* layout = new QVBoxLayout(box);
    m_prefetch = new QRadioButton(tr("&Download the new sources and prefetch their hashes "
                                     "(nix-prefetch-url --unpack)"),
                                  box);
    m_mark = new QRadioButton(tr("Mar&k the recipes as needing a new hash (a fake hash: the "
                                 "first build fails naming the right one)"),
                              box);
    m_prefetchNote = new QLabel(box);
    m_prefetchNote->setWordWrap(true);
    setTone(m_prefetchNote, palette().color(QPalette::PlaceholderText));
    layout->addWidget(m_prefetch);
    layout->addWidget(m_mark);
    layout->addWidget(m_prefetchNote);
    m_inputs << m_prefetch << m_mark;
    connect(m_prefetch, &QRadioButton::toggled, this, [this] {
        m_error->hide();
        update();
    });

    m_progressRow = new QWidget(box);
    auto* row = new QHBoxLayout(m_progressRow);
    row->setContentsMargins(0, 0, 0, 0);
    auto* column = new QVBoxLayout;
    m_progress = new QProgressBar(m_progressRow);
    m_progress->setAccessibleName(tr("Prefetch progress"));
    m_progressText = new QLabel(m_progressRow);
    m_progressText->setObjectName(QStringLiteral("prefetchText"));
    m_progressText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    column->addWidget(m_progress);
    column->addWidget(m_progressText);
    row->addLayout(column, 1);
    m_stop = new QPushButton(tr("&Stop"), m_progressRow);
    m_stop->setToolTip(tr("Stop the download; the dialog stays open"));
    row->addWidget(m_stop, 0, Qt::AlignTop);
    // Stop ends the attempt here and now: the dialog takes its inputs back at once, and what
    // the stopped download still delivers afterwards is ignored (prefetchFinished), so a hash
    // that arrives late cannot accept the dialog behind the user's back.
    connect(m_stop, &QPushButton::clicked, this, [this] {
        if (!m_prefetching)
            return;
        emit prefetchCancelRequested();
        setPrefetching(false);
        m_error->setText(tr("The download was stopped; nothing was changed."));
        setTone(m_error, palette().color(QPalette::WindowText));
        m_error->show();
    });
    m_progressRow->hide();
    layout->addWidget(m_progressRow);
    return box;
}

void PinBumpDialog::fillCombos()
{
    for (const PinLegendEntry& entry : m_inventory.legend()) {
        QString text = qs(shortRevision(entry.revision)) + QStringLiteral(" \u2014 ") +
                       counted(entry.count, tr("1 recipe"), tr("%1 recipes"));
        m_from->addItem(text, qs(entry.revision));
        m_from->setItemData(m_from->count() - 1, qs(entry.revision), Qt::ToolTipRole);
    }
    std::set<std::string> packages;
    std::vector<std::pair<std::string, std::string>> accelerators;
    for (const PinGroup& group : m_inventory.groups()) {
        packages.insert(group.package);
        const std::pair<std::string, std::string> accelerator{group.acceleratorId,
                                                              group.accelerator};
        if (!group.acceleratorId.empty() &&
            std::find(accelerators.begin(), accelerators.end(), accelerator) == accelerators.end())
            accelerators.push_back(accelerator);
    }
    for (const std::string& package : packages)
        m_package->addItem(qs(package), qs(package));
    for (const auto& [id, label] : accelerators)
        m_accelerator->addItem(qs(label), qs(id));
}

void PinBumpDialog::setKnownPins(std::vector<std::string> pins)
{
    m_known = m_inventory.revisions();
    for (std::string& pin : pins)
        if (std::find(m_known.begin(), m_known.end(), pin) == m_known.end())
            m_known.push_back(std::move(pin));
    update();
}

void PinBumpDialog::setSelection(std::vector<std::string> cells)
{
    m_selection = std::move(cells);
    update();
}

void PinBumpDialog::setFromPin(const std::string& revision)
{
    const int index = m_from->findData(qs(revision));
    if (index >= 0)
        m_from->setCurrentIndex(index);
}

void PinBumpDialog::setToPin(const QString& text)
{
    m_to->setText(text);
}

void PinBumpDialog::setScope(Scope scope)
{
    if (QAbstractButton* button = m_scopes->button(static_cast<int>(scope)))
        button->setChecked(true);
}

void PinBumpDialog::setAccelerator(const std::string& acceleratorId)
{
    const int index = m_accelerator->findData(qs(acceleratorId));
    if (index >= 0)
        m_accelerator->setCurrentIndex(index);
}

void PinBumpDialog::setHashMode(HashMode mode)
{
    (mode == HashMode::Prefetch && m_prefetch->isEnabled() ? m_prefetch : m_mark)->setChecked(true);
}

PinBumpDialog::HashMode PinBumpDialog::hashMode() const
{
    return m_prefetch->isChecked() ? HashMode::Prefetch : HashMode::MarkNeedsHash;
}

void PinBumpDialog::setPrefetchAvailable(bool available, const QString& why)
{
    m_prefetchAvailable = available;
    m_prefetch->setEnabled(available && !m_prefetching);
    m_prefetch->setToolTip(why);
    if (!available)
        m_mark->setChecked(true);
    m_prefetchNote->setProperty("unavailable", available ? QString() : why);
    update();
}

QRadioButton* PinBumpDialog::scopeButton(Scope scope) const
{
    return qobject_cast<QRadioButton*>(m_scopes->button(static_cast<int>(scope)));
}

QPushButton* PinBumpDialog::okButton() const
{
    return m_buttons->button(QDialogButtonBox::Ok);
}

std::string PinBumpDialog::resolvedTo(std::string* error) const
{
    return PinBumpPlanner::resolvePin(m_to->text().trimmed().toStdString(), m_known, error)
        .value_or(std::string());
}

PinBumpRequest PinBumpDialog::request() const
{
    PinBumpRequest request;
    request.from = m_from->currentData().toString().toStdString();
    std::string error;
    request.to = resolvedTo(&error);
    if (request.to.empty())
        request.to = m_to->text().trimmed().toLower().toStdString();
    switch (static_cast<Scope>(m_scopes->checkedId())) {
    case Scope::All:
        break;
    case Scope::Selection:
        request.scope.cells = m_selection;
        break;
    case Scope::Package:
        request.scope.package = m_package->currentData().toString().toStdString();
        break;
    case Scope::Accelerator:
        request.scope.accelerator = m_accelerator->currentData().toString().toStdString();
        break;
    }
    request.renamePythonSet = m_rename->isChecked();
    request.readme = m_readme->isChecked();
    request.docs = m_docs->isChecked();
    request.newHashes = m_hashes;
    return request;
}

std::vector<const PinUse*> PinBumpDialog::usesInScope() const
{
    std::vector<const PinUse*> uses;
    const PinBumpRequest asked = request();
    const PinBumpScope& scope = asked.scope;
    for (const PinGroup& group : m_inventory.groups()) {
        if ((!scope.package.empty() && group.package != scope.package) ||
            (!scope.accelerator.empty() && group.acceleratorId != scope.accelerator))
            continue;
        for (const PinEntry& pin : group.pins) {
            if (pin.revision != asked.from)
                continue;
            for (const PinUse& use : pin.recipes)
                if (scope.cells.empty() || inSelection(scope.cells, use))
                    uses.push_back(&use);
        }
    }
    return uses;
}

QString PinBumpDialog::validationText() const
{
    if (m_from->count() == 0)
        return tr("No recipe of this repository pins nixpkgs: there is nothing to bump.");
    std::string error;
    const std::string to = resolvedTo(&error);
    if (to.empty())
        return qs(error);
    const std::string from = m_from->currentData().toString().toStdString();
    if (to == from)
        return tr("The recipes already are on %1.").arg(qs(shortRevision(to)));
    if (static_cast<Scope>(m_scopes->checkedId()) == Scope::Selection && m_selection.empty())
        return tr("Nothing is selected in the grid.");
    if (usesInScope().empty())
        return tr("No recipe in this scope uses %1: nothing would change.")
            .arg(qs(shortRevision(from)));
    return {};
}

bool PinBumpDialog::isValid() const
{
    return validationText().isEmpty();
}

QString PinBumpDialog::scopeSummary() const
{
    const std::vector<const PinUse*> uses = usesInScope();
    const auto hashed =
        std::count_if(uses.begin(), uses.end(), [](const PinUse* u) { return u->hasHash; });
    const QString from = shortRevision(m_from->currentData().toString());
    QString text = counted(static_cast<int>(uses.size()), tr("1 recipe on %2 will change"),
                           tr("%1 recipes on %2 will change"))
                       .arg(from);
    const int all = static_cast<int>(uses.size());
    if (hashed == all && all > 0)
        text += QStringLiteral(" \u00b7 ") +
                (all == 1 ? tr("its fetcher pins a hash, which must change too")
                          : tr("all pin a hash, which must change too"));
    else if (hashed > 0)
        text +=
            QStringLiteral(" \u00b7 ") +
            counted(static_cast<int>(hashed), tr("1 of them pins a hash, which must change too"),
                    tr("%1 of them pin a hash, which must change too"));
    return text;
}

void PinBumpDialog::update()
{
    std::string error;
    const std::string to = resolvedTo(&error);
    m_contents->setPins(m_from->currentData().toString().toStdString(), to);
    const QPalette& pal = palette();
    if (m_to->text().trimmed().isEmpty()) {
        m_toStatus->setText(tr("Type the new revision; a prefix of a known pin is completed."));
        setTone(m_toStatus, pal.color(QPalette::PlaceholderText));
    } else if (to.empty()) {
        m_toStatus->setText(QStringLiteral("\u2717 ") + qs(error));
        setTone(m_toStatus, StatusStyle::color(CellStatus::Broken, pal));
    } else if (m_to->text().trimmed().toLower().toStdString() == to) {
        m_toStatus->setText(tr("\u2713 a full revision"));
        setTone(m_toStatus, StatusStyle::color(CellStatus::Ok, pal));
    } else {
        m_toStatus->setText(tr("\u2713 %1 is %2").arg(m_to->text().trimmed(), qs(to)));
        setTone(m_toStatus, StatusStyle::color(CellStatus::Ok, pal));
    }
    const int selected = static_cast<int>(m_selection.size());
    scopeButton(Scope::Selection)
        ->setText(selected == 0 ? tr("The &selection (none)")
                                : counted(selected, tr("The &selection (1 cell)"),
                                          tr("The &selection (%1 cells)")));
    scopeButton(Scope::Selection)->setEnabled(selected > 0 && !m_prefetching);
    m_package->setEnabled(scopeButton(Scope::Package)->isChecked() && !m_prefetching);
    m_accelerator->setEnabled(scopeButton(Scope::Accelerator)->isChecked() && !m_prefetching);
    const QString invalid = validationText();
    m_scopeText->setText(m_from->count() == 0 ? invalid : scopeSummary());

    const std::vector<const PinUse*> uses = usesInScope();
    const bool hashes =
        std::any_of(uses.begin(), uses.end(), [](const PinUse* u) { return u->hasHash; });
    const QString unavailable = m_prefetchNote->property("unavailable").toString();
    m_prefetchNote->setText(!unavailable.isEmpty() ? unavailable
                            : hashes               ? QString()
                                     : tr("No recipe in scope pins a hash: nothing to download."));
    m_prefetchNote->setVisible(!m_prefetchNote->text().isEmpty());
    okButton()->setEnabled(invalid.isEmpty() && !m_prefetching);
    okButton()->setToolTip(invalid.isEmpty()
                               ? tr("Plan the change set and review it before anything is written")
                               : invalid);
}

void PinBumpDialog::accept()
{
    if (m_prefetching || !isValid())
        return;
    const std::vector<const PinUse*> uses = usesInScope();
    const bool hashes =
        std::any_of(uses.begin(), uses.end(), [](const PinUse* u) { return u->hasHash; });
    if (hashMode() == HashMode::Prefetch && hashes) {
        m_error->hide();
        setPrefetching(true);
        m_progress->setRange(0, 0);
        m_progressText->setText(tr("Finding what to download\u2026"));
        emit prefetchRequested(request());
        return;
    }
    QDialog::accept();
}

void PinBumpDialog::reject()
{
    if (m_prefetching)
        emit prefetchCancelRequested();
    setPrefetching(false);
    QDialog::reject();
}

void PinBumpDialog::prefetchStarted(int index, int total, const QString& url)
{
    m_progress->setRange(0, total);
    m_progress->setValue(index);
    m_progressText->setText(tr("Downloading %1 of %2: %3").arg(index + 1).arg(total).arg(url));
    m_progressText->setToolTip(url);
}

void PinBumpDialog::prefetchOutput(const QString& line)
{
    const QString trimmed = line.trimmed();
    if (!trimmed.isEmpty())
        m_progressText->setText(
            m_progressText->fontMetrics().elidedText(trimmed, Qt::ElideMiddle, 520));
}

void PinBumpDialog::prefetchFinished(const std::map<std::string, std::string>& hashes,
                                     const QStringList& errors)
{
    if (!m_prefetching)
        return; // stopped or cancelled meanwhile: the late result is not this dialog's any more
    for (const auto& [key, hash] : hashes)
        m_hashes[key] = hash;
    setPrefetching(false);
    if (errors.isEmpty()) {
        QDialog::accept();
        return;
    }
    QStringList escaped;
    for (const QString& error : errors)
        escaped << error.toHtmlEscaped();
    m_error->setText(tr("<b>Could not prefetch the new hash.</b><br>%1<br>Without the network, "
                        "choose \u201cmark the recipes as needing a new hash\u201d, or try again.")
                         .arg(escaped.join(QStringLiteral("<br>"))));
    setTone(m_error, StatusStyle::color(CellStatus::Broken, palette()));
    m_error->show();
}

void PinBumpDialog::setPrefetching(bool prefetching)
{
    m_prefetching = prefetching;
    for (QWidget* input : std::as_const(m_inputs))
        input->setEnabled(!prefetching);
    m_prefetch->setEnabled(!prefetching && m_prefetchAvailable);
    m_contents->setInputsEnabled(!prefetching);
    m_progressRow->setVisible(prefetching);
    update();
}

} // namespace rg
