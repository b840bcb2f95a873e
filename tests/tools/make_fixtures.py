#!/usr/bin/env python3
"""Writes the seed fixture repositories under tests/fixtures/ (seed001-start, seed001-target,
seed000, seed000-vllm) from the seeds' own recipe shapes and the built-in catalog
(resources/catalog.json).

The output is committed; rerun after changing this script and commit both. Deterministic:
the same script and catalog always give the same bytes.

    tests/tools/make_fixtures.py            # writes into tests/fixtures/
    tests/tools/make_fixtures.py --check    # exits 1 if the committed files differ
"""

import argparse
import base64
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
CATALOG = json.loads((ROOT / "resources" / "catalog.json").read_text())
ARCHS = {a["id"]: a for a in CATALOG["gpuArchs"]}
ISAS = {i["id"]: i for i in CATALOG["isas"]}

PIN_CANONICAL = "6a030d535719c5190187c4cec156f335e95e3211"  # seed 001 / seed 000 today
PIN_OLD = "fe5e41d7ffc0421f0913e8472ce6238ed0daf8e3"        # seed 001's broken recipes
PIN_VLLM = "0182a361324364ae3f436a63005877674cf45efb"       # build-vllm/main, seed 000's target

X86 = ["avx2", "avx512", "avx512bf16", "avx512vnni"]
ARM = ["armv8_2", "armv9"]


def nix_base32(seed: str, length: int = 52) -> str:
    """A deterministic Nix base-32 SHA-256 that Nix accepts (fake: no network in tests).

    52 digits hold 260 bits, so the first digit of a SHA-256 is 0 or 1: Nix refuses any
    other ("invalid base-32 hash"), whatever the rest.
    """
    alphabet = "0123456789abcdfghijklmnpqrsvwxyz"
    digest = hashlib.sha512(seed.encode()).digest()
    digits = "".join(alphabet[b % 32] for b in digest[:length])
    return digits if digits[0] in "01" else "1" + digits[1:]


def sri(seed: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(seed.encode()).digest()).decode()


def flags_list(isa: str, indent: str) -> str:
    return "\n".join(f'{indent}"{f}"' for f in ISAS[isa]["flags"])


def fetch_pin(pin: str, indent: str = "  ") -> str:
    return (f"import (builtins.fetchTarball {{\n"
            f"{indent}  url = \"https://github.com/NixOS/nixpkgs/archive/{pin}.tar.gz\";\n"
            f"{indent}  sha256 = \"{nix_base32(pin)}\";\n"
            f"{indent}}})")


# --- CUDA 13.0 recipes on the canonical three-overlay pattern (seed 001 / seed 003) ----------

MAGMA_OVERLAY = """\
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
"""

TORCH_OVERLAY = """\
      # Overlay {n}: Upgrade PyTorch to 2.10.0
      (final: prev: {{
        python3Packages = prev.python3Packages.override {{
          overrides = pfinal: pprev: {{
            torch = pprev.torch.overrideAttrs (oldAttrs: rec {{
              version = "2.10.0";
              src = prev.fetchFromGitHub {{
                owner = "pytorch";
                repo = "pytorch";
                rev = "v${{version}}";
                fetchSubmodules = true;
                hash = "{hash}";
              }};
              patches = [];
            }});
          }};
        }};
      }})
"""

CUDA13_POSTPATCH = """\
  # CUDA 13.0 dropped the FindCUDAToolkit module PyTorch's vendored cmake/ still loads;
  # delegate to the one CMake ships.
  postPatch = (oldAttrs.postPatch or "") + ''
    cat > cmake/Modules/FindCUDAToolkit.cmake <<'CMAKE'
    include(''${CMAKE_ROOT}/Modules/FindCUDAToolkit.cmake)
    CMAKE
  '';
"""

CUDA13_CMAKEFLAGS = """\
  cmakeFlags = (oldAttrs.cmakeFlags or []) ++ [
    "-DTORCH_BUILD_VERSION=2.10.0"
    "-DCMAKE_CUDA_FLAGS=-I/build/cccl-compat"
    "-DCUDA_VERSION=13.0"
  ];
"""


