{ python3Packages }:
python3Packages.torch.override { gpuTargets = [ gpuArchSM ]; }
