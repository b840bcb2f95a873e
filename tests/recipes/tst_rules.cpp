// Every rule: one case that triggers it and one that does not. cleanupTestCase checks that no
// rule of RuleSet::rules() went untriggered, so a new rule cannot land without its test.

#include "analysis/analyzer.h"
#include "analysis/recipemodules.h"
#include "analysis/ruleset.h"
#include "facts/archnotation.h"
#include "testrepository.h"

#include <QTest>
#include <map>
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

// The rules against `spec`, as the analyzer runs them for a recipe alone in its group.
std::vector<Finding> judge(const RecipeFacts& facts, const MatrixSpec& spec)
{
    std::optional<VariantExpectation> expected;
    if (facts.variant)
        expected = VariantExpectation::of(*facts.variant, spec, catalog());
    return RuleSet::check(facts, expected ? &*expected : nullptr, catalog());
}

std::vector<Finding> check(const QByteArray& text,
                           const std::string& name = "pytorch-python313-cuda13_0-sm90-avx512.nix")
{
    const RecipeFacts facts = Analyzer().extract(".flox/pkgs/" + name, text.toStdString());
    if (facts.problem != FileProblem::None && facts.problem != FileProblem::NotUtf8 &&
        facts.problem != FileProblem::SyntaxError)
        qWarning() << "problem:" << facts.problemDetail.c_str();
    auto findings = judge(facts, spec());
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
    for (const Cell& entry : analysis.cells)
        for (const Finding& finding : entry.findings)
            triggered().insert(finding.ruleId);
    for (const Finding& finding : analysis.repositoryFindings)
        triggered().insert(finding.ruleId);
    return analysis;
}

// The findings of one recipe alone in a repository without a spec.
std::vector<Finding> checkAlone(const QByteArray& text, const std::string& name)
{
    TestRepository repo;
    repo.writeRecipe(QString::fromStdString(name), text);
    const Analysis analysis = analyze(repo);
    for (const Cell& entry : analysis.cells)
        if (entry.recipe && entry.recipe->fileName == name)
            return entry.findings;
    qWarning("%s was not analysed", name.c_str());
    return {Finding{}};
}