def gpu13_recipe(arch: str, isa: str, pname: str, style: int, header_note: str = "") -> str:
    """A CUDA 13.0 GPU recipe (pattern a). `style` varies layout the way different hands
    write the same facts: 0 = the canonical file's layout."""
    a, i = ARCHS[arch], ISAS[isa]
    platform = i["platform"]
    config = ("    config = {\n      allowUnfree = true;\n      cudaSupport = true;\n    };\n"
              if style != 3 else
              "    config.allowUnfree = true;\n    config.cudaSupport = true;\n")
    gpu_binding = (f"  # GPU target: {arch.upper()} ({a['description']})\n"
                   f"  gpuArchNum = \"{a['number']}\";\n"
                   f"  gpuArchSM = \"{a['dotted']}\";\n")
    cpu_binding = (f"  # CPU optimization: {i['description']}\n"
                   f"  cpuFlags = [\n{flags_list(isa, '    ')}\n  ];\n")
    bindings = gpu_binding + "\n" + cpu_binding if style != 2 else cpu_binding + "\n" + gpu_binding
    passthru = ("  passthru = oldAttrs.passthru // {\n    inherit gpuArchNum gpuArchSM;\n  };\n"
                if style != 1 else
                "  passthru = oldAttrs.passthru // {\n    gpuArchNum = gpuArchNum;\n"
                "    gpuArchSM = gpuArchSM;\n    cudaVersion = \"13.0\";\n  };\n")
    preconfigure = f"""\
  preConfigure = (oldAttrs.preConfigure or "") + ''
    # Version fixes: the overlay's src reports the nixpkgs version string otherwise
    export PYTORCH_BUILD_VERSION=2.10.0
    export PYTORCH_BUILD_NUMBER=0
    echo "2.10.0" > version.txt

    # CCCL moved under include/cccl in CUDA 13.0; recreate the layout PyTorch includes from
    mkdir -p /build/cccl-compat
    for d in cub thrust cuda nv; do
      ln -sfn ${{nixpkgs_pinned.cudaPackages.cuda_cccl}}/include/cccl/$d /build/cccl-compat/$d
    done

    export TORCH_CUDA_ARCH_LIST="${{gpuArchSM}}"
    export CXXFLAGS="$CXXFLAGS ${{nixpkgs_pinned.lib.concatStringsSep " " cpuFlags}}"
    export CFLAGS="$CFLAGS ${{nixpkgs_pinned.lib.concatStringsSep " " cpuFlags}}"

    echo "PyTorch 2.10.0: ${{gpuArchSM}} (SM{a['number']}), {i['description']}, CUDA 13.0"
  '';
"""
    meta_body = (f"    description = \"PyTorch 2.10.0 for {a['description']} with {i['description']} (CUDA 13.0)\";\n"
                 f"    longDescription = ''\n"
                 f"      Custom PyTorch build with targeted optimizations:\n"
                 f"      - GPU: {a['description']} (SM {a['dotted']})\n"
                 f"      - CPU: {i['description']}\n"
                 f"      - CUDA: 13.0, MAGMA with the clockRate patch\n"
                 f"      - Python: 3.13\n"
                 f"    '';\n")
    platforms = f"    platforms = [ \"{platform}\" ];\n"
    meta = ("  meta = oldAttrs.meta // {\n" + (meta_body + platforms if style != 1 else platforms + meta_body)
            + "  };\n")
    body = [f"  pname = \"{pname}\";\n", "\n", passthru, "\n", CUDA13_CMAKEFLAGS, "\n",
            CUDA13_POSTPATCH, "\n", preconfigure, "\n", meta]
    if style == 2:  # meta first, then the build steps
        body = [f"  pname = \"{pname}\";\n", "\n", meta, "\n", passthru, "\n", CUDA13_CMAKEFLAGS,
                "\n", CUDA13_POSTPATCH, "\n", preconfigure]
    return (f"# PyTorch 2.10.0 for {a['description']} + {i['description']}\n"
            f"# Package name: {pname}\n"
            f"{header_note}"
            f"#\n"
            f"# Three overlays on the pinned nixpkgs: CUDA 13.0, the MAGMA clockRate patch, and the\n"
            f"# PyTorch 2.10.0 source upgrade.\n"
            f"\n"
            f"let\n"
            f"  nixpkgs_pinned = {fetch_pin(PIN_CANONICAL, '  ')} {{\n"
            f"{config}"
            f"    overlays = [\n"
            f"      # Overlay 1: Use CUDA 13.0\n"
            f"      (final: prev: {{ cudaPackages = final.cudaPackages_13; }})\n"
            f"\n"
            f"{MAGMA_OVERLAY}"
            f"\n"
            f"{TORCH_OVERLAY.format(n=3, hash=sri('pytorch-2.10.0'))}"
            f"    ];\n"
            f"  }};\n"
            f"\n"
            f"{bindings}"
            f"\n"
            f"in\n"
            f"(nixpkgs_pinned.python3Packages.torch.override {{\n"
            f"  cudaSupport = true;\n"
            f"  gpuTargets = [ gpuArchSM ];\n"
            f"}}).overrideAttrs (oldAttrs: {{\n"
            + "".join(body) +
            f"}})\n")


