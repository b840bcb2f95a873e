{ callPackage }:
callPackage ./pytorch-python313-cuda12_8-sm90-avx512.nix { }
