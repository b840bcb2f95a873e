// Fact extraction over many layouts: every fact written several ways a person (or a template)
// writes it must read the same, with the range pointing at the value in the source.

#include "analysis/analyzer.h"
#include "testrepository.h"

#include <QDir>
#include <QFile>
#include <QTest>

using namespace rg;

Q_DECLARE_METATYPE(std::string)

namespace {

const char* const pin = "6a030d535719c5190187c4cec156f335e95e3211";

RecipeFacts
extract(const QByteArray& source,
        const std::string& path = ".flox/pkgs/pytorch-python313-cuda13_0-sm90-avx512.nix")
{
    return Analyzer().extract(path, source.toStdString());
}

std::string textAt(const QByteArray& source, nix::SourceRange range)
{
    return source.mid(range.begin, range.length()).toStdString();
}

#define REQUIRE_PARSED(facts)                                                                      \
    QVERIFY2((facts).problem == FileProblem::None,                                                 \
             ("unexpected problem: " + (facts).problemDetail).c_str())

using Strings = std::vector<std::string>;

// The entries reaching TORCH_CUDA_ARCH_LIST, as the list writes them.
std::string archListOf(const RecipeFacts& facts)
{
    std::string list;
    for (const ArchSinkFact& entry : facts.archSinks)
        if (entry.sink == ArchSink::TorchCudaArchList)
            list += (list.empty() ? "" : ";") + entry.value;
    return list;
}

} // namespace

bool contains(const std::vector<std::string>& list, const std::string& item)
{
    return std::find(list.begin(), list.end(), item) != list.end();
}

class TestRecipeFacts : public QObject
{
    Q_OBJECT

private slots:
    void fileLevelFacts()
    {
        const RecipeFacts facts = extract("{ }", "some/dir/pytorch-python313-cpu-avx2.nix");
        REQUIRE_PARSED(facts);
        QCOMPARE(facts.path, std::string("some/dir/pytorch-python313-cpu-avx2.nix"));
        QCOMPARE(facts.fileName, std::string("pytorch-python313-cpu-avx2.nix"));
        QVERIFY(facts.variant);
        QCOMPARE(facts.variant->isa, std::string("avx2"));
        QCOMPARE(facts.size, uint64_t(3));
        QVERIFY(!extract("{ }", "x/common.nix").variant);
    }

    // An arch entry reaches its sink through every binding notation, and its range covers the
    // literal a fix edits, wherever that is written.
    void archEntryThroughBindings_data()
    {
        QTest::addColumn<QByteArray>("source");
        // What the entry's range covers: a string's text between its quotes, where a fix writes,
        // or the whole expression that makes the value.
        QTest::addColumn<QByteArray>("literal");
        QTest::newRow("let") << QByteArray("let sm = \"9.0\"; in { gpuTargets = [ sm ]; }")
                             << QByteArray("9.0");
        QTest::newRow("rec set") << QByteArray(
                                        "rec { gpuArchSM = \"9.0\"; gpuTargets = [ gpuArchSM ]; }")
                                 << QByteArray("9.0");
        QTest::newRow("nested let")
            << QByteArray("let sm = \"9.0\"; in let arch = sm; in { gpuTargets = [ arch ]; }")
            << QByteArray("9.0");
        QTest::newRow("interpolated")
            << QByteArray("let major = \"9\"; in { gpuTargets = [ \"${major}.0\" ]; }")
            << QByteArray("\"${major}.0\"");
        QTest::newRow("inherit from let")
            << QByteArray("let gpuTargets = [ \"9.0\" ]; in { inherit gpuTargets; }")
            << QByteArray("9.0");
        QTest::newRow("inherit (set)")
            << QByteArray(
                   "let arch = { gpuTargets = [ \"9.0\" ]; }; in { inherit (arch) gpuTargets; }")
            << QByteArray("9.0");
        QTest::newRow("formal default")
            << QByteArray("{ gpuArchSM ? \"9.0\" }: { gpuTargets = [ gpuArchSM ]; }")
            << QByteArray("9.0");
        QTest::newRow("concatenation")
            << QByteArray("let sm = \"9\" + \".0\"; in { gpuTargets = [ sm ]; }")
            << QByteArray("\"9\" + \".0\"");
        QTest::newRow("select from a let set")
            << QByteArray("let archs = { hopper = { sm = \"9.0\"; }; }; in { gpuTargets = [ "
                          "archs.hopper.sm ]; }")
            << QByteArray("9.0");
        QTest::newRow("torch override")
            << QByteArray("{ torch }: let gpuArchNum = \"90\"; gpuArchSM = \"9.0\"; in "
                          "(torch.override { cudaSupport = true; gpuTargets = [ gpuArchSM ]; "
                          "}).overrideAttrs (o: { })")
            << QByteArray("9.0");
    }
    void archEntryThroughBindings()
    {
        QFETCH(QByteArray, source);
        QFETCH(QByteArray, literal);
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        // A let binding named gpuTargets that is inherited reaches the build through both
        // names: one written value either way.
        QVERIFY(!facts.archSinks.empty());
        for (const ArchSinkFact& entry : facts.archSinks) {
            QCOMPARE(entry.sink, ArchSink::GpuTargets);
            QCOMPARE(entry.value, std::string("9.0"));
            QCOMPARE(textAt(source, entry.range), literal.toStdString());
            QCOMPARE(textAt(source, entry.sinkRange), std::string("gpuTargets"));
        }
    }

