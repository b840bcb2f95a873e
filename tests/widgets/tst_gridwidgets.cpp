// The grid's widgets offscreen: the cell delegate's pixels, the Nix highlighter's tokens,
// the preview's byte-offset ranges, the slice chooser and the filter bar.

#include "detailspanel.h"
#include "filterbar.h"
#include "itemmodels/findingsmodel.h"
#include "itemmodels/matrixmodel.h"
#include "matrixview.h"
#include "nixhighlighter.h"
#include "recipepreview.h"
#include "slicechooser.h"
#include "statuslegend.h"
#include "statusstyle.h"
#include "syntaxhighlighting.h"

#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QToolButton>
#include <QTreeView>

#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/SyntaxHighlighter>
#include <KSyntaxHighlighting/Theme>
#endif

using namespace rg;

namespace {

Cell entry(const char* name, CellStatus status, bool present)
{
    Cell e;
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
    a->cells.push_back(entry("pytorch-python313-cuda13_0-sm120-avx512", CellStatus::Ok, true));
    a->cells.push_back(entry("pytorch-python313-cuda13_0-sm120-avx2", CellStatus::Broken, true));
    a->cells.push_back(entry("pytorch-python313-cuda13_0-sm90-avx512", CellStatus::Missing, false));
    a->cells.push_back(entry("pytorch-python313-cuda13_0-sm90-avx2", CellStatus::Unexpected, true));
    a->cells.push_back(entry("pytorch-python313-cuda13_0-sm121-armv9", CellStatus::Ok, true));
    return a;
}

// sample() plus an ok recipe with two warnings (sm90-avx2) and a gap (sm120-avx2 is taken,
// so sm100-avx512 next to an sm100-avx2 recipe).
std::shared_ptr<const Analysis> sampleWithWarningsAndGap()
{
    auto a = std::make_shared<Analysis>(*sample());
    Cell warned = entry("pytorch-python313-cuda13_0-sm100-avx2", CellStatus::Ok, true);
    for (const char* rule : {"deprecated-torch-attribute", "unpinned-nixpkgs"}) {
        Finding finding;
        finding.ruleId = rule;
        finding.severity = Severity::Warning;
        warned.findings.push_back(finding);
    }
    a->cells.push_back(warned);
    a->cells.push_back(entry("pytorch-python313-cuda13_0-sm100-avx512", CellStatus::Gap, false));
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
        // sm121 is an ARM SoC: its x86 cells are hatched in the hatch colour, with the
        // impossible icon and label on top.
        const QColor hatch = StatusStyle::hatch(palette).color();
        const QRect impossible = rectOf("sm121", "avx2");
        QVERIFY(impossible.isValid());
        QVERIFY(pixelsNear(image, impossible, hatch, 10) > 20);
        QCOMPARE(pixelsNear(image, rectOf("sm90", "avx512"), hatch, 10), 0); // not hatched
        QVERIFY(pixelsNear(image, impossible, StatusStyle::color(CellStatus::Impossible, palette),
                           200) > 20);

        // The filter fades what it hides: the ok chip loses its colour.
        model.setFilter(QStringLiteral("avx2"), MatrixModel::allStatuses);
        QApplication::processEvents();
        image = view.viewport()->grab().toImage();
        QCOMPARE(pixelsNear(image, rectOf("sm120", "avx512"), ok, 30), 0);
        QVERIFY(pixelsNear(image, rectOf("sm120", "avx2"), broken) > 20);
    }