def cpu210_recipe(isa: str, pname: str, style: int) -> str:
    """CPU-only, PyTorch 2.10.0: one overlay (the torch upgrade), no CUDA at all."""
    i = ISAS[isa]
    config = ("    config = {\n      allowUnfree = true;\n    };\n" if style != 3
              else "    config.allowUnfree = true;\n")
    return (f"# PyTorch 2.10.0 CPU-only, optimized for {i['description']}\n"
            f"# Package name: {pname}\n"
            f"#\n"
            f"# One overlay on the pinned nixpkgs: the PyTorch 2.10.0 source upgrade. No GPU\n"
            f"# package set, no MAGMA.\n"
            f"\n"
            f"let\n"
            f"  nixpkgs_pinned = {fetch_pin(PIN_CANONICAL, '  ')} {{\n"
            f"{config}"
            f"    overlays = [\n"
            f"{TORCH_OVERLAY.format(n=1, hash=sri('pytorch-2.10.0'))}"
            f"    ];\n"
            f"  }};\n"
            f"\n"
            f"  # CPU optimization: {i['description']} (no GPU)\n"
            f"  cpuFlags = [\n{flags_list(isa, '    ')}\n  ];\n"
            f"\n"
            f"in\n"
            f"nixpkgs_pinned.python3Packages.torch.overrideAttrs (oldAttrs: {{\n"
            f"  pname = \"{pname}\";\n"
            f"\n"
            f"  passthru = oldAttrs.passthru // {{\n"
            f"    gpuArch = null;\n"
            f"    blasProvider = \"openblas\";\n"
            f"  }};\n"
            f"\n"
            f"  cmakeFlags = (oldAttrs.cmakeFlags or []) ++ [ \"-DTORCH_BUILD_VERSION=2.10.0\" ];\n"
            f"\n"
            f"  preConfigure = (oldAttrs.preConfigure or \"\") + ''\n"
            f"    export USE_CUDA=0\n"
            f"    export BLAS=OpenBLAS\n"
            f"    export PYTORCH_BUILD_VERSION=2.10.0\n"
            f"    export PYTORCH_BUILD_NUMBER=0\n"
            f"\n"
            f"    export CXXFLAGS=\"$CXXFLAGS ${{nixpkgs_pinned.lib.concatStringsSep \" \" cpuFlags}}\"\n"
            f"    export CFLAGS=\"$CFLAGS ${{nixpkgs_pinned.lib.concatStringsSep \" \" cpuFlags}}\"\n"
            f"  '';\n"
            f"\n"
            f"  meta = oldAttrs.meta // {{\n"
            f"    description = \"PyTorch 2.10.0 CPU-only build optimized for {i['description']}\";\n"
            f"    longDescription = ''\n"
            f"      Custom PyTorch build for CPU-only workloads:\n"
            f"      - GPU: none (CPU-only)\n"
            f"      - CPU: {i['description']}\n"
            f"      - BLAS: OpenBLAS\n"
            f"      - Python: 3.13\n"
            f"    '';\n"
            f"    platforms = [ \"{i['platform']}\" ];\n"
            f"  }};\n"
            f"}})\n")


def old_pin_recipe(arch: str, isa: str) -> str:
    """Seed 001's broken recipes: old pin, no overlays, the deprecated `pytorch` attribute,
    no CCCL or FindCUDAToolkit fixes (pattern b)."""
    a, i = ARCHS[arch], ISAS[isa]
    name = f"pytorch-python313-cuda13_0-{arch}-{isa}"
    return (f"# PyTorch for {a['description']} + {i['description']}\n"
            f"# Package name: {name}\n"
            f"\n"
            f"let\n"
            f"  nixpkgs_pinned = {fetch_pin(PIN_OLD, '  ')} {{\n"
            f"    config = {{\n"
            f"      allowUnfree = true;\n"
            f"      cudaSupport = true;\n"
            f"    }};\n"
            f"  }};\n"
            f"\n"
            f"  # GPU target: {arch.upper()} ({a['description']})\n"
            f"  gpuArchNum = \"{a['number']}\";\n"
            f"  gpuArchSM = \"{a['dotted']}\";\n"
            f"\n"
            f"  # CPU optimization: {i['description']}\n"
            f"  cpuFlags = [\n{flags_list(isa, '    ')}\n  ];\n"
            f"\n"
            f"in\n"
            f"(nixpkgs_pinned.python3Packages.pytorch.override {{\n"
            f"  cudaSupport = true;\n"
            f"  gpuTargets = [ gpuArchSM ];\n"
            f"}}).overrideAttrs (oldAttrs: {{\n"
            f"  pname = \"{name}\";\n"
            f"\n"
            f"  passthru = oldAttrs.passthru // {{\n"
            f"    inherit gpuArchNum gpuArchSM;\n"
            f"  }};\n"
            f"\n"
            f"  preConfigure = (oldAttrs.preConfigure or \"\") + ''\n"
            f"    export TORCH_CUDA_ARCH_LIST=\"${{gpuArchSM}}\"\n"
            f"    export CXXFLAGS=\"$CXXFLAGS ${{nixpkgs_pinned.lib.concatStringsSep \" \" cpuFlags}}\"\n"
            f"    export CFLAGS=\"$CFLAGS ${{nixpkgs_pinned.lib.concatStringsSep \" \" cpuFlags}}\"\n"
            f"  '';\n"
            f"\n"
            f"  meta = oldAttrs.meta // {{\n"
            f"    description = \"PyTorch for {a['description']} with {i['description']}\";\n"
            f"    longDescription = ''\n"
            f"      Custom PyTorch build with targeted optimizations:\n"
            f"      - GPU: {a['description']} (SM {a['dotted']})\n"
            f"      - CPU: {i['description']}\n"
            f"      - Python: 3.13\n"
            f"    '';\n"
            f"    platforms = [ \"{i['platform']}\" ];\n"
            f"  }};\n"
            f"}})\n")


