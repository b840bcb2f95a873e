// Unit tests of the partial evaluator: scopes, operators, library functions, imports, what
// stays unknown (and under which symbolic path), origins and binding chains down to the byte,
// and that hostile input finishes quickly.

#include "nix/evaluator.h"
#include "nix/moduleloader.h"
#include "nix/syntaxtree.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QtTest>
#include <deque>
#include <map>

using namespace rg::nix;

namespace {

using Cause = Value::Cause;
using Kind = Value::Kind;

std::string normalised(std::string_view path)
{
    std::vector<std::string> stack;
    size_t start = 0;
    for (size_t i = 0; i <= path.size(); ++i) {
        if (i < path.size() && path[i] != '/')
            continue;
        const std::string segment(path.substr(start, i - start));
        start = i + 1;
        if (segment.empty() || segment == ".")
            continue;
        if (segment == ".." && !stack.empty())
            stack.pop_back();
        else
            stack.push_back(segment);
    }
    std::string out = path.substr(0, 1) == "/" ? "/" : "";
    for (size_t i = 0; i < stack.size(); ++i)
        out += (i ? "/" : "") + stack[i];
    return out;
}

std::string directoryOf(std::string_view file)
{
    const auto slash = file.rfind('/');
    return slash == std::string_view::npos ? std::string() : std::string(file.substr(0, slash + 1));
}

// Files by normalised path, e.g. "pkgs/lib/cpu-isa.nix".
class MapLoader : public ModuleLoader
{
public:
    std::map<std::string, std::string> sources;
    std::map<std::string, SyntaxTree> trees;
    int loads = 0;
    int reads = 0;

    std::string resolve(std::string_view importingFile, std::string_view path) override
    {
        std::string id = normalised(directoryOf(importingFile) + std::string(path));
        if (!id.ends_with(".nix"))
            id += "/default.nix"; // as Nix, and RecipeModules
        return sources.count(id) ? id : std::string();
    }
    std::string resolveFile(std::string_view importingFile, std::string_view path) override
    {
        const std::string id = normalised(directoryOf(importingFile) + std::string(path));
        return sources.count(id) ? id : std::string();
    }
    std::optional<std::string_view> text(std::string_view fileId) override
    {
        ++reads;
        auto source = sources.find(std::string(fileId));
        if (source == sources.end())
            return std::nullopt;
        return std::string_view(source->second);
    }
    const SyntaxTree* load(std::string_view fileId) override
    {
        ++loads;
        auto source = sources.find(std::string(fileId));
        if (source == sources.end())
            return nullptr;
        auto [it, inserted] = trees.emplace(source->first, SyntaxTree::parse(source->second));
        return it->second.root() ? &it->second : nullptr;
    }
};

// Files on disk below `root`, for the robustness sweep.
class DiskLoader : public ModuleLoader
{
public:
    explicit DiskLoader(std::string root) : m_root(std::move(root)) {}

    std::string resolve(std::string_view importingFile, std::string_view path) override
    {
        std::string id = normalised(directoryOf(importingFile) + std::string(path));
        if (!id.empty() && id.back() != 'x')
            id += "/default.nix";
        if (id.rfind(m_root, 0) != 0 || !QFile::exists(QString::fromStdString(id)))
            return {};
        return id;
    }
    const SyntaxTree* load(std::string_view fileId) override
    {
        QFile file(QString::fromUtf8(fileId.data(), qsizetype(fileId.size())));
        if (!file.open(QIODevice::ReadOnly))
            return nullptr;
        auto [it, inserted] =
            m_trees.emplace(std::string(fileId), SyntaxTree::parse(file.readAll().toStdString()));
        return it->second.root() ? &it->second : nullptr;
    }
    std::string resolveFile(std::string_view importingFile, std::string_view path) override
    {
        const std::string id = normalised(directoryOf(importingFile) + std::string(path));
        const QFileInfo info(QString::fromStdString(id));
        return id.rfind(m_root, 0) == 0 && info.isFile() ? id : std::string();
    }
    std::optional<std::string_view> text(std::string_view fileId) override
    {
        QFile file(QString::fromUtf8(fileId.data(), qsizetype(fileId.size())));
        if (!file.open(QIODevice::ReadOnly))
            return std::nullopt;
        auto [it, inserted] =
            m_texts.insert_or_assign(std::string(fileId), file.readAll().toStdString());
        return std::string_view(it->second);
    }

private:
    std::string m_root;
    std::map<std::string, SyntaxTree> m_trees;
    std::map<std::string, std::string> m_texts;
};

// The range of the `occurrence`-th `needle` in `source`.
SourceRange find(std::string_view source, std::string_view needle, int occurrence = 0)
{
    size_t at = source.find(needle);
    while (occurrence-- > 0 && at != std::string_view::npos)
        at = source.find(needle, at + 1);
    if (at == std::string_view::npos)
        return {UINT32_MAX, UINT32_MAX};
    return {uint32_t(at), uint32_t(at + needle.size())};
}

// The value of the first binding `path = …;` (static path, e.g. "a.b").
const Node* bindingValue(const SyntaxTree& tree, std::string_view path)
{
    const Node* found = nullptr;
    forEachNode(*tree.root(), [&](const Node& node) {
        if (!found && node.kind == NodeKind::Binding && node.bindingPath() &&
            attrPathString(*node.bindingPath()) == path)
            found = node.bindingValue();
        return !found;
    });
    return found;
}

const Node* firstOfKind(const SyntaxTree& tree, NodeKind kind)
{
    const Node* found = nullptr;
    forEachNode(*tree.root(), [&](const Node& node) {
        if (!found && node.kind == kind)
            found = &node;
        return !found;
    });
    return found;
}

std::vector<std::string> strings(const Value& value)
{
    std::vector<std::string> out;
    if (auto items = value.asStringList())
        for (const StringListItem& item : *items)
            out.push_back(item.text.value_or("<" + std::string(item.value.symbolicPath()) + ">"));
    return out;
}

// Each piece of a string as "offset file[begin,end) bytes", the bytes read from `sources`;
// "MISMATCH" when they are not the text the piece covers, which a caller rewriting the
// piece would then corrupt.
std::vector<std::string> piecesOf(const Value& value,
                                  const std::map<std::string, std::string>& sources)
{
    std::vector<std::string> out;
    const std::string text = value.asString().value_or(std::string());
    for (const StringPiece& piece : value.pieces()) {
        auto file = sources.find(std::string(piece.file));
        std::string bytes = file == sources.end() || piece.source > file->second.size()
                                ? std::string("<no such bytes>")
                                : file->second.substr(piece.source, piece.length);
        if (text.substr(piece.offset, piece.length) != bytes)
            bytes = "MISMATCH " + bytes;
        out.push_back(std::to_string(piece.offset) + " " + std::string(piece.file) + "[" +
                      std::to_string(piece.source) + "," +
                      std::to_string(piece.source + piece.length) + ") " + bytes);
    }
    return out;
}

// What piecesOf() says of a piece at `offset` that maps to `length` bytes of `file`, from
// `skip` bytes into the first `needle` there.
std::string pieceAt(const std::map<std::string, std::string>& sources, size_t offset,
                    const std::string& file, std::string_view needle, size_t skip, size_t length)
{
    const std::string& source = sources.at(file);
    const size_t begin = find(source, needle).begin + skip;
    return std::to_string(offset) + " " + file + "[" + std::to_string(begin) + "," +
           std::to_string(begin + length) + ") " + source.substr(begin, length);
}

// Parses `source` (which must parse) and keeps its tree alive with the evaluator.
struct Eval
{
    explicit Eval(std::string source, ModuleLoader* loader = nullptr, std::string id = "main.nix",
                  Evaluator::Limits limits = {})
        : tree(SyntaxTree::parse(std::move(source)))
    {
        if (tree.error())
            qWarning() << "parse error:" << tree.error()->message.c_str();
        evaluator = std::make_unique<Evaluator>(tree, std::move(id), loader, limits);
    }
    Value root() { return evaluator->root(); }
    // The body inside the file's lambdas (`final: prev: body`), evaluated without applying them.
    Value body()
    {
        const Node* node = tree.root();
        while (node->kind == NodeKind::Lambda)
            node = node->lambdaBody();
        return evaluator->evaluate(*node);
    }
    Value binding(std::string_view path) { return evaluator->evaluate(*bindingValue(tree, path)); }
    SourceRange range(std::string_view needle, int occurrence = 0) const
    {
        return find(tree.source(), needle, occurrence);
    }

    SyntaxTree tree;
    std::unique_ptr<Evaluator> evaluator;
};

// A set a module computes from a recipe's strings: the recipe calls the module with
// `capability = "8.9"`, `arch = "sm_90a"`, … and the module's set holds `bindings`.
struct AcrossFiles
{
    static inline const std::string module = "pkgs/lib/strings.nix";
    static inline const std::string recipe = "pkgs/recipe.nix";

    explicit AcrossFiles(std::string_view bindings)
    {
        loader.sources[module] =
            "{ lib, capability, arch, name, flags, sep, isa }:\n{" + std::string(bindings) + "}\n";
        loader.sources[recipe] = R"({ lib }:
import ./lib/strings.nix {
  inherit lib;
  capability = "8.9";
  arch = "sm_90a";
  name = "torch.nix";
  flags = [ "-mavx2" "-mfma" ];
  sep = ";";
  isa = "avx";
}
)";
        eval = std::make_unique<Eval>(loader.sources[recipe], &loader, recipe);
        set = eval->body();
    }
    Value attribute(std::string_view name) const { return set.attribute(name).value_or(Value()); }
    std::vector<std::string> pieces(std::string_view name) const
    {
        return piecesOf(attribute(name), loader.sources);
    }
    std::string piece(size_t offset, const std::string& file, std::string_view needle, size_t skip,
                      size_t length) const
    {
        return pieceAt(loader.sources, offset, file, needle, skip, length);
    }

    MapLoader loader;
    std::unique_ptr<Eval> eval;
    Value set;
};

} // namespace

class TestEvaluator : public QObject
{
    Q_OBJECT

private slots:
    void scalars();
    void letScopes();
    void recAndPlainSets();
    void formals();
    void inherits();
    void withScopes();
    void selectOr();
    void update();
    void concatLists();
    void plus();
    void interpolation();
    void indentedStringPieces();
    void conditions();
    void operators();
    void lambdas();
    void libraryFunctions();
    void escapeShellArg();
    void replaceStringsAcrossFiles();
    void stringNativesAcrossFiles();
    void replacedTextMapsNowhere();
    void stringPiecesBounded();
    void librarySpellings_data();
    void librarySpellings();
    void everyFunctionTwoWays_data();
    void everyFunctionTwoWays();
    void unknownCalls();
    void match();
    void matchBounds();
    void splitString();
    void listNatives();
    void listAndSetFunctions_data();
    void listAndSetFunctions();
    void importedLib();
    void mergedConfiguration_data();
    void mergedConfiguration();
    void folds();
    void lazyAttributes();
    void listAndSetFunctionsWithUnknowns();
    void listAndSetTypeErrors_data();
    void listAndSetTypeErrors();
    void listAndSetLimits();
    void baseNameAndDirOf();
    void curPos();
    void variantFromFileName();
    void imports();
    void aBuilderAppliedToTheCallersArgument();
    void callPackage();
    void importCycles();
    void importDirectory();
    void readFile();
    void fromJson();
    void fromJsonNumbers();
    void fromJsonStrings();
    void pinnedNixpkgs();
    void nivSources();
    void malformedJson_data();
    void malformedJson();
    void jsonBounds();
    void budget();
    void memoisation();
    void originsAndChains();
    void externalPaths();
    void recipeShapes();
    void anyNode();
    void elementExpressions();
    void robustness();
};

void TestEvaluator::scalars()
{
    Eval e("[ 1 2.5 \"s\" true null ./a/../b.nix (-3) ]");
    const auto items = e.root().elements();
    QVERIFY(items);
    QCOMPARE(items->size(), size_t(7));
    QCOMPARE((*items)[0].asInt(), std::optional<int64_t>(1));
    QCOMPARE((*items)[1].asFloat(), std::optional<double>(2.5));
    QCOMPARE((*items)[2].asString(), std::optional<std::string>("s"));
    QCOMPARE((*items)[3].asBool(), std::optional<bool>(true));
    QCOMPARE((*items)[4].kind(), Kind::Null);
    QCOMPARE((*items)[5].asPath(), std::optional<std::string>("./b.nix"));
    QCOMPARE((*items)[6].asInt(), std::optional<int64_t>(-3));
    QCOMPARE(e.root().describe(), std::string("[ 1 2.5 \"s\" true null ./b.nix -3 ]"));
}

void TestEvaluator::letScopes()
{
    QCOMPARE(Eval("let a = 1; b = a + 1; in b").root().asInt(), std::optional<int64_t>(2));
    // Later bindings are visible to earlier ones: let is recursive.
    QCOMPARE(Eval("let b = a * 3; a = 2; in b").root().asInt(), std::optional<int64_t>(6));
    QCOMPARE(Eval("let a = 1; in let a = 2; in a").root().asInt(), std::optional<int64_t>(2));
    Eval nested("let a = 1; f = let a = 5; in a; in [ a f ]");
    QCOMPARE(nested.root().describe(), std::string("[ 1 5 ]"));
    // Dotted bindings build nested sets.
    QCOMPARE(Eval("let s.a.b = 1; s.a.c = 2; in s.a.c").root().asInt(), std::optional<int64_t>(2));
    QCOMPARE(Eval("let { x = 4; body = x; }").root().asInt(), std::optional<int64_t>(4));
}

void TestEvaluator::recAndPlainSets()
{
    QCOMPARE(Eval("rec { a = \"x\"; b = \"${a}y\"; }.b").root().asString(),
             std::optional<std::string>("xy"));
    // A plain set's values see the enclosing scope, not their siblings.
    QCOMPARE(Eval("let a = \"outer\"; in { a = \"inner\"; b = a; }.b").root().asString(),
             std::optional<std::string>("outer"));
    Eval set("{ b = 2; a = 1; \"c d\" = 3; ${\"e\"} = 4; }");
    const Value root = set.root();
    QCOMPARE(root.kind(), Kind::AttrSet);
    QCOMPARE(root.attributeNames(), (std::vector<std::string_view>{"a", "b", "c d", "e"}));
    QCOMPARE(root.attribute("e")->asInt(), std::optional<int64_t>(4));
    QVERIFY(!root.attribute("z"));
    QVERIFY(!root.isOpen());
    // An attribute name that cannot be known leaves the set open.
    Eval dynamic("x: { ${x} = 1; a = 2; }");
    const Value open = dynamic.body();
    QVERIFY(open.isOpen());
    QCOMPARE(open.attribute("a")->asInt(), std::optional<int64_t>(2));
    QVERIFY(open.attribute("b")->isUnknown());
}

void TestEvaluator::formals()
{
    QCOMPARE(Eval("({ a, b ? 2 }: a + b) { a = 1; }").root().asInt(), std::optional<int64_t>(3));
    QCOMPARE(Eval("({ a, b ? 2 }: b) { a = 1; b = 5; }").root().asInt(), std::optional<int64_t>(5));
    // Defaults see the other formals.
    QCOMPARE(Eval("({ a, b ? a * 10 }: b) { a = 4; }").root().asInt(), std::optional<int64_t>(40));
    QCOMPARE(Eval("(args @ { a, ... }: args.b) { a = 1; b = 7; }").root().asInt(),
             std::optional<int64_t>(7));
    QCOMPARE(Eval("({ a, ... } @ args: args.a + a) { a = 3; }").root().asInt(),
             std::optional<int64_t>(6));

    // Not applied: defaults, and names for the others.
    Eval unapplied("{ gpu ? \"8.6\", flags, ... } @ args: [ gpu flags args.x ]");
    const Value body = unapplied.body();
    QCOMPARE(strings(body), (std::vector<std::string>{"8.6", "<flags>", "<args.x>"}));
    QCOMPARE(body.element(1)->cause(), Cause::External);
    // A Formal node evaluates to its default.
    const Node* formal = firstOfKind(unapplied.tree, NodeKind::Formal);
    QCOMPARE(unapplied.evaluator->evaluate(*formal).asString(), std::optional<std::string>("8.6"));

    // A required formal the call does not supply is named after itself.
    Eval missing("({ a, b }: b) { a = 1; }");
    QCOMPARE(missing.root().symbolicPath(), std::string_view("b"));
}

void TestEvaluator::inherits()
{
    QCOMPARE(Eval("let x = 1; s = { inherit x; }; in s.x").root().asInt(),
             std::optional<int64_t>(1));
    QCOMPARE(Eval("let src = { y = \"v\"; }; s = { inherit (src) y; }; in s.y").root().asString(),
             std::optional<std::string>("v"));
    // `let inherit x;` reads the outer x, so this is no infinite recursion.
    QCOMPARE(Eval("let x = 1; in let inherit x; in x").root().asInt(), std::optional<int64_t>(1));
    // In a let, `inherit (e)` sees the let's own bindings.
    QCOMPARE(Eval("let inherit (s) a; s = { a = 9; }; in a").root().asInt(),
             std::optional<int64_t>(9));
    // rec: plain inherit reads outside the set.
    QCOMPARE(Eval("let a = 1; in rec { inherit a; b = a + 1; }.b").root().asInt(),
             std::optional<int64_t>(2));
    QVERIFY(Eval("let s = {}; in { inherit (s) nope; }.nope").root().cause() == Cause::Error);

    // evaluate() of an inherited name gives the inherited value.
    Eval named("let v = \"7.5\"; in { inherit v; }");
    const Node* inherit = firstOfKind(named.tree, NodeKind::Inherit);
    const Value value = named.evaluator->evaluate(*inherit->inheritedNames()[0]);
    QCOMPARE(value.asString(), std::optional<std::string>("7.5"));
}

void TestEvaluator::withScopes()
{
    QCOMPARE(Eval("with { a = 1; }; a").root().asInt(), std::optional<int64_t>(1));
    QCOMPARE(Eval("let a = 2; in with { a = 1; }; a").root().asInt(), std::optional<int64_t>(2));
    // The inner with does not have it: the outer one does.
    QCOMPARE(Eval("with { b = 1; }; with { a = 2; }; b").root().asInt(), std::optional<int64_t>(1));
    // Nix's own names win over with.
    QCOMPARE(Eval("with { true = 0; }; true").root().asBool(), std::optional<bool>(true));

    Eval unknownScope("{ lib }: with lib; platforms.linux");
    const Value linux = unknownScope.body();
    QVERIFY(linux.isUnknown());
    QCOMPARE(linux.cause(), Cause::External);
    QCOMPARE(linux.symbolicPath(), std::string_view("lib.platforms.linux"));
    // The lexical binding still wins over the unknown with.
    QCOMPARE(Eval("{ lib }: let platforms = 3; in with lib; platforms").body().asInt(),
             std::optional<int64_t>(3));
    // A with of something unknown without a path cannot name what it finds.
    Eval opaqueEval("x: with (if x then {} else {}); a");
    const Value opaque = opaqueEval.body();
    QVERIFY(opaque.isUnknown());
    QVERIFY(opaque.symbolicPath().empty());
    QCOMPARE(opaque.cause(), Cause::Dependent);
}

