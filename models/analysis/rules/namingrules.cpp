#include "analysis/rules/namingrules.h"

#include "analysis/rules/recipecheck.h"
#include "analysis/ruleset.h"

namespace rg {

using namespace ruletext;

void NamingRules::naming(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    const VariantExpectation* e = c.expected();
    const Catalog& catalog = c.catalog();
    const VariantName& v = e->name;
    if (!v.isaAsWritten.empty() && v.isaAsWritten != v.isa)
        c.add(rule::naming, "file name writes the ISA as '" + v.isaAsWritten +
                                "'; the convention is '" + v.isa + "' (" + v.toString() + ".nix)");
    else if (v.legacyForm)
        c.add(rule::naming,
              "legacy name form '" + f.fileName + "'; canonical names spell python" + v.python +
                  (v.accelerator == Accelerator::Cuda ? " and the CUDA version (cudaX_Y)"
                                                      : std::string()));
    std::vector<std::string> unknown;
    if (!v.isa.empty() && !catalog.isa(v.isa))
        unknown.push_back("CPU ISA '" + v.isa + "'");
    if (v.accelerator == Accelerator::Cuda && !catalog.gpuArch(v.gpuArch))
        unknown.push_back("GPU architecture '" + v.gpuArch + "'");
    if (!catalog.python(v.python))
        unknown.push_back("Python version '" + v.python + "'");
    if (v.accelerator == Accelerator::Cuda && !v.cuda.empty() && !catalog.cuda(v.cuda))
        unknown.push_back("CUDA version '" + v.cuda + "'");
    if (!unknown.empty()) {
        std::string text;
        for (size_t i = 0; i < unknown.size(); ++i)
            text += (i ? ", " : "") + unknown[i];
        c.add(rule::unknownToCatalog,
              "the catalog does not know the " + text +
                  " of this name; the recipe is checked without what the catalog would add "
                  "(a spec can declare it)");
    }
    if (!v.suffixes.empty()) {
        std::string suffix;
        for (const std::string& s : v.suffixes)
            suffix += '-' + s;
        VariantName plain = v;
        plain.suffixes.clear();
        std::string message = "non-standard suffix '" + suffix +
                              "' after the ISA; the variant is " + plain.toString();
        // A second recipe of a cell another one already builds is to be deleted, not renamed.
        const RecipeFacts* other = c.builtBy();
        if (other)
            message += ", which " + other->fileName + " already builds";
        Finding& finding = c.add(rule::nonstandardSuffix, std::move(message));
        if (other)
            finding.fix = FixKind::Delete;
    }
}

void NamingRules::pname(RecipeCheck& c)
{
    const RecipeFacts& f = c.facts();
    const VariantExpectation* e = c.expected();
    const VariantName& v = e->name;
    if (f.pname) {
        const std::string stem = f.fileName.size() > 4 && f.fileName.ends_with(".nix")
                                     ? f.fileName.substr(0, f.fileName.size() - 4)
                                     : f.fileName;
        const std::string& pname = f.pname->value;
        if (pname != stem && pname != e->pname) {
            const auto named = VariantName::parse(pname);
            const bool sameCell = named && named->cellKey() == v.cellKey();
            c.add(sameCell ? rule::pnamePrefix : rule::pnameMismatch,
                  "pname " + inQuotes(pname) + " (" + lineOf(f, f.pname->range) + ") " +
                      (sameCell ? "names this variant with another prefix than "
                                : "names another variant than ") +
                      "the file " + inQuotes(stem) +
                      (e->pname != stem ? " or " + inQuotes(e->pname) : std::string()),
                  f.pname->range);
        }
    }
}

} // namespace rg
