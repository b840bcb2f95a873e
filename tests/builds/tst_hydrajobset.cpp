// recipegrid export-ci --format hydra: release.nix that real Nix evaluates to the variants'
// own derivations, and the jobset spec that points Hydra at it.

#include "../cli/recipegridrun.h"
#include "buildfixture.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using namespace rg;

namespace {

// Runs a Nix tool; its standard output, trimmed, or "" with the failure in `error`.
QString nix(const QString& program, const QStringList& arguments, QString* error)
{
    QProcess p;
    p.start(program, arguments);
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
        *error = QString::fromUtf8(p.readAllStandardError());
        return {};
    }
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

} // namespace

class TestHydraJobset : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { test::configureNix(); }

    // Every recipe is a job, named as the variant, and each job is the very derivation the
    // recipe file is; the spec points at release.nix in the repository on its branch.
    void releaseNixHoldsEveryVariantAsItsOwnDerivation()
    {
        QTemporaryDir dir;
        const QString repo = dir.filePath(QStringLiteral("repo"));
        QVERIFY(test::copyFixtureRepo(repo));
        const test::Run run =
            test::runRecipegrid({QStringLiteral("export-ci"), repo, QStringLiteral("--format"),
                                 QStringLiteral("hydra"), QStringLiteral("--repo-url"),
                                 QStringLiteral("https://git.example/build-pytorch.git")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.out.contains("(6 variant(s), branch main)"), run.out.constData());

        QString error;
        const QString names =
            nix(QStringLiteral("nix-instantiate"),
                {QStringLiteral("--eval"), QStringLiteral("--strict"), QStringLiteral("--json"),
                 QStringLiteral("--expr"),
                 QStringLiteral("builtins.attrNames (import %1/release.nix { })").arg(repo)},
                &error);
        QVERIFY2(!names.isEmpty(), qPrintable(error));
        QStringList recipes = QDir(repo + QStringLiteral("/.flox/pkgs"))
                                  .entryList({QStringLiteral("*.nix")}, QDir::Files, QDir::Name);
        for (QString& r : recipes)
            r.chop(4);
        QStringList jobs;
        for (const auto& n : nlohmann::json::parse(names.toStdString()))
            jobs << QString::fromStdString(n.get<std::string>());
        QCOMPARE(jobs, recipes);

        const QString variant = QStringLiteral("pytorch-python313-cpu-avx2");
        const QString job =
            nix(QStringLiteral("nix-instantiate"),
                {repo + QStringLiteral("/release.nix"), QStringLiteral("-A"), variant}, &error);
        QVERIFY2(job.endsWith(QLatin1String(".drv")), qPrintable(error));
        const QString direct =
            nix(QStringLiteral("nix-instantiate"),
                {repo + QStringLiteral("/.flox/pkgs/") + variant + QStringLiteral(".nix")}, &error);
        QCOMPARE(job, direct);

        const auto spec = nlohmann::json::parse(
            test::readFile(repo + QStringLiteral("/hydra-jobset.json")).toStdString());
        QCOMPARE(spec["nixexprinput"].get<std::string>(), std::string("src"));
        QCOMPARE(spec["nixexprpath"].get<std::string>(), std::string("release.nix"));
        QCOMPARE(spec["inputs"]["src"]["type"].get<std::string>(), std::string("git"));
        QCOMPARE(spec["inputs"]["src"]["value"].get<std::string>(),
                 std::string("https://git.example/build-pytorch.git main"));
        QCOMPARE(spec["enabled"].get<int>(), 1);
    }

    // A recipe that is a function of a package set is called with the jobset's nixpkgs.
    void aFunctionRecipeIsCalledWithNixpkgs()
    {
        QTemporaryDir dir;
        const QString repo = dir.filePath(QStringLiteral("repo"));
        QVERIFY(QDir().mkpath(repo + QStringLiteral("/.flox/pkgs")));
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("nixpkgs"))));
        // A stand-in nixpkgs whose callPackage passes `greeting`.
        QFile pkgs(dir.filePath(QStringLiteral("nixpkgs/default.nix")));
        QVERIFY(pkgs.open(QIODevice::WriteOnly));
        pkgs.write(
            "{ ... }: { callPackage = f: args: import f ({ greeting = \"hi\"; } // args); }\n");
        pkgs.close();
        QFile recipe(repo + QStringLiteral("/.flox/pkgs/hello.nix"));
        QVERIFY(recipe.open(QIODevice::WriteOnly));
        recipe.write("{ greeting }: builtins.derivation { name = greeting; system = "
                     "builtins.currentSystem; builder = \"/bin/sh\"; }\n");
        recipe.close();
        const test::Run run =
            test::runRecipegrid({QStringLiteral("export-ci"), repo, QStringLiteral("--format"),
                                 QStringLiteral("hydra")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QString error;
        const QString name =
            nix(QStringLiteral("nix-instantiate"),
                {QStringLiteral("--eval"), QStringLiteral("--expr"),
                 QStringLiteral("(import %1/release.nix { nixpkgs = %2; }).hello.name")
                     .arg(repo, dir.filePath(QStringLiteral("nixpkgs")))},
                &error);
        QCOMPARE(name, QStringLiteral("\"hi\""));
        const auto spec = nlohmann::json::parse(
            test::readFile(repo + QStringLiteral("/hydra-jobset.json")).toStdString());
        QCOMPARE(spec["inputs"]["src"]["value"].get<std::string>(),
                 QStringLiteral("%1 main").arg(QFileInfo(repo).absoluteFilePath()).toStdString());
    }

    void refusesWhatReleaseNixCannotSay()
    {
        QTemporaryDir dir;
        const QString repo = dir.filePath(QStringLiteral("repo"));
        QVERIFY(test::copyFixtureRepo(repo));
        QVERIFY(QDir(repo).rename(QStringLiteral(".flox/pkgs"), QStringLiteral("my recipes")));
        const test::Run run = test::runRecipegrid(
            {QStringLiteral("export-ci"), repo, QStringLiteral("--format"), QStringLiteral("hydra"),
             QStringLiteral("--recipe-dir"), QStringLiteral("my recipes")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("not 'my recipes'"), run.err.constData());
        QVERIFY(!QFileInfo::exists(repo + QStringLiteral("/release.nix")));
        const test::Run unknown =
            test::runRecipegrid({QStringLiteral("export-ci"), repo, QStringLiteral("--format"),
                                 QStringLiteral("gitlab")});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY(unknown.err.contains("unknown format 'gitlab' (github, hydra)"));
    }
};

QTEST_GUILESS_MAIN(TestHydraJobset)
#include "tst_hydrajobset.moc"