    void pins_data()
    {
        QTest::addColumn<QByteArray>("source");
        QTest::addColumn<int>("fetcher");
        QTest::addColumn<bool>("hasHash");
        const QByteArray rev(pin);
        QTest::newRow("builtins.fetchTarball set")
            << "import (builtins.fetchTarball { url = \"https://github.com/NixOS/nixpkgs/archive/" +
                   rev + ".tar.gz\"; sha256 = \"0abc\"; }) { }"
            << int(PinFetcher::FetchTarball) << true;
        QTest::newRow("fetchTarball string")
            << "import (fetchTarball \"https://github.com/NixOS/nixpkgs/archive/" + rev +
                   ".tar.gz\") { }"
            << int(PinFetcher::FetchTarball) << false;
        QTest::newRow("rev interpolated from let")
            << "let rev = \"" + rev +
                   "\"; in import (builtins.fetchTarball { url = "
                   "\"https://github.com/NixOS/nixpkgs/archive/${rev}.tar.gz\"; }) { }"
            << int(PinFetcher::FetchTarball) << false;
        QTest::newRow("rec set url")
            << "{ pkgs }: let src = rec { rev = \"" + rev +
                   "\"; url = \"https://github.com/NixOS/nixpkgs/archive/${rev}.tar.gz\"; "
                   "sha256 = \"x\"; }; in import (fetchTarball src) { }"
            << int(PinFetcher::FetchTarball) << true;
        QTest::newRow("fetchFromGitHub") << "{ pkgs }: import (pkgs.fetchFromGitHub { owner = "
                                            "\"NixOS\"; repo = \"nixpkgs\"; rev = \"" +
                                                rev + "\"; hash = \"sha256-x\"; }) { }"
                                         << int(PinFetcher::FetchFromGitHub) << true;
        QTest::newRow("fetchFromGitHub inherit rev")
            << "{ fetchFromGitHub }: let rev = \"" + rev +
                   "\"; in import (fetchFromGitHub { owner = \"NixOS\"; repo = \"nixpkgs\"; "
                   "inherit rev; "
                   "}) { }"
            << int(PinFetcher::FetchFromGitHub) << false;
        QTest::newRow("fetchGit")
            << "import (builtins.fetchGit { url = \"https://github.com/NixOS/nixpkgs\"; rev = \"" +
                   rev + "\"; }) { }"
            << int(PinFetcher::FetchGit) << false;
        QTest::newRow("fetchTree github set")
            << "import (builtins.fetchTree { type = \"github\"; owner = \"NixOS\"; repo = "
               "\"nixpkgs\"; rev = \"" +
                   rev + "\"; narHash = \"sha256-x\"; }) { }"
            << int(PinFetcher::FetchTree) << true;
        QTest::newRow("fetchTree git set") << "import (builtins.fetchTree { type = \"git\"; url = "
                                              "\"https://github.com/NixOS/nixpkgs.git\"; rev = \"" +
                                                  rev + "\"; }) { }"
                                           << int(PinFetcher::FetchTree) << false;
        QTest::newRow("fetchTree tarball set")
            << "import (builtins.fetchTree { type = \"tarball\"; url = "
               "\"https://github.com/NixOS/nixpkgs/archive/" +
                   rev + ".tar.gz\"; narHash = \"sha256-x\"; }) { }"
            << int(PinFetcher::FetchTree) << true;
        QTest::newRow("fetchTree flake reference")
            << "import (builtins.fetchTree \"github:NixOS/nixpkgs/" + rev + "\") { }"
            << int(PinFetcher::FetchTree) << false;
        QTest::newRow("getFlake reference with rev query")
            << "let nixpkgs = builtins.getFlake \"github:NixOS/nixpkgs?rev=" + rev +
                   "&narHash=sha256-x\"; in nixpkgs.legacyPackages.x86_64-linux"
            << int(PinFetcher::GetFlake) << true;
        QTest::newRow("getFlake git+https")
            << "(builtins.getFlake \"git+https://github.com/NixOS/nixpkgs?ref=nixos-unstable&rev=" +
                   rev + "\").legacyPackages.x86_64-linux"
            << int(PinFetcher::GetFlake) << false;
        QTest::newRow("getFlake revision interpolated")
            << "let rev = \"" + rev +
                   "\"; in (builtins.getFlake \"github:NixOS/nixpkgs/${rev}\").legacyPackages"
            << int(PinFetcher::GetFlake) << false;
    }
    void pins()
    {
        QFETCH(QByteArray, source);
        QFETCH(int, fetcher);
        QFETCH(bool, hasHash);
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QCOMPARE(facts.pins.size(), size_t(1));
        QCOMPARE(facts.pins[0].revision, std::string(pin));
        QCOMPARE(int(facts.pins[0].fetcher), fetcher);
        QCOMPARE(facts.pins[0].hasHash, hasHash);
        QCOMPARE(textAt(source, facts.pins[0].range), std::string(pin)); // what a bump rewrites
    }

    // The fetcher around a pin is read with it, so that a bump rewrites its hash without
    // parsing the recipe again: each range holds the bytes it names.
    void pinsCarryTheirFetcher_data()
    {
        // expected: callee, hash attribute, hash, URL, owner/repo ("" for each one absent)
        QTest::addColumn<QByteArray>("source");
        QTest::addColumn<QStringList>("expected");
        const QByteArray rev(pin);
        const QByteArray base32(52, '1');
        const QString archive =
            "https://github.com/NixOS/nixpkgs/archive/" + QString(pin) + ".tar.gz";
        QTest::newRow("builtins.fetchTarball")
            << "import (builtins.fetchTarball {\n  url = \"" + archive.toUtf8() +
                   "\";\n  sha256 = \"" + base32 + "\";\n}) { }\n"
            << QStringList{"fetchTarball", "sha256", base32, archive, ""};
        QTest::newRow("fetchFromGitHub, SRI hash")
            << "{ pkgs }: import (pkgs.fetchFromGitHub { owner = \"NixOS\"; repo = \"nixpkgs\"; "
               "rev = \"" +
                   rev + "\"; hash = \"sha256-AAAA\"; }) { }"
            << QStringList{"fetchFromGitHub", "hash", "sha256-AAAA", "", "NixOS/nixpkgs"};
        QTest::newRow("builtins.fetchGit, no hash")
            << "import (builtins.fetchGit { url = \"https://github.com/NixOS/nixpkgs\"; rev = \"" +
                   rev + "\"; }) { }"
            << QStringList{"fetchGit", "", "", "https://github.com/NixOS/nixpkgs", ""};
        QTest::newRow("sha256 is chosen over narHash")
            << "import (builtins.fetchTree { type = \"github\"; owner = \"NixOS\"; repo = "
               "\"nixpkgs\"; narHash = \"sha256-N\"; rev = \"" +
                   rev + "\"; sha256 = \"" + base32 + "\"; }) { }"
            << QStringList{"fetchTree", "sha256", base32, "", "NixOS/nixpkgs"};
        QTest::newRow("a computed hash is no literal")
            << "let h = \"" + base32 + "\"; in import (fetchTarball { url = \"" + archive.toUtf8() +
                   "\"; sha256 = h; }) { }"
            << QStringList{"fetchTarball", "", "", archive, ""};
    }
    void pinsCarryTheirFetcher()
    {
        QFETCH(QByteArray, source);
        QFETCH(QStringList, expected);
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QCOMPARE(facts.pins.size(), size_t(1));
        const PinFact& pin = facts.pins[0];
        QVERIFY(pin.call);
        const FetcherFact& call = *pin.call;
        const QString ownerRepo =
            QString::fromStdString(call.owner + (call.owner.empty() ? "" : "/") + call.repo);
        const auto at = [&](nix::SourceRange range) {
            return QString::fromStdString(textAt(source, range));
        };
        QCOMPARE(QStringList({QString::fromStdString(call.callee),
                              QString::fromStdString(call.hashAttribute),
                              QString::fromStdString(call.hash), QString::fromStdString(call.url),
                              ownerRepo}),
                 expected);
        QCOMPARE(at(call.hashRange), expected[2]);
        QCOMPARE(at(call.urlRange), expected[3]);
        // The call holds the revision, and its bytes are recorded to tell a later edit.
        QVERIFY(call.range.begin <= pin.range.begin && pin.range.end <= call.range.end);
        QCOMPARE(at(call.range), QString::fromStdString(call.text));
        QVERIFY(at(call.range).contains(expected[0] + " {"));
    }

