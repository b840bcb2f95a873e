# PyTorch for NVIDIA DRIVE Thor + ARMv9-A with SVE2
# Package name: pytorch-python313-cuda13_0-sm110-armv9

let
  nixpkgs_pinned = import (builtins.fetchTarball {
    url = "https://github.com/NixOS/nixpkgs/archive/fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3.tar.gz";
  }) {
    config = {
      allowUnfree = true;
      cudaSupport = true;
    };
  };

  # GPU target: SM110 (NVIDIA DRIVE Thor)
  gpuArchNum = "110";
  gpuArchSM = "11.0";

  # CPU optimization: ARMv9-A with SVE2
  cpuFlags = [
    "-march=armv9-a+sve2"
  ];

in
(nixpkgs_pinned.python3Packages.pytorch.override {
  cudaSupport = true;
  gpuTargets = [ gpuArchSM ];
}).overrideAttrs (oldAttrs: {
  pname = "pytorch-python313-cuda13_0-sm110-armv9";

  passthru = oldAttrs.passthru // {
    inherit gpuArchNum gpuArchSM;
  };

  preConfigure = (oldAttrs.preConfigure or "") + ''
    export TORCH_CUDA_ARCH_LIST="${gpuArchSM}"
    export CXXFLAGS="$CXXFLAGS ${nixpkgs_pinned.lib.concatStringsSep " " cpuFlags}"
    export CFLAGS="$CFLAGS ${nixpkgs_pinned.lib.concatStringsSep " " cpuFlags}"
  '';

  meta = oldAttrs.meta // {
    description = "PyTorch for NVIDIA DRIVE Thor with ARMv9-A with SVE2";
    longDescription = ''
      Custom PyTorch build with targeted optimizations:
      - GPU: NVIDIA DRIVE Thor (SM 11.0)
      - CPU: ARMv9-A with SVE2
      - Python: 3.13
    '';
    platforms = [ "aarch64-linux" ];
  };
})
