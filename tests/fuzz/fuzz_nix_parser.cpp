// libFuzzer target for the Nix front end and the fact extraction and rules on its trees:
// nothing may crash, hang or leak, and whatever they return must be self-consistent.
// Run (see tests/fuzz/CMakeLists.txt):
//   build/fuzz/tests/fuzz/fuzz_nix_parser -max_total_time=600 -rss_limit_mb=2048 -timeout=5 \
//       <work corpus dir> tests/fuzz/corpus

#include "analysis/ruleset.h"
#include "facts/factextractor.h"
#include "matrix/catalog.h"
#include "matrix/matrixspec.h"
#include "matrix/variantexpectation.h"
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

bool inside(const rg::nix::SourceRange& range, size_t size)
{
    return range.begin <= range.end && range.end <= size;
}

// The fact extractor and every per-recipe rule run on whatever the parser accepted, against
// the seed 001 target spec, so one target fuzzes everything built on the tree.
void fuzzFurtherConsumers(const rg::nix::SyntaxTree& tree)
{
    static const rg::MatrixSpec spec = [] {
        rg::SpecError error;
        auto loaded = rg::MatrixSpec::load(RG_FIXTURES_DIR "/seed001-target/.flox/recipegrid.json",
                                           rg::Catalog::builtin(), &error);
        check(loaded.has_value());
        return *loaded;
    }();
    const size_t size = tree.source().size();
    rg::RecipeFacts facts;
    facts.path = ".flox/pkgs/pytorch-python313-cuda13_0-sm90-avx512.nix";
    facts.fileName = "pytorch-python313-cuda13_0-sm90-avx512.nix";
    facts.variant = rg::VariantName::parse("pytorch-python313-cuda13_0-sm90-avx512");
    facts.size = size;
    rg::FactExtractor::extract(tree, facts);
    for (const rg::PinFact& pin : facts.pins)
        check(inside(pin.range, size));
    for (const rg::OverlayFact& overlay : facts.overlays)
        check(inside(overlay.range, size));
    if (facts.pname)
        check(inside(facts.pname->range, size));
    if (facts.cpuFlags)
        check(inside(facts.cpuFlags->range, size));
    const rg::Catalog& catalog = rg::Catalog::builtin();
    const rg::VariantExpectation expected =
        rg::VariantExpectation::of(*facts.variant, spec, catalog);
    for (const rg::Finding& finding : rg::RuleSet::check(facts, &expected, catalog)) {
        check(!finding.ruleId.empty() && !finding.message.empty());
        check(inside(finding.range, size));
    }
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
