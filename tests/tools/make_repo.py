#!/usr/bin/env python3
"""Generates a synthetic recipe repository of N realistic recipes for benchmarks.

    tests/tools/make_repo.py N OUT [--git]

Every recipe is about 5 KB, valid Nix, and ok under the repository's own spec
(OUT/.flox/recipegrid.json): right pin for its CUDA version, the pattern's overlay, pname =
file name, gpuArchSM/gpuArchNum/cpuFlags/platforms from the catalog, the Python package set
of its Python version, no CUDA in CPU-only recipes. Python 3.11–3.13, CUDA 12.8/12.9/13.0,
every GPU arch each CUDA version can target, x86 and ARM ISAs, CPU-only.

One package word holds at most a few hundred variants, so larger repositories repeat the
matrix over further package words (the spec's extraPackages: torchvision, torchaudio, vllm, …)
and exclude what the last one does not fill. Output is deterministic: the same N gives the
same bytes. OUT must not exist or be empty. --git also makes OUT a git repository with one
commit (needs the git CLI).
"""

import argparse
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CATALOG = json.loads((ROOT / "resources" / "catalog.json").read_text())
ARCHS = {a["id"]: a for a in CATALOG["gpuArchs"]}
ISAS = {i["id"]: i for i in CATALOG["isas"]}

PYTHONS = ["3.11", "3.12", "3.13"]
CUDAS = ["12.8", "12.9", "13.0"]
X86 = ["avx", "avx2", "avx512", "avx512bf16", "avx512vnni"]
ARM = ["armv8_2", "armv9"]
PACKAGES = [
    "pytorch", "torchvision", "torchaudio", "vllm", "xformers", "flash-attn", "triton", "apex",
    "deepspeed", "bitsandbytes", "torchao", "torchtext", "torchdata", "sglang", "onnxruntime",
    "cupy", "transformer-engine", "megatron-core", "mamba-ssm", "causal-conv1d", "flashinfer",
    "lmdeploy", "tensorrt-llm", "dgl", "torch-geometric", "torch-scatter", "torch-sparse",
    "torch-cluster", "spconv", "kaolin", "pytorch3d", "detectron2", "mmcv", "timm", "accelerate",
    "peft", "diffusers", "liger-kernel", "unsloth", "torchrec", "fbgemm-gpu", "torchtune",
    "nvidia-dali", "cuequivariance", "warp-lang", "gsplat", "nerfacc", "tiny-cuda-nn",
]


BUILD_NOTES = """\
#
# Build notes
# -----------
# - Expect one to three hours on 32 cores; the derivation asks for the big-parallel
#   system feature so a remote builder with enough memory picks it up.
# - Only the instruction-set flags below are passed to the C and C++ compilers; the
#   nixpkgs derivation keeps its own optimisation level and hardening flags.
# - Publishing: flox build <pname>, check BUILD-INFO in the result, then
#   flox publish -o <org> <pname>. CI builds every file of this directory.
# - Changing the nixpkgs pin changes every dependency in the closure: bump all recipes of
#   the branch together and rebuild at least one GPU, one CPU and one ARM variant.
"""

BUILD_ATTRS = """\
  # The build is long and memory hungry; keep it off small builders.
  requiredSystemFeatures = [ "big-parallel" ];
  enableParallelBuilding = true;

  # The test suite needs a GPU (or hours on a CPU); the import check catches broken builds.
  doCheck = false;
  pythonImportsCheck = [ "torch" ];

  postFixup = (oldAttrs.postFixup or "") + ''
    # Let the shared libraries find the host's driver (or nothing, for CPU builds) at run time.
    for lib in $(find $out -name '*.so*' -type f); do
      patchelf --shrink-rpath "$lib" || true
    done
  '';
"""


def version_key(v: str):
    return tuple(int(p) for p in v.split("."))


def cuda_targets(arch: dict, cuda: str) -> bool:
    if arch.get("minCuda") and version_key(cuda) < version_key(arch["minCuda"]):
        return False
    if arch.get("maxCuda") and version_key(cuda) > version_key(arch["maxCuda"]):
        return False
    return True


def pin_for(key: str) -> str:
    return hashlib.sha1(f"nixpkgs-{key}".encode()).hexdigest()


def nix_base32(seed: str) -> str:
    """A SHA-256 in Nix's base-32, as Nix accepts it: 52 digits of its alphabet hold 260 bits,
    so the first digit (the top bits) is 0 or 1."""
    alphabet = "0123456789abcdfghijklmnpqrsvwxyz"
    digits = [alphabet[b % 32] for b in hashlib.sha512(seed.encode()).digest()[:52]]
    digits[0] = alphabet[hashlib.sha512(seed.encode()).digest()[52] % 2]
    return "".join(digits)


