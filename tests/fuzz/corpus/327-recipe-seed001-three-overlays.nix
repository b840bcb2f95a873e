# PyTorch 2.10.0 for NVIDIA DGX Spark + ARMv9
{ }:
let
  nixpkgs_pinned = import (builtins.fetchTarball {
    url = "https://github.com/NixOS/nixpkgs/archive/6a030d535719c5190187c4cec156f335e95e3211.tar.gz";
  }) {
    config = {
      allowUnfree = true;
      cudaSupport = true;
    };
    overlays = [
      # Overlay 1: Use CUDA 13.0
      (final: prev: { cudaPackages = final.cudaPackages_13; })

      # Overlay 2: Patch MAGMA for CUDA 13.0 compatibility
      (final: prev: {
        magma = prev.magma.overrideAttrs (oldAttrs: {
          patches = (oldAttrs.patches or []) ++ [
            (final.fetchpatch {
              name = "cuda-13.0-clockrate-fix.patch";
              url = "https://github.com/icl-utk-edu/magma/commit/235aefb7b064954fce09d035c69907ba8a87cbcd.patch";
              hash = "sha256-i9InbxD5HtfonB/GyF9nQhFmok3jZ73RxGcIciGBGvU=";
            })
          ];
        });
      })

      # Overlay 3: Upgrade PyTorch to 2.10.0
      (final: prev: {
        python3Packages = prev.python3Packages.override {
          overrides = pfinal: pprev: {
            torch = pprev.torch.overrideAttrs (oldAttrs: rec {
              version = "2.10.0";
              src = prev.fetchFromGitHub {
                owner = "pytorch";
                repo = "pytorch";
                rev = "v${version}";
                fetchSubmodules = true;
                hash = "sha256-FMyz9CvdqdiuU+34UtkqOvGeo095gncjgKdB96eqCYE=";
              };
              patches = [];
            });
          };
        };
      })
    ];
  };
  gpuArchNum = "121";
  gpuArchSM = "12.1";
  cpuFlags = [ "-march=armv9-a+sve+sve2" ];
in
(nixpkgs_pinned.python3Packages.torch.override {
  cudaSupport = true;
  gpuTargets = [ gpuArchSM ];
}).overrideAttrs (oldAttrs: {
  pname = "pytorch210-python313-cuda13_0-sm121-armv9";
  passthru = oldAttrs.passthru // { inherit gpuArchNum gpuArchSM; };
  preConfigure = (oldAttrs.preConfigure or "") + ''
    export TORCH_CUDA_ARCH_LIST="${gpuArchSM}"
    export CXXFLAGS="$CXXFLAGS ${nixpkgs_pinned.lib.concatStringsSep " " cpuFlags}"
  '';
  meta = oldAttrs.meta // {
    description = "PyTorch 2.10.0 for NVIDIA DGX Spark with ARMv9 (CUDA 13.0)";
    platforms = [ "aarch64-linux" ];
  };
})
