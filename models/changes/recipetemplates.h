#pragma once

// Recipes written from Mustache templates, for variants no recipe of the repository can be
// cloned from (a CPU-only variant on a CUDA branch, a new CUDA version). A repository's own
// templates (`.flox/templates/gpu.nix.mustache`, `cpu.nix.mustache`) take precedence over the
// built-in ones. Values come from the variant's expectation and the catalog; overlays the
// pattern requires are copied from the repository's own recipes, where they were proven.

#include "matrix/catalog.h"
#include "matrix/variantexpectation.h"
#include "vcs/repositorysource.h"

#include <string>
#include <vector>

namespace rg {

struct TemplateInputs
{
    std::vector<std::string> overlays; // overlay function texts, in the pattern's order
    std::string pinHash;               // the tarball's sha256 for the pin, "" when unknown
};

class RecipeTemplates
{
public:
    RecipeTemplates(const RepositorySource& source, const Catalog& catalog);

    // "gpu" for CUDA variants, "cpu" for CPU-only and Darwin ones.
    static std::string nameFor(const VariantName& name);
    // Where the template for `name` comes from: a repository path or ":/templates/…".
    std::string originOf(const VariantName& name) const;

    // The recipe text, or "" with `error` set (template unreadable or malformed).
    std::string render(const VariantExpectation& variant, const TemplateInputs& inputs,
                       std::string* error) const;

private:
    std::string templateText(const std::string& name, std::string* origin,
                             std::string* error) const;

    const RepositorySource& m_source;
    const Catalog& m_catalog;
};

} // namespace rg
