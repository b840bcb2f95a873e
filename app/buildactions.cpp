#include "buildactions.h"

#include "actioncontext.h"
#include "analysis/evaluationsummary.h"
#include "buildjobsview.h"
#include "builds/buildercheck.h"
#include "builds/buildhistory.h"
#include "builds/buildqueue.h"
#include "builds/buildrecord.h"
#include "buildsettingsdialog.h"
#include "itemmodels/buildjobsmodel.h"
#include "itemmodels/matrixmodel.h"
#include "logpane.h"
#include "sessions/buildsession.h"
#include "sessions/qtext.h"
#include "sessions/repositorysession.h"

#include <QAction>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>

namespace rg {

BuildActions::BuildActions(ActionContext& context, QObject* parent)
    : QObject(parent), m_context(context), m_builds(new BuildSession({}, this)),
      m_jobsModel(new BuildJobsModel(m_builds->queue(), m_builds->history(), this))
{
    QSettings settings;
    m_builds->setSettings(BuildSettings::load(settings));
    createActions();
    createViews();
    connectBuilds();
    updateActions();
    if (const QString error = m_builds->historyError(); !error.isEmpty())
        m_context.showStatus(error, 10000);
    updateBuildStatus();
}

BuildActions::~BuildActions()
{
    // The jobs model reads the session's queue and history: it goes first.
    delete m_jobsModel;
}

void BuildActions::createActions()
{
    m_buildAction = new QAction(tr("&Build"), this);
    m_buildAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    m_buildAction->setToolTip(
        tr("Build the selected variants (flox build / nix build) with live logs"));
    connect(m_buildAction, &QAction::triggered, this, &BuildActions::buildSelection);

    m_buildNeededAction = new QAction(tr("Build What &Needs It"), this);
    m_buildNeededAction->setObjectName(QStringLiteral("buildNeededAction"));
    m_buildNeededAction->setToolTip(
        tr("Build the variants whose output Nix found neither built nor in a binary cache "
           "when the branch was last evaluated"));
    connect(m_buildNeededAction, &QAction::triggered, this, &BuildActions::buildWhatNeedsIt);

    m_publishAction = new QAction(tr("&Publish"), this);
    m_publishAction->setToolTip(
        tr("flox publish the selected variants whose last build succeeded"));
    connect(m_publishAction, &QAction::triggered, this, &BuildActions::publishSelection);

    m_settingsAction = new QAction(tr("Build &Settings\u2026"), this);
    connect(m_settingsAction, &QAction::triggered, this, [this] {
        BuildSettingsDialog dialog(m_builds->settings(), m_context.mainWidget());
        dialog.setBuilderHealth(m_builds->queue()->builderHealth());
        describeRequirements(dialog);
        // Test Connections: the check's processes end with the dialog.
        BuilderCheck check;
        connect(
            &dialog, &BuildSettingsDialog::builderCheckRequested, &check,
            [&check](const QString& builders) { check.start(BuilderMachine::parse(builders)); });
        // Each answer as it comes: a builder that hangs keeps only its own line waiting. The
        // last answer (and a list with no builder to ask) is shown once, at finished().
        connect(&check, &BuilderCheck::builderAnswered, &dialog, [&] {
            if (check.isRunning())
                dialog.showBuilderHealth(check.results());
        });
        connect(&check, &BuilderCheck::finished, &dialog,
                [&] { dialog.showBuilderHealth(check.results()); });
        if (dialog.exec() == QDialog::Accepted)
            applyBuildSettings(dialog.settings());
    });
}

// What Nix's evaluation says the selected recipes need of a build machine, for the dialog to
// hold against the builders.
void BuildActions::describeRequirements(BuildSettingsDialog& dialog) const
{
    QString system;
    QStringList features;
    int evaluated = 0;
    for (const Cell* cell : m_context.selectedEntries()) {
        if (!cell->evaluation || !cell->evaluation->evaluated)
            continue;
        ++evaluated;
        system = QString::fromStdString(cell->evaluation->system);
        for (const std::string& feature : cell->evaluation->requiredSystemFeatures)
            if (!features.contains(QString::fromStdString(feature)))
                features << QString::fromStdString(feature);
    }
    if (evaluated > 0)
        dialog.setRequirements(tr("the %n selected recipe(s)", "", evaluated), system, features);
}

void BuildActions::createViews()
{
    m_jobs = new BuildJobsView(m_context.mainWidget());
    m_jobs->setModel(m_jobsModel);
    m_logTabs = new QTabWidget(m_context.mainWidget());
    m_logTabs->setTabsClosable(true); // closing a pane leaves its build running
    m_logTabs->setDocumentMode(true);
    m_logTabs->setAccessibleName(tr("Build logs"));
    connect(m_logTabs, &QTabWidget::tabCloseRequested, this, [this](int index) {
        QWidget* pane = m_logTabs->widget(index);
        m_logTabs->removeTab(index);
        pane->deleteLater();
    });
    m_status = new QLabel(m_context.mainWidget());
    m_status->setAccessibleName(tr("Builds"));
}

void BuildActions::connectBuilds()
{
    connect(m_builds, &BuildSession::variantStateChanged, this, &BuildActions::updateBuildStatus);
    BuildQueue* queue = m_builds->queue();
    connect(queue, &BuildQueue::jobStarted, this, [this](quint64 id) { showLog(id); });
    connect(queue, &BuildQueue::jobFinished, this, [this](quint64 id) {
        const BuildRecord* record = m_builds->queue()->job(id);
        if (record)
            m_context.showStatus(tr("%1: %2").arg(record->variant, jobStateName(record->state)),
                                 8000);
        updateBuildStatus();
    });
    connect(queue, &BuildQueue::jobQueued, this, &BuildActions::updateBuildStatus);
    connect(queue, &BuildQueue::buildersChecked, this, [this] {
        QStringList down;
        for (const BuilderHealth& h : m_builds->queue()->builderHealth())
            if (!h.up)
                down << tr("%1 (%2)").arg(h.label, h.message);
        if (!down.isEmpty())
            m_context.showStatus(
                tr("Builders down, nothing goes to them: %1").arg(down.join(QStringLiteral("; "))),
                15000);
    });
    connect(m_jobs, &BuildJobsView::logRequested, this, [this](quint64 id) { showLog(id); });
    connect(m_jobs, &BuildJobsView::cancelRequested, m_builds, &BuildSession::cancel);
    connect(m_jobs, &BuildJobsView::rebuildRequested, this, &BuildActions::rebuild);
    connect(m_jobs, &BuildJobsView::publishRequested, this, &BuildActions::publish);
}

void BuildActions::rebuild(const QString& variant)
{
    QStringList errors;
    m_builds->build(m_context.session()->rootPath(), {variant}, &errors);
    if (!errors.isEmpty())
        m_context.showError(errors.join(QLatin1Char('\n')));
}

void BuildActions::publish(const QString& variant)
{
    QString error;
    if (m_builds->publish(m_context.session()->rootPath(), variant, &error) == 0)
        m_context.showError(error);
}

void BuildActions::addToCellMenu(QMenu* menu, const QModelIndex& cell)
{
    const bool hasFile = !cell.data(MatrixModel::PathsRole).toStringList().isEmpty();
    m_buildAction->setEnabled(hasFile && !m_context.session()->isReadOnly());
    menu->addAction(m_buildAction);
    m_publishAction->setEnabled(!publishableVariants().isEmpty());
    menu->addAction(m_publishAction);
}

// Build acts on the selection's recipe files; Build What Needs It and Publish on a writable
// repository (Publish then says when no selected build succeeded, which the history knows).
void BuildActions::updateActions()
{
    RepositorySession* session = m_context.session();
    const bool writable = session->isOpen() && !session->isReadOnly() && session->analysis();
    const std::vector<const Cell*> entries = m_context.selectedEntries();
    const bool hasFile =
        std::any_of(entries.begin(), entries.end(), [](const Cell* e) { return e->recipe; });
    m_buildAction->setEnabled(writable && hasFile);
    m_buildNeededAction->setEnabled(writable);
    m_publishAction->setEnabled(writable);
    // Asked once there is something to build, not at start: their answers are in when the
    // user builds (refreshBuilderHealth).
    if (writable)
        m_builds->queue()->refreshBuilderHealth();
}

bool BuildActions::confirmQuit(const std::function<bool(int)>& confirm)
{
    if (!m_builds->hasRunningJobs())
        return true;
    const int active = m_builds->queue()->runningCount() + m_builds->queue()->queuedCount();
    const bool quit =
        confirm
            ? confirm(active)
            : QMessageBox::question(
                  m_context.mainWidget(), tr("Builds are running"),
                  tr("%n build(s) are running or queued. Quit and cancel them?", nullptr, active),
                  QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes;
    if (quit)
        m_builds->cancelAll();
    return quit;
}

void BuildActions::addToMenu(QMenu* menu)
{
    menu->addAction(m_buildAction);
    menu->addAction(m_buildNeededAction);
    menu->addAction(m_publishAction);
}

int BuildActions::buildSelection()
{
    std::vector<const Cell*> cells;
    for (const Cell* entry : m_context.selectedEntries())
        if (entry->recipe)
            cells.push_back(entry);
    if (cells.empty()) {
        m_context.showStatus(tr("Nothing to build: the selection has no recipe files"), 5000);
        return 0;
    }
    return buildAsking(cells, {});
}

int BuildActions::buildWhatNeedsIt()
{
    const auto analysis = m_context.session()->analysis();
    if (!analysis)
        return 0;
    std::vector<const Cell*> cells;
    int unknown = 0;
    for (const Cell& cell : analysis->cells) {
        if (!cell.recipe)
            continue;
        if (!cell.evaluation || cell.evaluation->output.empty() ||
            cell.evaluation->output == "unknown")
            ++unknown;
        else if (cell.evaluation->output == "missing")
            cells.push_back(&cell);
    }
    if (cells.empty()) {
        m_context.showStatus(
            unknown > 0 ? tr("Nothing known to need a build: evaluate first (%n recipe(s) not "
                             "asked about)",
                             nullptr, unknown)
                        : tr("Nothing needs a build: every output is built or in a cache"),
            8000);
        return 0;
    }
    return buildAsking(cells, [this](const QStringList& variants, int queued) {
        qint64 estimate = 0;
        for (const QString& variant : variants)
            estimate += m_builds->history()->estimatedDurationMs(variant).value_or(0);
        if (queued > 0)
            m_context.showStatus(
                estimate > 0
                    ? tr("%n build(s) queued, about %1 by earlier builds", nullptr, queued)
                          .arg(formatDuration(estimate))
                    : tr("%n build(s) queued; no earlier build to estimate from", nullptr, queued),
                10000);
    });
}

// A recipe with an error fails its build or builds another variant than its name says, after
// the hours a torch build takes: such a build starts only once the user has said so, in a
// question that names each error. Nothing is asked when every recipe is sound.
int BuildActions::buildAsking(const std::vector<const Cell*>& cells, const AfterQueueing& after)
{
    QStringList variants, sound, errors;
    for (const Cell* cell : cells) {
        const QString variant = qs(cell->variant.toString());
        variants << variant;
        if (const Finding* error = cell->firstError())
            errors << (error->line > 0 ? tr("%1 \u2014 %2 (line %3): %4")
                                             .arg(variant, qs(error->ruleId))
                                             .arg(error->line)
                                             .arg(qs(error->message))
                                       : tr("%1 \u2014 %2: %3")
                                             .arg(variant, qs(error->ruleId), qs(error->message)));
        else
            sound << variant;
    }
    const auto queue = [this, after](const QStringList& chosen) {
        const int queued = buildVariants(chosen);
        if (after)
            after(chosen, queued);
        return queued;
    };
    if (errors.isEmpty())
        return queue(variants);

    auto* box = new QMessageBox(QMessageBox::Warning, tr("Build recipes with errors?"),
                                tr("Errors in %n of the %1 recipe(s) to build: each will fail, or "
                                   "build another variant than its name says, after the hours "
                                   "a build takes.",
                                   nullptr, static_cast<int>(errors.size()))
                                    .arg(variants.size()),
                                QMessageBox::Cancel, m_context.mainWidget());
    box->setObjectName(QStringLiteral("buildErrorsQuestion"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    box->setInformativeText(errors.mid(0, 5).join(QLatin1Char('\n')) +
                            (errors.size() > 5 ? tr("\n\u2026 and %n more", nullptr,
                                                    static_cast<int>(errors.size() - 5))
                                               : QString()));
    QPushButton* all = box->addButton(tr("Build All"), QMessageBox::AcceptRole);
    QPushButton* onlySound = sound.isEmpty()
                                 ? nullptr
                                 : box->addButton(tr("Build Only the %n Without Errors", nullptr,
                                                     static_cast<int>(sound.size())),
                                                  QMessageBox::AcceptRole);
    if (onlySound)
        box->setDefaultButton(onlySound);
    else
        box->setDefaultButton(QMessageBox::Cancel);
    connect(box, &QMessageBox::finished, this, [box, all, onlySound, queue, variants, sound] {
        if (box->clickedButton() == all)
            queue(variants);
        else if (onlySound && box->clickedButton() == onlySound)
            queue(sound);
    });
    box->open();
    return 0;
}

int BuildActions::buildVariants(const QStringList& variants)
{
    RepositorySession* session = m_context.session();
    if (!session->isOpen() || session->isReadOnly()) {
        m_context.showStatus(tr("Builds need a work tree (not a revision opened from git)"), 5000);
        return 0;
    }
    if (const auto analysis = session->analysis()) {
        m_builds->setRecipeDirectory(session->recipeDir());
        m_builds->setAnalysis(session->rootPath(), analysis);
    }
    QStringList errors;
    const QList<quint64> queued = m_builds->build(session->rootPath(), variants, &errors);
    if (!errors.isEmpty())
        m_context.showError(errors.join(QLatin1Char('\n')));
    m_context.showBuildsDock();
    updateBuildStatus();
    return static_cast<int>(queued.size());
}

QStringList BuildActions::publishableVariants() const
{
    QStringList variants;
    RepositorySession* session = m_context.session();
    if (!session->isOpen() || session->isReadOnly())
        return variants;
    for (const Cell* entry : m_context.selectedEntries()) {
        const QString variant = qs(entry->variant.toString());
        const VariantBuildState state =
            m_builds->variantState(variant, qs(entry->contentKey), session->rootPath(),
                                   BuildSession::derivationKeyOf(*entry));
        if (entry->recipe && state.hasResult() && state.lastState == JobState::Succeeded)
            variants << variant;
    }
    return variants;
}

int BuildActions::publishSelection()
{
    const QStringList variants = publishableVariants();
    if (variants.isEmpty()) {
        m_context.showStatus(tr("Nothing to publish: build the selected variants first"), 5000);
        return 0;
    }
    QStringList errors;
    int queued = 0;
    for (const QString& variant : variants) {
        QString error;
        if (m_builds->publish(m_context.session()->rootPath(), variant, &error) != 0)
            ++queued;
        else
            errors << tr("%1: %2").arg(variant, error);
    }
    if (!errors.isEmpty())
        m_context.showError(errors.join(QLatin1Char('\n')));
    updateBuildStatus();
    return queued;
}

void BuildActions::applyBuildSettings(const BuildSettings& settings)
{
    m_builds->setSettings(settings);
    m_builds->queue()->refreshBuilderHealth();
    QSettings store;
    settings.save(store);
}

LogPane* BuildActions::showLog(quint64 jobId)
{
    for (int i = 0; i < m_logTabs->count(); ++i) {
        auto* pane = qobject_cast<LogPane*>(m_logTabs->widget(i));
        if (pane && pane->jobId() == jobId) {
            m_logTabs->setCurrentIndex(i);
            return pane;
        }
    }
    const int row = m_jobsModel->rowOf(jobId);
    const BuildRecord* record = row >= 0 ? m_jobsModel->record(row) : nullptr;
    auto* pane = new LogPane(m_logTabs);
    pane->attachJob(m_builds->queue(), jobId);
    if (record)
        pane->setLogFilePath(record->logPath);
    const int index = m_logTabs->addTab(pane, record ? record->variant : tr("job %1").arg(jobId));
    m_logTabs->setTabToolTip(index, record ? record->command : QString());
    m_logTabs->setCurrentIndex(index);
    return pane;
}

QString BuildActions::buildsText() const
{
    return m_status->text();
}

void BuildActions::updateBuildStatus()
{
    const int running = m_builds->queue()->runningCount();
    const int queued = m_builds->queue()->queuedCount();
    m_status->setText(running + queued == 0
                          ? QString()
                          : tr("builds: %1 running \u00b7 %2 queued").arg(running).arg(queued));
}

} // namespace rg
