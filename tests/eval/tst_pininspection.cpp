// Stopping an inspection of what a pin contains: a Nix that never answers (a download that
// hangs) stands in for nix-instantiate, its work done by a child process, so that a stop
// that only kills Nix and leaves what it started is seen. The answers themselves are tested
// with the real Nix in the GUI suites (tst_evaluate) and the CLI's (tst_evalcommand).

#include "eval/pininspection.h"
#include "hangingnix.h"
#include "sessions/pininspectionsession.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>
#include <thread>

using namespace rg;

namespace {

PinInspectionSession::Request requestFor(const std::string& revision, int timeoutSeconds)
{
    PinInspectionSession::Request request;
    request.settings.timeoutSeconds = timeoutSeconds;
    request.revisions = {revision};
    return request;
}

} // namespace

class TestPinInspection : public QObject
{
    Q_OBJECT

private slots:
    void cancelStopsNixAndWhatItStarted()
    {
        const test::HangingNix hanging;
        EvalSettings settings;
        settings.jobs = 2;
        settings.timeoutSeconds = 600;
        std::atomic<bool> cancel{false};
        std::vector<PinContents> contents;
        std::thread worker([&] {
            contents =
                PinInspection::inspect(hanging.nix, settings, {"aaaaaaa", "bbbbbbb", "ccccccc"},
                                       {"python3Packages"}, {"cudaPackages"}, &cancel);
        });
        // Two at once (jobs = 2), each Nix with its child.
        QTRY_VERIFY_WITH_TIMEOUT(hanging.processes() >= 4, 20000);
        cancel = true;
        worker.join();
        QTRY_COMPARE_WITH_TIMEOUT(hanging.processes(), 0, 5000); // killed: reaped soon after
        QCOMPARE(contents.size(), size_t(3));
        for (const PinContents& pin : contents) {
            QCOMPARE(pin.error, std::string("cancelled"));
            QVERIFY(pin.cancelled);
            QVERIFY(pin.nixpkgsVersion.empty());
        }
        QCOMPARE(contents[2].revision, std::string("ccccccc")); // never started, still named
    }

    void timeoutStopsWhatNixStartedToo()
    {
        const test::HangingNix hanging;
        EvalSettings settings;
        settings.timeoutSeconds = 1;
        const std::vector<PinContents> contents =
            PinInspection::inspect(hanging.nix, settings, {"aaaaaaa"}, {}, {});
        QCOMPARE(contents.front().error, std::string("Nix did not answer within 1 s"));
        QVERIFY(!contents.front().cancelled);
        QTRY_COMPARE_WITH_TIMEOUT(hanging.processes(), 0, 5000); // killed: reaped soon after
    }

    // Closing the window (the session goes) does not wait for Nix to give up.
    void theSessionStopsItsInspectionWhenItGoes()
    {
        const test::HangingNix hanging;
        auto* session = new PinInspectionSession;
        session->start(requestFor("aaaaaaa", 600));
        QVERIFY(session->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(hanging.processes() >= 2, 20000);
        QElapsedTimer closing;
        closing.start();
        delete session;
        // The child would sleep 120 s: far from that, the session did not wait for it.
        QVERIFY2(closing.elapsed() < 60000, qPrintable(QString::number(closing.elapsed())));
        // Killed with its process group; on a loaded machine the kernel may take a moment to
        // end and reap them (CI's Debian 12 leg once counted one still there).
        QTRY_COMPARE_WITH_TIMEOUT(hanging.processes(), 0, 5000);
    }

    // A newer request stops the one running, whose answer would not be shown: only the
    // newer one is answered.
    void aNewerRequestStopsTheRunningOne()
    {
        const test::HangingNix hanging;
        PinInspectionSession session;
        QSignalSpy finished(&session, &PinInspectionSession::finished);
        session.start(requestFor("aaaaaaa", 600));
        QTRY_VERIFY_WITH_TIMEOUT(hanging.processes() >= 2, 20000);
        session.start(requestFor("bbbbbbb", 1)); // answered (with Nix's silence) soon
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.count(), 1);
        const auto contents = finished.at(0).at(0).value<std::vector<PinContents>>();
        QCOMPARE(contents.size(), size_t(1));
        QCOMPARE(contents.front().revision, std::string("bbbbbbb"));
        QCOMPARE(contents.front().error, std::string("Nix did not answer within 1 s"));
        // Both requests' Nix were killed with their process groups; on a loaded machine the
        // kernel may take a moment to end them (ctest -j2 beside a CI run missed one once).
        QTRY_COMPARE_WITH_TIMEOUT(hanging.processes(), 0, 5000);
    }
};

QTEST_GUILESS_MAIN(TestPinInspection)
#include "tst_pininspection.moc"
