// Which hashes Nix refuses, judged by NixHash and by the real Nix side by side: `nix hash
// to-base16` parses a hash as fetchTarball's sha256 and fetchurl's hash do (Hash::parseAny), and
// needs no network, so every row of the table is also a question to Nix.

#include "nix/nixhash.h"

#include <QProcess>
#include <QStandardPaths>
#include <QTest>

using rg::nix::NixHash;

class TestNixHash : public QObject
{
    Q_OBJECT

private:
    QString m_nix;

    // Whether Nix reads `hash` as the value of `attribute`: typed attributes give the type,
    // untyped ones (hash, narHash) take it from the prefix.
    bool nixAccepts(const QString& attribute, const QString& hash) const
    {
        QStringList arguments = {QStringLiteral("hash"), QStringLiteral("to-base16")};
        if (attribute.startsWith(QLatin1String("sha")) || attribute == QLatin1String("md5"))
            arguments << QStringLiteral("--type") << attribute;
        arguments << hash;
        QProcess nix;
        nix.start(m_nix, arguments);
        if (!nix.waitForFinished(60000))
            qFatal("nix hash did not finish");
        return nix.exitStatus() == QProcess::NormalExit && nix.exitCode() == 0;
    }

private slots:
    void initTestCase()
    {
        m_nix = QStandardPaths::findExecutable(QStringLiteral("nix"));
        QVERIFY2(!m_nix.isEmpty(), "nix is required (package nix-bin)");
        qputenv("NIX_CONFIG", "build-users-group =\nsandbox = false\nsubstituters =\n"
                              "experimental-features = nix-command");
    }

    void agreesWithNix_data()
    {
        QTest::addColumn<QString>("attribute");
        QTest::addColumn<QString>("hash");
        QTest::addColumn<bool>("valid");
        const QString b32 = QStringLiteral("4nc4jm66hc042vkhsypkddy65i76j9fcinmyd02pdihi1p0jh5m");
        const QString hex =
            QStringLiteral("b540096e8830b62b40f3d546e692342716e35b9bd76b38b720804163aa24cc92");
        const QString b64 = QStringLiteral("i9InbxD5HtfonB/GyF9nQhFmok3jZ73RxGcIciGBGvU=");
        // nix base-32: 52 digits hold 260 bits, so the first is 0 or 1.
        QTest::newRow("base32 first digit 0") << "sha256"
                                              << "0" + b32 << true;
        QTest::newRow("base32 first digit 1") << "sha256"
                                              << "1" + b32 << true;
        QTest::newRow("base32 first digit 2") << "sha256"
                                              << "2" + b32 << false;
        QTest::newRow("base32 first digit y (the demo's)") << "sha256"
                                                           << "y" + b32 << false;
        QTest::newRow("base32 first digit 9") << "sha256"
                                              << "9" + b32 << false;
        QTest::newRow("base32 letter e") << "sha256"
                                         << "1e" + b32.mid(1) << false;
        QTest::newRow("base32 letter u") << "sha256"
                                         << "1" + b32.left(50) + "u" << false;
        QTest::newRow("base32 51 digits") << "sha256" << b32 << false;
        QTest::newRow("base32 prefixed") << "sha256"
                                         << "sha256:1" + b32 << true;
        QTest::newRow("base32 prefixed, bad") << "sha256"
                                              << "sha256:y" + b32 << false;
        QTest::newRow("base32 in hash, prefixed") << "hash"
                                                  << "sha256:0" + b32 << true;
        QTest::newRow("base32 in hash, prefixed, bad") << "hash"
                                                       << "sha256:y" + b32 << false;
        // base-16: 64 digits, either case.
        QTest::newRow("hex") << "sha256" << hex << true;
        QTest::newRow("hex upper case") << "sha256" << hex.toUpper() << true;
        QTest::newRow("hex 63") << "sha256" << hex.left(63) << false;
        QTest::newRow("hex with g") << "sha256" << hex.left(63) + "g" << false;
        // SRI and plain base-64: 44 characters with padding; Nix 2.8 also reads it unpadded.
        QTest::newRow("SRI") << "hash"
                             << "sha256-" + b64 << true;
        QTest::newRow("SRI in sha256") << "sha256"
                                       << "sha256-" + b64 << true;
        QTest::newRow("SRI unpadded") << "hash"
                                      << "sha256-" + b64.chopped(1) << true;
        QTest::newRow("SRI short") << "hash"
                                   << "sha256-" + b64.left(42) + "=" << false;
        QTest::newRow("SRI long") << "hash"
                                  << "sha256-" + b64.chopped(1) + "AAAA" << false;
        QTest::newRow("SRI bad character") << "hash"
                                           << "sha256-" + b64.left(40) + "!vU=" << false;
        QTest::newRow("SRI padding inside") << "hash"
                                            << "sha256-" + b64.left(41) + "=vU" << false;
        QTest::newRow("SRI unknown algorithm") << "hash"
                                               << "sha384-" + b64 << false;
        QTest::newRow("SRI of another type") << "sha256"
                                             << "sha1-" + b64 << false;
        QTest::newRow("plain base-64") << "sha256" << b64 << true;
        QTest::newRow("SRI sha512") << "hash"
                                    << "sha512-" + QString(86, QLatin1Char('A')) + "==" << true;
        QTest::newRow("SRI sha1") << "hash"
                                  << "sha1-" + QString(27, QLatin1Char('A')) + "=" << true;
        // Other types: sha1 has 32 base-32 digits (160 bits, no spare), sha512 103 (515 bits,
        // first digit below 4), md5 26 (130 bits, first digit below 8).
        QTest::newRow("sha1 base32 y") << "sha1"
                                       << "y" + b32.left(31) << true;
        QTest::newRow("sha1 base32 short") << "sha1"
                                           << "1" + b32.left(30) << false;
        QTest::newRow("sha1 hex") << "sha1" << hex.left(40) << true;
        QTest::newRow("sha512 base32 3") << "sha512" << QString(103, QLatin1Char('3')) << true;
        QTest::newRow("sha512 base32 4") << "sha512"
                                         << "4" + QString(102, QLatin1Char('3')) << false;
        QTest::newRow("sha512 hex") << "sha512" << hex + hex << true;
        QTest::newRow("md5 base32 7") << "md5"
                                      << "7" + b32.left(25) << true;
        QTest::newRow("md5 base32 8") << "md5"
                                      << "8" + b32.left(25) << false;
    }

