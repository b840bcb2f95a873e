# PyTorch optimized for NVIDIA Ampere (RTX 3090, A40) + AVX-512
# Package name: pytorch-python313-cuda12_8-sm86-avx512

{ python312Packages
, lib
, config
, cudaPackages_12_8
, addDriverRunpath
, openblas
}:

let
  # GPU target: SM120 (NVIDIA Ampere (RTX 3090, A40))
  gpuArch = "sm_86";

  # CPU optimization: AVX-512
  cpuFlags = [
    "-mavx2"       "-mfma"        "-mf16c"
  ];

in python312Packages.pytorch.overrideAttrs (oldAttrs: {
  pname = "pytorch-python313-cuda12_8-sm86-avx512";

  # Enable CUDA support with specific GPU target
  passthru = oldAttrs.passthru // {
    inherit gpuArch;
  };

  # Override build configuration
  buildInputs = oldAttrs.buildInputs ++ [
    cudaPackages_12_8.cuda_cudart
    cudaPackages_12_8.libcublas
    cudaPackages_12_8.libcufft
    cudaPackages_12_8.libcurand
    cudaPackages_12_8.libcusolver
    cudaPackages_12_8.libcusparse
    cudaPackages_12_8.cudnn
    # Explicitly add dynamic OpenBLAS for host-side operations
    (openblas.override {
      blas64 = false;
      singleThreaded = false;
    })
  ];

  nativeBuildInputs = oldAttrs.nativeBuildInputs ++ [
    addDriverRunpath
  ];

  # Set CUDA architecture and CPU optimization flags
  preConfigure = (oldAttrs.preConfigure or "") + ''
    export TORCH_CUDA_ARCH_LIST="${gpuArch}"
    export TORCH_NVCC_FLAGS="-Xfatbin -compress-all"

    # CPU optimizations via compiler flags
    export CXXFLAGS="$CXXFLAGS ${lib.concatStringsSep " " cpuFlags}"
    export CFLAGS="$CFLAGS ${lib.concatStringsSep " " cpuFlags}"

    # Enable cuBLAS
    export USE_CUBLAS=1
    export USE_CUDA=1

    # Optimize for target architecture
    export CMAKE_CUDA_ARCHITECTURES="${lib.removePrefix "sm_" gpuArch}"

    echo "========================================="
    echo "PyTorch Build Configuration"
    echo "========================================="
    echo "GPU Target: ${gpuArch} (NVIDIA Ampere (RTX 3090, A40))"
    echo "CPU Features: AVX-512"
    echo "CUDA: Enabled with cuBLAS"
    echo "TORCH_CUDA_ARCH_LIST: $TORCH_CUDA_ARCH_LIST"
    echo "CXXFLAGS: $CXXFLAGS"
    echo "========================================="
  '';

  meta = oldAttrs.meta // {
    description = "PyTorch optimized for NVIDIA Ampere (RTX 3090, A40) with AVX-512";
    longDescription = ''
      Custom PyTorch build with targeted optimizations:
      - GPU: NVIDIA Ampere (RTX 3090, A40)
      - CPU: AVX-512
      - CUDA: 12.8
      - BLAS: cuBLAS for GPU operations, OpenBLAS for host-side
      - Python: 3.13
    '';
    platforms = [ "x86_64-linux" ];
  };
})
