// The Build Settings dialog shows every setting it edits and returns what the user typed,
// keeping the settings it does not show.

#include "buildsettingsdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
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
        dialog.findChild<QPlainTextEdit*>()->setPlainText(
            QStringLiteral("cores=16\n\n keep-going=true \n"));
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
