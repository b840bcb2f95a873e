#What one nixpkgs revision contains, for RecipeGrid's pin inspection: its version, the Python
#and torch versions of the Python package sets a branch uses, and the CUDA, cuDNN and NCCL
#versions of its CUDA sets.Nothing is built.Each value is null where the revision lacks it
#(a removed set throws; tryEval catches that).
#
#{"source" : "/path/to/nixpkgs"(a directory or tarball; "" to fetch the revision),
#"revision" : "<40 hex digits>", "pythonSets" : ["python3Packages", … ],
#"cudaSets" : ["cudaPackages", "cudaPackages_12_9", … ] }
{request} : let r = builtins.fromJSON request;
try = f : let t = builtins.tryEval(f null);
in if t.success then t.value else null;
versionOf = x : if builtins.isAttrs x then x.version or null else null;
isTarball = builtins.match ".*[.](tar[.](gz|xz|bz2|zst)|tgz)" r.source != null;
source = if r.source ==
         "" then builtins
             .fetchTarball
         "https://github.com/NixOS/nixpkgs/archive/${r.revision}.tar.gz" else if isTarball then
             builtins.fetchTarball("file://" + r.source) else r.source;
pkgs = import source
{
    config = { allowUnfree = true;
};
}
;
in
{
    nixpkgs = try(_ : pkgs.lib.version);
    python3 = try(_ : versionOf pkgs.python3);
    pythonSets = map(set
                     : {
                         name = set;
                         python = try(_ : versionOf(pkgs.${set}.python or null));
                         torch = try(_ : versionOf(pkgs.${set}.torch or null));
                     }) r.pythonSets;
    cuda = try(_ : pkgs.cudaPackages.cudaVersion);
    cudaSets = map(set
                   : {
                       name = set;
                       cuda = try(_ : pkgs.${set}.cudaVersion or null);
                       cudnn = try(_ : versionOf(pkgs.${set}.cudnn or null));
                       nccl = try(_ : versionOf(pkgs.${set}.nccl or null));
                   }) r.cudaSets;
    magma = try(_ : versionOf(pkgs.magma or null));
}