    void delegatePaintsWarningBadgeAndGap()
    {
        MatrixModel model;
        model.setSlices({{"313", "13.0", {}}});
        model.setAnalysis(sampleWithWarningsAndGap());
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
        const QImage image = view.viewport()->grab().toImage();
        const QColor amber = StatusStyle::warningColor(palette);
        // The warning sign sits in the bottom-right quarter of the warned chip, nowhere else.
        const QRect warned = rectOf("sm100", "avx2");
        QVERIFY(warned.isValid());
        const QRect corner(warned.center(), warned.bottomRight());
        QVERIFY(pixelsNear(image, corner, amber, 30) > 12);
        QCOMPARE(pixelsNear(image, QRect(warned.topLeft(), warned.center()), amber, 30), 0);
        QCOMPARE(pixelsNear(image, rectOf("sm120", "avx512"), amber, 30), 0);
        QCOMPARE(pixelsNear(image, rectOf("sm120", "avx2"), amber, 30), 0); // broken, no warning

        // A gap: its colour on a dotted outline, no fill inside.
        const QRect gap = rectOf("sm100", "avx512");
        QVERIFY(gap.isValid());
        const QColor gapColor = StatusStyle::color(CellStatus::Gap, palette);
        QVERIFY(pixelsNear(image, gap, gapColor, 30) > 20);
        const QColor base = palette.color(QPalette::Base);
        const QRect inside = gap.adjusted(gap.width() / 2, 12, -10, -12); // right of the word
        QCOMPARE(pixelsNear(image, inside, base, 6), inside.width() * inside.height());
        // Dotted: along the chip's top edge the colour comes and goes; an ok chip's is solid.
        const auto edgeCoverage = [&](const QRect& cell, const QColor& color) {
            double best = 0;
            for (int y = cell.top() + 2; y < cell.top() + 9; ++y) {
                const QRect row(cell.left() + 12, y, cell.width() - 24, 1);
                best = std::max(best, double(pixelsNear(image, row, color, 60)) / row.width());
            }
            return best;
        };
        const double dotted = edgeCoverage(gap, gapColor);
        QVERIFY2(dotted > 0.2 && dotted < 0.8, qPrintable(QString::number(dotted)));
        QVERIFY(edgeCoverage(rectOf("sm120", "avx512"),
                             StatusStyle::color(CellStatus::Ok, palette)) > 0.95);
    }

    // A build of an older version of the recipe is a grey clock badge, never a success's
    // green tick; its tooltip line says which and when.
    void delegatePaintsAnOutdatedBuildApartFromASuccess()
    {
        MatrixModel model;
        model.setSlices({{"313", "13.0", {}}});
        model.setAnalysis(sample());
        model.setBuildStateProvider([](const Cell& e) {
            CellBuildState state;
            const std::string name = e.variant.toString();
            if (name == "pytorch-python313-cuda13_0-sm120-avx2") { // broken: a red chip
                state.last = CellBuildState::Result::Outdated;
                state.summary = QStringLiteral("built from an older version: succeeded 2026-11-20");
            } else if (name == "pytorch-python313-cuda13_0-sm90-avx2") { // unexpected
                state.last = CellBuildState::Result::Succeeded;
                state.summary = QStringLiteral("succeeded in 12s");
            }
            return state;
        });
        MatrixView view;
        view.setModel(&model);
        view.resize(900, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const auto indexOf = [&](const char* row, const char* column) {
            for (int r = 0; r < model.rowCount(); ++r)
                for (int c = 0; c < model.columnCount(); ++c)
                    if (model.rowId(r) == row && model.columnId(c) == column)
                        return model.index(r, c);
            return QModelIndex();
        };
        const QModelIndex outdated = indexOf("sm120", "avx2");
        const QModelIndex succeeded = indexOf("sm90", "avx2");
        QVERIFY(outdated.isValid() && succeeded.isValid());
        const QImage image = view.viewport()->grab().toImage();
        const auto badgeCorner = [&](const QModelIndex& index) {
            const QRect cell = view.visualRect(index);
            return QRect(cell.right() - 22, cell.top(), 22, 22);
        };
        const QPalette& palette = view.palette();
        const QColor green = StatusStyle::color(CellStatus::Ok, palette);
        const QColor grey = StatusStyle::color(CellStatus::Impossible, palette);
        QVERIFY(pixelsNear(image, badgeCorner(succeeded), green, 30) > 10);
        QCOMPARE(pixelsNear(image, badgeCorner(outdated), green, 30), 0);
        QVERIFY(pixelsNear(image, badgeCorner(outdated), grey, 30) > 10);
        QCOMPARE(outdated.data(MatrixModel::BuildStateRole).toList().value(0).toMap().value("last"),
                 QVariant(int(CellBuildState::Result::Outdated)));
        QVERIFY(outdated.data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("build: built from an older version: succeeded")));
    }

