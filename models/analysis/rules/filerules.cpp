#include "analysis/rules/filerules.h"

#include "analysis/rules/recipecheck.h"
#include "analysis/ruleset.h"

namespace rg {

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
    case FileProblem::SyntaxError: {
        Finding finding = RuleSet::make(
            rule::syntaxError, f,
            f.parseError ? "syntax error at " + std::to_string(f.parseError->line) + ":" +
                               std::to_string(f.parseError->column) + ": " + f.parseError->message
                         : "syntax error: " + f.problemDetail);
        if (f.parseError) {
            finding.range = {f.parseError->offset, f.parseError->offset};
            finding.line = f.parseError->line;
            finding.column = f.parseError->column;
        }
        c.add(std::move(finding));
        return;
    }
    }
}

} // namespace rg
