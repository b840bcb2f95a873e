// Every rule: one case that triggers it and one that does not. cleanupTestCase checks that no
// rule of RuleSet::rules() went untriggered, so a new rule cannot land without its test.

#include "recipes/analyzer.h"
#include "recipes/ruleset.h"
#include "testrepository.h"

#include <QTest>
#include <set>

using namespace rg;
using rg::test::TestRepository;

namespace {

const QByteArray goodPin = "6a030d535719c5190187c4cec156f335e95e3211";
const QByteArray otherPin = "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3";

const char* const specJson = R"json({
  "schema": 1,
  "package": "pytorch",
  "recipeDir": ".flox/pkgs",
  "torchVersion": "2.10.0",
  "pnamePrefix": "pytorch210-",
  "pins": {
    "13.0": "6a030d535719c5190187c4cec156f335e95e3211",
    "cpu": "6a030d535719c5190187c4cec156f335e95e3211"
  },
  "matrix": [
    { "python": ["3.13"], "accelerator": "cuda", "cuda": ["13.0"],
      "gpuArchs": ["sm90", "sm120"], "isas": ["avx512"] },
    { "python": ["3.13"], "accelerator": "cuda", "cuda": ["13.0"],
      "gpuArchs": ["sm110"], "isas": ["armv9"] },
    { "python": ["3.13"], "accelerator": "cpu", "isas": ["avx2"] }
  ],
  "patterns": {
    "cuda": { "kind": "pinned-overlays",
              "overlays": ["cuda-package-set", "magma-patch", "torch-upgrade"] },
    "cpu": { "kind": "pinned-overlays", "overlays": ["torch-upgrade"] }
  }
}
)json";

const QByteArray cudaOverlay = "(final: prev: { cudaPackages = final.CUDASET; })";
const QByteArray magmaOverlay =
    "(final: prev: { magma = prev.magma.overrideAttrs (oldAttrs: { patches = (oldAttrs.patches "
    "or []) ++ [ (final.fetchpatch { name = \"cuda-13.0-clockrate-fix.patch\"; url = "
    "\"https://github.com/icl-utk-edu/magma/commit/235aefb.patch\"; hash = \"\"; }) ]; }); })";
const QByteArray torchOverlay =
    "(final: prev: { python3Packages = prev.python3Packages.override { overrides = pfinal: pprev: "
    "{ torch = pprev.torch.overrideAttrs (oldAttrs: rec { version = \"TORCHVERSION\"; patches = "
    "[]; }); }; }; })";

// A recipe in the canonical shape; each field can be bent to trigger one rule.
struct Recipe
{
    QByteArray pin = goodPin;
    QByteArray sm = "9.0";
    QByteArray num = "90";
    QByteArray flags = "\"-mavx512f\" \"-mavx512dq\" \"-mavx512vl\" \"-mavx512bw\" \"-mfma\"";
    QByteArray platforms = "\"x86_64-linux\"";
    QByteArray pname = "pytorch210-python313-cuda13_0-sm90-avx512";
    QByteArray pythonSet = "python3Packages";
    QByteArray attribute = "torch";
    QByteArray cudaSet = "cudaPackages_13";
    QByteArray torchVersion = "2.10.0";
    QByteArray archList = "${gpuArchSM}";
    QByteArray extraShell;
    bool cuda = true;
    bool cudaOverlayOn = true;
    bool magma = true;
    bool torch = true;