    // A build on a remote builder carries the builder's host on the chip, beside the badge;
    // one built on this machine carries nothing there.
    void delegateNamesTheRemoteBuilder()
    {
        MatrixModel model;
        model.setSlices({{"313", "13.0", {}}});
        model.setAnalysis(sample());
        model.setBuildStateProvider([](const Cell& e) {
            CellBuildState state;
            const std::string name = e.variant.toString();
            if (name == "pytorch-python313-cuda13_0-sm90-avx2" ||
                name == "pytorch-python313-cuda13_0-sm120-avx2") {
                state.last = CellBuildState::Result::Succeeded;
                state.summary = QStringLiteral("succeeded in 12s");
            }
            if (name == "pytorch-python313-cuda13_0-sm90-avx2")
                state.builder = QStringLiteral("root@farm-2");
            return state;
        });
        MatrixView view;
        view.setModel(&model);
        view.resize(900, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const auto indexOf = [&](const char* row, const char* column) {
            for (int r = 0; r < model.rowCount(); ++r)
                for (int c = 0; c < model.columnCount(); ++c)
                    if (model.rowId(r) == row && model.columnId(c) == column)
                        return model.index(r, c);
            return QModelIndex();
        };
        const QModelIndex remote = indexOf("sm90", "avx2");
        const QModelIndex here = indexOf("sm120", "avx2");
        QCOMPARE(
            remote.data(MatrixModel::BuildStateRole).toList().value(0).toMap().value("builder"),
            QVariant(QStringLiteral("root@farm-2")));
        const QImage image = view.viewport()->grab().toImage();
        QDir().mkpath(QStringLiteral(RG_BINARY_DIR "/screenshots"));
        image.save(QStringLiteral(RG_BINARY_DIR "/screenshots/grid-remote-builder.png"));
        // A strip just below the chip's top border, left of the badge: only the tag's text is
        // dark there (the border and the chip's own text are outside it).
        const auto darkPixels = [&](const QModelIndex& index) {
            const QRect cell = view.visualRect(index);
            const QRect strip(cell.left() + cell.width() / 3, cell.top() + 8,
                              cell.width() * 2 / 3 - 22, 6);
            int dark = 0;
            for (int y = strip.top(); y <= strip.bottom(); ++y)
                for (int x = strip.left(); x <= strip.right(); ++x)
                    dark += QColor(image.pixel(x, y)).lightness() < 100;
            return dark;
        };
        QVERIFY2(darkPixels(remote) > 5, qPrintable(QString::number(darkPixels(remote))));
        QCOMPARE(darkPixels(here), 0);
    }

    void legendNamesGapAndWarnings()
    {
        StatusLegend legend;
        legend.resize(1400, legend.sizeHint().height());
        QVERIFY(legend.accessibleDescription().contains(QStringLiteral("gap: ")));
        QVERIFY(legend.accessibleDescription().contains(QStringLiteral("warning sign")));
        // The hints a narrow grid elides are in the tooltip whole.
        QVERIFY2(legend.toolTip().contains(QStringLiteral("several chips: one per slice")),
                 qPrintable(legend.toolTip()));
        const QImage image = legend.grab().toImage();
        QVERIFY(pixelsNear(image, image.rect(), StatusStyle::warningColor(legend.palette()), 30) >
                10);
        QVERIFY(pixelsNear(image, image.rect(),
                           StatusStyle::color(CellStatus::Gap, legend.palette()), 30) > 4);
    }

    void detailsShowFactsByFlowAndGroup()
    {
        // Line 1 "let", line 2 the binding, line 3 the sink.
        const std::string source = "let\n  gpuArchNum = \"8.6\";\n  gpuTargets = [ gpuArchNum ];\n";
        const auto at = [&](const char* text) {
            const auto begin = static_cast<uint32_t>(source.find(text));
            return nix::SourceRange{begin, begin + static_cast<uint32_t>(strlen(text))};
        };
        auto facts = std::make_shared<RecipeFacts>();
        facts->path = ".flox/pkgs/pytorch-python313-cuda13_0-sm86-avx2.nix";
        facts->fileName = "pytorch-python313-cuda13_0-sm86-avx2.nix";
        facts->lines = std::make_shared<nix::LineIndex>(source);
        ArchSinkFact sink;
        sink.sink = ArchSink::GpuTargets;
        sink.value = "8.6";
        sink.range = at("\"8.6\"");
        sink.sinkRange = at("gpuTargets");
        sink.via = "gpuArchNum";
        sink.viaRange = at("gpuArchNum");
        facts->archSinks.push_back(sink);
        // A sink in a builder module the recipe calls: named where it is, no recipe line.
        ArchSinkFact built;
        built.sink = ArchSink::CudaCapabilities;
        built.value = "8.6";
        built.sinkIn = ".flox/pkgs/lib/mk-torch.nix:22";
        built.writtenIn = ".flox/pkgs/pytorch-python313-cuda13_0-sm86-avx2.nix:3";
        facts->archSinks.push_back(built);
        CpuFlagsFact flags;
        flags.flags = {"-march=x86-64-v3"};
        flags.sink = "CXXFLAGS";
        flags.via = "cpuFlags";
        flags.range = at("gpuTargets");
        facts->compilerFlags = flags;
        PlatformsFact platforms;
        platforms.origin = ValueOrigin::Inherited;
        platforms.expression = "oldAttrs.meta.platforms";
        facts->platformsValue = platforms;

        auto analysis = std::make_shared<Analysis>();
        Cell e;
        e.variant = *VariantName::parse("pytorch-python313-cuda13_0-sm86-avx2");
        e.status = CellStatus::Ok;
        e.recipe = facts;
        Finding warning;
        warning.ruleId = "unpinned-nixpkgs";
        warning.severity = Severity::Warning;
        e.findings = {warning};
        analysis->cells.push_back(e);
        RecipeGroup group;
        group.profile.label = "pytorch \u00b7 CUDA 13.0 \u00b7 6a030d5";
        group.profile.members = 5;
        group.profile.canonical = "pytorch-python313-cuda13_0-sm90-avx2.nix";
        group.profile.canonicalWhy = "carries the group's overlay set";
        group.files = {".flox/pkgs/other.nix", facts->path};
        analysis->groups.push_back(group);

        DetailsPanel panel;
        panel.setEntries(analysis, {&analysis->cells[0]}, QStringLiteral("sm86 \u00d7 avx2"));
        const QString text = panel.factsText();
        QVERIFY2(text.contains(QStringLiteral("gpuTargets \u2190 \"8.6\" via gpuArchNum (line 2)")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral(
                     "cudaCapabilities in .flox/pkgs/lib/mk-torch.nix:22 \u2190 \"8.6\", "
                     "written in .flox/pkgs/pytorch-python313-cuda13_0-sm86-avx2.nix:3")),
                 qPrintable(text));
        QVERIFY2(
            text.contains(QStringLiteral("CXXFLAGS \u2190 -march=x86-64-v3 via cpuFlags (line 3)")),
            qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("enables mmx, popcnt")));
        QVERIFY(text.contains(QStringLiteral("avx2, fma, f16c")));
        QVERIFY(text.contains(QStringLiteral("inherited from nixpkgs (oldAttrs.meta.platforms)")));
        QVERIFY(
            text.contains(QStringLiteral("pytorch \u00b7 CUDA 13.0 \u00b7 6a030d5 (5 recipes)")));
        QVERIFY(text.contains(QStringLiteral(
            "pytorch-python313-cuda13_0-sm90-avx2.nix \u2014 carries the group's overlay set")));
        QVERIFY(!text.contains(QStringLiteral("this recipe")));
        QVERIFY(text.contains(QStringLiteral("1 warning")));

        // Each part of a sink entry links to where it is written.
        QTextBrowser* factsView = nullptr;
        for (QTextBrowser* view : panel.findChildren<QTextBrowser*>())
            if (view->accessibleName() == QStringLiteral("Recipe facts"))
                factsView = view;
        QVERIFY(factsView);
        const QString href =
            QStringLiteral("range:%1:%2").arg(sink.range.begin).arg(sink.range.end);
        QVERIFY(factsView->toHtml().contains(href));
        QVERIFY(factsView->toHtml().contains(
            QStringLiteral("range:%1:%2").arg(sink.viaRange.begin).arg(sink.viaRange.end)));
        QSignalSpy range(&panel, &DetailsPanel::rangeActivated);
        emit factsView->anchorClicked(QUrl(href));
        QCOMPARE(range.count(), 1);
        QCOMPARE(range.first().at(0).toUInt(), sink.range.begin);
        QCOMPARE(range.first().at(1).toUInt(), sink.range.end);
        // From the keyboard too: Tab reaches the facts and a link in them, Return follows it.
        QVERIFY(factsView->focusPolicy() & Qt::TabFocus);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        factsView->setFocus();
        QTest::keyClick(factsView, Qt::Key_Tab);
        QVERIFY2(factsView->textCursor().hasSelection(), "Tab reached no link");
        QTest::keyClick(factsView, Qt::Key_Return);
        QCOMPARE(range.count(), 2);

        // A new analysis with the same facts (a re-scan after an edit elsewhere) keeps where
        // the reader scrolled to in them.
        panel.resize(360, 260);
        QScrollBar* scroll = factsView->verticalScrollBar();
        QTRY_VERIFY(scroll->maximum() > 0);
        scroll->setValue(scroll->maximum());
        const int scrolled = scroll->value();
        QVERIFY(scrolled > 0);
        const auto rescanned = std::make_shared<Analysis>(*analysis);
        panel.setEntries(rescanned, {&rescanned->cells[0]}, QStringLiteral("sm86 \u00d7 avx2"));
        QCOMPARE(scroll->value(), scrolled);

        // Unknown platforms say so with the expression; the canonical recipe is marked.
        facts->platformsValue->origin = ValueOrigin::Unknown;
        facts->platformsValue->expression = "myPlatforms";
        analysis->groups[0].profile.canonical = facts->fileName;
        panel.setEntries(analysis, {&analysis->cells[0]}, QStringLiteral("sm86 \u00d7 avx2"));
        QVERIFY(panel.factsText().contains(QStringLiteral("unknown: myPlatforms")));
        QVERIFY(panel.factsText().contains(QStringLiteral("(this recipe)")));
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
        // The same text read again keeps what the reader highlighted; another text does not.
        preview.showRecipe(QStringLiteral("a.nix"), bytes);
        QCOMPARE(preview.highlightedText(), QStringLiteral("in gpuArchSM"));
        preview.showRecipe(QStringLiteral("a.nix"), bytes + "# edited\n");
        QCOMPARE(preview.highlightedText(), QString());
        preview.showRecipe(QStringLiteral("a.nix"), bytes);
        QVERIFY(preview.lineNumberAreaWidth() > 0);
        QVERIFY(preview.highlighter() != nullptr);
        // What About names is what the preview really attached.
        QCOMPARE(SyntaxHighlighting::nameOf(preview.highlighter()),
                 SyntaxHighlighting::backendName());
#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
        QVERIFY(
            SyntaxHighlighting::backendName().startsWith(QStringLiteral("KSyntaxHighlighting")));
#else
        QCOMPARE(SyntaxHighlighting::backendName(), QStringLiteral("built-in Nix highlighter"));
#endif
        const auto coloured = [&preview](const QString& text) {
            const int at = preview.toPlainText().indexOf(text);
            return at >= 0 && formatAt(*preview.document(), at).foreground().style() != Qt::NoBrush;
        };
        QVERIFY(coloured(QStringLiteral("\"8.6\"")));
        QCOMPARE(preview.lineWrapMode(), QPlainTextEdit::NoWrap);

        // A message is prose: wrapped, and its quoted words and numbers not coloured as Nix.
        preview.showMessage(QStringLiteral("a.nix"),
                            QStringLiteral("deleted; it said let gpuArchSM = \"8.6\" in 2.10"));
        QVERIFY(!preview.hasRecipe());
        QVERIFY(!coloured(QStringLiteral("\"8.6\"")));
        QCOMPARE(preview.lineWrapMode(), QPlainTextEdit::WidgetWidth);
        preview.highlightRange(0, 3); // ignored without a recipe, no crash
        QCOMPARE(preview.highlightedText(), QString());
        preview.showRecipe(QStringLiteral("a.nix"), bytes);
        QVERIFY(coloured(QStringLiteral("\"8.6\"")));
        QCOMPARE(preview.lineWrapMode(), QPlainTextEdit::NoWrap);
    }

