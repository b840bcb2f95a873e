// Unit tests of the Nix syntax tree: node kinds and child layout, exact byte ranges, decoded
// strings, positions of errors, and robustness on hostile input.

#include "nix/lineindex.h"
#include "nix/syntaxtree.h"

#include <QDirIterator>
#include <QFile>
#include <QRandomGenerator>
#include <QtTest>

using namespace rg::nix;

namespace {

const char* kindName(NodeKind kind)
{
    switch (kind) {
    case NodeKind::Int:
        return "Int";
    case NodeKind::Float:
        return "Float";
    case NodeKind::String:
        return "String";
    case NodeKind::IndentedString:
        return "IndentedString";
    case NodeKind::StringText:
        return "Text";
    case NodeKind::Interpolation:
        return "Interp";
    case NodeKind::Path:
        return "Path";
    case NodeKind::SearchPath:
        return "SearchPath";
    case NodeKind::Uri:
        return "Uri";
    case NodeKind::Identifier:
        return "Id";
    case NodeKind::Select:
        return "Select";
    case NodeKind::HasAttr:
        return "HasAttr";
    case NodeKind::AttrPath:
        return "AttrPath";
    case NodeKind::AttrName:
        return "Name";
    case NodeKind::AttrSet:
        return "AttrSet";
    case NodeKind::Binding:
        return "Binding";
    case NodeKind::Inherit:
        return "Inherit";
    case NodeKind::Let:
        return "Let";
    case NodeKind::LegacyLet:
        return "LegacyLet";
    case NodeKind::With:
        return "With";
    case NodeKind::Assert:
        return "Assert";
    case NodeKind::If:
        return "If";
    case NodeKind::Lambda:
        return "Lambda";
    case NodeKind::Formals:
        return "Formals";
    case NodeKind::Formal:
        return "Formal";
    case NodeKind::Apply:
        return "Apply";
    case NodeKind::List:
        return "List";
    case NodeKind::Not:
        return "Not";
    case NodeKind::Negate:
        return "Negate";
    case NodeKind::Binary:
        return "Binary";
    }
    return "?";
}

const char* opName(BinaryOp op)
{
    switch (op) {
    case BinaryOp::None:
        return "";
    case BinaryOp::Equal:
        return "==";
    case BinaryOp::NotEqual:
        return "!=";
    case BinaryOp::Less:
        return "<";
    case BinaryOp::LessEqual:
        return "<=";
    case BinaryOp::Greater:
        return ">";
    case BinaryOp::GreaterEqual:
        return ">=";
    case BinaryOp::And:
        return "&&";
    case BinaryOp::Or:
        return "||";
    case BinaryOp::Implies:
        return "->";
    case BinaryOp::Update:
        return "//";
    case BinaryOp::Concat:
        return "++";
    case BinaryOp::Add:
        return "+";
    case BinaryOp::Subtract:
        return "-";
    case BinaryOp::Multiply:
        return "*";
    case BinaryOp::Divide:
        return "/";
    }
    return "?";
}

// Compact shape of a tree: Kind[op][*flag][=text](children…).
std::string shape(const Node& node)
{
    std::string out = kindName(node.kind);
    out += opName(node.op);
    if (node.flag)
        out += '*';
    if (!node.text.empty()) {
        out += '=';
        out += node.text;
    }
    if (!node.children.empty()) {
        out += '(';
        for (size_t i = 0; i < node.children.size(); ++i) {
            if (i)
                out += ' ';
            out += shape(*node.children[i]);
        }
        out += ')';
    }
    return out;
}

const Node* findFirst(const Node& root, NodeKind kind)
{
    const Node* found = nullptr;
    forEachNode(root, [&](const Node& n) {
        if (!found && n.kind == kind)
            found = &n;
        return !found;
    });
    return found;
}

} // namespace

