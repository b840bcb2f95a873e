# PyTorch optimized for NVIDIA Blackwell (RTX 5090) + AVX-512
# Package name: pytorch-python313-cuda12_8-sm120-avx512

{ python3Packages
, lib
, config
, cudaPackages
, addDriverRunpath
, openblas
}:

let
  # GPU target: SM120 (NVIDIA Blackwell (RTX 5090))
  gpuArch = "sm_120";

  # CPU optimization: AVX-512
  cpuFlags = [
    "-mavx512f"    "-mavx512dq"   "-mavx512vl"   "-mavx512bw"   "-mfma"
  ];

in python3Packages.pytorch.overrideAttrs (oldAttrs: {
  pname = "pytorch-python313-cuda12_8-sm120-avx512";

  # Enable CUDA support with specific GPU target
  passthru = oldAttrs.passthru // {
    inherit gpuArch;
  };

  # Override build configuration
  buildInputs = oldAttrs.buildInputs ++ [
    cudaPackages.cuda_cudart
    cudaPackages.libcublas
    cudaPackages.libcufft
    cudaPackages.libcurand
    cudaPackages.libcusolver
    cudaPackages.libcusparse
    cudaPackages.cudnn
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
    echo "GPU Target: ${gpuArch} (NVIDIA Blackwell (RTX 5090))"
    echo "CPU Features: AVX-512"
    echo "CUDA: Enabled with cuBLAS"
    echo "TORCH_CUDA_ARCH_LIST: $TORCH_CUDA_ARCH_LIST"
    echo "CXXFLAGS: $CXXFLAGS"
    echo "========================================="
  '';

  meta = oldAttrs.meta // {
    description = "PyTorch optimized for NVIDIA Blackwell (RTX 5090) with AVX-512";
    longDescription = ''
      Custom PyTorch build with targeted optimizations:
      - GPU: NVIDIA Blackwell (RTX 5090)
      - CPU: AVX-512
      - CUDA: 12.8
      - BLAS: cuBLAS for GPU operations, OpenBLAS for host-side
      - Python: 3.13
    '';
    platforms = [ "x86_64-linux" ];
  };
})
