// LogPane offscreen: ANSI colours, search, jump to the first error, bounded lines, long lines,
// following a live job from the queue, and that closing a pane leaves its build running.

#include "ansilogview.h"
#include "ansirenderer.h"
#include "buildfixture.h"
#include "buildjobsview.h"
#include "builds/buildqueue.h"
#include "builds/logstore.h"
#include "itemmodels/buildjobsmodel.h"
#include "logpane.h"

#include <QApplication>
#include <QClipboard>
#include <QMenu>
#include <QMouseEvent>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTimer>

using namespace rg;

namespace {

// The format at a character offset of the whole text (lines joined by '\n').
QTextCharFormat formatAt(AnsiLogView* view, int position)
{
    for (int line = 0; line < view->lineCount(); ++line) {
        const int length = int(view->lineText(line).size());
        if (position <= length)
            return view->formatAt(line, position);
        position -= length + 1;
    }
    return {};
}

QString selectedLine(AnsiLogView* view)
{
    return view->lineText(view->selectionStartLine());
}

bool touch(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly);
}

} // namespace

class TestLogPane : public QObject
{
    Q_OBJECT

private slots:
    void rendersAnsiColours()
    {
        LogPane pane;
        pane.appendText(QStringLiteral("\x1b[31mred\x1b[0m plain \x1b[1;38;5;208mbold orange"
                                       "\x1b[0m \x1b[4;38;2;1;2;3mrgb\x1b[0m\n"));
        pane.appendText(QStringLiteral("\x1b[3")); // an escape split across two chunks
        pane.appendText(QStringLiteral("2mgreen\x1b[m \x1b]0;title\x07\x1b[2Kdone\r\n"));
        pane.flush();
        AnsiLogView* view = pane.textView();
        QCOMPARE(view->toPlainText(), QStringLiteral("red plain bold orange rgb\ngreen done"));
        QCOMPARE(pane.lineCount(), 2);
        QCOMPARE(formatAt(view, 0).foreground().color(), AnsiRenderer::paletteColor(1));
        QVERIFY(formatAt(view, 4).foreground().style() == Qt::NoBrush); // reset
        const QTextCharFormat orange = formatAt(view, 10);
        QCOMPARE(orange.foreground().color(), QColor(255, 135, 0)); // xterm 208
        QCOMPARE(orange.fontWeight(), int(QFont::Bold));
        const QTextCharFormat rgb = formatAt(view, 22);
        QCOMPARE(rgb.foreground().color(), QColor(1, 2, 3));
        QVERIFY(rgb.fontUnderline());
        const int green = view->toPlainText().indexOf(QLatin1String("green"));
        QCOMPARE(formatAt(view, green).foreground().color(), AnsiRenderer::paletteColor(2));
    }

    void searchesBothWays()
    {
        LogPane pane;
        pane.appendText(QStringLiteral("alpha\nneedle one\nbeta\nneedle two\ngamma\n"));
        QVERIFY(pane.findNext(QStringLiteral("needle")));
        QCOMPARE(selectedLine(pane.textView()), QStringLiteral("needle one"));
        QVERIFY(!pane.isFollowing()); // looking at a match stops following
        QVERIFY(pane.findNext());
        QCOMPARE(selectedLine(pane.textView()), QStringLiteral("needle two"));
        QVERIFY(pane.findNext()); // wraps around
        QCOMPARE(selectedLine(pane.textView()), QStringLiteral("needle one"));
        QVERIFY(pane.findPrevious());
        QCOMPARE(selectedLine(pane.textView()), QStringLiteral("needle two"));
        QCOMPARE(pane.textView()->selectedText(), QStringLiteral("needle"));
        QVERIFY(!pane.findNext(QStringLiteral("absent")));
    }