class TestNixSyntaxTree : public QObject
{
    Q_OBJECT

private slots:
    // A hostile file's huge token is not quoted whole in the error message.
    void longTokensAreCutInMessages()
    {
        const std::string name(4'000'000, 'a');
        const SyntaxTree undefined = SyntaxTree::parse("let x = 1; in " + name);
        QVERIFY(undefined.error());
        const std::string& message = undefined.error()->message;
        QVERIFY2(message.size() < 200, message.substr(0, 300).c_str());
        QVERIFY(message.starts_with("undefined variable 'aaaa"));
        QVERIFY(message.find("(4000000 bytes)'") != std::string::npos);
        const SyntaxTree number = SyntaxTree::parse(std::string(100'000, '9'));
        QVERIFY(number.error());
        QVERIFY(number.error()->message.size() < 200);
        QVERIFY(number.error()->message.find("(100000 bytes)") != std::string::npos);
        // Short ones stay exactly as Nix words them.
        QCOMPARE(QString::fromStdString(SyntaxTree::parse("y").error()->message),
                 QStringLiteral("undefined variable 'y'"));
    }

    void shapes_data();
    void shapes();
    void rangeOfGpuArchString();
    void rangesNestInsideParents();
    void rangesOfCompositeNodes();
    void decodedStrings_data();
    void decodedStrings();
    void literalStringRejectsInterpolation();
    void attrPathStrings();
    void errors_data();
    void errors();
    void crlfPositions();
    void nestingIsCapped_data();
    void nestingIsCapped();
    void randomInputNeverCrashes();
    void mutatedRecipesNeverCrash();
    void parseNotation_data();
    void parseNotation();
    void lineIndex();
    void moveKeepsTreeValid();
};

void TestNixSyntaxTree::shapes_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("expected");
    auto row = [](const char* name, const char* source, const char* expected) {
        QTest::newRow(name) << QString::fromUtf8(source) << QString::fromUtf8(expected);
    };
    row("int", "42", "Int=42");
    row("float", "1.5e3", "Float=1.5e3");
    row("string", R"("a${x}b")", "String(Text=a Interp(Id=x) Text=b)");
    row("string-empty", R"("")", "String");
    row("indented", "''\n  a ${x}\n''", "IndentedString(Text=a  Interp(Id=x) Text=\n)");
    row("path", "./a/${x}/b", "Path=./a/${x}/b(Text=./a/ Interp(Id=x) Text=/b)");
    row("path-plain", "./a.nix", "Path=./a.nix(Text=./a.nix)");
    row("home-path", "~/x", "Path=~/x(Text=~/x)");
    row("search-path", "<nixpkgs/lib>", "SearchPath=nixpkgs/lib");
    row("uri", "https://example.com/x", "Uri=https://example.com/x");
    row("select", "x.a.\"b\".${c} or d",
        "Select(Id=x AttrPath(Name=a String(Text=b) Interp(Id=c)) Id=d)");
    row("has-attr", "x ? a.b", "HasAttr(Id=x AttrPath(Name=a Name=b))");
    row("attrset", "{ a.b = 1; inherit c; inherit (d) e \"f\"; }",
        "AttrSet(Binding(AttrPath(Name=a Name=b) Int=1) Inherit(Name=c) "
        "Inherit*(Id=d Name=e String(Text=f)))");
    row("rec", "rec { a = 1; }", "AttrSet*(Binding(AttrPath(Name=a) Int=1))");
    row("let", "let a = 1; inherit b; in a",
        "Let(Binding(AttrPath(Name=a) Int=1) Inherit(Name=b) Id=a)");
    row("legacy-let", "let { body = 1; }", "LegacyLet(Binding(AttrPath(Name=body) Int=1))");
    row("with", "with x; y", "With(Id=x Id=y)");
    row("assert", "assert x; y", "Assert(Id=x Id=y)");
    row("if", "if a then b else c", "If(Id=a Id=b Id=c)");
    row("lambda", "x: x", "Lambda=x(Id=x)");
    row("lambda-formals", "{ a, b ? 1, ... }: a",
        "Lambda(Formals*(Formal=a Formal=b(Int=1)) Id=a)");
    row("lambda-at-before", "args@{ a }: a", "Lambda=args(Formals(Formal=a) Id=a)");
    row("lambda-at-after", "{ a } @ args: a", "Lambda=args(Formals(Formal=a) Id=a)");
    row("apply", "f x y", "Apply(Apply(Id=f Id=x) Id=y)");
    row("apply-or", "f or", "Apply(Id=f Id=or)");
    row("list", "[ 1 x.y (f x) ]", "List(Int=1 Select(Id=x AttrPath(Name=y)) Apply(Id=f Id=x))");
    row("not", "!x", "Not(Id=x)");
    row("negate", "-x", "Negate(Id=x)");
    row("precedence", "a + b * c", "Binary+(Id=a Binary*(Id=b Id=c))");
    row("left-assoc", "a - b - c", "Binary-(Binary-(Id=a Id=b) Id=c)");
    row("right-assoc", "a ++ b ++ c", "Binary++(Id=a Binary++(Id=b Id=c))");
    row("implies", "a -> b -> c", "Binary->(Id=a Binary->(Id=b Id=c))");
    row("not-vs-plus", "!a + b", "Not(Binary+(Id=a Id=b))");
    row("not-vs-eq", "!a == b", "Binary==(Not(Id=a) Id=b)");
    row("negate-vs-app", "-f x", "Negate(Apply(Id=f Id=x))");
    row("has-chain", "x ? a ? b", "HasAttr(HasAttr(Id=x AttrPath(Name=a)) AttrPath(Name=b))");
    row("update-and", "a // b && c", "Binary&&(Binary//(Id=a Id=b) Id=c)");
    row("comparisons", "a < b == c >= d", "Binary==(Binary<(Id=a Id=b) Binary>=(Id=c Id=d))");
    row("parens-make-no-node", "((x))", "Id=x");
    row("float-is-not-select", "x.5", "Apply(Id=x Float=.5)");
    row("int-then-var", "1e3", "Apply(Int=1 Id=e3)");
    row("uri-vs-lambda", "x:x", "Uri=x:x");
    row("division-vs-path", "a / b", "Binary/(Id=a Id=b)");
    row("path-not-division", "a/b", "Path=a/b(Text=a/b)");
}

void TestNixSyntaxTree::shapes()
{
    QFETCH(QString, source);
    QFETCH(QString, expected);
    // Free variables are fine inside `with`; wrapping keeps the shapes about syntax only.
    const std::string wrapped = "with {}; " + source.toStdString();
    const SyntaxTree tree = SyntaxTree::parse(wrapped);
    QVERIFY2(tree.root(), tree.error() ? tree.error()->message.c_str() : "");
    QCOMPARE(tree.root()->kind, NodeKind::With);
    QCOMPARE(QString::fromStdString(shape(*tree.root()->children[1])), expected);
}

void TestNixSyntaxTree::rangeOfGpuArchString()
{
    const std::string source = "{ lib }:\nlet\n  gpuArchSM = \"9.0\";\nin lib\n";
    const SyntaxTree tree = SyntaxTree::parse(source);
    QVERIFY(tree.root());
    const Node* binding = findFirst(*tree.root(), NodeKind::Binding);
    QVERIFY(binding);
    QCOMPARE(tree.text(binding->range), std::string_view("gpuArchSM = \"9.0\";"));
    QCOMPARE(rg::nix::attrPathString(*binding->children[0]),
             std::optional<std::string>("gpuArchSM"));
    const Node* value = binding->children[1];
    QCOMPARE(value->kind, NodeKind::String);
    QCOMPARE(value->range.length(), 5u);
    QCOMPARE(value->range.begin, static_cast<uint32_t>(source.find("\"9.0\"")));
    QCOMPARE(tree.text(value->range), std::string_view("\"9.0\""));
    QCOMPARE(tree.text(value->children[0]->range), std::string_view("9.0"));
    QCOMPARE(literalString(*value), std::optional<std::string>("9.0"));
}

void TestNixSyntaxTree::rangesNestInsideParents()
{
    // Every fixture recipe: children lie inside their parent, in source order, and leaves
    // that carry source text (names, numbers) cover exactly that text.
    int files = 0;
    QDirIterator it(RG_FIXTURES_DIR, {"*.nix"}, QDir::Files | QDir::Hidden,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile file(it.next());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const SyntaxTree tree = SyntaxTree::parse(file.readAll().toStdString());
        if (!tree.root())
            continue;
        ++files;
        bool ok = true;
        forEachNode(*tree.root(), [&](const Node& n) {
            uint32_t previousEnd = n.range.begin;
            for (const Node* c : n.children) {
                if (c->range.begin < previousEnd || c->range.end > n.range.end)
                    ok = false;
                previousEnd = c->range.end;
            }
            if ((n.kind == NodeKind::Identifier && n.text != "or") ||
                n.kind == NodeKind::AttrName || n.kind == NodeKind::Int ||
                n.kind == NodeKind::Float)
                ok = ok && tree.text(n.range) == n.text;
            return ok;
        });
        QVERIFY2(ok, qPrintable(it.filePath()));
    }
    QVERIFY(files > 0);
}

void TestNixSyntaxTree::rangesOfCompositeNodes()
{
    const std::string source = "x: { a = (x.b or 1) + 2; } // rec { c = [ 1 ]; }";
    const SyntaxTree tree = SyntaxTree::parse(source);
    QVERIFY(tree.root());
    QCOMPARE(tree.text(tree.root()->range), std::string_view(source));
    const Node* update = tree.root()->children[0];
    QCOMPARE(update->op, BinaryOp::Update);
    QCOMPARE(tree.text(update->children[0]->range), std::string_view("{ a = (x.b or 1) + 2; }"));
    QCOMPARE(tree.text(update->children[1]->range), std::string_view("rec { c = [ 1 ]; }"));
    const Node* select = findFirst(*tree.root(), NodeKind::Select);
    QCOMPARE(tree.text(select->range), std::string_view("x.b or 1")); // parentheses excluded
    const Node* plus = findFirst(*tree.root(), NodeKind::Binary)->children[0]->children[0];
    QCOMPARE(tree.text(plus->children[1]->range), std::string_view("(x.b or 1) + 2"));
    const Node* list = findFirst(*tree.root(), NodeKind::List);
    QCOMPARE(tree.text(list->range), std::string_view("[ 1 ]"));
}

void TestNixSyntaxTree::decodedStrings_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<QByteArray>("decoded");
    auto row = [](const char* name, QByteArray source, QByteArray decoded) {
        QTest::newRow(name) << source << decoded;
    };
    row("escapes", R"("a\nb\tc\rd\\e\"f\$g\q")", "a\nb\tc\rd\\e\"f$gq");
    row("dollar-dollar-brace", R"("$${x}")", "$${x}");
    row("escaped-interpolation", R"("\${x}")", "${x}");
    row("crlf-normalised", "\"a\r\nb\rc\"", "a\nb\nc");
    row("indented-strip", "''\n    a\n      b\n    c\n  ''", "a\n  b\nc\n");
    row("indented-first-line", "''  a\n  b''", "a\nb");
    row("indented-blank-lines-ignored", "''\n    a\n\n    b\n''", "a\n\nb\n");
    row("indented-escapes", "''a''$b'''c''\\nd''\\e''", "a$b''c\nde");
    row("indented-dollar", "''$a $ b''", "$a $ b");
    row("indented-quote", "''it's''", "it's");
    row("indented-tabs-not-stripped", "''\n\ta\n\tb\n''", "\ta\n\tb\n");
    row("indented-escape-ends-indent", "''\n  ''\\tx\n    y\n''", "\tx\n  y\n");
    row("indented-crlf-kept", "''\r\n  a\r\n''", "\r\n  a\r\n");
    row("indented-empty", "''''", "");
    row("indented-interp-escape", "''\n  ''${x}\n''", "${x}\n");
}

