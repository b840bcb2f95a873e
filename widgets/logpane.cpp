#include "logpane.h"

#include "ansilogview.h"
#include "ansirenderer.h"
#include "builds/buildqueue.h"
#include "builds/logstore.h"

#include <QApplication>
#include <QClipboard>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QRegularExpression>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace rg {

namespace {

constexpr int tickMs = 16;
// Per tick the pane updates the view for at most this long, so the event loop keeps
// breathing even when output arrives faster than it can be shown.
constexpr qint64 budgetNs = 12'000'000;
constexpr qsizetype sliceChars = 256 * 1024;

const QRegularExpression& errorPattern()
{
    // nix "error:", compilers and nvcc "file:line: error:" / "file(42): error:", CMake
    // "CMake Error", ninja "FAILED:" (also behind nix's "name> " prefix), "error C1234".
    static const QRegularExpression pattern(
        QStringLiteral("(?:^|[\\s>:(])(?:error|ERROR)(?::| :| [A-Z]+\\d+)|CMake Error|"
                       "^(?:\\S+> )?FAILED:"));
    return pattern;
}

bool isFindKey(const QKeyEvent* key)
{
    return key->matches(QKeySequence::Find) || key->matches(QKeySequence::FindNext) ||
           key->matches(QKeySequence::FindPrevious);
}

} // namespace

LogPane::LogPane(QWidget* parent)
    : QWidget(parent), m_view(new AnsiLogView(this)), m_search(new QLineEdit(this)),
      m_followButton(new QToolButton(this)), m_status(new QLabel(this)), m_timer(new QTimer(this)),
      m_renderer(std::make_unique<AnsiRenderer>())
{
    m_view->setMaximumLines(50000);
    m_view->setMaximumLineLength(10000);

    m_followButton->setText(tr("Follow"));
    m_followButton->setCheckable(true);
    m_followButton->setChecked(true);
    m_followButton->setToolTip(tr("Keep the newest output in view"));
    connect(m_followButton, &QToolButton::toggled, this, &LogPane::setFollowing);

    auto* errorButton = new QToolButton(this);
    errorButton->setText(tr("First error"));
    errorButton->setToolTip(tr("Jump to the first line that looks like an error"));
    connect(errorButton, &QToolButton::clicked, this, [this] { jumpToFirstError(); });

    m_search->setPlaceholderText(tr("Search log"));
    m_search->setClearButtonEnabled(true);
    m_search->setAccessibleName(tr("Search log"));
    connect(m_search, &QLineEdit::returnPressed, this, [this] { findNext(); });
    auto* next = new QToolButton(this);
    next->setText(tr("Next"));
    connect(next, &QToolButton::clicked, this, [this] { findNext(); });
    auto* previous = new QToolButton(this);
    previous->setText(tr("Previous"));
    connect(previous, &QToolButton::clicked, this, [this] { findPrevious(); });

    auto* copyButton = new QToolButton(this);
    copyButton->setText(tr("Copy"));
    copyButton->setToolTip(tr("Copy the selection, or everything shown"));
    connect(copyButton, &QToolButton::clicked, this, &LogPane::copy);
    auto* saveButton = new QToolButton(this);
    saveButton->setText(tr("Save…"));
    saveButton->setToolTip(tr("Save the whole log"));
    connect(saveButton, &QToolButton::clicked, this, &LogPane::saveAs);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_followButton);
    bar->addWidget(errorButton);
    bar->addSpacing(12);
    bar->addWidget(m_search, 1);
    bar->addWidget(previous);
    bar->addWidget(next);
    bar->addSpacing(12);
    bar->addWidget(copyButton);
    bar->addWidget(saveButton);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_status);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // Scrolling up by hand stops following; back at the bottom resumes it.
    connect(m_view, &AnsiLogView::userScrolled, this, [this](bool atEnd) {
        if (atEnd != m_following)
            setFollowing(atEnd);
    });

    m_timer->setInterval(tickMs);
    connect(m_timer, &QTimer::timeout, this, &LogPane::tick);
    updateStatus();
}

LogPane::~LogPane() = default;

void LogPane::attachJob(BuildQueue* queue, quint64 jobId)
{
    if (m_queue)
        disconnect(m_queue, nullptr, this, nullptr);
    m_queue = queue;
    m_jobId = jobId;
    if (!queue)
        return;
    const BuildRecord* job = queue->job(jobId);
    if (job && !job->logPath.isEmpty()) {
        // Emit what the queue holds back first, so the file has everything signalled so far
        // and the signals continue exactly where the file ends.
        queue->flushLog(jobId);
        setLogFilePath(job->logPath);
        const QString backlog = LogStore::readTail(job->logPath, maximumLines());
        // The disk may have given out mid-line.
        appendText(backlog +
                   job->logStopNote(backlog.isEmpty() || backlog.endsWith(QLatin1Char('\n'))));
    }
    connect(queue, &BuildQueue::jobLogAppended, this, [this](quint64 id, const QString& text) {
        if (id == m_jobId)
            appendText(text);
    });
}

void LogPane::setLogFilePath(const QString& path)
{
    m_logFilePath = path;
    const bool live = m_queue && m_queue->job(m_jobId);
    if (!live && lineCount() == 0 && m_pending.isEmpty() && !path.isEmpty())
        appendText(LogStore::readTail(path, maximumLines()));
    updateStatus();
}

void LogPane::setMaximumLines(int lines)
{
    m_view->setMaximumLines(lines);
    updateStatus();
}

int LogPane::maximumLines() const
{
    return m_view->maximumLines();
}

void LogPane::setMaximumLineLength(int chars)
{
    m_view->setMaximumLineLength(qMax(80, chars));
}

