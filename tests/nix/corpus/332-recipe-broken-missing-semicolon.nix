let
  gpuArchSM = "9.0"
  cpuFlags = [ "-mavx2" ];
in gpuArchSM