void TestEvaluator::selectOr()
{
    QCOMPARE(Eval("{ a = 1; }.b or 5").root().asInt(), std::optional<int64_t>(5));
    QCOMPARE(Eval("{ a = 1; }.a or 5").root().asInt(), std::optional<int64_t>(1));
    QCOMPARE(Eval("{ a.b = 1; }.a.c or 6").root().asInt(), std::optional<int64_t>(6));
    QCOMPARE(Eval("\"s\".a or 7").root().asInt(), std::optional<int64_t>(7));
    QCOMPARE(Eval("{ a = 1; }.b").root().cause(), Cause::Error);

    Eval recipe("oldAttrs: oldAttrs.meta.platforms or [ \"x86_64-linux\" ]");
    const Value platforms = recipe.body();
    QVERIFY(platforms.isUnknown());
    QCOMPARE(platforms.cause(), Cause::External);
    QCOMPARE(platforms.symbolicPath(), std::string_view("oldAttrs.meta.platforms"));
    QVERIFY(platforms.fallback());
    QCOMPARE(strings(*platforms.fallback()), std::vector<std::string>{"x86_64-linux"});
    QCOMPARE(platforms.fallback()->element(0)->origin().range, recipe.range("\"x86_64-linux\""));

    // The attribute exists, so its (unknown) value is no reason for the default.
    Eval existsEval("x: { a = x.y; }.a or 1");
    const Value exists = existsEval.body();
    QCOMPARE(exists.symbolicPath(), std::string_view("x.y"));
    QVERIFY(!exists.fallback());
}

void TestEvaluator::update()
{
    Eval known("{ a = 1; b = 2; } // { b = 3; c = 4; }");
    const Value merged = known.root();
    QCOMPARE(merged.describe(), std::string("{ a = 1; b = 3; c = 4; }"));
    QCOMPARE(merged.attribute("b")->origin().range, known.range("3"));

    Eval left("oldAttrs: oldAttrs.meta // { platforms = [ \"x\" ]; }");
    const Value meta = left.body();
    QCOMPARE(meta.kind(), Kind::AttrSet);
    QVERIFY(meta.isOpen());
    QCOMPARE(strings(*meta.attribute("platforms")), std::vector<std::string>{"x"});
    QCOMPARE(meta.attribute("description")->symbolicPath(),
             std::string_view("oldAttrs.meta.description"));
    QCOMPARE(meta.attributeNames(), std::vector<std::string_view>{"platforms"});

    Eval rightEval("x: { a = 1; } // x");
    const Value right = rightEval.body();
    QVERIFY(right.isUnknown());
    QCOMPARE(right.cause(), Cause::Dependent);
    QCOMPARE(Eval("x: {} // x").body().symbolicPath(), std::string_view("x"));
}

void TestEvaluator::concatLists()
{
    QCOMPARE(Eval("[ 1 ] ++ [ 2 3 ]").root().describe(), std::string("[ 1 2 3 ]"));
    // ++ groups to the right: the two known lists are one part.
    Eval flags("oldAttrs: (oldAttrs.cmakeFlags or []) ++ [ \"-DX=1\" ] ++ [ \"-DY\" ]");
    const Value value = flags.body();
    QVERIFY(value.isUnknown());
    const auto parts = value.parts();
    QCOMPARE(parts.size(), size_t(2));
    QCOMPARE(parts[0].symbolicPath(), std::string_view("oldAttrs.cmakeFlags"));
    QCOMPARE(parts[0].fallback()->size(), size_t(0));
    QCOMPARE(strings(parts[1]), (std::vector<std::string>{"-DX=1", "-DY"}));
    // Nested unknown concatenations are flattened.
    Eval nested("o: ((o.a or []) ++ [ 1 ]) ++ o.b");
    const auto three = nested.body().parts();
    QCOMPARE(three.size(), size_t(3));
    QCOMPARE(three[0].symbolicPath(), std::string_view("o.a"));
    QCOMPARE(three[1].describe(), std::string("[ 1 ]"));
    QCOMPARE(three[2].symbolicPath(), std::string_view("o.b"));
    QCOMPARE(Eval("[ 1 ] ++ 2").root().cause(), Cause::Error);
}

void TestEvaluator::plus()
{
    QCOMPARE(Eval("1 + 2").root().asInt(), std::optional<int64_t>(3));
    QCOMPARE(Eval("1.5 + 1").root().asFloat(), std::optional<double>(2.5));
    QCOMPARE(Eval("9223372036854775807 + 1").root().cause(), Cause::Error);
    QCOMPARE(Eval("./a + \"/b.nix\"").root().asPath(), std::optional<std::string>("./a/b.nix"));
    Eval text("let a = \"ab\"; in a + \"cd\"");
    const Value ab = text.root();
    QCOMPARE(ab.asString(), std::optional<std::string>("abcd"));
    QCOMPARE(ab.sourceOf(0, 2)->range, find(text.tree.source(), "ab"));
    QCOMPARE(ab.sourceOf(2, 2)->range, find(text.tree.source(), "cd"));
    QVERIFY(!ab.sourceOf(1, 2)); // spans two literals

    Eval partialEval("o: (o.postPatch or \"\") + \"echo\"");
    const Value partial = partialEval.body();
    QVERIFY(partial.isUnknown());
    QCOMPARE(partial.parts().size(), size_t(2));
    QCOMPARE(partial.parts()[0].symbolicPath(), std::string_view("o.postPatch"));
    QCOMPARE(partial.parts()[1].asString(), std::optional<std::string>("echo"));
}

void TestEvaluator::interpolation()
{
    Eval known("let v = \"2.10\"; in \"torch-${v}-x\"");
    const Value value = known.root();
    QCOMPARE(value.asString(), std::optional<std::string>("torch-2.10-x"));
    const auto version = value.sourceOf(6, 4);
    QVERIFY(version);
    QCOMPARE(version->range, known.range("2.10"));
    QCOMPARE(version->file, std::string_view("main.nix"));
    QCOMPARE(value.sourceOf(0, 6)->range, known.range("torch-"));
    // Escapes are not byte for byte.
    Eval escaped("\"a\\nb\"");
    QCOMPARE(escaped.root().asString(), std::optional<std::string>("a\nb"));
    QCOMPARE(escaped.root().sourceOf(2, 1)->range, escaped.range("b"));
    QVERIFY(!escaped.root().sourceOf(1, 1));

    Eval partial("o: \"v${o.version}-x${\"y\"}\"");
    const Value unknown = partial.body();
    QVERIFY(unknown.isUnknown());
    QCOMPARE(unknown.cause(), Cause::Dependent);
    const auto parts = unknown.parts();
    QCOMPARE(parts.size(), size_t(3));
    QCOMPARE(parts[0].asString(), std::optional<std::string>("v"));
    QCOMPARE(parts[1].symbolicPath(), std::string_view("o.version"));
    QCOMPARE(parts[2].asString(), std::optional<std::string>("-xy"));
    QCOMPARE(parts[2].sourceOf(0, 2)->range, partial.range("-x"));
    QVERIFY(unknown.reason().find("o.version") != std::string_view::npos);

    QCOMPARE(Eval("\"${1}\"").root().cause(), Cause::Error);
    // A path in a string would be a store path, which is not modelled.
    QCOMPARE(Eval("\"${./a}\"").root().cause(), Cause::Unsupported);
}

void TestEvaluator::indentedStringPieces()
{
    const std::string source = "''\n    first line\n      second ${\"x\"} end\n  ''";
    Eval e(source);
    const Value value = e.root();
    const std::string text = *value.asString();
    QCOMPARE(text, std::string("first line\n  second x end\n"));
    // Every source-mapped substring reads the same bytes in the source.
    for (const StringPiece& piece : value.pieces())
        QCOMPARE(std::string(e.tree.source().substr(piece.source, piece.length)),
                 text.substr(piece.offset, piece.length));
    const size_t second = text.find("second");
    QCOMPARE(value.sourceOf(second, 6)->range, e.range("second"));
    const SourceRange indented{e.range("second").begin - 2, e.range("second").begin + 6};
    QCOMPARE(value.sourceOf(text.find("  second"), 8)->range, indented);
    QCOMPARE(value.sourceOf(0, 5)->range, e.range("first"));
    // A literal run evaluated on its own keeps its mapping.
    const Node* run = e.tree.root()->parts()[0];
    const Value alone = e.evaluator->evaluate(*run);
    QCOMPARE(alone.asString(), std::optional<std::string>("first line\n  second "));
    QCOMPARE(alone.sourceOf(0, 5)->range, e.range("first"));
    // An escape token maps to no source bytes.
    Eval escape("''a''${b}''");
    QCOMPARE(escape.root().asString(), std::optional<std::string>("a${b}"));
    QVERIFY(!escape.root().sourceOf(1, 1));
    QCOMPARE(escape.root().sourceOf(2, 2)->range, escape.range("{b"));
}

void TestEvaluator::conditions()
{
    QCOMPARE(Eval("if 1 < 2 then \"a\" else \"b\"").root().asString(),
             std::optional<std::string>("a"));
    QCOMPARE(Eval("if \"b\" <= \"a\" then 1 else 2").root().asInt(), std::optional<int64_t>(2));
    Eval unknownEval("x: if x.cudaSupport then 1 else 2");
    const Value unknown = unknownEval.body();
    QVERIFY(unknown.isUnknown());
    QCOMPARE(unknown.cause(), Cause::Dependent);
    QVERIFY(unknown.reason().find("x.cudaSupport") != std::string_view::npos);
    QCOMPARE(Eval("if 1 then 1 else 2").root().cause(), Cause::Error);
    QCOMPARE(Eval("assert 1 == 1; 5").root().asInt(), std::optional<int64_t>(5));
    QCOMPARE(Eval("assert false; 5").root().cause(), Cause::Error);
    QCOMPARE(Eval("x: assert x; 5").body().asInt(), std::optional<int64_t>(5));
}

void TestEvaluator::operators()
{
    QCOMPARE(Eval("!true").root().asBool(), std::optional<bool>(false));
    QCOMPARE(Eval("1 == 1.0").root().asBool(), std::optional<bool>(true));
    QCOMPARE(Eval("[ 1 { a = \"x\"; } ] == [ 1 { a = \"x\"; } ]").root().asBool(),
             std::optional<bool>(true));
    QCOMPARE(Eval("{ a = 1; } != { a = 2; }").root().asBool(), std::optional<bool>(true));
    QCOMPARE(Eval("x: [ 1 x ] == [ 2 x ]").body().asBool(), std::optional<bool>(false));
    QVERIFY(Eval("x: [ 1 x ] == [ 1 x ]").body().isUnknown());
    QCOMPARE(Eval("x: false && x").body().asBool(), std::optional<bool>(false));
    QCOMPARE(Eval("x: x || true").body().asBool(), std::optional<bool>(true));
    QCOMPARE(Eval("x: x && false").body().asBool(), std::optional<bool>(false));
    QCOMPARE(Eval("x: false -> x").body().asBool(), std::optional<bool>(true));
    QVERIFY(Eval("x: x && true").body().isUnknown());
    QCOMPARE(Eval("{ a.b = 1; } ? a.b").root().asBool(), std::optional<bool>(true));
    QCOMPARE(Eval("{ a.b = 1; } ? a.c").root().asBool(), std::optional<bool>(false));
    QVERIFY(Eval("x: x ? a").body().isUnknown());
    QCOMPARE(Eval("7 / 2 - 2 * 3").root().asInt(), std::optional<int64_t>(-3));
    QCOMPARE(Eval("1 / 0").root().cause(), Cause::Error);
    QCOMPARE(Eval("-(2.5)").root().asFloat(), std::optional<double>(-2.5));
}

void TestEvaluator::lambdas()
{
    QCOMPARE(Eval("let f = x: x + 1; in f 2").root().asInt(), std::optional<int64_t>(3));
    QCOMPARE(Eval("let f = a: b: a * b; in f 3 4").root().asInt(), std::optional<int64_t>(12));
    // Closures keep their scope.
    QCOMPARE(Eval("let mk = n: { get = _: n; }; in (mk 5).get null").root().asInt(),
             std::optional<int64_t>(5));
    QCOMPARE(Eval("let f = x: x; in f").root().kind(), Kind::Function);
    QCOMPARE(Eval("1 2").root().cause(), Cause::Error);
}

void TestEvaluator::libraryFunctions()
{
    Eval lib(R"({ lib }: {
      on = lib.optionals true [ "a" ];
      off = lib.optionals false [ "a" ];
      maybe = lib.optionals lib.cond [ "a" ];
      one = lib.optional true "b";
      str = lib.optionalString false "c";
      attrs = lib.optionalAttrs true { d = 1; };
      mapped = lib.concatMapStringsSep "," (x: "-m${x}") [ "avx" "fma" ];
      prefix = lib.removePrefix "sm_" "sm_86";
      suffix = lib.removeSuffix ".nix" "a.nix";
      number = builtins.toString 12;
      list = toString [ 1 "x" true null ];
      version = lib.versions.majorMinor "12.0.1";
      replaced = lib.replaceStrings [ "." "-" ] [ "" "_" ] "8.6-x";
      squares = map (x: x * x) [ 2 3 ];
      dotted = builtins.substring 0 1 "120" + "." + builtins.substring 1 1 "120";
      tail = builtins.substring 3 (-1) "sm_120";
      past = lib.substring 9 2 "sm_120";
      unknownText = builtins.substring 0 1 lib.x;
    })");
    const Value set = lib.body();
    QCOMPARE(strings(*set.attribute("on")), std::vector<std::string>{"a"});
    QCOMPARE(set.attribute("off")->size(), size_t(0));
    const Value maybe = *set.attribute("maybe");
    QVERIFY(maybe.isUnknown());
    QCOMPARE(maybe.symbolicPath(), std::string_view("lib.optionals(...)"));
    QCOMPARE(strings(*maybe.fallback()), std::vector<std::string>{"a"});
    QCOMPARE(strings(*set.attribute("one")), std::vector<std::string>{"b"});
    QCOMPARE(set.attribute("str")->asString(), std::optional<std::string>(""));
    QCOMPARE(set.attribute("attrs")->attribute("d")->asInt(), std::optional<int64_t>(1));
    QCOMPARE(set.attribute("mapped")->asString(), std::optional<std::string>("-mavx,-mfma"));
    QCOMPARE(set.attribute("prefix")->asString(), std::optional<std::string>("86"));
    QCOMPARE(set.attribute("prefix")->sourceOf(0, 2)->range.begin, lib.range("sm_86").begin + 3);
    QCOMPARE(set.attribute("suffix")->asString(), std::optional<std::string>("a"));
    QCOMPARE(set.attribute("number")->asString(), std::optional<std::string>("12"));
    QCOMPARE(set.attribute("number")->sourceOf(0, 2)->range.begin, lib.range("12;").begin);
    QCOMPARE(set.attribute("list")->asString(), std::optional<std::string>("1 x 1 "));
    const Value version = *set.attribute("version");
    QCOMPARE(version.asString(), std::optional<std::string>("12.0"));
    QCOMPARE(version.sourceOf(0, 4)->range.begin, lib.range("12.0.1").begin);
    QCOMPARE(set.attribute("replaced")->asString(), std::optional<std::string>("86_x"));
    QCOMPARE(set.attribute("replaced")->sourceOf(0, 1)->range.begin, lib.range("8.6-x").begin);
    QCOMPARE(set.attribute("squares")->describe(), std::string("[ 4 9 ]"));
    // "1.2": what a two-digit formula makes of a three-digit arch, pieces and all.
    QCOMPARE(set.attribute("dotted")->asString(), std::optional<std::string>("1.2"));
    QCOMPARE(set.attribute("dotted")->sourceOf(2, 1)->range.begin, lib.range("120\";").begin + 1);
    QCOMPARE(set.attribute("tail")->asString(), std::optional<std::string>("120"));
    QCOMPARE(set.attribute("past")->asString(), std::optional<std::string>(""));
    QVERIFY(set.attribute("unknownText")->isUnknown());
}

void TestEvaluator::escapeShellArg()
{
    Eval e(R"({ lib }: {
      safe = lib.escapeShellArg "sm_86";
      quoted = lib.escapeShellArg "8.6;9.0";
      quote = lib.escapeShellArg "it's";
      empty = lib.escapeShellArg "";
      number = lib.escapeShellArg 86;
      unknown = lib.escapeShellArg lib.x;
    })");
    const Value set = e.body();
    // A word of safe characters is left as it is, pieces and all, as nixpkgs' lib does.
    const Value safe = *set.attribute("safe");
    QCOMPARE(safe.asString(), std::optional<std::string>("sm_86"));
    QCOMPARE(safe.sourceOf(0, 5)->range, e.range("sm_86"));
    const Value quoted = *set.attribute("quoted");
    QCOMPARE(quoted.asString(), std::optional<std::string>("'8.6;9.0'"));
    QCOMPARE(quoted.sourceOf(1, 7)->range, e.range("8.6;9.0"));
    QVERIFY(!quoted.sourceOf(0, 1));
    QCOMPARE(set.attribute("quote")->asString(), std::optional<std::string>("'it'\\''s'"));
    QCOMPARE(set.attribute("quote")->sourceOf(7, 1)->range.begin, e.range("s\";").begin);
    QCOMPARE(set.attribute("empty")->asString(), std::optional<std::string>("''"));
    QCOMPARE(set.attribute("number")->asString(), std::optional<std::string>("86"));
    QCOMPARE(set.attribute("unknown")->symbolicPath(), std::string_view("lib.escapeShellArg(...)"));
}

