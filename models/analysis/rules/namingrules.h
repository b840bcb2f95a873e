#pragma once

// Rules about names: the file's own (a variant name in its canonical spelling, known to the
// catalog, without suffixes) and the pname the recipe publishes its build under.

namespace rg {

class RecipeCheck;

class NamingRules
{
public:
    static void naming(RecipeCheck& c);
    static void pname(RecipeCheck& c);
};

} // namespace rg