def nightly_recipe() -> str:
    """Seed 003's nightly sm121-armv9: torch 2.9.0 built from scratch, cudaPackages_13 as an
    input, MAGMA overridden without the CUDA 13.0 clockRate patch (pattern d)."""
    a, i = ARCHS["sm121"], ISAS["armv9"]
    return f"""\
# PyTorch 2.9.0 nightly for {a['description']} + {i['description']}
# Package name: pytorch-python313-cuda13_0-sm121-armv9-nightly
#
# Built from scratch rather than from nixpkgs' torch; needs cudaPackages_13 from the
# unstable catalog (flox build --stability=unstable).

{{ lib
, stdenv
, pkgs
, fetchFromGitHub
, python3Packages
, cudaPackages_13
, cmake
, ninja
, which
}}:

let
  gpuArchNum = "{a['number']}";
  gpuArchSM = "{a['dotted']}";
  cpuFlags = [ {" ".join('"' + f + '"' for f in i['flags'])} ];

  magma = pkgs.magma.override {{
    cudaPackages = cudaPackages_13;
    cudaSupport = true;
    gpuTargets = [ gpuArchSM ];
  }};
in
python3Packages.buildPythonPackage rec {{
  pname = "pytorch-python313-cuda13_0-sm121-armv9-nightly";
  version = "2.9.0";
  pyproject = true;

  src = fetchFromGitHub {{
    owner = "pytorch";
    repo = "pytorch";
    rev = "v${{version}}";
    fetchSubmodules = true;
    hash = "{sri('pytorch-2.9.0')}";
  }};

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
    export TORCH_CUDA_ARCH_LIST="${{gpuArchSM}}"
    export CUDA_HOME=${{cudaPackages_13.cuda_nvcc}}
    export CXXFLAGS="$CXXFLAGS ${{lib.concatStringsSep " " cpuFlags}}"
    export MAX_JOBS=$NIX_BUILD_CORES
  '';

  passthru = {{
    inherit gpuArchNum gpuArchSM;
  }};

  meta = {{
    description = "PyTorch 2.9.0 nightly for {a['description']} with {i['description']}";
    longDescription = ''
      From-scratch PyTorch build for DGX Spark:
      - GPU: {a['description']} (SM {a['dotted']})
      - CPU: {i['description']}
      - CUDA: 13.0
      - Python: 3.13
    '';
    platforms = [ "{i['platform']}" ];
  }};
}}
"""


# --- seed 000: CUDA 12.9, torch 2.9.1 from nixpkgs, one overlay -----------------------------

