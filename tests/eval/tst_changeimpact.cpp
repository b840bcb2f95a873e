// What a change set does to its recipes, asked of Nix: the verdict each recipe gets from its
// evaluation before and after, which recipes and files a change set hands to Nix (a change set
// that creates only must not become "every recipe of the branch"), and a stop that ends Nix
// with what it started, in the engine and in the window's session. The real Nix judges a bump
// and a comment-only edit against the stand-in nixpkgs (its newer revision renames torch's
// gpuTargets); a Nix that never answers stands in for the stop.

#include "analysis/analyzer.h"
#include "eval/changeimpact.h"
#include "hangingnix.h"
#include "sessions/changeimpactsession.h"
#include "vcs/repositorysource.h"

#include <QSignalSpy>
#include <QtTest>
#include <map>
#include <set>
#include <thread>

using namespace rg;

namespace {

const QString fixture = QStringLiteral(RG_FIXTURES_DIR "/seed001-start");
const std::string cuda = ".flox/pkgs/pytorch-python313-cuda13_0-sm120-avx512.nix";
const std::string armv9 = ".flox/pkgs/pytorch-python313-cuda13_0-sm110-armv9.nix";
const std::string avx = ".flox/pkgs/pytorch-python313-cuda13_0-sm120-avx.nix";

EvaluatedRecipe evaluated(bool ok, bool transient = false)
{
    EvaluatedRecipe recipe;
    recipe.evaluated = ok;
    recipe.transient = transient;
    recipe.drvPath = ok ? "/nix/store/x.drv" : "";
    return recipe;
}

FileOperation operation(FileOperationKind kind, std::string path, bool selected = true)
{
    FileOperation op;
    op.kind = kind;
    op.path = std::move(path);
    op.after = kind == FileOperationKind::Delete ? "" : "{ }\n";
    op.selected = selected;
    return op;
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

EvalSettings settingsFor(const QString& root)
{
    EvalSettings settings;
    settings.repoRoot = root.toStdString();
    settings.jobs = 2;
    settings.timeoutSeconds = 600;
    return settings;
}

} // namespace

class TestChangeImpact : public QObject
{
    Q_OBJECT

    std::shared_ptr<const Analysis> m_analysis;

private slots:
    void initTestCase()
    {
        const auto source = openWorkTree(fixture.toStdString());
        QVERIFY(source);
        m_analysis = std::make_shared<const Analysis>(Analyzer().analyze(*source, {}));
    }

    void verdictsFromBothEvaluations()
    {
        using Verdict = RecipeImpact::Verdict;
        const auto verdict = [](EvaluatedRecipe before, EvaluatedRecipe after) {
            return RecipeImpact{"r.nix", std::move(before), std::move(after)}.verdict();
        };
        QCOMPARE(verdict(evaluated(true), evaluated(true)), Verdict::Evaluates);
        QCOMPARE(verdict(evaluated(true), evaluated(false)), Verdict::Breaks);
        QCOMPARE(verdict(evaluated(false), evaluated(true)), Verdict::Mends);
        QCOMPARE(verdict(evaluated(false), evaluated(false)), Verdict::FailsOnBoth);
        // A timeout or a missing network says nothing about the recipe, on either side.
        QCOMPARE(verdict(evaluated(true), evaluated(false, true)), Verdict::Unanswered);
        QCOMPARE(verdict(evaluated(false, true), evaluated(true)), Verdict::Unanswered);
        // The command line's guard still refuses what it could not ask about.
        QVERIFY((RecipeImpact{"r.nix", evaluated(true), evaluated(false, true)}.breaks()));
        QVERIFY(!(RecipeImpact{"r.nix", evaluated(false), evaluated(false)}.breaks()));
    }

