// The Build Settings dialog shows every setting it edits and returns what the user typed,
// keeping the settings it does not show.

#include "buildsettingsdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTest>

using namespace rg;

class TestBuildSettingsDialog : public QObject
{
    Q_OBJECT
private slots:
    void showsAndReturnsTheSettings()
    {
        BuildSettings initial;
        initial.backend = BackendKind::Nix;
        initial.concurrency = 3;
        initial.builders = QStringLiteral("ssh://big x86_64-linux");
        initial.maxJobs = 0;
        initial.nixOptions = {QStringLiteral("cores=16")};
        initial.publishOrg = QStringLiteral("acme");
        initial.cancelGraceMs = 1234; // not shown: must survive the dialog
        BuildSettingsDialog dialog(initial);
        QCOMPARE(dialog.settings(), initial); // untouched fields give back what came in

        auto* combo = dialog.findChild<QComboBox*>();
        QCOMPARE(combo->currentIndex(), 2);
        auto edits = dialog.findChildren<QLineEdit*>();
        QLineEdit* custom = edits.value(0);
        QVERIFY(!custom->isEnabled()); // only for the custom backend
        combo->setCurrentIndex(3);
        QVERIFY(custom->isEnabled());
        custom->setText(QStringLiteral("  nix build -f {file} -o {out}  "));
        dialog.findChild<QPlainTextEdit*>(QStringLiteral("nixOptions"))
            ->setPlainText(QStringLiteral("cores=16\n\n keep-going=true \n"));
        dialog.findChild<QCheckBox*>()->setChecked(false);
        for (QSpinBox* spin : dialog.findChildren<QSpinBox*>())
            if (spin->minimum() == 1)
                spin->setValue(2);

        // The user presses OK: the dialog is accepted, and what it gives back is what was typed.
        dialog.show();
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        auto* buttons = dialog.findChild<QDialogButtonBox*>();
        QVERIFY(buttons);
        QTest::mouseClick(buttons->button(QDialogButtonBox::Ok), Qt::LeftButton);
        QCOMPARE(accepted.count(), 1);
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        const BuildSettings result = dialog.settings();
        QCOMPARE(result.backend, BackendKind::Custom);
        QCOMPARE(result.customCommand, QStringLiteral("nix build -f {file} -o {out}"));
        QCOMPARE(result.nixOptions,
                 (QStringList{QStringLiteral("cores=16"), QStringLiteral("keep-going=true")}));
        QCOMPARE(result.concurrency, 2);
        QVERIFY(!result.verify);
        QCOMPARE(result.publishOrg, QStringLiteral("acme"));
        QCOMPARE(result.builders, QStringLiteral("ssh://big x86_64-linux"));
        QCOMPARE(result.cancelGraceMs, 1234);
    }

    // A malformed builder keeps the dialog open with the builder named; mended, it is accepted
    // and the machines come back one per line.
    void namesAMalformedBuilder()
    {
        BuildSettingsDialog dialog(BuildSettings{});
        dialog.show();
        auto* builders = dialog.findChild<QPlainTextEdit*>(QStringLiteral("builders"));
        QVERIFY(builders);
        builders->setPlainText(QStringLiteral("ssh://a x86_64-linux\nssh://b x86_64-linux - x\n"));
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        auto* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
        QTest::mouseClick(ok, Qt::LeftButton);
        QCOMPARE(accepted.count(), 0);
        QStringList shown;
        for (QLabel* label : dialog.findChildren<QLabel*>())
            if (label->isVisible())
                shown << label->text();
        QVERIFY2(
            shown.contains(QStringLiteral("builder 2 (b): max jobs 'x' is not a whole number")),
            qPrintable(shown.join('|')));
        QDir().mkpath(QStringLiteral(RG_BINARY_DIR "/screenshots"));
        dialog.grab().save(
            QStringLiteral(RG_BINARY_DIR "/screenshots/build-settings-builders.png"));
        builders->setPlainText(QStringLiteral("ssh://a x86_64-linux\nssh://b x86_64-linux - 4\n"));
        QTest::mouseClick(ok, Qt::LeftButton);
        QCOMPARE(accepted.count(), 1);
        QCOMPARE(dialog.settings().builders,
                 QStringLiteral("ssh://a x86_64-linux\nssh://b x86_64-linux - 4"));
    }