    void jumpsToTheFirstError_data()
    {
        QTest::addColumn<QString>("errorLine");
        QTest::newRow("nix") << "error: builder for '/nix/store/x.drv' failed with exit code 2";
        QTest::newRow("nix -L prefixed") << "torch> error: command failed";
        QTest::newRow("cmake") << "CMake Error at CMakeLists.txt:10 (find_package):";
        QTest::newRow("ninja") << "FAILED: caffe2/CMakeFiles/torch_cuda.dir/Blas.cu.o";
        QTest::newRow("ninja -L prefixed") << "torch> FAILED: a.o";
        QTest::newRow("nvcc") << "aten/src/ATen/native/cuda/Blas.cu(42): error: identifier x";
        QTest::newRow("gcc") << "foo.cpp:12:5: error: expected ';' before '}' token";
    }
    void jumpsToTheFirstError()
    {
        QFETCH(QString, errorLine);
        LogPane pane;
        QString text;
        for (int i = 0; i < 300; ++i)
            text += QStringLiteral("[%1/300] Building CXX object -Werror=format x.o (0 errors)\n")
                        .arg(i + 1);
        text += QStringLiteral("\x1b[31m") + errorLine + QStringLiteral("\x1b[0m\n");
        text += QStringLiteral("later line\nerror: a second error\n");
        pane.appendText(text);
        QVERIFY(pane.jumpToFirstError());
        QCOMPARE(pane.textView()->selectionStartLine(), 300);
        QCOMPARE(pane.textView()->selectedText(), errorLine);

        LogPane clean;
        clean.appendText(QStringLiteral("-Werror=format\nerrors: 0\nno_error_here\n"));
        QVERIFY(!clean.jumpToFirstError());
    }

    void keepsOnlyTheLastLines()
    {
        LogPane pane;
        pane.setMaximumLines(1000);
        QString text;
        for (int i = 0; i < 5000; ++i)
            text += QStringLiteral("line %1\n").arg(i);
        pane.appendText(text);
        pane.flush();
        QCOMPARE(pane.lineCount(), 1000);
        QCOMPARE(pane.textView()->lineText(pane.lineCount() - 1), QStringLiteral("line 4999"));
        QCOMPARE(pane.textView()->lineText(0), QStringLiteral("line 4000"));
        // More text keeps the bound.
        pane.appendText(QStringLiteral("tail 1\ntail 2\n"));
        pane.flush();
        QCOMPARE(pane.lineCount(), 1000);
        QCOMPARE(pane.textView()->lineText(pane.lineCount() - 1), QStringLiteral("tail 2"));
    }

    void skipsFloodsItCannotShowAnyway()
    {
        // Through the timer path: 200,000 lines at once into a 1,000-line pane.
        LogPane pane;
        pane.setMaximumLines(1000);
        QString text;
        for (int i = 0; i < 200000; ++i)
            text += QStringLiteral("\x1b[32mflood\x1b[0m %1\n").arg(i);
        pane.appendText(text);
        QVERIFY(QTest::qWaitFor(
            [&] {
                return pane.lineCount() == 1000 &&
                       pane.textView()->lineText(pane.lineCount() - 1) ==
                           QStringLiteral("flood 199999");
            },
            10000));
        QCOMPARE(pane.textView()->lineText(0), QStringLiteral("flood 199000"));
        QCOMPARE(formatAt(pane.textView(), 0).foreground().color(), AnsiRenderer::paletteColor(2));
    }

    void cutsVeryLongLines()
    {
        LogPane pane;
        pane.setMaximumLineLength(1000);
        pane.appendText(QStringLiteral("short\n") + QString(3000, QLatin1Char('x')));
        pane.appendText(QString(3000, QLatin1Char('y')) + QStringLiteral("\nafter\n"));
        pane.flush();
        QCOMPARE(pane.lineCount(), 3);
        const QString cut = pane.textView()->lineText(1);
        QVERIFY(cut.startsWith(QString(1000, QLatin1Char('x')) + QStringLiteral(" … [line cut")));
        QVERIFY(!cut.contains(QLatin1Char('y')));
        QVERIFY(cut.size() < 1100);
        QCOMPARE(pane.textView()->lineText(pane.lineCount() - 1), QStringLiteral("after"));
    }

