// The Build Settings dialog shows every setting it edits and returns what the user typed,
// keeping the settings it does not show.

#include "buildsettingsdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
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