    void pinsWithoutAFetcherSet()
    {
        // A flake reference and a revision passed to a module's fetcher have no set around them.
        QVERIFY(!extract("import (builtins.fetchTree \"github:NixOS/nixpkgs/" + QByteArray(pin) +
                         "\") { }")
                     .pins.at(0)
                     .call);
        QVERIFY(!extract("let nixpkgs = builtins.getFlake \"github:NixOS/nixpkgs?rev=" +
                         QByteArray(pin) + "&narHash=sha256-x\"; in nixpkgs.legacyPackages")
                     .pins.at(0)
                     .call);
    }

    // A pin written in a module the recipe imports: its fetcher is read in that module, with
    // ranges in that file.
    void moduleFetcherRangesAreInTheModule()
    {
        test::TestRepository repo;
        const QByteArray module = "# the one snapshot\n{\n  nixpkgs = builtins.fetchTarball {\n"
                                  "    url = \"https://github.com/NixOS/nixpkgs/archive/" +
                                  QByteArray(pin) + ".tar.gz\";\n    sha256 = \"" +
                                  QByteArray(52, '2') + "\";\n  };\n}\n";
        repo.writeRecipe("lib/pin.nix", module);
        repo.writeRecipe("pytorch-python313-cpu-avx2.nix",
                         "let\n  pin = import ./lib/pin.nix;\n  pkgs = import pin.nixpkgs { };\n"
                         "in\npkgs.python313Packages.torch\n");
        const Analysis analysis = Analyzer().analyze(*openWorkTree(repo.rootPath()));
        QCOMPARE(analysis.cells.size(), size_t(1));
        const RecipeFacts& facts = *analysis.cells.front().recipe;
        QCOMPARE(facts.pins.size(), size_t(1));
        const PinFact& read = facts.pins[0];
        QCOMPARE(read.file, std::string(".flox/pkgs/lib/pin.nix"));
        QVERIFY(read.call);
        QCOMPARE(read.call->hashAttribute, std::string("sha256"));
        QCOMPARE(textAt(module, read.call->hashRange), std::string(52, '2'));
        QCOMPARE(textAt(module, read.call->urlRange), read.call->url);
        QCOMPARE(textAt(module, read.call->range), read.call->text);
        QCOMPARE(textAt(module, read.range), std::string(pin));
    }

    void notPins()
    {
        // The torch source and a MAGMA patch are fetched too; they are not the nixpkgs pin.
        const QByteArray source =
            "{ fetchFromGitHub, fetchurl }: { src = fetchFromGitHub { owner = \"pytorch\"; repo = "
            "\"pytorch\"; rev = \"v2.10.0\"; hash = \"\"; }; p = fetchurl { url = "
            "\"https://example.org/x.patch\"; }; }";
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QVERIFY(facts.pins.empty());
        // A branch instead of a revision is still read, so the rule can call it out.
        const RecipeFacts branch =
            extract("import (fetchTarball "
                    "\"https://github.com/NixOS/nixpkgs/archive/nixos-24.05.tar.gz\") { }");
        QCOMPARE(branch.pins.at(0).revision, std::string("nixos-24.05"));
        const RecipeFacts flakeBranch =
            extract("(builtins.getFlake \"github:NixOS/nixpkgs/nixos-24.05\").legacyPackages");
        QCOMPARE(flakeBranch.pins.at(0).revision, std::string("nixos-24.05"));
        // Another flake, or nixpkgs' default branch (nothing pinned), is no pin.
        for (const char* other : {"(builtins.getFlake \"github:NixOS/nixpkgs\").legacyPackages",
                                  "builtins.fetchTree \"github:pytorch/pytorch/v2.10.0\"",
                                  "builtins.fetchTree { type = \"github\"; owner = \"pytorch\"; "
                                  "repo = \"pytorch\"; rev = \"v2.10.0\"; }"})
            QVERIFY2(extract(other).pins.empty(), other);
    }

