// The change set review: every operation listed with its kind, size and reason, counts that
// follow the check boxes, the skipped cells, the current file's diff highlighted, keyboard
// navigation file to file, Apply only with something selected, the selection given back,
// the commit option, and a 250-file change set shown whole.

#include "changes/changeset.h"
#include "changes/unifieddiff.h"
#include "changesetreviewdialog.h"
#include "diffhighlighter.h"
#include "diffview.h"
#include "reviewfixture.h"
#include "syntaxhighlighting.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>
#include <QTreeWidget>

#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/SyntaxHighlighter>
#include <KSyntaxHighlighting/Theme>
#endif

using namespace rg;
using rg::test::operation;
using rg::test::Review;
using rg::test::reviewOf;

namespace {

ChangeSet sample()
{
    ChangeSet changes;
    changes.title = "Complete pytorch (3 cells)";
    changes.operations = {
        operation(FileOperationKind::Create, ".flox/pkgs/pytorch-python313-cpu-avx2.nix", "",
                  "{ pkgs }:\npkgs.hello\n", "missing cell", "pytorch-python313-cpu-avx2"),
        operation(FileOperationKind::Modify, ".flox/pkgs/pytorch-python313-cpu-avx512.nix",
                  "a\nb\nc\n", "a\nB\nc\nd\n", "pin-mismatch, missing-overlay",
                  "pytorch-python313-cpu-avx512"),
        operation(FileOperationKind::Delete, ".flox/pkgs/pytorch-python313-cpu-avx512-magma.nix",
                  "x\ny\n", "", "redundant", "pytorch-python313-cpu-avx512-magma"),
    };
    changes.skipped = {{"pytorch-python313-cuda13_0-sm121-armv9",
                        "the canonical recipe of CUDA 13.0 is itself broken"}};
    return changes;
}

QString text(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

class TestChangeSetReviewDialog : public QObject
{
    Q_OBJECT
private slots:
    void listsEveryOperationAndTheSkippedCells()
    {
        const Review r = reviewOf(sample());
        ChangeSetReviewDialog dialog(r.changes, r.diffs, r.stats);
        QTreeWidget* list = dialog.operationsView();
        QCOMPARE(list->topLevelItemCount(), 3);
        const char* kinds[] = {"create", "modify", "delete"};
        for (int i = 0; i < 3; ++i) {
            const QTreeWidgetItem* item = list->topLevelItem(i);
            const FileOperation& op = r.changes.operations[size_t(i)];
            // The list names the file; its path is in the tooltip and above the diff.
            QCOMPARE(item->text(ChangeSetReviewDialog::PathColumn),
                     QFileInfo(text(op.path)).fileName());
            QVERIFY(item->toolTip(ChangeSetReviewDialog::PathColumn).contains(text(op.path)));
            QCOMPARE(item->text(ChangeSetReviewDialog::KindColumn), QLatin1String(kinds[i]));
            QVERIFY(!item->icon(ChangeSetReviewDialog::KindColumn).isNull());
            QCOMPARE(item->text(ChangeSetReviewDialog::AddedColumn),
                     QStringLiteral("+%1").arg(r.stats[size_t(i)].added));
            QCOMPARE(item->text(ChangeSetReviewDialog::RemovedColumn),
                     QStringLiteral("\u2212%1").arg(r.stats[size_t(i)].removed));
            QCOMPARE(item->text(ChangeSetReviewDialog::ReasonColumn), text(op.reason));
            QCOMPARE(item->checkState(ChangeSetReviewDialog::PathColumn), Qt::Checked);
        }
        QCOMPARE(list->topLevelItem(1)->text(ChangeSetReviewDialog::AddedColumn),
                 QStringLiteral("+2"));
        QCOMPARE(list->topLevelItem(1)->text(ChangeSetReviewDialog::RemovedColumn),
                 QStringLiteral("\u22121"));
        QCOMPARE(dialog.countsText(), QStringLiteral("1 create \u00b7 1 modify \u00b7 1 delete"));
        QCOMPARE(dialog.skippedView()->topLevelItemCount(), 1);
        QCOMPARE(dialog.skippedView()->topLevelItem(0)->text(1),
                 QStringLiteral("the canonical recipe of CUDA 13.0 is itself broken"));
        QVERIFY(dialog.skippedView()->isVisibleTo(&dialog));
        QCOMPARE(dialog.currentOperation(), 0);
        QCOMPARE(dialog.diffView()->diff(), text(r.diffs[0]));
    }

    // A fix that takes out lines no finding names is listed unchecked, its reason in red
    // saying what it also removes, and the lines themselves in red above its diff.
    void whatAFixAlsoRemovesIsShownInRedAndUnchecked()
    {
        ChangeSet changes = sample();
        FileOperation& fix = changes.operations[1];
        fix.alsoRemoves = {"export USE_FBGEMM=0", "\"-DCXX_AVX2_FOUND=FALSE\""};
        fix.selected = false;
        const Review r = reviewOf(changes);
        ChangeSetReviewDialog dialog(r.changes, r.diffs, r.stats);
        QTreeWidget* list = dialog.operationsView();
        const QTreeWidgetItem* item = list->topLevelItem(1);
        QCOMPARE(item->checkState(ChangeSetReviewDialog::PathColumn), Qt::Unchecked);
        QVERIFY2(item->text(ChangeSetReviewDialog::ReasonColumn)
                     .startsWith(QStringLiteral("also removes 2 lines: export USE_FBGEMM=0")),
                 qPrintable(item->text(ChangeSetReviewDialog::ReasonColumn)));
        QVERIFY(item->text(ChangeSetReviewDialog::ReasonColumn).contains(text(fix.reason)));
        const QColor red = item->foreground(ChangeSetReviewDialog::ReasonColumn).color();
        QVERIFY2(red.red() > 2 * red.green() && red.red() > 2 * red.blue(), qPrintable(red.name()));
        // The other operations keep the list's own colour.
        QCOMPARE(list->topLevelItem(0)->foreground(ChangeSetReviewDialog::ReasonColumn).style(),
                 Qt::NoBrush);

        QLabel* removes = nullptr;
        for (QLabel* label : dialog.findChildren<QLabel*>())
            if (label->accessibleName() == QLatin1String("Also removes"))
                removes = label;
        QVERIFY(removes);
        QVERIFY(!removes->isVisibleTo(&dialog)); // the first operation removes nothing else
        list->setCurrentItem(list->topLevelItem(1));
        QVERIFY(removes->isVisibleTo(&dialog));
        QVERIFY2(removes->text().startsWith(QStringLiteral("Also removes 2 lines")),
                 qPrintable(removes->text()));
        QVERIFY(removes->text().contains(QStringLiteral("export USE_FBGEMM=0")));
        QVERIFY(removes->text().contains(QStringLiteral("-DCXX_AVX2_FOUND=FALSE")));
        const QColor shown = removes->palette().color(QPalette::WindowText);
        QVERIFY2(shown.red() > 2 * shown.green(), qPrintable(shown.name()));
        QVERIFY2(dialog.countsText().contains(QStringLiteral("1 of 3 left out")),
                 qPrintable(dialog.countsText()));
    }

    void countsFollowTheCheckBoxes()
    {
        const Review r = reviewOf(sample());
        ChangeSetReviewDialog dialog(r.changes, r.diffs, r.stats);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTreeWidget* list = dialog.operationsView();
        // Space on the current row leaves it out, as a user does from the keyboard.
        list->setFocus();
        dialog.setCurrentOperation(1);
        QTest::keyClick(list->viewport(), Qt::Key_Space);
        QCOMPARE(list->topLevelItem(1)->checkState(0), Qt::Unchecked);
        QCOMPARE(dialog.countsText(),
                 QStringLiteral("1 create \u00b7 1 delete \u2014 1 of 3 left out"));
        // A click on the check box of the first row.
        const QRect row = list->visualItemRect(list->topLevelItem(0));
        const QStyleOptionViewItem option = [&] {
            QStyleOptionViewItem o;
            o.initFrom(list);
            o.rect = row;
            o.features = QStyleOptionViewItem::HasCheckIndicator;
            return o;
        }();
        const QRect box =
            list->style()->subElementRect(QStyle::SE_ItemViewItemCheckIndicator, &option, list);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, box.center());
        QCOMPARE(list->topLevelItem(0)->checkState(0), Qt::Unchecked);
        QCOMPARE(dialog.countsText(), QStringLiteral("1 delete \u2014 2 of 3 left out"));
        QVERIFY(dialog.applyButton()->isEnabled());
        dialog.setOperationSelected(1, true);
        QCOMPARE(dialog.countsText(),
                 QStringLiteral("1 modify \u00b7 1 delete \u2014 1 of 3 left out"));
    }

    void applyNeedsASelection()
    {
        const Review r = reviewOf(sample());
        ChangeSetReviewDialog dialog(r.changes, r.diffs, r.stats);
        QVERIFY(dialog.applyButton()->isEnabled());
        for (int i = 0; i < 3; ++i)
            dialog.setOperationSelected(i, false);
        QVERIFY(!dialog.applyButton()->isEnabled());
        QCOMPARE(dialog.countsText(), QStringLiteral("nothing selected \u2014 3 of 3 left out"));
        dialog.setOperationSelected(2, true);
        QVERIFY(dialog.applyButton()->isEnabled());
    }

    void applyGivesBackTheSelection()
    {
        const Review r = reviewOf(sample());
        ChangeSetReviewDialog dialog(r.changes, r.diffs, r.stats);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.setOperationSelected(0, false);
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        QTest::mouseClick(dialog.applyButton(), Qt::LeftButton);
        QCOMPARE(accepted.count(), 1);
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        const ChangeSet& back = dialog.changeSet();
        QCOMPARE(back.operations.size(), size_t(3));
        QVERIFY(!back.operations[0].selected);
        QVERIFY(back.operations[1].selected);
        QVERIFY(back.operations[2].selected);
        // Everything else comes back as it came in.
        for (size_t i = 0; i < 3; ++i) {
            QCOMPARE(back.operations[i].path, r.changes.operations[i].path);
            QCOMPARE(back.operations[i].after, r.changes.operations[i].after);
            QCOMPARE(back.operations[i].plannedHash, r.changes.operations[i].plannedHash);
        }
        QCOMPARE(back.skipped.size(), size_t(1));
    }

    void keyboardMovesFileToFile()
    {
        const Review r = reviewOf(sample());
        ChangeSetReviewDialog dialog(r.changes, r.diffs, r.stats);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&dialog));
        QTreeWidget* list = dialog.operationsView();
        DiffView* diff = dialog.diffView();
        QVERIFY(list->hasFocus());
        QTest::keyClick(list, Qt::Key_Down);
        QCOMPARE(dialog.currentOperation(), 1);
        QCOMPARE(diff->diff(), text(r.diffs[1]));
        QVERIFY(diff->toPlainText().contains(QStringLiteral("+B")));

