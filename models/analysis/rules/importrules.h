#pragma once

// Rules about what a recipe takes from other files: a sibling recipe it builds on, a builder
// module that makes its values, a wrapped base whose pin and overlays it inherits, and files
// it imports that are not there.

namespace rg {

class RecipeCheck;
struct RepositoryCheck;

class ImportRules
{
public:
    static void imports(RecipeCheck& c);
    static void unread(RecipeCheck& c);

    // Rules that need the other recipes, or the repository's files.
    static void inherited(RepositoryCheck& c);
    static void missingFiles(RepositoryCheck& c);
};

} // namespace rg