// A string a module computes from a recipe's strings keeps, piece by piece, the recipe's bytes
// it copies verbatim: what lets a message (or an edit) reach "8.9" where it is written.
void TestEvaluator::replaceStringsAcrossFiles()
{
    AcrossFiles files(R"(
  sm = builtins.replaceStrings [ "." ] [ "" ] capability;
  viaLib = lib.replaceStrings [ "." ] [ "" ] capability;
  viaStrings = lib.strings.replaceStrings [ "." ] [ "" ] capability;
  underscore = builtins.replaceStrings [ "." ] [ "_" ] capability;
)");
    const std::string& recipe = AcrossFiles::recipe;
    const std::string& module = AcrossFiles::module;
    using Pieces = std::vector<std::string>;
    // The kept runs of "8.9", split around the dot that was replaced by nothing.
    const Pieces digits{files.piece(0, recipe, "\"8.9\"", 1, 1),
                        files.piece(1, recipe, "\"8.9\"", 3, 1)};
    for (std::string_view name : {"sm", "viaLib", "viaStrings"}) {
        QCOMPARE(files.attribute(name).asString(), std::optional<std::string>("89"));
        QCOMPARE(files.pieces(name), digits);
        // Its origin stays the call that computed it, in the module.
        QCOMPARE(files.attribute(name).origin().file, std::string_view(module));
    }
    QCOMPARE(files.attribute("sm").origin().range,
             find(files.loader.sources[module],
                  "builtins.replaceStrings [ \".\" ] [ \"\" ] capability"));
    // A replacement brings the pieces of its own string.
    QCOMPARE(files.attribute("underscore").asString(), std::optional<std::string>("8_9"));
    QCOMPARE(files.pieces("underscore"), (Pieces{files.piece(0, recipe, "\"8.9\"", 1, 1),
                                                 files.piece(1, module, "[ \"_\" ]", 3, 1),
                                                 files.piece(2, recipe, "\"8.9\"", 3, 1)}));
}

// The same for the other natives that take text over verbatim, and for + and ${…}.
void TestEvaluator::stringNativesAcrossFiles()
{
    AcrossFiles files(R"(
  prefix = lib.removePrefix "sm_" arch;
  suffix = lib.removeSuffix ".nix" name;
  sub = builtins.substring 3 2 arch;
  joined = lib.concatStringsSep sep flags;
  mapped = lib.concatMapStringsSep ", " (f: "${f}!") flags;
  str = toString capability;
  plus = capability + "+PTX";
  interpolated = "sm_${builtins.replaceStrings [ "." ] [ "" ] capability}";
)");
    const std::string& recipe = AcrossFiles::recipe;
    const std::string& module = AcrossFiles::module;
    const auto at = [&](size_t offset, const std::string& file, std::string_view needle,
                        size_t skip,
                        size_t length) { return files.piece(offset, file, needle, skip, length); };
    const auto text = [&](std::string_view name) { return files.attribute(name).asString(); };
    using Pieces = std::vector<std::string>;
    using Text = std::optional<std::string>;

    QCOMPARE(text("prefix"), Text("90a"));
    QCOMPARE(files.pieces("prefix"), Pieces{at(0, recipe, "\"sm_90a\"", 4, 3)});
    QCOMPARE(files.attribute("prefix").origin().file, std::string_view(recipe)); // as before
    QCOMPARE(text("suffix"), Text("torch"));
    QCOMPARE(files.pieces("suffix"), Pieces{at(0, recipe, "\"torch.nix\"", 1, 5)});
    QCOMPARE(text("sub"), Text("90"));
    QCOMPARE(files.pieces("sub"), Pieces{at(0, recipe, "\"sm_90a\"", 4, 2)});

    QCOMPARE(text("joined"), Text("-mavx2;-mfma"));
    QCOMPARE(files.pieces("joined"),
             (Pieces{at(0, recipe, "\"-mavx2\"", 1, 6), at(6, recipe, "sep = \";\"", 7, 1),
                     at(7, recipe, "\"-mfma\"", 1, 5)}));
    QCOMPARE(files.attribute("joined").origin().file, std::string_view(module));
    QCOMPARE(text("mapped"), Text("-mavx2!, -mfma!"));
    QCOMPARE(files.pieces("mapped"),
             (Pieces{at(0, recipe, "\"-mavx2\"", 1, 6), at(6, module, "}!\"", 1, 1),
                     at(7, module, "\", \"", 1, 2), at(9, recipe, "\"-mfma\"", 1, 5),
                     at(14, module, "}!\"", 1, 1)}));

    QCOMPARE(text("str"), Text("8.9"));
    QCOMPARE(files.pieces("str"), Pieces{at(0, recipe, "\"8.9\"", 1, 3)});
    QCOMPARE(text("plus"), Text("8.9+PTX"));
    QCOMPARE(files.pieces("plus"),
             (Pieces{at(0, recipe, "\"8.9\"", 1, 3), at(3, module, "\"+PTX\"", 1, 4)}));
    QCOMPARE(files.attribute("plus").origin().file, std::string_view(module));
    QCOMPARE(text("interpolated"), Text("sm_89"));
    QCOMPARE(files.pieces("interpolated"),
             (Pieces{at(0, module, "\"sm_${", 1, 3), at(3, recipe, "\"8.9\"", 1, 1),
                     at(4, recipe, "\"8.9\"", 3, 1)}));
}

// Text a native makes up maps to no source, whatever its input's pieces: a caller must not
// point at (or rewrite) the recipe's "avx" for the "AVX" a case change made of it.
void TestEvaluator::replacedTextMapsNowhere()
{
    AcrossFiles files(R"(
  upper = builtins.replaceStrings [ "a" "v" "x" ] [ "A" "V" "X" ] isa;
  escaped = builtins.replaceStrings [ "." ] [ "\_" ] capability;
  computed = builtins.replaceStrings [ "." ] [ (toString 1.5) ] capability;
  toUpper = lib.toUpper isa;
  toLower = lib.toLower isa;
  whole = builtins.replaceStrings [ "8.9" ] [ "89" ] capability;
)");
    const std::string& recipe = AcrossFiles::recipe;
    const std::string& module = AcrossFiles::module;
    const auto at = [&](size_t offset, const std::string& file, std::string_view needle,
                        size_t skip,
                        size_t length) { return files.piece(offset, file, needle, skip, length); };
    using Pieces = std::vector<std::string>;

    // lib.toUpper is replaceStrings of the alphabet: each letter is the replacement's.
    QCOMPARE(files.attribute("upper").asString(), std::optional<std::string>("AVX"));
    QCOMPARE(files.pieces("upper"),
             (Pieces{at(0, module, "\"A\"", 1, 1), at(1, module, "\"V\"", 1, 1),
                     at(2, module, "\"X\"", 1, 1)}));
    // A replacement that is no source bytes (an escape, a number's text) maps to nothing.
    const Value escaped = files.attribute("escaped");
    QCOMPARE(escaped.asString(), std::optional<std::string>("8_9"));
    QCOMPARE(files.pieces("escaped"),
             (Pieces{at(0, recipe, "\"8.9\"", 1, 1), at(2, recipe, "\"8.9\"", 3, 1)}));
    QVERIFY(!escaped.sourceOf(1, 1));
    QVERIFY(!escaped.sourceOf(0, 3));
    QCOMPARE(files.attribute("computed").asString(), std::optional<std::string>("81.5000009"));
    QCOMPARE(files.pieces("computed"),
             (Pieces{at(0, recipe, "\"8.9\"", 1, 1), at(9, recipe, "\"8.9\"", 3, 1)}));
    // The whole text replaced: nothing of the recipe's is left.
    QCOMPARE(files.attribute("whole").asString(), std::optional<std::string>("89"));
    QCOMPARE(files.pieces("whole"), Pieces{at(0, module, "[ \"89\" ]", 3, 2)});
    // lib.toUpper and lib.toLower are not run natively; should they be, a case change must
    // not keep the pieces of what it changed.
    QVERIFY(files.attribute("toUpper").pieces().empty());
    QVERIFY(files.attribute("toLower").pieces().empty());

    // An empty pattern matches around every character, which are kept with their pieces;
    // at each position the first pattern that matches wins.
    Eval around("builtins.replaceStrings [ \"\" ] [ \"-\" ] \"ab\"");
    QCOMPARE(around.root().asString(), std::optional<std::string>("-a-b-"));
    QCOMPARE(around.root().sourceOf(1, 1)->range.begin, around.range("ab").begin);
    QCOMPARE(around.root().sourceOf(3, 1)->range.begin, around.range("ab").begin + 1);
    QCOMPARE(around.root().sourceOf(4, 1)->range, around.range("-"));
    Eval first("builtins.replaceStrings [ \"a\" \"ab\" ] [ \"1\" \"2\" ] \"abc\"");
    QCOMPARE(first.root().asString(), std::optional<std::string>("1bc"));
    QCOMPARE(first.root().sourceOf(1, 2)->range.begin, first.range("abc").begin + 1);
}

// Pieces are capped like the rest of a value, and copying a string of many pieces costs no
// scan of them per byte.
void TestEvaluator::stringPiecesBounded()
{
    Evaluator::Limits few;
    few.pieces = 3;
    Eval capped("let a = \"a\"; in a + \"b\" + a + \"c\" + a", nullptr, "main.nix", few);
    const Value five = capped.root();
    QCOMPARE(five.asString(), std::optional<std::string>("abaca"));
    QCOMPARE(five.pieces().size(), size_t(3));
    QCOMPARE(five.sourceOf(2, 1)->range.begin, capped.range("\"a\"").begin + 1);
    QVERIFY(!five.sourceOf(3, 1)); // past the cap: known text, but mapped nowhere
    QVERIFY(!five.sourceOf(4, 1));

    // A 64 KiB string of 32768 pieces made by `+` (each "ab" its own piece), rewritten.
    std::string doubling = "let x0 = \"ab\";\n";
    for (int i = 1; i <= 15; ++i)
        doubling += "  x" + std::to_string(i) + " = x" + std::to_string(i - 1) + " + x" +
                    std::to_string(i - 1) + ";\n";
    doubling += "in [ x15 (builtins.replaceStrings [ \"b\" ] [ \"c\" ] x15)\n"
                "  (builtins.replaceStrings [ \"q\" ] [ \"\" ] x15) ]";
    Eval big(doubling);
    const auto items = big.root().elements();
    QVERIFY(items);
    const Evaluator::Limits defaults;
    for (const Value& item : *items) {
        QCOMPARE(item.asString()->size(), size_t(1) << 16);
        QCOMPARE(item.pieces().size(), size_t(defaults.pieces));
    }
    QCOMPARE((*items)[1].sourceOf(0, 1)->range.begin, big.range("\"ab\"").begin + 1);
    QCOMPARE((*items)[1].sourceOf(1, 1)->range.begin, big.range("[ \"c\" ]").begin + 3);
    QCOMPARE((*items)[2].sourceOf(0, 2)->range.begin, big.range("\"ab\"").begin + 1);
}

void TestEvaluator::librarySpellings_data()
{
    QTest::addColumn<QString>("source");
    QTest::newRow("lib") << R"({ lib }: lib.concatStringsSep "-" [ "a" "b" ])";
    QTest::newRow("with lib") << R"({ lib }: with lib; concatStringsSep "-" [ "a" "b" ])";
    QTest::newRow("pkgs.lib") << R"({ pkgs }: pkgs.lib.concatStringsSep "-" [ "a" "b" ])";
    QTest::newRow("lib.strings") << R"({ lib }: lib.strings.concatStringsSep "-" [ "a" "b" ])";
    QTest::newRow("builtins") << R"(x: builtins.concatStringsSep "-" [ "a" "b" ])";
    QTest::newRow("prev.lib") << R"(final: prev: prev.lib.concatStringsSep "-" [ "a" "b" ])";
    QTest::newRow("bound")
        << R"({ pkgs }: let l = pkgs.lib; in l.concatStringsSep "-" [ "a" "b" ])";
    QTest::newRow("nixpkgs_pinned.lib") << R"(x: let
        nixpkgs_pinned = import (builtins.fetchTarball { url = "u"; }) { };
      in nixpkgs_pinned.lib.concatStringsSep "-" [ "a" "b" ])";
    QTest::newRow("with nixpkgs_pinned.lib") << R"(x: let
        nixpkgs_pinned = import (builtins.fetchTarball { url = "u"; }) { };
      in with nixpkgs_pinned.lib; concatStringsSep "-" [ "a" "b" ])";
}

void TestEvaluator::librarySpellings()
{
    QFETCH(QString, source);
    Eval e(source.toStdString());
    const Value value = e.body();
    QCOMPARE(value.asString(), std::optional<std::string>("a-b"));
    QCOMPARE(value.origin().range.end, uint32_t(e.tree.source().size()));
}

void TestEvaluator::everyFunctionTwoWays_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("expected");
    struct Case
    {
        const char* call; // `F` stands for the function
        const char* expected;
        std::vector<const char*> spellings;
    };
    const Case cases[] = {
        {"F true [ \"a\" ]", "[ \"a\" ]", {"lib.optionals", "lib.lists.optionals"}},
        {"F true \"b\"", "[ \"b\" ]", {"lib.optional", "pkgs.lib.optional"}},
        {"F true \"c\"", "\"c\"", {"lib.optionalString", "lib.strings.optionalString"}},
        {"F true { d = 1; }", "{ d = 1; }", {"lib.optionalAttrs", "lib.attrsets.optionalAttrs"}},
        {"F \",\" (x: x + \"!\") [ \"a\" \"b\" ]",
         "\"a!,b!\"",
         {"lib.concatMapStringsSep", "lib.strings.concatMapStringsSep"}},
        {"F \"sm_\" \"sm_86\"", "\"86\"", {"lib.removePrefix", "lib.strings.removePrefix"}},
        {"F \".nix\" \"a.nix\"", "\"a\"", {"lib.removeSuffix", "lib.strings.removeSuffix"}},
        {"F 12", "\"12\"", {"builtins.toString", "toString"}},
        {"F \"12.0.1\"", "\"12.0\"", {"lib.versions.majorMinor", "final.lib.versions.majorMinor"}},
        {"F [ \".\" ] [ \"\" ] \"8.6\"",
         "\"86\"",
         {"lib.replaceStrings", "builtins.replaceStrings"}},
        {"F \"8.6;9.0\"", "\"'8.6;9.0'\"", {"lib.escapeShellArg", "lib.strings.escapeShellArg"}},
        {"F (x: x * 2) [ 1 2 ]", "[ 2 4 ]", {"map", "builtins.map"}},
        {"F \"a(b)?(c)\" \"ac\"", "[ null \"c\" ]", {"builtins.match", "__match"}},
        {"F \"-\" \"a-b\"", "[ \"a\" \"b\" ]", {"lib.splitString", "lib.strings.splitString"}},
        {"F [ 1 2 ] 1", "2", {"builtins.elemAt", "lib.elemAt", "lib.lists.elemAt", "__elemAt"}},
        {"F [ 1 2 ]", "1", {"builtins.head", "lib.head", "__head"}},
        {"F [ 1 2 ]", "[ 2 ]", {"builtins.tail", "lib.tail", "__tail"}},
        {"F [ 1 2 ]", "2", {"lib.last", "lib.lists.last"}},
        {"F [ 1 2 ]", "2", {"builtins.length", "lib.length", "__length"}},
        {"F \"abc\"", "3", {"builtins.stringLength", "lib.stringLength", "__stringLength"}},
        {"F ./a/b.nix", "\"b.nix\"", {"builtins.baseNameOf", "baseNameOf"}},
        {"F \"a/b\"", "\"a\"", {"builtins.dirOf", "dirOf"}},
    };
    for (const Case& c : cases)
        for (const char* spelling : c.spellings) {
            QString call = QString::fromUtf8(c.call);
            call.replace(QLatin1Char('F'), QString::fromUtf8(spelling));
            QTest::newRow(spelling) << "{ lib, pkgs, final }: " + call << QString(c.expected);
            // The same through `with`, by the last segment alone.
            const QString name = QString::fromUtf8(spelling).section(QLatin1Char('.'), -1);
            const QString scope = QString::fromUtf8(spelling).section(QLatin1Char('.'), 0, -2);
            if (scope.isEmpty())
                continue;
            QString bare = QString::fromUtf8(c.call);
            bare.replace(QLatin1Char('F'), name);
            QTest::newRow(qPrintable("with " + scope + "; " + name))
                << "{ lib, pkgs, final }: with " + scope + "; " + bare << QString(c.expected);
        }
}

void TestEvaluator::everyFunctionTwoWays()
{
    QFETCH(QString, source);
    QFETCH(QString, expected);
    Eval e(source.toStdString());
    QCOMPARE(QString::fromStdString(e.body().describe()), expected);
}

