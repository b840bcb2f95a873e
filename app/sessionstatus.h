#pragma once

// What the window says about the open repository around the grid: the scan's progress, the
// status counts, the last scan and the git branch in the status bar, and the banner's word on
// the matrix spec, a scan that failed and a revision opened read-only.

#include <QObject>
#include <QString>

class QLabel;
class QProgressBar;
class QStatusBar;

namespace rg {

struct Analysis;
class MessageBanner;
class RepositorySession;

class SessionStatus : public QObject
{
    Q_OBJECT
public:
    // Adds its labels to `bar`; what is added to it afterwards stands to their right.
    SessionStatus(RepositorySession* session, MessageBanner* banner, QStatusBar* bar,
                  QObject* parent);

    QString summaryText() const;
    QString scanText() const; // "12 file(s) parsed · 40 ms"
    QString gitText() const;

    // After a scan: the banner, the counts, the last scan and the branch.
    void analysisChanged();
    void updateSummary();
    void updateGitLabel();

private:
    static QString impossibleAsks(const Analysis* analysis);
    void updateBanner();

    RepositorySession* m_session;
    MessageBanner* m_banner;
    QProgressBar* m_progress;
    QLabel* m_summary;
    QLabel* m_scanInfo;
    QLabel* m_git;
};

} // namespace rg