void TestNixSyntaxTree::decodedStrings()
{
    QFETCH(QByteArray, source);
    QFETCH(QByteArray, decoded);
    const SyntaxTree tree = SyntaxTree::parse(source.toStdString());
    QVERIFY2(tree.root(), tree.error() ? tree.error()->message.c_str() : "");
    const auto value = literalString(*tree.root());
    QVERIFY(value);
    QCOMPARE(QByteArray::fromStdString(*value), decoded);
}

void TestNixSyntaxTree::literalStringRejectsInterpolation()
{
    const SyntaxTree tree = SyntaxTree::parse("x: \"a${x}\"");
    QVERIFY(tree.root());
    QVERIFY(!literalString(*tree.root()->children[0]));
    QVERIFY(!literalString(*tree.root())); // not a string at all
}

void TestNixSyntaxTree::attrPathStrings()
{
    const SyntaxTree tree =
        SyntaxTree::parse("x: { meta.platforms = 1; a.\"b c\".${\"d\"} = 2; e.${x} = 3; }");
    QVERIFY(tree.root());
    std::vector<std::optional<std::string>> paths;
    forEachNode(*tree.root(), [&](const Node& n) {
        if (n.kind == NodeKind::Binding)
            paths.push_back(rg::nix::attrPathString(*n.children[0]));
        return true;
    });
    QCOMPARE(paths.size(), size_t(3));
    QCOMPARE(paths[0], std::optional<std::string>("meta.platforms"));
    QCOMPARE(paths[1], std::optional<std::string>("a.b c.d"));
    QVERIFY(!paths[2]);
}