void TestEvaluator::match()
{
    const auto items = [](std::string_view source) {
        Eval e{std::string(source)};
        return e.root().describe();
    };
    // The whole string must match: a match of part of it is none, anchors change nothing.
    QCOMPARE(items(R"(builtins.match "b" "abc")"), std::string("null"));
    QCOMPARE(items(R"(builtins.match "ab" "abc")"), std::string("null"));
    QCOMPARE(items(R"(builtins.match "^abc$" "abc")"), std::string("[ ]"));
    QCOMPARE(items(R"(builtins.match "a|b" "b")"), std::string("[ ]"));
    QCOMPARE(items(R"(builtins.match "(a)|b" "b")"), std::string("[ null ]"));
    // A group that takes no part is null; POSIX classes and bounds work.
    QCOMPARE(items(R"(builtins.match "a(b)?c" "ac")"), std::string("[ null ]"));
    QCOMPARE(items(R"(builtins.match "([[:alpha:]]+)-([0-9]{1,3})(\.([0-9]+))?" "v-12")"),
             std::string("[ \"v\" \"12\" null null ]"));
    QCOMPARE(items(R"x(builtins.match "(.*)-(.*)" "a-b-c")x"), std::string("[ \"a-b\" \"c\" ]"));
    // `]` first and `(` inside a bracket, and an escaped `(`, are no group. (Not a raw string:
    // moc misreads one with unbalanced parentheses.)
    const std::string brackets = "builtins.match \"[]a(]+(\\\\()\" \"]a(\"";
    QCOMPARE(items(brackets), std::string("[ \"(\" ]"));

    // A captured string keeps the bytes it was taken from.
    Eval captured(R"(builtins.match "a(b+)c" "abbc")");
    const Value group = captured.root().element(0).value_or(Value());
    QCOMPARE(group.asString(), std::optional<std::string>("bb"));
    QCOMPARE(group.sourceOf(0, 2)->range.begin, captured.range("\"abbc\"").begin + 2);

    // What a repeated group captures last differs between matchers: not guessed. The others
    // stay known.
    Eval repeated(R"x(builtins.match "(x)((a*)+|b{2,})" "xaaa")x");
    const Value repeatedItems = repeated.root();
    QCOMPARE(repeatedItems.size(), size_t(3));
    QCOMPARE(repeatedItems.element(0)->asString(), std::optional<std::string>("x"));
    QCOMPARE(repeatedItems.element(1)->asString(), std::optional<std::string>("aaa"));
    QCOMPARE(repeatedItems.element(2)->cause(), Cause::Unsupported);
    QCOMPARE(Eval(R"(builtins.match "(a){2}(b){1}" "aab")").root().element(0)->cause(),
             Cause::Unsupported);
    QCOMPARE(Eval(R"(builtins.match "(a){2}(b){1}" "aab")").root().element(1)->asString(),
             std::optional<std::string>("b"));

    // An invalid regex fails in Nix; unknown arguments make an unknown result.
    Eval invalidEval(R"(builtins.match "(" "a")");
    const Value invalid = invalidEval.root();
    QCOMPARE(invalid.cause(), Cause::Error);
    QVERIFY(invalid.reason().find("regular expression") != std::string_view::npos);
    QCOMPARE(Eval(R"(builtins.match "a" 1)").root().cause(), Cause::Error);
    QCOMPARE(Eval(R"({ s }: builtins.match "a" s)").body().cause(), Cause::Dependent);
    QCOMPARE(Eval(R"({ r }: builtins.match r "a")").body().cause(), Cause::Dependent);

    // One regex, compiled once, matching several strings.
    QCOMPARE(items(R"(map (builtins.match "(a)?b") [ "ab" "b" "c" ])"),
             std::string("[ [ \"a\" ] [ null ] null ]"));
}

void TestEvaluator::matchBounds()
{
    // Regexes whose automaton would be large, and strings too long for a regex, are limits.
    QCOMPARE(Eval(R"(builtins.match "(a?){1000}{99}" "a")").root().cause(), Cause::Limit);
    QCOMPARE(Eval("builtins.match \"" + std::string(2000, 'a') + "\" \"a\"").root().cause(),
             Cause::Limit);
    const std::string longText = "let s = \"" + std::string(60000, 'a') + "\"; in ";
    QCOMPARE(Eval(longText + "builtins.match \"" + std::string(1000, '.') + "\" s").root().cause(),
             Cause::Limit);
    // Backtracking would take exponential time here; the string is long as well.
    Eval manyEval(longText + R"(builtins.match "(a|a)*(b)?" s)");
    const Value many = manyEval.root();
    QCOMPARE(many.size(), size_t(2));
    QCOMPARE(many.element(1)->kind(), Kind::Null);
    QCOMPARE(Eval(longText + R"(builtins.match "(a|a)*b" s)").root().kind(), Kind::Null);
}

void TestEvaluator::splitString()
{
    Eval e(R"({ lib }: lib.splitString "--" "a--b----c--")");
    const Value parts = e.body();
    QCOMPARE(parts.describe(), std::string("[ \"a\" \"b\" \"\" \"c\" \"\" ]"));
    QCOMPARE(parts.element(3)->sourceOf(0, 1)->range.begin, e.range("\"a--b").begin + 9);
    QCOMPARE(Eval(R"({ lib }: lib.strings.splitString "," "")").body().describe(),
             std::string("[ \"\" ]"));
    QCOMPARE(Eval(R"({ lib }: lib.splitString "." 1)").body().describe(), std::string("[ \"1\" ]"));
    QCOMPARE(Eval(R"({ lib }: lib.splitString "" "ab")").body().cause(), Cause::Unsupported);
    QCOMPARE(Eval(R"({ lib, s }: lib.splitString "." s)").body().cause(), Cause::Dependent);
}

void TestEvaluator::listNatives()
{
    std::deque<Eval> evals; // values live as long as their evaluator
    const auto value = [&](std::string_view source) {
        return evals.emplace_back(std::string(source)).body();
    };
    QCOMPARE(value("builtins.elemAt [ 1 2 3 ] 2").asInt(), std::optional<int64_t>(3));
    QCOMPARE(value("builtins.elemAt [ 1 2 3 ] 3").cause(), Cause::Error);
    QCOMPARE(value("builtins.elemAt [ 1 2 3 ] (-1)").cause(), Cause::Error);
    QCOMPARE(value("builtins.elemAt [ 1 ] \"0\"").cause(), Cause::Error);
    QCOMPARE(value("builtins.elemAt 1 0").cause(), Cause::Error);
    QCOMPARE(value("builtins.head [ ]").cause(), Cause::Error);
    QCOMPARE(value("builtins.tail [ ]").cause(), Cause::Error);
    QCOMPARE(value("{ lib }: lib.last [ ]").cause(), Cause::Error);
    QCOMPARE(value("builtins.tail [ 1 2 3 ]").describe(), std::string("[ 2 3 ]"));
    QCOMPARE(value("builtins.tail [ 1 ]").describe(), std::string("[ ]"));
    QCOMPARE(value("builtins.length [ ]").asInt(), std::optional<int64_t>(0));
    QCOMPARE(value("builtins.stringLength \"\"").asInt(), std::optional<int64_t>(0));
    QCOMPARE(value("builtins.stringLength 1").cause(), Cause::Error);
    // Elements are lazy: one that fails does not make its neighbours fail.
    QCOMPARE(value("builtins.elemAt [ (throw \"x\") 2 ] 1").asInt(), std::optional<int64_t>(2));
    // An element keeps where it was written and the bindings it flowed through.
    Eval chain("let a = \"x\"; xs = [ a ]; in builtins.head xs");
    const Value head = chain.root();
    QCOMPARE(head.origin().range, chain.range("\"x\""));
    QCOMPARE(head.bindingChain().size(), size_t(2));
    // Unknown lists and indices make unknown results.
    QCOMPARE(Eval("{ xs }: builtins.elemAt xs 0").body().cause(), Cause::Dependent);
    QCOMPARE(Eval("{ n }: builtins.elemAt [ 1 ] n").body().cause(), Cause::Dependent);
    QCOMPARE(Eval("{ xs }: builtins.length xs").body().cause(), Cause::Dependent);
    QCOMPARE(Eval("{ s }: builtins.stringLength s").body().cause(), Cause::Dependent);
}

void TestEvaluator::listAndSetFunctions_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("expected");
    struct Case
    {
        const char* call; // `@` stands for the function
        const char* expected;
        std::vector<const char*> spellings;
    };
    const Case cases[] = {
        {"@ (a: x: a + x) 0 [ 1 2 3 ]",
         "6",
         {"builtins.foldl'", "lib.foldl'", "lib.lists.foldl'", "__foldl'"}},
        {"@ (a: x: a + x) \"\" [ \"a\" \"b\" \"c\" ]",
         "\"abc\"",
         {"builtins.foldl'", "lib.foldl", "lib.lists.foldl"}},
        {"@ (x: a: a + x) \"\" [ \"a\" \"b\" \"c\" ]", "\"cba\"", {"lib.foldr", "lib.lists.foldr"}},
        {"@ (x: a: [ x ] ++ a) [ 0 ] [ 1 2 ]", "[ 1 2 0 ]", {"lib.foldr"}},
        {"@ { a = { b = 1; c = 2; }; d = 1; } { a = { b = 3; }; e = 4; }",
         "{ a = { b = 3; c = 2; }; d = 1; e = 4; }",
         {"lib.recursiveUpdate", "lib.attrsets.recursiveUpdate"}},
        // Where either side is no set, the right one wins whole.
        {"@ { a = { b = 1; }; c = 1; d.e = 1; } { a = 5; c = { x = 2; }; d.f.g = 2; }",
         "{ a = 5; c = { x = 2; }; d = { e = 1; f = { g = 2; }; }; }",
         {"lib.recursiveUpdate"}},
        {"@ (n: v: n + \"=\" + toString v) { b = 2; a = 1; }",
         "{ a = \"a=1\"; b = \"b=2\"; }",
         {"builtins.mapAttrs", "lib.mapAttrs", "lib.attrsets.mapAttrs", "__mapAttrs"}},
        {"@ { b = 1; a = 2; \"c d\" = 3; }",
         "[ \"a\" \"b\" \"c d\" ]",
         {"builtins.attrNames", "lib.attrNames", "lib.attrsets.attrNames", "__attrNames"}},
        {"@ { b = 1; a = 2; }",
         "[ 2 1 ]",
         {"builtins.attrValues", "lib.attrValues", "__attrValues"}},
        {"@ [ \"y\" \"x\" \"y\" ] (n: n + n)",
         "{ x = \"xx\"; y = \"yy\"; }",
         {"lib.genAttrs", "lib.attrsets.genAttrs"}},
        {"@ (x: [ x x ]) [ 1 2 ]",
         "[ 1 1 2 2 ]",
         {"builtins.concatMap", "lib.concatMap", "lib.lists.concatMap", "__concatMap"}},
        {"@ (x: x > 1) [ 1 2 3 ]",
         "[ 2 3 ]",
         {"builtins.filter", "lib.filter", "lib.lists.filter", "__filter"}},
        {"[ (@ 2 [ 1 2 ]) (@ 3 [ 1 2 ]) (@ [ 1 ] [ [ 1 ] ]) (@ 1 [ ]) ]",
         "[ true false true false ]",
         {"builtins.elem", "lib.elem", "__elem"}},
        {"@ [ 1 [ 2 [ 3 ] ] [ ] 4 ]", "[ 1 2 3 4 ]", {"lib.flatten", "lib.lists.flatten"}},
        {"@ 1", "[ 1 ]", {"lib.flatten"}},
        {"@ \"a\" { a = 1; }", "1", {"builtins.getAttr", "lib.getAttr", "__getAttr"}},
        {"[ (@ \"a\" { a = 1; }) (@ \"b\" { a = 1; }) ]",
         "[ true false ]",
         {"builtins.hasAttr", "lib.hasAttr", "__hasAttr"}},
        // The first entry of a name wins.
        {"@ [ { name = \"a\"; value = 1; } { name = \"b\"; value = 2; } { name = \"a\"; value = 3; "
         "} ]",
         "{ a = 1; b = 2; }",
         {"builtins.listToAttrs", "lib.listToAttrs", "lib.attrsets.listToAttrs", "__listToAttrs"}},
        {"@ \"a\" 1",
         "{ name = \"a\"; value = 1; }",
         {"lib.nameValuePair", "lib.attrsets.nameValuePair"}},
        {"[ (@ \"s\") (@ 1) (@ ./s) ]",
         "[ true false false ]",
         {"builtins.isString", "lib.isString", "__isString"}},
        {"[ (@ { }) (@ [ ]) ]", "[ true false ]", {"builtins.isAttrs", "lib.isAttrs", "__isAttrs"}},
        {"[ (@ [ ]) (@ { }) ]", "[ true false ]", {"builtins.isList", "lib.isList", "__isList"}},
        {"[ (@ (x: x)) (@ builtins.head) (@ (builtins.elemAt [ ])) (@ { }) (@ \"f\") ]",
         "[ true true true false false ]",
         {"builtins.isFunction", "lib.isFunction", "__isFunction"}},
        {"[ (@ true) (@ null) ]", "[ true false ]", {"builtins.isBool", "lib.isBool", "__isBool"}},
        {"[ (@ 1) (@ 1.5) ]", "[ true false ]", {"builtins.isInt", "lib.isInt", "__isInt"}},
        {"[ (@ 1.5) (@ 1) ]", "[ true false ]", {"builtins.isFloat", "__isFloat"}},
        {"[ (@ ./a) (@ \"./a\") ]",
         "[ true false ]",
         {"builtins.isPath", "lib.isPath", "__isPath"}},
    };
    const QString head = QStringLiteral("{ lib, pkgs, src }: ");
    for (const Case& c : cases)
        for (const char* spelling : c.spellings) {
            const QString function = QString::fromUtf8(spelling);
            const auto called = [&](const QString& by) {
                return QString::fromUtf8(c.call).replace(QLatin1Char('@'), by);
            };
            const auto row = [&](const QString& source) {
                QTest::newRow(qPrintable(source)) << head + source << QString(c.expected);
            };
            row(called(function));
            const qsizetype dot = function.lastIndexOf(QLatin1Char('.'));
            if (dot < 0)
                continue;
            const QString scope = function.left(dot);
            const QString name = function.mid(dot + 1);
            row("with " + scope + "; " + called(name));
            row("let inherit (" + scope + ") " + name + "; in " + called(name));
            if (!function.startsWith(QLatin1String("lib.")))
                continue;
            // nixpkgs' lib imported from a source that is not known, or taken from nixpkgs.
            const QString inLib = function.mid(4);
            row("let nixlib = import (src + \"/lib\"); in " + called("nixlib." + inLib));
            row("let nixlib = import \"${src}/lib/default.nix\"; in " + called("nixlib." + inLib));
            row("with import (src + \"/lib\"); " + called(inLib));
            row(called("(import src { }).lib." + inLib));
            row(called("pkgs." + function));
        }
}

void TestEvaluator::listAndSetFunctions()
{
    QFETCH(QString, source);
    QFETCH(QString, expected);
    Eval e(source.toStdString());
    QCOMPARE(QString::fromStdString(e.body().describe(5)), expected);
}

void TestEvaluator::importedLib()
{
    std::deque<Eval> evals;
    const auto value = [&](std::string_view source) {
        return evals.emplace_back(std::string(source)).body();
    };
    // nixpkgs' lib imported from a source that is not known is `lib`.
    for (std::string_view source :
         {"{ src }: import (src + \"/lib\")", "{ src }: import (src + \"/lib/\")",
          "{ src }: import (src + \"/lib/default.nix\")", "{ src }: import \"${src}/lib\"",
          "import <nixpkgs/lib>",
          "let src = builtins.fetchTarball { url = \"u\"; }; in import (src + \"/lib\")"}) {
        const Value lib = value(source);
        QCOMPARE(lib.symbolicPath(), std::string_view("lib"));
        QCOMPARE(lib.cause(), Cause::External);
    }
    // Other files of the source are not.
    for (std::string_view source :
         {"{ src }: import (src + \"/pkgs/lib\")", "{ src }: import (src + \"/lib/strings.nix\")",
          "{ src }: import (src + \"/libs\")", "{ src }: import src",
          "{ src }: import \"${src}/x/lib\""})
        QCOMPARE(value(source).symbolicPath(), std::string_view("import(...)"));
    // Its functions are the native ones, under any name it is bound to.
    const Value function = value("{ src }: (import (src + \"/lib\")).recursiveUpdate");
    QCOMPARE(function.kind(), Kind::Function);
    QCOMPARE(function.symbolicPath(), std::string_view("lib.recursiveUpdate"));
    QCOMPARE(value("{ src }: let l = import (src + \"/lib\"); in "
                   "l.strings.concatStringsSep \"-\" [ \"a\" \"b\" ]")
                 .asString(),
             std::optional<std::string>("a-b"));
    // Anything else of it stays unknown under lib's name.
    QCOMPARE(value("{ src }: let l = import (src + \"/lib\"); in l.platforms.linux").symbolicPath(),
             std::string_view("lib.platforms.linux"));
    QCOMPARE(value("{ src }: (import (src + \"/lib\")).toUpper \"a\"").symbolicPath(),
             std::string_view("lib.toUpper(...)"));
}

void TestEvaluator::mergedConfiguration_data()
{
    QTest::addColumn<QString>("name"); // what lib is bound to
    QTest::addColumn<QString>("lib");
    QTest::newRow("lib = import (src + \"/lib\")") << "lib"
                                                   << R"(import (src + "/lib"))";
    QTest::newRow("nixlib = import (src + \"/lib\")") << "nixlib"
                                                      << R"(import (src + "/lib"))";
    QTest::newRow("nixlib = import \"${src}/lib\"") << "nixlib"
                                                    << R"(import "${src}/lib")";
    QTest::newRow("nixlib = (import src { }).lib") << "nixlib"
                                                   << R"((import src { }).lib)";
    QTest::newRow("nixlib = pkgs.lib") << "nixlib"
                                       << R"(let pkgs = import src { }; in pkgs.lib)";
}

// The shape of a recipe that merges per-variant settings into common ones.
void TestEvaluator::mergedConfiguration()
{
    QFETCH(QString, name);
    QFETCH(QString, lib);
    Eval e(R"(let
  src = builtins.fetchTarball { url = "https://github.com/NixOS/nixpkgs/archive/abc.tar.gz"; };
  )" + name.toStdString() +
           " = " + lib.toStdString() + R"(;
  mkMerge = builtins.foldl' )" +
           name.toStdString() + R"(.recursiveUpdate { };
  common = { config = { allowUnfree = true; cudaSupport = true; }; localSystem.system = "x86_64-linux"; };
  perVariant = { config.cudaCapabilities = [ "9.0" ]; localSystem.gcc = { arch = "cascadelake"; tune = "generic"; }; };
in mkMerge [ common perVariant ])");
    QCOMPARE(e.binding("mkMerge").kind(), Kind::Function);
    const Value merged = e.root();
    QCOMPARE(merged.kind(), Kind::AttrSet);
    QVERIFY(!merged.isOpen());
    QCOMPARE(merged.describe(5),
             std::string("{ config = { allowUnfree = true; cudaCapabilities = [ \"9.0\" ]; "
                         "cudaSupport = true; }; localSystem = { gcc = { arch = \"cascadelake\"; "
                         "tune = \"generic\"; }; system = \"x86_64-linux\"; }; }"));
    const Value localSystem = *merged.attribute("localSystem");
    const Value arch = *localSystem.attribute("gcc")->attribute("arch");
    QCOMPARE(arch.asString(), std::optional<std::string>("cascadelake"));
    QCOMPARE(arch.origin(), (Origin{"main.nix", e.range("\"cascadelake\"")}));
    QCOMPARE(arch.sourceOf(0, 11)->range, e.range("cascadelake"));
    const uint32_t key = e.range("arch =").begin;
    QCOMPARE(arch.bindingChain().front(), (BindingStep{"arch", "main.nix", {key, key + 4}}));
    const Value system = *localSystem.attribute("system");
    QCOMPARE(system.asString(), std::optional<std::string>("x86_64-linux"));
    QCOMPARE(system.origin(), (Origin{"main.nix", e.range("\"x86_64-linux\"")}));
    const Value config = *merged.attribute("config");
    QCOMPARE(config.attributeNames(),
             (std::vector<std::string_view>{"allowUnfree", "cudaCapabilities", "cudaSupport"}));
    QCOMPARE(config.attribute("allowUnfree")->asBool(), std::optional<bool>(true));
    QCOMPARE(config.attribute("allowUnfree")->origin().range, e.range("true"));
    const Value capabilities = *config.attribute("cudaCapabilities");
    QCOMPARE(strings(capabilities), std::vector<std::string>{"9.0"});
    QCOMPARE(capabilities.element(0)->origin().range, e.range("\"9.0\""));
    QCOMPARE(capabilities.elementExpression(0)->range, e.range("\"9.0\""));
}

