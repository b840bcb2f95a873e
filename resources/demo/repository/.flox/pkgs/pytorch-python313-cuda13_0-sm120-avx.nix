# PyTorch for NVIDIA Blackwell (RTX 5090) + AVX
# Package name: pytorch-python313-cuda13_0-sm120-avx

let
  nixpkgs_pinned = import (builtins.fetchTarball {
    url = "https://github.com/NixOS/nixpkgs/archive/fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3.tar.gz";
  }) {
    config = {
      allowUnfree = true;
      cudaSupport = true;
    };
  };

  # GPU target: SM120 (NVIDIA Blackwell (RTX 5090))
  gpuArchNum = "120";
  gpuArchSM = "12.0";

  # CPU optimization: AVX
  cpuFlags = [
    "-mavx"
  ];

in
(nixpkgs_pinned.python3Packages.pytorch.override {
  cudaSupport = true;
  gpuTargets = [ gpuArchSM ];
}).overrideAttrs (oldAttrs: {
  pname = "pytorch-python313-cuda13_0-sm120-avx";

  passthru = oldAttrs.passthru // {
    inherit gpuArchNum gpuArchSM;
  };

  preConfigure = (oldAttrs.preConfigure or "") + ''
    export TORCH_CUDA_ARCH_LIST="${gpuArchSM}"
    export CXXFLAGS="$CXXFLAGS ${nixpkgs_pinned.lib.concatStringsSep " " cpuFlags}"
    export CFLAGS="$CFLAGS ${nixpkgs_pinned.lib.concatStringsSep " " cpuFlags}"
  '';

  meta = oldAttrs.meta // {
    description = "PyTorch for NVIDIA Blackwell (RTX 5090) with AVX";
    longDescription = ''
      Custom PyTorch build with targeted optimizations:
      - GPU: NVIDIA Blackwell (RTX 5090) (SM 12.0)
      - CPU: AVX
      - Python: 3.13
    '';
    platforms = [ "x86_64-linux" ];
  };
})