void TestNixSyntaxTree::errors_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("message");
    auto row = [](const char* name, QByteArray source, int line, int column, const char* message) {
        QTest::newRow(name) << source << line << column << QString::fromUtf8(message);
    };
    row("missing-semicolon", "{ a = 1 }", 1, 9, "syntax error, unexpected '}', expecting ';'");
    row("eof-at-last-lexeme", "{\n  a = 1;\n", 2, 9, "syntax error, unexpected end of file");
    row("undefined-variable", "{ lib }:\n  lib.x + gpuArchSM", 2, 11,
        "undefined variable 'gpuArchSM'");
    row("duplicate-attribute", "{\n a.b = 1;\n  a.b = 2; }", 3, 3,
        "attribute 'a.b' already defined at 2:2");
    row("duplicate-formal", "{ b, a, b }: a", 1, 9, "duplicate formal function argument 'b'");
    row("dynamic-let", "x: let ${x} = 1; in 1", 1, 4, "dynamic attributes not allowed in let");
    row("dynamic-inherit", "x: { inherit ${x}; }", 1, 14,
        "dynamic attributes not allowed in inherit");
    row("invalid-integer", "x:\n x 99999999999999999999", 2, 4,
        "invalid integer '99999999999999999999'");
    row("invalid-float", "1.0e400", 1, 1, "invalid float '1.0e400'");
    row("trailing-slash", "x: x ./a/", 1, 6, "path has a trailing slash");
    row("unterminated-string", "x: \"abc", 1, 5,
        "syntax error, unexpected end of file, expecting '\"'");
    row("invalid-token", "1 % 2", 1, 3,
        "syntax error, unexpected invalid token, expecting end of file");
    row("nonassociative", "x: x == x == x", 1, 11, "syntax error, unexpected EQ");
    row("or-is-not-an-expression", "let or = 1; in or", 1, 16, "syntax error, unexpected OR_KW");
    row("with-hides-undefined", "with x; y", 1, 6, "undefined variable 'x'");
}

