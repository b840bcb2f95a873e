#pragma once

// Realistic recipe files for the parser benchmark and the differential test: the canonical
// three-overlay CUDA 13.0 recipe of seed 001 and the callPackage-style templates of seed 002,
// varied over GPU architecture, CPU ISA and Python version (about 3-6 KB each).

#include <array>
#include <string>

namespace rg::nix::testing {

struct RecipeAxes
{
    const char* sm;      // "sm120"
    const char* dotted;  // "12.0"
    const char* number;  // "120"
    const char* gpuDesc; // "NVIDIA Blackwell (RTX 5090)"
};

struct IsaAxes
{
    const char* name;
    const char* flags; // already quoted, space separated
    const char* platform;
};

inline std::string generateRecipe(int index)
{
    static constexpr std::array<RecipeAxes, 6> gpus{{
        {"sm120", "12.0", "120", "NVIDIA Blackwell (RTX 5090)"},
        {"sm90", "9.0", "90", "NVIDIA Hopper (H100, L40S)"},
        {"sm89", "8.9", "89", "NVIDIA Ada Lovelace (RTX 4090, L40)"},
        {"sm86", "8.6", "86", "NVIDIA Ampere (RTX 3090, A40, A5000)"},
        {"sm121", "12.1", "121", "NVIDIA DGX Spark"},
        {"sm103", "10.3", "103", "NVIDIA Blackwell B300 (Datacenter)"},
    }};
    static constexpr std::array<IsaAxes, 5> isas{{
        {"avx512", "\"-mavx512f\" \"-mavx512dq\" \"-mavx512vl\" \"-mavx512bw\" \"-mfma\"",
         "x86_64-linux"},
        {"avx2", "\"-mavx2\" \"-mfma\" \"-mf16c\"", "x86_64-linux"},
        {"avx512bf16",
         "\"-mavx512f\" \"-mavx512dq\" \"-mavx512vl\" \"-mavx512bw\" \"-mavx512bf16\" \"-mfma\"",
         "x86_64-linux"},
        {"armv9", "\"-march=armv9-a+sve+sve2\"", "aarch64-linux"},
        {"armv8_2", "\"-march=armv8.2-a+fp16+dotprod\"", "aarch64-linux"},
    }};
    static constexpr std::array<const char*, 3> pythons{"313", "312", "311"};

    const RecipeAxes& gpu = gpus[index % gpus.size()];
    const IsaAxes& isa = isas[(index / gpus.size()) % isas.size()];
    const std::string py = pythons[(index / (gpus.size() * isas.size())) % pythons.size()];
    const std::string name = "pytorch-python" + py + "-cuda13_0-" + gpu.sm + "-" + isa.name;
    std::string r;
    if (index % 4 == 3) {
        // Seed 002's callPackage-style GPU template.
        r += "# PyTorch optimized for " + std::string(gpu.gpuDesc) + " + " + isa.name + "\n";
        r += "# Package name: " + name + "\n\n";
        r += "{ python" + py + "Packages\n, lib\n, config\n, cudaPackages_13_0\n";
        r += ", addDriverRunpath\n, openblas\n}:\n\nlet\n";
        r += "  # GPU target: " + std::string(gpu.sm) + "\n";
        r += "  gpuArch = \"sm_" + std::string(gpu.number) + "\";\n\n";
        r += "  # CPU optimization\n  cpuFlags = [\n    " + std::string(isa.flags) + "\n  ];\n\n";
        r += "in python" + py + "Packages.pytorch.overrideAttrs (oldAttrs: {\n";
        r += "  pname = \"" + name + "\";\n\n";
        r += "  passthru = oldAttrs.passthru // {\n    inherit gpuArch;\n  };\n\n";
        r += "  buildInputs = oldAttrs.buildInputs ++ [\n";
        for (const char* lib : {"cuda_cudart", "libcublas", "libcufft", "libcurand", "libcusolver",
                                "libcusparse", "cudnn"})
            r += "    cudaPackages_13_0." + std::string(lib) + "\n";
        r += "    (openblas.override {\n      blas64 = false;\n      singleThreaded = false;\n";
        r += "    })\n  ];\n\n";
        r += "  nativeBuildInputs = oldAttrs.nativeBuildInputs ++ [ addDriverRunpath ];\n\n";
        r += "  preConfigure = (oldAttrs.preConfigure or \"\") + ''\n";
        r += "    export TORCH_CUDA_ARCH_LIST=\"${gpuArch}\"\n";
        r += "    export TORCH_NVCC_FLAGS=\"-Xfatbin -compress-all\"\n\n";
        r += "    # CPU optimizations via compiler flags\n";
        r += "    export CXXFLAGS=\"$CXXFLAGS ${lib.concatStringsSep \" \" cpuFlags}\"\n";
        r += "    export CFLAGS=\"$CFLAGS ${lib.concatStringsSep \" \" cpuFlags}\"\n\n";
        r += "    export USE_CUBLAS=1\n    export USE_CUDA=1\n";
        r += "    export CMAKE_CUDA_ARCHITECTURES=\"${lib.removePrefix \"sm_\" gpuArch}\"\n\n";
        r += "    echo \"=========================================\"\n";
        r += "    echo \"PyTorch Build Configuration\"\n";
        r += "    echo \"GPU Target: ${gpuArch} (" + std::string(gpu.gpuDesc) + ")\"\n";
        r += "    echo \"CPU Features: " + std::string(isa.name) + "\"\n";
        r += "    echo \"TORCH_CUDA_ARCH_LIST: $TORCH_CUDA_ARCH_LIST\"\n";
        r += "    echo \"CXXFLAGS: $CXXFLAGS\"\n";
        r += "    echo \"=========================================\"\n  '';\n\n";
    } else {
        // Seed 001's canonical pinned-nixpkgs recipe with three overlays.
        r += "# PyTorch 2.10.0 for " + std::string(gpu.gpuDesc) + " + " + isa.name + "\n";
        r += "# Package name: pytorch210-" + name.substr(8) + "\n\nlet\n";
        r += "  nixpkgs_pinned = import (builtins.fetchTarball {\n";
        r += "    url = \"https://github.com/NixOS/nixpkgs/archive/"
             "6a030d535719c5190187c4cec156f335e95e3211.tar.gz\";\n  }) {\n";
        r += "    config = {\n      allowUnfree = true;\n      cudaSupport = true;\n    };\n";
        r += "    overlays = [\n      # Overlay 1: Use CUDA 13.0\n";
        r += "      (final: prev: { cudaPackages = final.cudaPackages_13; })\n\n";
        r += "      # Overlay 2: Patch MAGMA for CUDA 13.0 compatibility\n";
        r += "      (final: prev: {\n        magma = prev.magma.overrideAttrs (oldAttrs: {\n";
        r += "          patches = (oldAttrs.patches or []) ++ [\n";
        r += "            (final.fetchpatch {\n";
        r += "              name = \"cuda-13.0-clockrate-fix.patch\";\n";
        r += "              url = \"https://github.com/icl-utk-edu/magma/commit/"
             "235aefb7b064954fce09d035c69907ba8a87cbcd.patch\";\n";
        r += "              hash = \"sha256-i9InbxD5HtfonB/GyF9nQhFmok3jZ73RxGcIciGBGvU=\";\n";
        r += "            })\n          ];\n        });\n      })\n\n";
        r += "      # Overlay 3: Upgrade PyTorch to 2.10.0\n      (final: prev: {\n";
        r += "        python3Packages = prev.python3Packages.override {\n";
        r += "          overrides = pfinal: pprev: {\n";
        r += "            torch = pprev.torch.overrideAttrs (oldAttrs: rec {\n";
        r += "              version = \"2.10.0\";\n";
        r += "              src = prev.fetchFromGitHub {\n                owner = \"pytorch\";\n";
        r += "                repo = \"pytorch\";\n                rev = \"v${version}\";\n";
        r += "                fetchSubmodules = true;\n";
        r += "                hash = \"sha256-FMyz9CvdqdiuU+34UtkqOvGeo095gncjgKdB96eqCYE=\";\n";
        r += "              };\n              patches = [];\n            });\n          };\n";
        r += "        };\n      })\n    ];\n  };\n\n";
        r += "  gpuArchNum = \"" + std::string(gpu.number) + "\";\n";
        r += "  gpuArchSM = \"" + std::string(gpu.dotted) + "\";\n";
        r += "  cpuFlags = [ " + std::string(isa.flags) + " ];\n\nin\n";
        r += "(nixpkgs_pinned.python3Packages.torch.override {\n  cudaSupport = true;\n";
        r += "  gpuTargets = [ gpuArchSM ];\n}).overrideAttrs (oldAttrs: {\n";
        r += "  pname = \"pytorch210-" + name.substr(8) + "\";\n\n";
        r += "  passthru = oldAttrs.passthru // {\n    inherit gpuArchNum gpuArchSM;\n  };\n\n";
        r += "  cmakeFlags = (oldAttrs.cmakeFlags or []) ++ [\n";
        r += "    \"-DTORCH_BUILD_VERSION=2.10.0\"\n    \"-DCUDA_VERSION=13.0\"\n  ];\n\n";
        r += "  preConfigure = (oldAttrs.preConfigure or \"\") + ''\n";
        r += "    export PYTORCH_BUILD_VERSION=2.10.0\n    export PYTORCH_BUILD_NUMBER=0\n";
        r += "    echo \"2.10.0\" > version.txt\n\n    mkdir -p /build/cccl-compat\n";
        r += "    for d in cub thrust cuda nv; do\n";
        r += "      ln -sfn ${nixpkgs_pinned.cudaPackages.cuda_cccl}/include/cccl/$d "
             "/build/cccl-compat/$d\n    done\n\n";
        r += "    export TORCH_CUDA_ARCH_LIST=\"${gpuArchSM}\"\n";
        r += "    export CXXFLAGS=\"$CXXFLAGS ${nixpkgs_pinned.lib.concatStringsSep \" \" "
             "cpuFlags}\"\n";
        r += "    export CFLAGS=\"$CFLAGS ${nixpkgs_pinned.lib.concatStringsSep \" \" "
             "cpuFlags}\"\n";
        r += "    echo ''${HOME} \"PyTorch 2.10.0: ${gpuArchSM} (" + std::string(gpu.sm) +
             "), CUDA 13.0\"\n  '';\n\n";
    }
    // A long shell phase, as real recipes carry: CCCL compatibility and verification output.
    r += "  postInstall = (oldAttrs.postInstall or \"\") + ''\n";
    r += "    # Record what this variant was built for, so a result can be verified later\n";
    r += "    mkdir -p $out/share/recipegrid\n";
    r += "    cat > $out/share/recipegrid/variant.json <<EOF\n";
    r += "    {\n      \"pname\": \"" + name + "\",\n";
    r += "      \"gpuArch\": \"" + std::string(gpu.sm) + "\",\n";
    r += "      \"cpuIsa\": \"" + std::string(isa.name) + "\",\n";
    r += "      \"platform\": \"" + std::string(isa.platform) + "\"\n    }\n    EOF\n\n";
    for (const char* check :
         {"torch.cuda.is_available()", "torch.version.cuda", "torch.backends.cudnn.version()",
          "torch.__config__.show()", "torch.backends.mkldnn.is_available()"}) {
        r += "    echo \"checking " + std::string(check) + "\"\n";
        r += "    $out/bin/python -c \"import torch; print(" + std::string(check) + ")\" || true\n";
    }
    r += "    for lib in $out/lib/python*/site-packages/torch/lib/*.so; do\n";
    r += "      ''${pkgs.patchelf or \"patchelf\"} --print-rpath \"$lib\" | tr ':' '\\n' | "
         "sort -u\n    done\n";
    r += "    substituteInPlace $out/nix-support/setup-hook \\\n";
    r += "      --replace-fail \"@gpuArch@\" \"" + std::string(gpu.dotted) + "\" \\\n";
    r += "      --replace-fail \"@cpuIsa@\" \"" + std::string(isa.name) + "\"\n  '';\n\n";
    r += "  meta = oldAttrs.meta // {\n";
    r += "    description = \"PyTorch for " + std::string(gpu.gpuDesc) + " with " + isa.name +
         "\";\n";
    r += "    longDescription = ''\n      Custom PyTorch build with targeted optimizations:\n";
    r += "      - GPU: " + std::string(gpu.gpuDesc) + " (SM " + gpu.dotted + ")\n";
    r += "      - CPU: " + std::string(isa.name) + "\n      - CUDA: 13.0\n";
    r += "      - Python: 3." + py.substr(1) + "\n    '';\n";
    r += "    platforms = [ \"" + std::string(isa.platform) + "\" ];\n  };\n})\n";
    return r;
}

} // namespace rg::nix::testing
