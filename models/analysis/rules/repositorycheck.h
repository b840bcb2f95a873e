#pragma once

// The recipes of a repository once each has been judged alone: what the rules that look across
// recipes, or at the repository's other files, read, and the findings they add to.

#include "analysis/finding.h"
#include "facts/recipefacts.h"
#include "matrix/catalog.h"
#include "matrix/variantexpectation.h"

#include <memory>
#include <vector>

namespace rg {

class RepositorySource;

struct RepositoryCheck
{
    const RepositorySource& source;
    const std::vector<std::shared_ptr<const RecipeFacts>>& recipes;
    const std::vector<int>& bases; // per recipe, the recipe it wraps, or -1
    const std::vector<std::shared_ptr<const VariantExpectation>>& expectations; // per recipe
    const Catalog& catalog;
    std::vector<std::vector<Finding>>& findings; // per recipe, each kept most severe first
};

} // namespace rg