    void inputIsTheChangeSetsRecipes()
    {
        ChangeSet changes;
        changes.operations = {operation(FileOperationKind::Modify, cuda),
                              operation(FileOperationKind::Delete, armv9),
                              operation(FileOperationKind::Modify, avx, false),
                              operation(FileOperationKind::Create, ".flox/pkgs/new.nix"),
                              operation(FileOperationKind::Modify, "README.md")};
        const ChangeImpactSession::Input input = ChangeImpactSession::inputOf(changes, *m_analysis);
        std::set<std::string> items;
        for (const EvalItem& item : input.items)
            items.insert(item.path);
        // The modified recipe: not the left-out one, nor the deleted one (no "after" to judge).
        QCOMPARE(items, (std::set<std::string>{cuda}));
        QCOMPARE(input.items.size(), size_t(1));
        QCOMPARE(input.planned.size(), size_t(4));
        QVERIFY(!input.planned.at(armv9)); // deleted from the copy Nix evaluates in
        QCOMPARE(*input.planned.at(".flox/pkgs/new.nix"), std::string("{ }\n"));
        QVERIFY(!input.planned.count(avx));
        for (const EvalItem& item : input.items)
            QVERIFY2(item.pin.size() == 40, item.pin.c_str()); // each with its own pin

        // Nothing modified: nothing to ask, not every recipe of the branch.
        ChangeSet creates;
        creates.operations = {operation(FileOperationKind::Create, ".flox/pkgs/new.nix"),
                              operation(FileOperationKind::Delete, armv9)};
        QVERIFY(ChangeImpactSession::inputOf(creates, *m_analysis).items.empty());
    }

    // seed000's recipes all pin 6a030d5 (the stand-in's older revision); the bump goes to one
    // the stand-in's newer revision serves.
    void nixJudgesABumpAndACommentOnlyEdit()
    {
        const QString seed = QStringLiteral(RG_FIXTURES_DIR "/seed000");
        const auto source = openWorkTree(seed.toStdString());
        QVERIFY(source);
        const Analysis analysis = Analyzer().analyze(*source, {});
        const std::string oldPin = "6a030d535719c5190187c4cec156f335e95e3211";
        const std::string newPin = "1111111111111111111111111111111111111111";
        const QString standin = QStringLiteral(RG_FIXTURES_DIR "/nixpkgs-standin/");
        QTemporaryDir store;
        EvalSettings settings = settingsFor(seed);
        settings.timeoutSeconds = 300;
        settings.sources = {{oldPin, (standin + QStringLiteral("older")).toStdString()},
                            {newPin, (standin + QStringLiteral("newer")).toStdString()}};
        settings.store = "local?root=" + store.path().toStdString();

        const auto bumped = [&](const std::string& path) {
            std::string text =
                readFile(seed + QLatin1Char('/') + QString::fromStdString(path)).toStdString();
            for (size_t at = text.find(oldPin); at != std::string::npos; at = text.find(oldPin))
                text.replace(at, oldPin.size(), newPin);
            return text;
        };
        const std::string cpu = ".flox/pkgs/pytorch-python313-cpu-avx2.nix";
        const std::string gpu = ".flox/pkgs/pytorch-python313-cuda12_9-sm100-avx.nix";
        const std::string commented = ".flox/pkgs/pytorch-python313-cpu-armv9.nix";
        ChangeSet changes;
        changes.operations = {operation(FileOperationKind::Modify, cpu),
                              operation(FileOperationKind::Modify, gpu),
                              operation(FileOperationKind::Modify, commented)};
        changes.operations[0].after = bumped(cpu);
        changes.operations[1].after = bumped(gpu);
        changes.operations[2].after =
            "# reviewed\n" +
            readFile(seed + QLatin1Char('/') + QString::fromStdString(commented)).toStdString();
        QVERIFY(changes.operations[0].after.find(newPin) != std::string::npos);
        const ChangeImpactSession::Input input = ChangeImpactSession::inputOf(changes, analysis);
        QCOMPARE(input.items.size(), size_t(3));
        std::string error;
        int reported = 0, lastDone = -1, lastTotal = 0;
        const std::vector<RecipeImpact> impacts =
            ChangeImpact::of(NixInstallation::find(), settings, input.items, input.planned, &error,
                             [&](int done, int total) {
                                 ++reported;
                                 lastDone = done;
                                 lastTotal = total;
                             });
        QCOMPARE(error, std::string());
        QCOMPARE(impacts.size(), size_t(3));
        std::map<std::string, const RecipeImpact*> byPath;
        for (const RecipeImpact& impact : impacts)
            byPath[impact.path] = &impact;

        const RecipeImpact& moved = *byPath.at(cpu);
        QCOMPARE(moved.verdict(), RecipeImpact::Verdict::Evaluates);
        QVERIFY(moved.derivationChanges());
        QVERIFY2(moved.versionChanges().starts_with("torch 2.9.1 → 2.10.0"),
                 moved.versionChanges().c_str());

        const RecipeImpact& broken = *byPath.at(gpu);
        QCOMPARE(broken.verdict(), RecipeImpact::Verdict::Breaks);
        QVERIFY2(broken.after.error.message.find("unexpected argument 'gpuTargets'") !=
                     std::string::npos,
                 broken.after.error.message.c_str());
        QCOMPARE(broken.after.error.file, gpu); // Nix's position, in the repository's terms

        const RecipeImpact& comment = *byPath.at(commented);
        QCOMPARE(comment.verdict(), RecipeImpact::Verdict::Evaluates);
        QVERIFY(!comment.derivationChanges()); // a comment keeps the derivation
        QVERIFY(!comment.after.drvPath.empty());
        QCOMPARE(comment.versionChanges(), std::string());

        QVERIFY(reported > 0);
        QCOMPARE(lastTotal, 6); // each recipe before and after
        QCOMPARE(lastDone, 6);
        QCOMPARE(readFile(seed + QLatin1Char('/') + QString::fromStdString(cpu))
                     .contains(QByteArray::fromStdString(newPin)),
                 false); // the repository itself is not touched
    }