void TestEvaluator::folds()
{
    std::deque<Eval> evals;
    const auto value = [&](std::string_view source) {
        return evals.emplace_back(std::string(source)).body();
    };
    // The value keeps where it was written.
    Eval last("builtins.foldl' (a: x: x) 0 [ \"p\" \"q\" ]");
    QCOMPARE(last.root().origin().range, last.range("\"q\""));
    QCOMPARE(value("builtins.foldl' (a: x: a) 5 [ ]").asInt(), std::optional<int64_t>(5));
    QCOMPARE(value("{ lib }: lib.foldr (x: a: a) 5 [ ]").asInt(), std::optional<int64_t>(5));
    // foldl' forces each accumulator, lib.foldl and lib.foldr do not.
    const Value strict = value("builtins.foldl' (a: x: if x == 1 then throw \"one\" else x) 0 "
                               "[ 1 2 ]");
    QCOMPARE(strict.cause(), Cause::Error);
    QCOMPARE(strict.reason(), std::string_view("throw one"));
    QCOMPARE(
        value("{ lib }: lib.foldl (a: x: if x == 1 then throw \"one\" else x) 0 [ 1 2 ]").asInt(),
        std::optional<int64_t>(2));
    QCOMPARE(
        value("{ lib }: lib.foldr (x: a: if x == 1 then 1 else throw \"two\") 0 [ 1 2 ]").asInt(),
        std::optional<int64_t>(1));
    QCOMPARE(value("{ lib }: lib.foldl (a: x: a) (throw \"nul\") [ 1 ]").cause(), Cause::Error);
    // An operator that is a partial application.
    QCOMPARE(value("builtins.foldl' (builtins.foldl' (a: x: a + x)) 0 [ [ 1 2 ] [ 3 ] ]").asInt(),
             std::optional<int64_t>(6));
}

// Attributes that recursiveUpdate, mapAttrs, genAttrs and listToAttrs compute are read
// only when asked for, as in Nix.
void TestEvaluator::lazyAttributes()
{
    std::deque<Eval> evals;
    const auto value = [&](std::string_view source) {
        return evals.emplace_back(std::string(source)).body();
    };
    Eval updated("{ lib }: lib.recursiveUpdate { a = throw \"l\"; b = 1; } "
                 "{ c = throw \"r\"; b = 2; d = { x = throw \"d\"; }; }");
    const Value update = updated.body();
    QCOMPARE(update.attributeNames(), (std::vector<std::string_view>{"a", "b", "c", "d"}));
    QCOMPARE(update.attribute("b")->asInt(), std::optional<int64_t>(2));
    QCOMPARE(update.attribute("b")->origin().range, updated.range("2"));
    QCOMPARE(update.attribute("a")->cause(), Cause::Error);
    QCOMPARE(update.attribute("c")->cause(), Cause::Error);
    QCOMPARE(update.attribute("d")->attributeNames(), std::vector<std::string_view>{"x"});
    // Of an attribute both sides have, the left one is read first.
    QCOMPARE(value("{ lib }: (lib.recursiveUpdate { a = throw \"x\"; } { a = 1; }).a").cause(),
             Cause::Error);
    QCOMPARE(value("{ lib }: (lib.recursiveUpdate { a = 1; } { a = throw \"x\"; }).a").cause(),
             Cause::Error);
    // A merged set that refers to itself.
    QCOMPARE(value("{ lib }: let s = lib.recursiveUpdate { a = s.b; } { b = 1; }; in s.a").asInt(),
             std::optional<int64_t>(1));
    QCOMPARE(value("{ lib }: let s = lib.recursiveUpdate { a.x = s.a.y; } { a.y = 2; }; in s.a.x")
                 .asInt(),
             std::optional<int64_t>(2));
    QCOMPARE(value("{ lib }: let s = lib.recursiveUpdate s { }; in s").cause(), Cause::Cycle);

    Eval mapped("builtins.mapAttrs (n: v: v + 1) { a = throw \"x\"; b = 1; }");
    const Value map = mapped.root();
    QCOMPARE(map.attributeNames(), (std::vector<std::string_view>{"a", "b"}));
    QCOMPARE(map.attribute("b")->asInt(), std::optional<int64_t>(2));
    QCOMPARE(map.attribute("a")->cause(), Cause::Error);
    QCOMPARE(value("let s = builtins.mapAttrs (n: v: v) { a = 1; b = s.a; }; in s.b").asInt(),
             std::optional<int64_t>(1));
    // The name is the attribute's, and maps to it where it is written as it is.
    Eval names("builtins.mapAttrs (n: v: n) { abc = 1; \"q\" = 2; }");
    const Value abc = *names.root().attribute("abc");
    QCOMPARE(abc.asString(), std::optional<std::string>("abc"));
    QCOMPARE(abc.sourceOf(0, 3)->range, names.range("abc"));
    QCOMPARE(names.root().attribute("q")->asString(), std::optional<std::string>("q"));
    QVERIFY(!names.root().attribute("q")->sourceOf(0, 1));
    Eval listed("builtins.attrNames { zz = 1; a = 2; }");
    QCOMPARE(listed.root().element(1)->sourceOf(0, 2)->range, listed.range("zz"));
    Eval values("let v = \"x\"; in builtins.attrValues { a = v; }");
    QCOMPARE(values.root().element(0)->origin().range, values.range("\"x\""));
    QCOMPARE(values.root().elementExpression(0)->range, values.range("v", 1));

    Eval generated("{ lib }: lib.genAttrs [ \"sm_90\" \"x\" ] "
                   "(n: if n == \"x\" then throw \"x\" else n)");
    const Value attrs = generated.body();
    QCOMPARE(attrs.attribute("x")->cause(), Cause::Error);
    const Value sm = *attrs.attribute("sm_90");
    QCOMPARE(sm.sourceOf(0, 5)->range, generated.range("sm_90"));
    QCOMPARE(sm.bindingChain().back(),
             (BindingStep{"sm_90", "main.nix", generated.range("sm_90")}));

    Eval entries("builtins.listToAttrs [ { name = \"a\"; value = throw \"x\"; } "
                 "{ name = \"b\"; value = 2; } ]");
    QCOMPARE(entries.root().attribute("a")->cause(), Cause::Error);
    QCOMPARE(entries.root().attribute("b")->asInt(), std::optional<int64_t>(2));
    QCOMPARE(entries.root().attribute("b")->origin().range, entries.range("2"));
    // Elements that fail are not read unless needed.
    QCOMPARE(value("builtins.elem 1 [ 1 (throw \"x\") ]").asBool(), std::optional<bool>(true));
    QCOMPARE(value("builtins.elem 2 [ 1 (throw \"x\") ]").cause(), Cause::Error);
    QCOMPARE(value("builtins.length (builtins.filter (x: true) [ (throw \"x\") ])").asInt(),
             std::optional<int64_t>(1));
}

void TestEvaluator::listAndSetFunctionsWithUnknowns()
{
    std::deque<Eval> evals;
    const auto value = [&](std::string_view source) {
        return evals.emplace_back(std::string(source)).body();
    };
    const Value folded = value("{ xs }: builtins.foldl' (a: x: a) 0 xs");
    QCOMPARE(folded.symbolicPath(), std::string_view("builtins.foldl'(...)"));
    QCOMPARE(folded.cause(), Cause::Dependent);
    QCOMPARE(value("{ lib, xs }: lib.foldr (x: a: a) 0 xs").symbolicPath(),
             std::string_view("lib.foldr(...)"));

    // Joined, a list with unknown parts keeps its known parts as text: the flags a recipe
    // adds to the inherited ones, which filter leaves unknown.
    Eval joinEval("{ lib, old }: lib.concatStringsSep \" \" (lib.filter (f: f != \"\") "
                  "[ (old.env.CFLAGS or \"\") ] ++ [ \"-mavx2\" \"-mfma\" ])");
    const Value joined = joinEval.body();
    QCOMPARE(joined.cause(), Cause::Dependent);
    const std::vector<Value> joinedParts = joined.parts();
    QCOMPARE(joinedParts.size(), size_t(2));
    QCOMPARE(joinedParts[0].symbolicPath(), std::string_view("lib.filter(...)"));
    QCOMPARE(joinedParts[1].asString(), std::optional<std::string>(" -mavx2 -mfma"));
    QCOMPARE(joinedParts[1].sourceOf(1, 6)->range, joinEval.range("-mavx2"));
    // With no unknown part the list is known, and so is the string.
    QCOMPARE(value("{ lib }: lib.concatStringsSep \",\" ([ \"a\" ] ++ [ \"b\" ])").asString(),
             std::optional<std::string>("a,b"));

    // lib.cartesianProduct (the last name varies fastest) and lib.mapAttrs'.
    const Value product =
        value("{ lib }: lib.cartesianProduct { b = [ \"x\" \"y\" ]; a = [ 1 2 ]; }");
    QCOMPARE(product.size(), size_t(4));
    QCOMPARE(product.element(1)->attribute("a")->asInt(), std::optional<int64_t>(1));
    QCOMPARE(product.element(1)->attribute("b")->asString(), std::optional<std::string>("y"));
    QCOMPARE(product.element(2)->attribute("a")->asInt(), std::optional<int64_t>(2));
    QCOMPARE(value("{ lib, o }: lib.cartesianProduct o").symbolicPath(),
             std::string_view("lib.cartesianProduct(...)"));
    const Value renamed = value(
        "{ lib }: lib.mapAttrs' (n: v: lib.nameValuePair (\"k-\" + n) (v * 2)) { a = 1; b = 2; }");
    QCOMPARE(renamed.attributeNames(), (std::vector<std::string_view>{"k-a", "k-b"}));
    QCOMPARE(renamed.attribute("k-b")->asInt(), std::optional<int64_t>(4));
    QCOMPARE(value("{ lib, o }: lib.mapAttrs' (n: v: v) o").symbolicPath(),
             std::string_view("lib.mapAttrs'(...)"));

    // An unknown left side: only the right side's attributes are known, its sets open.
    Eval leftEval("{ lib, o }: lib.recursiveUpdate o { a = 1; b = { c = 2; }; }");
    const Value left = leftEval.body();
    QCOMPARE(left.kind(), Kind::AttrSet);
    QVERIFY(left.isOpen());
    QCOMPARE(left.attributeNames(), (std::vector<std::string_view>{"a", "b"}));
    QCOMPARE(left.attribute("a")->asInt(), std::optional<int64_t>(1));
    QCOMPARE(left.attribute("a")->origin().range, leftEval.range("1"));
    QCOMPARE(left.attribute("z")->symbolicPath(), std::string_view("o.z"));
    const Value b = *left.attribute("b");
    QVERIFY(b.isOpen());
    QCOMPARE(b.attribute("c")->asInt(), std::optional<int64_t>(2));
    QCOMPARE(b.attribute("d")->symbolicPath(), std::string_view("o.b.d"));
    // An unknown right side: nothing is known, unless the left side is empty.
    const Value right = value("{ lib, o }: lib.recursiveUpdate { a = 1; } o");
    QCOMPARE(right.symbolicPath(), std::string_view("lib.recursiveUpdate(...)"));
    QCOMPARE(right.cause(), Cause::Dependent);
    QCOMPARE(value("{ lib, o }: lib.recursiveUpdate { } o").symbolicPath(), std::string_view("o"));
    // An open right side may have any of the left side's attributes.
    Eval openEval("{ lib, o }: lib.recursiveUpdate { a = 1; b = 2; } (o // { b = 3; })");
    const Value open = openEval.body();
    QCOMPARE(open.attribute("a")->symbolicPath(), std::string_view("o.a"));
    QCOMPARE(open.attribute("b")->asInt(), std::optional<int64_t>(3));
    const Value mixed =
        value("{ lib, o }: builtins.foldl' lib.recursiveUpdate { } [ { a = 1; } o { b = 2; } ]");
    QVERIFY(mixed.isOpen());
    QCOMPARE(mixed.attribute("b")->asInt(), std::optional<int64_t>(2));
    QCOMPARE(mixed.attribute("a")->symbolicPath(), std::string_view("lib.recursiveUpdate(...).a"));

    QCOMPARE(value("{ lib, s }: lib.mapAttrs (n: v: v) s").symbolicPath(),
             std::string_view("lib.mapAttrs(...)"));
    const Value mappedOpen = value("{ o }: builtins.mapAttrs (n: v: v + 1) (o // { a = 1; })");
    QVERIFY(mappedOpen.isOpen());
    QCOMPARE(mappedOpen.attribute("a")->asInt(), std::optional<int64_t>(2));
    QCOMPARE(mappedOpen.attribute("z")->symbolicPath(),
             std::string_view("builtins.mapAttrs(...).z"));
    QCOMPARE(value("{ o }: builtins.attrNames (o // { a = 1; })").symbolicPath(),
             std::string_view("builtins.attrNames(...)"));
    QCOMPARE(value("{ o }: builtins.attrValues o").symbolicPath(),
             std::string_view("builtins.attrValues(...)"));

    QCOMPARE(value("{ lib, names }: lib.genAttrs names (n: n)").symbolicPath(),
             std::string_view("lib.genAttrs(...)"));
    const Value generated = value("{ lib, o }: lib.genAttrs [ \"a\" o ] (n: n)");
    QVERIFY(generated.isOpen());
    QCOMPARE(generated.attribute("a")->asString(), std::optional<std::string>("a"));
    // After an unknown entry, a name may be that entry's.
    const Value entries = value("{ o }: builtins.listToAttrs [ { name = \"a\"; value = 1; } o "
                                "{ name = \"b\"; value = 2; } ]");
    QVERIFY(entries.isOpen());
    QCOMPARE(entries.attribute("a")->asInt(), std::optional<int64_t>(1));
    QCOMPARE(entries.attribute("b")->symbolicPath(),
             std::string_view("builtins.listToAttrs(...).b"));

    // An element whose predicate is unknown may be kept: a part with it as fallback.
    const Value filtered = value("{ o }: builtins.filter (x: x == 1 || o) [ 1 2 ]");
    QVERIFY(filtered.isUnknown());
    const auto parts = filtered.parts();
    QCOMPARE(parts.size(), size_t(2));
    QCOMPARE(parts[0].describe(), std::string("[ 1 ]"));
    QCOMPARE(parts[1].symbolicPath(), std::string_view("builtins.filter(...)"));
    QCOMPARE(parts[1].fallback()->describe(), std::string("[ 2 ]"));
    const auto concatenated =
        value("{ o }: builtins.concatMap (x: if x == 1 then [ x ] else o) [ 1 2 ]").parts();
    QCOMPARE(concatenated.size(), size_t(2));
    QCOMPARE(concatenated[0].describe(), std::string("[ 1 ]"));
    QCOMPARE(concatenated[1].symbolicPath(), std::string_view("o"));
    const auto flat = value("{ lib, o }: lib.flatten [ 1 [ o 2 ] ]").parts();
    QCOMPARE(flat.size(), size_t(3));
    QCOMPARE(flat[1].symbolicPath(), std::string_view("lib.flatten(...)"));
    QCOMPARE(flat[2].describe(), std::string("[ 2 ]"));

    QCOMPARE(value("{ o }: builtins.elem o [ 1 ]").symbolicPath(),
             std::string_view("builtins.elem(...)"));
    QCOMPARE(value("{ o }: builtins.elem 1 [ 1 o ]").asBool(), std::optional<bool>(true));
    QCOMPARE(value("{ o }: builtins.elem 2 [ 1 o ]").cause(), Cause::Dependent);
    QCOMPARE(value("{ o }: builtins.getAttr \"a\" o").symbolicPath(), std::string_view("o.a"));
    QCOMPARE(value("{ lib }: builtins.getAttr \"concatStringsSep\" lib \"-\" [ \"a\" \"b\" ]")
                 .asString(),
             std::optional<std::string>("a-b"));
    QCOMPARE(value("{ o }: builtins.hasAttr \"a\" o").symbolicPath(),
             std::string_view("builtins.hasAttr(...)"));
    QCOMPARE(value("{ o }: builtins.hasAttr \"a\" (o // { a = 1; })").asBool(),
             std::optional<bool>(true));
    QCOMPARE(value("{ o }: builtins.hasAttr \"b\" (o // { a = 1; })").cause(), Cause::Dependent);
    QCOMPARE(value("{ o }: builtins.isString o").symbolicPath(),
             std::string_view("builtins.isString(...)"));
    QCOMPARE(value("{ o }: builtins.isAttrs (o // { })").asBool(), std::optional<bool>(true));
    // lib.isFunction takes a set with __functor, which we do not call.
    QCOMPARE(value("{ lib }: lib.isFunction { __functor = self: x: x; }").cause(),
             Cause::Unsupported);
    QCOMPARE(value("builtins.isFunction { __functor = self: x: x; }").asBool(),
             std::optional<bool>(false));
}

void TestEvaluator::listAndSetTypeErrors_data()
{
    QTest::addColumn<QString>("source");
    for (const char* source : {
             "builtins.foldl' (a: x: a) 0 1",
             "builtins.foldl' 1 0 [ ]",
             "builtins.foldl' 1 0 [ 1 ]",
             "{ lib }: lib.foldr (x: a: a) 0 { }",
             "{ lib }: lib.recursiveUpdate 1 { }",
             "{ lib }: lib.recursiveUpdate { } [ ]",
             "{ lib, o }: lib.recursiveUpdate \"s\" o",
             "builtins.mapAttrs (n: v: v) [ ]",
             "builtins.attrNames 1",
             "builtins.attrValues [ ]",
             "{ lib }: lib.genAttrs [ 1 ] (n: n)",
             "{ lib }: lib.genAttrs { } (n: n)",
             "builtins.concatMap (x: x) [ 1 ]",
             "builtins.concatMap (x: [ x ]) 1",
             "builtins.filter (x: 1) [ 1 ]",
             "builtins.filter (x: true) { }",
             "builtins.elem 1 { }",
             "builtins.getAttr 1 { }",
             "builtins.getAttr \"b\" { a = 1; }",
             "builtins.getAttr \"a\" [ ]",
             "builtins.hasAttr \"a\" 1",
             "builtins.listToAttrs [ 1 ]",
             "builtins.listToAttrs [ { value = 1; } ]",
             "builtins.listToAttrs [ { name = \"a\"; } ]",
             "builtins.listToAttrs [ { name = 1; value = 1; } ]",
             "builtins.listToAttrs { }",
             "builtins.isString (throw \"x\")",
             "{ lib }: lib.flatten [ (throw \"x\") ]",
         })
        QTest::newRow(source) << QString::fromUtf8(source);
}

void TestEvaluator::listAndSetTypeErrors()
{
    QFETCH(QString, source);
    Eval e(source.toStdString());
    QCOMPARE(e.body().cause(), Cause::Error);
}

