{ lib }:
let
  gpuArchSM = "8.9";
in {
  x = ''
    export A=${gpuArchSM}
  '';
}
