#include "eval/deepcheck.h"

#include "analysis/rules/recipecheck.h"
#include "analysis/ruleset.h"
#include "facts/archnotation.h"
#include "matrix/cpufeatureset.h"

#include <algorithm>
#include <set>

namespace rg {

using ruletext::inQuotes;

namespace {

std::string joined(const std::vector<std::string>& items, std::string_view separator)
{
    std::string text;
    for (const std::string& item : items)
        text += (text.empty() ? "" : std::string(separator)) + item;
    return text;
}

// "12.9" of "12.9.1": CUDA and Python versions are compared by major.minor.
std::string majorMinor(const std::string& version)
{
    const size_t first = version.find('.');
    const size_t second = first == std::string::npos ? first : version.find('.', first + 1);
    return second == std::string::npos ? version : version.substr(0, second);
}

} // namespace

DeepCheck::DeepCheck(const EvaluatedRecipe& evaluated, const VariantExpectation& expected,
                     const RecipeFacts& facts)
    : m_evaluated(evaluated), m_expected(expected), m_facts(facts)
{
    if (!evaluated.evaluated)
        return;
    judgeArch();
    judgeCuda();
    judgePython();
    judgePlatforms();
    judgeIsa();
    judgePname();
}

const std::vector<std::string_view>& DeepCheck::rulesReported()
{
    static const std::vector<std::string_view> rules = {rule::evalError,
                                                        rule::evalArchMismatch,
                                                        rule::evalArchExtra,
                                                        rule::evalCudaMismatch,
                                                        rule::evalCudaInCpuBuild,
                                                        rule::evalPythonMismatch,
                                                        rule::evalPlatformsMismatch,
                                                        rule::evalIsaMismatch,
                                                        rule::evalPnameMismatch,
                                                        rule::evalOverrulesStatic};
    return rules;
}

Finding DeepCheck::make(std::string_view rule, std::string message) const
{
    return RuleSet::make(rule, m_facts, std::move(message));
}

std::vector<Finding> DeepCheck::findings() const
{
    std::vector<Finding> out;
    if (!m_evaluated.evaluated) {
        const NixErrorReport& error = m_evaluated.error;
        Finding finding = make(rule::evalError, "Nix: " + error.message);
        if (!error.file.empty() && error.file == m_facts.path) {
            finding.line = uint32_t(error.line);
            finding.column = uint32_t(error.column);
        } else if (!error.file.empty()) {
            finding.message += " (at " + error.file + ":" + std::to_string(error.line) + ":" +
                               std::to_string(error.column) + ")";
        }
        out.push_back(std::move(finding));
        return out;
    }
    for (const Aspect& aspect : m_aspects)
        if (aspect.judged && !aspect.right)
            out.push_back(make(aspect.rule, aspect.message));
    return out;
}

std::vector<Finding> DeepCheck::overrule(const std::vector<Finding>& staticFindings) const
{
    std::vector<Finding> out;
    for (const Finding& finding : staticFindings) {
        const auto confirmedRight =
            std::find_if(m_aspects.begin(), m_aspects.end(), [&](const Aspect& a) {
                return a.judged && a.right &&
                       std::find(a.staticRules.begin(), a.staticRules.end(), finding.ruleId) !=
                           a.staticRules.end();
            });
        if (confirmedRight == m_aspects.end()) {
            out.push_back(finding);
            continue;
        }
        Finding note = finding;
        note.ruleId = rule::evalOverrulesStatic;
        note.severity = Severity::Info;
        note.fix = FixKind::None;
        note.message =
            "Nix evaluates " + confirmedRight->evaluatedText +
            ", which is right for this variant; the static reading said: " + finding.message;
        out.push_back(std::move(note));
    }
    return out;
}

void DeepCheck::judgeArch()
{
    const bool cuda = m_expected.name.accelerator == Accelerator::Cuda;
    if (!m_evaluated.torch)
        return;
    const EvaluatedTorch& torch = *m_evaluated.torch;
    if (!cuda) {
        Aspect aspect{rule::evalCudaInCpuBuild,
                      {rule::cpuRecipeEnablesCuda, rule::cpuRecipeCudaInputs}};
        aspect.judged = torch.cudaSupport.has_value();
        aspect.right = !torch.cudaSupport.value_or(false);
        aspect.evaluatedText =
            std::string("cudaSupport = ") + (torch.cudaSupport.value_or(false) ? "true" : "false");
        aspect.message = "Nix evaluates the torch of this CPU-only variant with cudaSupport = "
                         "true: it builds CUDA kernels and links the CUDA libraries";
        m_aspects.push_back(std::move(aspect));
        return;
    }
    if (m_expected.archNumber.empty())
        return;
    std::vector<std::string> entries = m_evaluated.archList();
    std::string sink = "TORCH_CUDA_ARCH_LIST";
    if (entries.empty()) {
        entries = torch.cudaCapabilities;
        sink = "cudaCapabilities";
    }
    if (entries.empty() && torch.cudaSupport != false)
        return; // nothing the evaluation shows: the static reading stands
    std::set<std::string> numbers;
    std::vector<std::string> rejected;
    for (const std::string& entry : entries) {
        const ArchReading reading = ArchNotation::read(ArchSink::TorchCudaArchList, entry);
        if (reading.denotesAny)
            return; // "all", "native": which archs depends on the build machine
        if (!reading.accepted)
            rejected.push_back(entry);
        numbers.insert(reading.numbers.begin(), reading.numbers.end());
    }
    const std::string shown = sink + " = " + inQuotes(joined(entries, ";"));
    const std::string wanted = ArchNotation::dotted(m_expected.archNumber);
    Aspect arch{rule::evalArchMismatch, {rule::gpuArchMismatch, rule::gpuArchNotation}};
    arch.judged = true;
    arch.right = rejected.empty() && numbers.count(m_expected.archNumber) > 0;
    arch.evaluatedText = shown;
    if (torch.cudaSupport == false)
        arch.message = "Nix evaluates the torch of this CUDA variant with cudaSupport = false";
    else if (!rejected.empty())
        arch.message = "Nix evaluates the build's " + shown + ": PyTorch rejects " +
                       inQuotes(joined(rejected, ";")) + " (it takes " +
                       std::string(ArchNotation::accepts(ArchSink::TorchCudaArchList)) + "); " +
                       m_expected.name.gpuArch + " is " + inQuotes(wanted);
    else
        arch.message = "Nix evaluates the build's " + shown + ", without " +
                       m_expected.name.gpuArch + " (" + wanted + ")";
    m_aspects.push_back(std::move(arch));
    Aspect extra{rule::evalArchExtra, {rule::gpuArchExtra}};
    extra.judged = arch.right;
    extra.right = numbers.size() == 1;
    extra.evaluatedText = shown;
    extra.message = "Nix evaluates the build's " + shown + ": more than " +
                    m_expected.name.gpuArch + " (" + wanted + ")";
    m_aspects.push_back(std::move(extra));
}

void DeepCheck::judgeCuda()
{
    if (m_expected.name.accelerator != Accelerator::Cuda || m_expected.name.cuda.empty() ||
        m_evaluated.cudaVersion.empty())
        return;
    Aspect aspect{rule::evalCudaMismatch, {rule::cudaVersionMismatch}};
    aspect.judged = true;
    aspect.right = majorMinor(m_evaluated.cudaVersion) == m_expected.name.cuda;
    aspect.evaluatedText = "CUDA " + m_evaluated.cudaVersion;
    aspect.message = "Nix evaluates the torch build's CUDA set as CUDA " + m_evaluated.cudaVersion +
                     ", not " + m_expected.name.cuda;
    m_aspects.push_back(std::move(aspect));
}

void DeepCheck::judgePython()
{
    if (m_expected.python.empty() || m_evaluated.pythonVersion.empty())
        return;
    Aspect aspect{rule::evalPythonMismatch,
                  {rule::pythonVersionMismatch, rule::pythonDefaultMismatch}};
    aspect.judged = true;
    aspect.right = majorMinor(m_evaluated.pythonVersion) == m_expected.python;
    aspect.evaluatedText = "Python " + m_evaluated.pythonVersion;
    aspect.message = "Nix evaluates the package for Python " + m_evaluated.pythonVersion +
                     ", not " + m_expected.python;
    m_aspects.push_back(std::move(aspect));
}

void DeepCheck::judgePlatforms()
{
    if (m_expected.platform.empty() || m_evaluated.platforms.empty())
        return;
    Aspect aspect{rule::evalPlatformsMismatch, {rule::platformsMismatch}};
    aspect.judged = true;
    aspect.right = std::find(m_evaluated.platforms.begin(), m_evaluated.platforms.end(),
                             m_expected.platform) != m_evaluated.platforms.end();
    aspect.evaluatedText = "meta.platforms = [ " + joined(m_evaluated.platforms, " ") + " ]";
    aspect.message = "Nix evaluates " + aspect.evaluatedText + ", without " + m_expected.platform;
    m_aspects.push_back(std::move(aspect));
}

void DeepCheck::judgeIsa()
{
    const std::vector<std::string> flags = m_evaluated.compilerFlags();
    // No flags in what Nix shows: they may reach the compiler another way (cmakeFlags, a
    // wrapper); the static reading stands.
    if (!m_expected.isa || flags.empty())
        return;
    const IsaVerdict verdict = CpuFeatureSet(flags).judge(*m_expected.isa);
    Aspect aspect{rule::evalIsaMismatch, {rule::cpuFlagsMismatch}};
    aspect.judged = !verdict.unknownBaseline;
    aspect.right = verdict.acceptable();
    aspect.evaluatedText = "the compiler flags " + inQuotes(joined(flags, " "));
    std::string why;
    if (!verdict.missingRequired.empty())
        why += "without " + joined(verdict.missingRequired, ", ");
    if (!verdict.forbiddenEnabled.empty())
        why += std::string(why.empty() ? "" : "; ") + "enabling " +
               joined(verdict.forbiddenEnabled, ", ") + ", which some " +
               m_expected.isa->description + " machines lack (SIGILL)";
    aspect.message = "Nix evaluates " + aspect.evaluatedText + " for " +
                     m_expected.isa->description + ": " + why;
    m_aspects.push_back(std::move(aspect));
}

void DeepCheck::judgePname()
{
    const auto named = VariantName::parse(m_evaluated.pname);
    if (!named)
        return; // "torch": the recipe keeps nixpkgs' pname; nothing names another variant
    Aspect aspect{rule::evalPnameMismatch, {rule::pnameMismatch}};
    aspect.judged = true;
    aspect.right = named->cellKey() == m_expected.name.cellKey();
    aspect.evaluatedText = "pname = " + inQuotes(m_evaluated.pname);
    aspect.message = "Nix evaluates " + aspect.evaluatedText + ", which names another variant";
    m_aspects.push_back(std::move(aspect));
}

} // namespace rg
