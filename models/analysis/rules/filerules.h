#pragma once

// A file the rules cannot look into: unreadable, outside the repository, not UTF-8, too large, or
// not Nix. Such a recipe gets this finding alone.

namespace rg {

class RecipeCheck;

class FileRules
{
public:
    static void problem(RecipeCheck& c);
};

} // namespace rg