def seed000_gpu(arch: str, isa: str, style: int, python: str = "313", pin: str = PIN_CANONICAL,
                python_set: str = "python3Packages") -> str:
    """Seed 000's GPU recipe; build-vllm's pytorch recipes are the same shape on its own pin,
    per Python, with the package set named explicitly."""
    a, i = ARCHS[arch], ISAS[isa]
    name = f"pytorch-python{python}-cuda12_9-{arch}-{isa}"
    dotted = f"{python[0]}.{python[1:]}"
    let_order = [
        f"  gpuArchNum = \"{a['number']}\";\n  gpuArchSM = \"{a['dotted']}\";\n",
        f"  cpuFlags = [\n{flags_list(isa, '    ')}\n  ];\n",
    ]
    if style == 2:
        let_order.reverse()
    return (f"# PyTorch 2.9.1 for {a['description']} + {i['description']} (CUDA 12.9)\n"
            f"# Package name: {name}\n"
            f"\n"
            f"let\n"
            f"  nixpkgs_pinned = {fetch_pin(pin, '  ')} {{\n"
            f"    config = {{\n"
            f"      allowUnfree = true;\n"
            f"      cudaSupport = true;\n"
            f"    }};\n"
            f"    overlays = [\n"
            f"      (final: prev: {{ cudaPackages = final.cudaPackages_12_9; }})\n"
            f"    ];\n"
            f"  }};\n"
            f"\n"
            + "\n".join(let_order) +
            f"\n"
            f"in\n"
            f"(nixpkgs_pinned.{python_set}.torch.override {{\n"
            f"  cudaSupport = true;\n"
            f"  gpuTargets = [ gpuArchSM ];\n"
            f"}}).overrideAttrs (oldAttrs: {{\n"
            f"  pname = \"{name}\";\n"
            f"\n"
            + ("  passthru = oldAttrs.passthru // {\n    inherit gpuArchNum gpuArchSM;\n  };\n"
               if style != 1 else
               "  passthru = oldAttrs.passthru // { inherit gpuArchNum; gpuArchSM = gpuArchSM; };\n") +
            f"\n"
            f"  preConfigure = (oldAttrs.preConfigure or \"\") + ''\n"
            f"    export TORCH_CUDA_ARCH_LIST=\"${{gpuArchSM}}\"\n"
            f"    export CXXFLAGS=\"$CXXFLAGS ${{nixpkgs_pinned.lib.concatStringsSep \" \" cpuFlags}}\"\n"
            f"    export CFLAGS=\"$CFLAGS ${{nixpkgs_pinned.lib.concatStringsSep \" \" cpuFlags}}\"\n"
            f"  '';\n"
            f"\n"
            f"  meta = oldAttrs.meta // {{\n"
            f"    description = \"PyTorch 2.9.1 for {a['description']} with {i['description']}\";\n"
            f"    longDescription = ''\n"
            f"      - GPU: {a['description']} (SM {a['dotted']})\n"
            f"      - CPU: {i['description']}\n"
            f"      - CUDA: 12.9\n"
            f"      - Python: {dotted}\n"
            f"    '';\n"
            f"    platforms = [ \"{i['platform']}\" ];\n"
            f"  }};\n"
            f"}})\n")


def vllm_gpu(arch: str, isa: str, python: str) -> str:
    """build-vllm's recipe: nixpkgs' vLLM 0.15.1 (torch 2.9.1 from the wheel) on the same pin and
    CUDA 12.9 package set, kernels compiled for one capability."""
    a, i = ARCHS[arch], ISAS[isa]
    name = f"vllm-python{python}-cuda12_9-{arch}-{isa}"
    return (f"# vLLM 0.15.1 for {a['description']} + {i['description']} (CUDA 12.9)\n"
            f"# Package name: {name}\n"
            f"\n"
            f"let\n"
            f"  nixpkgs_pinned = {fetch_pin(PIN_VLLM, '  ')} {{\n"
            f"    config = {{\n"
            f"      allowUnfree = true;\n"
            f"      cudaSupport = true;\n"
            f"      cudaCapabilities = [ gpuArchSM ];\n"
            f"    }};\n"
            f"    overlays = [\n"
            f"      (final: prev: {{ cudaPackages = final.cudaPackages_12_9; }})\n"
            f"    ];\n"
            f"  }};\n"
            f"\n"
            f"  gpuArchNum = \"{a['number']}\";\n"
            f"  gpuArchSM = \"{a['dotted']}\";\n"
            f"\n"
            f"  cpuFlags = [\n{flags_list(isa, '    ')}\n  ];\n"
            f"in\n"
            f"nixpkgs_pinned.python{python}Packages.vllm.overrideAttrs (oldAttrs: {{\n"
            f"  pname = \"{name}\";\n"
            f"\n"
            f"  env = (oldAttrs.env or {{ }}) // {{\n"
            f"    TORCH_CUDA_ARCH_LIST = gpuArchSM;\n"
            f"    NIX_CFLAGS_COMPILE = toString cpuFlags;\n"
            f"  }};\n"
            f"\n"
            f"  meta = oldAttrs.meta // {{\n"
            f"    description = \"vLLM 0.15.1 for {a['description']} with {i['description']}\";\n"
            f"    platforms = [ \"{i['platform']}\" ];\n"
            f"  }};\n"
            f"}})\n")