void TestEvaluator::listAndSetLimits()
{
    QElapsedTimer timer;
    timer.start();
    std::string lists = "{ lib }: let l0 = [ 1 ];\n";
    for (int i = 1; i <= 14; ++i)
        lists += "  l" + std::to_string(i) + " = l" + std::to_string(i - 1) + " ++ l" +
                 std::to_string(i - 1) + ";\n";
    lists += "in ";
    // 16384 elements fold within the budget, but not within a small one.
    QCOMPARE(Eval(lists + "builtins.foldl' (a: x: a + x) 0 l14").body().asInt(),
             std::optional<int64_t>(16384));
    Evaluator::Limits few;
    few.steps = 5000;
    QCOMPARE(Eval(lists + "builtins.foldl' (a: x: a + x) 0 l14", nullptr, "main.nix", few)
                 .body()
                 .cause(),
             Cause::Limit);
    Evaluator::Limits some;
    some.steps = 50000;
    // An accumulator that doubles is too large; one that grows is charged by its size (or
    // the default budget would copy 16384 lists of up to 16384 elements).
    QCOMPARE(Eval(lists + "builtins.foldl' (a: x: a ++ a) [ 1 ] l14").body().cause(), Cause::Limit);
    QCOMPARE(Eval(lists + "builtins.foldl' (a: x: a ++ [ x ]) [ ] l14").body().cause(),
             Cause::Limit);
    QCOMPARE(Eval(lists + "lib.foldr (x: a: [ x ] ++ a) [ ] l14", nullptr, "main.nix", some)
                 .body()
                 .cause(),
             Cause::Limit);
    QCOMPARE(Eval(lists + "builtins.foldl' (a: x: a // { \"${toString a.n}\" = x; n = a.n + 1; })"
                          " { n = 0; } l14")
                 .body()
                 .cause(),
             Cause::Limit);
    // map makes a thunk per element, charged: else 16384 maps of 16384 elements.
    QCOMPARE(Eval(lists + "builtins.foldl' (a: x: builtins.length (map (y: y) l14)) 0 l14", nullptr,
                  "main.nix", some)
                 .body()
                 .cause(),
             Cause::Limit);
    QCOMPARE(Eval(lists + "builtins.foldl' (a: x: lib.recursiveUpdate a (builtins.listToAttrs "
                          "(map (y: { name = toString y; value = y; }) l10))) { } l14",
                  nullptr, "main.nix", some)
                 .body()
                 .cause(),
             Cause::Limit);
    // Recursion through the natives ends too.
    QCOMPARE(Eval("let f = n: builtins.foldl' (a: x: f (n + 1)) 0 [ 1 ]; in f 0").root().cause(),
             Cause::Limit);
    QCOMPARE(Eval("{ lib }: let f = n: if n == 0 then { } else builtins.foldl' "
                  "lib.recursiveUpdate { } [ (f (n - 1)) (f (n - 1)) { a = n; } ]; in f 40",
                  nullptr, "main.nix", some)
                 .body()
                 .cause(),
             Cause::Limit);
    QCOMPARE(
        Eval("let f = n: builtins.mapAttrs (k: v: f v) { a = n; }; in (f 0).a.a.a").root().kind(),
        Kind::AttrSet);
    QCOMPARE(Eval("let f = n: builtins.concatMap (x: f x) [ n ]; in f 0").root().cause(),
             Cause::Limit);
    QCOMPARE(Eval("{ lib }: let f = n: lib.flatten [ (f n) ]; in f 0").body().cause(),
             Cause::Limit);
    // Deeply nested lists.
    std::string nested = "{ lib }: lib.flatten ";
    for (int i = 0; i < 100; ++i)
        nested += "[ ";
    nested += "1 ";
    for (int i = 0; i < 100; ++i)
        nested += "] ";
    QCOMPARE(Eval(nested).body().cause(), Cause::Limit);
    // Well under a second on its own; generous for a loaded machine.
    QVERIFY(timer.elapsed() < 15000);
}

void TestEvaluator::baseNameAndDirOf()
{
    const auto describe = [](std::string_view source) {
        return Eval(std::string(source)).root().describe();
    };
    QCOMPARE(describe("baseNameOf ./a/b.nix"), std::string("\"b.nix\""));
    QCOMPARE(describe("builtins.baseNameOf \"x/y/z.nix\""), std::string("\"z.nix\""));
    QCOMPARE(describe("baseNameOf \"a/b/\""), std::string("\"b\""));
    QCOMPARE(describe("baseNameOf \"b\""), std::string("\"b\""));
    QCOMPARE(describe("baseNameOf \"\""), std::string("\"\""));
    QCOMPARE(Eval("baseNameOf ./.").root().cause(), Cause::Unsupported);
    QCOMPARE(Eval("baseNameOf 1").root().cause(), Cause::Error);
    QCOMPARE(Eval("{ f }: baseNameOf f").body().cause(), Cause::Dependent);
    Eval path("baseNameOf ./pkgs/torch.nix");
    QCOMPARE(path.root().sourceOf(0, 9)->range.begin, path.range("torch.nix").begin);

    QCOMPARE(describe("dirOf \"a/b/c\""), std::string("\"a/b\""));
    QCOMPARE(describe("dirOf \"b\""), std::string("\".\""));
    QCOMPARE(describe("dirOf \"/b\""), std::string("\"/\""));
    QCOMPARE(describe("dirOf ./a/b.nix"), std::string("./a"));
    QCOMPARE(describe("dirOf ./b.nix"), std::string("."));
    QCOMPARE(describe("dirOf ./."), std::string(".."));
    QCOMPARE(Eval("dirOf ./a/b.nix").root().kind(), Kind::Path);
}

void TestEvaluator::curPos()
{
    Eval e("{\n  a = __curPos;\n  b = let __curPos = 1; in __curPos;\n}");
    const Value a = e.root().attribute("a").value_or(Value());
    QCOMPARE(a.describe(), std::string("{ column = 7; file = \"main.nix\"; line = 2; }"));
    QCOMPARE(a.origin().range, e.range("__curPos"));
    QVERIFY(a.attribute("file")->pieces().empty()); // Nix's absolute path is in no source
    // No binding shadows it.
    QCOMPARE(e.root().attribute("b")->attribute("line")->asInt(), std::optional<int64_t>(3));

    // The file it is written in, even when its value is passed to another module, and the
    // module's own when written there.
    MapLoader loader;
    loader.sources["pkgs/_gen/module.nix"] = "{ file }: { passed = file; own = __curPos.file; }";
    loader.sources["pkgs/stub.nix"] = "import ./_gen/module.nix { file = __curPos.file; }";
    Eval stub(loader.sources["pkgs/stub.nix"], &loader, "pkgs/stub.nix");
    QCOMPARE(stub.root().attribute("passed")->asString(),
             std::optional<std::string>("pkgs/stub.nix"));
    QCOMPARE(stub.root().attribute("own")->asString(),
             std::optional<std::string>("pkgs/_gen/module.nix"));
}

// A generated repository's stubs name their variant, or leave the module to read it from the
// stub's file name; the module parses it with builtins.match.
void TestEvaluator::variantFromFileName()
{
    const std::string module = ".flox/pkgs/_gen/variant.nix";
    const std::string stubId = ".flox/pkgs/pytorch-python313-cuda12_8-sm86-avx2.nix";
    MapLoader loader;
    loader.sources[module] = R"nix({ name ? null, file ? null }:
let
  variantName = if name != null then name
    else builtins.replaceStrings [ ".nix" ] [ "" ] (builtins.baseNameOf (toString file));
  m = builtins.match "(pytorch|torchvision|torchaudio)-python3([0-9]+)-(cuda([0-9]+)_([0-9]+)-sm([0-9]+)|cpu)-([a-z0-9_]+)" variantName;
  at = builtins.elemAt m;
  parsed = if m == null then throw "unknown variant ${variantName}" else {
    package = at 0; pythonAttr = "python3${at 1}Packages"; sm = at 5; isa = at 6;
  };
  torchName = "pytorch" + builtins.substring (builtins.stringLength parsed.package) (-1) variantName;
in { inherit variantName parsed torchName; }
)nix";
    const auto check = [&](const std::string& stubSource, bool named) {
        loader.sources[stubId] = stubSource;
        Eval stub(stubSource, &loader, stubId);
        const Value result = stub.root();
        const Value parsed = result.attribute("parsed").value_or(Value());
        QCOMPARE(result.attribute("variantName")->asString(),
                 std::optional<std::string>("pytorch-python313-cuda12_8-sm86-avx2"));
        QCOMPARE(parsed.describe(),
                 std::string("{ isa = \"avx2\"; package = \"pytorch\"; "
                             "pythonAttr = \"python313Packages\"; sm = \"86\"; }"));
        QCOMPARE(result.attribute("torchName")->asString(),
                 std::optional<std::string>("pytorch-python313-cuda12_8-sm86-avx2"));
        const Value sm = parsed.attribute("sm").value_or(Value());
        if (named) {
            QCOMPARE(piecesOf(sm, loader.sources),
                     std::vector<std::string>{pieceAt(loader.sources, 0, stubId, "-sm86", 3, 2)});
        } else {
            QVERIFY(sm.pieces().empty()); // the file's name is in no source
        }
    };
    check("import ./_gen/variant.nix { name = \"pytorch-python313-cuda12_8-sm86-avx2\"; }\n", true);
    if (QTest::currentTestFailed())
        return;
    check("import ./_gen/variant.nix { file = __curPos.file; }\n", false);
    if (QTest::currentTestFailed())
        return;

    // A name the regex does not match is Nix's failure.
    loader.sources[stubId] = "import ./_gen/variant.nix { name = \"pytorch-cpu\"; }";
    Eval other(loader.sources[stubId], &loader, stubId);
    QCOMPARE(other.root().attribute("parsed")->cause(), Cause::Error);
}

void TestEvaluator::unknownCalls()
{
    Eval callEval("{ lib }: lib.foo 1 2");
    const Value call = callEval.body();
    QVERIFY(call.isUnknown());
    QCOMPARE(call.symbolicPath(), std::string_view("lib.foo(...)"));
    Eval chainedEval("{ prev }: (prev.torch.override { a = 1; }).overrideAttrs (o: {})");
    const Value chained = chainedEval.body();
    QCOMPARE(chained.symbolicPath(),
             std::string_view("prev.torch.override(...).overrideAttrs(...)"));
    // A native with unknown arguments is an unknown call.
    Eval joinEval("{ lib, xs }: lib.concatStringsSep \",\" xs");
    const Value join = joinEval.body();
    QCOMPARE(join.symbolicPath(), std::string_view("lib.concatStringsSep(...)"));
    // Known list with unknown elements: the known pieces stay.
    Eval partial("{ lib, o }: lib.concatStringsSep \" \" [ \"-O3\" o.flag \"-g\" ]");
    const Value flags = partial.body();
    QVERIFY(flags.isUnknown());
    const auto parts = flags.parts();
    QCOMPARE(parts.size(), size_t(3));
    QCOMPARE(parts[0].asString(), std::optional<std::string>("-O3 "));
    QCOMPARE(parts[1].symbolicPath(), std::string_view("o.flag"));
    QCOMPARE(parts[2].asString(), std::optional<std::string>(" -g"));
    // `throw` says why Nix would stop.
    Eval thrown("x: if 1 > 2 then x else throw \"unsupported GPU\"");
    QCOMPARE(thrown.body().cause(), Cause::Error);
    QCOMPARE(thrown.body().reason(), std::string_view("throw unsupported GPU"));
    // What an import of something unknown yields comes from outside.
    Eval fetched("x: import (builtins.fetchTarball { url = \"u\"; })");
    QCOMPARE(fetched.body().cause(), Cause::External);
    QCOMPARE(fetched.body().symbolicPath(), std::string_view("import(...)"));
    // A call result bound by let is known by the binding's name.
    Eval pinnedEval("let p = import <nixpkgs> { }; in p.python3Packages.torch");
    const Value pinned = pinnedEval.root();
    QCOMPARE(pinned.symbolicPath(), std::string_view("p.python3Packages.torch"));
}

void TestEvaluator::aBuilderAppliedToTheCallersArgument()
{
    // The builder's expressions see the recipe's argument, pieces and all; formals it does not
    // pass take their defaults; nodes of the recipe and a second argument are refused.
    MapLoader loader;
    const std::string builder =
        "{ capability, isa ? \"avx2\", lib }:\n{\n"
        "  gpuTargets = [ \"${capability}+PTX\" ];\n"
        "  flags = isa;\n  join = lib.concatStringsSep \";\" [ capability ];\n}\n";
    loader.sources["pkgs/lib/mk-torch.nix"] = builder;
    Eval recipe("import ./lib/mk-torch.nix { capability = \"8.6\"; }", &loader, "pkgs/pytorch.nix");
    QCOMPARE(recipe.root().attribute("flags")->asString(), std::optional<std::string>("avx2"));
    const Value argument = recipe.evaluator->evaluate(*recipe.tree.root()->argument());
    const SyntaxTree* module = loader.load("pkgs/lib/mk-torch.nix");
    QVERIFY(module);
    const Value targets = recipe.evaluator->evaluateApplied("pkgs/lib/mk-torch.nix", argument,
                                                            *bindingValue(*module, "gpuTargets"));
    QCOMPARE(strings(targets), std::vector<std::string>{"8.6+PTX"});
    const auto piece = targets.element(0)->sourceOf(0, 3);
    QVERIFY(piece);
    QCOMPARE(piece->file, std::string_view("pkgs/pytorch.nix"));
    QCOMPARE(piece->range, recipe.range("8.6"));
    QCOMPARE(
        recipe.evaluator
            ->evaluateApplied("pkgs/lib/mk-torch.nix", argument, *bindingValue(*module, "flags"))
            .asString(),
        std::optional<std::string>("avx2"));
    QVERIFY(
        recipe.evaluator->evaluateApplied("pkgs/lib/mk-torch.nix", argument, *recipe.tree.root())
            .isUnknown());
    const Value other = recipe.evaluator->evaluate(*recipe.tree.root());
    QVERIFY(recipe.evaluator
                ->evaluateApplied("pkgs/lib/mk-torch.nix", other, *bindingValue(*module, "flags"))
                .isUnknown());

    // A curried builder: each argument binds the next lambda of the root's body.
    loader.sources["pkgs/lib/curried.nix"] =
        "{ lib }:\nspec:\nlet\n  name = if builtins.isString spec then spec else spec.name;\n"
        "in {\n  tag = lib.concatStringsSep \"-\" [ name \"x\" ];\n}\n";
    Eval stub("{ lib }: import ./lib/curried.nix { inherit lib; } \"sm90\"", &loader,
              "pkgs/stub.nix");
    const Node& call = *stub.tree.root()->lambdaBody();
    const std::vector<Value> arguments{stub.evaluator->evaluate(*call.function()->argument()),
                                       stub.evaluator->evaluate(*call.argument())};
    const SyntaxTree* curried = loader.load("pkgs/lib/curried.nix");
    QVERIFY(curried);
    const Value tag = stub.evaluator->evaluateApplied("pkgs/lib/curried.nix", arguments,
                                                      *bindingValue(*curried, "tag"));
    QCOMPARE(tag.asString(), std::optional<std::string>("sm90-x"));
    QCOMPARE(tag.sourceOf(0, 4)->range, stub.range("sm90"));
    // Applied to the first argument only, the second lambda's formal is unknown.
    Eval half("{ lib }: import ./lib/curried.nix { inherit lib; } \"sm90\"", &loader,
              "pkgs/half.nix");
    QVERIFY(half.evaluator
                ->evaluateApplied("pkgs/lib/curried.nix",
                                  half.evaluator->evaluate(
                                      *half.tree.root()->lambdaBody()->function()->argument()),
                                  *bindingValue(*curried, "tag"))
                .isUnknown());
}

void TestEvaluator::imports()
{
    MapLoader loader;
    loader.sources["pkgs/lib/cpu-isa.nix"] =
        "{\n  avx512 = [ \"-mavx512f\" \"-mavx512dq\" ];\n  avx2 = [ \"-mavx2\" ];\n"
        "  more = import ./extra.nix;\n}\n";
    loader.sources["pkgs/lib/extra.nix"] = "[ \"-mfma\" ]";
    Eval e("let isa = (import ./lib/cpu-isa.nix).avx512; in isa", &loader, "pkgs/torch.nix");
    const Value value = e.root();
    QCOMPARE(strings(value), (std::vector<std::string>{"-mavx512f", "-mavx512dq"}));
    const Value first = *value.element(0);
    QCOMPARE(first.origin().file, std::string_view("pkgs/lib/cpu-isa.nix"));
    QCOMPARE(first.origin().range, find(loader.sources["pkgs/lib/cpu-isa.nix"], "\"-mavx512f\""));
    QCOMPARE(first.sourceOf(0, 9)->file, std::string_view("pkgs/lib/cpu-isa.nix"));
    const auto chain = first.bindingChain();
    QCOMPARE(chain.size(), size_t(2));
    QCOMPARE(chain[0].name, std::string_view("avx512"));
    QCOMPARE(chain[0].file, std::string_view("pkgs/lib/cpu-isa.nix"));
    QCOMPARE(chain[0].key, find(loader.sources["pkgs/lib/cpu-isa.nix"], "avx512"));
    QCOMPARE(chain[1].name, std::string_view("isa"));
    QCOMPARE(chain[1].file, std::string_view("pkgs/torch.nix"));

    // Paths are relative to the importing file, also inside a module.
    Eval nested("(import ./lib/cpu-isa.nix).more", &loader, "pkgs/torch.nix");
    QCOMPARE(strings(nested.root()), std::vector<std::string>{"-mfma"});
    QCOMPARE(nested.root().element(0)->origin().file, std::string_view("pkgs/lib/extra.nix"));
    // Each module is read once per evaluator.
    const int loads = loader.loads;
    Eval twice("[ (import ./lib/cpu-isa.nix).avx2 (import ./lib/cpu-isa.nix).avx2 ]", &loader,
               "pkgs/torch.nix");
    QCOMPARE(twice.root().describe(), std::string("[ [ \"-mavx2\" ] [ \"-mavx2\" ] ]"));
    QCOMPARE(loader.loads, loads + 1);

    QCOMPARE(Eval("import ./missing.nix", &loader, "pkgs/torch.nix").root().cause(),
             Cause::Unavailable);
    QCOMPARE(Eval("import ./x.nix").root().cause(), Cause::Unavailable);
    // A module may read the file that imports it: laziness makes that no cycle.
    loader.sources["self.nix"] = "{ a = 1; b = (import ./self.nix).a; }";
    QCOMPARE(Eval(loader.sources["self.nix"], &loader, "self.nix").root().attribute("b")->asInt(),
             std::optional<int64_t>(1));
}