void TestNixSyntaxTree::errors()
{
    QFETCH(QByteArray, source);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, message);
    const SyntaxTree tree = SyntaxTree::parse(source.toStdString());
    QVERIFY(!tree.root());
    QVERIFY(tree.error());
    QCOMPARE(QString::fromStdString(tree.error()->message), message);
    QCOMPARE(int(tree.error()->line), line);
    QCOMPARE(int(tree.error()->column), column);
    QVERIFY(!tree.error()->beyondLimit); // Nix rejects these too
    QVERIFY(tree.toNixParseNotation().empty());
}

void TestNixSyntaxTree::crlfPositions()
{
    // Nix counts CR LF as one line end (and a lone CR as one too).
    const SyntaxTree tree = SyntaxTree::parse("{\r\n  a = 1;\r\n  b = ;\r\n}");
    QVERIFY(tree.error());
    QCOMPARE(tree.error()->line, 3u);
    QCOMPARE(tree.error()->column, 7u);
    const SyntaxTree cr = SyntaxTree::parse("{\r  a = 1;\r  b = ;\r}");
    QVERIFY(cr.error());
    QCOMPARE(cr.error()->line, 3u);
}

void TestNixSyntaxTree::nestingIsCapped_data()
{
    QTest::addColumn<QByteArray>("source");
    const int n = 200000;
    QTest::newRow("lists") << (QByteArray(n, '[') + QByteArray(n, ']'));
    QTest::newRow("parens") << (QByteArray(n, '(') + "1" + QByteArray(n, ')'));
    QTest::newRow("negations") << (QByteArray(n, '!') + "true");
    QByteArray lambdas;
    for (int i = 0; i < n / 4; ++i)
        lambdas += "x: ";
    QTest::newRow("lambdas") << (lambdas + "x");
    QByteArray sum = "1";
    for (int i = 0; i < n; ++i)
        sum += "+1";
    QTest::newRow("left-assoc-sum") << sum;
    QByteArray concat = "[]";
    for (int i = 0; i < n; ++i)
        concat += "++[]";
    QTest::newRow("right-assoc-concat") << concat;
    QByteArray path = "{ a";
    for (int i = 0; i < n; ++i)
        path += ".a";
    QTest::newRow("attr-path") << (path + " = 1; }");
    QByteArray strings;
    for (int i = 0; i < n / 4; ++i)
        strings += "\"${";
    QTest::newRow("interpolations") << strings;
}

