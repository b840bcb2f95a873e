#include "analysis/rules/specrules.h"

#include "analysis/rules/speccheck.h"
#include "analysis/ruleset.h"

#include <algorithm>

namespace rg {

void SpecRules::inferred(SpecCheck& c)
{
    Analysis& analysis = c.analysis;
    Finding note;
    note.file = analysis.specPath;
    if (analysis.specError) {
        note.ruleId = std::string(rule::specInvalid);
        note.severity = Severity::Error;
        note.message = analysis.specError->toString() + " (the spec was inferred instead)";
        note.line = static_cast<uint32_t>(std::max(0, analysis.specError->line));
        note.column = static_cast<uint32_t>(std::max(0, analysis.specError->column));
    } else {
        note.ruleId = std::string(rule::specInferred);
        note.severity = Severity::Info;
        note.message = "no matrix spec at " + std::string(MatrixSpec::defaultPath) +
                       "; the expected matrix is what the " + std::to_string(c.inferredFrom) +
                       " recipes build, and cells they only suggest are gaps";
    }
    analysis.repositoryFindings.push_back(std::move(note));
}

} // namespace rg
