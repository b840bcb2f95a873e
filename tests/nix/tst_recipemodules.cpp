// RecipeModules as the evaluator's loader for plain files: builtins.readFile of a pin's JSON
// reads the file itself (not dir/default.nix as import does), within the repository and the
// size cap, once per scan, never parsed as Nix, and its stamp is recorded like a module's.

#include "analysis/recipemodules.h"
#include "nix/evaluator.h"
#include "nix/syntaxtree.h"

#include <QtTest>
#include <atomic>
#include <map>
#include <thread>

using namespace rg;

namespace {

// Files in memory; counts reads so a test can tell a file is read once per scan.
class MemorySource : public RepositorySource
{
public:
    std::map<std::string, std::string> files;
    mutable std::atomic<int> reads = 0;

    std::string displayName() const override { return "memory"; }
    std::string rootPath() const override { return "/memory"; }
    bool isWritable() const override { return false; }
    std::vector<SourceEntry> list(const std::string&, std::string*) const override { return {}; }
    bool exists(const std::string& path) const override { return files.count(path) > 0; }
    SourceFile read(const std::string& path, uint64_t maxBytes) const override
    {
        ++reads;
        SourceFile file;
        file.path = path;
        auto it = files.find(path);
        if (it == files.end()) {
            file.error = "No such file or directory";
        } else if (it->second.size() > maxBytes) {
            file.oversized = true;
            file.error = "too large";
        } else {
            file.bytes = it->second;
        }
        return file;
    }
};

const std::string kPin = "{ \"rev\": \"5ed627539ac84809c78b2dd6d26a5cebeb5ae269\" }\n";

} // namespace

class TestRecipeModules : public QObject
{
    Q_OBJECT

private slots:
    void resolvesFilesAndModules()
    {
        MemorySource source;
        RecipeModules modules(source, 1 << 20);
        // import ./dir is dir/default.nix; readFile ./x.json is the file itself.
        QCOMPARE(modules.resolve(".flox/pkgs/a.nix", "../common"),
                 std::string(".flox/common/default.nix"));
        QCOMPARE(modules.resolve(".flox/pkgs/a.nix", "./pins/nixpkgs.json"),
                 std::string(".flox/pkgs/pins/nixpkgs.json/default.nix"));
        QCOMPARE(modules.resolveFile(".flox/pkgs/a.nix", "./pins/nixpkgs.json"),
                 std::string(".flox/pkgs/pins/nixpkgs.json"));
        QCOMPARE(modules.resolveFile(".flox/pkgs/a.nix", "./lib/x.nix"),
                 modules.resolve(".flox/pkgs/a.nix", "./lib/x.nix"));
        QVERIFY(modules.resolveFile(".flox/pkgs/a.nix", "../../../etc/passwd").empty());
        QVERIFY(modules.resolveFile(".flox/pkgs/a.nix", "/etc/passwd").empty());
        QVERIFY(modules.resolveFile(".flox/pkgs/a.nix", "../..").empty());
    }

    void readsTextOnce()
    {
        MemorySource source;
        source.files["pins/nixpkgs.json"] = kPin;
        source.files["big.json"] = std::string(200, ' ').append(1, '1');
        source.files["lib/x.nix"] = "{ a = 1; }";
        RecipeModules modules(source, 100);
        const auto text = modules.text("pins/nixpkgs.json");
        QVERIFY(text);
        QCOMPARE(std::string(*text), kPin);
        // A JSON file is no module, but stays readable as text, at the same place.
        QVERIFY(!modules.load("pins/nixpkgs.json"));
        QCOMPARE(modules.text("pins/nixpkgs.json")->data(), text->data());
        QCOMPARE(source.reads.load(), 1);
        // A module read as text afterwards is the tree's bytes.
        const nix::SyntaxTree* tree = modules.load("lib/x.nix");
        QVERIFY(tree);
        QCOMPARE(modules.text("lib/x.nix")->data(), tree->source().data());
        QCOMPARE(source.reads.load(), 2);
        QVERIFY(!modules.text("big.json"));     // over the size cap
        QVERIFY(!modules.text("missing.json")); // unreadable
        QVERIFY(modules.stamp("missing.json").empty());
        // Loading a file read as text before keeps the text where it was.
        source.files["both.nix"] = "{ b = 2; }";
        const auto before = modules.text("both.nix");
        QVERIFY(modules.load("both.nix"));
        QCOMPARE(modules.text("both.nix")->data(), before->data());
        QCOMPARE(std::string(*before), std::string("{ b = 2; }"));
    }

    void stampsFollowTheBytes()
    {
        MemorySource source;
        source.files["pins/nixpkgs.json"] = kPin;
        RecipeModules first(source, 1 << 20);
        const std::string stamp = first.stamp("pins/nixpkgs.json");
        QVERIFY(!stamp.empty());
        QCOMPARE(RecipeModules(source, 1 << 20).stamp("pins/nixpkgs.json"), stamp);
        source.files["pins/nixpkgs.json"][12] = 'f';
        QVERIFY(RecipeModules(source, 1 << 20).stamp("pins/nixpkgs.json") != stamp);
    }

    void trailRecordsReadFiles()
    {
        // A fact read from the JSON must be invalidated when it changes: the trail lists it.
        MemorySource source;
        source.files[".flox/pins/nixpkgs.json"] = kPin;
        RecipeModules modules(source, 1 << 20);
        ModuleTrail trail(modules);
        const nix::SyntaxTree tree = nix::SyntaxTree::parse(
            "(builtins.fromJSON (builtins.readFile ../pins/nixpkgs.json)).rev");
        nix::Evaluator evaluator(tree, ".flox/pkgs/torch.nix", &trail);
        const nix::Value rev = evaluator.root();
        QCOMPARE(rev.asString(),
                 std::optional<std::string>("5ed627539ac84809c78b2dd6d26a5cebeb5ae269"));
        QCOMPARE(rev.sourceOf(0, 40)->file, std::string_view(".flox/pins/nixpkgs.json"));
        QCOMPARE(rev.sourceOf(0, 40)->range.begin, uint32_t(10));
        QCOMPARE(trail.reached(), std::set<std::string>{".flox/pins/nixpkgs.json"});
        QCOMPARE(modules.loaded(), std::vector<std::string>{".flox/pins/nixpkgs.json"});
    }

    void threadSafe()
    {
        MemorySource source;
        for (int i = 0; i < 16; ++i)
            source.files["f" + std::to_string(i) + ".json"] = std::to_string(i);
        RecipeModules modules(source, 1 << 20);
        std::vector<std::thread> threads;
        std::atomic<int> wrong = 0;
        for (int t = 0; t < 8; ++t)
            threads.emplace_back([&] {
                for (int i = 0; i < 16; ++i) {
                    const std::string id = "f" + std::to_string(i) + ".json";
                    const auto text = i % 2 ? modules.text(id) : std::optional<std::string_view>();
                    if (i % 2 == 0)
                        modules.load(id);
                    if (i % 2 && (!text || *text != std::to_string(i)))
                        ++wrong;
                }
            });
        for (std::thread& thread : threads)
            thread.join();
        QCOMPARE(wrong.load(), 0);
        QCOMPARE(source.reads.load(), 16);
    }
};

QTEST_GUILESS_MAIN(TestRecipeModules)
#include "tst_recipemodules.moc"