    // A recipe just shown scrolls to its first error, past an earlier warning, when the error is
    // out of sight; a re-read of the same file keeps the reader's place; a recipe with nothing
    // out of sight stays at its top.
    void previewOpensAtTheFirstError()
    {
        RecipePreview preview;
        preview.resize(600, 300);
        preview.show();
        QVERIFY(QTest::qWaitForWindowExposed(&preview));
        QByteArray bytes;
        for (int line = 1; line <= 300; ++line)
            bytes += "  line" + QByteArray::number(line) + " = " + QByteArray::number(line) + ";\n";
        const auto offsetOf = [&](int line) {
            return uint32_t(bytes.indexOf("line" + QByteArray::number(line) + " "));
        };
        const auto markersAt = [&](int warning, int error) {
            std::vector<RecipePreview::Marker> markers{
                {offsetOf(warning), offsetOf(warning) + 5, Severity::Warning, "a warning"}};
            if (error > 0)
                markers.push_back({offsetOf(error), offsetOf(error) + 5, Severity::Error, "error"});
            return markers;
        };
        preview.showRecipe(QStringLiteral("a.nix"), bytes);
        QVERIFY(preview.isLineVisible(1));
        QVERIFY(!preview.isLineVisible(250));
        preview.setMarkers(markersAt(120, 250));
        QVERIFY(preview.isLineVisible(250));
        QVERIFY(!preview.isLineVisible(1));
        QVERIFY(preview.highlightedText().isEmpty()); // in sight, not chosen

        // The same file read again after an edit: the place the user scrolled to stays.
        preview.verticalScrollBar()->setValue(0);
        preview.showRecipe(QStringLiteral("a.nix"), bytes);
        preview.setMarkers(markersAt(120, 250));
        QVERIFY(preview.isLineVisible(1));

        // Another file with only a warning out of sight: the warning.
        preview.showRecipe(QStringLiteral("b.nix"), bytes);
        preview.setMarkers(markersAt(200, 0));
        QVERIFY(preview.isLineVisible(200));

        // Another file whose error is on its first screen: no scrolling.
        preview.showRecipe(QStringLiteral("c.nix"), bytes);
        QCOMPARE(preview.verticalScrollBar()->value(), 0);
        preview.setMarkers(markersAt(250, 3));
        QCOMPARE(preview.verticalScrollBar()->value(), 0);
    }

