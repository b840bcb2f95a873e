#pragma once

// Every rule RecipeGrid checks: its stable id, severity, fix kind and a description (what the
// CLI's SARIF output and the UI's help show), and the checks that look at one recipe against
// the spec and the catalog. Rules about the repository as a whole (missing, duplicate and
// unexpected variants) are decided by the Analyzer, which sees all recipes at once.

#include "matrix/catalog.h"
#include "matrix/matrixspec.h"
#include "recipes/finding.h"
#include "recipes/recipefacts.h"

#include <string_view>
#include <vector>

namespace rg {

struct RuleInfo
{
    std::string_view id; // "pin-mismatch"
    Severity severity = Severity::Error;
    FixKind fix = FixKind::None;
    std::string_view title;       // short phrase for one-line reasons: "pin differs"
    std::string_view description; // one sentence for help texts and SARIF
};

class RuleSet
{
public:
    static const std::vector<RuleInfo>& rules();
    static const RuleInfo* rule(std::string_view id); // nullptr for an unknown id

    // Findings of the per-recipe rules, most severe first. `facts.variant` may be empty (then
    // only the rules that need no variant run).
    static std::vector<Finding> check(const RecipeFacts& facts, const MatrixSpec& spec,
                                      const Catalog& catalog);

    // A finding of rule `id` with the rule's severity and fix, positioned by `facts`.
    static Finding make(std::string_view id, const RecipeFacts& facts, std::string message,
                        nix::SourceRange range = {});
    // Most severe first, then by position.
    static void sort(std::vector<Finding>& findings);
};

} // namespace rg