    void agreesWithNix()
    {
        QFETCH(QString, attribute);
        QFETCH(QString, hash);
        QFETCH(bool, valid);
        const std::string problem = NixHash::problem(attribute.toStdString(), hash.toStdString());
        QCOMPARE(nixAccepts(attribute, hash), valid);
        QVERIFY2(problem.empty() == valid, problem.c_str());
    }

    // What the rule's message says about the demo's old hash: why Nix refuses it.
    void explainsTheFirstDigit()
    {
        const std::string problem =
            NixHash::problem("sha256", "y4nc4jm66hc042vkhsypkddy65i76j9fcinmyd02pdihi1p0jh5m");
        QVERIFY2(problem.find("260 bits") != std::string::npos, problem.c_str());
        QVERIFY2(problem.find("at most 1") != std::string::npos, problem.c_str());
    }

    // What only the context can tell is not judged: the empty hash Nix fills in with a fake
    // one, an untyped hash without prefix, a binding that holds no hash.
    void leavesUndecidableHashesAlone()
    {
        QVERIFY(NixHash::problem("sha256", "").empty());
        QVERIFY(NixHash::problem("hash", "y4nc4jm66hc042vkhsypkddy65i76j9fcinmyd02pdihi1p0jh5m")
                    .empty());
        QVERIFY(NixHash::problem("rev", "y4nc").empty());
    }

    void decodesAsNixDoes()
    {
        const auto digest =
            NixHash::fromBase32("14nc4jm66hc042vkhsypkddy65i76j9fcinmyd02pdihi1p0jh5m", 32);
        QVERIFY(digest);
        QByteArray bytes(reinterpret_cast<const char*>(digest->data()), 32);
        // `nix hash to-base16 --type sha256 14nc4…` prints this.
        QCOMPARE(bytes.toHex(),
                 QByteArray("b540096e8830b62b40f3d546e692342716e35b9bd76b38b720804163aa24cc92"));
        QVERIFY(!NixHash::fromBase32("y4nc4jm66hc042vkhsypkddy65i76j9fcinmyd02pdihi1p0jh5m", 32));
    }
};

QTEST_GUILESS_MAIN(TestNixHash)
#include "tst_nixhash.moc"
