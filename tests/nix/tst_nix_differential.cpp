// Differential test against the real parser: every case is given to `nix-instantiate --parse`
// (Nix 2.8 on Debian 12, 2.26 on Debian 13) and to SyntaxTree. Both must accept or both reject;
// where Nix accepts, our toNixParseNotation() must print what Nix prints — the same text, up to
// how a string literal spells its characters (Nix 2.8 prints "\$" where 2.26 prints "$"); where
// Nix rejects, the error must be at the same line:column and of the same kind.
//
// Cases: the hand-written corpus in tests/nix/corpus, every *.nix under tests/fixtures and
// resources/demo (globbed at run time), and generated recipes.

#include "nix/syntaxtree.h"
#include "recipegenerator.h"

#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace rg::nix;

namespace {

struct NixVerdict
{
    bool accepted = false;
    QString output;  // --parse output without the final newline
    QString message; // first line of the error, without "error: "
    int line = 0;
    int column = 0;
};

struct Case
{
    QString name;
    QString path;
    bool exact = true; // false: Nix's heap order of `let` bindings/formals may differ
    NixVerdict nix;
};

// Nix 2.8 prints `let` bindings and formals in the heap order of its interned names, which is
// not a property of the file (see symboltable.h). For cases not written by hand, compare
// those lists as sets: sort the items of every "(let …; in" and "({ …, … }" group.
QString canonicalOrder(const QString& text)
{
    QString out;
    int i = 0;
    const int n = int(text.size());
    // Reads one item up to a top-level separator (or the group's end); returns it canonical.
    auto readItem = [&](int& j, const QStringList& ends) {
        int depth = 0;
        const int start = j;
        while (j < n) {
            const QChar c = text[j];
            if (c == '"') {
                ++j;
                while (j < n && text[j] != '"') {
                    if (text[j] == '\\')
                        ++j;
                    ++j;
                }
                ++j;
                continue;
            }
            if (depth == 0)
                for (const QString& end : ends)
                    if (text.mid(j, end.size()) == end)
                        return canonicalOrder(text.mid(start, j - start));
            if (c == '(' || c == '[' || c == '{')
                ++depth;
            else if (c == ')' || c == ']' || c == '}')
                --depth;
            ++j;
        }
        return canonicalOrder(text.mid(start, j - start));
    };
    while (i < n) {
        if (text[i] == '"') {
            const int start = i++;
            while (i < n && text[i] != '"') {
                if (text[i] == '\\')
                    ++i;
                ++i;
            }
            ++i;
            out += text.mid(start, i - start);
            continue;
        }
        if (text.mid(i, 5) == "(let ") {
            int j = i + 5;
            QStringList items;
            while (j < n && text.mid(j, 3) != "in ") {
                items << readItem(j, {"; "});
                j += 2;
            }
            items.sort();
            out += "(let " + (items.isEmpty() ? QString() : items.join("; ") + "; ");
            i = j;
            continue;
        }
        // "({ a, b }: …" is formals; "({ a = 1; } // x)" a parenthesised set, which the
        // branch below sorts: the first item's separator tells them apart.
        int probe = i + 3;
        if (text.mid(i, 3) == "({ ")
            readItem(probe, {", ", " }", "; "});
        if (text.mid(i, 3) == "({ " && text.mid(probe, 2) != "; ") {
            int j = i + 3;
            QStringList items;
            while (j < n && text.mid(j, 2) != " }" && text.mid(j, 1) != "}") {
                items << readItem(j, {", ", " }"});
                if (text.mid(j, 2) == ", ")
                    j += 2;
            }
            items.sort();
            out += "({ " + items.join(", ");
            i = j;
            continue;
        }
        // An attribute set "{ a = 1; b = 2; }" (formals were taken above).
        if (text.mid(i, 2) == "{ ") {
            int j = i + 2;
            QStringList items;
            while (j < n && text[j] != '}') {
                items << readItem(j, {"; "});
                j += 2;
            }
            items.sort();
            out += "{ " + (items.isEmpty() ? QString() : items.join("; ") + "; ");
            i = j;
            continue;
        }
        out += text[i++];
    }
    return out;
}

// Printers of different Nix versions escape different characters in string literals (2.8: every
// `$`; 2.26: only a `$` before `{`), so each literal is decoded to the characters it means and
// written again with one escaping rule; everything outside literals is kept as it is. Two texts
// are equal afterwards exactly when they print the same expression with the same string values.
QString decodedStrings(const QString& text)
{
    QString out;
    int i = 0;
    const int n = int(text.size());
    while (i < n) {
        if (text[i] != '"') {
            out += text[i++];
            continue;
        }
        QString value;
        ++i;
        while (i < n && text[i] != '"') {
            if (text[i] == '\\' && i + 1 < n) {
                const QChar e = text[i + 1];
                value += e == 'n'   ? QChar('\n')
                         : e == 'r' ? QChar('\r')
                         : e == 't' ? QChar('\t')
                                    : e;
                i += 2;
                continue;
            }
            value += text[i++];
        }
        ++i;
        out += '"';
        for (const QChar c : value) {
            if (c == '\n')
                out += QLatin1String("\\n");
            else if (c == '\r')
                out += QLatin1String("\\r");
            else if (c == '\t')
                out += QLatin1String("\\t");
            else if (c == '"' || c == '\\' || c == '$')
                out += QLatin1Char('\\') + QString(c);
            else
                out += c;
        }
        out += '"';
    }
    return out;
}

// What Nix 2.8 and later versions print differently for the same expression, spelled one way:
// string escapes (decodedStrings), `inherit a b;` (2.26) as `inherit a; inherit b;` (2.8 writes
// one per name, in attribute sets as `inherit a ;`), `inherit (e) a;` (2.26) as `a = (e).a;`
// (2.8), the empty string 2.8 keeps in front of an indented string's first interpolation, and
// quotes around an attribute name that needs none.
QString sameMeaning(const QString& printed)
{
    const QString text = decodedStrings(printed);
    QString out;
    const int n = int(text.size());
    int i = 0;
    const auto skipString = [&](int j) {
        ++j;
        while (j < n && text[j] != '"')
            j += text[j] == '\\' ? 2 : 1;
        return j + 1;
    };
    while (i < n) {
        if (text[i] == '"') {
            const int end = skipString(i);
            out += text.mid(i, end - i);
            i = end;
            continue;
        }
        if (text.mid(i, 6) == "(\"\" + ") {
            out += '(';
            i += 6;
            continue;
        }
        if (text.mid(i, 8) != "inherit " || (i > 0 && text[i - 1].isLetterOrNumber())) {
            out += text[i++];
            continue;
        }
        int j = i + 8;
        QString from;
        if (j < n && text[j] == '(') {
            const int start = j;
            int depth = 0;
            do {
                if (text[j] == '"') {
                    j = skipString(j);
                    continue;
                }
                depth += text[j] == '(' ? 1 : text[j] == ')' ? -1 : 0;
                ++j;
            } while (j < n && depth > 0);
            from = text.mid(start, j - start);
        }
        const int semicolon = int(text.indexOf(';', j));
        if (semicolon < 0) {
            out += text[i++];
            continue;
        }
        const QStringList names = text.mid(j, semicolon - j).split(' ', Qt::SkipEmptyParts);
        QStringList spelled;
        for (const QString& name : names)
            spelled << (from.isEmpty() ? "inherit " + name + ";"
                                       : name + " = " + from + "." + name + ";");
        out += spelled.join(' ');
        i = semicolon + 1;
    }
    // 2.26 quotes an attribute named like a keyword ("then" = 5) where 2.8 did not.
    static const QRegularExpression quotedName(QStringLiteral("\"([A-Za-z_][A-Za-z0-9_'-]*)\" = "));
    out.replace(quotedName, QStringLiteral("\\1 = "));
    return out;
}

// "syntax error, unexpected INT_LIT, expecting INHERIT" → "syntax error"; "attribute 'a.b'
// already defined at 1:3" → "attribute '' already defined": what went wrong, without the
// token names, attribute paths and positions Nix versions word differently.
QString errorKind(QString message)
{
    message = message.section(',', 0, 0);
    message.replace(QRegularExpression("'[^']*'"), "''");
    message.remove(QRegularExpression(" at \\d+:\\d+$"));
    return message;
}

// Where a later Nix accepts or rejects differently from 2.8, the language itself changed;
// SyntaxTree follows 2.8. Reported as expected failures, so a change is seen either way.
const QHash<QString, QString>& knownVersionDifferences()
{
    static const QHash<QString, QString> differences = {
        {"corpus/289-scope-builtins.nix", "fetchTree is no longer a global name"},
        {"corpus/337-nul-in-string.nix", "a NUL byte in a string is rejected"},
        {"corpus/340-nul-in-indented.nix", "a NUL byte in an indented string is rejected"},
        {"corpus/187-attrs-merge-drops-dynamic.nix",
         "a dynamic attribute merged into a nested set is kept (2.8 dropped it)"},
    };
    return differences;
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

} // namespace

class TestNixDifferential : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void compare_data();
    void compare();
    void corpusIsLargeAndMixed();
    void nestingLimitIsOursNotNixs_data();
    void nestingLimitIsOursNotNixs();

private:
    void runNix();