    void platforms_data()
    {
        QTest::addColumn<QByteArray>("source");
        QTest::newRow("nested") << QByteArray("{ meta = { platforms = [ \"x86_64-linux\" ]; }; }");
        QTest::newRow("dotted") << QByteArray("{ meta.platforms = [ \"x86_64-linux\" ]; }");
        QTest::newRow("update of oldAttrs.meta") << QByteArray(
            "{ old }: old // { meta = old.meta // { platforms = [ \"x86_64-linux\" ]; }; }");
        QTest::newRow("with lib") << QByteArray(
            "{ lib }: { meta = with lib; { platforms = [ \"x86_64-linux\" ]; }; }");
        QTest::newRow("inherit from let") << QByteArray(
            "let platforms = [ \"x86_64-linux\" ]; in { meta = { inherit platforms; }; }");
        QTest::newRow("overrideAttrs lambda") << QByteArray(
            "{ torch }: torch.overrideAttrs (oldAttrs: { meta = oldAttrs.meta // { platforms = [ "
            "\"x86_64-linux\" ]; }; })");
        QTest::newRow("finalAttrs prev")
            << QByteArray("{ torch }: torch.overrideAttrs (finalAttrs: prev: { meta = prev.meta // "
                          "{ platforms = "
                          "[ platform ]; }; }) // { }")
                   .replace("platform ]", "\"x86_64-linux\" ]");
        QTest::newRow("string element from let")
            << QByteArray("let platform = \"x86_64-linux\"; in { meta.platforms = [ platform ]; }");
    }
    void platforms()
    {
        QFETCH(QByteArray, source);
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QVERIFY(facts.platforms);
        QCOMPARE(facts.platforms->value, Strings{"x86_64-linux"});
    }

    // A platforms value is evaluated: nixpkgs' lib.platforms lists are lists of systems, a
    // value taken over from the overridden package is "inherited", and neither is ever an
    // expression posing as a platform.
    void platformsAreEvaluatedOrInherited()
    {
        RecipeFacts facts = extract("{ lib }: { meta.platforms = lib.platforms.linux; }");
        QVERIFY(!facts.platforms);
        QVERIFY(facts.platformsValue);
        QCOMPARE(facts.platformsValue->origin, ValueOrigin::Known);
        QVERIFY(contains(facts.platformsValue->platforms, "x86_64-linux"));
        QVERIFY(contains(facts.platformsValue->platforms, "aarch64-linux"));
        QVERIFY(!contains(facts.platformsValue->platforms, "aarch64-darwin"));
        QCOMPARE(QString::fromStdString(facts.platformsValue->expression),
                 QStringLiteral("lib.platforms.linux"));
        facts = extract("{ lib }: { meta.platforms = with lib.platforms; [ \"x86_64-linux\" ] "
                        "++ darwin; }");
        // The evaluator finds `darwin` through the `with`.
        QCOMPARE(facts.platformsValue->origin, ValueOrigin::Known);
        QCOMPARE(facts.platformsValue->platforms,
                 (Strings{"x86_64-linux", "x86_64-darwin", "aarch64-darwin"}));
        facts = extract("{ t }: t.overrideAttrs (oldAttrs: { meta = oldAttrs.meta // { platforms "
                        "= oldAttrs.meta.platforms or [ \"x86_64-linux\" ]; }; })");
        QCOMPARE(facts.platformsValue->origin, ValueOrigin::Inherited);
        QVERIFY(facts.platformsValue->platforms.empty());
        facts = extract("{ t, lib }: t.overrideAttrs (old: { meta.platforms = "
                        "lib.platforms.x86_64 ++ [ \"aarch64-linux\" ]; })");
        QCOMPARE(facts.platformsValue->origin, ValueOrigin::Known);
        QCOMPARE(facts.platformsValue->platforms,
                 (Strings{"x86_64-linux", "x86_64-darwin", "aarch64-linux"}));
    }

    void torchAttribute_data()
    {
        QTest::addColumn<QByteArray>("source");
        QTest::addColumn<QString>("set");
        QTest::addColumn<QString>("attribute");
        QTest::newRow("pinned select") << QByteArray("let nixpkgs_pinned = import <nixpkgs> { }; "
                                                     "in nixpkgs_pinned.python3Packages.torch")
                                       << "python3Packages"
                                       << "torch";
        QTest::newRow("deprecated pytorch")
            << QByteArray("{ python313Packages }: python313Packages.pytorch.overrideAttrs (o: { })")
            << "python313Packages"
            << "pytorch";
        QTest::newRow("with") << QByteArray("{ python312Packages }: with python312Packages; "
                                            "torch.override { cudaSupport = true; }")
                              << "python312Packages"
                              << "torch";
        QTest::newRow("override then overrideAttrs")
            << QByteArray(
                   "{ pkgs }: (pkgs.python313Packages.torch.override { }).overrideAttrs (old: { })")
            << "python313Packages"
            << "torch";
        QTest::newRow("python.pkgs")
            << QByteArray("{ python313 }: python313.pkgs.torch") << "python313Packages"
            << "torch";
        QTest::newRow("overlay does not count")
            << QByteArray(
                   "let p = import <nixpkgs> { overlays = [ (final: prev: { python3Packages = "
                   "prev.python3Packages.override { overrides = pf: pp: { torch = pp.torch; }; }; "
                   "}) ]; }; "
                   "in p.python313Packages.torch")
            << "python313Packages"
            << "torch";
    }
    void torchAttribute()
    {
        QFETCH(QByteArray, source);
        QFETCH(QString, set);
        QFETCH(QString, attribute);
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QVERIFY(facts.pythonPackageSet && facts.torchAttribute);
        QCOMPARE(QString::fromStdString(facts.pythonPackageSet->value), set);
        QCOMPARE(QString::fromStdString(facts.torchAttribute->value), attribute);
        QCOMPARE(QString::fromStdString(textAt(source, facts.torchAttribute->range)), attribute);
    }

