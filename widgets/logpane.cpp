#include "logpane.h"

#include "ansirenderer.h"
#include "build/buildqueue.h"
#include "build/logstore.h"

#include <QApplication>
#include <QClipboard>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QScrollBar>
#include <QShortcut>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace rg {

namespace {

constexpr int tickMs = 16;
// Per tick the pane edits the document for at most this long, so the event loop keeps
// breathing even when output arrives faster than it can be shown.
constexpr qint64 budgetNs = 12'000'000;
constexpr qsizetype sliceChars = 64 * 1024;

const QRegularExpression& errorPattern()
{
    // nix "error:", compilers and nvcc "file:line: error:" / "file(42): error:", CMake
    // "CMake Error", ninja "FAILED:", MSVC-style "error C1234".
    static const QRegularExpression pattern(QStringLiteral(
        "(?:^|[\\s>:(])(?:error|ERROR)(?::| :| [A-Z]+\\d+)|CMake Error|^(?:\\S+> )?FAILED:"));
    return pattern;
}

} // namespace

LogPane::LogPane(QWidget* parent)
    : QWidget(parent), m_view(new QPlainTextEdit(this)), m_search(new QLineEdit(this)),
      m_followButton(new QToolButton(this)), m_wrapButton(new QToolButton(this)),
      m_status(new QLabel(this)), m_timer(new QTimer(this)),
      m_renderer(std::make_unique<AnsiRenderer>())
{
    m_view->setReadOnly(true);
    m_view->setUndoRedoEnabled(false); // an undo stack would keep every dropped line alive
    m_view->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_view->setMaximumBlockCount(m_maximumLines);
    m_view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_view->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_view->setAccessibleName(tr("Build log"));

    m_followButton->setText(tr("Follow"));
    m_followButton->setCheckable(true);
    m_followButton->setChecked(true);
    m_followButton->setToolTip(tr("Keep the newest output in view"));
    connect(m_followButton, &QToolButton::toggled, this, &LogPane::setFollowing);

    m_wrapButton->setText(tr("Wrap"));
    m_wrapButton->setCheckable(true);
    m_wrapButton->setToolTip(tr("Wrap long lines"));
    connect(m_wrapButton, &QToolButton::toggled, this, [this](bool on) {
        m_view->setLineWrapMode(on ? QPlainTextEdit::WidgetWidth : QPlainTextEdit::NoWrap);
    });

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
    connect(copyButton, &QToolButton::clicked, this, &LogPane::copy);
    auto* saveButton = new QToolButton(this);
    saveButton->setText(tr("Save…"));
    saveButton->setToolTip(tr("Save the whole log"));
    connect(saveButton, &QToolButton::clicked, this, &LogPane::saveAs);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_followButton);
    bar->addWidget(m_wrapButton);
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

    auto* findShortcut = new QShortcut(QKeySequence::Find, this);
    connect(findShortcut, &QShortcut::activated, this, [this] {
        m_search->setFocus();
        m_search->selectAll();
    });
    auto* nextShortcut = new QShortcut(QKeySequence::FindNext, this);
    connect(nextShortcut, &QShortcut::activated, this, [this] { findNext(); });
    auto* previousShortcut = new QShortcut(QKeySequence::FindPrevious, this);
    connect(previousShortcut, &QShortcut::activated, this, [this] { findPrevious(); });

    // Scrolling up by hand stops following; back at the bottom resumes it.
    connect(m_view->verticalScrollBar(), &QScrollBar::valueChanged, this, [this](int value) {
        if (m_scrolling)
            return;
        const bool atEnd = value >= m_view->verticalScrollBar()->maximum();
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
        appendText(LogStore::readTail(job->logPath, m_maximumLines));
    }
    connect(queue, &BuildQueue::jobLogAppended, this, [this](quint64 id, const QString& text) {
        if (id == m_jobId)
            appendText(text);
    });
}

void LogPane::setLogFilePath(const QString& path)
{
    m_logFilePath = path;
    updateStatus();
}

void LogPane::setMaximumLines(int lines)
{
    m_maximumLines = qMax(1, lines);
    m_view->setMaximumBlockCount(m_maximumLines);
}

void LogPane::setMaximumLineLength(int chars)
{
    m_maximumLineLength = qMax(80, chars);
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
        scrollToEnd();
    emit followingChanged(follow);
}