    void followsTheEnd()
    {
        LogPane pane;
        pane.resize(600, 300);
        pane.show();
        QString text;
        for (int i = 0; i < 500; ++i)
            text += QStringLiteral("line %1\n").arg(i);
        pane.appendText(text);
        pane.flush();
        QScrollBar* bar = pane.textView()->verticalScrollBar();
        QVERIFY(bar->maximum() > 0);
        QCOMPARE(bar->value(), bar->maximum());
        // The user scrolls up: following stops and new text does not move the view.
        bar->setValue(0);
        QVERIFY(!pane.isFollowing());
        pane.appendText(QStringLiteral("more\n"));
        pane.flush();
        QCOMPARE(bar->value(), 0);
        pane.setFollowing(true);
        QCOMPARE(bar->value(), bar->maximum());
    }

    void copiesText()
    {
        LogPane pane;
        pane.appendText(QStringLiteral("\x1b[31mone\x1b[0m\ntwo\n"));
        pane.copy();
        QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("one\ntwo"));
    }

    void paintsColouredText()
    {
        LogPane pane;
        pane.resize(500, 200);
        pane.show();
        pane.appendText(
            QStringLiteral("\x1b[41m                                        \x1b[0m\n"));
        pane.flush();
        // The red background run is painted: many pixels of exactly palette red.
        const QImage image = pane.textView()->viewport()->grab().toImage();
        int red = 0;
        for (int y = 0; y < image.height(); ++y) {
            for (int x = 0; x < image.width(); ++x)
                red += image.pixelColor(x, y) == AnsiRenderer::paletteColor(1);
        }
        QVERIFY2(red > 200, qPrintable(QString::number(red)));
    }

    void selectsWithMouseAndKeyboard()
    {
        LogPane pane;
        pane.resize(600, 300);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        pane.appendText(QStringLiteral("first line here\nsecond line\n"));
        pane.flush();
        AnsiLogView* view = pane.textView();
        const QFontMetrics metrics(view->font());
        const int y = metrics.lineSpacing() / 2;
        const int charWidth = metrics.horizontalAdvance(QLatin1Char('M'));
        // Drag across "first" on the first row.
        QTest::mousePress(view->viewport(), Qt::LeftButton, {}, QPoint(4, y));
        QMouseEvent move(QEvent::MouseMove, QPointF(4 + 5 * charWidth, y),
                         view->viewport()->mapToGlobal(QPointF(4 + 5 * charWidth, y)), Qt::NoButton,
                         Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(view->viewport(), &move);
        QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, QPoint(4 + 5 * charWidth, y));
        QCOMPARE(view->selectedText(), QStringLiteral("first"));
        view->setFocus();
        QTest::keyClick(view, Qt::Key_C, Qt::ControlModifier);
        QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("first"));
        QTest::keyClick(view, Qt::Key_A, Qt::ControlModifier);
        QCOMPARE(view->selectedText(), QStringLiteral("first line here\nsecond line"));
    }

    // A double click selects the word under the pointer; a path Nix quotes comes without its
    // quotes. The context menu copies it.
    void doubleClickSelectsAWordAndTheMenuCopiesIt()
    {
        LogPane pane;
        pane.resize(900, 300);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        const QString line =
            QStringLiteral("error: builder for '/nix/store/abc-torch.drv' failed (exit code 1)");
        pane.appendText(line + QLatin1Char('\n'));
        pane.flush();
        AnsiLogView* view = pane.textView();
        const QFontMetrics metrics(view->font());
        const int y = metrics.lineSpacing() / 2;
        const int charWidth = metrics.horizontalAdvance(QLatin1Char('M'));
        const auto doubleClickAt = [&](const QString& inside) {
            const int column = int(line.indexOf(inside)) + 2;
            QTest::mouseDClick(view->viewport(), Qt::LeftButton, {},
                               QPoint(4 + column * charWidth + charWidth / 4, y));
            return view->selectedText();
        };
        QCOMPARE(doubleClickAt(QStringLiteral("abc-torch")),
                 QStringLiteral("/nix/store/abc-torch.drv"));
        QCOMPARE(doubleClickAt(QStringLiteral("builder")), QStringLiteral("builder"));
        QCOMPARE(doubleClickAt(QStringLiteral("exit")), QStringLiteral("exit"));
        QCOMPARE(doubleClickAt(QStringLiteral("code 1")), QStringLiteral("code"));

        doubleClickAt(QStringLiteral("abc-torch"));
        QApplication::clipboard()->clear();
        QTimer::singleShot(0, view, [] {
            auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
            if (!menu)
                return;
            for (QAction* action : menu->actions())
                if (action->text() == QStringLiteral("Copy"))
                    action->trigger();
            menu->close();
        });
        QContextMenuEvent menuEvent(QContextMenuEvent::Mouse, QPoint(10, y),
                                    view->viewport()->mapToGlobal(QPoint(10, y)));
        QApplication::sendEvent(view->viewport(), &menuEvent);
        QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("/nix/store/abc-torch.drv"));
    }

    void keepsTheViewStillWhileLinesLeave()
    {
        LogPane pane;
        pane.setMaximumLines(200);
        pane.resize(600, 300);
        pane.show();
        QString text;
        for (int i = 0; i < 200; ++i)
            text += QStringLiteral("line %1\n").arg(i);
        pane.appendText(text);
        pane.flush();
        AnsiLogView* view = pane.textView();
        view->verticalScrollBar()->setValue(50); // the user reads line 50
        QVERIFY(!pane.isFollowing());
        QCOMPARE(view->lineText(view->firstVisibleLine()), QStringLiteral("line 50"));
        pane.appendText(QStringLiteral("new 1\nnew 2\nnew 3\n"));
        pane.flush();
        QCOMPARE(pane.lineCount(), 200);
        QCOMPARE(view->lineText(view->firstVisibleLine()), QStringLiteral("line 50"));
        QCOMPARE(view->droppedLines(), 3);
    }

    void showsTheLogOfAnEarlierSession()
    {
        QTemporaryDir dir;
        LogStore logs(dir.filePath("logs"));
        QString text;
        for (int i = 0; i < 300; ++i)
            text += QStringLiteral("old line %1\n").arg(i);
        QVERIFY(logs.append(7, text.toUtf8()));
        logs.close(7);
        BuildQueue queue; // job 7 is not in it: it ran before a restart
        LogPane pane;
        pane.setMaximumLines(100);
        pane.attachJob(&queue, 7);
        QCOMPARE(pane.lineCount(), 0);
        pane.setLogFilePath(logs.logPath(7));
        pane.flush();
        QCOMPARE(pane.lineCount(), 100);
        QCOMPARE(pane.textView()->lineText(99), QStringLiteral("old line 299"));
    }

    // Jobs of earlier sessions come in with the model's reset: their columns fit them too.
    void jobsViewFitsTheHistory()
    {
        QTemporaryDir dir;
        BuildHistory history(dir.filePath(QStringLiteral("history.json")));
        QVERIFY(test::addEarlierJob(history,
                                    QStringLiteral("pytorch-python313-cuda13_0-sm120-avx512bf16"),
                                    JobState::Failed, 2, 4));
        BuildQueue queue;
        BuildJobsModel model(&queue, &history);
        BuildJobsView view;
        view.resize(900, 200);
        view.setModel(&model);
        QCOMPARE(model.rowCount(), 1);
        for (const int column :
             {int(BuildJobsModel::VariantColumn), int(BuildJobsModel::StartedColumn)}) {
            const QString text = model.index(0, column).data().toString();
            QVERIFY2(view.columnWidth(column) > view.fontMetrics().horizontalAdvance(text),
                     qPrintable(text));
        }
    }

    void jobsViewAsksForLogsAndCancel()
    {
        QTemporaryDir dir;
        BuildQueue queue;
        BuildJobsModel model(&queue, nullptr);
        BuildJobsView view;
        view.setModel(&model);
        view.resize(900, 200);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // Pixels other than the background in the viewport's lower half, under the first row.
        const auto inkBelowFirstRow = [&view] {
            const QImage shown = view.viewport()->grab().toImage();
            const QRgb base = view.palette().color(QPalette::Base).rgb();
            int ink = 0;
            for (int y = shown.height() / 2; y < shown.height(); ++y)
                for (int x = 0; x < shown.width(); ++x)
                    ink += shown.pixel(x, y) != base ? 1 : 0;
            return ink;
        };
        QVERIFY2(inkBelowFirstRow() > 100, "no word on how to start a build"); // no jobs yet
        ProcessSpec spec;
        spec.program = QStringLiteral("/bin/sleep");
        spec.arguments = {QStringLiteral("30")};
        spec.workingDirectory = dir.path();
        BuildTarget target;
        target.variant = QStringLiteral("pytorch-python313-cpu-avx2");
        const quint64 id =
            queue.enqueueProcess(target, spec, JobKind::Build, BackendKind::Custom, false);
        QSignalSpy logRequested(&view, &BuildJobsView::logRequested);
        QSignalSpy cancelRequested(&view, &BuildJobsView::cancelRequested);
        connect(&view, &BuildJobsView::cancelRequested, &queue, &BuildQueue::cancel);
        view.setCurrentIndex(model.index(0, 0));
        QCOMPARE(view.currentJobId(), id);
        QCOMPARE(inkBelowFirstRow(), 0); // a job: the word is gone
        // The variant's name is shown whole: its end is what tells it from the others.
        QVERIFY2(view.columnWidth(BuildJobsModel::VariantColumn) >
                     view.fontMetrics().horizontalAdvance(target.variant),
                 qPrintable(QString::number(view.columnWidth(BuildJobsModel::VariantColumn))));
        QCOMPARE(view.textElideMode(), Qt::ElideMiddle);
        QTest::keyClick(&view, Qt::Key_Return);
        QCOMPARE(logRequested.size(), 1);
        QCOMPARE(logRequested.first().first().toULongLong(), id);
        QSignalSpy rebuildRequested(&view, &BuildJobsView::rebuildRequested);
        {
            const std::unique_ptr<QMenu> menu = view.menuFor(model.index(0, 0));
            QVERIFY(menu);
            // The menu's actions by their text, "(off)" when disabled.
            QStringList enabled;
            for (QAction* a : menu->actions())
                if (!a->isSeparator())
                    enabled << a->text() + (a->isEnabled() ? QString() : QStringLiteral(" (off)"));
            QCOMPARE(enabled, (QStringList{QStringLiteral("Show log"), QStringLiteral("Cancel"),
                                           QStringLiteral("Build again"),
                                           QStringLiteral("Publish\u2026 (off)")}));
            menu->actions().at(3)->trigger(); // Build again
            QCOMPARE(rebuildRequested.size(), 1);
            QCOMPARE(rebuildRequested.first().first().toString(), target.variant);
        }
        QVERIFY(!view.menuFor(QModelIndex()));
        QTest::keyClick(&view, Qt::Key_Delete);
        QCOMPARE(cancelRequested.size(), 1);
        QVERIFY(QTest::qWaitFor([&] { return queue.job(id)->isFinished(); }, 10000));
        QCOMPARE(queue.job(id)->state, JobState::Cancelled);
        QCOMPARE(model.index(0, BuildJobsModel::StateColumn).data().toString(),
                 QStringLiteral("cancelled"));
        // A finished job cannot be cancelled; it was not built, so it cannot be published.
        const std::unique_ptr<QMenu> after = view.menuFor(model.index(0, 0));
        QVERIFY(!after->actions().at(1)->isEnabled());
        QVERIFY(!after->actions().at(4)->isEnabled());
    }

    void followsALiveJobAndOutlivesNothing()
    {
        QTemporaryDir dir;
        LogStore logs(dir.filePath("logs"));
        BuildQueue queue;
        queue.setLogStore(&logs);
        // The job prints half its lines, then waits while its gate file exists: the test holds
        // it mid-run for as long as it needs, and lets it finish by removing the file.
        const QString gate = dir.filePath("gate");
        ProcessSpec spec;
        spec.program = QStringLiteral("/bin/sh");
        spec.arguments = {QStringLiteral("-c"),
                          QStringLiteral("i=0; while [ $i -lt 3000 ]; do echo \"out $i\"; "
                                         "i=$((i+1)); if [ $i = 1500 ]; then "
                                         "while [ -e \"$1\" ]; do /bin/sleep 0.05; done; fi; done"),
                          QStringLiteral("sh"), gate};
        spec.workingDirectory = dir.path();
        BuildTarget target;
        target.variant = QStringLiteral("pytorch-python313-cpu-avx2");
        QVERIFY(touch(gate));
        const quint64 id =
            queue.enqueueProcess(target, spec, JobKind::Build, BackendKind::Custom, false);
        // Attach mid-run: the pane must show the file's head and the live tail, no gap, no
        // duplicate.
        QVERIFY(QTest::qWaitFor(
            [&] { return test::readFile(logs.logPath(id)).contains("out 1499"); }, 10000));
        auto* pane = new LogPane;
        pane->attachJob(&queue, id);
        QCOMPARE(queue.job(id)->state, JobState::Running);
        QCOMPARE(pane->logFilePath(), logs.logPath(id));
        pane->flush();
        QVERIFY(pane->textView()->toPlainText().endsWith(QLatin1String("out 1499")));
        QVERIFY(QFile::remove(gate));
        QVERIFY(QTest::qWaitFor([&] { return queue.job(id)->isFinished(); }, 20000));
        QCOMPARE(queue.job(id)->state, JobState::Succeeded);
        pane->flush();
        const QString expected = QString::fromUtf8(test::readFile(logs.logPath(id))).trimmed();
        QVERIFY(expected.endsWith(QLatin1String("out 2999")));
        QCOMPARE(pane->textView()->toPlainText(), expected);

        // Closing a pane leaves its build alone.
        QVERIFY(touch(gate));
        const quint64 second =
            queue.enqueueProcess(target, spec, JobKind::Build, BackendKind::Custom, false);
        QVERIFY(QTest::qWaitFor(
            [&] { return test::readFile(logs.logPath(second)).contains("out 1499"); }, 10000));
        auto* other = new LogPane;
        other->attachJob(&queue, second);
        delete other;
        QCoreApplication::processEvents();
        QCOMPARE(queue.job(second)->state, JobState::Running);
        QVERIFY(QFile::remove(gate));
        QVERIFY(QTest::qWaitFor([&] { return queue.job(second)->isFinished(); }, 20000));
        QCOMPARE(queue.job(second)->state, JobState::Succeeded);
        QCOMPARE(test::readFile(logs.logPath(second)).count("\nout "), 3000);
        delete pane;
    }

    // A job whose log file stopped short (a full disk: /dev/full): a pane that reads the file
    // after that says where it stops, under what the file holds.
    void saysWhereTheLogFileStops()
    {
        QTemporaryDir dir;
        LogStore logs(dir.filePath("logs"));
        BuildQueue queue;
        queue.setLogStore(&logs);
        QVERIFY(QDir().mkpath(logs.directory()));
        QVERIFY(QFile::link(QStringLiteral("/dev/full"), logs.logPath(1)));
        ProcessSpec spec;
        spec.program = QStringLiteral("/bin/sh");
        spec.arguments = {QStringLiteral("-c"), QStringLiteral("echo lost")};
        spec.workingDirectory = dir.path();
        BuildTarget target;
        target.variant = QStringLiteral("pytorch-python313-cpu-avx2");
        const quint64 id =
            queue.enqueueProcess(target, spec, JobKind::Build, BackendKind::Custom, false);
        QCOMPARE(id, quint64(1));
        QVERIFY(QTest::qWaitFor([&] { return queue.job(id)->isFinished(); }, 20000));
        QVERIFY(!queue.job(id)->logError.isEmpty());
        LogPane pane;
        pane.attachJob(&queue, id);
        pane.flush();
        QCOMPARE(pane.textView()->toPlainText(), queue.job(id)->logStopNote().trimmed());
    }
};

QTEST_MAIN(TestLogPane)
#include "tst_logpane.moc"