    void overlays_data()
    {
        QTest::addColumn<QByteArray>("source");
        const QByteArray cuda = "(final: prev: { cudaPackages = final.cudaPackages_13; })";
        const QByteArray magma =
            "(final: prev: { magma = prev.magma.overrideAttrs (oldAttrs: { patches = "
            "(oldAttrs.patches or []) ++ [ (final.fetchpatch { name = "
            "\"cuda-13.0-clockrate-fix.patch\"; url = \"https://x/235aefb.patch\"; hash = \"\"; }) "
            "]; }); })";
        const QByteArray torch =
            "(final: prev: { python3Packages = prev.python3Packages.override { overrides = pfinal: "
            "pprev: { torch = pprev.torch.overrideAttrs (oldAttrs: rec { version = \"2.10.0\"; "
            "patches = []; }); }; }; })";
        QTest::newRow("import argument")
            << "import <nixpkgs> { overlays = [ " + cuda + " " + magma + " " + torch + " ]; }";
        QTest::newRow("let-bound overlays")
            << "let cudaOverlay = " + cuda + "; magmaOverlay = " + magma +
                   "; torchOverlay = " + torch +
                   "; in import <nixpkgs> { overlays = [ cudaOverlay "
                   "magmaOverlay torchOverlay ]; }";
        QTest::newRow("inherit overlays") << "let overlays = [ " + cuda + " " + magma + " " +
                                                 torch +
                                                 " ]; in import <nixpkgs> { inherit overlays; }";
        QTest::newRow("concatenated lists") << "import <nixpkgs> { overlays = [ " + cuda +
                                                   " ] ++ [ " + magma + " ] ++ [ " + torch +
                                                   " ]; }";
        QTest::newRow("extend") << "((import <nixpkgs> { }).extend " + cuda + ").extend " + magma +
                                       " // { x = (import <nixpkgs> { }).appendOverlays [ " +
                                       torch + " ]; }";
        QTest::newRow("finalAttrs torch upgrade")
            << "import <nixpkgs> { overlays = [ " + cuda + " " + magma +
                   " (final: prev: { python3Packages = prev.python3Packages.override { overrides = "
                   "pf: pp: { torch = pp.torch.overrideAttrs (finalAttrs: previousAttrs: { version "
                   "= \"2.10.0\"; }); }; }; }) ]; }";
    }
    void overlays()
    {
        QFETCH(QByteArray, source);
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        std::vector<OverlayKind> kinds;
        for (const OverlayFact& overlay : facts.overlays)
            kinds.push_back(overlay.kind);
        QCOMPARE(kinds,
                 (std::vector<OverlayKind>{OverlayKind::CudaPackageSet, OverlayKind::MagmaPatch,
                                           OverlayKind::TorchUpgrade}));
        QCOMPARE(facts.overlays[0].detail, std::string("cudaPackages_13"));
        QCOMPARE(facts.overlays[1].detail, std::string("cuda-13.0-clockrate-fix.patch"));
        QCOMPARE(facts.overlays[2].detail, std::string("2.10.0"));
        QCOMPARE(facts.torchVersion->value, std::string("2.10.0"));
        QCOMPARE(facts.cudaPackageSet->value, std::string("cudaPackages_13"));
        QVERIFY(textAt(source, facts.overlays[0].range).find("final.cudaPackages_13") !=
                std::string::npos);
    }

    void oneOverlayDoingEverything()
    {
        const QByteArray source = "import <nixpkgs> { overlays = [ (final: prev: { cudaPackages = "
                                  "final.cudaPackages_12_9; "
                                  "magma = prev.magma.overrideAttrs (o: { patches = [ ./fix.patch "
                                  "]; }); }) (final: prev: "
                                  "{ unrelated = 1; }) ]; }";
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QCOMPARE(facts.overlays.size(), size_t(3));
        QCOMPARE(facts.overlays[0].kind, OverlayKind::CudaPackageSet);
        QCOMPARE(facts.overlays[1].kind, OverlayKind::MagmaPatch);
        QCOMPARE(facts.overlays[1].detail, std::string("fix.patch"));
        QCOMPARE(facts.overlays[2].kind, OverlayKind::Other);
        QCOMPARE(facts.overlays[0].range, facts.overlays[1].range); // the same function
    }

    void cpuFlags_data()
    {
        QTest::addColumn<QByteArray>("source");
        QTest::newRow("let list") << QByteArray(
            "let cpuFlags = [ \"-mavx2\" \"-mfma\" \"-mf16c\" ]; in { }");
        QTest::newRow("identifiers") << QByteArray(
            "let a = \"-mavx2\"; b = \"-mfma\"; in { cpuFlags = [ a b \"-mf16c\" ]; }");
        QTest::newRow("concatenation") << QByteArray(
            "let base = [ \"-mavx2\" ]; in { cpuFlags = base ++ [ \"-mfma\" \"-mf16c\" ]; }");
        QTest::newRow("lib.optionals")
            << QByteArray("{ lib }: { cpuFlags = [ \"-mavx2\" ] ++ lib.optionals true [ \"-mfma\" "
                          "\"-mf16c\" ]; }");
        QTest::newRow("rec set") << QByteArray(
            "rec { fma = \"-mfma\"; cpuFlags = [ \"-mavx2\" fma \"-mf16c\" ]; }");
        QTest::newRow("CXXFLAGS fallback") << QByteArray(
            "{ preConfigure = ''\n  export CXXFLAGS=\"$CXXFLAGS -mavx2 -mfma -mf16c\"\n''; }");
    }
    void cpuFlags()
    {
        QFETCH(QByteArray, source);
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QVERIFY(facts.cpuFlags);
        QCOMPARE(facts.cpuFlags->value, (Strings{"-mavx2", "-mfma", "-mf16c"}));
    }

    void torchCudaArchList_data()
    {
        QTest::addColumn<QByteArray>("source");
        QTest::addColumn<QString>("value");
        QTest::newRow("export literal")
            << QByteArray("{ preConfigure = ''\n  export TORCH_CUDA_ARCH_LIST=\"9.0\"\n''; }")
            << "9.0";
        QTest::newRow("export sm form")
            << QByteArray("{ preConfigure = \"export TORCH_CUDA_ARCH_LIST=sm_90; echo\"; }")
            << "sm_90";
        QTest::newRow("interpolated let")
            << QByteArray("let gpuArch = \"sm_90\"; in { preConfigure = ''\n  export "
                          "TORCH_CUDA_ARCH_LIST=\"${gpuArch}\"\n  export X=1\n''; }")
            << "sm_90";
        QTest::newRow("unquoted interpolation")
            << QByteArray("let gpuArchSM = \"9.0\"; in { preConfigure = \"export "
                          "TORCH_CUDA_ARCH_LIST=${gpuArchSM}\"; }")
            << "9.0";
        QTest::newRow("env attribute")
            << QByteArray("{ env.TORCH_CUDA_ARCH_LIST = \"9.0\"; }") << "9.0";
        QTest::newRow("attribute from let")
            << QByteArray("let sm = \"9.0\"; in { TORCH_CUDA_ARCH_LIST = sm; }") << "9.0";
        QTest::newRow("map over a let list")
            << QByteArray("{ lib }: let caps = [ \"8.9\" ]; in { preConfigure = ''\n  export "
                          "TORCH_CUDA_ARCH_LIST=\"${lib.concatStringsSep \";\" (map (c: c + "
                          "\"+PTX\") caps)}\"\n''; }")
            << "8.9+PTX";
        QTest::newRow("escapeShellArg")
            << QByteArray("{ lib }: let archs = \"8.6;9.0\"; in { preConfigure = \"export "
                          "TORCH_CUDA_ARCH_LIST=${lib.escapeShellArg archs}; echo\"; }")
            << "8.6;9.0";
    }

