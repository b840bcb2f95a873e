// The pin bump dialog, offscreen, on seed000's pins: the from-pins offered, the to-pin checked
// as it is typed (malformed, unknown, ambiguous-free prefixes, the same pin), scopes and
// options in the request, marking hashes accepts at once, prefetching waits for the hashes,
// shows progress and a clear error when a download fails, and can be stopped.

#include "analysis/analyzer.h"
#include "pinbumpdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QTest>

using namespace rg;

namespace {

const std::string oldPin = "6a030d535719c5190187c4cec156f335e95e3211";
const std::string newPin = "0182a361324364ae3f436a63005877674cf45efb";
const QString url = QStringLiteral(
    "https://github.com/NixOS/nixpkgs/archive/0182a361324364ae3f436a63005877674cf45efb.tar.gz");

const PinInventory& seed000()
{
    static const PinInventory inventory = [] {
        auto source = openWorkTree(RG_FIXTURES_DIR "/seed000");
        return PinInventory::of(Analyzer().analyze(*source));
    }();
    return inventory;
}

} // namespace

class TestPinBumpDialog : public QObject
{
    Q_OBJECT
private slots:
    void offersThePinsPresent()
    {
        PinBumpDialog dialog(seed000());
        QCOMPARE(dialog.fromCombo()->count(), 1);
        QCOMPARE(dialog.fromCombo()->currentText(), QStringLiteral("6a030d5 \u2014 66 recipes"));
        QCOMPARE(dialog.request().from, oldPin);
        QVERIFY(!dialog.okButton()->isEnabled()); // no to-pin yet
        QVERIFY(
            dialog.scopeSummary().startsWith(QStringLiteral("66 recipes on 6a030d5 will change")));
        QVERIFY2(
            dialog.scopeSummary().contains(QStringLiteral("all pin a hash, which must change too")),
            qPrintable(dialog.scopeSummary()));
    }

    void checksTheToPinAsItIsTyped()
    {
        PinBumpDialog dialog(seed000());
        QTest::keyClicks(dialog.toEdit(), QStringLiteral("xyz"));
        QVERIFY2(dialog.toStatus()->text().contains(QStringLiteral("malformed pin 'xyz'")),
                 qPrintable(dialog.toStatus()->text()));
        QVERIFY(!dialog.okButton()->isEnabled());

        dialog.toEdit()->clear();
        QTest::keyClicks(dialog.toEdit(), QStringLiteral("0182a36"));
        QVERIFY2(dialog.toStatus()->text().contains(QStringLiteral("unknown pin '0182a36'")),
                 qPrintable(dialog.toStatus()->text()));
        QVERIFY(!dialog.okButton()->isEnabled());
        // A pin known from a branch or a compared repository completes the prefix.
        dialog.setKnownPins({newPin});
        QCOMPARE(dialog.toStatus()->text(),
                 QStringLiteral("\u2713 0182a36 is ") + QString::fromStdString(newPin));
        QVERIFY(dialog.okButton()->isEnabled());
        QCOMPARE(dialog.request().to, newPin);

        dialog.setToPin(QString::fromStdString(oldPin).toUpper());
        QVERIFY2(dialog.validationText().contains(QStringLiteral("already")),
                 qPrintable(dialog.validationText()));
        QVERIFY(!dialog.okButton()->isEnabled());

        dialog.setKnownPins({});
        dialog.setToPin(QString::fromStdString(newPin));
        QCOMPARE(dialog.toStatus()->text(), QStringLiteral("\u2713 a full revision"));
        QVERIFY(dialog.okButton()->isEnabled()); // 40 hex digits need no known pin
        QVERIFY(dialog.isValid());
    }

    void scopesAndOptionsMakeTheRequest()
    {
        PinBumpDialog dialog(seed000());
        dialog.setToPin(QString::fromStdString(newPin));
        QVERIFY(dialog.request().scope.isAll());
        QVERIFY(!dialog.scopeButton(PinBumpDialog::Scope::Selection)->isEnabled());

        dialog.setSelection({"pytorch:python313-cuda12_9-sm90-avx512",
                             ".flox/pkgs/pytorch-python313-cpu-avx2.nix"});
        QVERIFY(dialog.scopeButton(PinBumpDialog::Scope::Selection)->isEnabled());
        QTest::mouseClick(dialog.scopeButton(PinBumpDialog::Scope::Selection), Qt::LeftButton);
        QCOMPARE(dialog.request().scope.cells.size(), size_t(2));
        QVERIFY2(dialog.scopeSummary().startsWith(QStringLiteral("2 recipes on 6a030d5")),
                 qPrintable(dialog.scopeSummary()));

        dialog.setScope(PinBumpDialog::Scope::Accelerator);
        QCOMPARE(dialog.acceleratorCombo()->count(), 3);
        QVERIFY(dialog.acceleratorCombo()->isEnabled());
        QVERIFY(!dialog.packageCombo()->isEnabled());
        dialog.setAccelerator("cpu");
        QCOMPARE(dialog.request().scope.accelerator, std::string("cpu"));
        QVERIFY(dialog.request().scope.cells.empty());
        QVERIFY2(dialog.scopeSummary().startsWith(QStringLiteral("6 recipes on 6a030d5")),
                 qPrintable(dialog.scopeSummary()));

        dialog.setScope(PinBumpDialog::Scope::Package);
        QCOMPARE(dialog.request().scope.package, std::string("pytorch"));
        QVERIFY(dialog.request().scope.accelerator.empty());

        QVERIFY(!dialog.request().renamePythonSet); // seed 000 option 2, off by default
        QVERIFY(dialog.request().readme);
        dialog.renameBox()->setChecked(true);
        dialog.readmeBox()->setChecked(false);
        dialog.docsBox()->setChecked(false);
        QVERIFY(dialog.request().renamePythonSet);
        QVERIFY(!dialog.request().readme);
        QVERIFY(!dialog.request().docs);
    }

