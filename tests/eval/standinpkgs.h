#pragma once

// A nixpkgs small enough to write in a test, for the evaluation engine's own tests: a torch
// whose override takes gpuTargets and whose preConfigure exports TORCH_CUDA_ARCH_LIST from
// them, as nixpkgs' does, and a CUDA set with its version. The recipes' behaviour against a
// faithful nixpkgs is tested with tests/fixtures/nixpkgs-standin.

#include <QDir>
#include <QFile>
#include <QString>

namespace rg::test {

inline const char* tinyNixpkgs = R"nix({ config ? { }, overlays ? [ ] }:
let
  mkDrv = attrs:
    let
      drv = derivation {
        inherit (attrs) name;
        system = "x86_64-linux";
        builder = "/bin/sh";
        args = [ "-c" "echo > $out" ];
        preConfigure = attrs.preConfigure or "";
      };
    in attrs // { inherit (drv) drvPath outPath; type = "derivation"; }
       // { overrideAttrs = f: mkDrv (attrs // f attrs); };
  torch = args:
    let
      targets = args.gpuTargets or [ ];
      cuda = args.cudaSupport or false;
    in mkDrv {
      name = "torch-2.9.1";
      pname = "torch";
      version = "2.9.1";
      preConfigure = if cuda then "export TORCH_CUDA_ARCH_LIST=\"${builtins.concatStringsSep ";" targets}\"\n" else "";
      cudaSupport = cuda;
      cudaCapabilities = targets;
      cudaPackages = { cudaVersion = "12.9"; };
      pythonModule = { pythonVersion = "3.13"; };
      meta.platforms = [ "x86_64-linux" "aarch64-linux" ];
    } // { override = more: torch (args // more); };
in {
  lib.concatStringsSep = builtins.concatStringsSep;
  python3Packages.torch = torch { };
}
)nix";

// Writes `text` to `root/relative`, making its directories.
inline bool writeFile(const QString& root, const QString& relative, const QByteArray& text)
{
    const QString path = root + QLatin1Char('/') + relative;
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text) == text.size();
}

} // namespace rg::test