    void archEntriesKeepTheirBytes()
    {
        // Quoted by lib.escapeShellArg for the shell, each entry still maps to its literal.
        const QByteArray source = "{ lib }: let archs = \"8.6;9.0\"; in { preConfigure = "
                                  "\"export TORCH_CUDA_ARCH_LIST=${lib.escapeShellArg archs}\"; }";
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QCOMPARE(facts.archSinks.size(), size_t(2));
        QCOMPARE(facts.archSinks[0].value, std::string("8.6"));
        QCOMPARE(textAt(source, facts.archSinks[0].range), std::string("8.6"));
        QCOMPARE(textAt(source, facts.archSinks[1].range), std::string("9.0"));
        QCOMPARE(facts.archSinks[1].via, std::string("archs"));
        // Flags a library function builds from a list are read, and come through that list.
        const QByteArray flags =
            "{ lib }: let features = [ \"avx2\" \"fma\" ]; in { env.NIX_CFLAGS_COMPILE = "
            "lib.concatMapStringsSep \" \" (f: \"-m${f}\") features; }";
        const RecipeFacts built = extract(flags);
        REQUIRE_PARSED(built);
        QVERIFY(built.compilerFlags);
        QCOMPARE(built.compilerFlags->flags, (Strings{"-mavx2", "-mfma"}));
        QCOMPARE(built.compilerFlags->via, std::string("features"));
    }
    void torchCudaArchList()
    {
        QFETCH(QByteArray, source);
        QFETCH(QString, value);
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QCOMPARE(QString::fromStdString(archListOf(facts)), value);
    }

    void magmaDisabled_data()
    {
        QTest::addColumn<QByteArray>("source");
        QTest::addColumn<QString>("evidence");
        QTest::newRow("USE_MAGMA=OFF")
            << QByteArray("{ preConfigure = ''\n  export USE_MAGMA=OFF\n''; }") << "USE_MAGMA=OFF";
        QTest::newRow("cmake flag")
            << QByteArray("{ cmakeFlags = [ \"-DUSE_MAGMA=0\" ]; }") << "USE_MAGMA=0";
        QTest::newRow("filterMagma") << QByteArray("{ lib, old }: let filterMagma = lib.filter (p: "
                                                   "p.pname or \"\" != \"magma\"); in { "
                                                   "buildInputs = filterMagma old.buildInputs; }")
                                     << "filterMagma";
        QTest::newRow("env attribute")
            << QByteArray("{ env.USE_MAGMA = \"OFF\"; }") << "USE_MAGMA=OFF";
        QTest::newRow("cmakeBool")
            << QByteArray("{ lib }: { cmakeFlags = [ (lib.cmakeBool \"USE_MAGMA\" false) ]; }")
            << "lib.cmakeBool \"USE_MAGMA\" false";
    }
    void magmaDisabled()
    {
        QFETCH(QByteArray, source);
        QFETCH(QString, evidence);
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QVERIFY(!facts.magmaDisabled.empty());
        QCOMPARE(QString::fromStdString(facts.magmaDisabled.front().value), evidence);
    }

    void magmaEnabledIsNotDisabled()
    {
        const RecipeFacts facts = extract(
            "{ preConfigure = \"export USE_MAGMA=1\"; cmakeFlags = [ \"-DUSE_MAGMA=ON\" ]; }");
        REQUIRE_PARSED(facts);
        QVERIFY(facts.magmaDisabled.empty());
    }

    void cudaSupport_data()
    {
        QTest::addColumn<QByteArray>("source");
        QTest::addColumn<bool>("value");
        QTest::newRow("override") << QByteArray("{ t }: t.override { cudaSupport = true; }")
                                  << true;
        QTest::newRow("config") << QByteArray("import <nixpkgs> { config.cudaSupport = true; }")
                                << true;
        QTest::newRow("from let")
            << QByteArray("{ t }: let cuda = true; in t.override { cudaSupport = cuda; }") << true;
        QTest::newRow("USE_CUDA=1")
            << QByteArray("{ preConfigure = \"export USE_CUDA=1\"; }") << true;
        QTest::newRow("USE_CUDA=0")
            << QByteArray("{ preConfigure = \"export USE_CUDA=0\"; }") << false;
        QTest::newRow("false") << QByteArray("{ t }: t.override { cudaSupport = false; }") << false;
    }
    void cudaSupport()
    {
        QFETCH(QByteArray, source);
        QFETCH(bool, value);
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QVERIFY(facts.cudaSupport);
        QCOMPARE(facts.cudaSupport->value, value);
    }

    void cudaInputs()
    {
        const QByteArray gpu = "{ python3Packages, cudaPackages_12_8, lib }: "
                               "python3Packages.torch.overrideAttrs (o: { "
                               "buildInputs = o.buildInputs ++ [ cudaPackages_12_8.cudnn "
                               "cudaPackages_12_8.libcublas ]; "
                               "})";
        const RecipeFacts facts = extract(gpu);
        REQUIRE_PARSED(facts);
        QCOMPARE(facts.cudaPackageSet->value, std::string("cudaPackages_12_8"));
        QVERIFY(facts.cudaInputs.size() >= 3);
        // Seed 002's CPU template only filters CUDA out: no CUDA inputs there.
        const QByteArray cpu =
            "{ python3Packages, lib, openblas }: python3Packages.torch.overrideAttrs (o: { "
            "buildInputs = lib.filter (p: !(lib.hasPrefix \"cuda\" (p.pname or \"\"))) "
            "o.buildInputs "
            "++ [ openblas ]; })";
        const RecipeFacts cpuFacts = extract(cpu);
        REQUIRE_PARSED(cpuFacts);
        QVERIFY(cpuFacts.cudaInputs.empty());
    }

