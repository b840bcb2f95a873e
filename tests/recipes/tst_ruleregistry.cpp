// Every finding comes from a registered rule: each row of RuleSet::rules() names the check that
// reports it, and the analysis of every fixture repository and the demo reports no rule id the
// table lacks.

#include "analysis/analyzer.h"
#include "analysis/rules/importrules.h"
#include "analysis/ruleset.h"
#include "testrepository.h"
#include "vcs/repositorysource.h"

#include <QDir>
#include <QDirIterator>
#include <QTest>
#include <algorithm>
#include <set>

using namespace rg;

namespace {

// Every directory with recipes under the fixtures, and the demo.
QStringList repositories()
{
    QStringList found;
    QDirIterator it(QStringLiteral(RG_FIXTURES_DIR), {QStringLiteral("pkgs")},
                    QDir::Dirs | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString pkgs = it.next();
        if (pkgs.endsWith(QStringLiteral("/.flox/pkgs")))
            found.append(pkgs.chopped(QStringLiteral("/.flox/pkgs").size()));
    }
    found.append(QStringLiteral(RG_SOURCE_DIR "/resources/demo/repository"));
    found.sort();
    return found;
}

bool hasCheck(const RuleCheck& check)
{
    return std::visit(
        [](auto rule) {
            using Kind = decltype(rule);
            if constexpr (std::is_same_v<Kind, std::monostate> || std::is_same_v<Kind, NixAnswer>)
                return false;
            else
                return rule != nullptr;
        },
        check);
}

} // namespace

class TestRuleRegistry : public QObject
{
    Q_OBJECT

private slots:
    void everyRuleNamesARegisteredCheck()
    {
        const auto& checks = RuleSet::checks();
        for (const RuleInfo& rule : RuleSet::rules()) {
            const std::string id(rule.id);
            // Reported from Nix's answer by DeepCheck, a library above the rules; tst_deepcheck
            // holds DeepCheck to exactly these.
            QCOMPARE(std::holds_alternative<NixAnswer>(rule.check), rule.id.starts_with("eval-"));
            if (std::holds_alternative<NixAnswer>(rule.check))
                continue;
            QVERIFY2(hasCheck(rule.check), id.c_str());
            QVERIFY2(std::find(checks.begin(), checks.end(), rule.check) != checks.end(),
                     id.c_str());
        }
    }

    void everyCheckRunsOnceAndReportsARule()
    {
        const auto& checks = RuleSet::checks();
        for (size_t i = 0; i < checks.size(); ++i) {
            QVERIFY(hasCheck(checks[i]));
            QCOMPARE(std::count(checks.begin(), checks.end(), checks[i]), 1);
            // The check of inherited findings reports the rules of the wrapped base.
            if (checks[i] == RuleCheck(&ImportRules::inherited))
                continue;
            QVERIFY2(std::any_of(RuleSet::rules().begin(), RuleSet::rules().end(),
                                 [&](const RuleInfo& rule) { return rule.check == checks[i]; }),
                     QByteArray::number(qulonglong(i)).constData());
        }
    }

    void everyFindingOfTheFixturesIsOfARegisteredRule()
    {
        const QStringList repos = repositories();
        QVERIFY2(repos.size() >= 20, "the fixture repositories were not found");
        std::set<std::string> reported;
        for (const QString& repo : repos) {
            const Analysis analysis = Analyzer().analyze(*openWorkTree(repo.toStdString()));
            std::vector<Finding> findings = analysis.repositoryFindings;
            for (const Cell& entry : analysis.cells)
                findings.insert(findings.end(), entry.findings.begin(), entry.findings.end());
            for (const Finding& finding : findings) {
                const std::string where = repo.toStdString() + ": " + finding.ruleId;
                const RuleInfo* rule = RuleSet::rule(finding.ruleId);
                QVERIFY2(rule, where.c_str());
                QVERIFY2(hasCheck(rule->check), where.c_str());
                QVERIFY2(finding.severity == rule->severity, where.c_str());
                reported.insert(finding.ruleId);
            }
        }
        // Findings of each kind of check: per recipe, per cell, of the spec.
        for (const char* id : {"pin-mismatch", "nonstandard-suffix", "missing-variant", "gap",
                               "unexpected-variant", "not-a-variant-name", "spec-inferred"})
            QVERIFY2(reported.count(id), id);
    }