def seed000_cpu(isa: str) -> str:
    i = ISAS[isa]
    name = f"pytorch-python313-cpu-{isa}"
    return (f"# PyTorch 2.9.1 CPU-only, optimized for {i['description']}\n"
            f"# Package name: {name}\n"
            f"\n"
            f"let\n"
            f"  nixpkgs_pinned = {fetch_pin(PIN_CANONICAL, '  ')} {{\n"
            f"    config.allowUnfree = true;\n"
            f"  }};\n"
            f"  inherit (nixpkgs_pinned) lib;\n"
            f"\n"
            f"  cpuFlags = [\n{flags_list(isa, '    ')}\n  ];\n"
            f"in\n"
            f"(nixpkgs_pinned.python3Packages.torch.override {{\n"
            f"  cudaSupport = false;\n"
            f"}}).overrideAttrs (oldAttrs: {{\n"
            f"  pname = \"{name}\";\n"
            f"\n"
            f"  # Keep GPU libraries out of the closure even if the base derivation lists them.\n"
            f"  buildInputs = lib.filter (p: !(lib.hasPrefix \"cuda\" (p.pname or \"\"))) oldAttrs.buildInputs;\n"
            f"\n"
            f"  preConfigure = (oldAttrs.preConfigure or \"\") + ''\n"
            f"    export USE_CUDA=0\n"
            f"    export BLAS=OpenBLAS\n"
            f"    export CXXFLAGS=\"$CXXFLAGS ${{lib.concatStringsSep \" \" cpuFlags}}\"\n"
            f"    export CFLAGS=\"$CFLAGS ${{lib.concatStringsSep \" \" cpuFlags}}\"\n"
            f"  '';\n"
            f"\n"
            f"  meta = oldAttrs.meta // {{\n"
            f"    description = \"PyTorch 2.9.1 CPU-only build optimized for {i['description']}\";\n"
            f"    platforms = [ \"{i['platform']}\" ];\n"
            f"  }};\n"
            f"}})\n")


def seed000_darwin() -> str:
    name = "pytorch-python313-darwin-mps"
    return (f"# PyTorch 2.9.1 for Apple Silicon (Metal Performance Shaders)\n"
            f"# Package name: {name}\n"
            f"\n"
            f"let\n"
            f"  nixpkgs_pinned = {fetch_pin(PIN_CANONICAL, '  ')} {{\n"
            f"    config.allowUnfree = true;\n"
            f"  }};\n"
            f"  inherit (nixpkgs_pinned) lib;\n"
            f"in\n"
            f"(nixpkgs_pinned.python3Packages.torch.override {{\n"
            f"  cudaSupport = false;\n"
            f"}}).overrideAttrs (oldAttrs: {{\n"
            f"  pname = \"{name}\";\n"
            f"\n"
            f"  buildInputs = lib.filter (p: !(lib.hasPrefix \"cuda\" (p.pname or \"\"))) oldAttrs.buildInputs;\n"
            f"\n"
            f"  preConfigure = (oldAttrs.preConfigure or \"\") + ''\n"
            f"    export USE_CUDA=0\n"
            f"    export USE_MPS=1\n"
            f"  '';\n"
            f"\n"
            f"  meta = oldAttrs.meta // {{\n"
            f"    description = \"PyTorch 2.9.1 for Apple Silicon with the MPS backend\";\n"
            f"    platforms = [ \"aarch64-darwin\" ];\n"
            f"  }};\n"
            f"}})\n")


# --- repositories -----------------------------------------------------------------------------

SEED001_GPU_ARCHS = ["sm80", "sm86", "sm89", "sm90", "sm100", "sm103", "sm110", "sm120", "sm121"]
SEED000_GPU_ARCHS = ["sm61", "sm75", "sm80", "sm86", "sm89", "sm90", "sm100", "sm103", "sm120"]
SEED000_ARM_ARCHS = ["sm80", "sm86", "sm89", "sm90", "sm100", "sm103", "sm120"]
CANONICAL = "pytorch-python313-cuda13_0-sm120-avx512"


def canonical_recipe() -> str:
    return gpu13_recipe("sm120", "avx512", "pytorch210-python313-cuda13_0-sm120-avx512", 0)


def seed001_target() -> dict:
    files = {}
    n = 0
    for arch in SEED001_GPU_ARCHS:
        for isa in X86 + (ARM if ARCHS[arch].get("armSoc") else []):
            stem = f"pytorch-python313-cuda13_0-{arch}-{isa}"
            if stem == CANONICAL:
                files[stem] = canonical_recipe()
            else:
                files[stem] = gpu13_recipe(arch, isa, "pytorch210-" + stem[len("pytorch-"):], n % 4)
                n += 1
    for k, isa in enumerate(X86):
        stem = f"pytorch-python313-cpu-{isa}"
        files[stem] = cpu210_recipe(isa, "pytorch210-" + stem[len("pytorch-"):], 3 if k == 2 else 0)
    assert len(files) == 44
    return files