int LogPane::lineCount() const
{
    return m_view->document()->blockCount();
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

void LogPane::tick()
{
    QElapsedTimer clock;
    clock.start();
    // Under a flood, lines beyond what the pane keeps are skipped for display: they would be
    // trimmed right after insertion anyway, and they are on disk.
    QStringView rest = QStringView(m_pending).mid(m_pendingOffset);
    qsizetype newlines = 0;
    qsizetype keepFrom = -1;
    for (qsizetype i = rest.size() - 1; i >= 0; --i) {
        if (rest[i] == QLatin1Char('\n') && ++newlines > m_maximumLines) {
            keepFrom = i + 1;
            break;
        }
    }
    if (keepFrom > 0) {
        m_droppedLines += rest.left(keepFrom).count(QLatin1Char('\n'));
        QList<AnsiRenderer::Run> ignored;
        m_renderer->render(rest.left(keepFrom), &ignored); // keep the colour state right
        m_pendingOffset += keepFrom;
        m_currentLineLength = 0;
        m_currentLineCut = false;
    }
    while (m_pendingOffset < m_pending.size() && clock.nsecsElapsed() < budgetNs) {
        qsizetype take = qMin(sliceChars, m_pending.size() - m_pendingOffset);
        // End slices at a line end when one is near, so lines are inserted whole.
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
    QString plain = m_renderer->render(text, &runs);

    // Cut very long lines for display; the cut is marked once per line.
    const QString marker = tr(" … [line cut here; the full line is in the log file]");
    bool cutSomething = false;
    {
        qsizetype lineLength = m_currentLineLength;
        bool lineCut = m_currentLineCut;
        for (qsizetype i = 0; i < plain.size() && !cutSomething; ++i) {
            if (plain[i] == QLatin1Char('\n')) {
                lineLength = 0;
                lineCut = false;
            } else if (++lineLength > m_maximumLineLength && !lineCut) {
                cutSomething = true;
            }
        }
    }
    if (cutSomething) {
        // Rare path: rebuild text and runs, dropping characters beyond the limit.
        QString kept;
        kept.reserve(plain.size());
        QList<AnsiRenderer::Run> keptRuns;
        for (const AnsiRenderer::Run& run : runs) {
            const qsizetype start = kept.size();
            for (qsizetype i = run.start; i < run.start + run.length; ++i) {
                const QChar c = plain[i];
                if (c == QLatin1Char('\n')) {
                    kept += c;
                    m_currentLineLength = 0;
                    m_currentLineCut = false;
                } else if (m_currentLineLength < m_maximumLineLength) {
                    kept += c;
                    ++m_currentLineLength;
                } else if (!m_currentLineCut) {
                    kept += marker;
                    m_currentLineCut = true;
                }
            }
            if (kept.size() > start)
                keptRuns.append({start, kept.size() - start, run.format});
        }
        plain = std::move(kept);
        runs = std::move(keptRuns);
    } else {
        const qsizetype lastNewline = plain.lastIndexOf(QLatin1Char('\n'));
        if (lastNewline < 0) {
            m_currentLineLength += plain.size();
        } else {
            m_currentLineLength = plain.size() - lastNewline - 1;
            m_currentLineCut = false;
        }
    }
    // A trailing '\n' is held back until more text comes, so a log ending in a newline does
    // not show (and count) an empty last line.
    const bool endsWithNewline = plain.endsWith(QLatin1Char('\n'));
    if (endsWithNewline) {
        plain.chop(1);
        if (!runs.isEmpty() && --runs.last().length == 0)
            runs.removeLast();
    }
    if (m_heldNewline && (endsWithNewline || !plain.isEmpty())) {
        plain.prepend(QLatin1Char('\n'));
        for (AnsiRenderer::Run& run : runs)
            ++run.start;
        runs.prepend({0, 1, QTextCharFormat()});
        m_heldNewline = false;
    }
    if (endsWithNewline)
        m_heldNewline = true;
    if (plain.isEmpty())
        return;

    QTextDocument* document = m_view->document();
    QTextCursor cursor(document);
    cursor.movePosition(QTextCursor::End);
    cursor.beginEditBlock();
    const bool allDefault = std::all_of(
        runs.begin(), runs.end(), [](const auto& r) { return r.format == QTextCharFormat(); });
    if (allDefault) {
        cursor.setCharFormat(QTextCharFormat());
        cursor.insertText(plain);
    } else {
        for (const AnsiRenderer::Run& run : runs)
            cursor.insertText(plain.mid(run.start, run.length), run.format);
    }
    cursor.endEditBlock();
    if (m_following)
        scrollToEnd();
}

void LogPane::scrollToEnd()
{
    m_scrolling = true;
    QScrollBar* bar = m_view->verticalScrollBar();
    bar->setValue(bar->maximum());
    m_scrolling = false;
}

void LogPane::updateStatus()
{
    QString text = tr("%n line(s) shown", nullptr, lineCount());
    if (m_view->document()->blockCount() >= m_maximumLines || m_droppedLines > 0)
        text += tr(" (the last %1 are kept here)").arg(m_maximumLines);
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
    const QTextDocument::FindFlags flags =
        backward ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    QTextDocument* document = m_view->document();
    QTextCursor found = document->find(needle, m_view->textCursor(), flags);
    if (found.isNull()) {
        // Wrap around.
        QTextCursor from(document);
        if (backward)
            from.movePosition(QTextCursor::End);
        found = document->find(needle, from, flags);
    }
    if (found.isNull())
        return false;
    setFollowing(false);
    m_view->setTextCursor(found);
    m_view->ensureCursorVisible();
    return true;
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
    const QTextCursor found = m_view->document()->find(errorPattern(), 0);
    if (found.isNull())
        return false;
    setFollowing(false);
    QTextCursor line = found;
    line.movePosition(QTextCursor::StartOfBlock);
    line.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
    m_view->setTextCursor(line);
    m_view->centerCursor();
    return true;
}

void LogPane::copy()
{
    flush();
    const QTextCursor selection = m_view->textCursor();
    QApplication::clipboard()->setText(
        selection.hasSelection()
            ? selection.selectedText().replace(QChar::ParagraphSeparator, QLatin1Char('\n'))
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
