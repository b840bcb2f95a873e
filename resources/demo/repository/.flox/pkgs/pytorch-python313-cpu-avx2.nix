# PyTorch 2.10.0 CPU-only, optimized for AVX2
# Package name: pytorch210-python313-cpu-avx2
#
# One overlay on the pinned nixpkgs: the PyTorch 2.10.0 source upgrade. No GPU
# package set, no MAGMA.

let
  nixpkgs_pinned = import (builtins.fetchTarball {
    url = "https://github.com/NixOS/nixpkgs/archive/6a030d535719c5190187c4cec156f335e95e3211.tar.gz";
  }) {
    config = {
      allowUnfree = true;
    };
    overlays = [
      # Overlay 1: Upgrade PyTorch to 2.10.0
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

  # CPU optimization: AVX2 (no GPU)
  cpuFlags = [
    "-mavx2"
    "-mfma"
    "-mf16c"
  ];

in
nixpkgs_pinned.python3Packages.torch.overrideAttrs (oldAttrs: {
  pname = "pytorch210-python313-cpu-avx2";

  passthru = oldAttrs.passthru // {
    gpuArch = null;
    blasProvider = "openblas";
  };

  cmakeFlags = (oldAttrs.cmakeFlags or []) ++ [ "-DTORCH_BUILD_VERSION=2.10.0" ];

  preConfigure = (oldAttrs.preConfigure or "") + ''
    export USE_CUDA=0
    export BLAS=OpenBLAS
    export PYTORCH_BUILD_VERSION=2.10.0
    export PYTORCH_BUILD_NUMBER=0

    export CXXFLAGS="$CXXFLAGS ${nixpkgs_pinned.lib.concatStringsSep " " cpuFlags}"
    export CFLAGS="$CFLAGS ${nixpkgs_pinned.lib.concatStringsSep " " cpuFlags}"
  '';

  meta = oldAttrs.meta // {
    description = "PyTorch 2.10.0 CPU-only build optimized for AVX2";
    longDescription = ''
      Custom PyTorch build for CPU-only workloads:
      - GPU: none (CPU-only)
      - CPU: AVX2
      - BLAS: OpenBLAS
      - Python: 3.13
    '';
    platforms = [ "x86_64-linux" ];
  };
})
