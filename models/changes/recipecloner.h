#pragma once

// Rewrites the recipe of one variant into the recipe of another by editing only what belongs
// to the variant: the pname, the variant's name wherever it is written (bindings, comments,
// echo lines, descriptions), the GPU arch at every sink and in every literal that denotes it
// (in the notation written there), the ISA flags (a flag list, the flags in a shell setting,
// or the ISA selected from an imported module), meta.platforms, the Python package set, and
// the catalog's GPU/ISA descriptions. Every other byte stays as the source recipe has it, so
// a clone of a sound recipe builds the way its source does.
//
// Used both to clone a group's canonical recipe into a missing variant and, with a recipe as
// its own source, to write the expected values into a broken recipe in place.

#include "changes/textedits.h"
#include "facts/recipefacts.h"
#include "matrix/catalog.h"
#include "matrix/variantexpectation.h"

#include <string>
#include <string_view>

namespace rg {

class RecipeCloner
{
public:
    explicit RecipeCloner(const Catalog& catalog) : m_catalog(catalog) {}

    // The target recipe's text; `error` is set (and "" returned) when the source does not
    // parse or a value the target needs cannot be written (a flag list built by a function
    // the cloner cannot read, an ISA module without the target's ISA).
    std::string clone(std::string_view source, const RecipeFacts& facts, const VariantName& from,
                      const VariantExpectation& to, std::string* error) const;

private:
    const Catalog& m_catalog;
};

} // namespace rg