    void pname_data()
    {
        QTest::addColumn<QByteArray>("source");
        const QByteArray name = "pytorch210-python313-cuda13_0-sm90-avx512";
        QTest::newRow("literal") << "{ t }: t.overrideAttrs (o: { pname = \"" + name + "\"; })";
        QTest::newRow("interpolated") << QByteArray(
            "{ t }: let num = \"90\"; isa = \"avx512\"; in t.overrideAttrs (o: { pname = "
            "\"pytorch210-python313-cuda13_0-sm${num}-${isa}\"; })");
        QTest::newRow("inherit") << "{ t }: let pname = \"" + name +
                                        "\"; in t.overrideAttrs (o: { inherit pname; })";
        QTest::newRow("rec") << QByteArray(
            "{ t }: t.overrideAttrs (o: rec { sm = \"sm90\"; pname = "
            "\"pytorch210-python313-cuda13_0-${sm}-avx512\"; })");
        QTest::newRow("outer override wins")
            << "{ b }: (b { pname = \"torch\"; }).overrideAttrs (o: { "
               "pname = \"" +
                   name + "\"; })";
        QTest::newRow("concatenation") << QByteArray(
            "{ t }: let prefix = \"pytorch210-\"; in t.overrideAttrs (o: { pname = prefix + "
            "\"python313-cuda13_0-sm90-avx512\"; })");
    }
    void pname()
    {
        QFETCH(QByteArray, source);
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QVERIFY(facts.pname);
        QCOMPARE(facts.pname->value, std::string("pytorch210-python313-cuda13_0-sm90-avx512"));
    }

    void metaBesidePassthru()
    {
        const QByteArray source =
            "{ t, lib }: let gpuArch = \"sm_90\"; in t.overrideAttrs (oldAttrs: { passthru = "
            "oldAttrs.passthru // { inherit gpuArch; blasProvider = \"openblas\"; }; meta = "
            "oldAttrs.meta // { description = \"PyTorch for H100\"; longDescription = ''\n  Custom "
            "build:\n  - GPU: H100\n''; platforms = [ \"x86_64-linux\" ]; }; })";
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QCOMPARE(facts.description->value, std::string("PyTorch for H100"));
        QCOMPARE(facts.longDescription->value, std::string("Custom build:\n- GPU: H100\n"));
    }

    void torchVersion_data()
    {
        QTest::addColumn<QByteArray>("source");
        QTest::newRow("top-level overrideAttrs")
            << QByteArray("{ t }: t.overrideAttrs (o: { version = \"2.10.0\"; })");
        QTest::newRow("finalAttrs")
            << QByteArray("{ t }: t.overrideAttrs (finalAttrs: prev: { version = \"2.10.0\"; })");
        QTest::newRow("buildPythonPackage rec") << QByteArray(
            "{ buildPythonPackage }: buildPythonPackage rec { pname = \"torch\"; version = "
            "\"2.10.0\"; }");
        QTest::newRow("from let") << QByteArray(
            "{ t }: let v = \"2.10.0\"; in t.overrideAttrs (o: { version = v; })");
        QTest::newRow("overlay upgrade")
            << QByteArray("import <nixpkgs> { overlays = [ (f: p: { python3Packages = "
                          "p.python3Packages.override { "
                          "overrides = pf: pp: { torch = pp.torch.overrideAttrs (o: { version = "
                          "\"2.10.0\"; }); }; "
                          "}; }) ]; }");
    }
    void torchVersion()
    {
        QFETCH(QByteArray, source);
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QVERIFY(facts.torchVersion);
        QCOMPARE(facts.torchVersion->value, std::string("2.10.0"));
    }

    void patterns_data()
    {
        QTest::addColumn<QByteArray>("source");
        QTest::addColumn<int>("pattern");
        const QByteArray fetch = "builtins.fetchTarball { url = "
                                 "\"https://github.com/NixOS/nixpkgs/archive/" +
                                 QByteArray(pin) + ".tar.gz\"; }";
        QTest::newRow("a: pinned with overlays")
            << "let p = import (" + fetch +
                   ") { overlays = [ (f: prev: { cudaPackages = f.cudaPackages_13; }) ]; }; in "
                   "p.python3Packages.torch"
            << int(PatternKind::PinnedOverlays);
        QTest::newRow("b: pinned plain")
            << "let p = import (" + fetch + ") { }; in p.python3Packages.pytorch"
            << int(PatternKind::PinnedPlain);
        QTest::newRow("c: callPackage function")
            << QByteArray("{ python3Packages, lib, cudaPackages }: "
                          "python3Packages.torch.overrideAttrs (o: { })")
            << int(PatternKind::CallPackage);
        QTest::newRow("d: from scratch")
            << QByteArray("{ stdenv, python3Packages, cudaPackages_13 }: "
                          "python3Packages.buildPythonPackage rec { "
                          "pname = \"torch\"; version = \"2.9.0\"; }")
            << int(PatternKind::FromScratch);
        QTest::newRow("d: mkDerivation") << QByteArray("{ pkgs }: pkgs.stdenv.mkDerivation { pname "
                                                       "= \"pytorch\"; version = \"2.9.0\"; }")
                                         << int(PatternKind::FromScratch);
        QTest::newRow("e: wrapper")
            << QByteArray(
                   "{ callPackage }: callPackage ./pytorch-common.nix { gpuArchSM = \"9.0\"; }")
            << int(PatternKind::Wrapper);
        QTest::newRow("unknown") << QByteArray("{ x = 1; }") << int(PatternKind::Unknown);
    }
    void patterns()
    {
        QFETCH(QByteArray, source);
        QFETCH(int, pattern);
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QCOMPARE(int(facts.pattern), pattern);
        if (facts.pattern == PatternKind::Wrapper)
            QCOMPARE(facts.wrappedFile->value, std::string("./pytorch-common.nix"));
    }