def rows():
    """Matrix rows: (python, accelerator, cuda, arch, [isas]); one row per grid line."""
    out = []
    for python in PYTHONS:
        for cuda in CUDAS:
            for arch_id, arch in ARCHS.items():
                if not cuda_targets(arch, cuda):
                    continue
                isas = ARM if arch.get("armSoc") else X86 + ARM
                out.append((python, "cuda", cuda, arch_id, isas))
        out.append((python, "cpu", "", "", X86 + ARM))
    # Interleave so even a small repository mixes Python and CUDA versions.
    random.Random(20260206).shuffle(out)
    return out


def stem(package, python, accel, cuda, arch, isa):
    py = "python" + python.replace(".", "")
    if accel == "cpu":
        return f"{package}-{py}-cpu-{isa}"
    return f"{package}-{py}-cuda{cuda.replace('.', '_')}-{arch}-{isa}"


def flags(isa, indent):
    return "\n".join(f'{indent}"{f}"' for f in ISAS[isa]["flags"])


def gpu_recipe(package, python, cuda, arch_id, isa, n):
    a, i = ARCHS[arch_id], ISAS[isa]
    name = stem(package, python, "cuda", cuda, arch_id, isa)
    pyset = f"python{python.replace('.', '')}Packages"
    cudaset = "cudaPackages_" + cuda.replace(".", "_")
    pin = pin_for(cuda)
    libs = ["cuda_cudart", "libcublas", "libcufft", "libcurand", "libcusolver", "libcusparse", "cudnn", "nccl"]
    gpu_lines = (f"  gpuArchNum = \"{a['number']}\";\n  gpuArchSM = \"{a['dotted']}\";\n")
    cpu_lines = f"  cpuFlags = [\n{flags(isa, '    ')}\n  ];\n"
    bindings = gpu_lines + "\n" + cpu_lines if n % 2 == 0 else cpu_lines + "\n" + gpu_lines
    return f"""\
# {package} for {a['description']} + {i['description']}
# Package name: {name}
#
# Built from the pinned nixpkgs with the CUDA {cuda} package set selected by an overlay.
# Generated by tests/tools/make_repo.py for benchmarks; the content mirrors the seeds' recipes.
{BUILD_NOTES}
let
  nixpkgs_pinned = import (builtins.fetchTarball {{
    url = "https://github.com/NixOS/nixpkgs/archive/{pin}.tar.gz";
    sha256 = "{nix_base32(pin)}";
  }}) {{
    config = {{
      allowUnfree = true;
      cudaSupport = true;
    }};
    overlays = [
      # Use CUDA {cuda} for every package that takes cudaPackages
      (final: prev: {{ cudaPackages = final.{cudaset}; }})
    ];
  }};

  # GPU target: {arch_id.upper()} ({a['description']})
  # CPU optimization: {i['description']}
{bindings}
in
(nixpkgs_pinned.{pyset}.torch.override {{
  cudaSupport = true;
  gpuTargets = [ gpuArchSM ];
}}).overrideAttrs (oldAttrs: {{
  pname = "{name}";

  passthru = oldAttrs.passthru // {{
    inherit gpuArchNum gpuArchSM;
    cudaVersion = "{cuda}";
  }};

  buildInputs = oldAttrs.buildInputs ++ (with nixpkgs_pinned.cudaPackages; [
{chr(10).join('    ' + lib for lib in libs)}
  ]) ++ [
    # Dynamic OpenBLAS for host-side operations
    (nixpkgs_pinned.openblas.override {{
      blas64 = false;
      singleThreaded = false;
    }})
  ];

  nativeBuildInputs = oldAttrs.nativeBuildInputs ++ [
    nixpkgs_pinned.addDriverRunpath
  ];

  preConfigure = (oldAttrs.preConfigure or "") + ''
    export TORCH_CUDA_ARCH_LIST="${{gpuArchSM}}"
    export TORCH_NVCC_FLAGS="-Xfatbin -compress-all"
    export CMAKE_CUDA_ARCHITECTURES="${{gpuArchNum}}"

    # CPU optimizations via compiler flags
    export CXXFLAGS="$CXXFLAGS ${{nixpkgs_pinned.lib.concatStringsSep " " cpuFlags}}"
    export CFLAGS="$CFLAGS ${{nixpkgs_pinned.lib.concatStringsSep " " cpuFlags}}"

    export USE_CUBLAS=1
    export USE_CUDA=1
    export MAX_JOBS=$NIX_BUILD_CORES

    echo "========================================="
    echo "{package} build configuration"
    echo "========================================="
    echo "GPU target: ${{gpuArchSM}} ({a['description']})"
    echo "CPU features: {i['description']}"
    echo "CUDA: {cuda}"
    echo "Python: {python}"
    echo "TORCH_CUDA_ARCH_LIST: $TORCH_CUDA_ARCH_LIST"
    echo "CXXFLAGS: $CXXFLAGS"
    echo "========================================="
  '';

{BUILD_ATTRS}
  postInstall = (oldAttrs.postInstall or "") + ''
    mkdir -p $out/share/doc/{name}
    echo "{name}: SM {a['dotted']}, {i['description']}, CUDA {cuda}" > $out/share/doc/{name}/BUILD-INFO
  '';

  meta = oldAttrs.meta // {{
    description = "{package} for {a['description']} with {i['description']} (CUDA {cuda})";
    longDescription = ''
      Custom build with targeted optimizations:
      - GPU: {a['description']} (SM {a['dotted']})
      - CPU: {i['description']}
      - CUDA: {cuda}
      - BLAS: cuBLAS for GPU operations, OpenBLAS for host-side
      - Python: {python}

      Only kernels for SM {a['dotted']} are compiled, which keeps the package a fraction of
      the size of a build for every architecture.
    '';
    platforms = [ "{i['platform']}" ];
  }};
}})
"""


