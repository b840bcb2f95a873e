// Every input the fuzzer was seeded with or found (tests/fuzz/corpus, including the found-*
// files) runs again on every test run, through the parser, fact extraction, the evaluator
// and every per-recipe rule, with the invariants the fuzz target checks: ranges inside the
// file, findings with an id and a message. Under the asan preset this is the sanitizer run.

#include "analysis/analyzer.h"
#include "analysis/ruleset.h"
#include "facts/factextractor.h"
#include "matrix/variantexpectation.h"
#include "nix/evaluator.h"
#include "nix/syntaxtree.h"

#include <QDir>
#include <QFile>
#include <QTest>

using namespace rg;

namespace {

bool inside(const nix::SourceRange& range, size_t size)
{
    return range.begin <= range.end && range.end <= size;
}

} // namespace

class TestFuzzCorpus : public QObject
{
    Q_OBJECT

private slots:
    void corpusRunsClean_data()
    {
        QTest::addColumn<QString>("path");
        const QDir corpus(QStringLiteral(RG_SOURCE_DIR "/tests/fuzz/corpus"));
        const QStringList files = corpus.entryList(QDir::Files, QDir::Name);
        QVERIFY(files.size() >= 50);
        QVERIFY(!files.filter(QStringLiteral("found-")).isEmpty());
        for (const QString& file : files)
            QTest::newRow(qPrintable(file)) << corpus.filePath(file);
    }

    void corpusRunsClean()
    {
        QFETCH(QString, path);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const std::string bytes = file.readAll().toStdString();
        static const MatrixSpec spec = [] {
            SpecError error;
            auto loaded = MatrixSpec::load(RG_FIXTURES_DIR "/seed001-target/.flox/recipegrid.json",
                                           Catalog::builtin(), &error);
            if (!loaded)
                qFatal("%s", error.toString().c_str());
            return *loaded;
        }();

        const nix::SyntaxTree tree = nix::SyntaxTree::parse(bytes);
        if (!tree.root()) {
            QVERIFY(tree.error());
            QVERIFY(tree.error()->offset <= bytes.size());
            QVERIFY(!tree.error()->message.empty());
        } else {
            // The evaluator on every node, within its bounds.
            nix::Evaluator evaluator(tree, "corpus.nix");
            int nodes = 0;
            nix::forEachNode(*tree.root(), [&](const nix::Node& node) {
                const nix::Value value = evaluator.evaluate(node);
                (void)value.describe();
                ++nodes;
                return true;
            });
            QVERIFY(nodes > 0);
        }

        // The analyzer's own path: facts, then every rule.
        const RecipeFacts facts =
            Analyzer().extract(".flox/pkgs/pytorch-python313-cuda13_0-sm90-avx512.nix", bytes);
        for (const PinFact& pin : facts.pins)
            QVERIFY(inside(pin.range, bytes.size()));
        for (const ArchSinkFact& entry : facts.archSinks) {
            QVERIFY(inside(entry.range, bytes.size()));
            QVERIFY(inside(entry.sinkRange, bytes.size()));
        }
        if (facts.compilerFlags)
            QVERIFY(inside(facts.compilerFlags->range, bytes.size()));
        if (facts.platformsValue)
            QVERIFY(inside(facts.platformsValue->range, bytes.size()));
        std::optional<VariantExpectation> expected;
        if (facts.variant)
            expected = VariantExpectation::of(*facts.variant, spec, Catalog::builtin());
        for (const Finding& finding :
             RuleSet::check(facts, expected ? &*expected : nullptr, Catalog::builtin())) {
            QVERIFY(!finding.ruleId.empty() && !finding.message.empty());
            QVERIFY(RuleSet::rule(finding.ruleId));
            QVERIFY(inside(finding.range, bytes.size()));
        }
    }
};

QTEST_GUILESS_MAIN(TestFuzzCorpus)
#include "tst_fuzzcorpus.moc"