def seed001_start() -> dict:
    magma_note = ("#\n# Test recipe that validated the MAGMA clockRate patch; identical to the canonical\n"
                  "# sm120-avx512 recipe apart from its name.\n")
    return {
        CANONICAL: canonical_recipe(),
        CANONICAL + "-magma": gpu13_recipe("sm120", "avx512",
                                           "pytorch210-python313-cuda13_0-sm120-avx512-magma", 0,
                                           magma_note),
        "pytorch-python313-cuda13_0-sm110-armv8_2": old_pin_recipe("sm110", "armv8_2"),
        "pytorch-python313-cuda13_0-sm110-armv9": old_pin_recipe("sm110", "armv9"),
        "pytorch-python313-cuda13_0-sm120-avx": old_pin_recipe("sm120", "avx"),
        "pytorch-python313-cuda13_0-sm121-armv9-nightly": nightly_recipe(),
    }


def seed000() -> dict:
    files = {}
    n = 0
    for arch in SEED000_GPU_ARCHS:
        for isa in ["avx"] + X86:
            files[f"pytorch-python313-cuda12_9-{arch}-{isa}"] = seed000_gpu(arch, isa, n % 3)
            n += 1
    for arch in SEED000_ARM_ARCHS:
        for isa in ARM:
            files[f"pytorch-python313-cuda12_9-{arch}-{isa}"] = seed000_gpu(arch, isa, n % 3)
            n += 1
    for isa in X86 + ARM:
        files[f"pytorch-python313-cpu-{isa}"] = seed000_cpu(isa)
    files["pytorch-python313-darwin-mps"] = seed000_darwin()
    assert len(files) == 66, len(files)
    return files


README_001_START = """\
# build-pytorch — cuda-13_0 branch (seed 001, current state)

Fixture for RecipeGrid: the six recipes seed 001 found on 2026-02-06.

| Recipe | State |
| --- | --- |
| `pytorch-python313-cuda13_0-sm120-avx512.nix` | canonical, correct (pin `6a030d5`, three overlays, PyTorch 2.10.0) |
| `pytorch-python313-cuda13_0-sm120-avx512-magma.nix` | redundant: correct pattern, non-standard `-magma` suffix |
| `pytorch-python313-cuda13_0-sm110-armv8_2.nix` | broken: pin `fe5e41d`, no overlays, `python3Packages.pytorch` |
| `pytorch-python313-cuda13_0-sm110-armv9.nix` | broken: same as above |
| `pytorch-python313-cuda13_0-sm120-avx.nix` | broken: same as above; `avx` is not in the target (it wants `avx2`) |
| `pytorch-python313-cuda13_0-sm121-armv9-nightly.nix` | broken: from-scratch PyTorch 2.9.0, MAGMA without the clockRate patch |

`.flox/recipegrid.json` is the 44-variant target of seed 001. Generated by
`tests/tools/make_fixtures.py`.
"""

README_001_TARGET = """\
# build-pytorch — cuda-13_0 branch (seed 001, target)

Fixture for RecipeGrid: the full 44-variant matrix of seed 001, every recipe correct.

- 36 GPU x86 variants: SM80, SM86, SM89, SM90, SM100, SM103, SM110, SM120, SM121 × AVX2,
  AVX-512, AVX-512 BF16, AVX-512 VNNI
- 4 GPU ARM variants: SM110, SM121 × ARMv8.2, ARMv9
- 4 CPU-only variants: AVX2, AVX-512, AVX-512 BF16, AVX-512 VNNI

GPU recipes use the three-overlay pattern of `pytorch-python313-cuda13_0-sm120-avx512.nix`
(CUDA 13.0 package set, MAGMA clockRate patch, PyTorch 2.10.0); CPU recipes use the torch
upgrade overlay only. All on nixpkgs `6a030d5`. `verify.sh` runs seed 001's verification
commands. Generated by `tests/tools/make_fixtures.py`.
"""


def readme_000(files: dict) -> str:
    gpu_x86 = ", ".join(a.upper() for a in SEED000_GPU_ARCHS)
    gpu_arm = ", ".join(a.upper() for a in SEED000_ARM_ARCHS)
    return f"""\
# build-pytorch — pytorch-2.9 branch (seed 000)

Fixture for RecipeGrid: {len(files)} recipes building PyTorch 2.9.1 from nixpkgs with CUDA 12.9.
Seed 000 aligns them with build-vllm's pin; `.flox/recipegrid.json` already expects the new
pin `0182a36`, so every recipe has exactly one finding: its pin.

## Version matrix

| Component | Version |
| --- | --- |
| Nixpkgs pin | [**`6a030d5`**](https://github.com/NixOS/nixpkgs/tree/6a030d535719c5190187c4cec156f335e95e3211) |
| PyTorch | 2.9.1 |
| CUDA | 12.9 (`cudaPackages_12_9` overlay) |
| Python | 3.13 |

## Variants

| Kind | Architectures | CPU ISAs | Count |
| --- | --- | --- | --- |
| GPU x86 | {gpu_x86} | AVX, AVX2, AVX-512, AVX-512 BF16, AVX-512 VNNI | {len(SEED000_GPU_ARCHS) * 5} |
| GPU ARM | {gpu_arm} | ARMv8.2, ARMv9 | {len(SEED000_ARM_ARCHS) * 2} |
| CPU-only | — | AVX2, AVX-512, AVX-512 BF16, AVX-512 VNNI, ARMv8.2, ARMv9 | 6 |
| Darwin | Apple Silicon | MPS | 1 |

Generated by `tests/tools/make_fixtures.py`.
"""