    // The preview's Nix highlighting in a light and a dark palette: KSyntaxHighlighting's Nix
    // definition with the Breeze theme of the palette's lightness when it is there, otherwise
    // the built-in highlighter's own formats. A keyword and a string are checked by colour.
    void previewHighlightsKeywordsInThePalettesColours()
    {
        const QByteArray bytes = "let\n  s = \"x86\";\nin s\n";
        const auto formatAt = [](const QTextDocument* document, int position) {
            const QTextBlock block = document->findBlock(position);
            for (const QTextLayout::FormatRange& range : block.layout()->formats())
                if (range.start <= position - block.position() &&
                    position - block.position() < range.start + range.length)
                    return range.format;
            return QTextCharFormat();
        };
        QColor keywordIn[2];
        for (const bool dark : {false, true}) {
            QPalette palette;
            palette.setColor(QPalette::Base, dark ? QColor(0x1e, 0x1e, 0x1e) : Qt::white);
            palette.setColor(QPalette::Text, dark ? QColor(0xe0, 0xe0, 0xe0) : Qt::black);
            RecipePreview preview;
            preview.setPalette(palette);
            preview.showRecipe(QStringLiteral("a.nix"), bytes);
            const QTextDocument* document = preview.document();
            const QTextCharFormat keyword = formatAt(document, 0); // "let"
            const QTextCharFormat string =
                formatAt(document, int(preview.toPlainText().indexOf(QStringLiteral("x86"))));
            QVERIFY2(keyword.hasProperty(QTextFormat::ForegroundBrush), dark ? "dark" : "light");
            QVERIFY(string.hasProperty(QTextFormat::ForegroundBrush));
            QVERIFY(keyword.foreground().color() != string.foreground().color());
            keywordIn[dark] = keyword.foreground().color();
#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
            auto* ksyntax =
                qobject_cast<KSyntaxHighlighting::SyntaxHighlighter*>(preview.highlighter());
            QVERIFY(ksyntax);
            QCOMPARE(ksyntax->definition().name(), QStringLiteral("Nix"));
            const QString themeName =
                dark ? QStringLiteral("Breeze Dark") : QStringLiteral("Breeze Light");
            QCOMPARE(ksyntax->theme().name(), themeName);
            // The theme's colours, read from a repository of its own, not from the preview.
            KSyntaxHighlighting::Repository repository;
            const KSyntaxHighlighting::Theme theme = repository.theme(themeName);
            QVERIFY(theme.isValid());
            QCOMPARE(keyword.foreground().color(),
                     QColor::fromRgba(theme.textColor(KSyntaxHighlighting::Theme::Keyword)));
            QCOMPARE(keyword.fontWeight() >= QFont::Bold,
                     theme.isBold(KSyntaxHighlighting::Theme::Keyword));
            QCOMPARE(string.foreground().color(),
                     QColor::fromRgba(theme.textColor(KSyntaxHighlighting::Theme::String)));
#else
            auto* builtin = qobject_cast<NixHighlighter*>(preview.highlighter());
            QVERIFY(builtin);
            QCOMPARE(keyword.foreground().color(),
                     builtin->format(NixHighlighter::Token::Keyword).foreground().color());
            QCOMPARE(string.foreground().color(),
                     builtin->format(NixHighlighter::Token::String).foreground().color());
#endif
        }
        // Following the palette: the dark palette's keywords are lighter than the light one's.
        QVERIFY2(keywordIn[true].lightness() > keywordIn[false].lightness(),
                 qPrintable(keywordIn[true].name() + " vs " + keywordIn[false].name()));
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
        Cell e = entry("pytorch-python313-cuda13_0-sm121-armv9", CellStatus::Broken, true);
        Finding finding;
        finding.ruleId = "from-scratch-pattern";
        finding.message = "builds torch from scratch with buildPythonPackage/mkDerivation (pname "
                          "\"pytorch-python313-cuda13_0-sm121-armv9-nightly\", line 30) instead of "
                          "overriding nixpkgs' torch";
        finding.line = 30;
        finding.column = 11;
        e.findings = {finding};
        analysis->cells.push_back(e);
        QSignalSpy current(&panel, &DetailsPanel::currentEntryChanged);
        panel.setEntries(analysis, {&analysis->cells[0]}, QStringLiteral("sm121 \u00d7 armv9"));
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
        bar.setCounts({1, 4, 1, 41, 1, 0, 3}, 2);
        QCOMPARE(bar.statusButton(CellStatus::Missing)->text(), QStringLiteral("41 missing"));
        QCOMPARE(bar.statusButton(CellStatus::Gap)->text(), QStringLiteral("3 gap"));
        QCOMPARE(bar.warningsButton()->text(), QStringLiteral("2 with warnings"));

        // The warnings toggle narrows: off by default, on shows only recipes with warnings.
        QVERIFY(!bar.warningsOnly());
        bar.warningsButton()->click();
        QVERIFY(bar.warningsOnly());
        QCOMPARE(changed.count(), 6);
        QCOMPARE(bar.statusMask(), MatrixModel::allStatuses & ~(1u << unsigned(CellStatus::Ok)));

        // Nothing to count: a toggle in its neutral state steps aside; a switched one stays.
        bar.setCounts({0, 4, 1, 41, 1, 0, 0}, 0);
        QVERIFY(bar.statusButton(CellStatus::Impossible)->isHidden());
        QVERIFY(bar.statusButton(CellStatus::Gap)->isHidden());
        QVERIFY(!bar.statusButton(CellStatus::Ok)->isHidden()); // unchecked above
        QVERIFY(!bar.warningsButton()->isHidden());             // checked above
        bar.setWarningsOnly(false);
        bar.setCounts({0, 4, 1, 41, 1, 0, 3}, 0);
        QVERIFY(bar.warningsButton()->isHidden());
        QVERIFY(!bar.statusButton(CellStatus::Gap)->isHidden());
    }
};

QTEST_MAIN(TestGridWidgets)
#include "tst_gridwidgets.moc"
