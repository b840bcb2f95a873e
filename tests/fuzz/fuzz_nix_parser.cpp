// libFuzzer target for the Nix front end: SyntaxTree::parse must never crash, hang or leak,
// and whatever it returns must be self-consistent. Run (see tests/fuzz/CMakeLists.txt):
//   build/fuzz/tests/fuzz/fuzz_nix_parser -max_total_time=600 -rss_limit_mb=2048 -timeout=5 \
//       <work corpus dir> tests/fuzz/corpus

#include "nix/syntaxtree.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

void check(bool condition)
{
    if (!condition)
        std::abort();
}

// Hook for later consumers of the tree (e.g. the recipe fact extractor of models/recipes):
// call them here so that one target fuzzes the parser and everything built on its output.
void fuzzFurtherConsumers(const rg::nix::SyntaxTree& tree)
{
    (void)tree;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace rg::nix;
    const SyntaxTree tree =
        SyntaxTree::parse(std::string(reinterpret_cast<const char*>(data), size));
    if (!tree.root()) {
        check(tree.error().has_value());
        check(tree.error()->offset <= size);
        check(tree.error()->line >= 1 && tree.error()->column >= 1);
        check(!tree.error()->message.empty());
        check(tree.toNixParseNotation("/fuzz").empty());
        return 0;
    }
    check(!tree.error().has_value());
    forEachNode(*tree.root(), [&](const Node& node) {
        check(node.range.begin <= node.range.end && node.range.end <= size);
        uint32_t previousEnd = node.range.begin;
        for (const Node* child : node.children) {
            check(child != nullptr);
            check(child->range.begin >= previousEnd && child->range.end <= node.range.end);
            check(child->depth < node.depth);
            previousEnd = child->range.end;
        }
        (void)tree.text(node.range);
        (void)literalString(node);
        if (node.kind == NodeKind::AttrPath)
            (void)attrPathString(node);
        return true;
    });
    check(!tree.toNixParseNotation("/fuzz").empty());
    fuzzFurtherConsumers(tree);
    return 0;
}
