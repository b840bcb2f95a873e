#pragma once

// Writes the recipe of one variant from the same facts the rules check against: a clone of
// its group's canonical recipe (RecipeCloner) when the repository has one, the templates
// otherwise; and fixes a broken recipe. A fix changes only what its findings name: wrong
// values are written in place (the tokens that hold them, the author's layout, comments and
// prose kept); only a finding with no value to write (missing overlays, the from-scratch
// pattern) regenerates the recipe, merged with everything the author wrote (RecipeMerge) or
// refused with the conflict named.

#include "analysis/analysis.h"
#include "changes/recipecloner.h"
#include "changes/recipetemplates.h"
#include "vcs/repositorysource.h"

#include <string>
#include <vector>

namespace rg {

class TextEdits;

struct GeneratedRecipe
{
    std::string text;  // "" when nothing could be written
    std::string how;   // "cloned from …-sm120-avx512.nix", "built-in template cpu", …
    std::string error; // why nothing was written
    // A fix written in place whose regeneration was refused: why ("conflicts with …").
    std::string notRegenerated;
};

class VariantGenerator
{
public:
    VariantGenerator(const RepositorySource& source, const Analysis& analysis);

    GeneratedRecipe create(const VariantName& name) const;
    // `bytes` is the broken recipe's text as read now.
    GeneratedRecipe fix(const Cell& entry, const std::string& bytes) const;
    // The byte ranges of `bytes` (the entry's recipe) its findings name, with what must change
    // along with them (a named pin's hash): what a fix may rewrite.
    static std::vector<nix::SourceRange> namedRanges(const Cell& entry, const std::string& bytes);

private:
    GeneratedRecipe generate(const VariantName& name, const Cell* replacing) const;
    GeneratedRecipe fromTemplate(const VariantExpectation& expectation) const;
    // The sound hashes recipes pin `revision` with, the one most of them pin first.
    std::vector<std::string> hashesOfPin(const std::string& revision) const;
    bool renewPinHash(const std::string& text, const PinFact& pin, TextEdits* edits,
                      std::string* error) const;
    bool retargetImports(const Cell& entry, const RecipeFacts& facts, TextEdits* edits,
                         std::string* error) const;
    std::string cudaSetSpelling(const std::string& cuda) const;
    void rewriteCudaSet(const Cell& entry, const RecipeFacts& facts, const std::string& text,
                        TextEdits* edits) const;
    GeneratedRecipe regenerate(const Cell& entry, const std::string& bytes) const;
    GeneratedRecipe fixInPlace(const Cell& entry, const std::string& bytes) const;
    std::string foreignHardwareWords(const std::string& before, const std::string& after,
                                     const VariantName& name) const;
    std::string keepOwnValues(const Cell& entry, const std::string& old,
                              const std::string& generated) const;
    const RecipeGroup* cloneSource(const VariantName& name) const;
    const Cell* entryOfPath(const std::string& path) const;
    std::vector<const Cell*> cloneSources(const RecipeGroup& group, const VariantName& name,
                                          const Cell* except) const;
    GeneratedRecipe cloneFrom(const Cell& source, const VariantName& name,
                              const VariantExpectation& expectation, std::string* wrong) const;
    RecipeFacts factsOf(const std::string& path, const std::string& bytes) const;
    std::string pathOf(const std::string& fileName) const;

    const RepositorySource& m_source;
    const Analysis& m_analysis;
    RecipeCloner m_cloner;
    RecipeTemplates m_templates;
};

} // namespace rg
