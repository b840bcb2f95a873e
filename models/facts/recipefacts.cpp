#include "facts/recipefacts.h"

namespace rg {

std::string_view archSinkName(ArchSink sink)
{
    switch (sink) {
    case ArchSink::GpuTargets:
        return "gpuTargets";
    case ArchSink::CudaCapabilities:
        return "cudaCapabilities";
    case ArchSink::TorchCudaArchList:
        return "TORCH_CUDA_ARCH_LIST";
    case ArchSink::CmakeCudaArchitectures:
        return "CMAKE_CUDA_ARCHITECTURES";
    case ArchSink::ComputeCapability:
        return "COMPUTE_CAPABILITY";
    }
    return "gpuTargets";
}

} // namespace rg