        diff->setFocus();
        QTest::keyClick(diff, Qt::Key_N);
        QCOMPARE(dialog.currentOperation(), 2);
        QCOMPARE(diff->diff(), text(r.diffs[2]));
        QVERIFY(diff->hasFocus());        // reading on, still in the diff
        QTest::keyClick(diff, Qt::Key_N); // the last file stays the last
        QCOMPARE(dialog.currentOperation(), 2);
        QTest::keyClick(diff, Qt::Key_P);
        QCOMPARE(dialog.currentOperation(), 1);
        QTest::keyClick(diff, Qt::Key_Up, Qt::AltModifier);
        QCOMPARE(dialog.currentOperation(), 0);
        QCOMPARE(diff->diff(), text(r.diffs[0]));
        QTest::keyClick(diff, Qt::Key_Down, Qt::AltModifier);
        QCOMPARE(dialog.currentOperation(), 1);
        QTest::keyClick(list, Qt::Key_Down, Qt::AltModifier); // also from the list
        QCOMPARE(dialog.currentOperation(), 2);
        QVERIFY(diff->isReadOnly());
    }

    void diffIsHighlighted()
    {
        const Review r = reviewOf(sample());
        ChangeSetReviewDialog dialog(r.changes, r.diffs, r.stats);
        dialog.setCurrentOperation(1);
        QSyntaxHighlighter* highlighter = dialog.diffView()->highlighter();
        QVERIFY(highlighter != nullptr);
        QCOMPARE(highlighter->document(), dialog.diffView()->document());
        const QString name = SyntaxHighlighting::nameOf(highlighter);
#ifdef RG_HAVE_KSYNTAXHIGHLIGHTING
        // The library's Diff definition and the Breeze theme of the palette, light and dark:
        // every line's formats are what the library itself gives that text with that theme.
        QCOMPARE(name, QStringLiteral("KSyntaxHighlighting " RG_KSYNTAXHIGHLIGHTING_VERSION
                                      " (Diff definition)"));
        QVERIFY(!qobject_cast<DiffHighlighter*>(highlighter));
        KSyntaxHighlighting::Repository repository;
        for (const bool dark : {false, true}) {
            QPalette palette;
            palette.setColor(QPalette::Base, dark ? QColor(0x1e, 0x1e, 0x1e) : Qt::white);
            palette.setColor(QPalette::Text, dark ? QColor(0xe0, 0xe0, 0xe0) : Qt::black);
            dialog.diffView()->setPalette(palette);
            auto* ksyntax = qobject_cast<KSyntaxHighlighting::SyntaxHighlighter*>(
                dialog.diffView()->highlighter());
            QVERIFY(ksyntax);
            QCOMPARE(ksyntax->definition().name(), QStringLiteral("Diff"));
            const QString themeName =
                dark ? QStringLiteral("Breeze Dark") : QStringLiteral("Breeze Light");
            QCOMPARE(ksyntax->theme().name(), themeName);
            QTextDocument reference;
            reference.setPlainText(dialog.diffView()->toPlainText());
            KSyntaxHighlighting::SyntaxHighlighter expected(&reference);
            expected.setDefinition(repository.definitionForName(QStringLiteral("Diff")));
            expected.setTheme(repository.theme(themeName));
            expected.rehighlight();
            QStringList seen;
            QTextBlock ours = dialog.diffView()->document()->begin();
            for (QTextBlock want = reference.begin(); want.isValid();
                 want = want.next(), ours = ours.next()) {
                QVERIFY(ours.isValid());
                QCOMPARE(ours.text(), want.text());
                const auto a = ours.layout()->formats();
                const auto b = want.layout()->formats();
                QCOMPARE(a.size(), b.size());
                for (qsizetype i = 0; i < a.size(); ++i) {
                    QCOMPARE(a[i].start, b[i].start);
                    QCOMPARE(a[i].length, b[i].length);
                    QCOMPARE(a[i].format.foreground().color(), b[i].format.foreground().color());
                    QCOMPARE(a[i].format.background(), b[i].format.background());
                }
                if (!a.isEmpty())
                    seen << ours.text().left(2);
            }
            // Not vacuous: added, removed and hunk lines got formats, and not all the same one.
            for (const char* prefix : {"+B", "-b", "@@"})
                QVERIFY2(seen.contains(QLatin1String(prefix)), prefix);
            const auto firstFormat = [&](const QString& prefix) {
                for (QTextBlock b = reference.begin(); b.isValid(); b = b.next())
                    if (b.text().startsWith(prefix) && !b.layout()->formats().isEmpty())
                        return b.layout()->formats().front().format;
                return QTextCharFormat();
            };
            QVERIFY(firstFormat(QStringLiteral("+B")) != firstFormat(QStringLiteral("-b")));
            // The hunk header, the keyword-like line of a diff, has a colour of its own.
            const QTextCharFormat hunk = firstFormat(QStringLiteral("@@"));
            QVERIFY(hunk.hasProperty(QTextFormat::ForegroundBrush));
        }
#else
        QCOMPARE(name, QStringLiteral("built-in diff highlighter"));
        auto* builtin = qobject_cast<DiffHighlighter*>(highlighter);
        QVERIFY(builtin);
        // Every line of the diff got the format of its kind.
        const auto kindOf = [&](const QString& prefix) {
            for (QTextBlock b = dialog.diffView()->document()->begin(); b.isValid(); b = b.next())
                if (b.text().startsWith(prefix))
                    return DiffHighlighter::lineOf(b);
            return DiffHighlighter::Line::Header;
        };
        QCOMPARE(kindOf(QStringLiteral("+B")), DiffHighlighter::Line::Added);
        QCOMPARE(kindOf(QStringLiteral("-b")), DiffHighlighter::Line::Removed);
        QCOMPARE(kindOf(QStringLiteral("@@")), DiffHighlighter::Line::Hunk);
        QCOMPARE(kindOf(QStringLiteral("--- a/")), DiffHighlighter::Line::FileHeader);
        QCOMPARE(kindOf(QStringLiteral("+++ b/")), DiffHighlighter::Line::FileHeader);
        QCOMPARE(kindOf(QStringLiteral(" a")), DiffHighlighter::Line::Context);
        for (QTextBlock b = dialog.diffView()->document()->begin(); b.isValid(); b = b.next()) {
            if (!b.text().startsWith(QStringLiteral("+B")))
                continue;
            const QList<QTextLayout::FormatRange> formats = b.layout()->formats();
            QVERIFY(!formats.isEmpty());
            QCOMPARE(formats.front().format.background(),
                     builtin->format(DiffHighlighter::Line::Added).background());
        }
#endif
    }

    void builtinDiffHighlighterReadsHunksAndFollowsThePalette()
    {
        QTextDocument document;
        QPalette light;
        light.setColor(QPalette::Base, Qt::white);
        light.setColor(QPalette::Text, Qt::black);
        DiffHighlighter highlighter(&document, light);
        // Inside a hunk "---" is a removed line starting with "--", not a file header.
        document.setPlainText(
            QStringLiteral("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n"
                           "--- a comment\n+++ new\n ctx\n\\ No newline at end "
                           "of file\ndiff --git a/g b/g\n--- a/g\n"));
        highlighter.rehighlight();
        const auto line = [&](int n) {
            return DiffHighlighter::lineOf(document.findBlockByNumber(n));
        };
        QCOMPARE(line(0), DiffHighlighter::Line::Header);
        QCOMPARE(line(1), DiffHighlighter::Line::FileHeader);
        QCOMPARE(line(2), DiffHighlighter::Line::FileHeader);
        QCOMPARE(line(3), DiffHighlighter::Line::Hunk);
        QCOMPARE(line(4), DiffHighlighter::Line::Removed);
        QCOMPARE(line(5), DiffHighlighter::Line::Added);
        QCOMPARE(line(6), DiffHighlighter::Line::Context);
        QCOMPARE(line(7), DiffHighlighter::Line::NoNewline);
        QCOMPARE(line(8), DiffHighlighter::Line::Header);
        QCOMPARE(line(9), DiffHighlighter::Line::FileHeader);

        const QColor lightAdded = highlighter.lineBackground(DiffHighlighter::Line::Added);
        QVERIFY(lightAdded.isValid());
        QVERIFY(lightAdded.lightness() > 200);
        QVERIFY(lightAdded.green() > lightAdded.red());
        const QColor lightRemoved = highlighter.lineBackground(DiffHighlighter::Line::Removed);
        QVERIFY(lightRemoved.red() > lightRemoved.green());
        QVERIFY(!highlighter.lineBackground(DiffHighlighter::Line::Context).isValid());
        QPalette dark;
        dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x20));
        dark.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
        SyntaxHighlighting::setPalette(&highlighter, dark);
        const QColor darkAdded = highlighter.lineBackground(DiffHighlighter::Line::Added);
        QVERIFY(darkAdded.lightness() < 100);
        QVERIFY(darkAdded.green() > darkAdded.red());
    }

    void commitMessageFollowsTheSelectionUntilEdited()
    {
        const Review r = reviewOf(sample());
        ChangeSetReviewDialog dialog(r.changes, r.diffs, r.stats);
        QVERIFY(!dialog.commitBox()->isVisibleTo(&dialog)); // not a git work tree
        QVERIFY(!dialog.commitRequested());
        dialog.setCommitAvailable(true);
        QVERIFY(dialog.commitBox()->isVisibleTo(&dialog));
        QVERIFY(!dialog.commitBox()->isChecked());
        QVERIFY(!dialog.messageEdit()->isEnabled());
        QCOMPARE(dialog.commitMessage(), text(r.changes.commitMessage()));
        dialog.commitBox()->setChecked(true);
        QVERIFY(dialog.messageEdit()->isEnabled());
        QVERIFY(dialog.commitRequested());

        dialog.setOperationSelected(0, false);
        QVERIFY(!dialog.commitMessage().contains(QStringLiteral("pytorch-python313-cpu-avx2\n")));
        QCOMPARE(dialog.commitMessage(), text(dialog.changeSet().commitMessage()));
        dialog.messageEdit()->setPlainText(QStringLiteral("Tidy the CPU recipes"));
        dialog.setOperationSelected(0, true);
        QCOMPARE(dialog.commitMessage(), QStringLiteral("Tidy the CPU recipes"));
        dialog.messageEdit()->setPlainText(QStringLiteral("  \n"));
        QVERIFY(!dialog.commitRequested()); // no commit without a message
    }

    // A git work tree where a commit cannot be made: the option is shown off and disabled,
    // with the reason in place of the message; a reason cleared (identity set meanwhile, a
    // new plan) gives the option back.
    void commitBlockedShowsWhy()
    {
        const Review r = reviewOf(sample());
        ChangeSetReviewDialog dialog(r.changes, r.diffs, r.stats);
        dialog.setCommitAvailable(true);
        dialog.commitBox()->setChecked(true);
        QVERIFY(dialog.commitRequested());
        const QString why = QStringLiteral("no git identity: set user.name and user.email");
        dialog.setCommitAvailable(true, why);
        QVERIFY(dialog.commitBox()->isVisibleTo(&dialog));
        QVERIFY(!dialog.commitBox()->isEnabled());
        QVERIFY(!dialog.commitBox()->isChecked());
        QVERIFY(!dialog.commitRequested());
        QVERIFY(dialog.commitBlockedLabel()->isVisibleTo(&dialog));
        QVERIFY(dialog.commitBlockedLabel()->text().contains(why));
        QVERIFY(!dialog.messageEdit()->isVisibleTo(&dialog));
        dialog.setCommitAvailable(true);
        QVERIFY(dialog.commitBox()->isEnabled());
        QVERIFY(!dialog.commitBlockedLabel()->isVisibleTo(&dialog));
        QVERIFY(dialog.messageEdit()->isVisibleTo(&dialog));
    }

    void emptyChangeSetSaysSo()
    {
        ChangeSet changes;
        changes.title = "Fix pytorch-python313-cuda13_0-sm121-armv9-nightly";
        changes.skipped = {
            {"pytorch-python313-cuda13_0-sm121-armv9-nightly", "no canonical recipe"}};
        ChangeSetReviewDialog dialog(changes, {}, {});
        QCOMPARE(dialog.operationsView()->topLevelItemCount(), 0);
        QVERIFY(!dialog.applyButton()->isEnabled());
        QCOMPARE(dialog.currentOperation(), -1);
        QVERIFY(!dialog.diffView()->toPlainText().isEmpty());
        QCOMPARE(dialog.skippedView()->topLevelItemCount(), 1);
    }

    // How fast it opens is bench_reviewdialog's to measure; here, that it shows all of it.
    void largeChangeSetShowsEveryOperation()
    {
        const Review r = reviewOf(test::largeCompletion(250));
        ChangeSetReviewDialog dialog(r.changes, r.diffs, r.stats);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QCOMPARE(dialog.operationsView()->topLevelItemCount(), 250);
        QCOMPARE(dialog.countsText(), QStringLiteral("250 create"));
        QCOMPARE(dialog.diffView()->diff(), text(r.diffs[0]));
    }
};

QTEST_MAIN(TestChangeSetReviewDialog)
#include "tst_changesetreviewdialog.moc"
