#include "analysis/rules/pinrules.h"

#include "analysis/rules/recipecheck.h"
#include "analysis/ruleset.h"
#include "matrix/versionspelling.h"
#include "nix/nixhash.h"

namespace rg {

using namespace ruletext;

void PinRules::notFull(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    for (const PinFact& pin : f.pins)
        if (!isFullRevision(pin.revision))
            c.add(rule::pinNotFull,
                  "nixpkgs pin '" + pin.revision + "' is not a full 40-hex commit id (" +
                      whereIs(f, pin) + ")",
                  rangeOf(pin));
}

void PinRules::invalidHashes(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    for (const HashFact& hash : f.hashes)
        if (const std::string problem = nix::NixHash::problem(hash.attribute, hash.value);
            !problem.empty())
            c.add(rule::invalidHash,
                  hash.attribute + " \"" + hash.value + "\" (" + lineOf(f, hash.range) +
                      ") is refused by Nix: " + problem + "; the source needs a new hash",
                  hash.range);
}

void PinRules::unpinned(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    if (!f.pins.empty() && !f.unpinnedImports.empty())
        c.add(rule::unpinnedNixpkgs,
              "imports " + f.unpinnedImports.front().value + " (" +
                  lineOf(f, f.unpinnedImports.front().range) + ") next to the pinned nixpkgs " +
                  shortRevision(f.pins.front().revision) + " (" + whereIs(f, f.pins.front()) +
                  "): that part follows whatever nixpkgs the building machine has",
              f.unpinnedImports.front().range);
}

void PinRules::pins(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    const VariantExpectation* e = c.expected();
    if (e->pin)
        for (const PinFact& pin : f.pins) {
            if (!isFullRevision(pin.revision) || pin.revision == *e->pin)
                continue;
            c.add(e->fromSpecFile ? rule::pinMismatch : rule::pinDiffersFromGroup,
                  "nixpkgs pin " + pin.revision + " (" + whereIs(f, pin) + ") differs from " +
                      e->pinSource + ", " + *e->pin,
                  rangeOf(pin));
        }
    if (!e->fromSpecFile || !f.pins.empty() || f.pattern == PatternKind::FromScratch ||
        f.pattern == PatternKind::Wrapper || !e->pattern)
        return;
    if (e->pattern->kind == PatternKind::PinnedOverlays ||
        e->pattern->kind == PatternKind::PinnedPlain)
        c.add(rule::pinMissing, e->patternSource + " imports a pinned nixpkgs" +
                                    (e->pin ? " (" + *e->pin + ")" : std::string()) +
                                    ", but the recipe pins none");
}

} // namespace rg
