let
  nixpkgs_pinned = import (builtins.fetchTarball {
    url = "https://github.com/NixOS/nixpkgs/archive/0182a361324364ae3f436a63005877674cf45efb.tar.gz";
  }) { config = { allowUnfree = true; cudaSupport = true; }; };
in nixpkgs_pinned.python313Packages.torch.override {
  cudaSupport = true;
  gpuTargets = [ "9.0" ];
}
