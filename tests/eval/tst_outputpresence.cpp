// Whether a variant's output is built already, asked of the real Nix's store queries: a
// derivation built into the store is built; one copied to a file:// binary cache and deleted
// from the store is in that cache; one only instantiated needs a build; a cache nothing listens
// at leaves what it was asked about unknown, with Nix's words, and the answers of the store
// stand. Each run builds derivations of its own (a nonce in the builder), so no earlier run's
// output answers for them.

#include "../loopback.h"
#include "eval/outputpresence.h"

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

using namespace rg;

namespace {

QString run(const QString& program, const QStringList& arguments, int* exitCode = nullptr)
{
    QProcess process;
    process.start(program, arguments);
    process.waitForFinished(120000);
    if (exitCode)
        *exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return QString::fromUtf8(process.readAllStandardOutput()).trimmed();
}

// A derivation of its own, written to `dir`: its outPath, built (nix-build) when asked.
QString derivation(const QTemporaryDir& dir, const QString& name, bool build)
{
    const QString file = dir.filePath(name + QStringLiteral(".nix"));
    QFile out(file);
    if (!out.open(QIODevice::WriteOnly))
        return {};
    out.write(QStringLiteral("derivation { name = \"%1\"; system = builtins.currentSystem; "
                             "builder = \"/bin/sh\"; args = [ \"-c\" \"echo %2 > $out\" ]; }\n")
                  .arg(name, QUuid::createUuid().toString(QUuid::WithoutBraces))
                  .toUtf8());
    out.close();
    if (build)
        return run(QStringLiteral("nix-build"), {file, QStringLiteral("--no-out-link")});
    return run(QStringLiteral("nix-instantiate"),
               {QStringLiteral("--eval"), QStringLiteral("--expr"),
                QStringLiteral("(import %1).outPath").arg(file)})
        .remove(QLatin1Char('"'));
}

} // namespace

class TestOutputPresence : public QObject
{
    Q_OBJECT

    NixInstallation m_nix;

private slots:
    void initTestCase()
    {
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("nix-build")).isEmpty(),
                 "these tests ask the real Nix: nix-build must be on PATH");
        m_nix = NixInstallation::find();
        QVERIFY2(m_nix.usable(), m_nix.error.c_str());
    }

    void builtCachedAndMissing()
    {
        QTemporaryDir dir;
        const QString built = derivation(dir, QStringLiteral("rg-built"), true);
        const QString cached = derivation(dir, QStringLiteral("rg-cached"), true);
        const QString missing = derivation(dir, QStringLiteral("rg-missing"), false);
        QVERIFY2(built.startsWith(QStringLiteral("/nix/store/")), qPrintable(built));
        QVERIFY2(cached.startsWith(QStringLiteral("/nix/store/")), qPrintable(cached));
        QVERIFY2(missing.startsWith(QStringLiteral("/nix/store/")), qPrintable(missing));
        const std::string cache = "file://" + dir.filePath(QStringLiteral("cache")).toStdString();
        int exitCode = 0;
        run(QStringLiteral("nix"),
            {QStringLiteral("copy"), QStringLiteral("--to"), QString::fromStdString(cache), cached},
            &exitCode);
        QCOMPARE(exitCode, 0);
        run(QStringLiteral("nix-store"), {QStringLiteral("--delete"), cached}, &exitCode);
        QCOMPARE(exitCode, 0);
        QVERIFY(!QFileInfo::exists(cached));

        const std::vector<std::string> paths = {built.toStdString(), cached.toStdString(),
                                                missing.toStdString(), ""};
        // Without the cache, what it holds needs a build like anything never built.
        std::vector<OutputState> states = OutputPresence::of(m_nix, "", {}, paths);
        QCOMPARE(states.size(), size_t(4));
        QCOMPARE(states[0].label(), std::string("built"));
        QCOMPARE(states[1].label(), std::string("needs build"));
        QCOMPARE(states[2].label(), std::string("needs build"));
        QCOMPARE(states[3].label(), std::string("unknown"));
        QCOMPARE(states[3].error, std::string("not evaluated"));

        states = OutputPresence::of(m_nix, "", {cache}, paths);
        QCOMPARE(states[0].label(), std::string("built")); // the store is asked first
        QCOMPARE(states[1].where, OutputState::Where::Cached);
        QCOMPARE(states[1].label(), "in cache " + cache);
        QCOMPARE(states[2].id(), std::string("missing"));

        // A cache that cannot be reached: its answers are unknown, the store's stand.
        const std::string down = "http://127.0.0.1:" + std::to_string(test::closedLoopbackPort());
        states = OutputPresence::of(m_nix, "", {down, cache}, paths);
        QCOMPARE(states[0].label(), std::string("built"));
        QCOMPARE(states[1].where, OutputState::Where::Cached); // the next cache has it
        QCOMPARE(states[2].where, OutputState::Where::Unknown);
        QVERIFY2(states[2].error.find("unable to download") != std::string::npos,
                 states[2].error.c_str());
        QVERIFY2(states[2].error.starts_with("error:"), states[2].error.c_str());
    }

    void withoutNixNothingIsKnown()
    {
        NixInstallation none;
        none.error = "nix-instantiate was not found on PATH";
        const std::vector<OutputState> states =
            OutputPresence::of(none, "", {}, {"/nix/store/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-x"});
        QCOMPARE(states.front().where, OutputState::Where::Unknown);
        QCOMPARE(states.front().error, none.error);
    }
};

QTEST_GUILESS_MAIN(TestOutputPresence)
#include "tst_outputpresence.moc"