    void seed002TemplatesFilledIn()
    {
        // Seed 002's GPU template with its placeholders substituted (sm_120, AVX-512).
        const QByteArray source =
            R"nix(# PyTorch optimized for NVIDIA Blackwell (RTX 5090) + AVX-512
{ python3Packages
, lib
, config
, cudaPackages
, addDriverRunpath
, openblas
}:

let
  gpuArch = "sm_120";
  cpuFlags = [
    "-mavx512f"    "-mavx512dq"   "-mavx512vl"   "-mavx512bw"   "-mfma"
  ];
in python3Packages.pytorch.overrideAttrs (oldAttrs: {
  pname = "pytorch-python313-cuda12_8-sm120-avx512";
  passthru = oldAttrs.passthru // {
    inherit gpuArch;
  };
  buildInputs = oldAttrs.buildInputs ++ [
    cudaPackages.cuda_cudart
    cudaPackages.libcublas
    (openblas.override {
      blas64 = false;
      singleThreaded = false;
    })
  ];
  nativeBuildInputs = oldAttrs.nativeBuildInputs ++ [ addDriverRunpath ];
  preConfigure = (oldAttrs.preConfigure or "") + ''
    export TORCH_CUDA_ARCH_LIST="${gpuArch}"
    export TORCH_NVCC_FLAGS="-Xfatbin -compress-all"
    export CXXFLAGS="$CXXFLAGS ${lib.concatStringsSep " " cpuFlags}"
    export USE_CUBLAS=1
    export USE_CUDA=1
    export CMAKE_CUDA_ARCHITECTURES="${lib.removePrefix "sm_" gpuArch}"
  '';
  meta = oldAttrs.meta // {
    description = "PyTorch optimized for NVIDIA Blackwell (RTX 5090) with AVX-512";
    platforms = [ "x86_64-linux" ];
  };
})
)nix";
        const RecipeFacts facts =
            extract(source, ".flox/pkgs/pytorch-python313-cuda12_8-sm120-avx512.nix");
        REQUIRE_PARSED(facts);
        QCOMPARE(facts.pattern, PatternKind::CallPackage);
        QCOMPARE(facts.torchAttribute->value, std::string("pytorch"));
        QCOMPARE(archListOf(facts), std::string("sm_120"));
        QCOMPARE(facts.cpuFlags->value.size(), size_t(5));
        QVERIFY(facts.cudaSupport && facts.cudaSupport->value);
        QCOMPARE(facts.cudaPackageSet->value, std::string("cudaPackages"));
        QCOMPARE(facts.platforms->value, Strings{"x86_64-linux"});
        QCOMPARE(facts.pname->value, std::string("pytorch-python313-cuda12_8-sm120-avx512"));
        QVERIFY(facts.pins.empty());
    }

    void deepAndCyclicBindingsTerminate()
    {
        // rec and let cycles must not hang resolution; deep chains resolve.
        const RecipeFacts cyclic =
            extract("rec { a = b; b = a; gpuTargets = [ a ]; pname = \"${pname}\"; }");
        REQUIRE_PARSED(cyclic);
        QVERIFY(cyclic.archSinks.empty());
        QByteArray chain = "let v0 = \"9.0\";";
        for (int i = 1; i < 30; ++i)
            chain += " v" + QByteArray::number(i) + " = v" + QByteArray::number(i - 1) + ";";
        chain += " in { gpuTargets = [ v29 ]; }";
        const RecipeFacts deep = extract(chain);
        REQUIRE_PARSED(deep);
        QCOMPARE(deep.archSinks.size(), size_t(1));
        QCOMPARE(deep.archSinks.front().value, std::string("9.0"));
    }

    void exponentialValuesStayBounded()
    {
        // Each level interpolates the previous twice: 2^40 bytes if resolved naively.
        QByteArray source = "let l0 = \"x\";";
        for (int i = 1; i <= 40; ++i)
            source += " l" + QByteArray::number(i) + " = \"${l" + QByteArray::number(i - 1) +
                      "}${l" + QByteArray::number(i - 1) + "}\";";
        source += " in { pname = l40; meta.description = l3; cpuFlags = [ l40 l2 ]; }";
        const RecipeFacts facts = extract(source);
        REQUIRE_PARSED(facts);
        QVERIFY(!facts.pname); // too large to be a value anyone means
        QCOMPARE(facts.description->value, std::string(8, 'x'));
    }

    void mutatedRecipesNeverCrash()
    {
        QFile file(QStringLiteral(
            RG_FIXTURES_DIR
            "/seed001-start/.flox/pkgs/pytorch-python313-cuda13_0-sm120-avx512.nix"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray original = file.readAll();
        int parsed = 0;
        for (int i = 0; i < original.size(); i += 3) {
            // Truncated, and with one byte replaced by a bracket or quote.
            const RecipeFacts truncated = extract(original.left(i));
            parsed += truncated.problem == FileProblem::None ? 1 : 0;
            QByteArray mutated = original;
            mutated[i] = "{}[]();\"'$="[i % 12];
            const RecipeFacts facts = extract(mutated);
            if (facts.problem == FileProblem::SyntaxError)
                QVERIFY(facts.parseError && facts.parseError->line >= 1);
        }
        QVERIFY(parsed < original.size() / 3); // most prefixes are not valid Nix
    }

    void nixCorpusNeverCrashes()
    {
        // Helper A's differential corpus: every construct of the language, valid and not.
        QDir corpus(QStringLiteral(RG_SOURCE_DIR "/tests/nix/corpus"));
        int files = 0;
        for (const QFileInfo& info : corpus.entryInfoList({"*.nix"}, QDir::Files)) {
            QFile file(info.filePath());
            QVERIFY(file.open(QIODevice::ReadOnly));
            const RecipeFacts facts = extract(file.readAll(), info.fileName().toStdString());
            QVERIFY(facts.problem == FileProblem::None ||
                    facts.problem == FileProblem::SyntaxError ||
                    facts.problem == FileProblem::NotUtf8);
            ++files;
        }
        QVERIFY2(files >= 100, qPrintable(corpus.path())); // the corpus is part of the tree
    }

    void syntaxErrorIsAProblemNotACrash()
    {
        const RecipeFacts facts = extract("{ a = 1;\n b = ; }");
        QCOMPARE(facts.problem, FileProblem::SyntaxError);
        QVERIFY(facts.parseError);
        QCOMPARE(facts.parseError->line, 2u);
    }
};

QTEST_GUILESS_MAIN(TestRecipeFacts)
#include "tst_recipefacts.moc"