def cpu_recipe(package, python, isa, n):
    i = ISAS[isa]
    name = stem(package, python, "cpu", "", "", isa)
    pyset = f"python{python.replace('.', '')}Packages"
    pin = pin_for("cpu")
    return f"""\
# {package} CPU-only, optimized for {i['description']}
# Package name: {name}
#
# Built from the pinned nixpkgs without GPU support.
# Generated by tests/tools/make_repo.py for benchmarks; the content mirrors the seeds' recipes.
{BUILD_NOTES}
let
  nixpkgs_pinned = import (builtins.fetchTarball {{
    url = "https://github.com/NixOS/nixpkgs/archive/{pin}.tar.gz";
    sha256 = "{nix_base32(pin)}";
  }}) {{
    config.allowUnfree = true;
  }};
  inherit (nixpkgs_pinned) lib;

  # CPU optimization: {i['description']} (no GPU)
  cpuFlags = [
{flags(isa, '    ')}
  ];

  # OpenBLAS for CPU linear algebra
  blasBackend = nixpkgs_pinned.openblas;
in
(nixpkgs_pinned.{pyset}.torch.override {{
  cudaSupport = false;
}}).overrideAttrs (oldAttrs: {{
  pname = "{name}";

  passthru = oldAttrs.passthru // {{
    gpuArch = null;
    blasProvider = "openblas";
  }};

  # Keep GPU libraries out of the closure even if the base derivation lists them.
  buildInputs = lib.filter (p: !(lib.hasPrefix "cuda" (p.pname or ""))) oldAttrs.buildInputs ++ [
    blasBackend
  ];

  nativeBuildInputs = lib.filter (p: p.pname or "" != "addDriverRunpath") oldAttrs.nativeBuildInputs;

  preConfigure = (oldAttrs.preConfigure or "") + ''
    export USE_CUDA=0
    export BLAS=OpenBLAS
    export USE_MKLDNN=1
    export USE_MKLDNN_CBLAS=1

    # CPU optimizations via compiler flags
    export CXXFLAGS="$CXXFLAGS ${{lib.concatStringsSep " " cpuFlags}}"
    export CFLAGS="$CFLAGS ${{lib.concatStringsSep " " cpuFlags}}"
    export CMAKE_BUILD_TYPE=Release
    export MAX_JOBS=$NIX_BUILD_CORES

    echo "========================================="
    echo "{package} build configuration"
    echo "========================================="
    echo "GPU target: none (CPU-only build)"
    echo "CPU features: {i['description']}"
    echo "BLAS backend: OpenBLAS"
    echo "Python: {python}"
    echo "CXXFLAGS: $CXXFLAGS"
    echo "========================================="
  '';

{BUILD_ATTRS}
  postInstall = (oldAttrs.postInstall or "") + ''
    mkdir -p $out/share/doc/{name}
    echo "{name}: CPU-only, {i['description']}" > $out/share/doc/{name}/BUILD-INFO
  '';

  meta = oldAttrs.meta // {{
    description = "{package} CPU-only build optimized for {i['description']}";
    longDescription = ''
      Custom build for CPU-only workloads:
      - GPU: none (CPU-only)
      - CPU: {i['description']}
      - BLAS: OpenBLAS for CPU linear algebra operations
      - Python: {python}

      Suitable for inference, development, and workloads that do not need a GPU. The
      instruction-set flags above are passed to every C and C++ compilation unit.
    '';
    platforms = [ "{i['platform']}" ];
  }};
}})
"""