void TestEvaluator::callPackage()
{
    MapLoader loader;
    loader.sources["pkgs/common.nix"] = "{ gpuArch ? \"7.5\", lib, flags ? [ ] }:\n"
                                        "{ arch = gpuArch; inherit lib; n = flags; sm = "
                                        "lib.replaceStrings [ \".\" ] [ \"\" ] gpuArch; }\n";
    Eval e("{ callPackage }: callPackage ./common.nix { gpuArch = \"8.6\"; }", &loader,
           "pkgs/torch.nix");
    const Value set = e.body();
    QCOMPARE(set.kind(), Kind::AttrSet);
    const Value arch = *set.attribute("arch");
    QCOMPARE(arch.asString(), std::optional<std::string>("8.6"));
    QCOMPARE(arch.origin().file, std::string_view("pkgs/torch.nix"));
    QCOMPARE(arch.origin().range, e.range("\"8.6\""));
    const auto chain = arch.bindingChain();
    QCOMPARE(chain.size(), size_t(3));
    QCOMPARE(chain[0].key, e.range("gpuArch"));                   // the argument's attribute
    QCOMPARE(chain[1].file, std::string_view("pkgs/common.nix")); // the formal
    QCOMPARE(chain[1].key, find(loader.sources["pkgs/common.nix"], "gpuArch"));
    QCOMPARE(chain[2].name, std::string_view("arch"));
    QCOMPARE(set.attribute("lib")->symbolicPath(), std::string_view("lib"));
    QCOMPARE(set.attribute("n")->size(), size_t(0));
    QCOMPARE(set.attribute("sm")->asString(), std::optional<std::string>("86"));

    // `pkgs.callPackage` and a lambda instead of a path work the same.
    Eval directEval("{ pkgs }: pkgs.callPackage ({ a ? 1, b }: a + b) { b = 2; }");
    const Value direct = directEval.body();
    QCOMPARE(direct.asInt(), std::optional<int64_t>(3));
    QCOMPARE(
        Eval("{ pkgs }: pkgs.callPackage ./nowhere.nix { }", &loader, "pkgs/x.nix").body().cause(),
        Cause::Unavailable);
}

void TestEvaluator::importCycles()
{
    MapLoader loader;
    loader.sources["a.nix"] = "import ./b.nix";
    loader.sources["b.nix"] = "import ./a.nix";
    loader.sources["c.nix"] = "(import ./c.nix) + 1";
    QElapsedTimer timer;
    timer.start();
    QCOMPARE(Eval("import ./a.nix", &loader).root().cause(), Cause::Cycle);
    QCOMPARE(Eval(loader.sources["a.nix"], &loader, "a.nix").root().cause(), Cause::Cycle);
    QCOMPARE(Eval("import ./c.nix", &loader).root().cause(), Cause::Cycle);
    QVERIFY(timer.elapsed() < 2000);
}

void TestEvaluator::importDirectory()
{
    // `import ./dir` reads dir/default.nix; readFile of the directory reads nothing.
    MapLoader loader;
    loader.sources["pkgs/common/default.nix"] = "{ arch = \"8.6\"; }";
    Eval e("{ a = (import ./common).arch; b = builtins.readFile ./common; }", &loader,
           "pkgs/torch.nix");
    QCOMPARE(e.binding("a").asString(), std::optional<std::string>("8.6"));
    QCOMPARE(e.binding("a").origin().file, std::string_view("pkgs/common/default.nix"));
    QCOMPARE(e.binding("b").cause(), Cause::Unavailable);
}

void TestEvaluator::readFile()
{
    MapLoader loader;
    const std::string json = "{ \"rev\": \"abc\" }\n";
    const std::string script = "#!/bin/sh\necho \"${HOME}\" \\\n";
    loader.sources["pkgs/pins/nixpkgs.json"] = json;
    loader.sources["pkgs/build.sh"] = script;
    Eval e(R"({ src }: {
      json = builtins.readFile ./pins/nixpkgs.json;
      again = builtins.readFile ./pins/nixpkgs.json;
      script = builtins.readFile ./build.sh;
      missing = builtins.readFile ./pins/missing.json;
      outside = builtins.readFile "${src}/x.json";
      relative = builtins.readFile "pins/nixpkgs.json";
      number = builtins.readFile 1;
    })",
           &loader, "pkgs/torch.nix");
    const Value read = e.body();
    // The whole text, as one piece at offset 0 of the file.
    const Value text = *read.attribute("json");
    QCOMPARE(text.asString(), std::optional<std::string>(json));
    QCOMPARE(text.pieces().size(), size_t(1));
    QCOMPARE(text.pieces()[0].file, std::string_view("pkgs/pins/nixpkgs.json"));
    QCOMPARE(text.pieces()[0].offset, size_t(0));
    QCOMPARE(text.pieces()[0].source, uint32_t(0));
    QCOMPARE(text.pieces()[0].length, json.size());
    QCOMPARE(text.origin().file, std::string_view("pkgs/pins/nixpkgs.json"));
    QCOMPARE(text.sourceOf(10, 3)->range, find(json, "abc"));
    // Read once per evaluator.
    QCOMPARE(read.attribute("again")->asString(), std::optional<std::string>(json));
    QCOMPARE(loader.reads, 1);
    // Any file, not only JSON: the bytes as they are, no Nix escapes applied.
    QCOMPARE(read.attribute("script")->asString(), std::optional<std::string>(script));
    QCOMPARE(read.attribute("script")->sourceOf(0, script.size())->range,
             (SourceRange{0, uint32_t(script.size())}));
    QCOMPARE(read.attribute("missing")->cause(), Cause::Unavailable);
    QCOMPARE(read.attribute("outside")->symbolicPath(), std::string_view("builtins.readFile(...)"));
    QCOMPARE(read.attribute("relative")->cause(), Cause::Error);
    QCOMPARE(read.attribute("number")->cause(), Cause::Error);
    // Without a loader, or too large for the limits.
    QCOMPARE(Eval("builtins.readFile ./a.json").root().cause(), Cause::Unavailable);
    Evaluator::Limits limits;
    limits.stringBytes = 8;
    QCOMPARE(Eval("builtins.readFile ./pkgs/build.sh", &loader, "main.nix", limits).root().cause(),
             Cause::Limit);
}

void TestEvaluator::fromJson()
{
    MapLoader loader;
    const std::string json = "{ \"a\": [1, -2, 3.5, 1e2, true, false, null],\n"
                             "  \"b\": { \"c\": \"d\", \"e\": {}, \"f\": [] },\n"
                             "  \"dup\": 1, \"dup\": 2, \"\": \"empty\" }";
    loader.sources["data.json"] = json;
    Eval e("builtins.fromJSON (builtins.readFile ./data.json)", &loader);
    const Value value = e.root();
    QCOMPARE(value.describe(4), std::string("{  = \"empty\"; a = [ 1 -2 3.5 100 true false null ]; "
                                            "b = { c = \"d\"; e = { }; f = [ ]; }; dup = 2; }"));
    QCOMPARE(value.attribute("a")->element(2)->asFloat(), std::optional<double>(3.5));
    QCOMPARE(value.attribute("a")->element(3)->kind(), Kind::Float);
    QCOMPARE(value.attribute("a")->element(6)->kind(), Kind::Null);
    // Every value points at its literal in the file; a key is a binding its value went through.
    QCOMPARE(value.origin(), (Origin{"data.json", {0, uint32_t(json.size())}}));
    QCOMPARE(value.attribute("a")->origin().range,
             find(json, "[1, -2, 3.5, 1e2, true, false, null]"));
    QCOMPARE(value.attribute("a")->element(1)->origin().range, find(json, "-2"));
    QCOMPARE(value.attribute("a")->element(4)->origin().range, find(json, "true"));
    const Value d = *value.attribute("b")->attribute("c");
    QCOMPARE(d.origin().range, find(json, "\"d\""));
    QCOMPARE(d.bindingChain().size(), size_t(2));
    QCOMPARE(d.bindingChain()[0], (BindingStep{"c", "data.json", find(json, "c")}));
    QCOMPARE(d.bindingChain()[1], (BindingStep{"b", "data.json", find(json, "b")}));
    // A name written twice has its last value.
    const uint32_t two = find(json, "\"dup\": 2").begin + 7;
    QCOMPARE(value.attribute("dup")->origin().range, (SourceRange{two, two + 1}));

    // Scalars on their own, with space around; JSON in a Nix string maps to the .nix file.
    QCOMPARE(Eval("builtins.fromJSON \" 42 \"").root().asInt(), std::optional<int64_t>(42));
    QCOMPARE(Eval("builtins.fromJSON \"null\"").root().kind(), Kind::Null);
    Eval inNix("builtins.fromJSON ''{\"rev\": \"abc\"}''");
    QCOMPARE(inNix.root().attribute("rev")->sourceOf(0, 3)->range, inNix.range("abc"));
    QCOMPARE(inNix.root().attribute("rev")->sourceOf(0, 3)->file, std::string_view("main.nix"));
    // Computed text reads the same but maps nowhere: origins are the call's.
    Eval computed("builtins.fromJSON (\"[\" + \"1]\")");
    QCOMPARE(computed.root().describe(), std::string("[ 1 ]"));
    QCOMPARE(computed.root().origin().range, computed.range("builtins.fromJSON (\"[\" + \"1]\")"));
    // lib.importJSON is fromJSON of readFile.
    Eval imported("{ lib }: (lib.importJSON ./data.json).b.c", &loader);
    QCOMPARE(imported.body().asString(), std::optional<std::string>("d"));
    QCOMPARE(imported.body().sourceOf(0, 1)->range.begin, find(json, "\"d\"").begin + 1);
    QCOMPARE(Eval("{ lib }: lib.importJSON ./none.json", &loader).body().cause(),
             Cause::Unavailable);
    // What it cannot read.
    Eval unknown("{ lib }: builtins.fromJSON lib.text");
    QCOMPARE(unknown.body().symbolicPath(), std::string_view("builtins.fromJSON(...)"));
    QCOMPARE(Eval("builtins.fromJSON 1").root().cause(), Cause::Error);
    QCOMPARE(Eval("builtins.fromJSON (builtins.readFile ./none.json)", &loader).root().cause(),
             Cause::Unavailable);
}

void TestEvaluator::fromJsonNumbers()
{
    MapLoader loader;
    const auto read = [&](const std::string& json) {
        loader.sources["n.json"] = json;
        Eval e("builtins.fromJSON (builtins.readFile ./n.json)", &loader);
        return e.root().describe();
    };
    QCOMPARE(read("0"), std::string("0"));
    QCOMPARE(read("-0"), std::string("0"));
    QCOMPARE(read("9223372036854775807"), std::string("9223372036854775807"));
    QCOMPARE(read("-9223372036854775808"), std::string("-9223372036854775808"));
    // As nlohmann_json reads numbers for Nix: beyond int64 but within uint64 Nix refuses,
    // beyond that it is a float.
    QVERIFY(read("9223372036854775808").find("integer range") != std::string::npos);
    loader.sources["n.json"] = "-9223372036854775809";
    Eval below("builtins.fromJSON (builtins.readFile ./n.json)", &loader);
    QCOMPARE(below.root().asFloat(), std::optional<double>(-9223372036854775809.0));
    QCOMPARE(read("1.5e3"), std::string("1500"));
    QCOMPARE(read("2E-1"), std::string("0.2"));
    QCOMPARE(read("1e-400"), std::string("0"));
    QVERIFY(read("1e400").find("number overflow") != std::string::npos);
    loader.sources["n.json"] = "[1.0, 10]";
    Eval e("builtins.fromJSON (builtins.readFile ./n.json)", &loader);
    QCOMPARE(e.root().element(0)->kind(), Kind::Float);
    QCOMPARE(e.root().element(1)->kind(), Kind::Int);
    QCOMPARE(e.root().element(1)->origin().range, (SourceRange{6, 8}));
}

void TestEvaluator::fromJsonStrings()
{
    MapLoader loader;
    // Escapes, \u escapes (a surrogate pair too) and raw UTF-8.
    const std::string json = R"({ "esc": "a\"b\\c\/d\n\t\b\f\r", "u": "\u00e9\u20ac\ud83d\ude00",)"
                             "\n  \"raw\": \"caf\xC3\xA9 \xE2\x82\xAC\", \"k\\u0065y\": 1 }";
    loader.sources["s.json"] = json;
    Eval e("builtins.fromJSON (builtins.readFile ./s.json)", &loader);
    const Value value = e.root();
    const Value escaped = *value.attribute("esc");
    QCOMPARE(escaped.asString(), std::optional<std::string>("a\"b\\c/d\n\t\b\f\r"));
    // Decoded text is not its bytes: no piece, but the origin is still the literal.
    QVERIFY(escaped.pieces().empty());
    QVERIFY(!escaped.sourceOf(0, 1));
    QCOMPARE(escaped.origin().range, find(json, R"("a\"b\\c\/d\n\t\b\f\r")"));
    QCOMPARE(value.attribute("u")->asString(),
             std::optional<std::string>("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"));
    QVERIFY(value.attribute("u")->pieces().empty());
    const Value raw = *value.attribute("raw");
    QCOMPARE(raw.asString(), std::optional<std::string>("caf\xC3\xA9 \xE2\x82\xAC"));
    const auto range = raw.sourceOf(0, raw.asString()->size());
    QVERIFY(range);
    QCOMPARE(json.substr(range->range.begin, range->range.length()), *raw.asString());
    QCOMPARE(raw.bindingChain().front().key, find(json, "raw"));
    // An escaped name is decoded, but is no binding in the file.
    QCOMPARE(value.attributeNames(), (std::vector<std::string_view>{"esc", "key", "raw", "u"}));
    QCOMPARE(value.attribute("key")->asInt(), std::optional<int64_t>(1));
    QVERIFY(value.attribute("key")->bindingChain().empty());
}

void TestEvaluator::pinnedNixpkgs()
{
    MapLoader loader;
    const std::string rev = "5ed627539ac84809c78b2dd6d26a5cebeb5ae269";
    const std::string sha = "1cxfz2vx5hxmmdh6wc7r1m5ia9i6hp7ykpz1bg4glgyh4lp6x5q4";
    const std::string json = "{\n  \"url\": \"https://github.com/NixOS/nixpkgs\",\n  \"rev\": \"" +
                             rev + "\",\n  \"sha256\": \"" + sha + "\"\n}\n";
    loader.sources["pins/nixpkgs.json"] = json;
    Eval e(R"(let
      pin = builtins.fromJSON (builtins.readFile ./pins/nixpkgs.json);
      nixpkgs = import (fetchTarball {
        url = "https://github.com/NixOS/nixpkgs/archive/${pin.rev}.tar.gz";
        sha256 = pin.sha256;
      }) { };
    in nixpkgs.python3Packages.torch)",
           &loader, "default.nix");
    QCOMPARE(e.root().symbolicPath(), std::string_view("nixpkgs.python3Packages.torch"));
    const Value url = e.binding("url");
    const std::string prefix = "https://github.com/NixOS/nixpkgs/archive/";
    QCOMPARE(url.asString(), std::optional<std::string>(prefix + rev + ".tar.gz"));
    // The rev inside the url is the rev's bytes in the JSON file, to rewrite for a pin bump.
    const auto at = url.sourceOf(prefix.size(), rev.size());
    QVERIFY(at);
    QCOMPARE(at->file, std::string_view("pins/nixpkgs.json"));
    QCOMPARE(json.substr(at->range.begin, at->range.length()), rev);
    QCOMPARE(at->range, find(json, rev));
    // The url's own text still maps to the .nix file, and nothing maps across the seam.
    QCOMPARE(url.sourceOf(0, prefix.size())->file, std::string_view("default.nix"));
    QVERIFY(!url.sourceOf(prefix.size() - 1, 2));
    const Value sha256 = e.binding("sha256");
    QCOMPARE(sha256.origin(), (Origin{"pins/nixpkgs.json", find(json, "\"" + sha + "\"")}));
    const auto chain = sha256.bindingChain();
    QCOMPARE(chain.size(), size_t(2));
    QCOMPARE(chain[0], (BindingStep{"sha256", "pins/nixpkgs.json", find(json, "sha256")}));
    QCOMPARE(chain[1], (BindingStep{"pin", "default.nix", e.range("pin")}));
}

void TestEvaluator::nivSources()
{
    MapLoader loader;
    const std::string json = R"({
    "niv": {
        "branch": "master",
        "rev": "e0ca65c81a2d7a4d82a189f1e23a48d59ad42070",
        "sha256": "1pq9nh1d8nn3xvbdny8fafzw87mj7gsmp6pxkdl65w2g18rmcmzx",
        "type": "tarball"
    },
    "nixpkgs": {
        "branch": "nixos-24.05",
        "description": "Nix Packages collection",
        "homepage": "",
        "owner": "NixOS",
        "repo": "nixpkgs",
        "rev": "d24e7fdcfaecdca496ddd426cae98c9e2d12dfe8",
        "sha256": "1j9x4s1ikw9wxyhzs6l3gk8hyhi1dqxzfbfdw9wbvvdqqlmprcqf",
        "type": "tarball",
        "url": "https://github.com/NixOS/nixpkgs/archive/d24e7fdcfaecdca496ddd426cae98c9e2d12dfe8.tar.gz",
        "url_template": "https://github.com/<owner>/<repo>/archive/<rev>.tar.gz"
    }
}
)";
    loader.sources["nix/sources.json"] = json;
    Eval e("let sources = builtins.fromJSON (builtins.readFile ./nix/sources.json);\n"
           "in { rev = sources.nixpkgs.rev; inherit (sources.nixpkgs) owner; }",
           &loader, "shell.nix");
    const std::string expected = "d24e7fdcfaecdca496ddd426cae98c9e2d12dfe8";
    const Value rev = *e.root().attribute("rev");
    QCOMPARE(rev.asString(), std::optional<std::string>(expected));
    const auto at = rev.sourceOf(0, expected.size());
    QVERIFY(at);
    QCOMPARE(at->file, std::string_view("nix/sources.json"));
    // nixpkgs' "rev" (the first occurrence; the url repeats it), not niv's.
    QCOMPARE(at->range, find(json, expected));
    QCOMPARE(json.substr(at->range.begin, at->range.length()), expected);
    const Value owner = *e.root().attribute("owner");
    QCOMPARE(owner.asString(), std::optional<std::string>("NixOS"));
    QCOMPARE(owner.sourceOf(0, 5)->range, find(json, "NixOS"));
    QCOMPARE(e.root().attribute("rev")->bindingChain().front().file,
             std::string_view("nix/sources.json"));
}

