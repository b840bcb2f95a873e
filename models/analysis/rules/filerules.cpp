#include "analysis/rules/filerules.h"

#include "analysis/rules/recipecheck.h"
#include "analysis/ruleset.h"

namespace rg {

namespace {

// The finding placed where the parser stopped, its message saying where ("… at 3:14: …").
Finding atParseError(std::string_view rule, const RecipeFacts& f, const std::string& before,
                     const std::string& after)
{
    if (!f.parseError)
        return RuleSet::make(rule, f, before + ": " + f.problemDetail + after);
    Finding finding = RuleSet::make(rule, f,
                                    before + " at " + std::to_string(f.parseError->line) + ":" +
                                        std::to_string(f.parseError->column) + ": " +
                                        f.parseError->message + after);
    finding.range = {f.parseError->offset, f.parseError->offset};
    finding.line = f.parseError->line;
    finding.column = f.parseError->column;
    return finding;
}

} // namespace

void FileRules::problem(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    switch (f.problem) {
    case FileProblem::None:
        return;
    case FileProblem::Unreadable:
        c.add(rule::unreadableFile, "cannot read " + f.path + ": " + f.problemDetail);
        return;
    case FileProblem::Symlink:
        c.add(rule::symlinkOutside, f.path + ": " + f.problemDetail);
        return;
    case FileProblem::NotUtf8:
        c.add(rule::notUtf8, f.path + ": " + f.problemDetail);
        return;
    case FileProblem::Oversized:
        c.add(rule::oversizedFile, f.path + ": " + f.problemDetail);
        return;
    case FileProblem::SyntaxError:
        c.add(atParseError(rule::syntaxError, f, "syntax error", ""));
        return;
    case FileProblem::TooDeep:
        c.add(atParseError(rule::nestedTooDeep, f, "not checked",
                           " (the limit is RecipeGrid's, not Nix's: Nix may accept the file)"));
        return;
    }
}

} // namespace rg