    void markingHashesAcceptsAtOnce()
    {
        PinBumpDialog dialog(seed000());
        QSignalSpy prefetch(&dialog, &PinBumpDialog::prefetchRequested);
        dialog.setToPin(QString::fromStdString(newPin));
        dialog.markButton()->setChecked(true);
        QCOMPARE(dialog.hashMode(), PinBumpDialog::HashMode::MarkNeedsHash);
        dialog.show();
        QTest::mouseClick(dialog.okButton(), Qt::LeftButton);
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QVERIFY(prefetch.isEmpty());
        QVERIFY(dialog.request().newHashes.empty());
    }

    void prefetchingWaitsForTheHashesAndSaysWhyItFailed()
    {
        PinBumpDialog dialog(seed000());
        QSignalSpy prefetch(&dialog, &PinBumpDialog::prefetchRequested);
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.setToPin(QString::fromStdString(newPin));
        QCOMPARE(dialog.hashMode(), PinBumpDialog::HashMode::Prefetch);
        dialog.show();
        QTest::mouseClick(dialog.okButton(), Qt::LeftButton);
        QCOMPARE(prefetch.count(), 1);
        QCOMPARE(prefetch.front().front().value<PinBumpRequest>().to, newPin);
        QVERIFY(dialog.isPrefetching());
        QVERIFY(accepted.isEmpty());
        QVERIFY(dialog.progressBar()->isVisible());
        QVERIFY(!dialog.toEdit()->isEnabled());
        QVERIFY(!dialog.okButton()->isEnabled());

        dialog.prefetchStarted(0, 1, url);
        QVERIFY(dialog.progressLabel()->text().startsWith(QStringLiteral("Downloading 1 of 1")));
        dialog.prefetchOutput(QStringLiteral("downloading 'https://github.com/…'… 12 MiB"));
        QVERIFY(dialog.progressLabel()->text().contains(QStringLiteral("12 MiB")));
        const QString offline = url + QStringLiteral(": error: unable to download '") + url +
                                QStringLiteral("': Couldn't resolve host name (6)");
        dialog.prefetchFinished({}, {offline});
        QVERIFY(accepted.isEmpty());
        QVERIFY(!dialog.isPrefetching());
        QVERIFY(dialog.errorLabel()->isVisible());
        QVERIFY2(dialog.errorLabel()->text().contains(QStringLiteral("Couldn't resolve host name")),
                 qPrintable(dialog.errorLabel()->text()));
        QVERIFY(dialog.errorLabel()->text().contains(QStringLiteral("needing a new hash")));
        QVERIFY(dialog.toEdit()->isEnabled());
        QVERIFY(!dialog.progressBar()->isVisible());

        // Stop stops: the dialog gives the inputs back at once and says so; a hash the stopped
        // download still delivers is ignored, and the dialog stays open.
        QTest::mouseClick(dialog.okButton(), Qt::LeftButton); // try again
        QCOMPARE(prefetch.count(), 2);
        QSignalSpy stop(&dialog, &PinBumpDialog::prefetchCancelRequested);
        QVERIFY(dialog.stopButton()->isVisible());
        QTest::mouseClick(dialog.stopButton(), Qt::LeftButton);
        QCOMPARE(stop.count(), 1);
        QVERIFY(!dialog.isPrefetching());
        QVERIFY(!dialog.progressBar()->isVisible());
        QVERIFY(dialog.toEdit()->isEnabled());
        QVERIFY(dialog.okButton()->isEnabled());
        QVERIFY2(dialog.errorLabel()->text().contains(QStringLiteral("stopped")),
                 qPrintable(dialog.errorLabel()->text()));
        const std::string hash = "0hvq5dmvwn3cp9c0r1ab29qk2a8ki6b4cn7r2i3fjyjl4a47v8xz";
        dialog.prefetchFinished({{url.toStdString(), hash}}, {});
        QVERIFY(accepted.isEmpty());
        QVERIFY(dialog.isVisible());
        QVERIFY(dialog.request().newHashes.empty());

        // A new attempt that delivers the hash accepts the dialog with it.
        QTest::mouseClick(dialog.okButton(), Qt::LeftButton);
        QCOMPARE(prefetch.count(), 3);
        dialog.prefetchFinished({{url.toStdString(), hash}}, {});
        QCOMPARE(accepted.count(), 1);
        QCOMPARE(dialog.request().newHashes.at(url.toStdString()), hash);
    }

    void withoutNixOnlyMarkingIsOffered()
    {
        PinBumpDialog dialog(seed000());
        dialog.setPrefetchAvailable(false, QStringLiteral("nix-prefetch-url was not found"));
        QVERIFY(!dialog.prefetchButton()->isEnabled());
        QCOMPARE(dialog.hashMode(), PinBumpDialog::HashMode::MarkNeedsHash);
        dialog.setHashMode(PinBumpDialog::HashMode::Prefetch);
        QCOMPARE(dialog.hashMode(), PinBumpDialog::HashMode::MarkNeedsHash);
    }

    void nothingToBumpWithoutPins()
    {
        PinBumpDialog dialog(PinInventory::of(Analysis{}));
        dialog.setToPin(QString::fromStdString(newPin));
        QVERIFY(!dialog.okButton()->isEnabled());
        QVERIFY2(dialog.validationText().contains(QStringLiteral("nothing to bump")),
                 qPrintable(dialog.validationText()));
    }
};

QTEST_MAIN(TestPinBumpDialog)
#include "tst_pinbumpdialog.moc"