    QString m_nix;
    // Nix 2.8, whose parser SyntaxTree follows: then error positions and messages must match
    // too. Later versions (2.26 on Debian 13) report some errors elsewhere or in other words,
    // and print equal expressions differently; there the printed form is compared by meaning
    // and an error by its kind.
    bool m_reference = false;
    QString m_version;
    QTemporaryDir m_generated;
    QList<Case> m_cases;
};

void TestNixDifferential::initTestCase()
{
    m_nix = QStandardPaths::findExecutable("nix-instantiate");
    QVERIFY2(!m_nix.isEmpty(), "nix-instantiate is required (package nix-bin)");
    QProcess version;
    version.start(m_nix, {"--version"});
    QVERIFY(version.waitForFinished(60000));
    m_version = QString::fromUtf8(version.readAllStandardOutput()).trimmed().section(' ', -1);
    QVERIFY2(m_version.contains(QRegularExpression("^2\\.\\d+")), qPrintable(m_version));
    m_reference = m_version.startsWith(QLatin1String("2.8."));
    qInfo("Nix %s%s", qPrintable(m_version), m_reference ? " (the reference version)" : "");
    qputenv("NIX_CONFIG", "build-users-group =\nsandbox = false\nsubstituters =\n"
                          "experimental-features = nix-command");

    QDirIterator corpus(RG_SOURCE_DIR "/tests/nix/corpus", {"*.nix"}, QDir::Files);
    while (corpus.hasNext()) {
        corpus.next();
        m_cases.append({"corpus/" + corpus.fileName(), corpus.filePath(), true, {}});
    }
    for (const QString& root :
         {QStringLiteral(RG_FIXTURES_DIR), QStringLiteral(RG_SOURCE_DIR "/resources/demo")}) {
        QDirIterator it(root, {"*.nix"}, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            it.next();
            m_cases.append(
                {QDir(RG_SOURCE_DIR).relativeFilePath(it.filePath()), it.filePath(), false, {}});
        }
    }
    QVERIFY(m_generated.isValid());
    for (int i = 0; i < 90; i += 7) {
        const QString path = m_generated.filePath(QString("generated-%1.nix").arg(i));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray::fromStdString(rg::nix::testing::generateRecipe(i)));
        file.close();
        m_cases.append({QString("generated/%1").arg(i), path, false, {}});
    }
    std::sort(m_cases.begin(), m_cases.end(),
              [](const Case& a, const Case& b) { return a.name < b.name; });
    runNix();
}

