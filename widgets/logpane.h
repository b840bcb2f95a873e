#pragma once

// One build job's live log. Text arrives through appendText() (or attachJob(), which follows
// a BuildQueue job) and is coalesced: the view is updated at most once per 16 ms tick, within
// a time budget, so a build printing hundreds of thousands of lines per second never stalls
// the window. Only the last maximumLines() lines are kept (the whole log stays on disk, in the
// LogStore); very long lines are cut for display. ANSI colours are rendered.
// Closing a pane does not stop its build: the pane only listens.

#include <QPointer>
#include <QWidget>
#include <memory>

class QLabel;
class QLineEdit;
class QTimer;
class QToolButton;

namespace rg {

class AnsiLogView;
class AnsiRenderer;
class BuildQueue;

class LogPane : public QWidget
{
    Q_OBJECT
public:
    explicit LogPane(QWidget* parent = nullptr);
    ~LogPane() override;

    // Shows `jobId`'s log so far (the tail of its file) and follows new output of `queue`.
    void attachJob(BuildQueue* queue, quint64 jobId);
    quint64 jobId() const { return m_jobId; }

    // The full log on disk: Save copies it, the status line names it. When the pane shows
    // nothing yet and follows no live job (a job from an earlier session), the file's tail
    // is shown.
    void setLogFilePath(const QString& path);
    QString logFilePath() const { return m_logFilePath; }

    void setMaximumLines(int lines); // default 50,000
    int maximumLines() const;
    void setMaximumLineLength(int chars); // default 10,000; the rest of a line is cut
    int maximumLineLength() const;

    bool isFollowing() const { return m_following; }
    void setFollowing(bool follow);

    AnsiLogView* textView() const { return m_view; }
    int lineCount() const;

public slots:
    // Raw output (ANSI escapes kept); shown at the next tick.
    void appendText(const QString& text);
    // Shows everything pending now (tests, and before searching).
    void flush();
    bool findNext(const QString& text = {});
    bool findPrevious(const QString& text = {});
    // Selects the first line that looks like an error (nix `error:`, CMake `CMake Error`,
    // ninja `FAILED:`, nvcc/compiler `error`); false when there is none.
    bool jumpToFirstError();
    void copy();   // the selection, or everything shown
    void saveAs(); // asks where, then copies the full log file there

protected:
    // Ctrl+F, F3 and Shift+F3 search the log while the focus is in the pane: the pane claims
    // them before the window's shortcuts (Ctrl+F there focuses the grid's filter), since Qt
    // drops a key that two shortcuts claim at once.
    bool event(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void tick();
    void ingest(QStringView text);
    void updateStatus();
    bool find(const QString& text, bool backward);

    AnsiLogView* m_view;
    QLineEdit* m_search;
    QToolButton* m_followButton;
    QLabel* m_status;
    QTimer* m_timer;
    std::unique_ptr<AnsiRenderer> m_renderer;
    QString m_pending;
    qsizetype m_pendingOffset = 0; // consumed part of m_pending
    QPointer<BuildQueue> m_queue;
    quint64 m_jobId = 0;
    QString m_logFilePath;
    bool m_following = true;
    qint64 m_skippedLines = 0; // skipped for display under load (still on disk)
};

} // namespace rg
