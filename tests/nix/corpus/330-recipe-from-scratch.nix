{ lib, python3Packages, fetchFromGitHub, cudaPackages }:
python3Packages.buildPythonPackage rec {
  pname = "pytorch-python313-cuda13_0-sm121-armv9-nightly";
  version = "2.9.0";
  src = fetchFromGitHub {
    owner = "pytorch";
    repo = "pytorch";
    rev = "v${version}";
    hash = lib.fakeHash;
  };
  USE_MAGMA = "OFF";
  nativeBuildInputs = with cudaPackages; [ cuda_nvcc ];
  meta.platforms = [ "aarch64-linux" ];
  meta.description = "nightly";
}