// One nix-instantiate per case, a few at a time.
void TestNixDifferential::runNix()
{
    static const QRegularExpression at(QStringLiteral("^\\s*at .*:(\\d+):(\\d+):$"),
                                       QRegularExpression::MultilineOption);
    constexpr int kParallel = 4;
    int next = 0;
    QList<std::pair<QProcess*, int>> running;
    while (next < m_cases.size() || !running.isEmpty()) {
        while (running.size() < kParallel && next < m_cases.size()) {
            auto* process = new QProcess(this);
            process->start(m_nix, {"--parse", m_cases[next].path});
            running.append({process, next++});
        }
        auto [process, index] = running.takeFirst();
        QVERIFY2(process->waitForFinished(60000), qPrintable(m_cases[index].name));
        NixVerdict& verdict = m_cases[index].nix;
        verdict.accepted =
            process->exitStatus() == QProcess::NormalExit && process->exitCode() == 0;
        if (verdict.accepted) {
            verdict.output = QString::fromUtf8(process->readAllStandardOutput());
            if (verdict.output.endsWith('\n'))
                verdict.output.chop(1);
        } else {
            const QString err = QString::fromUtf8(process->readAllStandardError());
            // The first error line: later versions may warn before it.
            verdict.message = err.mid(std::max(qsizetype(0), err.indexOf(QLatin1String("error: "))))
                                  .section('\n', 0, 0)
                                  .remove(QRegularExpression("^error: "));
            // "already defined at /path/file.nix:1:3" → "already defined at 1:3"
            verdict.message.replace(QRegularExpression(" at \\S+:(\\d+:\\d+)$"), " at \\1");
            const auto match = at.match(err);
            if (match.hasMatch()) {
                verdict.line = match.captured(1).toInt();
                verdict.column = match.captured(2).toInt();
            }
        }
        delete process;
    }
}