    QByteArray text() const
    {
        QByteArray overlays;
        if (cuda && cudaOverlayOn)
            overlays += QByteArray(cudaOverlay).replace("CUDASET", cudaSet) + "\n      ";
        if (cuda && magma)
            overlays += magmaOverlay + "\n      ";
        if (torch)
            overlays += QByteArray(torchOverlay).replace("TORCHVERSION", torchVersion);
        QByteArray gpu = cuda ? "  gpuArchNum = \"" + num + "\";\n  gpuArchSM = \"" + sm + "\";\n"
                              : QByteArray();
        return "let\n"
               "  nixpkgs_pinned = import (builtins.fetchTarball {\n"
               "    url = \"https://github.com/NixOS/nixpkgs/archive/" +
               pin +
               ".tar.gz\";\n"
               "    sha256 = \"0000000000000000000000000000000000000000000000000000\";\n"
               "  }) {\n"
               "    config = { allowUnfree = true; cudaSupport = " +
               (cuda ? "true" : "false") +
               "; };\n"
               "    overlays = [\n      " +
               overlays +
               "\n    ];\n"
               "  };\n" +
               gpu + "  cpuFlags = [ " + flags +
               " ];\n"
               "in\n"
               "(nixpkgs_pinned." +
               pythonSet + "." + attribute + ".override {\n  cudaSupport = " +
               (cuda ? "true;\n  gpuTargets = [ gpuArchSM ];\n" : "false;\n") +
               "}).overrideAttrs (oldAttrs: {\n"
               "  pname = \"" +
               pname +
               "\";\n"
               "  preConfigure = (oldAttrs.preConfigure or \"\") + ''\n" +
               (cuda ? "    export TORCH_CUDA_ARCH_LIST=\"" + archList + "\"\n" : QByteArray()) +
               "    " + extraShell +
               "\n  '';\n"
               "  meta = oldAttrs.meta // {\n"
               "    description = \"PyTorch\";\n"
               "    platforms = [ " +
               platforms +
               " ];\n"
               "  };\n"
               "})\n";
    }
};

Recipe cpuRecipe()
{
    Recipe r;
    r.cuda = false;
    r.flags = "\"-mavx2\" \"-mfma\" \"-mf16c\"";
    r.pname = "pytorch210-python313-cpu-avx2";
    return r;
}

const Catalog& catalog()
{
    return Catalog::builtin();
}

MatrixSpec spec()
{
    SpecError error;
    auto parsed = MatrixSpec::fromJson(specJson, "spec.json", catalog(), &error);
    if (!parsed)
        qFatal("test spec invalid: %s", error.toString().c_str());
    return *parsed;
}

std::set<std::string>& triggered()
{
    static std::set<std::string> ids;
    return ids;
}

std::vector<Finding> check(const QByteArray& text,
                           const std::string& name = "pytorch-python313-cuda13_0-sm90-avx512.nix")
{
    const RecipeFacts facts = Analyzer().extract(".flox/pkgs/" + name, text.toStdString());
    if (facts.problem != FileProblem::None && facts.problem != FileProblem::NotUtf8 &&
        facts.problem != FileProblem::SyntaxError)
        qWarning() << "problem:" << facts.problemDetail.c_str();
    auto findings = RuleSet::check(facts, spec(), catalog());
    for (const Finding& finding : findings)
        triggered().insert(finding.ruleId);
    return findings;
}

std::vector<Finding> check(const Recipe& recipe,
                           const std::string& name = "pytorch-python313-cuda13_0-sm90-avx512.nix")
{
    return check(recipe.text(), name);
}

std::multiset<std::string> ids(const std::vector<Finding>& findings)
{
    std::multiset<std::string> out;
    for (const Finding& finding : findings)
        out.insert(finding.ruleId);
    return out;
}

const Finding* find(const std::vector<Finding>& findings, const std::string& id)
{
    for (const Finding& finding : findings)
        if (finding.ruleId == id)
            return &finding;
    return nullptr;
}

Analysis analyze(const TestRepository& repo, AnalyzerOptions options = {})
{
    Analysis analysis = Analyzer().analyze(*openWorkTree(repo.rootPath()), options);
    for (const MatrixEntry& entry : analysis.entries)
        for (const Finding& finding : entry.findings)
            triggered().insert(finding.ruleId);
    for (const Finding& finding : analysis.repositoryFindings)
        triggered().insert(finding.ruleId);
    return analysis;
}

std::multiset<std::string> allIds(const Analysis& analysis)
{
    std::multiset<std::string> out;
    for (const MatrixEntry& entry : analysis.entries)
        for (const Finding& finding : entry.findings)
            out.insert(finding.ruleId);
    for (const Finding& finding : analysis.repositoryFindings)
        out.insert(finding.ruleId);
    return out;
}

} // namespace