std::multiset<std::string> allIds(const Analysis& analysis)
{
    std::multiset<std::string> out;
    for (const Cell& entry : analysis.cells)
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

    // GitHub serves …/archive/<rev>.tar.gz, …/tarball/<rev> and codeload's …/tar.gz/<rev> alike.
    void pinsInEveryArchiveUrl()
    {
        for (const QByteArray& url :
             {"https://github.com/NixOS/nixpkgs/tarball/" + goodPin,
              "https://api.github.com/repos/NixOS/nixpkgs/tarball/" + goodPin,
              "https://codeload.github.com/NixOS/nixpkgs/tar.gz/" + goodPin}) {
            QByteArray text = Recipe{}.text();
            text.replace("https://github.com/NixOS/nixpkgs/archive/" + goodPin + ".tar.gz", url);
            const RecipeFacts facts = Analyzer().extract(
                ".flox/pkgs/pytorch-python313-cuda13_0-sm90-avx512.nix", text.toStdString());
            QCOMPARE(facts.pins.size(), size_t(1));
            QCOMPARE(QByteArray::fromStdString(facts.pins[0].revision), goodPin);
            CLEAN(check(text));
        }
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

    // A hash Nix refuses to read stops the build before anything is fetched, wherever it is
    // written and in whichever notation; sound hashes of every notation pass.
    void invalidHash_data()
    {
        QTest::addColumn<QByteArray>("from");
        QTest::addColumn<QByteArray>("to");
        QTest::addColumn<bool>("valid");
        const QByteArray zeros =
            "sha256 = \"0000000000000000000000000000000000000000000000000000\"";
        const QByteArray sri = "sha256-i9InbxD5HtfonB/GyF9nQhFmok3jZ73RxGcIciGBGvU=";
        const QByteArray patchHash = "hash = \"\"";
        QTest::newRow("base-32, first digit y")
            << zeros
            << QByteArray("sha256 = \"y4nc4jm66hc042vkhsypkddy65i76j9fcinmyd02pdihi1p0jh5m\"")
            << false;
        QTest::newRow("base-32, first digit 1")
            << zeros
            << QByteArray("sha256 = \"14nc4jm66hc042vkhsypkddy65i76j9fcinmyd02pdihi1p0jh5m\"")
            << true;
        QTest::newRow("base-32, letter e")
            << zeros
            << QByteArray("sha256 = \"1enc4jm66hc042vkhsypkddy65i76j9fcinmyd02pdihi1p0jh5m\"")
            << false;
        QTest::newRow("base-16")
            << zeros
            << QByteArray("sha256 = "
                          "\"b540096e8830b62b40f3d546e692342716e35b9bd76b38b720804163aa24cc92\"")
            << true;
        QTest::newRow("base-16, 63 digits")
            << zeros
            << QByteArray("sha256 = "
                          "\"b540096e8830b62b40f3d546e692342716e35b9bd76b38b720804163aa24cc9\"")
            << false;
        QTest::newRow("SRI in sha256") << zeros << "sha256 = \"" + sri + "\"" << true;
        QTest::newRow("SRI of sha1 in sha256")
            << zeros << "sha256 = \"sha1-" + sri.mid(7) + "\"" << false;
        QTest::newRow("patch: SRI") << patchHash << "hash = \"" + sri + "\"" << true;
        QTest::newRow("patch: SRI too short")
            << patchHash << "hash = \"" + sri.left(40) + "=\"" << false;
        QTest::newRow("patch: unknown algorithm")
            << patchHash << "hash = \"sha384-" + sri.mid(7) + "\"" << false;
        QTest::newRow("patch: typed base-32")
            << patchHash
            << QByteArray("hash = \"sha256:y4nc4jm66hc042vkhsypkddy65i76j9fcinmyd02pdihi1p0jh5m\"")
            << false;
        QTest::newRow("sha512 in base-16")
            << zeros << "sha512 = \"" + QByteArray(128, 'a') + "\"" << true;
        QTest::newRow("sha512 in base-32, first digit 4")
            << zeros << "sha512 = \"4" + QByteArray(102, '3') + "\"" << false;
    }

    void invalidHash()
    {
        QFETCH(QByteArray, from);
        QFETCH(QByteArray, to);
        QFETCH(bool, valid);
        QByteArray text = Recipe{}.text();
        QVERIFY(text.contains(from));
        text.replace(from, to);
        const auto findings = check(text);
        if (valid) {
            CLEAN(findings);
            return;
        }
        ONLY(findings, "invalid-hash");
        const Finding* f = find(findings, "invalid-hash");
        QCOMPARE(f->severity, Severity::Error);
        QCOMPARE(f->fix, FixKind::NewHash);
        QVERIFY2(f->message.find("new hash") != std::string::npos, f->message.c_str());
        const QByteArray literal = to.mid(to.indexOf('"'));
        QCOMPARE(text.mid(f->range.begin, f->range.length()), literal);
        QCOMPARE(f->line, uint32_t(text.left(text.indexOf(literal)).count('\n') + 1));
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
        ONLY(findings, "gpu-arch-mismatch"); // one written value, one finding
        const std::string& message = findings[0].message;
        for (const char* part :
             {"gpuTargets (line 19)", "TORCH_CUDA_ARCH_LIST (line 23)",
              "\"8.0\" (line 14, bound to gpuArchSM)", "sm80", "sm90", "write \"9.0\""})
            QVERIFY2(message.find(part) != std::string::npos, (message + " / " + part).c_str());
        QCOMPARE(findings[0].line, 14u); // the evidence is the literal, where a fix edits
        Recipe num;
        num.num = "80"; // gpuArchNum flows nowhere: what a binding is called is the author's
        CLEAN(check(num));
        Recipe list;
        list.archList = "8.0";
        ONLY(check(list), "gpu-arch-mismatch");
        for (const char* right : {"9.0", "9.0+PTX", "9.0a", "Hopper", "All"}) {
            list.archList = right;
            CLEAN(check(list));
        }
        list.archList = "8.6;9.0"; // builds sm90, and more
        ONLY(check(list), "gpu-arch-extra");
        QCOMPARE(check(list)[0].severity, Severity::Warning);
        // What a shell comment says is not set.
        for (const char* comment :
             {"# was: export TORCH_CUDA_ARCH_LIST=\"8.6;8.9\"",
              "  #export TORCH_CUDA_ARCH_LIST=8.0", "echo ok # TORCH_CUDA_ARCH_LIST=8.0"}) {
            Recipe commented;
            commented.extraShell = comment;
            CLEAN(check(commented));
        }
        Recipe hashInValue;
        hashInValue.extraShell = "export TORCH_CUDA_ARCH_LIST=\"8.0\" # sm80";
        ONLY(check(hashInValue), "gpu-arch-mismatch");
    }

    // A fix is written in the sink's notation and in the form the group's canonical recipe
    // uses there: its "+PTX" comes along.
    void fixesFollowTheCanonicalForm()
    {
        TestRepository repo;
        auto recipe = [](const char* target) {
            return QByteArray("{ python3Packages }:\n(python3Packages.torch.override {\n"
                              "  cudaSupport = true;\n  gpuTargets = [ \"") +
                   target + "\" ];\n})\n";
        };
        repo.writeRecipe("pytorch-python313-cuda12_8-sm86-avx2.nix", recipe("8.6+PTX"));
        repo.writeRecipe("pytorch-python313-cuda12_8-sm89-avx2.nix", recipe("8.9+PTX"));
        repo.writeRecipe("pytorch-python313-cuda12_8-sm90-avx2.nix", recipe("8.0+PTX"));
        const Analysis analysis = analyze(repo);
        std::string message;
        for (const Cell& entry : analysis.cells)
            if (entry.recipe &&
                entry.recipe->fileName == "pytorch-python313-cuda12_8-sm90-avx2.nix")
                if (const Finding* finding = find(entry.findings, "gpu-arch-mismatch"))
                    message = finding->message;
        QVERIFY2(message.find("write \"9.0+PTX\"") != std::string::npos, message.c_str());
        QCOMPARE(ArchNotation::suffixOf(ArchSink::GpuTargets, "9.0a+PTX"), std::string("a+PTX"));
        QCOMPARE(ArchNotation::suffixOf(ArchSink::CmakeCudaArchitectures, "90-real"),
                 std::string("-real"));
        QCOMPARE(ArchNotation::suffixOf(ArchSink::GpuTargets, "sm_90"), std::string());
    }

    void gpuArchNotation()
    {
        Recipe list;
        for (const char* rejected : {"sm_90", "90", "compute_90", "sm90"}) {
            list.archList = rejected;
            const auto findings = check(list);
            ONLY(findings, "gpu-arch-notation");
            QVERIFY(findings[0].message.find("write \"9.0\"") != std::string::npos);
        }
        // An sm_ value bound under any name and passed to gpuTargets is the error PyTorch's
        // select_compute_arch.cmake stops with, whatever the binding claims to be.
        const QByteArray smInTargets = R"nix({ python3Packages, lib }:
let
  gpuArchSM = "sm_121"; # the SM, as a string
in
(python3Packages.torch.override { cudaSupport = true; gpuTargets = [ gpuArchSM ]; })
)nix";
        auto findings = check(smInTargets, "pytorch-python313-cuda13_0-sm121-armv9.nix");
        std::erase_if(findings, [](const Finding& f) { return f.ruleId.rfind("gpu-arch", 0); });
        ONLY(findings, "gpu-arch-notation");
        QVERIFY(findings[0].message.find("gpuTargets (line 5)") != std::string::npos);
        QVERIFY(findings[0].message.find("bound to gpuArchSM") != std::string::npos);
        QVERIFY(findings[0].message.find("write \"12.1\"") != std::string::npos);
    }

    // The notations each sink accepts, written the ways authors write them: correct ones
    // stay quiet whatever the bindings are called, wrong ones are caught at their sink.
    void gpuArchSinks_data()
    {
        QTest::addColumn<QByteArray>("recipe");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("rule");
        const QString sm86 = "pytorch-python313-cuda12_8-sm86-avx2.nix";
        const QByteArray head = "{ python3Packages, lib, cudaPackages_12_8 }:\nlet\n";
        auto torch = [&](const QByteArray& bindings, const QByteArray& targets,
                         const QByteArray& shell = {}) {
            return head + bindings +
                   "in (python3Packages.torch.override { cudaSupport = true; gpuTargets = " +
                   targets + "; }).overrideAttrs (old: { preConfigure = ''\n" + shell +
                   "\n''; })\n";
        };
        QTest::newRow("dotted via gpuArchNum")
            << torch("  gpuArchNum = \"8.6\";\n", "[ gpuArchNum ]") << sm86 << "";
        QTest::newRow("dotted via smCapability")
            << torch("  smCapability = \"8.6\";\n", "[ smCapability ]") << sm86 << "";
        QTest::newRow("in place") << torch("", "[ \"8.6\" ]") << sm86 << "";
        QTest::newRow("optionals") << torch("", "lib.optionals true [ \"8.6\" ]") << sm86 << "";
        QTest::newRow("integer into gpuTargets")
            << torch("  gpuArchNum = \"86\";\n", "[ gpuArchNum ]") << sm86 << "gpu-arch-notation";
        QTest::newRow("other arch via a list binding")
            << torch("  archs = [ \"8.9\" ];\n", "archs") << sm86 << "gpu-arch-mismatch";
        QTest::newRow("cmake from removePrefix")
            << torch("  gpuArch = \"sm_86\";\n", "[ \"8.6\" ]",
                     "export CMAKE_CUDA_ARCHITECTURES=\"${lib.removePrefix \"sm_\" gpuArch}\"")
            << sm86 << "";
        QTest::newRow("cmake dotted")
            << torch("", "[ \"8.6\" ]", "export CMAKE_CUDA_ARCHITECTURES=8.6") << sm86
            << "gpu-arch-notation";
        QTest::newRow("cmakeFlags other arch")
            << torch("", "[ \"8.6\" ]", "cmakeFlagsArray+=(-DCMAKE_CUDA_ARCHITECTURES=89)") << sm86
            << "gpu-arch-mismatch";
        QTest::newRow("compute capability")
            << torch("", "[ \"8.6\" ]", "-DCOMPUTE_CAPABILITY=86") << sm86 << "";
        QTest::newRow("seed 002 template: sm_ into TORCH_CUDA_ARCH_LIST")
            << torch("  gpuArch = \"sm_86\";\n", "[ \"8.6\" ]",
                     "export TORCH_CUDA_ARCH_LIST=\"${gpuArch}\"\n"
                     "export CMAKE_CUDA_ARCHITECTURES=\"${lib.removePrefix \"sm_\" gpuArch}\"")
            << sm86 << "gpu-arch-notation";
        QTest::newRow("cudaCapabilities in the nixpkgs config")
            << QByteArray("let pkgs = import <nixpkgs> { config = { cudaSupport = true; "
                          "cudaCapabilities = [ \"8.6\" ]; }; };\nin pkgs.python3Packages.torch\n")
            << sm86 << "";
        QTest::newRow("cudaCapabilities as integers")
            << QByteArray("let pkgs = import <nixpkgs> { config.cudaCapabilities = [ \"86\" ]; "
                          "};\nin pkgs.python3Packages.torch\n")
            << sm86 << "gpu-arch-notation";
        QTest::newRow("lib.cmakeFeature")
            << torch("", "[ \"8.6\" ]", "${lib.cmakeFeature \"CMAKE_CUDA_ARCHITECTURES\" \"86\"}")
            << sm86 << "";
        QTest::newRow("escapeShellArg: the shell removes the quotes")
            << torch("  capability = \"8.6\";\n", "[ capability ]",
                     "export TORCH_CUDA_ARCH_LIST=${lib.escapeShellArg capability}")
            << sm86 << "";
        QTest::newRow("an interpolation not evaluated here is unknown, never split")
            << torch("", "[ \"8.6\" ]",
                     "export TORCH_CUDA_ARCH_LIST=\"${lib.concatStringsSep \";\" (map (c: c + "
                     "\"+PTX\") caps)}\"")
            << sm86 << "";
        QTest::newRow("a shell expansion keeps nixpkgs' list and adds the arch")
            << torch("", "[ \"8.6\" ]", "export TORCH_CUDA_ARCH_LIST=\"$TORCH_CUDA_ARCH_LIST;8.6\"")
            << sm86 << "";
        QTest::newRow("inherit (set) name in a let")
            << torch("  arch = { dotted = \"7.5\"; };\n  inherit (arch) dotted;\n", "[ dotted ]")
            << sm86 << "gpu-arch-mismatch";
        QTest::newRow("unknown arch to the catalog, right value")
            << torch("  cc = \"13.0\";\n", "[ cc ]") << "pytorch-python313-cuda13_0-sm130-avx2.nix"
            << "unknown-to-catalog";
    }

    void gpuArchSinks()
    {
        QFETCH(QByteArray, recipe);
        QFETCH(QString, file);
        QFETCH(QString, rule);
        const auto findings = check(recipe, file.toStdString());
        std::multiset<std::string> arch;
        for (const Finding& finding : findings)
            if (finding.ruleId.rfind("gpu-arch", 0) == 0 || finding.ruleId == "unknown-to-catalog")
                arch.insert(finding.ruleId);
        const std::multiset<std::string> expected =
            rule.isEmpty() ? std::multiset<std::string>{}
                           : std::multiset<std::string>{rule.toStdString()};
        QCOMPARE(arch, expected);
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

    // ISA by effect: the feature set the flags leave enabled, in the notations authors use.
    void cpuFlagsByEffect_data()
    {
        QTest::addColumn<QByteArray>("flags");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("rule");
        const QString avx512 = "pytorch-python313-cuda13_0-sm90-avx512.nix";
        QTest::newRow("seed flags") << QByteArray("\"-mavx512f\" \"-mavx512dq\" \"-mavx512vl\" "
                                                  "\"-mavx512bw\" \"-mfma\"")
                                    << avx512 << "";
        QTest::newRow("x86-64-v4") << QByteArray("\"-march=x86-64-v4\"") << avx512 << "";
        QTest::newRow("one string") << QByteArray("\"-mavx512f -mavx512dq -mavx512vl -mavx512bw "
                                                  "-mfma\"")
                                    << avx512 << "";
        QTest::newRow("only avx512f")
            << QByteArray("\"-mavx512f\"") << avx512 << "cpu-flags-weaker";
        QTest::newRow("avx2 flags on avx512")
            << QByteArray("\"-mavx2\" \"-mfma\" \"-mf16c\"") << avx512 << "cpu-flags-mismatch";
        QTest::newRow("vnni on avx512") << QByteArray("\"-march=x86-64-v4\" \"-mavx512vnni\"")
                                        << avx512 << "cpu-flags-mismatch";
        QTest::newRow("avx512 switched off") << QByteArray("\"-march=x86-64-v4\" \"-mno-avx512f\"")
                                             << avx512 << "cpu-flags-mismatch";
        QTest::newRow("native") << QByteArray("\"-march=native\"") << avx512 << "";
        QTest::newRow("careful avx")
            << QByteArray("\"-mavx\" \"-mno-fma\" \"-mno-bmi\" \"-mno-bmi2\" \"-mno-avx2\"")
            << "pytorch-python313-cuda13_0-sm90-avx.nix"
            << "";
        QTest::newRow("avx with fma")
            << QByteArray("\"-mavx\" \"-mfma\"") << "pytorch-python313-cuda13_0-sm90-avx.nix"
            << "cpu-flags-mismatch";
        QTest::newRow("x86-64-v3 is avx2")
            << QByteArray("\"-march=x86-64-v3\"") << "pytorch-python313-cuda13_0-sm90-avx2.nix"
            << "";
        QTest::newRow("x86-64-v4 exceeds avx2")
            << QByteArray("\"-march=x86-64-v4\"") << "pytorch-python313-cuda13_0-sm90-avx2.nix"
            << "cpu-flags-mismatch";
        // A CPU model beyond the ISA's reference machines: runs on fewer of them (warning);
        // one that enables what another ISA is made of builds that ISA (error).
        const QString bf16 = "pytorch-python313-cuda13_0-sm90-avx512bf16.nix";
        const QString vnni = "pytorch-python313-cuda13_0-sm90-avx512vnni.nix";
        QTest::newRow("sapphirerapids on avx512bf16")
            << QByteArray("\"-march=sapphirerapids\"") << bf16 << "cpu-flags-beyond";
        QTest::newRow("cooperlake on avx512bf16")
            << QByteArray("\"-march=cooperlake\"") << bf16 << "";
        QTest::newRow("icelake-server on avx512vnni")
            << QByteArray("\"-march=icelake-server\"") << vnni << "cpu-flags-beyond";
        QTest::newRow("cascadelake on avx512vnni")
            << QByteArray("\"-march=cascadelake\"") << vnni << "";
        QTest::newRow("cascadelake on avx512")
            << QByteArray("\"-march=cascadelake\"") << avx512 << "cpu-flags-mismatch";
        QTest::newRow("icelake-server on avx512bf16")
            << QByteArray("\"-march=icelake-server\"") << bf16 << "cpu-flags-mismatch";
        QTest::newRow("armv9 with sve2")
            << QByteArray("\"-march=armv9-a+sve2\"") << "pytorch-python313-cuda13_0-sm110-armv9.nix"
            << "";
        QTest::newRow("armv9 flags on armv8_2") << QByteArray("\"-march=armv9-a+sve+sve2\"")
                                                << "pytorch-python313-cuda13_0-sm110-armv8_2.nix"
                                                << "cpu-flags-mismatch";
    }

    void cpuFlagsByEffect()
    {
        QFETCH(QByteArray, flags);
        QFETCH(QString, file);
        QFETCH(QString, rule);
        Recipe r;
        r.flags = flags;
        auto findings = check(r, file.toStdString());
        std::erase_if(findings, [](const Finding& f) { return f.ruleId.rfind("cpu-flags", 0); });
        QCOMPARE(ids(findings), rule.isEmpty() ? std::multiset<std::string>{}
                                               : std::multiset<std::string>{rule.toStdString()});
    }

    // The flags are judged where they reach the compiler, whatever the list is called; a
    // cpuFlags list that never reaches it does not decide.
    void cpuFlagsByFlow()
    {
        Recipe r;
        r.extraShell = "export CXXFLAGS=\"$CXXFLAGS ${nixpkgs_pinned.lib.concatStringsSep \" \" "
                       "isaFlags}\"";
        QByteArray text = r.text();
        text.replace("  cpuFlags = [", "  isaFlags = [ \"-mavx2\" ];\n  cpuFlags = [");
        const auto findings = check(text);
        ONLY(findings, "cpu-flags-mismatch");
        QVERIFY(findings[0].message.find("reaching CXXFLAGS through isaFlags") !=
                std::string::npos);
        text.replace("isaFlags = [ \"-mavx2\" ]", "isaFlags = [ \"-march=x86-64-v4\" ]");
        CLEAN(check(text));
        // Every sink that reaches a compiler counts: C targets get CFLAGS.
        Recipe both = r;
        both.extraShell = "export CXXFLAGS=\"$CXXFLAGS -march=x86-64-v4\"\n    export "
                          "CFLAGS=\"$CFLAGS -march=x86-64-v3\"";
        const auto cflags = check(both);
        ONLY(cflags, "cpu-flags-mismatch");
        QVERIFY(cflags[0].message.find("reaching CFLAGS") != std::string::npos);
    }

    // What the overridden package already had in the sink (`old.NIX_CFLAGS_COMPILE or ""`) is
    // nixpkgs' own and selects no ISA; what the recipe adds is judged.
    void cpuFlagsAddedToTheInheritedOnes_data()
    {
        QTest::addColumn<QByteArray>("sink");
        QTest::newRow("toString of a list") << QByteArray(
            "NIX_CFLAGS_COMPILE = toString ([ (o.NIX_CFLAGS_COMPILE or \"\") ] ++ @LIST@);");
        QTest::newRow("concatenated string")
            << QByteArray("NIX_CFLAGS_COMPILE = (o.NIX_CFLAGS_COMPILE or \"\") + \" \" + "
                          "builtins.concatStringsSep \" \" @LIST@;");
        QTest::newRow("env attribute")
            << QByteArray("env.CXXFLAGS = toString [ (o.env.CXXFLAGS or \"\") @LIST@ ];");
    }
    void cpuFlagsAddedToTheInheritedOnes()
    {
        QFETCH(QByteArray, sink);
        const QByteArray recipe = "{ python3Packages }:\nlet\n  flags = [ @FLAGS@ ];\nin\n"
                                  "python3Packages.torch.overrideAttrs (o: {\n  " +
                                  QByteArray(sink).replace("@LIST@", "flags") + "\n})\n";
        const std::string name = "pytorch-python313-cpu-avx2.nix";
        CLEAN(checkAlone(QByteArray(recipe).replace("@FLAGS@", "\"-mavx2\" \"-mfma\" \"-mf16c\""),
                         name));
        const auto wrong =
            checkAlone(QByteArray(recipe).replace("@FLAGS@", "\"-march=x86-64-v4\""), name);
        ONLY(wrong, "cpu-flags-mismatch");
        QVERIFY2(wrong[0].message.find("avx512f") != std::string::npos, wrong[0].message.c_str());
        // Anything else unknown in the sink leaves the flags unread, and says so.
        const auto unknown = checkAlone(QByteArray(recipe)
                                            .replace("@FLAGS@", "\"-mavx2\"")
                                            .replace("(o.", "(builtins.getEnv \"X\" + o."),
                                        name);
        ONLY(unknown, "values-not-read");
        QCOMPARE(unknown[0].severity, Severity::Info);
    }

    // A builder module called with arguments: its sinks and flags, fed by the recipe's
    // argument, are the recipe's values, reported where they are written.
    void valuesThroughABuilder()
    {
        TestRepository repo;
        repo.writeRecipe(
            "lib/mk-torch.nix",
            "{ capability, isa, python ? \"313\", cuda ? \"12_8\" }:\nlet\n"
            "  pkgs = import <nixpkgs> { config.cudaCapabilities = [ capability ]; };\n"
            "  isaFlags = {\n    avx2 = [ \"-mavx2\" \"-mfma\" \"-mf16c\" ];\n"
            "    avx512 = [ \"-mavx512f\" \"-mavx512dq\" \"-mavx512vl\" \"-mavx512bw\" "
            "\"-mfma\" ];\n  };\n"
            "  cmake = builtins.replaceStrings [ \".\" ] [ \"\" ] capability;\nin\n"
            "(pkgs.\"python${python}Packages\".torch.override {\n"
            "  cudaPackages = pkgs.${\"cudaPackages_\" + cuda};\n"
            "  gpuTargets = [ capability ];\n}).overrideAttrs (old: {\n"
            "  cmakeFlags = (old.cmakeFlags or [ ]) ++ [ \"-DCMAKE_CUDA_ARCHITECTURES=${cmake}\" "
            "];\n"
            "  NIX_CFLAGS_COMPILE = toString isaFlags.${isa};\n})\n");
        auto recipe = [&](const char* name, const char* capability, const char* isa) {
            repo.writeRecipe(QString::fromLatin1(name),
                             QByteArray("import ./lib/mk-torch.nix {\n  capability = \"") +
                                 capability + "\";\n  isa = \"" + isa + "\";\n}\n");
        };
        recipe("pytorch-python313-cuda12_8-sm90-avx512.nix", "9.0", "avx512");
        recipe("pytorch-python313-cuda12_8-sm90-avx2.nix", "9.0", "avx2");
        recipe("pytorch-python313-cuda12_8-sm86-avx2.nix", "8.9", "avx2");
        recipe("pytorch-python313-cuda12_8-sm89-avx2.nix", "8.9", "avx512");
        const Analysis analysis = analyze(repo);
        std::map<std::string, const Cell*> byCell;
        for (const Cell& entry : analysis.cells)
            byCell[entry.variant.gpuArch + "-" + entry.variant.isa] = &entry;
        QCOMPARE(byCell.size(), size_t(4));
        for (const char* sound : {"sm90-avx512", "sm90-avx2"}) {
            const Cell& entry = *byCell[sound];
            QVERIFY2(!entry.firstError(), sound);
            QVERIFY2(!find(entry.findings, "values-not-read"), sound);
            QCOMPARE(entry.recipe->archSinks.size(), size_t(3));
            QVERIFY(entry.recipe->compilerFlags);
        }
        const Cell& arch = *byCell["sm86-avx2"];
        QCOMPARE(ids(arch.findings),
                 (std::multiset<std::string>{"gpu-arch-mismatch", "gpu-arch-mismatch"}));
        const std::string& message = arch.findings[0].message;
        QVERIFY2(message.find("gpuTargets (in .flox/pkgs/lib/mk-torch.nix:9)") !=
                         std::string::npos ||
                     message.find("(in .flox/pkgs/lib/mk-torch.nix:3)") != std::string::npos,
                 message.c_str());
        // Also the CMake digits the module computes from it: written in the recipe.
        for (const Finding& finding : arch.findings)
            QVERIFY2(finding.message.find("(written in .flox/pkgs/pytorch-python313-cuda12_8-sm86-"
                                          "avx2.nix:2)") != std::string::npos,
                     finding.message.c_str());
        ONLY(byCell["sm89-avx2"]->findings, "cpu-flags-mismatch");
        QVERIFY2(byCell["sm89-avx2"]->findings[0].message.find(
                     "written in .flox/pkgs/lib/mk-torch.nix:6") != std::string::npos,
                 byCell["sm89-avx2"]->findings[0].message.c_str());

        // The Python and CUDA package sets it selects by names made from the arguments.
        QCOMPARE(byCell["sm90-avx512"]->recipe->pythonPackageSet->value,
                 std::string("python313Packages"));
        QCOMPARE(byCell["sm90-avx512"]->recipe->cudaPackageSet->value,
                 std::string("cudaPackages_12_8"));
        repo.writeRecipe("pytorch-python312-cuda12_9-sm90-avx512.nix",
                         "import ./lib/mk-torch.nix {\n  capability = \"9.0\";\n"
                         "  isa = \"avx512\";\n  python = \"313\";\n  cuda = \"12_8\";\n}\n");
        repo.writeRecipe("pytorch-python312-cuda12_9-sm90-avx2.nix",
                         "import ./lib/mk-torch.nix {\n  capability = \"9.0\";\n"
                         "  isa = \"avx2\";\n  python = \"312\";\n  cuda = \"12_9\";\n}\n");
        const Analysis sets = analyze(repo);
        for (const Cell& entry : sets.cells) {
            if (!entry.recipe || entry.variant.python != "312")
                continue;
            if (entry.variant.isa == "avx2") {
                QVERIFY2(!entry.firstError(), entry.recipe->fileName.c_str());
                continue;
            }
            QCOMPARE(ids(entry.findings), (std::multiset<std::string>{"cuda-version-mismatch",
                                                                      "python-version-mismatch"}));
            for (const Finding& finding : entry.findings) {
                QVERIFY2(finding.message.find("selected in .flox/pkgs/lib/mk-torch.nix:1") !=
                             std::string::npos,
                         finding.message.c_str());
                QVERIFY2(finding.message.find("sm90-avx512.nix:") != std::string::npos,
                         finding.message.c_str());
                QCOMPARE(finding.line, 0u); // nothing in the recipe to point at or edit
            }
        }
    }

    // python3Packages is the pin's default Python, which no recipe states; the recipes on
    // the same pin that select it tell which by their names, when most agree.
    void pythonDefaultFromThePin()
    {
        auto recipe = [](const QByteArray& pin, const QByteArray& torch) {
            return "let\n  pkgs = import (builtins.fetchTarball "
                   "\"https://github.com/NixOS/nixpkgs/archive/" +
                   pin + ".tar.gz\") { };\nin\n" + torch + "\n";
        };
        const QByteArray notations[] = {
            "pkgs.python3Packages.torch", "with pkgs.python3Packages; torch",
            "pkgs.python3.pkgs.torch", "let py = pkgs.python3Packages; in py.torch"};
        for (const QByteArray& torch : notations) {
            TestRepository repo;
            repo.writeRecipe("pytorch-python313-cpu-avx2.nix", recipe(goodPin, torch));
            repo.writeRecipe("pytorch-python313-cpu-avx512.nix",
                             recipe(goodPin, "pkgs.python3Packages.torch"));
            repo.writeRecipe("pytorch-python312-cpu-avx2.nix", recipe(goodPin, torch));
            // Named for its version, and on another pin: neither tells about this one.
            repo.writeRecipe("pytorch-python312-cpu-avx512.nix",
                             recipe(goodPin, "pkgs.python312Packages.torch"));
            repo.writeRecipe("pytorch-python312-cpu-avx512bf16.nix",
                             recipe(otherPin, "pkgs.python3Packages.torch"));
            const Analysis analysis = analyze(repo);
            QCOMPARE(analysis.cells.size(), size_t(5));
            for (const Cell& entry : analysis.cells) {
                const bool wrong = entry.variant.python == "312" && entry.variant.isa == "avx2";
                const Finding* finding = find(entry.findings, "python-default-mismatch");
                QVERIFY2(bool(finding) == wrong,
                         (entry.variant.toString() + " with " + torch.toStdString()).c_str());
                if (!finding)
                    continue;
                QCOMPARE(finding->severity, Severity::Warning);
                QCOMPARE(finding->line, 4);
                QVERIFY2(finding->message.find("2 recipes on this pin select it for python313 "
                                               "(pytorch-python313-cpu-avx2.nix, "
                                               "pytorch-python313-cpu-avx512.nix) and 1 for "
                                               "python312") != std::string::npos,
                         finding->message.c_str());
            }
        }
        // One for each version: either may be the wrong one.
        TestRepository tie;
        tie.writeRecipe("pytorch-python313-cpu-avx2.nix",
                        recipe(goodPin, "pkgs.python3Packages.torch"));
        tie.writeRecipe("pytorch-python312-cpu-avx2.nix",
                        recipe(goodPin, "pkgs.python3Packages.torch"));
        for (const Cell& entry : analyze(tie).cells)
            QVERIFY(!find(entry.findings, "python-default-mismatch"));
    }

    // A builder module called with arguments makes the values: not checked, and said so.
    // The Python set torch comes from, found by what the name before `.torch` evaluates to.
    void pythonSetThroughABinding()
    {
        const char* const recipe =
            "{ pkgs }:\nwith pkgs;\nlet\n  pyPkgs = SET;\nin\npyPkgs.torch.override { }\n";
        const auto wrong = checkAlone(QByteArray(recipe).replace("SET", "python313Packages"),
                                      "pytorch-python312-cpu.nix");
        ONLY(wrong, "python-version-mismatch");
        QCOMPARE(wrong[0].line, 4u);
        CLEAN(checkAlone(QByteArray(recipe).replace("SET", "python312Packages"),
                         "pytorch-python312-cpu.nix"));
        CLEAN(checkAlone(QByteArray(recipe).replace("SET", "pkgs.python312Packages"),
                         "pytorch-python312-cpu.nix"));
        ONLY(checkAlone(QByteArray(recipe).replace("SET", "pkgs.python311Packages"),
                        "pytorch-python312-cpu.nix"),
             "python-version-mismatch");
        // An attribute name computed from the cell's tag: the set it selects.
        const char* const computed =
            "{ pkgs, lib }:\nlet\n  tag = \"TAG-cpu\";\n"
            "  pyAttr = \"${lib.head (lib.splitString \"-\" tag)}Packages\";\nin\n"
            "pkgs.${pyAttr}.torch\n";
        const auto fromTag = checkAlone(QByteArray(computed).replace("TAG", "python313"),
                                        "pytorch-python312-cpu.nix");
        ONLY(fromTag, "python-version-mismatch");
        QCOMPARE(fromTag[0].line, 6u);
        CLEAN(checkAlone(QByteArray(computed).replace("TAG", "python312"),
                         "pytorch-python312-cpu.nix"));
    }

    void valuesNotRead()
    {
        TestRepository repo;
        repo.writeRecipe("lib/mk-torch.nix", "{ capability, isa }: { }\n");
        repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512.nix",
                         "import ./lib/mk-torch.nix {\n  capability = \"9.0\";\n"
                         "  isa = \"avx512\";\n}\n");
        const std::vector<Finding> findings = analyze(repo).cells.at(0).findings;
        ONLY(findings, "values-not-read");
        QVERIFY2(findings[0].message.find("GPU arch and the compiler flags") != std::string::npos &&
                     findings[0].message.find("./lib/mk-torch.nix") != std::string::npos,
                 findings[0].message.c_str());
        // A generic build has no flags to read, nor a recipe that sets none; a recipe with its
        // values is checked.
        CLEAN(checkAlone("{ python3Packages }: python3Packages.torch\n",
                         "pytorch-python313-cpu.nix"));
        CLEAN(checkAlone("{ python3Packages }: python3Packages.torch\n",
                         "pytorch-python313-cpu-avx2.nix"));
        // A flag setting that is read but holds no machine flag was read, not unread.
        CLEAN(checkAlone("{ python3Packages }: python3Packages.torch.overrideAttrs (o: {\n"
                         "  NIX_CFLAGS_COMPILE = \"-O3\";\n})\n",
                         "pytorch-python313-cpu-avx2.nix"));
        CLEAN(check(Recipe{}));
    }

    void packageBelowMinimumArch()
    {
        const QByteArray vllm = "{ python3Packages }: python3Packages.vllm\n";
        const auto findings = check(vllm, "vllm-python313-cuda12_8-sm61-avx2.nix");
        QVERIFY(find(findings, "package-below-minimum-arch"));
        QVERIFY(find(findings, "package-below-minimum-arch")->message.find("7.0") !=
                std::string::npos);
        QVERIFY(!find(check(vllm, "vllm-python313-cuda12_8-sm70-avx2.nix"),
                      "package-below-minimum-arch"));
        QVERIFY(!find(check(vllm, "pytorch-python313-cuda12_8-sm61-avx2.nix"),
                      "package-below-minimum-arch"));
    }

    // Values selected from the repository's own modules are facts like any other; modules
    // in a subdirectory are not variants; a changed module refreshes its importers.
    void valuesFromModules()
    {
        TestRepository repo;
        repo.write(".flox/pkgs/lib/cpu-isa.nix",
                   "# ISA table shared by every recipe\n"
                   "{\n"
                   "  avx2 = { flags = [ \"-mavx2\" \"-mfma\" \"-mf16c\" ]; };\n"
                   "  avx512 = {\n"
                   "    flags = [ \"-mavx512f\" \"-mavx512dq\" \"-mavx512vl\" \"-mavx512bw\" "
                   "\"-mfma\" ];\n"
                   "  };\n"
                   "}\n");
        repo.write(".flox/pkgs/lib/archs.nix", "{ sm90 = \"9.0\"; sm86 = \"8.6\"; }\n");
        auto recipe = [](const char* isa, const char* arch) {
            return QByteArray(
                       "{ python3Packages, lib }:\nlet\n  isa = (import ./lib/cpu-isa.nix).") +
                   isa +
                   ";\n  archs = import ./lib/archs.nix;\nin\n(python3Packages.torch.override {\n"
                   "  cudaSupport = true;\n  gpuTargets = [ archs." +
                   arch +
                   " ];\n}).overrideAttrs (old: {\n  preConfigure = ''\n    export "
                   "CXXFLAGS=\"$CXXFLAGS "
                   "${lib.concatStringsSep \" \" isa.flags}\"\n  '';\n})\n";
        };
        repo.writeRecipe("pytorch-python313-cuda12_8-sm90-avx512.nix", recipe("avx512", "sm90"));
        repo.writeRecipe("pytorch-python313-cuda12_8-sm90-avx2.nix", recipe("avx512", "sm90"));
        repo.writeRecipe("pytorch-python313-cuda12_8-sm86-avx512.nix", recipe("avx512", "sm90"));
        RecipeCache cache;
        auto source = openWorkTree(repo.rootPath());
        Analysis analysis = Analyzer().analyze(*source, {}, &cache);
        for (const Cell& entry : analysis.cells)
            for (const Finding& finding : entry.findings)
                triggered().insert(finding.ruleId);
        // lib/*.nix are modules, not variants (the fourth entry is the gap sm86-avx2).
        QCOMPARE(std::count_if(analysis.cells.begin(), analysis.cells.end(),
                               [](const Cell& e) { return e.recipe != nullptr; }),
                 3);
        QCOMPARE(analysis.modules, (std::vector<std::string>{".flox/pkgs/lib/archs.nix",
                                                             ".flox/pkgs/lib/cpu-isa.nix"}));
        auto errorsOf = [&](const std::string& file) {
            std::multiset<std::string> out;
            for (const Cell& entry : analysis.cells)
                if (entry.recipe && entry.recipe->fileName == file)
                    for (const Finding& finding : entry.findings)
                        if (finding.severity == Severity::Error)
                            out.insert(finding.ruleId);
            return out;
        };
        auto messageOf = [&](const std::string& file, const std::string& id) {
            for (const Cell& entry : analysis.cells)
                if (entry.recipe && entry.recipe->fileName == file)
                    if (const Finding* finding = find(entry.findings, id))
                        return finding->message;
            return std::string();
        };
        QCOMPARE(errorsOf("pytorch-python313-cuda12_8-sm90-avx512.nix"),
                 std::multiset<std::string>{});
        QCOMPARE(errorsOf("pytorch-python313-cuda12_8-sm90-avx2.nix"),
                 std::multiset<std::string>{"cpu-flags-mismatch"});
        QCOMPARE(errorsOf("pytorch-python313-cuda12_8-sm86-avx512.nix"),
                 std::multiset<std::string>{"gpu-arch-mismatch"});
        const std::string arch =
            messageOf("pytorch-python313-cuda12_8-sm86-avx512.nix", "gpu-arch-mismatch");
        QVERIFY2(arch.find("written in .flox/pkgs/lib/archs.nix:1") != std::string::npos,
                 arch.c_str());

        // Editing the module changes its importers' verdicts, though their own bytes did not.
        repo.write(".flox/pkgs/lib/archs.nix", "{ sm90 = \"8.6\"; sm86 = \"8.6\"; }\n");
        const int parsedBefore = cache.parsedCount();
        analysis = Analyzer().analyze(*source, {}, &cache);
        QCOMPARE(cache.parsedCount() - parsedBefore, 3);
        QCOMPARE(errorsOf("pytorch-python313-cuda12_8-sm86-avx512.nix"),
                 std::multiset<std::string>{});
        QCOMPARE(errorsOf("pytorch-python313-cuda12_8-sm90-avx512.nix"),
                 std::multiset<std::string>{"gpu-arch-mismatch"});
        // Unchanged modules: nothing is parsed again.
        const int parsedAgain = cache.parsedCount();
        analysis = Analyzer().analyze(*source, {}, &cache);
        QCOMPARE(cache.parsedCount(), parsedAgain);
    }

    void modulesStayInTheRepository()
    {
        TestRepository repo;
        auto source = openWorkTree(repo.rootPath());
        RecipeModules modules(*source, 1 << 20);
        QCOMPARE(QString::fromStdString(modules.resolve(".flox/pkgs/a.nix", "./lib/x.nix")),
                 QStringLiteral(".flox/pkgs/lib/x.nix"));
        QCOMPARE(QString::fromStdString(modules.resolve(".flox/pkgs/a.nix", "../common")),
                 QStringLiteral(".flox/common/default.nix"));
        QVERIFY(modules.resolve(".flox/pkgs/a.nix", "../../../etc/passwd.nix").empty());
        QVERIFY(modules.resolve(".flox/pkgs/a.nix", "/etc/x.nix").empty());
        repo.write(".flox/pkgs/lib/x.nix", "{ a = 1; }");
        const nix::SyntaxTree* first = modules.load(".flox/pkgs/lib/x.nix");
        QVERIFY(first);
        QCOMPARE(modules.load(".flox/pkgs/lib/x.nix"), first); // parsed once per scan
        repo.write(".flox/pkgs/lib/bad.nix", "{ a = ; }");
        QVERIFY(!modules.load(".flox/pkgs/lib/bad.nix"));
    }

    void platformsMismatch()
    {
        Recipe r;
        r.platforms = "\"aarch64-linux\"";
        ONLY(check(r), "platforms-mismatch");
        r.platforms = "\"x86_64-linux\" \"aarch64-linux\""; // a GPU recipe runs on one platform
        ONLY(check(r), "platforms-wider");
        Recipe cpu = cpuRecipe();
        cpu.platforms = "\"x86_64-linux\" \"aarch64-linux\""; // seed 002 allows both for CPU
        CLEAN(check(cpu, "pytorch-python313-cpu-avx2.nix"));
        cpu.platforms = "\"aarch64-linux\"";
        ONLY(check(cpu, "pytorch-python313-cpu-avx2.nix"), "platforms-mismatch");
        // MPS runs on Apple silicon and on Intel Macs: a Darwin recipe may offer both.
        const QByteArray darwin = "{ python3Packages }: python3Packages.torch.overrideAttrs (old: "
                                  "{ meta.platforms = [ \"aarch64-darwin\" \"x86_64-darwin\" ]; })";
        QVERIFY(!find(check(darwin, "pytorch-python313-darwin-mps.nix"), "platforms-wider"));
        // What nixpkgs lists is judged as a list: lib.platforms.linux holds x86_64-linux.
        QByteArray text = r.text();
        text.replace("platforms = [ \"x86_64-linux\" \"aarch64-linux\" ];",
                     "platforms = nixpkgs_pinned.lib.platforms.linux;");
        ONLY(check(text), "platforms-wider");
        text.replace("nixpkgs_pinned.lib.platforms.linux", "nixpkgs_pinned.lib.platforms.darwin");
        ONLY(check(text), "platforms-mismatch");
        // Taken over from nixpkgs' torch (with or without a default): not knowable here.
        text.replace("nixpkgs_pinned.lib.platforms.darwin",
                     "oldAttrs.meta.platforms or [ \"aarch64-darwin\" ]");
        CLEAN(check(text));
        text.replace("oldAttrs.meta.platforms or [ \"aarch64-darwin\" ]",
                     "oldAttrs.meta.platforms");
        CLEAN(check(text));
        const RecipeFacts facts = Analyzer().extract(".flox/pkgs/x.nix", text.toStdString());
        QVERIFY(facts.platformsValue);
        QCOMPARE(facts.platformsValue->origin, ValueOrigin::Inherited);
        QVERIFY(facts.platformsValue->platforms.empty()); // never an expression as a "platform"
    }

    // The system nixpkgs is imported for is what everything in it builds for; localSystem's
    // gcc.arch is the -march of every compile.
    void nixpkgsImportedForASystem()
    {
        auto recipe = [](const QByteArray& arguments) {
            return "let\n  pkgs = import (builtins.fetchTarball "
                   "\"https://github.com/NixOS/nixpkgs/archive/" +
                   QByteArray(goodPin) + ".tar.gz\") {\n    " + arguments +
                   "\n  };\nin\npkgs.python313Packages.torch\n";
        };
        const std::string arm = "pytorch-python313-cpu-armv8_2.nix";
        const auto wrong = checkAlone(recipe("system = \"x86_64-linux\";"), arm);
        QVERIFY(find(wrong, "platforms-mismatch"));
        QCOMPARE(find(wrong, "platforms-mismatch")->line, 3u);
        QVERIFY2(
            find(wrong, "platforms-mismatch")->message.find("imports nixpkgs for x86_64-linux") !=
                std::string::npos,
            find(wrong, "platforms-mismatch")->message.c_str());
        QVERIFY(find(checkAlone(recipe("localSystem = { system = \"x86_64-linux\"; };"), arm),
                     "platforms-mismatch"));
        for (const QByteArray& sound :
             {QByteArray("system = \"aarch64-linux\";"),
              QByteArray("localSystem = \"aarch64-linux\";"),
              QByteArray("localSystem.system = \"aarch64-linux\";"),
              QByteArray("system = \"x86_64-linux\"; crossSystem = \"aarch64-linux\";")})
            QVERIFY2(!find(checkAlone(recipe(sound), arm), "platforms-mismatch"),
                     sound.constData());

        // MPS builds on either kind of Mac; a Linux system is not one.
        const std::string mps = "pytorch-python313-darwin-mps.nix";
        QVERIFY(
            !find(checkAlone(recipe("system = \"x86_64-darwin\";"), mps), "platforms-mismatch"));
        QVERIFY(
            !find(checkAlone(recipe("system = \"aarch64-darwin\";"), mps), "platforms-mismatch"));
        QVERIFY(find(checkAlone(recipe("system = \"aarch64-linux\";"), mps), "platforms-mismatch"));

        const std::string bf16 = "pytorch-python313-cpu-avx512bf16.nix";
        auto gcc = [&](const char* arch) {
            return recipe(QByteArray("localSystem = { system = \"x86_64-linux\"; gcc.arch = \"") +
                          arch + "\"; };");
        };
        const auto cascade = checkAlone(gcc("cascadelake"), bf16);
        QVERIFY(find(cascade, "cpu-flags-mismatch"));
        QVERIFY2(find(cascade, "cpu-flags-mismatch")->message.find("localSystem.gcc.arch") !=
                     std::string::npos,
                 find(cascade, "cpu-flags-mismatch")->message.c_str());
        QVERIFY(!find(checkAlone(gcc("cooperlake"), bf16), "cpu-flags-mismatch"));
    }

    void cpuRecipeWithCudaInputs()
    {
        Recipe cpu = cpuRecipe();
        cpu.extraShell = "export USE_CUDA=1";
        const auto enabled = check(cpu, "pytorch-python313-cpu-avx2.nix");
        ONLY(enabled, "cpu-recipe-enables-cuda");
        QCOMPARE(enabled[0].severity, Severity::Error); // builds another variant
        const QByteArray inputs =
            "{ python3Packages, cudaPackages }: python3Packages.torch.overrideAttrs (o: { pname = "
            "\"pytorch-python313-cpu-avx2\"; buildInputs = [ cudaPackages.cudnn ]; })";
        const auto findings = check(inputs, "pytorch-python313-cpu-avx2.nix");
        QVERIFY(find(findings, "cpu-recipe-cuda-inputs"));
        QVERIFY(find(findings, "cpu-recipe-cuda-inputs")->message.find("cudaPackages") !=
                std::string::npos);
        // Only named, not enabled: a risk, not another build.
        QCOMPARE(find(findings, "cpu-recipe-cuda-inputs")->severity, Severity::Warning);
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
        QVERIFY(judge(facts, asking).empty());
    }

    void unpinnedNixpkgs()
    {
        Recipe r;
        r.extraShell = "export X=${(import <nixpkgs> {}).hello}";
        const auto findings = check(r);
        ONLY(findings, "unpinned-nixpkgs");
        QVERIFY(findings[0].message.find("<nixpkgs>") != std::string::npos);
        // A recipe that only uses the machine's nixpkgs is flox's ordinary callPackage style.
        QVERIFY(!find(check(QByteArray("let pkgs = import <nixpkgs> {}; in "
                                       "pkgs.python3Packages.torch"),
                            "pytorch-python313-cpu-avx2.nix"),
                      "unpinned-nixpkgs"));
        // Nix is lazy: a default or a `let` binding the file never reads is never evaluated.
        const QByteArray pinned = Recipe().text();
        const QByteArray unusedDefault = "{ pkgs ? import <nixpkgs> { } }:\n" + pinned;
        const QByteArray unusedLet = "let host = import <nixpkgs> { }; in\n" + pinned;
        QVERIFY(pinned.startsWith("let")); // the canonical shape does not mention pkgs
        CLEAN(check(unusedDefault));
        CLEAN(check(unusedLet));
        // Read, they count: `pkgs.fetchurl` follows the machine's nixpkgs.
        Recipe reading;
        reading.extraShell = "export P=${pkgs.hello}";
        ONLY(check("{ pkgs ? import <nixpkgs> { } }:\n" + reading.text()), "unpinned-nixpkgs");
        ONLY(check("let host = import <nixpkgs> { }; unused = host; in\n" + pinned),
             "unpinned-nixpkgs");
    }

    // A companion builds on the torch recipe it imports: it must be its own cell's.
    void importedCellMismatch()
    {
        auto companion = [](const QByteArray& imported) {
            return "{ python3Packages, callPackage }:\nlet\n  torch = callPackage ./" + imported +
                   " { };\nin\npython3Packages.torchvision.override { inherit torch; }\n";
        };
        const std::string name = "torchvision-python313-cuda13_0-sm90-avx512.nix";
        const auto findings = check(companion("pytorch-python313-cuda13_0-sm90-avx2.nix"), name);
        ONLY(findings, "imported-cell-mismatch");
        QCOMPARE(findings[0].severity, Severity::Error);
        QCOMPARE(findings[0].line, 3);
        QVERIFY2(findings[0].message.find("python313-cuda13_0-sm90-avx2") != std::string::npos &&
                     findings[0].message.find("instead of on python313-cuda13_0-sm90-avx512") !=
                         std::string::npos,
                 findings[0].message.c_str());
        ONLY(check(companion("pytorch-python312-cuda13_0-sm90-avx512.nix"), name),
             "imported-cell-mismatch");
        ONLY(check(companion("pytorch-python313-cuda12_9-sm90-avx512.nix"), name),
             "imported-cell-mismatch");
        ONLY(check(companion("pytorch-python313-cuda13_0-sm120-avx512.nix"), name),
             "imported-cell-mismatch");
        // Its own cell, in any package spelling, a generic or legacy-named base, a module.
        for (const QByteArray& sound : {QByteArray("pytorch-python313-cuda13_0-sm90-avx512.nix"),
                                        QByteArray("pytorch210-python313-cuda13_0-sm90-avx512.nix"),
                                        QByteArray("pytorch-python313-cuda13_0-sm90.nix"),
                                        QByteArray("pytorch-py313-sm90-avx512.nix"),
                                        QByteArray("lib/torch.nix"), QByteArray("common.nix")})
            QVERIFY2(!find(check(companion(sound), name), "imported-cell-mismatch"),
                     sound.constData());
    }

    // A path made from values is imported like a written one: in the recipe, and in a
    // builder where the recipe's argument names the torch to build on.
    void computedImportPaths()
    {
        const std::string name = "torchvision-python313-cuda13_0-sm90-avx512.nix";
        auto companion = [](const QByteArray& path) {
            return "{ python3Packages, callPackage }:\nlet\n  torchFile = " + path +
                   ";\n  torch = callPackage torchFile { };\nin\n"
                   "python3Packages.torchvision.override { inherit torch; }\n";
        };
        for (const QByteArray& other :
             {QByteArray("./pytorch-python313-cuda13_0-sm90-avx2.nix"),
              QByteArray("./. + \"/pytorch-python313-cuda13_0-sm90-avx2.nix\""),
              QByteArray("./lib/.. + \"/pytorch-python313-cuda13_0-sm90-\" + \"avx2.nix\""),
              QByteArray("./${\"pytorch-python313-cuda13_0-sm90-\" + \"avx2\"}.nix")}) {
            const auto findings = check(companion(other), name);
            ONLY(findings, "imported-cell-mismatch");
            QCOMPARE(findings[0].line, 4); // where the path is imported
        }
        for (const QByteArray& own :
             {QByteArray("./pytorch-python313-cuda13_0-sm90-avx512.nix"),
              QByteArray("./. + \"/pytorch-python313-cuda13_0-sm90-avx512.nix\""),
              QByteArray("./${\"pytorch-python313-cuda13_0-sm90-avx512\"}.nix"),
              QByteArray("./lib/torch.nix"),
              QByteArray("../pytorch-python313-cuda13_0-sm90-avx2.nix")})
            QVERIFY2(!find(check(companion(own), name), "imported-cell-mismatch"), own.constData());

        TestRepository repo;
        repo.writeRecipe("_gen/variant.nix",
                         "{ python3Packages, torchName }:\nlet\n"
                         "  torch = import (../. + \"/${torchName}.nix\") { };\nin\n"
                         "python3Packages.torchvision.override { inherit torch; }\n");
        auto stub = [](const char* torch) {
            return QByteArray("{ python3Packages }:\nimport ./_gen/variant.nix {\n"
                              "  inherit python3Packages;\n  torchName = \"") +
                   torch + "\";\n}\n";
        };
        repo.writeRecipe("torchvision-python313-cuda13_0-sm89-avx512.nix",
                         stub("pytorch-python313-cuda13_0-sm90-avx512"));
        repo.writeRecipe("torchvision-python313-cuda13_0-sm90-avx512.nix",
                         stub("pytorch-python313-cuda13_0-sm90-avx512"));
        const Analysis analysis = analyze(repo);
        QCOMPARE(analysis.cells.size(), size_t(2));
        for (const Cell& entry : analysis.cells) {
            const bool wrong = entry.variant.gpuArch == "sm89";
            QCOMPARE(bool(find(entry.findings, "imported-cell-mismatch")), wrong);
            if (!wrong)
                continue;
            const Finding& finding = *find(entry.findings, "imported-cell-mismatch");
            QVERIFY2(finding.message.find("(imported in .flox/pkgs/_gen/variant.nix:3)") !=
                         std::string::npos,
                     finding.message.c_str());
            QCOMPARE(finding.line, 0); // nothing of it is written in the recipe
        }
    }

    // `(import ./<other cell>.nix { … }).override { gpuArch = "8.9"; }` calls the other
    // recipe's function again with its own values: a derived recipe, not a wrong base.
    void derivedRecipesAreNotWrongBases()
    {
        const std::string name = "pytorch-python313-cuda13_0-sm89-avx512.nix";
        for (const QByteArray& derived :
             {QByteArray("{ callPackage }:\n(import ./pytorch-python313-cuda13_0-sm90-avx512.nix "
                         "{ inherit callPackage; }).override {\n  gpuArch = \"8.9\";\n}\n"),
              QByteArray("{ callPackage }:\nlet\n  base = import "
                         "./pytorch-python313-cuda13_0-sm90-avx512.nix { inherit callPackage; };\n"
                         "in\nbase.override (prev: { gpuArch = \"8.9\"; })\n")}) {
            const auto findings = check(derived, name);
            QVERIFY2(!find(findings, "imported-cell-mismatch"), derived.constData());
        }
        // Rebuilding the other cell's result with overrideAttrs still builds that cell.
        ONLY(check("{ callPackage }:\n(import ./pytorch-python313-cuda13_0-sm90-avx512.nix "
                   "{ inherit callPackage; }).overrideAttrs (old: { })\n",
                   name),
             "imported-cell-mismatch");

        // One that RecipeGrouping cannot follow (the base is no callPackage of a builder) may
        // have changed anything but its nixpkgs: the base's CUDA set is not held against it,
        // its pin is.
        TestRepository repo;
        repo.writeRecipe("pytorch-python313-cuda12_8-sm90-avx512.nix",
                         "let\n  pkgs = import (builtins.fetchTarball "
                         "\"https://github.com/NixOS/nixpkgs/archive/" +
                             otherPin +
                             ".tar.gz\") { };\nin\npkgs.python313Packages.torch.override {\n"
                             "  cudaPackages = pkgs.cudaPackages_12_8;\n}\n");
        for (const char* sm : {"sm80", "sm86", "sm89"})
            repo.writeRecipe(QStringLiteral("pytorch-python313-cuda12_9-%1-avx512.nix").arg(sm),
                             "let\n  pkgs = import (builtins.fetchTarball "
                             "\"https://github.com/NixOS/nixpkgs/archive/" +
                                 goodPin + ".tar.gz\") { };\nin\npkgs.python313Packages.torch\n");
        repo.writeRecipe("pytorch-python313-cuda12_9-sm90-avx512.nix",
                         "{ cudaPackages_12_9 }:\n"
                         "(import ./pytorch-python313-cuda12_8-sm90-avx512.nix).override {\n"
                         "  cudaPackages = cudaPackages_12_9;\n}\n");
        for (const Cell& entry : analyze(repo).cells)
            if (entry.variant.toString() == "pytorch-python313-cuda12_9-sm90-avx512") {
                QVERIFY(!find(entry.findings, "cuda-version-mismatch"));
                QVERIFY(find(entry.findings, "pin-differs-from-group"));
            }
    }

    // A derived recipe is what its base's builder makes from the base's arguments updated by
    // the overrides (callPackage's makeOverridable): read there, and judged as its own cell.
    void derivedRecipesAreReadThroughTheirBase()
    {
        TestRepository repo;
        repo.writeRecipe("lib/torch.nix",
                         "{ pkgs, gpuArch, isa, pythonAttr ? \"python313Packages\",\n"
                         "  platforms ? [ \"x86_64-linux\" ] }:\nlet\n"
                         "  flags = {\n    avx2 = [ \"-mavx2\" \"-mfma\" \"-mf16c\" ];\n"
                         "    avx512 = [ \"-mavx512f\" \"-mavx512dq\" \"-mavx512vl\" "
                         "\"-mavx512bw\" \"-mfma\" ];\n"
                         "    armv9 = [ \"-march=armv9-a+sve2\" ];\n  };\nin\n"
                         "(pkgs.${pythonAttr}.torch.override { gpuTargets = [ gpuArch ]; "
                         "}).overrideAttrs (old: {\n"
                         "  NIX_CFLAGS_COMPILE = toString flags.${isa};\n"
                         "  meta.platforms = platforms;\n})\n");
        repo.writeRecipe("pytorch-python313-cuda12_8-sm90-avx512.nix",
                         "{ callPackage }:\ncallPackage ./lib/torch.nix {\n  gpuArch = \"9.0\";\n"
                         "  isa = \"avx512\";\n}\n");
        const QByteArray base = "./pytorch-python313-cuda12_8-sm90-avx512.nix";
        auto derived = [&](const QByteArray& overrides) {
            return "{ callPackage }:\n(import " + base + " { inherit callPackage; }).override " +
                   overrides + "\n";
        };
        repo.writeRecipe("pytorch-python313-cuda12_8-sm89-avx512.nix",
                         derived("{\n  gpuArch = \"8.9\";\n}"));
        repo.writeRecipe("pytorch-python313-cuda12_8-sm89-avx2.nix",
                         derived("{\n  gpuArch = \"8.9\";\n}"));
        repo.writeRecipe("pytorch-python313-cuda12_8-sm86-avx2.nix",
                         "{ callPackage }:\nlet\n  base = import " + base +
                             " { inherit callPackage; };\nin\n"
                             "base.override (old: { gpuArch = \"8.6\"; isa = \"avx2\"; })\n");
        repo.writeRecipe("pytorch-python313-cuda12_8-sm80-avx2.nix",
                         derived("(old: { isa = \"avx2\"; })"));
        repo.writeRecipe("pytorch-python312-cuda12_8-sm89-avx512.nix",
                         derived("{ gpuArch = \"8.9\"; pythonAttr = \"python312Packages\"; }"));
        // A derivation of a derivation: the overrides of both, in order.
        repo.writeRecipe("pytorch-python312-cuda12_8-sm86-avx2.nix",
                         "{ callPackage }:\n(import ./pytorch-python313-cuda12_8-sm86-avx2.nix "
                         "{ inherit callPackage; }).override {\n"
                         "  pythonAttr = \"python312Packages\";\n}\n");
        // An ARM cell that leaves the base's platforms in place.
        repo.writeRecipe("pytorch-python313-cuda12_8-sm90-armv9.nix",
                         derived("{ isa = \"armv9\"; }"));
        // A companion's torch passed by its base stays passed unless overridden.
        repo.writeRecipe("lib/companion.nix", "{ python3Packages, torch }:\n"
                                              "python3Packages.torchvision.override { inherit "
                                              "torch; }\n");
        repo.writeRecipe(
            "torchvision-python313-cuda12_8-sm90-avx512.nix",
            "{ callPackage }:\ncallPackage ./lib/companion.nix {\n"
            "  torch = callPackage ./pytorch-python313-cuda12_8-sm90-avx512.nix { };\n}\n");
        const QByteArray companion =
            "{ callPackage }:\n(import ./torchvision-python313-cuda12_8-sm90-avx512.nix "
            "{ inherit callPackage; }).override ";
        repo.writeRecipe("torchvision-python313-cuda12_8-sm90-avx2.nix", companion + "{ }\n");
        repo.writeRecipe(
            "torchvision-python313-cuda12_8-sm89-avx512.nix",
            companion + "{\n  torch = callPackage ./pytorch-python313-cuda12_8-sm89-avx512.nix "
                        "{ };\n}\n");
        const Analysis analysis = analyze(repo);
        std::map<std::string, const Cell*> byName;
        for (const Cell& entry : analysis.cells)
            byName[entry.variant.toString()] = &entry;
        QCOMPARE(byName.size(), size_t(11));
        QVERIFY(!find(byName.at("torchvision-python313-cuda12_8-sm89-avx512")->findings,
                      "imported-cell-mismatch"));
        const Finding* passed =
            find(byName.at("torchvision-python313-cuda12_8-sm90-avx2")->findings,
                 "imported-cell-mismatch");
        QVERIFY(passed);
        QVERIFY2(
            passed->message.find("(passed as torch in "
                                 ".flox/pkgs/torchvision-python313-cuda12_8-sm90-avx512.nix:3)") !=
                std::string::npos,
            passed->message.c_str());
        ONLY(byName.at("pytorch-python313-cuda12_8-sm90-armv9")->findings, "platforms-mismatch");
        QVERIFY2(byName.at("pytorch-python313-cuda12_8-sm90-armv9")
                         ->findings[0]
                         .message.find("(in .flox/pkgs/lib/torch.nix:") != std::string::npos,
                 byName.at("pytorch-python313-cuda12_8-sm90-armv9")->findings[0].message.c_str());
        QCOMPARE(byName.at("pytorch-python312-cuda12_8-sm86-avx2")->recipe->pythonPackageSet->value,
                 std::string("python312Packages"));
        for (const char* sound :
             {"pytorch-python313-cuda12_8-sm90-avx512", "pytorch-python313-cuda12_8-sm89-avx512",
              "pytorch-python313-cuda12_8-sm86-avx2", "pytorch-python312-cuda12_8-sm89-avx512",
              "pytorch-python312-cuda12_8-sm86-avx2"}) {
            const Cell& entry = *byName.at(sound);
            QVERIFY2(entry.recipe && !entry.recipe->archSinks.empty() &&
                         entry.recipe->compilerFlags,
                     sound);
            QVERIFY2(!entry.firstError() && !find(entry.findings, "values-not-read"), sound);
        }
        QCOMPARE(
            byName.at("pytorch-python312-cuda12_8-sm89-avx512")->recipe->pythonPackageSet->value,
            std::string("python312Packages"));
        // The arch comes from the override, written in the derived recipe.
        const ArchSinkFact& sink =
            byName.at("pytorch-python313-cuda12_8-sm89-avx512")->recipe->archSinks.front();
        QCOMPARE(sink.value, std::string("8.9"));
        QCOMPARE(sink.writtenIn,
                 std::string(".flox/pkgs/pytorch-python313-cuda12_8-sm89-avx512.nix:3"));
        // What an override leaves out is the base's: avx512 flags in an avx2 cell, sm90's arch.
        const Cell& isa = *byName.at("pytorch-python313-cuda12_8-sm89-avx2");
        ONLY(isa.findings, "cpu-flags-mismatch");
        QVERIFY2(isa.findings[0].message.find(
                     "this recipe overrides ./pytorch-python313-cuda12_8-sm90-avx512.nix and "
                     "leaves what makes this value to it") != std::string::npos,
                 isa.findings[0].message.c_str());
        const Cell& arch = *byName.at("pytorch-python313-cuda12_8-sm80-avx2");
        ONLY(arch.findings, "gpu-arch-mismatch");
        QVERIFY2(arch.findings[0].message.find(
                     "written in .flox/pkgs/pytorch-python313-cuda12_8-sm90-avx512.nix:3") !=
                     std::string::npos,
                 arch.findings[0].message.c_str());
    }

    // Overlays written in a module the recipes select from (`overlays = [ ov.cuda13 ov.magma
    // ]`) are read there: a recipe leaving one out differs from its group.
    void overlaysFromAModule()
    {
        TestRepository repo;
        repo.writeRecipe(
            "lib/overlays.nix",
            "{\n  cuda13 = " + QByteArray(cudaOverlay).replace("CUDASET", "cudaPackages_13") +
                ";\n  magma = " + magmaOverlay + ";\n}\n");
        auto recipe = [&](const char* arch, const QByteArray& overlays) {
            const QByteArray text =
                "let\n  ov = import ./lib/overlays.nix;\n  pkgs = import (builtins.fetchTarball "
                "\"https://github.com/NixOS/nixpkgs/archive/" +
                QByteArray(goodPin) + ".tar.gz\") { overlays = [ " + overlays +
                " ]; };\nin\npkgs.python313Packages.torch\n";
            repo.writeRecipe(QStringLiteral("pytorch-python313-cuda13_0-%1-avx512.nix").arg(arch),
                             text);
        };
        recipe("sm90", "ov.cuda13 ov.magma");
        recipe("sm100", "ov.cuda13 ov.magma");
        recipe("sm120", "ov.cuda13");
        const Analysis analysis = analyze(repo);
        QCOMPARE(analysis.groups.size(), size_t(1));
        QCOMPARE(analysis.groups[0].profile.overlays,
                 (std::vector<OverlayKind>{OverlayKind::CudaPackageSet, OverlayKind::MagmaPatch}));
        for (const Cell& entry : analysis.cells) {
            if (entry.variant.gpuArch == "sm120") {
                ONLY(entry.findings, "overlay-differs-from-group");
                QVERIFY2(entry.findings[0].message.find("magma-patch") != std::string::npos,
                         entry.findings[0].message.c_str());
            } else {
                QVERIFY2(!find(entry.findings, "overlay-differs-from-group"),
                         entry.recipe->fileName.c_str());
            }
        }
    }

    // The same overlays applied in other notations: one at a time with `extend`, composed
    // into one, and the torch upgrade done on the interpreter (`packageOverrides`).
    void overlaysInOtherNotations()
    {
        TestRepository repo;
        repo.writeRecipe("lib/cuda13.nix",
                         QByteArray(cudaOverlay).replace("CUDASET", "cudaPackages_13") + "\n");
        repo.writeRecipe("lib/magma.nix", magmaOverlay + "\n");
        repo.writeRecipe("lib/torch.nix", torchOverlay + "\n");
        const QByteArray pin = "builtins.fetchTarball \"https://github.com/NixOS/nixpkgs/archive/" +
                               QByteArray(goodPin) + ".tar.gz\"";
        auto listed = [&](const QByteArray& overlays) {
            return "let\n  pkgs = import (" + pin + ") { overlays = [ " + overlays +
                   " ]; };\nin\npkgs.python313Packages.torch\n";
        };
        const QByteArray all =
            "(import ./lib/cuda13.nix) (import ./lib/magma.nix) (import ./lib/torch.nix)";
        repo.writeRecipe("pytorch-python313-cuda13_0-sm80-avx512.nix", listed(all));
        repo.writeRecipe("pytorch-python313-cuda13_0-sm86-avx512.nix", listed(all));
        repo.writeRecipe("pytorch-python313-cuda13_0-sm89-avx512.nix",
                         "let\n  base = import (" + pin +
                             ") { };\n  pkgs = ((base.extend (import ./lib/cuda13.nix)).extend "
                             "(import ./lib/magma.nix)).extend (import ./lib/torch.nix);\nin\n"
                             "pkgs.python313Packages.torch\n");
        repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512.nix",
                         "{ lib }:\nlet\n  stack = lib.composeManyExtensions [ " + all +
                             " ];\n  pkgs = import (" + pin +
                             ") { overlays = [ stack ]; };\nin\npkgs.python313Packages.torch\n");
        repo.writeRecipe(
            "pytorch-python313-cuda13_0-sm100-avx512.nix",
            "let\n  pkgs = import (" + pin +
                ") { overlays = [ (import ./lib/cuda13.nix) (import ./lib/magma.nix) ]; };\n"
                "  python = pkgs.python313.override {\n"
                "    packageOverrides = pyfinal: pyprev: {\n"
                "      torch = pyprev.torch.overrideAttrs (old: { version = \"2.10.0\"; });\n"
                "    };\n  };\nin\npython.pkgs.torch\n");
        // Composed, with the MAGMA patch left out.
        repo.writeRecipe("pytorch-python313-cuda13_0-sm120-avx512.nix",
                         "{ lib }:\nlet\n  pkgs = import (" + pin +
                             ") { overlays = [ (lib.composeExtensions (import ./lib/cuda13.nix) "
                             "(import ./lib/torch.nix)) ]; };\nin\npkgs.python313Packages.torch\n");
        const Analysis analysis = analyze(repo);
        QCOMPARE(analysis.groups.size(), size_t(1));
        QCOMPARE(analysis.groups[0].profile.overlays,
                 (std::vector<OverlayKind>{OverlayKind::CudaPackageSet, OverlayKind::MagmaPatch,
                                           OverlayKind::TorchUpgrade}));
        for (const Cell& entry : analysis.cells) {
            const bool wrong = entry.variant.gpuArch == "sm120";
            QVERIFY2(bool(find(entry.findings, "overlay-differs-from-group")) == wrong,
                     entry.recipe->fileName.c_str());
            if (wrong)
                QVERIFY2(find(entry.findings, "overlay-differs-from-group")
                                 ->message.find("missing overlay magma-patch") != std::string::npos,
                         find(entry.findings, "overlay-differs-from-group")->message.c_str());
        }
    }

    // Nix stops at an import of a file that is not there; an existing one, a module in a
    // subdirectory and a sibling reached with `../` are fine.
    void importedFileMissing()
    {
        TestRepository repo;
        repo.writeRecipe("pytorch-python313-cuda12_8-sm90-avx512.nix",
                         "{ python3Packages }: python3Packages.torch\n");
        repo.writeRecipe("lib/flags.nix", "{ avx512 = [ \"-mavx512f\" ]; }\n");
        repo.write("nix/common.nix", "{ }: { }\n");
        const QByteArray body = "{ python3Packages, callPackage }:\nlet\n"
                                "  flags = import ./lib/flags.nix;\n"
                                "  common = callPackage ../../nix/common.nix { };\n"
                                "  torch = callPackage ./TORCH { };\n"
                                "in\npython3Packages.torchvision.override { inherit torch; }\n";
        repo.writeRecipe(
            "torchvision-python313-cuda12_8-sm90-avx512.nix",
            QByteArray(body).replace("TORCH", "pytorch-python313-cuda12_8-sm90-avx512.nix"));
        repo.writeRecipe(
            "torchaudio-python313-cuda12_8-sm90-avx512.nix",
            QByteArray(body).replace("TORCH", "pytorch-python313-cuda12_8-sm90-avx512-old.nix"));
        const Analysis analysis = analyze(repo);
        std::map<std::string, std::multiset<std::string>> byPackage;
        for (const Cell& entry : analysis.cells)
            for (const Finding& finding : entry.findings)
                if (finding.severity == Severity::Error)
                    byPackage[entry.package].insert(finding.ruleId);
        QCOMPARE(byPackage, (std::map<std::string, std::multiset<std::string>>{
                                {"torchaudio", {"imported-file-missing"}}}));
        for (const Cell& entry : analysis.cells)
            if (const Finding* missing = find(entry.findings, "imported-file-missing")) {
                QCOMPARE(missing->line, 5);
                QVERIFY2(missing->message.find("sm90-avx512-old.nix'") != std::string::npos,
                         missing->message.c_str());
            }
    }

    void pnamePrefix()
    {
        Recipe r;
        r.pname = "pytorch29-python313-cuda13_0-sm90-avx512"; // this cell, another prefix
        const auto findings = check(r);
        ONLY(findings, "pname-prefix");
        QCOMPARE(findings[0].severity, Severity::Info);
    }

    // Without a spec, pins and overlays are judged per group (package × CUDA version × pin):
    // a recipe on another pin is a warning, never an error, and its overlays are compared
    // with its own group's.
    void inferredGroups()
    {
        TestRepository repo;
        auto cuda128 = [](const char* arch, const QByteArray& sm, const QByteArray& pin) {
            Recipe r;
            r.sm = sm;
            r.num = QByteArray(arch).mid(2);
            r.cudaSet = "cudaPackages_12_8";
            r.pin = pin;
            r.magma = false; // a CUDA 12.8 group needs no MAGMA patch
            r.pname = QByteArray("pytorch210-python313-cuda12_8-") + arch + "-avx512";
            return r;
        };
        for (auto [arch, sm] : {std::pair{"sm86", "8.6"}, {"sm89", "8.9"}, {"sm90", "9.0"}})
            repo.writeRecipe(QStringLiteral("pytorch-python313-cuda12_8-%1-avx512.nix").arg(arch),
                             cuda128(arch, sm, goodPin).text());
        repo.writeRecipe("pytorch-python313-cuda12_8-sm80-avx512.nix",
                         cuda128("sm80", "8.0", otherPin).text());
        Recipe bare = cuda128("sm75", "7.5", goodPin);
        bare.torch = false; // lacks the torch upgrade the rest of its group carries
        repo.writeRecipe("pytorch-python313-cuda12_8-sm75-avx512.nix", bare.text());
        const Analysis analysis = analyze(repo);
        QVERIFY(analysis.spec.isInferred());
        QCOMPARE(analysis.counts()[static_cast<size_t>(CellStatus::Ok)], 5);
        QCOMPARE(analysis.counts()[static_cast<size_t>(CellStatus::Missing)], 0);
        for (const Cell& entry : analysis.cells) {
            QVERIFY(entry.recipe);
            std::multiset<std::string> got = ids(entry.findings);
            const std::string& file = entry.recipe->fileName;
            if (file.find("sm80") != std::string::npos) {
                QCOMPARE(got, std::multiset<std::string>{"pin-differs-from-group"});
                QVERIFY(entry.findings[0].message.find("4 of 5") != std::string::npos);
            } else if (file.find("sm75") != std::string::npos) {
                QCOMPARE(got, std::multiset<std::string>{"overlay-differs-from-group"});
                QVERIFY(entry.findings[0].message.find("torch-upgrade") != std::string::npos);
                QVERIFY(entry.findings[0].message.find("spec") == std::string::npos);
            } else {
                QCOMPARE(got, std::multiset<std::string>{});
            }
        }
        // Two groups on CUDA 12.8 (one per pin), each with its canonical recipe and why.
        QCOMPARE(analysis.groups.size(), size_t(2));
        const GroupProfile& main = analysis.groups[0].profile.pin == std::string(goodPin)
                                       ? analysis.groups[0].profile
                                       : analysis.groups[1].profile;
        QCOMPARE(main.members, 4);
        QCOMPARE(QString::fromStdString(main.canonical),
                 QStringLiteral("pytorch-python313-cuda12_8-sm86-avx512.nix"));
        QVERIFY(main.canonicalWhy.find("3 of 4") != std::string::npos);
    }

    // Without a spec nothing is "missing": cells the recipes around them suggest are gaps
    // (info), and an arch the author only pairs with avx/avx2 gets none.
    void inferredGaps()
    {
        TestRepository repo;
        auto write = [&](const char* arch, const char* isa, const char* python = "313") {
            const QByteArray name =
                QByteArray("pytorch-python") + python + "-cuda12_8-" + arch + "-" + isa;
            repo.writeRecipe(name + ".nix", "{ python3Packages }: python3Packages.torch\n");
        };
        for (const char* arch : {"sm80", "sm86", "sm89"})
            for (const char* isa : {"avx2", "avx512", "avx512bf16"})
                write(arch, isa);
        write("sm90", "avx2");
        write("sm90", "avx512"); // sm90-avx512bf16 is a hole
        write("sm61", "avx");
        write("sm61", "avx2"); // sm61 is only ever built for avx/avx2
        // Two archs: one built for avx2 and avx512, one for avx2 and avx. Nothing to suggest.
        write("sm80", "avx2", "312");
        write("sm80", "avx512", "312");
        write("sm86", "avx2", "312");
        write("sm86", "avx", "312");
        // One build of sm75 beside three archs with avx2 and avx512: its peers suggest avx512.
        for (const char* arch : {"sm80", "sm86", "sm89"})
            for (const char* isa : {"avx2", "avx512"})
                write(arch, isa, "311");
        write("sm75", "avx2", "311");
        const Analysis analysis = analyze(repo);
        std::set<std::string> gaps;
        for (const Cell& entry : analysis.cells) {
            QVERIFY(entry.status != CellStatus::Missing);
            if (entry.status != CellStatus::Gap)
                continue;
            gaps.insert(entry.variant.toString());
            QCOMPARE(ids(entry.findings), std::multiset<std::string>{"gap"});
            QCOMPARE(entry.findings[0].severity, Severity::Info);
        }
        QCOMPARE(gaps, (std::set<std::string>{"pytorch-python313-cuda12_8-sm90-avx512bf16",
                                              "pytorch-python311-cuda12_8-sm75-avx512"}));
    }

    // Severity means something: a recipe with only a warning is an ok cell with a warning.
    void warningsDoNotBreakCells()
    {
        TestRepository repo;
        repo.write(".flox/recipegrid.json", specJson);
        Recipe r;
        r.attribute = "pytorch"; // deprecated alias: builds, so a warning
        repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512.nix", r.text());
        const Analysis analysis = analyze(repo);
        const Cell* entry = nullptr;
        for (const Cell& e : analysis.cells)
            if (e.recipe)
                entry = &e;
        QVERIFY(entry);
        QCOMPARE(entry->status, CellStatus::Ok);
        QCOMPARE(entry->count(Severity::Warning), 1);
    }

    // A torchvision recipe that imports the pytorch recipe of its cell is another package's
    // variant, not a duplicate.
    void companionsAreTheirOwnPackage()
    {
        TestRepository repo;
        repo.writeRecipe("pytorch-python313-cuda12_8-sm90-avx512.nix",
                         "{ python3Packages }: python3Packages.torch\n");
        repo.writeRecipe("torchvision-python313-cuda12_8-sm90-avx512.nix",
                         "{ python3Packages, callPackage }:\nlet torch = callPackage "
                         "./pytorch-python313-cuda12_8-sm90-avx512.nix { };\nin "
                         "python3Packages.torchvision.override { inherit torch; }\n");
        const Analysis analysis = analyze(repo);
        QCOMPARE(analysis.cells.size(), size_t(2));
        std::set<std::string> packages;
        for (const Cell& entry : analysis.cells) {
            QCOMPARE(entry.status, CellStatus::Ok);
            QVERIFY(!find(entry.findings, "duplicate-variant"));
            packages.insert(entry.package);
        }
        QCOMPARE(packages, (std::set<std::string>{"pytorch", "torchvision"}));
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
        QVERIFY(find(check(legacy, "pytorch-python313-cpu-avx10.nix"), "unknown-to-catalog"));
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
        for (const Cell& entry : analysis.cells) {
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
        for (const Cell& entry : legacy.cells)
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

        // A versioned name that wraps the recipe of its own cell publishes that build again,
        // on purpose: a note, not a duplicate to delete. A copy under that name still is one.
        QVERIFY(QFile::remove(repo.root() + "/.flox/pkgs/pytorch-py313-sm90-avx512.nix"));
        repo.writeRecipe("pytorch210-python313-cuda13_0-sm90-avx512.nix",
                         "(import ./pytorch-python313-cuda13_0-sm90-avx512.nix).overrideAttrs "
                         "(old: { pname = \"pytorch210-python313-cuda13_0-sm90-avx512\"; })\n");
        const Analysis alias = analyze(repo);
        const Cell* published = nullptr;
        for (const Cell& entry : alias.cells)
            if (entry.recipe && entry.recipe->fileName.rfind("pytorch210-", 0) == 0)
                published = &entry;
        QVERIFY(published);
        QCOMPARE(published->status, CellStatus::Ok);
        ONLY(published->findings, "published-alias");
        QCOMPARE(published->findings[0].fix, FixKind::None);
        QVERIFY(published->findings[0].message.find("pytorch-python313-cuda13_0-sm90-avx512.nix") !=
                std::string::npos);
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
        for (const Cell& entry : analysis.cells)
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
        for (const Cell& entry : analysis.cells)
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
        for (const Cell& entry : analysis.cells)
            if (entry.recipe && entry.recipe->fileName == "pytorch-python313-cpu-avx512.nix")
                QVERIFY(entry.findings[0].message.find("No such file or directory") !=
                        std::string::npos);
        // Good files are not flagged by any of these.
        TestRepository clean;
        clean.write(".flox/recipegrid.json", specJson);
        clean.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512.nix", Recipe{}.text());
        const Analysis fine = analyze(clean);
        QCOMPARE(fine.cells.front().status, CellStatus::Ok);
    }

    // Nested deeper than the parser follows, which Nix accepts (tst_nix_differential): the file
    // is unread, so a warning says nothing in it was checked, never a syntax error that would
    // mark the cell broken, and the cell is unchecked: neither broken nor ok.
    void nestedDeeperThanTheParserFollows()
    {
        TestRepository repo;
        repo.write(".flox/recipegrid.json", specJson);
        repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512.nix",
                         "# wrapped\n" + QByteArray(1100, '(') + Recipe{}.text() +
                             QByteArray(1100, ')'));
        const Analysis analysis = analyze(repo);
        const Cell* cell = nullptr;
        for (const Cell& entry : analysis.cells)
            if (entry.recipe)
                cell = &entry;
        QVERIFY(cell);
        QCOMPARE(cell->findings.size(), size_t(1));
        QCOMPARE(cell->findings[0].ruleId, std::string("nested-too-deep"));
        QCOMPARE(cell->findings[0].severity, Severity::Warning);
        QCOMPARE(cell->findings[0].line, 2u); // where the parser stopped
        QVERIFY(cell->findings[0].message.find("not Nix's") != std::string::npos);
        QCOMPARE(cell->status, CellStatus::Unchecked);
        QCOMPARE(analysis.counts()[size_t(CellStatus::Unchecked)], 1);
        QCOMPARE(analysis.counts()[size_t(CellStatus::Ok)], 0);
        // Another notation an author could reach: a long sum in a binding. Deep enough, it is
        // unread the same way; 400 terms are read, and the recipe is judged sound.
        const auto withSum = [](int terms) {
            QByteArray sum = "0";
            for (int i = 0; i < terms; ++i)
                sum += " + 1";
            return "let jobs = " + sum + "; in\n" + Recipe{}.text();
        };
        repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512.nix", withSum(1500));
        const Analysis longSum = analyze(repo);
        for (const Cell& entry : longSum.cells)
            if (entry.recipe) {
                QCOMPARE(entry.findings.size(), size_t(1));
                QCOMPARE(entry.findings[0].ruleId, std::string("nested-too-deep"));
                QCOMPARE(entry.status, CellStatus::Unchecked);
            }
        // What a recipe's name says still holds of an unread one: a second copy of the variant
        // is redundant, a variant outside the spec unexpected. Unchecked only replaces "ok".
        repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512-nightly.nix", withSum(1500));
        repo.writeRecipe("pytorch-python313-cuda13_0-sm86-avx512.nix", withSum(1500));
        std::map<std::string, CellStatus> statuses;
        for (const Cell& entry : analyze(repo).cells)
            if (entry.recipe)
                statuses[entry.recipe->fileName] = entry.status;
        QCOMPARE(statuses.size(), size_t(3));
        QCOMPARE(statuses["pytorch-python313-cuda13_0-sm90-avx512.nix"], CellStatus::Unchecked);
        QCOMPARE(statuses["pytorch-python313-cuda13_0-sm90-avx512-nightly.nix"],
                 CellStatus::Redundant);
        QCOMPARE(statuses["pytorch-python313-cuda13_0-sm86-avx512.nix"], CellStatus::Unexpected);
        QFile::remove(repo.root() +
                      "/.flox/pkgs/pytorch-python313-cuda13_0-sm90-avx512-nightly.nix");
        QFile::remove(repo.root() + "/.flox/pkgs/pytorch-python313-cuda13_0-sm86-avx512.nix");
        // Within the limit, in both notations, the recipe is read and judged sound.
        for (const QByteArray& sound : {"# wrapped\n(" + Recipe{}.text() + ")", withSum(400)}) {
            repo.writeRecipe("pytorch-python313-cuda13_0-sm90-avx512.nix", sound);
            const Analysis shallow = analyze(repo);
            for (const Cell& entry : shallow.cells)
                if (entry.recipe) {
                    QCOMPARE(entry.status, CellStatus::Ok);
                    QVERIFY(entry.findings.empty());
                }
        }
    }

    // A pin written in a module (`pin = import ./lib/pin.nix;`) is the pin of every recipe
    // that imports it; findings say where it is written.
    void pinsWrittenInAModule()
    {
        TestRepository repo;
        repo.writeRecipe("lib/pin.nix",
                         "# the one snapshot\n{\n  nixpkgs = builtins.fetchTarball {\n"
                         "    url = \"https://github.com/NixOS/nixpkgs/archive/" +
                             otherPin + ".tar.gz\";\n  };\n}\n");
        const QByteArray fromModule = "let\n  pin = import ./lib/pin.nix;\n"
                                      "  pkgs = import pin.nixpkgs { };\nin\n"
                                      "pkgs.python313Packages.torch\n";
        const QByteArray own = "let\n  pkgs = import (builtins.fetchTarball "
                               "\"https://github.com/NixOS/nixpkgs/archive/" +
                               goodPin + ".tar.gz\") { };\nin\npkgs.python313Packages.torch\n";
        for (const char* isa : {"avx2", "avx512", "avx512bf16"})
            repo.writeRecipe(QStringLiteral("pytorch-python313-cpu-%1.nix").arg(isa), own);
        repo.writeRecipe("pytorch-python313-cpu-avx512vnni.nix", fromModule);
        const Analysis analysis = analyze(repo);
        const Cell* reader = nullptr;
        for (const Cell& entry : analysis.cells)
            if (entry.variant.isa == "avx512vnni")
                reader = &entry;
        QVERIFY(reader && reader->recipe);
        QCOMPARE(reader->recipe->pins.size(), size_t(1));
        const PinFact& pin = reader->recipe->pins.front();
        QCOMPARE(pin.revision, std::string(otherPin));
        QCOMPARE(pin.file, std::string(".flox/pkgs/lib/pin.nix"));
        QCOMPARE(pin.line, 4);
        QVERIFY(reader->recipe->pattern == PatternKind::PinnedPlain);
        ONLY(reader->findings, "pin-differs-from-group");
        QVERIFY2(reader->findings[0].message.find("written in .flox/pkgs/lib/pin.nix:4") !=
                     std::string::npos,
                 reader->findings[0].message.c_str());
        // A module in a subdirectory is no recipe, and the others pin for themselves.
        QCOMPARE(analysis.cells.size(), size_t(4));
        for (const Cell& entry : analysis.cells)
            if (&entry != reader)
                QCOMPARE(entry.recipe->pins.front().file, std::string());

        // The same pin kept in JSON, read with fromJSON: written there, at its line.
        repo.write(".flox/pins/nixpkgs.json",
                   "{\n  \"nixpkgs\": {\n    \"rev\": \"" + otherPin + "\"\n  }\n}\n");
        repo.writeRecipe(
            "pytorch-python313-cpu-avx512vnni.nix",
            "let\n  pins = builtins.fromJSON (builtins.readFile ../pins/nixpkgs.json);\n"
            "  pkgs = import (builtins.fetchTarball "
            "\"https://github.com/NixOS/nixpkgs/archive/${pins.nixpkgs.rev}.tar.gz\") { };\n"
            "in\npkgs.python313Packages.torch\n");
        const Analysis json = analyze(repo);
        int readers = 0;
        for (const Cell& entry : json.cells) {
            if (entry.variant.isa != "avx512vnni")
                continue;
            ++readers;
            QCOMPARE(entry.recipe->pins.size(), size_t(1));
            QCOMPARE(entry.recipe->pins.front().revision, std::string(otherPin));
            QCOMPARE(entry.recipe->pins.front().file, std::string(".flox/pins/nixpkgs.json"));
            QCOMPARE(entry.recipe->pins.front().line, 3);
            ONLY(entry.findings, "pin-differs-from-group");
            QVERIFY2(entry.findings[0].message.find("written in .flox/pins/nixpkgs.json:3") !=
                         std::string::npos,
                     entry.findings[0].message.c_str());
        }
        QCOMPARE(readers, 1);
    }

    // A builder whose pin is the default of its `rev` argument: a recipe that passes `rev`
    // pins that revision itself, in its own file; the others take the default, in the module.
    void aBuildersPinArgument()
    {
        TestRepository repo;
        repo.writeRecipe("lib/mk-torch.nix",
                         "{ isa, rev ? \"" + goodPin +
                             "\" }:\nlet\n  pkgs = import (builtins.fetchTarball "
                             "\"https://github.com/NixOS/nixpkgs/archive/${rev}.tar.gz\") { };\n"
                             "in\npkgs.python313Packages.torch\n");
        for (const char* isa : {"avx2", "avx512"})
            repo.writeRecipe(QStringLiteral("pytorch-python313-cpu-%1.nix").arg(isa),
                             QByteArray("import ./lib/mk-torch.nix { isa = \"") + isa + "\"; }\n");
        const QByteArray overriding = "import ./lib/mk-torch.nix {\n  isa = \"avx512bf16\";\n"
                                      "  rev = \"" +
                                      otherPin + "\";\n}\n";
        repo.writeRecipe("pytorch-python313-cpu-avx512bf16.nix", overriding);
        repo.writeRecipe("pytorch-python313-cpu-avx512vnni.nix",
                         "let r = builtins.getEnv \"REV\"; in\n"
                         "import ./lib/mk-torch.nix { isa = \"avx512vnni\"; rev = r; }\n");
        const Analysis analysis = analyze(repo);
        std::map<std::string, const RecipeFacts*> byIsa;
        for (const Cell& entry : analysis.cells)
            byIsa[entry.variant.isa] = entry.recipe.get();
        QCOMPARE(byIsa.size(), size_t(4));
        for (const char* isa : {"avx2", "avx512"}) {
            QCOMPARE(byIsa[isa]->pins.size(), size_t(1));
            QCOMPARE(byIsa[isa]->pins[0].revision, std::string(goodPin));
            QCOMPARE(byIsa[isa]->pins[0].file, std::string(".flox/pkgs/lib/mk-torch.nix"));
            QCOMPARE(byIsa[isa]->pins[0].line, 1);
        }
        const PinFact& own = byIsa["avx512bf16"]->pins.at(0);
        QCOMPARE(own.revision, std::string(otherPin));
        QCOMPARE(own.file, std::string());
        QCOMPARE(overriding.mid(int(own.range.begin), int(own.range.length())), otherPin);
        // An argument that cannot be read leaves the pin unknown rather than the default.
        QVERIFY(byIsa["avx512vnni"]->pins.empty());
    }

    // A stub that hands the builder its arch under the sink's own name: the arch is read in
    // the stub, and the compiler flags the builder makes are still read there.
    void aBuilderArgumentNamedLikeASink()
    {
        TestRepository repo;
        repo.writeRecipe("lib/mk.nix",
                         "{ isa, gpuTargets }:\nlet\n  pkgs = import <nixpkgs> { };\n"
                         "  flags = {\n    avx2 = [ \"-mavx2\" \"-mfma\" \"-mf16c\" ];\n"
                         "    avx512 = [ \"-mavx512f\" \"-mavx512dq\" \"-mavx512vl\" "
                         "\"-mavx512bw\" ];\n  };\nin\n"
                         "(pkgs.python313Packages.torch.override { inherit gpuTargets; "
                         "}).overrideAttrs (old: {\n"
                         "  NIX_CFLAGS_COMPILE = toString flags.${isa};\n})\n");
        const char* stub = "import ./lib/mk.nix { isa = \"%1\"; gpuTargets = [ \"9.0\" ]; }\n";
        repo.writeRecipe("pytorch-python313-cuda12_8-sm90-avx2.nix",
                         QString::fromLatin1(stub).arg("avx2").toUtf8());
        repo.writeRecipe("pytorch-python313-cuda12_8-sm90-avx512.nix",
                         QString::fromLatin1(stub).arg("avx2").toUtf8());
        const Analysis analysis = analyze(repo);
        QCOMPARE(analysis.cells.size(), size_t(2));
        for (const Cell& entry : analysis.cells) {
            QVERIFY(entry.recipe && entry.recipe->compilerFlags);
            QVERIFY(!find(entry.findings, "values-not-read"));
            if (entry.variant.isa == "avx2")
                CLEAN(entry.findings);
            else
                ONLY(entry.findings, "cpu-flags-mismatch");
        }
    }

    // A curried builder (`{ lib }: spec: …`) that stubs call with two arguments: both are
    // applied, so the values made from the second are read.
    void aCurriedBuilder()
    {
        TestRepository repo;
        repo.writeRecipe(
            "lib/mk.nix",
            "{ lib }:\nspec:\nlet\n  cells = {\n"
            "    \"sm90-avx512\" = { cap = \"9.0\"; flags = [ \"-mavx512f\" \"-mavx512dq\" "
            "\"-mavx512vl\" \"-mavx512bw\" \"-mfma\" ]; };\n"
            "    \"sm86-avx2\" = { cap = \"8.6\"; flags = [ \"-mavx2\" \"-mfma\" \"-mf16c\" ]; };\n"
            "  };\n  opts = if builtins.isString spec then { name = spec; } else spec;\n"
            "  cell = cells.${opts.name};\n  pkgs = import <nixpkgs> { };\nin\n"
            "(pkgs.python313Packages.torch.override { gpuTargets = [ cell.cap ]; }).overrideAttrs "
            "(old: {\n  NIX_CFLAGS_COMPILE = toString cell.flags;\n})\n");
        auto stub = [](const char* cell) {
            return QByteArray("{ lib }:\nimport ./lib/mk.nix { inherit lib; } \"") + cell + "\"\n";
        };
        repo.writeRecipe("pytorch-python313-cuda12_8-sm90-avx512.nix", stub("sm90-avx512"));
        repo.writeRecipe("pytorch-python313-cuda12_8-sm86-avx2.nix", stub("sm86-avx2"));
        repo.writeRecipe("pytorch-python313-cuda12_8-sm89-avx2.nix", stub("sm86-avx2"));
        repo.writeRecipe(
            "pytorch-python313-cuda12_8-sm86-avx512.nix",
            "{ lib }:\nimport ./lib/mk.nix { inherit lib; } { name = \"sm86-avx2\"; }\n");
        const Analysis analysis = analyze(repo);
        QCOMPARE(analysis.cells.size(), size_t(4));
        for (const Cell& entry : analysis.cells) {
            QVERIFY(entry.recipe);
            const std::string cell = entry.variant.gpuArch + "-" + entry.variant.isa;
            QVERIFY2(!entry.recipe->archSinks.empty() && entry.recipe->compilerFlags, cell.c_str());
            if (cell == "sm89-avx2")
                ONLY(entry.findings, "gpu-arch-mismatch");
            else if (cell == "sm86-avx512")
                ONLY(entry.findings, "cpu-flags-mismatch");
            else
                CLEAN(entry.findings);
        }
    }

    // A generator that picks the pin by the variant from a table and lets a stub override
    // it (`derived // overrides`): each stub pins what its call makes, written in the table
    // or in the stub itself.
    void aGeneratorPicksThePinPerCall()
    {
        TestRepository repo;
        repo.writeRecipe("_gen/tables.nix", "{\n  pins = {\n    \"12_8\" = { rev = \"" + goodPin +
                                                "\"; };\n    \"12_9\" = { rev = \"" + otherPin +
                                                "\"; };\n  };\n}\n");
        repo.writeRecipe(
            "_gen/variant.nix",
            "{ cuda, overrides ? { } }:\nlet\n  tables = import ./tables.nix;\n"
            "  v = { pin = tables.pins.${cuda}; } // overrides;\n"
            "  pkgs = import (builtins.fetchTarball {\n"
            "    url = \"https://github.com/NixOS/nixpkgs/archive/${v.pin.rev}.tar.gz\";\n"
            "  }) { };\nin\npkgs.python313Packages.torch\n");
        for (const char* sm : {"sm86", "sm89", "sm90"})
            repo.writeRecipe(QStringLiteral("pytorch-python313-cuda12_8-%1-avx2.nix").arg(sm),
                             "import ./_gen/variant.nix { cuda = \"12_8\"; }\n");
        repo.writeRecipe("pytorch-python313-cuda12_9-sm90-avx2.nix",
                         "import ./_gen/variant.nix { cuda = \"12_9\"; }\n");
        const QByteArray overriding = "import ./_gen/variant.nix {\n  cuda = \"12_8\";\n"
                                      "  overrides.pin = { rev = \"" +
                                      otherPin + "\"; };\n}\n";
        repo.writeRecipe("pytorch-python313-cuda12_8-sm120-avx2.nix", overriding);
        const Analysis analysis = analyze(repo);
        QCOMPARE(analysis.cells.size(), size_t(5));
        for (const Cell& entry : analysis.cells) {
            QVERIFY(entry.recipe);
            QCOMPARE(entry.recipe->pins.size(), size_t(1));
            const PinFact& pin = entry.recipe->pins.front();
            const std::string name = entry.variant.toString();
            if (entry.variant.gpuArch == "sm120") {
                QCOMPARE(pin.revision, std::string(otherPin));
                QCOMPARE(pin.file, std::string());
                QCOMPARE(overriding.mid(int(pin.range.begin), int(pin.range.length())), otherPin);
                QVERIFY2(ids(entry.findings).count("pin-differs-from-group"), name.c_str());
            } else {
                const bool newer = entry.variant.cuda == "12.9";
                QCOMPARE(pin.revision, std::string(newer ? otherPin : goodPin));
                QCOMPARE(pin.file, std::string(".flox/pkgs/_gen/tables.nix"));
                QCOMPARE(pin.line, newer ? 4 : 3);
                QVERIFY2(!ids(entry.findings).count("pin-differs-from-group"), name.c_str());
            }
        }
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
        const Cell& entry = stale.cells.front();
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
        QCOMPARE(fixed.cells.front().status, CellStatus::Ok);
        QVERIFY(fixed.cells.front().findings.empty());

        // Without a spec file, the inferred pin is the base's (the wrapper states none).
        QVERIFY(QFile::remove(repo.root() + "/.flox/recipegrid.json"));
        const Analysis inferred = analyze(repo);
        QVERIFY(inferred.spec.isInferred());
        QCOMPARE(inferred.spec.pins.at("13.0"), goodPin.toStdString());
        QCOMPARE(inferred.cells.front().status, CellStatus::Ok);
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

    // A spec file decides what is expected: what it asks for stays expected even when it cannot
    // work, and the spec hears of it, once per reason with the variants it covers. The cells
    // say why too; an inferred spec asks for nothing, so its recipes are impossible instead.
    void specAsksForWhatCannotWork()
    {
        TestRepository repo;
        QByteArray spec = specJson;
        // sm110 (an ARM SoC) with x86 ISAs for two Pythons, and sm61 with CUDA 13.0 (which
        // dropped every arch below 7.5).
        spec.replace(R"("gpuArchs": ["sm110"], "isas": ["armv9"] },)",
                     R"("gpuArchs": ["sm110"], "isas": ["armv9", "avx512"] },
    { "python": ["3.12", "3.13"], "accelerator": "cuda", "cuda": ["13.0"],
      "gpuArchs": ["sm110"], "isas": ["avx2"] },
    { "python": ["3.13"], "accelerator": "cuda", "cuda": ["13.0"],
      "gpuArchs": ["sm61"], "isas": ["avx512"] },)");
        repo.write(".flox/recipegrid.json", spec);
        Recipe thor;
        thor.sm = "11.0";
        thor.num = "110";
        thor.pname = "pytorch210-python313-cuda13_0-sm110-avx512";
        repo.writeRecipe("pytorch-python313-cuda13_0-sm110-avx512.nix", thor.text());
        const Analysis asked = analyze(repo);
        std::vector<std::string> asks;
        std::map<std::string, uint32_t> lines; // message → line
        for (const Finding& f : asked.repositoryFindings) {
            QCOMPARE(f.ruleId, std::string("spec-asks-impossible"));
            QCOMPARE(f.file, std::string(".flox/recipegrid.json"));
            asks.push_back(f.message);
            lines[f.message] = f.line;
        }
        std::sort(asks.begin(), asks.end());
        QCOMPARE(asks.size(), size_t(3));
        // Each names the line of the spec that asks: the group's GPU arch (its column is
        // tst_matrixspec's).
        const auto lineOf = [&](const char* text) {
            return uint32_t(spec.left(spec.indexOf(text)).count('\n') + 1);
        };
        QCOMPARE(lines[asks[0]], lineOf(R"("gpuArchs": ["sm110"], "isas": ["avx2"])"));
        QCOMPARE(lines[asks[1]], lineOf(R"("gpuArchs": ["sm110"], "isas": ["armv9", "avx512"])"));
        QCOMPARE(lines[asks[2]], lineOf(R"("gpuArchs": ["sm61"])"));
        QVERIFY(lines[asks[0]] != lines[asks[1]]);
        QVERIFY2(asks[0].starts_with("the spec asks for 2 variants "
                                     "(pytorch-python312-cuda13_0-sm110-avx2, "
                                     "pytorch-python313-cuda13_0-sm110-avx2), which cannot work: "
                                     "sm110 (NVIDIA DRIVE Thor) is an ARM SoC; avx2 is an x86 ISA"),
                 asks[0].c_str());
        QVERIFY2(asks[1].starts_with("the spec asks for pytorch-python313-cuda13_0-sm110-avx512, "),
                 asks[1].c_str());
        QVERIFY2(asks[2].starts_with("the spec asks for pytorch-python313-cuda13_0-sm61-avx512, "
                                     "which cannot work: ") &&
                     asks[2].find("13.0") != std::string::npos,
                 asks[2].c_str());
        // Expected all the same: the recipe is judged as any other, the others are missing and
        // say why they cannot work.
        for (const Cell& entry : asked.cells) {
            const std::string name = entry.variant.toString();
            if (name == "pytorch-python313-cuda13_0-sm110-avx512") {
                QCOMPARE(entry.status, CellStatus::Ok);
                QVERIFY(!find(entry.findings, "impossible-pairing"));
            } else if (name.find("-sm110-avx2") != std::string::npos ||
                       name.find("-sm61-") != std::string::npos) {
                QCOMPARE(entry.status, CellStatus::Missing);
                QVERIFY2(entry.findings.front().message.find("; it cannot work: ") !=
                             std::string::npos,
                         entry.findings.front().message.c_str());
            } else if (entry.status == CellStatus::Missing) {
                QVERIFY2(entry.findings.front().message.find("cannot work") == std::string::npos,
                         entry.findings.front().message.c_str());
            }
        }

        // The same matrix with the impossible pairs excluded, in the spec's other notation:
        // asked for no more, so the spec says nothing and the recipe is unexpected.
        QByteArray excluded = spec;
        excluded.replace(R"("patterns": {)",
                         R"("exclude": [ { "gpuArch": "sm110", "isa": "avx2" },
                { "gpuArch": "sm110", "isa": "avx512" }, { "gpuArch": "sm61" } ],
  "patterns": {)");
        repo.write(".flox/recipegrid.json", excluded);
        for (const Finding& f : analyze(repo).repositoryFindings)
            QVERIFY2(f.ruleId != "spec-asks-impossible", f.message.c_str());

        // Without a spec file nothing is asked for: the recipe itself is impossible.
        QVERIFY(QFile::remove(repo.root() + "/.flox/recipegrid.json"));
        const Analysis inferred = analyze(repo);
        QCOMPARE(allIds(inferred),
                 (std::multiset<std::string>{"impossible-pairing", "spec-inferred"}));
    }

    void cleanupTestCase()
    {
        std::vector<std::string> untested;
        // The eval-* rules need Nix and a pin to evaluate against: tst_deepcheck triggers each.
        for (const RuleInfo& rule : RuleSet::rules())
            if (!triggered().count(std::string(rule.id)) && !rule.id.starts_with("eval-"))
                untested.emplace_back(rule.id);
        std::string list;
        for (const std::string& id : untested)
            list += id + " ";
        QVERIFY2(untested.empty(), ("rules never triggered: " + list).c_str());
    }
};

QTEST_GUILESS_MAIN(TestRules)
#include "tst_rules.moc"
