#include "sessionstatus.h"

#include "analysis/ruleset.h"
#include "itemmodels/matrixmodel.h"
#include "messagebanner.h"
#include "sessions/qtext.h"
#include "sessions/repositorysession.h"

#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>

namespace rg {

SessionStatus::SessionStatus(RepositorySession* session, MessageBanner* banner, QStatusBar* bar,
                             QObject* parent)
    : QObject(parent), m_session(session), m_banner(banner), m_progress(new QProgressBar(bar)),
      m_summary(new QLabel(bar)), m_scanInfo(new QLabel(bar)), m_git(new QLabel(bar))
{
    m_progress->setMaximumWidth(160);
    m_progress->setTextVisible(false);
    m_progress->setAccessibleName(tr("Scan progress"));
    m_progress->hide();
    bar->addWidget(m_progress);
    m_summary->setAccessibleName(tr("Status counts"));
    bar->addWidget(m_summary, 1);
    m_scanInfo->setAccessibleName(tr("Last scan"));
    bar->addPermanentWidget(m_scanInfo);
    m_git->setAccessibleName(tr("Git branch"));
    bar->addPermanentWidget(m_git);

    connect(m_session, &RepositorySession::gitStateChanged, this, &SessionStatus::updateGitLabel);
    connect(m_session, &RepositorySession::scanStarted, this, [this] {
        m_progress->setRange(0, 0);
        m_progress->show();
    });
    connect(m_session, &RepositorySession::scanProgress, this, [this](int done, int total) {
        m_progress->setRange(0, total);
        m_progress->setValue(done);
        if (total > 0 && done >= total)
            m_progress->hide();
    });
    updateSummary();
    updateGitLabel();
}

QString SessionStatus::summaryText() const
{
    return m_summary->text();
}

QString SessionStatus::scanText() const
{
    return m_scanInfo->text();
}

QString SessionStatus::gitText() const
{
    return m_git->text();
}

void SessionStatus::analysisChanged()
{
    updateBanner();
    updateSummary();
    updateGitLabel();
}

// What the spec asks for that cannot work (rule spec-asks-impossible), in a sentence; "" when
// nothing. The grid hatches those cells and keeps them expected, as the spec decides.
QString SessionStatus::impossibleAsks(const Analysis* analysis)
{
    if (!analysis)
        return {};
    QStringList asks;
    for (const Finding& finding : analysis->repositoryFindings)
        if (finding.ruleId == rule::specAsksImpossible)
            asks << qs(finding.message);
    if (asks.isEmpty())
        return {};
    QString first = asks.first();
    first[0] = first[0].toUpper();
    return tr("%1%2. Complete creates what the spec asks for; remove what was not meant from "
              "the matrix of %3.")
        .arg(first,
             asks.size() == 1 ? QString()
                              : tr(", and %n more like it", nullptr, int(asks.size() - 1)),
             qs(analysis->specPath));
}

void SessionStatus::updateBanner()
{
    const std::shared_ptr<const Analysis> analysis = m_session->analysis();
    if (analysis && analysis->specError) {
        m_banner->showMessage(
            MessageBanner::Kind::Error,
            tr("The matrix spec is invalid \u2014 %1. The grid uses a spec inferred from the "
               "recipes until it is fixed.")
                .arg(qs(analysis->specError->toString())));
    } else if (!m_session->scanError().isEmpty()) {
        m_banner->showMessage(
            MessageBanner::Kind::Error,
            tr("Cannot list %1: %2").arg(m_session->recipeDir(), m_session->scanError()));
    } else if (m_session->isReadOnly()) {
        m_banner->showMessage(MessageBanner::Kind::Info,
                              tr("Viewing %1 read-only, straight from git (no checkout). Use File "
                                 "\u203a Open Recent or Reload the work tree to edit.")
                                  .arg(m_session->revision()));
    } else if (const QString asks = impossibleAsks(analysis.get()); !asks.isEmpty()) {
        m_banner->showMessage(MessageBanner::Kind::Warning, asks);
    } else if (analysis && analysis->spec.isInferred() && !analysis->cells.empty()) {
        // Said only where there are recipes: with none, nothing was inferred, and the page
        // itself says what is looked for.
        m_banner->showMessage(MessageBanner::Kind::Info,
                              tr("No matrix spec (%1): the expected variants are inferred from "
                                 "the recipes present, so nothing shows as missing; cells the "
                                 "recipes around them suggest show as gaps.")
                                  .arg(QString::fromLatin1(MatrixSpec::defaultPath.data(),
                                                           MatrixSpec::defaultPath.size())));
    } else {
        m_banner->hide();
    }
}

void SessionStatus::updateSummary()
{
    const std::shared_ptr<const Analysis> analysis = m_session->analysis();
    if (!analysis) {
        m_summary->setText(m_session->isOpen() ? tr("Scanning\u2026") : tr("No repository open"));
        m_scanInfo->clear();
        return;
    }
    // Warnings are not a status: counted apart, since an ok recipe may have some.
    const int withWarnings = MatrixModel::countWithWarnings(*analysis);
    QString summary = qs(analysis->summary());
    if (withWarnings > 0)
        summary += tr(" \u00b7 %1 with warnings").arg(withWarnings);
    m_summary->setText(summary);
    // A scan that found nothing changed (the file watcher's echo of files just written and
    // already re-analysed) leaves the line about the last scan that read something.
    if (m_session->lastParsedCount() > 0 || m_scanInfo->text().isEmpty())
        m_scanInfo->setText(tr("%n file(s) parsed", nullptr, m_session->lastParsedCount()) +
                            QStringLiteral(" \u00b7 %1 ms").arg(m_session->lastScanMilliseconds()));
    m_progress->hide();
}

void SessionStatus::updateGitLabel()
{
    const SessionGitInfo& git = m_session->git();
    if (!m_session->isOpen()) {
        m_git->clear();
        return;
    }
    if (!git.isRepository) {
        m_git->setText(tr("not a git repository"));
        m_git->setToolTip(qs(git.error));
        return;
    }
    QString text =
        QStringLiteral("\u2387 ") +
        (git.branch.empty() ? tr("detached at %1").arg(qs(git.headCommit)) : qs(git.branch));
    if (!m_session->revision().isEmpty())
        text = QStringLiteral("\u2387 ") + m_session->revision() + tr(" (read-only)");
    else
        text += git.dirty ? tr("  \u25cf uncommitted changes") : tr("  \u2713 clean");
    m_git->setText(text);
    m_git->setToolTip(tr("HEAD %1").arg(qs(git.headCommit)));
}

} // namespace rg