void TestNixSyntaxTree::nestingIsCapped()
{
    QFETCH(QByteArray, source);
    const SyntaxTree tree = SyntaxTree::parse(source.toStdString());
    QVERIFY(!tree.root());
    QVERIFY(tree.error());
    QVERIFY2(tree.error()->message == "expression nested too deeply",
             tree.error()->message.c_str());
    QVERIFY(tree.error()->beyondLimit);
}

void TestNixSyntaxTree::randomInputNeverCrashes()
{
    // Bytes drawn mostly from Nix's own punctuation so that the parser gets deep before failing.
    static const char alphabet[] = "{}[]()\"'$;:.,=?@!<>+-*/|&~#\\ \n\tabxyz019_or in let rec ";
    QRandomGenerator rng(20260601);
    int accepted = 0;
    for (int round = 0; round < 20000; ++round) {
        std::string input(rng.bounded(1, 60), ' ');
        for (char& c : input)
            c = alphabet[rng.bounded(int(sizeof alphabet - 1))];
        const SyntaxTree tree = SyntaxTree::parse(input);
        QVERIFY(bool(tree.root()) != bool(tree.error()));
        if (tree.root()) {
            ++accepted;
            QVERIFY(!tree.toNixParseNotation().empty());
        } else {
            QVERIFY(tree.error()->offset <= input.size());
            QVERIFY(tree.error()->line >= 1 && tree.error()->column >= 1);
        }
    }
    QVERIFY(accepted > 0);
}

void TestNixSyntaxTree::mutatedRecipesNeverCrash()
{
    QDirIterator it(RG_SOURCE_DIR "/tests/nix/corpus", {"*recipe*.nix"}, QDir::Files);
    QRandomGenerator rng(7);
    int files = 0;
    while (it.hasNext()) {
        QFile file(it.next());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const std::string original = file.readAll().toStdString();
        ++files;
        for (int round = 0; round < 300; ++round) {
            std::string mutated = original;
            const int edits = int(rng.bounded(1, 4));
            for (int e = 0; e < edits && !mutated.empty(); ++e) {
                const auto at = rng.bounded(quint32(mutated.size()));
                switch (rng.bounded(3)) {
                case 0:
                    mutated.erase(at, rng.bounded(1, 8));
                    break;
                case 1:
                    mutated.insert(at, 1, "{}[]()\";'$"[rng.bounded(10)]);
                    break;
                default:
                    mutated[at] = char(rng.bounded(256));
                    break;
                }
            }
            const SyntaxTree tree = SyntaxTree::parse(mutated);
            QVERIFY(bool(tree.root()) != bool(tree.error()));
            if (tree.root())
                (void)tree.toNixParseNotation();
        }
    }
    QVERIFY(files > 0);
}

