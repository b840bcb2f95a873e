# PyTorch CPU-only optimized for AVX2
# Package name: pytorch-python311-cpu-avx2

{ python311Packages
, lib
, openblas
, mkl
}:

let
  # CPU optimization: AVX2 (no GPU)
  cpuFlags = [
    "-mavx2"       "-mfma"        "-mf16c"
  ];

  # Use OpenBLAS for CPU linear algebra
  blasBackend = openblas;

in python311Packages.pytorch.overrideAttrs (oldAttrs: {
  pname = "pytorch-python311-cpu-avx2";

  # Disable CUDA support for CPU-only build
  passthru = oldAttrs.passthru // {
    gpuArch = null;
    blasProvider = "openblas";
  };

  # Override build configuration - remove CUDA deps, ensure BLAS
  buildInputs = lib.filter (p: !(lib.hasPrefix "cuda" (p.pname or ""))) oldAttrs.buildInputs ++ [
    blasBackend
  ];

  nativeBuildInputs = lib.filter (p: p.pname or "" != "addDriverRunpath") oldAttrs.nativeBuildInputs;

  # Set CPU optimization flags and disable CUDA
  preConfigure = (oldAttrs.preConfigure or "") + ''
    # Disable CUDA
    export USE_CUDA=0
    export USE_CUDNN=0
    export USE_CUBLAS=0

    # Use OpenBLAS for CPU operations
    export BLAS=OpenBLAS
    export USE_MKLDNN=1
    export USE_MKLDNN_CBLAS=1

    # CPU optimizations via compiler flags
    export CXXFLAGS="$CXXFLAGS ${lib.concatStringsSep " " cpuFlags}"
    export CFLAGS="$CFLAGS ${lib.concatStringsSep " " cpuFlags}"

    # Optimize for host CPU
    export CMAKE_BUILD_TYPE=Release

    echo "========================================="
    echo "PyTorch Build Configuration"
    echo "========================================="
    echo "GPU Target: None (CPU-only build)"
    echo "CPU Features: AVX2"
    echo "BLAS Backend: OpenBLAS"
    echo "CUDA: Disabled"
    echo "CXXFLAGS: $CXXFLAGS"
    echo "========================================="
  '';

  meta = oldAttrs.meta // {
    description = "PyTorch CPU-only build optimized for AVX2";
    longDescription = ''
      Custom PyTorch build for CPU-only workloads:
      - GPU: None (CPU-only)
      - CPU: AVX2
      - BLAS: OpenBLAS for CPU linear algebra operations
      - Python: 3.11

      This build is suitable for inference, development, and workloads
      that don't require GPU acceleration.
    '';
    platforms = [ "x86_64-linux" "aarch64-linux" ];
  };
})
