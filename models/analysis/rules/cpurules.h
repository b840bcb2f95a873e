#pragma once

// Rules about the CPU ISA a recipe's compiler flags build for, against the file's ISA.

#include <string>

namespace rg {

class Catalog;
class RecipeCheck;
struct CpuFlagsFact;
struct CpuIsa;

class CpuRules
{
public:
    static void cpu(RecipeCheck& c);

private:
    static void flags(RecipeCheck& c, const CpuFlagsFact& flags);
    static bool definesAnotherIsa(const Catalog& catalog, const CpuIsa& isa,
                                  const std::string& feature);
};

} // namespace rg
