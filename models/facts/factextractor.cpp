#include "facts/factextractor.h"

#include "facts/archsinkreader.h"
#include "facts/builderreader.h"
#include "facts/compilerflagsreader.h"
#include "facts/factcontext.h"
#include "facts/importreader.h"
#include "facts/overlayreader.h"
#include "facts/packagesetreader.h"
#include "facts/pinreader.h"
#include "facts/platformreader.h"
#include "facts/shellsettings.h"
#include "facts/shellsettingsreader.h"
#include "facts/syntaxqueries.h"
#include "facts/valuereader.h"

namespace rg {

using nix::Node;
using nix::NodeKind;

namespace {

// How the recipe makes its torch, from what the readers found. `pythonFromTorch`: the
// Python set is the one torch is taken from.
PatternKind patternOf(const FactContext& context, const Node& root, bool pythonFromTorch)
{
    const RecipeFacts& facts = context.facts();
    bool fromScratch = false;
    for (const Node* apply : context.walked().applies()) {
        const std::string_view callee = calleeName(*apply);
        if ((callee == "buildPythonPackage" || callee == "mkDerivation" ||
             callee == "buildPythonApplication") &&
            !context.inOverlay(apply)) {
            fromScratch = true;
            break;
        }
    }
    const bool torchBase = facts.torchAttribute && pythonFromTorch;
    if (fromScratch && !torchBase)
        return PatternKind::FromScratch;
    if (facts.wrappedFile && !torchBase && facts.pins.empty())
        return PatternKind::Wrapper;
    if (!facts.pins.empty())
        return facts.overlays.empty() ? PatternKind::PinnedPlain : PatternKind::PinnedOverlays;
    if (root.kind == NodeKind::Lambda && root.lambdaFormals())
        return PatternKind::CallPackage;
    return PatternKind::Unknown;
}

} // namespace

// The readers run in an order that matters: overlays first (values inside them describe
// the set they rebuild, not the recipe), pins before values (a module's pin makes the
// recipe pinned), bindings before shell settings (a binding states a value more plainly),
// the recipe's own facts before the builder's, and the pattern last, from all of them.
void FactExtractor::extract(const nix::SyntaxTree& tree, RecipeFacts& facts,
                            nix::ModuleLoader* modules)
{
    const Node* root = tree.root();
    if (!root)
        return;
    FactContext context(tree, facts, modules);
    context.walk(*root);
    OverlayReader overlays(context);
    overlays.findOverlays();
    overlays.readOverlayFacts();
    PinReader pins(context);
    pins.readPins();
    pins.readHashes();
    ValueReader(context).read(overlays.torchVersion());
    ImportReader imports(context);
    imports.readImports();
    BuilderReader builder(context);
    builder.readDerivedFrom();
    PackageSetReader packageSets(context);
    packageSets.read();
    packageSets.readSelected(); // `pkgs.${pyAttr}`: where no set is named
    const ShellSettings settings(context);
    ShellSettingsReader(context, settings).read();
    ArchSinkReader(context, settings).read();
    CompilerFlagsReader(context, settings).read();
    PlatformReader platforms(context);
    platforms.readPlatforms();
    platforms.readNixpkgsSystem();
    builder.readThroughBuilder();
    imports.readUnpinnedImports(*root);
    facts.pattern = patternOf(context, *root, packageSets.pythonFromTorch());
}

} // namespace rg
