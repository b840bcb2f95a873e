# PyTorch 2.9.0 nightly for NVIDIA DGX Spark (GB10) + ARMv9-A with SVE2
# Package name: pytorch-python313-cuda13_0-sm121-armv9-nightly
#
# Built from scratch rather than from nixpkgs' torch; needs cudaPackages_13 from the
# unstable catalog (flox build --stability=unstable).

{ lib
, stdenv
, pkgs
, fetchFromGitHub
, python3Packages
, cudaPackages_13
, cmake
, ninja
, which
}:

let
  gpuArchNum = "121";
  gpuArchSM = "12.1";
  cpuFlags = [ "-march=armv9-a+sve2" ];

  magma = pkgs.magma.override {
    cudaPackages = cudaPackages_13;
    cudaSupport = true;
    gpuTargets = [ gpuArchSM ];
  };
in
python3Packages.buildPythonPackage rec {
  pname = "pytorch-python313-cuda13_0-sm121-armv9-nightly";
  version = "2.9.0";
  pyproject = true;

  src = fetchFromGitHub {
    owner = "pytorch";
    repo = "pytorch";
    rev = "v${version}";
    fetchSubmodules = true;
    hash = "sha256-pAQ8vaZlqiwmIPUqKw9nHzk/9C0TgZiSflRl7FAt+VE=";
  };

  nativeBuildInputs = [
    cmake
    ninja
    which
    cudaPackages_13.cuda_nvcc
  ];

  buildInputs = [
    magma
    cudaPackages_13.cuda_cudart
    cudaPackages_13.libcublas
    cudaPackages_13.libcusparse
    cudaPackages_13.cudnn
  ];

  dependencies = with python3Packages; [
    filelock
    jinja2
    networkx
    numpy
    sympy
    typing-extensions
  ];

  dontUseCmakeConfigure = true;

  preConfigure = ''
    export USE_CUDA=1
    export TORCH_CUDA_ARCH_LIST="${gpuArchSM}"
    export CUDA_HOME=${cudaPackages_13.cuda_nvcc}
    export CXXFLAGS="$CXXFLAGS ${lib.concatStringsSep " " cpuFlags}"
    export MAX_JOBS=$NIX_BUILD_CORES
  '';

  passthru = {
    inherit gpuArchNum gpuArchSM;
  };

  meta = {
    description = "PyTorch 2.9.0 nightly for NVIDIA DGX Spark (GB10) with ARMv9-A with SVE2";
    longDescription = ''
      From-scratch PyTorch build for DGX Spark:
      - GPU: NVIDIA DGX Spark (GB10) (SM 12.1)
      - CPU: ARMv9-A with SVE2
      - CUDA: 13.0
      - Python: 3.13
    '';
    platforms = [ "aarch64-linux" ];
  };
}
