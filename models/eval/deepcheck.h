#pragma once

// Nix's answer against what the variant must be: the findings of evaluating one recipe, and
// which of the static reading's findings Nix does not confirm. Each aspect (arch list, CUDA,
// Python, platforms, ISA flags, pname) is judged only where the evaluated derivation tells it;
// where it does not, the static reading stands. Where both tell it and disagree, Nix wins.

#include "analysis/finding.h"
#include "eval/evaluatedrecipe.h"
#include "facts/recipefacts.h"
#include "matrix/variantexpectation.h"

#include <vector>

namespace rg {

class DeepCheck
{
public:
    DeepCheck(const EvaluatedRecipe& evaluated, const VariantExpectation& expected,
              const RecipeFacts& facts);

    // The evaluation's own findings: Nix's error, or each aspect Nix shows wrong.
    std::vector<Finding> findings() const;
    // `staticFindings` with each finding about an aspect Nix shows right replaced by an
    // eval-overrules-static note that names both answers.
    std::vector<Finding> overrule(const std::vector<Finding>& staticFindings) const;

    // Every rule a deep check reports: the rules whose check is NixAnswer in RuleSet's table.
    static const std::vector<std::string_view>& rulesReported();

private:
    struct Aspect
    {
        Aspect(std::string_view rule, std::vector<std::string_view> staticRules)
            : rule(rule), staticRules(std::move(staticRules))
        {}
        std::string_view rule;                     // the eval-* rule it gives when wrong
        std::vector<std::string_view> staticRules; // what the static reading says about it
        bool judged = false;                       // the evaluated derivation tells it
        bool right = false;
        std::string evaluatedText; // "TORCH_CUDA_ARCH_LIST = \"8.9\""
        std::string message;       // when wrong
    };
    void judgeArch();
    void judgeCuda();
    void judgePython();
    void judgePlatforms();
    void judgeIsa();
    void judgePname();
    Finding make(std::string_view rule, std::string message) const;

    const EvaluatedRecipe& m_evaluated;
    const VariantExpectation& m_expected;
    const RecipeFacts& m_facts;
    std::vector<Aspect> m_aspects;
};

} // namespace rg
