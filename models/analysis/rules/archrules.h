#pragma once

// Rules about the GPU architecture a CUDA recipe builds for, read where it reaches the build
// (gpuTargets, cudaCapabilities, TORCH_CUDA_ARCH_LIST, …) against the file's SM.

#include <string>

namespace rg {

class RecipeCheck;
struct ArchSinkFact;
struct RecipeFacts;

class ArchRules
{
public:
    static void gpuArch(RecipeCheck& c);

private:
    static std::string origin(const RecipeFacts& f, const ArchSinkFact& entry);
    static std::string sinkAt(const RecipeFacts& f, const ArchSinkFact& entry);
};

} // namespace rg