# Seed 000's plan, as its authors keep it next to the recipes: it quotes the full pin in a code
# block and the short one in tables, which is what a pin bump's --docs updates.
PLAN_000 = f"""\
# PyTorch Build Recipes: Align to vLLM Nixpkgs Pin

## Goal

Update the `pytorch-2.9` branch to use the **same nixpkgs pin** as `build-vllm/main`, so that a
custom-built PyTorch can be substituted into vLLM builds (Phase 3).

## Current State

| Repo | Branch | Nixpkgs Pin | PyTorch | CUDA | Python |
|------|--------|-------------|---------|------|--------|
| `build-vllm` | `main` | **`{PIN_VLLM[:7]}`** | 2.9.1 (wheel) | 12.9 | 3.12, 3.13 |
| `build-pytorch` | `pytorch-2.9` | `{PIN_CANONICAL[:7]}` | 2.9.1 | 12.9 | 3.13 |

## Pin in use

Every `.nix` file in `.flox/pkgs/` imports nixpkgs at:

```
{PIN_CANONICAL}
```

## Changes Required

1. Update the nixpkgs pin in every `.nix` file to `{PIN_VLLM}`.
2. Optionally rename `python3Packages` to `python313Packages`.
3. Update the version matrix in README.md.
"""

README_VLLM = f"""\
# build-vllm — main (seed 000's other side)

Fixture for RecipeGrid: vLLM 0.15.1 and PyTorch 2.9.1 from nixpkgs with CUDA 12.9, for Python
3.12 and 3.13. Seed 000 moves build-pytorch onto this repository's pin.

## Version matrix

| Component | Version |
| --- | --- |
| Nixpkgs pin | [**`{PIN_VLLM[:7]}`**](https://github.com/NixOS/nixpkgs/tree/{PIN_VLLM}) |
| vLLM | 0.15.1 |
| PyTorch | 2.9.1 |
| CUDA | 12.9 (`cudaPackages_12_9` overlay) |
| Python | 3.12, 3.13 |

Generated by `tests/tools/make_fixtures.py`.
"""

VLLM_ARCHS = ["sm80", "sm90"]


def seed000_vllm() -> dict:
    files = {}
    for python in ["312", "313"]:
        for n, arch in enumerate(VLLM_ARCHS):
            files[f"pytorch-python{python}-cuda12_9-{arch}-avx512"] = seed000_gpu(
                arch, "avx512", n % 3, python, PIN_VLLM, f"python{python}Packages")
            files[f"vllm-python{python}-cuda12_9-{arch}-avx512"] = vllm_gpu(arch, "avx512", python)
    assert len(files) == 8, len(files)
    return files


def repositories() -> dict:
    """{repository directory: {relative path: text}} for every generated file."""
    out = {}
    for repo, files, readme in [
        ("seed001-start", seed001_start(), README_001_START),
        ("seed001-target", seed001_target(), README_001_TARGET),
        ("seed000", seed000(), None),
        ("seed000-vllm", seed000_vllm(), README_VLLM),
    ]:
        entries = {f".flox/pkgs/{stem}.nix": text for stem, text in files.items()}
        entries["README.md"] = readme if readme else readme_000(files)
        out[repo] = entries
    out["seed000"]["docs/align-to-vllm.md"] = PLAN_000
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--out", type=Path, default=FIXTURES, help="fixtures directory")
    args = parser.parse_args()
    differ = []
    for repo, entries in repositories().items():
        pkgs = args.out / repo / ".flox" / "pkgs"
        wanted = {p for p in entries if p.startswith(".flox/pkgs/")}
        present = {f".flox/pkgs/{p.name}" for p in pkgs.glob("*.nix")} if pkgs.exists() else set()
        for stale in sorted(present - wanted):
            differ.append(f"{repo}/{stale} (not generated)")
            if not args.check:
                (args.out / repo / stale).unlink()
        for rel, text in entries.items():
            path = args.out / repo / rel
            if path.exists() and path.read_text() == text:
                continue
            differ.append(f"{repo}/{rel}")
            if not args.check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    if args.check:
        for d in differ:
            print(f"differs: {d}", file=sys.stderr)
        return 1 if differ else 0
    print(f"wrote {len(differ)} file(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