#define CLEAN(findings) QCOMPARE(ids(findings), std::multiset<std::string>{})
#define ONLY(findings, id) QCOMPARE(ids(findings), std::multiset<std::string>{id})

class TestRules : public QObject
{
    Q_OBJECT

private slots:
    void ruleTableIsWellFormed()
    {
        std::set<std::string_view> seen;
        for (const RuleInfo& rule : RuleSet::rules()) {
            QVERIFY2(seen.insert(rule.id).second, std::string(rule.id).c_str());
            QVERIFY(!rule.title.empty());
            QVERIFY(!rule.description.empty());
            for (char c : rule.id)
                QVERIFY((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-');
        }
        QVERIFY(RuleSet::rule("pin-mismatch"));
        QVERIFY(!RuleSet::rule("no-such-rule"));
    }

    void canonicalRecipesAreClean()
    {
        CLEAN(check(Recipe{}));
        CLEAN(check(cpuRecipe(), "pytorch-python313-cpu-avx2.nix"));
        Recipe arm;
        arm.sm = "11.0";
        arm.num = "110";
        arm.flags = "\"-march=armv9-a+sve2\"";
        arm.platforms = "\"aarch64-linux\"";
        arm.pname = "pytorch210-python313-cuda13_0-sm110-armv9";
        CLEAN(check(arm, "pytorch-python313-cuda13_0-sm110-armv9.nix"));
    }

    void pinMismatch()
    {
        Recipe r;
        r.pin = otherPin;
        const auto findings = check(r);
        ONLY(findings, "pin-mismatch");
        const Finding* f = find(findings, "pin-mismatch");
        QVERIFY(f->message.find(otherPin.toStdString()) != std::string::npos);
        QVERIFY(f->message.find(goodPin.toStdString()) != std::string::npos);
        QVERIFY(f->message.find("CUDA 13.0") != std::string::npos);
        QCOMPARE(f->fix, FixKind::ReplacePin);
        QCOMPARE(f->line, 3u);
        QCOMPARE(r.text().mid(f->range.begin, f->range.length()), otherPin);
    }

    void pinNotFull()
    {
        Recipe r;
        r.pin = "6a030d5";
        ONLY(check(r), "pin-not-full");
        r.pin = "6A030D535719C5190187C4CEC156F335E95E3211"; // not lowercase: not how git writes it
        ONLY(check(r), "pin-not-full");
        CLEAN(check(Recipe{}));
    }

    void pinMissing()
    {
        const QByteArray callPackage =
            "{ python3Packages }: python3Packages.torch.overrideAttrs (o: { pname = "
            "\"pytorch210-python313-cpu-avx2\"; })";
        const auto findings = check(callPackage, "pytorch-python313-cpu-avx2.nix");
        QVERIFY(find(findings, "pin-missing"));
        // A wrapper takes its pin from the file it wraps.
        const QByteArray wrapper = "{ callPackage }: callPackage ./common.nix { }";
        QVERIFY(!find(check(wrapper, "pytorch-python313-cpu-avx2.nix"), "pin-missing"));
    }

    void missingOverlay()
    {
        Recipe r;
        r.magma = false;
        const auto findings = check(r);
        ONLY(findings, "missing-overlay");
        const std::string& message = find(findings, "missing-overlay")->message;
        QVERIFY(message.find("magma-patch") != std::string::npos);
        QVERIFY(message.find("cuda-package-set") == std::string::npos);
        QCOMPARE(find(findings, "missing-overlay")->fix, FixKind::Regenerate);
        Recipe none;
        none.cudaOverlayOn = none.magma = none.torch = false;
        QVERIFY(find(check(none), "missing-overlay")
                    ->message.find("cuda-package-set, magma-patch, "
                                   "torch-upgrade") != std::string::npos);
    }

    void cudaVersionMismatch()
    {
        Recipe r;
        r.cudaSet = "cudaPackages_12_9";
        const auto findings = check(r);
        ONLY(findings, "cuda-version-mismatch");
        QVERIFY(find(findings, "cuda-version-mismatch")->message.find("12.9") != std::string::npos);
        r.cudaSet = "cudaPackages_13_0";
        CLEAN(check(r));
    }

    void deprecatedTorchAttribute()
    {
        Recipe r;
        r.attribute = "pytorch";
        const auto findings = check(r);
        ONLY(findings, "deprecated-torch-attribute");
        const Finding* f = find(findings, "deprecated-torch-attribute");
        QCOMPARE(f->severity, Severity::Warning);
        QCOMPARE(r.text().mid(f->range.begin, f->range.length()), QByteArray("pytorch"));
    }

    void fromScratchPattern()
    {
        const QByteArray scratch =
            "{ python3Packages, cudaPackages_13, lib }: python3Packages.buildPythonPackage rec {\n"
            "  pname = \"pytorch210-python313-cuda13_0-sm90-avx512\";\n  version = \"2.10.0\";\n"
            "  gpuArchSM = \"9.0\";\n  meta.platforms = [ \"x86_64-linux\" ];\n}\n";
        const auto findings = check(scratch);
        QVERIFY(find(findings, "from-scratch-pattern"));
        QVERIFY(!find(findings, "missing-overlay")); // the pattern finding says it all
        QCOMPARE(find(findings, "from-scratch-pattern")->line, 2u);
        QVERIFY(!find(check(Recipe{}), "from-scratch-pattern"));
    }

    void magmaDisabled()
    {
        Recipe r;
        r.extraShell = "export USE_MAGMA=OFF";
        const auto findings = check(r);
        ONLY(findings, "magma-disabled");
        QVERIFY(find(findings, "magma-disabled")->message.find("USE_MAGMA=OFF") !=
                std::string::npos);
        r.extraShell = "export USE_MAGMA=ON";
        CLEAN(check(r));
    }

    void pnameMismatch()
    {
        Recipe r;
        r.pname = "pytorch-python313-cuda13_0-sm86-avx512";
        const auto findings = check(r);
        ONLY(findings, "pname-mismatch");
        QVERIFY(find(findings, "pname-mismatch")->message.find("pytorch210-") != std::string::npos);
        r.pname = "pytorch-python313-cuda13_0-sm90-avx512"; // the file name itself is fine too
        CLEAN(check(r));
    }

    void gpuArchMismatch()
    {
        Recipe r;
        r.sm = "8.0"; // gpuArchSM, and through it gpuTargets and TORCH_CUDA_ARCH_LIST
        auto findings = check(r);
        QCOMPARE(ids(findings),
                 (std::multiset<std::string>{"gpu-arch-mismatch", "gpu-arch-mismatch",
                                             "gpu-arch-mismatch"}));
        QVERIFY(findings[0].message.find("sm90") != std::string::npos);
        Recipe num;
        num.num = "80";
        ONLY(check(num), "gpu-arch-mismatch");
        Recipe list;
        list.archList = "sm_80";
        ONLY(check(list), "gpu-arch-mismatch");
        list.archList = "sm_90"; // every spelling of the right arch is accepted
        CLEAN(check(list));
        list.archList = "9.0+PTX";
        CLEAN(check(list));
    }

    void cpuFlagsMismatch()
    {
        Recipe r;
        r.flags = "\"-mavx2\" \"-mfma\" \"-mf16c\"";
        const auto findings = check(r);
        ONLY(findings, "cpu-flags-mismatch");
        QVERIFY(find(findings, "cpu-flags-mismatch")->message.find("-mavx512f") !=
                std::string::npos);
        r.flags = "\"-mfma\" \"-mavx512bw\" \"-mavx512vl\" \"-mavx512dq\" \"-mavx512f\"";
        CLEAN(check(r)); // order does not change what the compiler does
    }

    void platformsMismatch()
    {
        Recipe r;
        r.platforms = "\"aarch64-linux\"";
        ONLY(check(r), "platforms-mismatch");
        r.platforms = "\"x86_64-linux\" \"aarch64-linux\""; // a GPU recipe runs on one platform
        ONLY(check(r), "platforms-mismatch");
        Recipe cpu = cpuRecipe();
        cpu.platforms = "\"x86_64-linux\" \"aarch64-linux\""; // seed 002 allows both for CPU
        CLEAN(check(cpu, "pytorch-python313-cpu-avx2.nix"));
        cpu.platforms = "\"aarch64-linux\"";
        ONLY(check(cpu, "pytorch-python313-cpu-avx2.nix"), "platforms-mismatch");
    }

    void cpuRecipeWithCudaInputs()
    {
        Recipe cpu = cpuRecipe();
        cpu.extraShell = "export USE_CUDA=1";
        ONLY(check(cpu, "pytorch-python313-cpu-avx2.nix"), "cpu-recipe-cuda-inputs");
        const QByteArray inputs =
            "{ python3Packages, cudaPackages }: python3Packages.torch.overrideAttrs (o: { pname = "
            "\"pytorch-python313-cpu-avx2\"; buildInputs = [ cudaPackages.cudnn ]; })";
        const auto findings = check(inputs, "pytorch-python313-cpu-avx2.nix");
        QVERIFY(find(findings, "cpu-recipe-cuda-inputs"));
        QVERIFY(find(findings, "cpu-recipe-cuda-inputs")->message.find("cudaPackages") !=
                std::string::npos);
        CLEAN(check(cpuRecipe(), "pytorch-python313-cpu-avx2.nix"));
    }

    void pythonVersionMismatch()
    {
        Recipe r;
        r.pythonSet = "python312Packages";
        const auto findings = check(r);
        ONLY(findings, "python-version-mismatch");
        QVERIFY(find(findings, "python-version-mismatch")->message.find("python313") !=
                std::string::npos);
        r.pythonSet = "python313Packages";
        CLEAN(check(r));
        r.pythonSet = "python3Packages"; // the pin's default Python: treated as matching
        CLEAN(check(r));
    }

    void torchVersionMismatch()
    {
        Recipe r;
        r.torchVersion = "2.9.0";
        const auto findings = check(r);
        ONLY(findings, "torch-version-mismatch");
        QVERIFY(find(findings, "torch-version-mismatch")->message.find("2.9.0") !=
                std::string::npos);
        CLEAN(check(Recipe{}));
    }

    void cudaBelowMinimum()
    {
        Recipe r;
        r.sm = "11.0";
        r.num = "110";
        r.flags = "\"-march=armv9-a+sve2\"";
        r.platforms = "\"aarch64-linux\"";
        r.pname = "pytorch-python313-cuda12_8-sm110-armv9";
        r.cudaSet = "cudaPackages_12_8";
        const auto findings = check(r, "pytorch-python313-cuda12_8-sm110-armv9.nix");
        QVERIFY(find(findings, "cuda-below-minimum"));
        QVERIFY(find(findings, "cuda-below-minimum")->message.find("13.0") != std::string::npos);
        r.cudaSet = "cudaPackages_13";
        r.pname = "pytorch210-python313-cuda13_0-sm110-armv9";
        CLEAN(check(r, "pytorch-python313-cuda13_0-sm110-armv9.nix"));
    }

    void impossiblePairing()
    {
        Recipe r;
        r.sm = "11.0";
        r.num = "110";
        r.pname = "pytorch210-python313-cuda13_0-sm110-avx512";
        // The spec does not ask for sm110 with an x86 ISA: report it.
        const auto findings = check(r, "pytorch-python313-cuda13_0-sm110-avx512.nix");
        ONLY(findings, "impossible-pairing");
        QVERIFY(find(findings, "impossible-pairing")->message.find("ARM") != std::string::npos);
        // When the spec asks for it, the spec decides: no finding.
        MatrixSpec asking = spec();
        asking.groups[0].gpuArchs.push_back("sm110");
        const RecipeFacts facts = Analyzer().extract(
            ".flox/pkgs/pytorch-python313-cuda13_0-sm110-avx512.nix", r.text().toStdString());
        QVERIFY(RuleSet::check(facts, asking, catalog()).empty());
    }

    void naming()
    {
        Recipe r;
        r.sm = "11.0";
        r.num = "110";
        r.flags = "\"-march=armv8.2-a+fp16+dotprod\"";
        r.platforms = "\"aarch64-linux\"";
        r.pname = "pytorch-python313-cuda13_0-sm110-armv8.2";
        const auto dotted = check(r, "pytorch-python313-cuda13_0-sm110-armv8.2.nix");
        QVERIFY(find(dotted, "naming"));
        QVERIFY(find(dotted, "naming")->message.find("armv8_2") != std::string::npos);
        const QByteArray legacy = "{ python3Packages }: python3Packages.torch";
        QVERIFY(find(check(legacy, "pytorch-py313-sm90-avx512.nix"), "naming"));
        QVERIFY(find(check(legacy, "pytorch-python313-cpu-avx10.nix"), "naming"));
        QVERIFY(!find(check(Recipe{}), "naming"));
    }

    void nonstandardSuffixAndDuplicates()
    {
        TestRepository repo;
        repo.write(".flox/recipegrid.json", specJson);
        repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512.nix", Recipe{}.text());
        Recipe magma;
        magma.pname = "pytorch210-python313-cuda13_0-sm90-avx512-magma";
        repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512-magma.nix", magma.text());
        repo.writeRecipe("pytorch210-python313-cuda13_0-sm90-avx512.nix", Recipe{}.text());
        const Analysis analysis = analyze(repo);
        int redundant = 0;
        for (const MatrixEntry& entry : analysis.entries) {
            if (!entry.recipe)
                continue;
            if (entry.recipe->fileName == "pytorch-python313-cuda13_0-sm90-avx512.nix") {
                QCOMPARE(entry.status, CellStatus::Ok);
                QVERIFY(entry.findings.empty());
            } else {
                ++redundant;
                QCOMPARE(entry.status, CellStatus::Redundant);
                const bool suffixed = entry.recipe->fileName.find("magma") != std::string::npos;
                ONLY(entry.findings, suffixed ? "nonstandard-suffix" : "duplicate-variant");
                QCOMPARE(entry.findings[0].fix, FixKind::Delete);
            }
        }
        QCOMPARE(redundant, 2);

        // A legacy name without CUDA version duplicates the canonical recipe of its cell.
        repo.writeRecipe("pytorch-py313-sm90-avx512.nix", Recipe{}.text());
        const Analysis legacy = analyze(repo);
        bool found = false;
        for (const MatrixEntry& entry : legacy.entries)
            if (entry.recipe && entry.recipe->fileName == "pytorch-py313-sm90-avx512.nix") {
                found = true;
                QCOMPARE(entry.status, CellStatus::Redundant);
                QVERIFY(
                    std::any_of(entry.findings.begin(), entry.findings.end(), [](const Finding& f) {
                        return f.ruleId == "duplicate-variant" &&
                               f.message.find("pytorch-python313-cuda13_0-sm90-avx512.nix") !=
                                   std::string::npos;
                    }));
            }
        QVERIFY(found);
    }

    void missingAndUnexpectedVariants()
    {
        TestRepository repo;
        repo.write(".flox/recipegrid.json", specJson);
        repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512.nix", Recipe{}.text());
        Recipe extra;
        extra.sm = "8.6";
        extra.num = "86";
        extra.pname = "pytorch210-python313-cuda13_0-sm86-avx512";
        repo.writeRecipe("pytorch-python313-cuda13_0-sm86-avx512.nix", extra.text());
        const Analysis analysis = analyze(repo);
        QCOMPARE(analysis.counts()[size_t(CellStatus::Missing)], 3);
        QCOMPARE(analysis.counts()[size_t(CellStatus::Unexpected)], 1);
        QCOMPARE(analysis.counts()[size_t(CellStatus::Ok)], 1);
        QCOMPARE(allIds(analysis),
                 (std::multiset<std::string>{"missing-variant", "missing-variant",
                                             "missing-variant", "unexpected-variant"}));
        for (const MatrixEntry& entry : analysis.entries)
            if (entry.status == CellStatus::Missing)
                QCOMPARE(entry.findings.at(0).file,
                         ".flox/pkgs/" + entry.variant.toString() + ".nix");
    }

    void impossibleStatus()
    {
        TestRepository repo;
        repo.write(".flox/recipegrid.json", specJson);
        Recipe r;
        r.sm = "12.1";
        r.num = "121";
        r.pname = "pytorch210-python313-cuda13_0-sm121-avx512";
        repo.writeRecipe("pytorch-python313-cuda13_0-sm121-avx512.nix", r.text());
        const Analysis analysis = analyze(repo);
        QCOMPARE(analysis.counts()[size_t(CellStatus::Impossible)], 1);
        QCOMPARE(analysis.counts()[size_t(CellStatus::Unexpected)], 0);

        // An inferred spec lists whatever files exist; it does not make the pairing possible.
        QVERIFY(QFile::remove(repo.root() + "/.flox/recipegrid.json"));
        repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512.nix", Recipe{}.text());
        const Analysis inferred = analyze(repo);
        QVERIFY(inferred.spec.isInferred());
        QCOMPARE(inferred.counts()[size_t(CellStatus::Impossible)], 1);
        QCOMPARE(inferred.counts()[size_t(CellStatus::Ok)], 1);
    }

    void fileProblems()
    {
        TestRepository repo;
        repo.write(".flox/recipegrid.json", specJson);
        repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512.nix", "let x = 1; in { a = x }");
        repo.writeRecipe("pytorch-python313-cuda13_0-sm120-avx512.nix", "{ a = \"caf\xe9\"; }");
        repo.writeRecipe("pytorch-python313-cuda13_0-sm110-armv9.nix", QByteArray(300, '#'));
        QTemporaryDir outside;
        QFile target(outside.filePath("x.nix"));
        QVERIFY(target.open(QIODevice::WriteOnly));
        target.write("{ }");
        target.close();
        QVERIFY(QFile::link(outside.filePath("x.nix"),
                            repo.root() + "/.flox/pkgs/pytorch-python313-cpu-avx2.nix"));
        QVERIFY(QFile::link("missing-target.nix",
                            repo.root() + "/.flox/pkgs/pytorch-python313-cpu-avx512.nix"));
        AnalyzerOptions options;
        options.maxFileSize = 200;
        const Analysis analysis = analyze(repo, options);
        std::map<std::string, std::string> byFile;
        for (const MatrixEntry& entry : analysis.entries)
            if (entry.recipe) {
                QCOMPARE(entry.findings.size() >= 1, true);
                byFile[entry.recipe->fileName] = entry.findings[0].ruleId;
            }
        QCOMPARE(byFile["pytorch-python313-cuda13_0-sm90-avx512.nix"], std::string("syntax-error"));
        QCOMPARE(byFile["pytorch-python313-cuda13_0-sm120-avx512.nix"], std::string("not-utf8"));
        QCOMPARE(byFile["pytorch-python313-cuda13_0-sm110-armv9.nix"],
                 std::string("oversized-file"));
        QCOMPARE(byFile["pytorch-python313-cpu-avx2.nix"], std::string("symlink-outside"));
        QCOMPARE(byFile["pytorch-python313-cpu-avx512.nix"], std::string("unreadable-file"));
        for (const MatrixEntry& entry : analysis.entries)
            if (entry.recipe && entry.recipe->fileName == "pytorch-python313-cpu-avx512.nix")
                QVERIFY(entry.findings[0].message.find("No such file or directory") !=
                        std::string::npos);
        // Good files are not flagged by any of these.
        TestRepository clean;
        clean.write(".flox/recipegrid.json", specJson);
        clean.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512.nix", Recipe{}.text());
        const Analysis fine = analyze(clean);
        QCOMPARE(fine.entries.front().status, CellStatus::Ok);
    }

    void wrappersInheritTheirBasesPin()
    {
        // Pattern (e): each variant file only passes its values to a shared base.
        TestRepository repo;
        repo.write(".flox/recipegrid.json", specJson);
        const QByteArray base =
            "{ gpuArchSM, cpuFlags, platform, pname }:\n"
            "let\n"
            "  pkgs = import (builtins.fetchTarball {\n"
            "    url = \"https://github.com/NixOS/nixpkgs/archive/PIN.tar.gz\";\n"
            "  }) { overlays = [ CUDA MAGMA TORCH ]; };\n"
            "in (pkgs.python3Packages.torch.override { gpuTargets = [ gpuArchSM ]; "
            "}).overrideAttrs (o: {\n"
            "  inherit pname;\n  meta.platforms = [ platform ];\n})\n";
        auto fill = [&](const QByteArray& pin) {
            return QByteArray(base)
                .replace("PIN", pin)
                .replace("CUDA", QByteArray(cudaOverlay).replace("CUDASET", "cudaPackages_13"))
                .replace("MAGMA", magmaOverlay)
                .replace("TORCH", QByteArray(torchOverlay).replace("TORCHVERSION", "2.10.0"));
        };
        repo.writeRecipe("pytorch-common.nix", fill(otherPin));
        repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512.nix",
                         "{ callPackage }: callPackage ./pytorch-common.nix {\n"
                         "  gpuArchSM = \"9.0\";\n"
                         "  cpuFlags = [ \"-mavx512f\" \"-mavx512dq\" \"-mavx512vl\" "
                         "\"-mavx512bw\" \"-mfma\" ];\n"
                         "  platform = \"x86_64-linux\";\n"
                         "  pname = \"pytorch210-python313-cuda13_0-sm90-avx512\";\n}\n");
        const Analysis stale = analyze(repo);
        const MatrixEntry& entry = stale.entries.front();
        QCOMPARE(entry.recipe->pattern, PatternKind::Wrapper);
        QCOMPARE(entry.status, CellStatus::Broken);
        ONLY(entry.findings, "pin-mismatch");
        QCOMPARE(entry.findings[0].file, std::string(".flox/pkgs/pytorch-common.nix"));
        QCOMPARE(entry.findings[0].line, 4u); // the line of the pin in the base file
        QVERIFY(entry.findings[0].message.find("pytorch-common.nix") != std::string::npos);
        // The base is a shared file, not an unnamed recipe to complain about.
        for (const Finding& finding : stale.repositoryFindings)
            QVERIFY(finding.ruleId != "not-a-variant-name");

        repo.writeRecipe("pytorch-common.nix", fill(goodPin));
        const Analysis fixed = analyze(repo);
        QCOMPARE(fixed.entries.front().status, CellStatus::Ok);
        QVERIFY(fixed.entries.front().findings.empty());

        // Without a spec file, the inferred pin is the base's (the wrapper states none).
        QVERIFY(QFile::remove(repo.root() + "/.flox/recipegrid.json"));
        const Analysis inferred = analyze(repo);
        QVERIFY(inferred.spec.isInferred());
        QCOMPARE(inferred.spec.pins.at("13.0"), goodPin.toStdString());
        QCOMPARE(inferred.entries.front().status, CellStatus::Ok);
    }

    void repositoryRules()
    {
        TestRepository repo;
        repo.writeRecipe("helpers.nix", "{ }");
        repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512.nix", Recipe{}.text());
        const Analysis inferred = analyze(repo);
        QCOMPARE(allIds(inferred),
                 (std::multiset<std::string>{"not-a-variant-name", "spec-inferred"}));
        repo.write(".flox/recipegrid.json", "{ \"schema\": 1, \"package\": 5 }");
        const Analysis invalid = analyze(repo);
        QCOMPARE(allIds(invalid),
                 (std::multiset<std::string>{"not-a-variant-name", "spec-invalid"}));
        repo.write(".flox/recipegrid.json", specJson);
        QFile::remove(repo.root() + "/.flox/pkgs/helpers.nix");
        const Analysis valid = analyze(repo);
        QVERIFY(valid.repositoryFindings.empty());
    }

    void cleanupTestCase()
    {
        std::vector<std::string> untested;
        for (const RuleInfo& rule : RuleSet::rules())
            if (!triggered().count(std::string(rule.id)))
                untested.emplace_back(rule.id);
        std::string list;
        for (const std::string& id : untested)
            list += id + " ";
        QVERIFY2(untested.empty(), ("rules never triggered: " + list).c_str());
    }
};

QTEST_GUILESS_MAIN(TestRules)
#include "tst_rules.moc"
