#pragma once

// Reads which package sets a recipe builds from: the Python set its torch comes from (named,
// through `with`, through a binding, or as a formal), the CUDA set and every CUDA input.

#include "facts/factcontext.h"

#include <string_view>

namespace rg {

class PackageSetReader
{
public:
    explicit PackageSetReader(FactContext& context);

    // Fills `torchAttribute`, `pythonPackageSet`, `cudaInputs` and `cudaPackageSet`.
    void read();
    // In a builder module: `pkgs."python${python}Packages"`, `pkgs."cudaPackages_${cuda}"`,
    // an attribute name made from the recipe's argument.
    void readSelected();

    // The Python set was found as the one torch is taken from (not merely mentioned).
    bool pythonFromTorch() const { return m_pythonFromTorch; }

private:
    void notePythonSet(std::string_view set, const nix::Node* node, std::string_view attribute,
                       const nix::Node* attributeNode);
    void notePythonSelect(const nix::Node& select);
    void torchFromWith();
    void torchFromValues();
    nix::SourceRange rangeOfName(std::string_view name, const nix::Node* fallback) const;
    void readCudaInputs();

    FactContext& m_context;
    RecipeFacts& m_facts;
    const RecipeWalk& m_walk;
    bool m_pythonFromTorch = false;
};

} // namespace rg