    void cancelStopsNixAndWhatItStarted()
    {
        const test::HangingNix hanging;
        ChangeSet changes;
        changes.operations = {operation(FileOperationKind::Modify, cuda)};
        const ChangeImpactSession::Input input = ChangeImpactSession::inputOf(changes, *m_analysis);
        std::atomic<bool> cancel{false};
        std::vector<RecipeImpact> impacts{RecipeImpact{}};
        std::string error = "unset";
        std::thread worker([&] {
            error.clear();
            impacts = ChangeImpact::of(hanging.nix, settingsFor(fixture), input.items,
                                       input.planned, &error, {}, &cancel);
        });
        QTRY_VERIFY_WITH_TIMEOUT(hanging.processes() >= 2, 20000);
        cancel = true;
        worker.join();
        // Killed, the processes are gone moments after the stop returns.
        QTRY_COMPARE_WITH_TIMEOUT(hanging.processes(), 0, 5000);
        QVERIFY(impacts.empty()); // a part asked is no answer
        QCOMPARE(error, std::string());
    }

    void sessionSaysWhatItCouldNotAsk()
    {
        ChangeImpactSession session;
        QSignalSpy finished(&session, &ChangeImpactSession::finished);
        ChangeSet creates;
        creates.operations = {operation(FileOperationKind::Create, ".flox/pkgs/new.nix")};
        QVERIFY(session.start(settingsFor(fixture), creates, m_analysis));
        QVERIFY(finished.wait(20000));
        QVERIFY(finished.front().at(0).value<std::vector<RecipeImpact>>().empty());
        QVERIFY2(
            finished.front().at(1).toString().startsWith(QStringLiteral("none of these files")),
            qPrintable(finished.front().at(1).toString()));
        QCOMPARE(finished.front().at(2).toBool(), false);
    }

    void sessionStopsAndGoesWithoutWaitingForNix()
    {
        const test::HangingNix hanging;
        ChangeSet changes;
        changes.operations = {operation(FileOperationKind::Modify, cuda)};
        {
            ChangeImpactSession session;
            QSignalSpy finished(&session, &ChangeImpactSession::finished);
            QVERIFY(session.start(settingsFor(fixture), changes, m_analysis));
            QVERIFY(!session.start(settingsFor(fixture), changes, m_analysis)); // one at a time
            QTRY_VERIFY_WITH_TIMEOUT(hanging.processes() >= 2, 20000);
            session.cancel();
            QVERIFY(finished.wait(20000));
            QCOMPARE(finished.front().at(2).toBool(), true);
            QVERIFY(finished.front().at(0).value<std::vector<RecipeImpact>>().empty());
            QTRY_COMPARE_WITH_TIMEOUT(hanging.processes(), 0, 5000); // killed: gone soon after

            // Gone while Nix runs (its review closed): it stops Nix rather than wait for it.
            QVERIFY(session.start(settingsFor(fixture), changes, m_analysis));
            QTRY_VERIFY_WITH_TIMEOUT(hanging.processes() >= 2, 20000);
        }
        QTRY_COMPARE_WITH_TIMEOUT(hanging.processes(), 0, 5000); // killed: gone soon after
    }
};

Q_DECLARE_METATYPE(std::vector<rg::RecipeImpact>)

QTEST_GUILESS_MAIN(TestChangeImpact)
#include "tst_changeimpact.moc"
