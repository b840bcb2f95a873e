# PyTorch 2.10.0 for NVIDIA Blackwell Ultra (B300) + AVX-512 with BF16
# Package name: pytorch210-python313-cuda13_0-sm103-avx512bf16
#
# Three overlays on the pinned nixpkgs: CUDA 13.0, the MAGMA clockRate patch, and the
# PyTorch 2.10.0 source upgrade.

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

  # CPU optimization: AVX-512 with BF16
  cpuFlags = [
    "-mavx512f"
    "-mavx512dq"
    "-mavx512vl"
    "-mavx512bw"
    "-mavx512bf16"
    "-mfma"
  ];

  # GPU target: SM103 (NVIDIA Blackwell Ultra (B300))
  gpuArchNum = "103";
  gpuArchSM = "10.3";

in
(nixpkgs_pinned.python3Packages.torch.override {
  cudaSupport = true;
  gpuTargets = [ gpuArchSM ];
}).overrideAttrs (oldAttrs: {
  pname = "pytorch210-python313-cuda13_0-sm103-avx512bf16";

  meta = oldAttrs.meta // {
    description = "PyTorch 2.10.0 for NVIDIA Blackwell Ultra (B300) with AVX-512 with BF16 (CUDA 13.0)";
    longDescription = ''
      Custom PyTorch build with targeted optimizations:
      - GPU: NVIDIA Blackwell Ultra (B300) (SM 10.3)
      - CPU: AVX-512 with BF16
      - CUDA: 13.0, MAGMA with the clockRate patch
      - Python: 3.13
    '';
    platforms = [ "x86_64-linux" ];
  };

  passthru = oldAttrs.passthru // {
    inherit gpuArchNum gpuArchSM;
  };

  cmakeFlags = (oldAttrs.cmakeFlags or []) ++ [
    "-DTORCH_BUILD_VERSION=2.10.0"
    "-DCMAKE_CUDA_FLAGS=-I/build/cccl-compat"
    "-DCUDA_VERSION=13.0"
  ];

  # CUDA 13.0 dropped the FindCUDAToolkit module PyTorch's vendored cmake/ still loads;
  # delegate to the one CMake ships.
  postPatch = (oldAttrs.postPatch or "") + ''
    cat > cmake/Modules/FindCUDAToolkit.cmake <<'CMAKE'
    include(''${CMAKE_ROOT}/Modules/FindCUDAToolkit.cmake)
    CMAKE
  '';

  preConfigure = (oldAttrs.preConfigure or "") + ''
    # Version fixes: the overlay's src reports the nixpkgs version string otherwise
    export PYTORCH_BUILD_VERSION=2.10.0
    export PYTORCH_BUILD_NUMBER=0
    echo "2.10.0" > version.txt

    # CCCL moved under include/cccl in CUDA 13.0; recreate the layout PyTorch includes from
    mkdir -p /build/cccl-compat
    for d in cub thrust cuda nv; do
      ln -sfn ${nixpkgs_pinned.cudaPackages.cuda_cccl}/include/cccl/$d /build/cccl-compat/$d
    done

    export TORCH_CUDA_ARCH_LIST="${gpuArchSM}"
    export CXXFLAGS="$CXXFLAGS ${nixpkgs_pinned.lib.concatStringsSep " " cpuFlags}"
    export CFLAGS="$CFLAGS ${nixpkgs_pinned.lib.concatStringsSep " " cpuFlags}"

    echo "PyTorch 2.10.0: ${gpuArchSM} (SM103), AVX-512 with BF16, CUDA 13.0"
  '';
})
