// The grid's widgets offscreen: the cell delegate's pixels, the Nix highlighter's tokens,
// the preview's byte-offset ranges, the slice chooser and the filter bar.

#include "detailspanel.h"
#include "filterbar.h"
#include "matrixview.h"
#include "nixhighlighter.h"
#include "recipepreview.h"
#include "recipes/findingsmodel.h"
#include "recipes/matrixmodel.h"
#include "slicechooser.h"
#include "statusstyle.h"
#include "syntaxhighlighting.h"

#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QToolButton>
#include <QTreeView>

using namespace rg;

namespace {

MatrixEntry entry(const char* name, CellStatus status, bool present)
{
    MatrixEntry e;
    e.variant = *VariantName::parse(name);
    e.status = status;
    e.expected = status != CellStatus::Unexpected;
    if (present) {
        auto facts = std::make_shared<RecipeFacts>();
        facts->path = std::string(".flox/pkgs/") + name + ".nix";
        e.recipe = facts;
    }
    return e;
}

std::shared_ptr<const Analysis> sample()
{
    auto a = std::make_shared<Analysis>();
    a->entries.push_back(entry("pytorch-python313-cuda13_0-sm120-avx512", CellStatus::Ok, true));
    a->entries.push_back(entry("pytorch-python313-cuda13_0-sm120-avx2", CellStatus::Broken, true));
    a->entries.push_back(
        entry("pytorch-python313-cuda13_0-sm90-avx512", CellStatus::Missing, false));
    a->entries.push_back(
        entry("pytorch-python313-cuda13_0-sm90-avx2", CellStatus::Unexpected, true));
    a->entries.push_back(entry("pytorch-python313-cuda13_0-sm121-armv9", CellStatus::Ok, true));
    return a;
}

// How many pixels of `image` inside `rect` are close to `color`.
int pixelsNear(const QImage& image, const QRect& rect, const QColor& color, int tolerance = 40)
{
    int n = 0;
    for (int y = rect.top(); y <= rect.bottom(); ++y)
        for (int x = rect.left(); x <= rect.right(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (std::abs(c.red() - color.red()) + std::abs(c.green() - color.green()) +
                    std::abs(c.blue() - color.blue()) <
                tolerance)
                ++n;
        }
    return n;
}

QTextCharFormat formatAt(QTextDocument& document, int position)
{
    const QTextBlock block = document.findBlock(position);
    for (const QTextLayout::FormatRange& range : block.layout()->formats()) {
        const int at = position - block.position();
        if (at >= range.start && at < range.start + range.length)
            return range.format;
    }
    return {};
}

} // namespace

class TestGridWidgets : public QObject
{
    Q_OBJECT
private slots:
    void statusStyleNeverColourAlone()
    {
        const QPalette palette;
        QSet<QRgb> colors;
        for (int i = 0; i < cellStatusCount; ++i) {
            const auto status = static_cast<CellStatus>(i);
            QVERIFY(!StatusStyle::label(status).isEmpty());
            QVERIFY(!StatusStyle::description(status).isEmpty());
            colors.insert(StatusStyle::color(status, palette).rgb());
            const QImage icon = StatusStyle::icon(status, palette, 16).pixmap(16, 16).toImage();
            int opaque = 0;
            for (int y = 0; y < icon.height(); ++y)
                for (int x = 0; x < icon.width(); ++x)
                    opaque += qAlpha(icon.pixel(x, y)) > 100 ? 1 : 0;
            QVERIFY2(opaque > 10, qPrintable(StatusStyle::label(status))); // a drawn shape
        }
        QCOMPARE(colors.size(), cellStatusCount);
        QPalette dark;
        dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x20));
        QVERIFY(StatusStyle::isDark(dark));
        QVERIFY(StatusStyle::color(CellStatus::Ok, dark).lightness() >
                StatusStyle::color(CellStatus::Ok, palette).lightness());
    }

    void delegatePaintsStatusesHatchingAndFilter()
    {
        MatrixModel model;
        model.setSlices({{"313", "13.0", {}}});
        model.setAnalysis(sample());
        MatrixView view;
        view.setModel(&model);
        view.resize(900, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QPalette& palette = view.palette();
        const auto rectOf = [&](const char* row, const char* column) {
            for (int r = 0; r < model.rowCount(); ++r)
                for (int c = 0; c < model.columnCount(); ++c)
                    if (model.rowId(r) == row && model.columnId(c) == column)
                        return view.visualRect(model.index(r, c));
            return QRect();
        };
        QImage image = view.viewport()->grab().toImage();
        const QColor ok = StatusStyle::color(CellStatus::Ok, palette);
        const QColor broken = StatusStyle::color(CellStatus::Broken, palette);
        QVERIFY(pixelsNear(image, rectOf("sm120", "avx512"), ok) > 20);
        QCOMPARE(pixelsNear(image, rectOf("sm120", "avx512"), broken), 0);
        QVERIFY(pixelsNear(image, rectOf("sm120", "avx2"), broken) > 20);
        QVERIFY(pixelsNear(image, rectOf("sm90", "avx512"),
                           StatusStyle::color(CellStatus::Missing, palette)) > 20);
        // sm121 is an ARM SoC: its x86 cells are hatched in the impossible colour.
        const QColor hatch = StatusStyle::hatch(palette).color();
        const QRect impossible = rectOf("sm121", "avx2");
        QVERIFY(impossible.isValid());
        QVERIFY(pixelsNear(image, impossible, StatusStyle::color(CellStatus::Impossible, palette),
                           200) > 20);
        Q_UNUSED(hatch);

        // The filter fades what it hides: the ok chip loses its colour.
        model.setFilter(QStringLiteral("avx2"), MatrixModel::allStatuses);
        QApplication::processEvents();
        image = view.viewport()->grab().toImage();
        QCOMPARE(pixelsNear(image, rectOf("sm120", "avx512"), ok, 30), 0);
        QVERIFY(pixelsNear(image, rectOf("sm120", "avx2"), broken) > 20);
    }

    void viewSelectsWholeRowByHeaderAndEmitsMenu()
    {
        MatrixModel model;
        model.setSlices({{"313", "13.0", {}}});
        model.setAnalysis(sample());
        MatrixView view;
        view.setModel(&model);
        view.resize(900, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy changed(&view, &MatrixView::selectedCellsChanged);
        view.selectRow(0);
        QCOMPARE(view.selectedCells().size(), model.columnCount());
        QVERIFY(!changed.isEmpty());
        view.selectColumn(1);
        QCOMPARE(view.selectedCells().size(), model.rowCount());
        // Keyboard: arrows move, Shift extends.
        view.setCurrentIndex(model.index(0, 0));
        QTest::keyClick(view.viewport(), Qt::Key_Right, Qt::ShiftModifier);
        QCOMPARE(view.selectedCells().size(), 2);
        QSignalSpy menu(&view, &MatrixView::cellMenuRequested);
        QContextMenuEvent event(QContextMenuEvent::Keyboard, QPoint(), QPoint());
        QApplication::sendEvent(view.viewport(), &event);
        QCOMPARE(menu.count(), 1);
        QCOMPARE(menu.first().first().value<QModelIndex>(), view.currentIndex());
    }

    void nixHighlighterTokens()
    {
        QTextDocument document;
        const QString text = QStringLiteral("# comment\n"
                                            "let\n"
                                            "  gpuArchSM = \"9.0\";\n"
                                            "  src = ./patches/fix.patch;\n"
                                            "  n = 42;\n"
                                            "  s = ''\n"
                                            "    export X=${gpuArchSM} ''${literal}\n"
                                            "  '';\n"
                                            "  u = https://github.com/NixOS/nixpkgs;\n"
                                            "/* block\n"
                                            "   comment */\n"
                                            "in import <nixpkgs> { inherit n; }\n");
        document.setPlainText(text);
        NixHighlighter highlighter(&document, QPalette());
        const auto is = [&](const QString& needle, NixHighlighter::Token token, int skip = 0) {
            const int at = static_cast<int>(text.indexOf(needle)) + skip;
            return formatAt(document, at).foreground() == highlighter.format(token).foreground() &&
                   formatAt(document, at).fontWeight() == highlighter.format(token).fontWeight();
        };
        QVERIFY(is(QStringLiteral("# comment"), NixHighlighter::Token::Comment));
        QVERIFY(is(QStringLiteral("let"), NixHighlighter::Token::Keyword));
        QVERIFY(is(QStringLiteral("gpuArchSM ="), NixHighlighter::Token::Attribute));
        QVERIFY(is(QStringLiteral("\"9.0\""), NixHighlighter::Token::String, 1));
        QVERIFY(is(QStringLiteral("./patches"), NixHighlighter::Token::Path));
        QVERIFY(is(QStringLiteral("42"), NixHighlighter::Token::Number));
        QVERIFY(is(QStringLiteral("export X"), NixHighlighter::Token::String));
        QVERIFY(is(QStringLiteral("${gpuArchSM}"), NixHighlighter::Token::Interpolation));
        QVERIFY(is(QStringLiteral("''${"), NixHighlighter::Token::Escape));
        QVERIFY(is(QStringLiteral("https://"), NixHighlighter::Token::Path));
        QVERIFY(is(QStringLiteral("comment */"), NixHighlighter::Token::Comment));
        QVERIFY(is(QStringLiteral("import"), NixHighlighter::Token::Builtin));
        QVERIFY(is(QStringLiteral("<nixpkgs>"), NixHighlighter::Token::Path));
        QVERIFY(is(QStringLiteral("inherit"), NixHighlighter::Token::Keyword));
        // Dark palettes get light colours.
        QPalette dark;
        dark.setColor(QPalette::Base, Qt::black);
        highlighter.setPalette(dark);
        QVERIFY(highlighter.format(NixHighlighter::Token::String).foreground().color().lightness() >
                128);
    }

    void previewMapsByteRangesAndHighlights()
    {
        RecipePreview preview;
        preview.resize(600, 400);
        preview.show();
        // "é" is two bytes: byte offsets differ from character positions after it.
        const QByteArray bytes = "# caf\xc3\xa9\nlet\n  gpuArchSM = \"8.6\";\nin gpuArchSM\n";
        preview.showRecipe(QStringLiteral("a.nix"), bytes);
        QVERIFY(preview.hasRecipe());
        QVERIFY(preview.toPlainText().contains(QStringLiteral("caf\u00e9")));
        const int begin = static_cast<int>(bytes.indexOf("\"8.6\""));
        QCOMPARE(preview.characterPosition(uint32_t(begin)), begin - 1);
        preview.setMarkers(
            {{uint32_t(begin), uint32_t(begin + 5), Severity::Error, "gpuArchSM differs"}});
        preview.highlightRange(uint32_t(begin), uint32_t(begin + 5));
        QCOMPARE(preview.highlightedText(), QStringLiteral("\"8.6\""));
        QCOMPARE(preview.highlightedLine(), 3);
        QCOMPARE(preview.textCursor().blockNumber(), 2);
        // Extra selections: current line, the marker's underline, the active highlight.
        QCOMPARE(preview.extraSelections().size(), 3);
        preview.highlightLine(4);
        QCOMPARE(preview.highlightedText(), QStringLiteral("in gpuArchSM"));
        QVERIFY(preview.lineNumberAreaWidth() > 0);
        QVERIFY(preview.highlighter() != nullptr);
        QVERIFY(!SyntaxHighlighting::backendName().isEmpty());
        preview.showMessage(QStringLiteral("a.nix"), QStringLiteral("deleted"));
        QVERIFY(!preview.hasRecipe());
        preview.highlightRange(0, 3); // ignored without a recipe, no crash
        QCOMPARE(preview.highlightedText(), QString());
    }

    void sliceChooserKeepsOneOn()
    {
        SliceChooser chooser;
        const MatrixSlice a{"313", "13.0", {}}, b{"313", "12.9", {}};
        QSignalSpy changed(&chooser, &SliceChooser::selectionChanged);
        chooser.setSlices({a, b}, {b});
        QCOMPARE(chooser.selected(), std::vector<MatrixSlice>{b});
        chooser.button(a)->click();
        QCOMPARE(chooser.selected(), (std::vector<MatrixSlice>{a, b}));
        chooser.button(a)->click();
        chooser.button(b)->click(); // the last one stays on
        QCOMPARE(chooser.selected(), std::vector<MatrixSlice>{b});
        chooser.setSlices({a}, {b}); // b gone: falls back to the first
        QCOMPARE(chooser.selected(), std::vector<MatrixSlice>{a});
        QVERIFY(changed.count() >= 3);
    }

    void detailsWrapLongFindings()
    {
        DetailsPanel panel;
        panel.resize(460, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto analysis = std::make_shared<Analysis>();
        MatrixEntry e = entry("pytorch-python313-cuda13_0-sm121-armv9", CellStatus::Broken, true);
        Finding finding;
        finding.ruleId = "from-scratch-pattern";
        finding.message = "builds torch from scratch with buildPythonPackage/mkDerivation (pname "
                          "\"pytorch-python313-cuda13_0-sm121-armv9-nightly\", line 30) instead of "
                          "overriding nixpkgs' torch";
        finding.line = 30;
        finding.column = 11;
        e.findings = {finding};
        analysis->entries.push_back(e);
        QSignalSpy current(&panel, &DetailsPanel::currentEntryChanged);
        panel.setEntries(analysis, {&analysis->entries[0]}, QStringLiteral("sm121 \u00d7 armv9"));
        QCOMPARE(current.count(), 1);
        QTreeView* view = panel.findingsView();
        const QModelIndex message = view->model()->index(0, FindingsModel::MessageColumn);
        const int oneLine = view->fontMetrics().height();
        // The whole message is readable: wrapped onto several lines, not cut with an ellipsis.
        QTRY_VERIFY(view->visualRect(message).height() > 2 * oneLine);
        QVERIFY(panel.factsText().contains(QStringLiteral("broken")));
    }

    void filterBarMask()
    {
        FilterBar bar;
        QSignalSpy changed(&bar, &FilterBar::filterChanged);
        QCOMPARE(bar.statusMask(), MatrixModel::allStatuses);
        bar.statusButton(CellStatus::Ok)->click();
        QCOMPARE(bar.statusMask(), MatrixModel::allStatuses & ~(1u << unsigned(CellStatus::Ok)));
        QTest::keyClicks(bar.lineEdit(), QStringLiteral("sm90"));
        QCOMPARE(bar.text(), QStringLiteral("sm90"));
        QCOMPARE(changed.count(), 5);
        bar.setCounts({1, 4, 1, 41, 1, 0});
        QCOMPARE(bar.statusButton(CellStatus::Missing)->text(), QStringLiteral("41 missing"));
    }
};

QTEST_MAIN(TestGridWidgets)
#include "tst_gridwidgets.moc"