    // The Builders table and the text are one value: a field edited in the table is the text
    // Nix gets, a line typed in the text is a row of the table, Add and Remove change both.
    void theTableAndTheTextAreOneValue()
    {
        BuildSettings initial;
        initial.builders = QStringLiteral("ssh://a x86_64-linux");
        BuildSettingsDialog dialog(initial);
        dialog.resize(900, 800);
        dialog.show();
        auto* table = dialog.findChild<QTableView*>(QStringLiteral("builderTable"));
        auto* text = dialog.findChild<QPlainTextEdit*>(QStringLiteral("builders"));
        QVERIFY(table && text);
        QAbstractItemModel* model = table->model();
        QCOMPARE(model->rowCount(), 1);
        QCOMPARE(model->index(0, 0).data().toString(), QStringLiteral("ssh://a"));

        // The user types 4 into Max jobs (column 3) and big-parallel into Features (column 5).
        table->setCurrentIndex(model->index(0, 3));
        table->edit(model->index(0, 3));
        auto* editor = table->findChild<QSpinBox*>(); // a whole number: a spin box
        QVERIFY(editor);
        editor->selectAll();
        QTest::keyClicks(editor, QStringLiteral("4"));
        QTest::keyClick(editor, Qt::Key_Return);
        QTRY_COMPARE(model->index(0, 3).data().toInt(), 4); // the delegate commits queued
        QVERIFY(model->setData(model->index(0, 5), QStringLiteral("big-parallel")));
        QCOMPARE(text->toPlainText(),
                 QStringLiteral("ssh://a x86_64-linux - 4 1 big-parallel - -"));

        text->setPlainText(QStringLiteral("ssh://a x86_64-linux\n@/etc/nix/machines"));
        QCOMPARE(model->rowCount(), 2);
        QCOMPARE(model->index(1, 0).data().toString(), QStringLiteral("@/etc/nix/machines"));

        QPushButton* add = nullptr;
        QPushButton* remove = nullptr;
        for (QPushButton* button : dialog.findChildren<QPushButton*>()) {
            if (button->text() == QStringLiteral("&Add Builder"))
                add = button;
            if (button->text() == QStringLiteral("&Remove"))
                remove = button;
        }
        QVERIFY(add && remove);
        QTest::mouseClick(add, Qt::LeftButton);
        QCOMPARE(model->rowCount(), 3);
        QLineEdit* uri = nullptr; // the new URI's open editor, not the closed spin box's line
        for (QLineEdit* edit : table->findChildren<QLineEdit*>())
            if (edit->isVisible() && !qobject_cast<QAbstractSpinBox*>(edit->parent()))
                uri = edit;
        QVERIFY(uri);
        uri->setText(QStringLiteral("ssh://c"));
        QTest::keyClick(uri, Qt::Key_Return);
        QTRY_COMPARE(text->toPlainText(),
                     QStringLiteral("ssh://a x86_64-linux - 1 1 - - -\n@/etc/nix/machines\n"
                                    "ssh://c - - 1 1 - - -"));
        QDir().mkpath(QStringLiteral(RG_BINARY_DIR "/screenshots"));
        dialog.grab().save(QStringLiteral(RG_BINARY_DIR "/screenshots/build-settings-table.png"));
        table->selectRow(1);
        QTest::mouseClick(remove, Qt::LeftButton);
        QCOMPARE(text->toPlainText(),
                 QStringLiteral("ssh://a x86_64-linux - 1 1 - - -\nssh://c - - 1 1 - - -"));
        QCOMPARE(dialog.settings().builders, text->toPlainText());

        // A field Nix would refuse keeps its value and says why under the table.
        QVERIFY(!model->setData(model->index(0, 3), QStringLiteral("many")));
        QStringList shown;
        for (QLabel* label : dialog.findChildren<QLabel*>())
            if (label->isVisible())
                shown << label->text();
        QVERIFY2(shown.contains(QStringLiteral("row 1 (a): max jobs 'many' is not a whole number")),
                 qPrintable(shown.join('|')));
    }

    // What the recipes about to be built require, held against the builders: a feature no
    // builder offers is named, with what it means for the local jobs set.
    void warnsWhenNoBuilderOffersARequiredFeature()
    {
        BuildSettings initial;
        initial.builders = QStringLiteral("ssh://a x86_64-linux - 4 1 kvm\nssh://b aarch64-linux - "
                                          "4 1 big-parallel");
        BuildSettingsDialog dialog(initial);
        dialog.show();
        auto* warning = dialog.findChild<QLabel*>(QStringLiteral("builderFeatureWarning"));
        QVERIFY(warning);
        QVERIFY(!warning->isVisible());
        dialog.setRequirements(QStringLiteral("the 2 selected recipes"),
                               QStringLiteral("x86_64-linux"), {QStringLiteral("big-parallel")});
        QVERIFY(warning->isVisible());
        QCOMPARE(warning->text(),
                 QStringLiteral("Needed by the 2 selected recipes: big-parallel on x86_64-linux, "
                                "which no builder offers; they build only on this machine"));
        for (QSpinBox* spin : dialog.findChildren<QSpinBox*>())
            if (spin->minimum() == -1)
                spin->setValue(0);
        QVERIFY(warning->text().endsWith(QStringLiteral("with local jobs 0 they cannot be built")));
        auto* model = dialog.findChild<QTableView*>(QStringLiteral("builderTable"))->model();
        QVERIFY(model->setData(model->index(0, 5), QStringLiteral("kvm, big-parallel")));
        QVERIFY(!warning->isVisible());
    }

    // Opened as the window opens it, at its own size: each builder's URI is whole in the
    // table, not squeezed to "s…" by the fields beside it; a builder added later too. (Short
    // URIs: the offscreen platform's screen is 800 pixels wide, and the dialog stays on it.)
    void theBuildersTableShowsEachUri()
    {
        BuildSettings initial;
        initial.builders = QStringLiteral("ssh://gpu1 x86_64-linux");
        BuildSettingsDialog dialog(initial);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto* table = dialog.findChild<QTableView*>(QStringLiteral("builderTable"));
        QVERIFY(table);
        const auto uriIsWhole = [table] {
            const QAbstractItemView* view = table; // sizeHintForColumn() is public here
            return table->horizontalHeader()->sectionSize(0) >= view->sizeHintForColumn(0);
        };
        QTRY_VERIFY_WITH_TIMEOUT(uriIsWhole(), 2000);
        auto* text = dialog.findChild<QPlainTextEdit*>(QStringLiteral("builders"));
        text->setPlainText(text->toPlainText() + QStringLiteral("\nssh://root@gpu7 x86_64-linux"));
        QTRY_VERIFY_WITH_TIMEOUT(uriIsWhole(), 2000);
    }

    void cancelIsNotAccepted()
    {
        BuildSettingsDialog dialog(BuildSettings{});
        dialog.show();
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        QTest::mouseClick(dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Cancel),
                          Qt::LeftButton);
        QCOMPARE(accepted.count(), 0);
        QCOMPARE(dialog.result(), int(QDialog::Rejected));
    }
};

QTEST_MAIN(TestBuildSettingsDialog)
#include "tst_buildsettingsdialog.moc"