void TestNixDifferential::compare_data()
{
    QTest::addColumn<int>("index");
    for (int i = 0; i < m_cases.size(); ++i)
        QTest::newRow(qPrintable(m_cases[i].name)) << i;
}

void TestNixDifferential::compare()
{
    QFETCH(int, index);
    const Case& c = m_cases[index];
    const SyntaxTree tree = SyntaxTree::parse(readFile(c.path).toStdString());
    // Called right before the check a known difference fails; Abort ends the case there.
    const auto expectKnownDifference = [&] {
        if (!m_reference && knownVersionDifferences().contains(c.name))
            QEXPECT_FAIL("",
                         qPrintable("Nix " + m_version + ": " + knownVersionDifferences()[c.name]),
                         Abort);
    };
    if (!c.nix.accepted) {
        expectKnownDifference();
        QVERIFY2(!tree.root(), qPrintable("Nix rejects: " + c.nix.message));
        const QString ours = QString::fromStdString(tree.error()->message);
        if (!m_reference) {
            QCOMPARE(errorKind(ours), errorKind(c.nix.message));
            return;
        }
        // Same place; same message up to bison's list of expected tokens, which Nix's GLR
        // parser sometimes words differently.
        QCOMPARE(int(tree.error()->line), c.nix.line);
        QCOMPARE(int(tree.error()->column), c.nix.column);
        QCOMPARE(ours.section(", expecting", 0, 0), c.nix.message.section(", expecting", 0, 0));
        return;
    }
    QVERIFY2(tree.root(), tree.error() ? tree.error()->message.c_str() : "");
    const QString ours = QString::fromStdString(
        tree.toNixParseNotation(QFileInfo(c.path).absolutePath().toStdString()));
    if (ours == c.nix.output)
        return;
    if (m_reference && c.exact) {
        QCOMPARE(decodedStrings(ours), decodedStrings(c.nix.output));
        return;
    }
    if (m_reference)
        qWarning("%s: equal only up to Nix's heap order of let bindings/formals",
                 qPrintable(c.name));
    expectKnownDifference();
    QCOMPARE(canonicalOrder(sameMeaning(ours)), canonicalOrder(sameMeaning(c.nix.output)));
}