void TestEvaluator::malformedJson_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("reason");
    const auto row = [](const char* name, QByteArray json, const char* reason) {
        QTest::newRow(name) << json << QString::fromUtf8(reason);
    };
    row("empty", "", "unexpected end of the text, expected a value");
    row("only space", " \n", "unexpected end of the text, expected a value");
    row("missing value", R"({"a": })", "unexpected '}' at byte 6, expected a value");
    row("trailing comma", "[1, ]", "unexpected ']' at byte 4, expected a value");
    row("missing colon", R"({"a" 1})", "unexpected '1' at byte 5, expected ':'");
    row("bare name", "{a: 1}", "unexpected 'a' at byte 1, expected a member name");
    row("missing comma", "[1 2]", "unexpected '2' at byte 3, expected ',' or ']'");
    row("unclosed object", R"({"a": 1)", "unexpected end of the text, expected ',' or '}'");
    row("trailing text", R"({"a": 1}})", "unexpected '}' at byte 8, expected the end");
    row("two values", "1 2", "expected the end of the text");
    row("leading zero", "01", "unexpected '1' at byte 1, expected the end");
    row("plus", "+1", "unexpected '+' at byte 0");
    row("fraction", "1.", "without digits after '.'");
    row("exponent", "1e", "without exponent digits");
    row("minus", "-", "unexpected '-'");
    row("NaN", "NaN", "unexpected 'N'");
    row("tru", "tru", "unexpected 't' at byte 0, expected a value");
    row("comment", "// x\n1", "unexpected '/'");
    row("single quotes", "'a'", "unexpected '''");
    row("unterminated", R"("abc)", "unterminated string starting at byte 0");
    row("bad escape", R"("a\x")", "invalid escape at byte 2");
    row("short \\u", R"("\u12")", "invalid \\u escape at byte 1");
    row("lone high", R"("\ud800")", "high surrogate without its low half");
    row("lone low", R"("\udc00")", "lone low surrogate");
    row("raw newline", "\"a\nb\"", "control character in a string at byte 2");
    row("bad UTF-8", "\"a\xFF\"", "invalid UTF-8 in a string at byte 2");
    row("overlong UTF-8", "\"\xC0\xAF\"", "invalid UTF-8");
    row("UTF-16 surrogate in UTF-8", "\"\xED\xA0\x80\"", "invalid UTF-8");
    row("NUL", QByteArray("[\0]", 3), "unexpected byte 0 at byte 1");
}

void TestEvaluator::malformedJson()
{
    // Nix would fail: an Error, saying what is wrong and where, never a crash.
    QFETCH(QByteArray, json);
    QFETCH(QString, reason);
    MapLoader loader;
    loader.sources["bad.json"] = json.toStdString();
    Eval e("builtins.fromJSON (builtins.readFile ./bad.json)", &loader);
    const Value value = e.root();
    QCOMPARE(value.cause(), Cause::Error);
    const QString said = QString::fromUtf8(value.reason().data(), qsizetype(value.reason().size()));
    QVERIFY2(said.startsWith(QStringLiteral("builtins.fromJSON: ")), qPrintable(said));
    QVERIFY2(said.contains(reason), qPrintable(said));
}

void TestEvaluator::jsonBounds()
{
    // Nesting beyond the depth limit gives up (Limit, not Error), quickly and without
    // exhausting the stack; a large flat document stays within the step budget or says so.
    MapLoader loader;
    loader.sources["deep.json"] = std::string(100000, '[') + std::string(100000, ']');
    QElapsedTimer timer;
    timer.start();
    Evaluator::Limits limits;
    limits.stringBytes = 1 << 20;
    Eval deepEval("builtins.fromJSON (builtins.readFile ./deep.json)", &loader, "main.nix",
                  limits); // owns the value below
    const Value deep = deepEval.root();
    QCOMPARE(deep.cause(), Cause::Limit);
    QVERIFY(std::string(deep.reason()).find("nested deeper than") != std::string::npos);
    std::string nested = "1";
    for (int i = 0; i < 100; ++i)
        nested = "[" + nested + "]";
    loader.sources["nested.json"] = nested;
    // The Eval owns the values: it must outlive every use of them.
    Eval nestedEval("builtins.fromJSON (builtins.readFile ./nested.json)", &loader);
    QCOMPARE(nestedEval.root().kind(), Kind::List);
    std::string flat = "[";
    for (int i = 0; i < 100000; ++i)
        flat += i ? ",0" : "0";
    loader.sources["flat.json"] = flat + "]";
    limits.steps = 50000;
    limits.elements = 1 << 20;
    QCOMPARE(Eval("builtins.fromJSON (builtins.readFile ./flat.json)", &loader, "main.nix", limits)
                 .root()
                 .cause(),
             Cause::Limit);
    QVERIFY(timer.elapsed() < 2000);
}

void TestEvaluator::budget()
{
    QElapsedTimer timer;
    timer.start();
    // Strings that interpolate each other twice per level: 2^60 bytes if nothing stopped it.
    std::string doubling = "let a0 = \"xy\";\n";
    for (int i = 1; i <= 60; ++i)
        doubling += "  a" + std::to_string(i) + " = \"${a" + std::to_string(i - 1) + "}${a" +
                    std::to_string(i - 1) + "}\";\n";
    doubling += "in a60";
    Eval hugeEval(doubling);
    const Value huge = hugeEval.root();
    QVERIFY(huge.isUnknown());
    QCOMPARE(huge.cause(), Cause::Limit);

    // Exponential work without shared values: the step budget ends it.
    Eval workEval("let f = n: if n == 0 then 1 else f (n - 1) + f (n - 1); in f 60");
    const Value work = workEval.root();
    QCOMPARE(work.cause(), Cause::Limit);
    QCOMPARE(Eval("let f = x: f x; in f 1").root().cause(), Cause::Limit);
    QCOMPARE(Eval("let f = x: f (x + 1); in f 1").root().cause(), Cause::Limit);
    QCOMPARE(Eval("let x = x; in x").root().cause(), Cause::Cycle);
    QCOMPARE(Eval("rec { a = b; b = a; }.a").root().cause(), Cause::Cycle);
    // A list that keeps growing.
    QCOMPARE(Eval("let f = l: f (l ++ l); in f [ 1 ]").root().cause(), Cause::Limit);
    // Deep nesting in the tree itself.
    std::string deep;
    for (int i = 0; i < 250; ++i)
        deep += "(1 + ";
    deep += "1" + std::string(250, ')');
    QCOMPARE(Eval(deep).root().asInt(), std::optional<int64_t>(251));
    Evaluator::Limits shallow;
    shallow.depth = 100;
    QCOMPARE(Eval(deep, nullptr, "main.nix", shallow).root().cause(), Cause::Limit);
    std::string dotted = "{ a";
    for (int i = 0; i < 150; ++i)
        dotted += ".a";
    const std::string select = dotted.substr(2);
    dotted += " = 1; }." + select;
    QCOMPARE(Eval(dotted).root().asInt(), std::optional<int64_t>(1));
    QCOMPARE(Eval(dotted, nullptr, "main.nix", shallow).root().cause(), Cause::Limit);
    // Loops over big values are charged too: 16384 patterns tried at each of 16384 positions.
    std::string lists = "let l0 = [ \"z\" ];\n";
    for (int i = 1; i <= 14; ++i)
        lists += "  l" + std::to_string(i) + " = l" + std::to_string(i - 1) + " ++ l" +
                 std::to_string(i - 1) + ";\n";
    lists += "  big = builtins.concatStringsSep \"\" (map (x: \"y\") l14);\n"
             "in builtins.replaceStrings l14 l14 big";
    Eval replace(lists);
    QCOMPARE(replace.binding("big").asString()->size(), size_t(16384));
    QCOMPARE(replace.root().cause(), Cause::Limit);
    QVERIFY(timer.elapsed() < 5000);

    // The budget is per call: a later call starts afresh.
    Eval e("let f = n: if n == 0 then 1 else f (n - 1) + f (n - 1); in [ (f 40) (f 3) ]");
    QCOMPARE(e.root().element(0)->cause(), Cause::Limit);
    QCOMPARE(e.root().element(1)->asInt(), std::optional<int64_t>(8));
}

void TestEvaluator::memoisation()
{
    // 2^40 additions unless every shared binding is evaluated once.
    std::string doubling = "let a0 = 1;\n";
    for (int i = 1; i <= 40; ++i)
        doubling += "  a" + std::to_string(i) + " = a" + std::to_string(i - 1) + " + a" +
                    std::to_string(i - 1) + ";\n";
    doubling += "in a40";
    Evaluator::Limits limits;
    limits.steps = 1000;
    QCOMPARE(Eval(doubling, nullptr, "main.nix", limits).root().asInt(),
             std::optional<int64_t>(int64_t(1) << 40));
    // The same holds across calls: a binding evaluated by evaluate() is not evaluated again.
    Eval e(doubling, nullptr, "main.nix", limits);
    QCOMPARE(e.binding("a39").asInt(), std::optional<int64_t>(int64_t(1) << 39));
    QCOMPARE(e.binding("a40").asInt(), std::optional<int64_t>(int64_t(1) << 40));
}

void TestEvaluator::originsAndChains()
{
    Eval e("let\n  gpuArchSM = \"12.0\";\n  gpuTargets = [ gpuArchSM ];\nin gpuTargets\n");
    const Value targets = e.root();
    const auto listChain = targets.bindingChain();
    QCOMPARE(listChain.size(), size_t(1));
    QCOMPARE(listChain[0].name, std::string_view("gpuTargets"));
    QCOMPARE(targets.origin().range, e.range("[ gpuArchSM ]"));
    const Value arch = *targets.element(0);
    QCOMPARE(arch.asString(), std::optional<std::string>("12.0"));
    QCOMPARE(arch.origin().file, std::string_view("main.nix"));
    QCOMPARE(arch.origin().range, e.range("\"12.0\""));
    QCOMPARE(arch.sourceOf(0, 4)->range, e.range("12.0"));
    const auto chain = arch.bindingChain();
    QCOMPARE(chain.size(), size_t(2));
    QCOMPARE(chain[0], (BindingStep{"gpuArchSM", "main.nix", e.range("gpuArchSM")}));
    QCOMPARE(chain[1], (BindingStep{"gpuTargets", "main.nix", e.range("gpuTargets")}));

    // Through attributes and inherit.
    Eval set("let cfg = { arch = \"8.6\"; };\n x = cfg.arch;\n s = { inherit x; }; in s.x");
    const Value value = set.root();
    QCOMPARE(value.origin().range, set.range("\"8.6\""));
    const auto steps = value.bindingChain();
    QCOMPARE(steps.size(), size_t(5));
    QCOMPARE(steps[0].key, set.range("arch"));
    QCOMPARE(steps[1].key, set.range("cfg"));
    QCOMPARE(steps[2].key, (SourceRange{set.range("x =").begin, set.range("x =").begin + 1}));
    // The inherited name, then the set it is in.
    QCOMPARE(steps[3].key, (SourceRange{set.range("x;").begin, set.range("x;").begin + 1}));
    QCOMPARE(steps[4].key, (SourceRange{set.range("s =").begin, set.range("s =").begin + 1}));

    // A formal's default.
    Eval formal("{ gpuArchSM ? \"9.0\" }: { v = gpuArchSM; }");
    const Value v = *formal.body().attribute("v");
    QCOMPARE(v.origin().range, formal.range("\"9.0\""));
    QCOMPARE(v.bindingChain().front().key, formal.range("gpuArchSM"));
}

void TestEvaluator::externalPaths()
{
    Eval e("{ lib, stdenv }: oldAttrs: {\n"
           "  a = oldAttrs.meta.platforms or [ \"x86_64-linux\" ];\n"
           "  b = lib.platforms.linux;\n"
           "  c = stdenv.hostPlatform.isLinux;\n"
           "}");
    const Value set = e.body();
    QCOMPARE(set.attribute("a")->symbolicPath(), std::string_view("oldAttrs.meta.platforms"));
    QCOMPARE(set.attribute("b")->symbolicPath(), std::string_view("lib.platforms.linux"));
    QCOMPARE(set.attribute("b")->cause(), Cause::External);
    QCOMPARE(set.attribute("c")->symbolicPath(), std::string_view("stdenv.hostPlatform.isLinux"));
    // Selecting from an unknown through the accessor grows the path too.
    QCOMPARE(set.attribute("c")->attribute("x")->symbolicPath(),
             std::string_view("stdenv.hostPlatform.isLinux.x"));
    QCOMPARE(Eval("with {}; free").root().symbolicPath(), std::string_view("free"));
    QCOMPARE(Eval("<nixpkgs>").root().symbolicPath(), std::string_view("<nixpkgs>"));
}

void TestEvaluator::recipeShapes()
{
    Eval e(R"(let
  nixpkgs_pinned = import (builtins.fetchTarball { url = "u"; }) { };
  gpuArchSM = "12.0";
  cpuFlags = [ "-mavx512f" "-mfma" ];
in
(nixpkgs_pinned.python3Packages.torch.override {
  gpuTargets = [ gpuArchSM ];
}).overrideAttrs (oldAttrs: {
  pname = "pytorch-sm120";
  cmakeFlags = (oldAttrs.cmakeFlags or []) ++ [ "-DX=1" ];
  preConfigure = (oldAttrs.preConfigure or "") + ''
    ln -s ${nixpkgs_pinned.cudaPackages.cuda_cccl}/include x
    export CXXFLAGS="$CXXFLAGS ${nixpkgs_pinned.lib.concatStringsSep " " cpuFlags}"
  '';
  meta = oldAttrs.meta // { platforms = [ "x86_64-linux" ]; };
}))");
    QCOMPARE(
        e.root().symbolicPath(),
        std::string_view("nixpkgs_pinned.python3Packages.torch.override(...).overrideAttrs(...)"));
    QCOMPARE(e.binding("pname").asString(), std::optional<std::string>("pytorch-sm120"));
    QCOMPARE(strings(e.binding("gpuTargets")), std::vector<std::string>{"12.0"});
    const Value pre = e.binding("preConfigure");
    QVERIFY(pre.isUnknown());
    const auto parts = pre.parts();
    QCOMPARE(parts.size(), size_t(4));
    QCOMPARE(parts[0].symbolicPath(), std::string_view("oldAttrs.preConfigure"));
    QCOMPARE(parts[1].asString(), std::optional<std::string>("ln -s "));
    QCOMPARE(parts[2].symbolicPath(), std::string_view("nixpkgs_pinned.cudaPackages.cuda_cccl"));
    const std::string tail = *parts[3].asString();
    QCOMPARE(tail, std::string("/include x\nexport CXXFLAGS=\"$CXXFLAGS -mavx512f -mfma\"\n"));
    // "-mfma" in the joined flags maps back to the list literal.
    const size_t fma = tail.find("-mfma");
    QCOMPARE(parts[3].sourceOf(fma, 5)->range, e.range("-mfma"));
    QCOMPARE(e.binding("meta").attribute("platforms")->element(0)->asString(),
             std::optional<std::string>("x86_64-linux"));
    QCOMPARE(e.binding("meta").attribute("description")->symbolicPath(),
             std::string_view("oldAttrs.meta.description"));
}

void TestEvaluator::anyNode()
{
    Eval e("let a = { b = [ 1 (2 + 3) ]; }; in a");
    // Every node of the tree evaluates without crashing; sub-expressions in their scope.
    int evaluated = 0;
    forEachNode(*e.tree.root(), [&](const Node& node) {
        e.evaluator->evaluate(node).describe();
        ++evaluated;
        return true;
    });
    QVERIFY(evaluated > 10);
    const Node* sum = nullptr;
    forEachNode(*e.tree.root(), [&](const Node& node) {
        if (node.kind == NodeKind::Binary)
            sum = &node;
        return true;
    });
    QCOMPARE(e.evaluator->evaluate(*sum).asInt(), std::optional<int64_t>(5));
    QCOMPARE(e.evaluator->evaluate(*bindingValue(e.tree, "a")).describe(),
             std::string("{ b = [ 1 5 ]; }"));
    // A binding evaluates to its value; a node of another tree is refused.
    const Node* binding = firstOfKind(e.tree, NodeKind::Binding);
    QCOMPARE(e.evaluator->evaluate(*binding).kind(), Kind::AttrSet);
    Eval other("1");
    QCOMPARE(e.evaluator->evaluate(*other.tree.root()).cause(), Cause::Unsupported);
    // A default-constructed Value is harmless.
    const Value none;
    QVERIFY(none.isUnknown());
    QVERIFY(!none.attribute("x"));
    QVERIFY(!none.elements());
    QVERIFY(none.bindingChain().empty());
}

void TestEvaluator::elementExpressions()
{
    Eval e(R"({ lib, inputs }: let
      overlay = final: prev: { };
      first = [ overlay inputs.x.overlay ];
    in {
      all = first ++ lib.optional lib.cond (import ./o.nix) ++ map (x: x) [ 1 ];
    })");
    const Value all = *e.body().attribute("all");
    QVERIFY(all.isUnknown()); // the optional's condition is unknown
    const Value known = all.parts().front();
    QCOMPARE(known.size(), size_t(2));
    // Where each element is written, whether its value is known or not.
    QCOMPARE(known.elementExpression(0)->range, e.range("overlay", 1));
    QCOMPARE(known.elementExpression(1)->file, std::string_view("main.nix"));
    QCOMPARE(known.elementExpression(1)->range, e.range("inputs.x.overlay"));
    QVERIFY(known.element(1)->isUnknown());
    QCOMPARE(known.element(0)->origin().range, e.range("final: prev: { }"));
    const Value optional = *all.parts()[1].fallback();
    QCOMPARE(optional.elementExpression(0)->range, e.range("import ./o.nix"));
    const Value mapped = all.parts().back();
    QCOMPARE(mapped.size(), size_t(1));
    QVERIFY(!mapped.elementExpression(0)); // computed by map
    QVERIFY(!known.elementExpression(2));
    QVERIFY(!Value().elementExpression(0));
}

void TestEvaluator::robustness()
{
    const QStringList roots = {QStringLiteral(RG_SOURCE_DIR "/tests/fixtures"),
                               QStringLiteral(RG_SOURCE_DIR "/resources/demo"),
                               QStringLiteral(RG_SOURCE_DIR "/tests/nix/corpus")};
    int files = 0;
    size_t nodes = 0;
    size_t known = 0;
    QElapsedTimer timer;
    timer.start();
    for (const QString& root : roots) {
        QDirIterator it(root, {QStringLiteral("*.nix")}, QDir::Files | QDir::Hidden,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const SyntaxTree tree = SyntaxTree::parse(file.readAll().toStdString());
            if (!tree.root())
                continue;
            ++files;
            DiskLoader loader(root.toStdString());
            Evaluator::Limits limits;
            limits.steps = 20000;
            Evaluator evaluator(tree, path.toStdString(), &loader, limits);
            evaluator.root().describe(2);
            forEachNode(*tree.root(), [&](const Node& node) {
                const Value value = evaluator.evaluate(node);
                ++nodes;
                known += value.isKnown();
                value.describe(2);
                value.asStringList();
                value.bindingChain();
                return true;
            });
        }
    }
    QVERIFY(files > 100);
    // Recipes are mostly literals and sets: most of their nodes have known values.
    QVERIFY(known > nodes / 3);
    qInfo() << files << "files," << nodes << "nodes," << known << "known, in" << timer.elapsed()
            << "ms";
    QVERIFY(timer.elapsed() < 60000);
}

QTEST_GUILESS_MAIN(TestEvaluator)
#include "tst_evaluator.moc"