int LogPane::maximumLineLength() const
{
    return m_view->maximumLineLength();
}

void LogPane::setFollowing(bool follow)
{
    if (m_following == follow)
        return;
    m_following = follow;
    {
        const QSignalBlocker block(m_followButton);
        m_followButton->setChecked(follow);
    }
    if (follow)
        m_view->scrollToEnd();
}

int LogPane::lineCount() const
{
    return m_view->lineCount();
}

void LogPane::appendText(const QString& text)
{
    if (text.isEmpty())
        return;
    if (m_pendingOffset > 0 && m_pendingOffset == m_pending.size()) {
        m_pending.clear();
        m_pendingOffset = 0;
    }
    m_pending += text;
    if (!m_timer->isActive())
        m_timer->start();
}

void LogPane::flush()
{
    if (m_pendingOffset < m_pending.size())
        ingest(QStringView(m_pending).mid(m_pendingOffset));
    m_pending.clear();
    m_pendingOffset = 0;
    m_timer->stop();
    updateStatus();
}

bool LogPane::event(QEvent* event)
{
    if (event->type() == QEvent::ShortcutOverride && isFindKey(static_cast<QKeyEvent*>(event))) {
        event->accept(); // the key press comes to the pane, not to a shortcut
        return true;
    }
    return QWidget::event(event);
}

void LogPane::keyPressEvent(QKeyEvent* event)
{
    if (event->matches(QKeySequence::Find)) {
        m_search->setFocus();
        m_search->selectAll();
    } else if (event->matches(QKeySequence::FindNext)) {
        findNext();
    } else if (event->matches(QKeySequence::FindPrevious)) {
        findPrevious();
    } else {
        QWidget::keyPressEvent(event);
    }
}

void LogPane::tick()
{
    QElapsedTimer clock;
    clock.start();
    // Under a flood, lines beyond what the pane keeps are skipped for display: they would be
    // dropped right after being shown, and they are on disk.
    const QStringView rest = QStringView(m_pending).mid(m_pendingOffset);
    qsizetype newlines = 0;
    qsizetype keepFrom = -1;
    for (qsizetype i = rest.size() - 1; i >= 0; --i) {
        if (rest[i] == QLatin1Char('\n') && ++newlines > maximumLines()) {
            keepFrom = i + 1;
            break;
        }
    }
    if (keepFrom > 0) {
        m_skippedLines += rest.left(keepFrom).count(QLatin1Char('\n'));
        QList<AnsiRenderer::Run> ignored;
        m_renderer->render(rest.left(keepFrom), &ignored); // keep the colour state right
        m_pendingOffset += keepFrom;
        m_view->endLine(); // the skipped text ended with a line end
    }
    while (m_pendingOffset < m_pending.size() && clock.nsecsElapsed() < budgetNs) {
        qsizetype take = qMin(sliceChars, m_pending.size() - m_pendingOffset);
        // End slices at a line end when one is near, so lines are appended whole.
        const qsizetype nl =
            QStringView(m_pending).mid(m_pendingOffset, take).lastIndexOf(QLatin1Char('\n'));
        if (nl > take / 2)
            take = nl + 1;
        ingest(QStringView(m_pending).mid(m_pendingOffset, take));
        m_pendingOffset += take;
    }
    if (m_pendingOffset >= m_pending.size()) {
        m_pending.clear();
        m_pendingOffset = 0;
        m_timer->stop();
    } else if (m_pendingOffset > (1 << 20)) {
        m_pending.remove(0, m_pendingOffset);
        m_pendingOffset = 0;
    }
    updateStatus();
}

void LogPane::ingest(QStringView text)
{
    QList<AnsiRenderer::Run> runs;
    const QString plain = m_renderer->render(text, &runs);
    m_view->append(plain, runs);
    if (m_following)
        m_view->scrollToEnd();
}

void LogPane::updateStatus()
{
    QString text = tr("%n line(s) shown", nullptr, lineCount());
    if (m_view->droppedLines() > 0 || m_skippedLines > 0)
        text += tr(" (the last %1 are kept here)").arg(maximumLines());
    if (!m_logFilePath.isEmpty())
        text += tr(" · full log: %1").arg(m_logFilePath);
    m_status->setText(text);
}

bool LogPane::find(const QString& text, bool backward)
{
    const QString needle = text.isEmpty() ? m_search->text() : text;
    if (needle.isEmpty())
        return false;
    if (!text.isEmpty())
        m_search->setText(text);
    flush();
    setFollowing(false);
    return m_view->find(needle, backward);
}

bool LogPane::findNext(const QString& text)
{
    return find(text, false);
}

bool LogPane::findPrevious(const QString& text)
{
    return find(text, true);
}

bool LogPane::jumpToFirstError()
{
    flush();
    setFollowing(false);
    return m_view->findFirst(errorPattern());
}

void LogPane::copy()
{
    flush();
    QApplication::clipboard()->setText(m_view->hasSelection() ? m_view->selectedText()
                                                              : m_view->toPlainText());
}

void LogPane::saveAs()
{
    if (m_logFilePath.isEmpty()) {
        QMessageBox::information(this, tr("Save log"), tr("This log is not stored in a file."));
        return;
    }
    const QString destination = QFileDialog::getSaveFileName(
        this, tr("Save log"), QFileInfo(m_logFilePath).fileName(), tr("Logs (*.log *.txt)"));
    if (destination.isEmpty())
        return;
    QString error;
    if (!LogStore::exportTo(m_logFilePath, destination, &error))
        QMessageBox::warning(this, tr("Save log"), error);
}

} // namespace rg