    // The fixtures have none across recipes: a missing import, and a wrapper that inherits
    // its base's pin.
    void findingsAcrossRecipesAreOfTheirRegisteredRule()
    {
        test::TestRepository repo;
        repo.write(".flox/recipegrid.json",
                   R"({ "schema": 1, "package": "pytorch", "recipeDir": ".flox/pkgs",
                        "pins": { "13.0": "6a030d535719c5190187c4cec156f335e95e3211" },
                        "matrix": [ { "python": ["3.13"], "accelerator": "cuda",
                                      "cuda": ["13.0"], "gpuArchs": ["sm90"],
                                      "isas": ["avx2", "avx512"] } ] })");
        repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512.nix",
                         "{ callPackage }: callPackage ./gone.nix { }\n");
        repo.writeRecipe("base.nix", "{ }:\nlet\n  pkgs = import (builtins.fetchTarball {\n"
                                     "    url = \"https://github.com/NixOS/nixpkgs/archive/"
                                     "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3.tar.gz\";\n"
                                     "  }) { };\nin pkgs.python3Packages.torch\n");
        repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx2.nix",
                         "{ callPackage }: callPackage ./base.nix { }\n");
        const Analysis analysis = Analyzer().analyze(*openWorkTree(repo.rootPath()));
        std::multiset<std::string> reported;
        for (const Cell& entry : analysis.cells)
            for (const Finding& finding : entry.findings) {
                QVERIFY2(RuleSet::rule(finding.ruleId), finding.ruleId.c_str());
                if (finding.message.find("(inherited from base.nix)") != std::string::npos)
                    reported.insert("inherited " + finding.ruleId);
                else
                    reported.insert(finding.ruleId);
            }
        QVERIFY2(reported.count("imported-file-missing"), "no missing import");
        QVERIFY2(reported.count("inherited pin-mismatch"), "no inherited pin");
    }

    // A suffixed second recipe of a cell is reported by its suffix rule against the recipe
    // that builds the cell, as one to delete.
    void aSuffixIsReportedAgainstTheRecipeOfItsCell()
    {
        const std::string name = "pytorch-python313-cuda13_0-sm90-avx512-nightly.nix";
        const RecipeFacts facts = Analyzer().extract(".flox/pkgs/" + name, "{ }");
        RecipeFacts other;
        other.fileName = "pytorch-python313-cuda13_0-sm90-avx512.nix";
        const auto spec = MatrixSpec::infer({}, Catalog::builtin());
        Analysis analysis;
        analysis.spec = spec;
        const auto expected = analysis.expectationFor(*facts.variant);
        auto suffix = [](const std::vector<Finding>& findings) {
            const auto it = std::find_if(findings.begin(), findings.end(), [](const Finding& f) {
                return f.ruleId == rule::nonstandardSuffix;
            });
            return it == findings.end() ? Finding{} : *it;
        };
        const Finding alone = suffix(RuleSet::check(facts, expected.get(), analysis.catalog));
        QCOMPARE(alone.message, std::string("non-standard suffix '-nightly' after the ISA; the "
                                            "variant is pytorch-python313-cuda13_0-sm90-avx512"));
        QCOMPARE(alone.fix, FixKind::Rename);
        const Finding second =
            suffix(RuleSet::check(facts, expected.get(), analysis.catalog, &other));
        QCOMPARE(second.message, alone.message + ", which " + other.fileName + " already builds");
        QCOMPARE(second.fix, FixKind::Delete);
    }
};

QTEST_GUILESS_MAIN(TestRuleRegistry)
#include "tst_ruleregistry.moc"