void TestNixDifferential::corpusIsLargeAndMixed()
{
    int corpus = 0;
    int accepted = 0;
    for (const Case& c : m_cases) {
        if (!c.name.startsWith("corpus/"))
            continue;
        ++corpus;
        accepted += c.nix.accepted;
    }
    QVERIFY(corpus >= 200);
    QVERIFY(accepted >= 100);
    QVERIFY(corpus - accepted >= 50);
    // The canonical comparison must not hide real differences.
    QCOMPARE(canonicalOrder("(let b = 1; a = (let d = 2; c = 3; in c); in a)"),
             canonicalOrder("(let a = (let c = 3; d = 2; in c); b = 1; in a)"));
    QVERIFY(canonicalOrder("(let a = 1; b = 2; in a)") !=
            canonicalOrder("(let a = 2; b = 1; in a)"));
    QCOMPARE(canonicalOrder("({ b, a ? \"x, y\" }: a)"),
             canonicalOrder("({ a ? \"x, y\", b }: a)"));
    // Nix 2.8's and 2.26's spellings of the same strings are equal after decoding …
    // (Plain literals: moc's tokenizer does not read raw strings.)
    QCOMPARE(decodedStrings("(\"\\$\" + \"a\\$\" + \"\\${x}\")"),
             decodedStrings("(\"$\" + \"a$\" + \"\\${x}\")"));
    QCOMPARE(decodedStrings("\"\\$\\n\\\"\""), decodedStrings("\"$\\n\\\"\""));
    // … and different strings, or the same strings in different places, still differ.
    QVERIFY(decodedStrings("\"\\$a\"") != decodedStrings("\"$b\""));
    QVERIFY(decodedStrings("\"\\\\$\"") != decodedStrings("\"$\""));
    QVERIFY(decodedStrings("\"\\n\"") != decodedStrings("\"n\""));
    QVERIFY(decodedStrings("(a + \"$\")") != decodedStrings("(b + \"$\")"));
    QVERIFY(decodedStrings("(\"$\" + \"x\")") != decodedStrings("(\"$x\")"));
    // Later versions' other spellings of the same expression are equal after sameMeaning …
    QCOMPARE(sameMeaning("{ inherit a b; }"), sameMeaning("{ inherit a ; inherit b ; }"));
    QCOMPARE(sameMeaning("{ inherit ((p).q) a b; }"),
             sameMeaning("{ a = ((p).q).a; b = ((p).q).b; }"));
    QCOMPARE(sameMeaning("(x: (\"\" + x + \"\\n\"))"), sameMeaning("(x: (x + \"\\n\"))"));
    QCOMPARE(sameMeaning("{ \"then\" = 5; }"), sameMeaning("{ then = 5; }"));
    // 2.26 prints a set's inherits before its other bindings, also in a parenthesised set.
    QCOMPARE(canonicalOrder("(f ({ b = 1; inherit a; } // x))"),
             canonicalOrder("(f ({ inherit a; b = 1; } // x))"));
    QCOMPARE(canonicalOrder("({ b, a }: a)"), canonicalOrder("({ a, b }: a)"));
    QVERIFY(canonicalOrder("({ a = 1; } // x)") != canonicalOrder("({ a = 2; } // x)"));
    // … while different expressions stay different.
    QVERIFY(sameMeaning("{ inherit (p) a; }") != sameMeaning("{ a = (q).a; }"));
    QVERIFY(sameMeaning("{ inherit a b; }") != sameMeaning("{ inherit a ; inherit c ; }"));
    QVERIFY(sameMeaning("{ \"a b\" = 1; }") != sameMeaning("{ a = 1; }"));
    QVERIFY(sameMeaning("(x + \"a\")") != sameMeaning("(\"a\" + x)"));
    // An error's kind, without the words and positions versions choose differently.
    QCOMPARE(errorKind("syntax error, unexpected INT"),
             errorKind("syntax error, unexpected INT_LIT, expecting INHERIT"));
    QCOMPARE(errorKind("attribute 'a.b' already defined at 1:3"),
             errorKind("attribute 'a' already defined at 1:4"));
    QVERIFY(errorKind("undefined variable 'x'") != errorKind("syntax error, unexpected ID"));
}

// Where SyntaxTree stops following the nesting, Nix still reads the file: the error must then
// say that the limit is ours (beyondLimit), so that the recipe is reported unread, not broken.
void TestNixDifferential::nestingLimitIsOursNotNixs_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::newRow("1100 parentheses") << QByteArray(1100, '(') + "1" + QByteArray(1100, ')');
    QByteArray sum = "1";
    for (int i = 0; i < 1500; ++i)
        sum += " + 1";
    QTest::newRow("1500-term sum") << sum;
    QByteArray lists = QByteArray(1200, '[') + QByteArray(1200, ']');
    QTest::newRow("1200 lists") << lists;
}

void TestNixDifferential::nestingLimitIsOursNotNixs()
{
    QFETCH(QByteArray, source);
    const SyntaxTree tree = SyntaxTree::parse(source.toStdString());
    QVERIFY(tree.error());
    QVERIFY2(tree.error()->beyondLimit, tree.error()->message.c_str());
    QFile file(m_generated.filePath("deep.nix"));
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(source);
    file.close();
    QProcess nix;
    nix.start(m_nix, {"--parse", file.fileName()});
    QVERIFY(nix.waitForFinished(60000));
    QVERIFY2(nix.exitStatus() == QProcess::NormalExit && nix.exitCode() == 0,
             nix.readAllStandardError().constData());
}

QTEST_GUILESS_MAIN(TestNixDifferential)
#include "tst_nix_differential.moc"