def plan(n):
    """The variants of an N-recipe repository and the spec that expects exactly them."""
    all_rows = rows()
    per_package = sum(len(r[4]) for r in all_rows)
    packages_needed = -(-n // per_package)
    if packages_needed > len(PACKAGES):
        sys.exit(f"make_repo.py: at most {per_package * len(PACKAGES)} recipes")
    variants = []
    excludes = []
    for p in range(packages_needed):
        package = PACKAGES[p]
        for python, accel, cuda, arch, isas in all_rows:
            row_filter = {"package": package, "python": python, "accelerator": accel}
            if accel == "cuda":
                row_filter.update({"cuda": cuda, "gpuArch": arch})
            room = n - len(variants)
            if room <= 0:
                excludes.append(row_filter)
                continue
            taken = isas[:room]
            for isa in taken:
                variants.append((package, python, accel, cuda, arch, isa))
            for isa in isas[len(taken):]:
                excludes.append(dict(row_filter, isa=isa))
    arm_socs = [a for a, v in ARCHS.items() if v.get("armSoc")]
    matrix = []
    for cuda in CUDAS:
        archs = [a for a, v in ARCHS.items() if cuda_targets(v, cuda) and not v.get("armSoc")]
        matrix.append({"python": PYTHONS, "accelerator": "cuda", "cuda": [cuda],
                       "gpuArchs": archs, "isas": X86 + ARM})
        socs = [a for a in arm_socs if cuda_targets(ARCHS[a], cuda)]
        if socs:
            matrix.append({"python": PYTHONS, "accelerator": "cuda", "cuda": [cuda],
                           "gpuArchs": socs, "isas": ARM})
    matrix.append({"python": PYTHONS, "accelerator": "cpu", "isas": X86 + ARM})
    spec = {
        "schema": 1,
        "package": PACKAGES[0],
        "recipeDir": ".flox/pkgs",
        "pins": {**{c: pin_for(c) for c in CUDAS}, "cpu": pin_for("cpu")},
        "matrix": matrix,
        "patterns": {
            "cuda": {"kind": "pinned-overlays", "overlays": ["cuda-package-set"]},
            "cpu": {"kind": "pinned-plain", "overlays": []},
        },
    }
    if packages_needed > 1:
        spec["extraPackages"] = PACKAGES[1:packages_needed]
    if excludes:
        spec["exclude"] = excludes
    return variants, spec


def main():
    parser = argparse.ArgumentParser(description="Synthetic recipe repository for benchmarks")
    parser.add_argument("n", type=int, help="number of recipes")
    parser.add_argument("out", type=Path, help="output directory (new or empty)")
    parser.add_argument("--git", action="store_true", help="commit the result to a new git repo")
    args = parser.parse_args()
    if args.n < 1:
        sys.exit("make_repo.py: N must be at least 1")
    if args.out.exists() and any(args.out.iterdir()):
        sys.exit(f"make_repo.py: {args.out} is not empty")
    variants, spec = plan(args.n)
    pkgs = args.out / ".flox" / "pkgs"
    pkgs.mkdir(parents=True, exist_ok=True)
    total = 0
    for k, (package, python, accel, cuda, arch, isa) in enumerate(variants):
        text = (gpu_recipe(package, python, cuda, arch, isa, k) if accel == "cuda"
                else cpu_recipe(package, python, isa, k))
        (pkgs / (stem(package, python, accel, cuda, arch, isa) + ".nix")).write_text(text)
        total += len(text)
    (args.out / ".flox" / "recipegrid.json").write_text(json.dumps(spec, indent=2) + "\n")
    (args.out / "README.md").write_text(
        f"# Synthetic recipe repository\n\n{len(variants)} recipes generated by "
        f"`tests/tools/make_repo.py {args.n}` for benchmarks.\n")
    if args.git:
        for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                    ["git", "-c", "user.name=make_repo", "-c", "user.email=make_repo@localhost",
                     "commit", "-q", "-m", f"{len(variants)} synthetic recipes"]):
            subprocess.run(cmd, cwd=args.out, check=True)
    print(f"{len(variants)} recipes, {total / 1e6:.1f} MB, "
          f"{len(spec.get('extraPackages', [])) + 1} package word(s), "
          f"{len(spec.get('exclude', []))} exclusion(s) -> {args.out}")


if __name__ == "__main__":
    main()
