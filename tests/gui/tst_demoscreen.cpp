// The demo window on a real X server (xvfb-run, the xcb platform; not offscreen): the screen's
// own pixels, grabbed from X, show the preview's first Nix keyword in the colour its highlighter
// gave it — KSyntaxHighlighting's Breeze theme where the build has it, the built-in colours
// otherwise. Saved as screenshots/demo-window-x11.png beside the build for a look.

#include "guitestsupport.h"
#include "mainwindow.h"
#include "recipepreview.h"
#include "sessions/repositorysession.h"
#include "syntaxhighlighting.h"

#include <QApplication>
#include <QScreen>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTextBlock>
#include <QTextLayout>
#include <QWindow>

#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/Theme>
#endif

using namespace rg;
using namespace rg::test;

namespace {

int distance(const QColor& a, const QColor& b)
{
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) +
           std::abs(a.blue() - b.blue());
}

} // namespace

class TestDemoScreen : public QObject
{
    Q_OBJECT
    QString m_demo;

private slots:
    void initTestCase() { isolateSettings(); }
    void cleanupTestCase()
    {
        if (!m_demo.isEmpty())
            QDir(m_demo).removeRecursively();
    }

    void keywordIsDrawnInItsHighlightColour()
    {
        // Offscreen would not prove what a user's X server shows.
        QCOMPARE(QGuiApplication::platformName(), QStringLiteral("xcb"));
        MainWindow window;
        window.resize(1500, 920);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy changed(window.session(), &RepositorySession::analysisChanged);
        QVERIFY(window.openDemo());
        m_demo = window.demoPath();
        QVERIFY(changed.wait(10000));
        QSignalSpy preview(&window, &MainWindow::previewUpdated);
        QVERIFY(window.selectCell(CellSelector("pytorch-python313-cuda13_0-sm89-avx2")));
        QVERIFY(preview.count() > 0 || preview.wait(5000));

        RecipePreview* view = window.preview();
        QVERIFY(view->hasRecipe());
        // The first line that is the keyword `let` alone.
        QTextBlock block = view->document()->begin();
        while (block.isValid() && block.text() != QStringLiteral("let"))
            block = block.next();
        QVERIFY(block.isValid());
        QTextCharFormat keyword;
        for (const QTextLayout::FormatRange& range : block.layout()->formats())
            if (range.start == 0)
                keyword = range.format;
        QVERIFY(keyword.hasProperty(QTextFormat::ForegroundBrush));
        const QColor expected = keyword.foreground().color();
#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
        QVERIFY(SyntaxHighlighting::usesKSyntaxHighlighting());
        KSyntaxHighlighting::Repository repository;
        const bool dark = view->palette().color(QPalette::Base).lightness() < 128;
        const KSyntaxHighlighting::Theme theme =
            repository.theme(dark ? QStringLiteral("Breeze Dark") : QStringLiteral("Breeze Light"));
        QCOMPARE(expected, QColor::fromRgba(theme.textColor(KSyntaxHighlighting::Theme::Keyword)));
#endif
        const QColor base = view->palette().color(QPalette::Base);
        QVERIFY2(distance(expected, base) > 100,
                 qPrintable(expected.name() + " on " + base.name()));

        // Scroll the keyword into view without selecting it (selected text has other colours).
        QTextCursor cursor(block);
        view->setTextCursor(cursor);
        view->ensureCursorVisible();
        QCoreApplication::processEvents();
        QTest::qWait(200);
        QRect rect = view->cursorRect(cursor);
        cursor.movePosition(QTextCursor::EndOfBlock);
        rect = rect.united(view->cursorRect(cursor));
        QVERIFY(view->viewport()->rect().contains(rect));
        const QPoint topLeft = view->viewport()->mapTo(&window, rect.topLeft());

        // What the X server has on screen for the window, not a render of the widget.
        QTRY_VERIFY(window.windowHandle()->isExposed());
        const QImage shot = window.screen()
                                ->grabWindow(window.winId())
                                .toImage()
                                .convertToFormat(QImage::Format_RGB32);
        const QString png = QStringLiteral(RG_BINARY_DIR "/screenshots/demo-window-x11.png");
        QDir().mkpath(QFileInfo(png).absolutePath());
        QVERIFY(shot.save(png));
        const qreal scale = qreal(shot.width()) / window.width();
        const QRect word(QPoint(int(topLeft.x() * scale), int(topLeft.y() * scale)),
                         QSize(int(rect.width() * scale) + 1, int(rect.height() * scale)));
        QVERIFY(shot.rect().contains(word));
        // The glyphs' fully covered pixels are exactly the text colour; anti-aliased edges lie
        // between it and the background, so the pixel farthest from the background is the one.
        QColor ink = base;
        int inkPixels = 0;
        for (int y = word.top(); y <= word.bottom(); ++y)
            for (int x = word.left(); x <= word.right(); ++x) {
                const QColor c = shot.pixelColor(x, y);
                if (distance(c, base) > distance(ink, base))
                    ink = c;
                inkPixels += distance(c, expected) <= 12;
            }
        QVERIFY2(distance(ink, expected) <= 12,
                 qPrintable(QStringLiteral("keyword drawn in %1, highlighter says %2 (%3)")
                                .arg(ink.name(), expected.name(), png)));
        QVERIFY2(inkPixels >= 5, qPrintable(QString::number(inkPixels)));
    }
};

QTEST_MAIN(TestDemoScreen)
#include "tst_demoscreen.moc"