void TestNixSyntaxTree::parseNotation_data()
{
    // What nix-instantiate --parse (Nix 2.8.0) printed for these, with /base as the directory.
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("expected");
    auto row = [](const char* name, const char* source, const char* expected) {
        QTest::newRow(name) << QString::fromUtf8(source) << QString::fromUtf8(expected);
    };
    row("let", "let a = 1; in a", "(let a = 1; in a)");
    row("formals", "{ x ? 1, ... } @ args: x", "({ x ? 1, ... } @ args: x)");
    row("select-or", "a: a.b.c or 3", "(a: (a).b.c or (3))");
    row("sorted-attrs", "{ zz = 3; b = 1; a = 2; }", "{ a = 2; b = 1; zz = 3; }");
    row("nested-attrs", "{ a.b = 1; a.c = 2; }", "{ a = { b = 1; c = 2; }; }");
    row("inherit", "x: { inherit x; inherit (x) y; }", "(x: { inherit x ; y = (x).y; })");
    row("operators", "x: y: [ (x - y) (x < y) (x >= y) (-x) (x * y) (x ? a) ]",
        "(x: (y: [ ((__sub x y)) ((__lessThan x y)) ((! (__lessThan x y))) ((__sub 0 x)) "
        "((__mul x y)) (((x) ? a)) ]))");
    row("call-appends", "x: (x - x) x", "(x: (__sub x x x))");
    row("strings", R"(x: "a\n$${x}" + ''b${x}'')", R"((x: ("a\n\$\${x}" + ("b" + x))))");
    row("paths", "x: [ ./a/../b ./c/${x}/d <nixpkgs> ]",
        R"((x: [ (/base/b) ((/base/c/ + x + "/d")) ((__findFile __nixPath "nixpkgs")) ]))");
    row("legacy-let", "let { body = 1; }", "(rec { body = 1; }).body");
    row("floats", "[ 1. .5 123456789.123 0.000001 ]", "[ (1) (0.5) (1.23457e+08) (1e-06) ]");
    row("quoted-names", R"({ "if" = 1; "then" = 2; "a b" = 3; })",
        R"({ "a b" = 3; "if" = 1; then = 2; })");
    row("with-assert-if", "x: with x; assert y; if y then 1 else 2",
        "(x: (with x; assert y; (if y then 1 else 2)))");
}

void TestNixSyntaxTree::parseNotation()
{
    QFETCH(QString, source);
    QFETCH(QString, expected);
    const SyntaxTree tree = SyntaxTree::parse(source.toStdString());
    QVERIFY2(tree.root(), tree.error() ? tree.error()->message.c_str() : "");
    QCOMPARE(QString::fromStdString(tree.toNixParseNotation("/base")), expected);
}

void TestNixSyntaxTree::lineIndex()
{
    const LineIndex index("ab\ncd\n\nx");
    QCOMPARE(index.lineCount(), 4u);
    QCOMPARE(index.position(0).line, 1u);
    QCOMPARE(index.position(4).line, 2u);
    QCOMPARE(index.position(4).column, 2u);
    QCOMPARE(index.position(7).line, 4u);
    QCOMPARE(index.lineStart(3), 6u);
}

void TestNixSyntaxTree::moveKeepsTreeValid()
{
    SyntaxTree tree = SyntaxTree::parse("{ a = \"x\"; }");
    const Node* root = tree.root();
    SyntaxTree moved = std::move(tree);
    QCOMPARE(moved.root(), root);
    QCOMPARE(moved.text(root->children[0]->range), std::string_view("a = \"x\";"));
}

QTEST_GUILESS_MAIN(TestNixSyntaxTree)
#include "tst_nix_syntaxtree.moc"
