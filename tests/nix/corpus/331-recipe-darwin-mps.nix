{ python313Packages, lib }:
python313Packages.torch.overrideAttrs (old: {
  pname = "pytorch-python313-darwin-mps";
  meta = old.meta // { platforms = [ "aarch64-darwin" ]; };
  passthru = old.passthru // { isMps = old.stdenv.isDarwin or false; };
})
