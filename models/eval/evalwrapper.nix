# RecipeGrid's batch evaluation: one Nix process evaluates many recipes.
#
# Each recipe is imported with its nixpkgs pins resolved through `sources` (revision -> local
# nixpkgs directory) before Nix would fetch them: builtins.fetchTarball, fetchTarball,
# builtins.fetchGit, builtins.fetchTree (a set or a "github:owner/repo/<rev>" reference),
# builtins.getFlake ("github:owner/repo/<rev>": its legacyPackages.<system> are the local
# nixpkgs imported for that system), and imports of fetchFromGitHub-style sources that carry a
# `rev`. `<nixpkgs>` resolves to `defaultNixpkgs` when one is given. Files
# of the repository are imported through the same scope; files outside it (nixpkgs itself)
# through the plain `import`, which Nix caches, so recipes sharing a pin share its parse.
#
# builtins.tryEval catches only `throw` and `assert`, so one broken recipe would take the whole
# batch with it. Instead every recipe's result is written as it is made, through
# builtins.trace ("rg-begin I" before it, "rg-result {json}" after it): when Nix fails, the
# results before the failure are kept and the failing recipe is the last one begun.
#
# The request is one JSON string, so paths and revisions need no Nix quoting:
#   { "recipes": [ "/abs/.flox/pkgs/a.nix", … ], "repoRoot": "/abs",
#     "sources": { "<40-hex revision>": "/path/to/nixpkgs" or "/path/to/nixpkgs.tar.gz" },
#     "defaultNixpkgs": null or a path, for recipes that are functions of a package set,
#     "defaultConfig": its nixpkgs config (default { "allowUnfree": true }, as flox builds) }
{ request }:
let
  inherit (builtins) isAttrs isString isFunction match head;
  parsed = builtins.fromJSON request;
  recipes = parsed.recipes;
  repoRoot = parsed.repoRoot;
  sources = builtins.mapAttrs (rev: path: unpacked path) (parsed.sources or { });
  defaultNixpkgs = parsed.defaultNixpkgs or null;
  defaultConfig = parsed.defaultConfig or { allowUnfree = true; };

  # A local source given as a tarball is unpacked by Nix itself, from the file.
  unpacked = path:
    if match ".*[.](tar[.](gz|xz|bz2|zst)|tgz)" path != null
    then builtins.fetchTarball ("file://" + path) else path;

  localSource = rev: if isString rev && sources ? ${rev} then sources.${rev} else null;
  revisionOfUrl = url:
    let m = match ".*/(archive|tarball)/([0-9a-fA-F]{40})(\\.tar\\.gz)?" url;
    in if m == null then null else builtins.elemAt m 1;

  fetchTarball = arg:
    let
      url = if isAttrs arg then arg.url else arg;
      hit = localSource (revisionOfUrl url);
    in if hit != null then hit else builtins.fetchTarball arg;

  fetchGit = arg:
    let hit = localSource (if isAttrs arg then arg.rev or null else null);
    in if hit != null then { outPath = hit; rev = arg.rev; shortRev = builtins.substring 0 7 arg.rev; }
       else builtins.fetchGit arg;

  revisionOfFlakeRef = ref:
    let m = match "github:[^/]+/[^/]+/([0-9a-fA-F]{40}).*" ref;
    in if m == null then null else head m;

  fetchTree = arg:
    let
      rev = if isAttrs arg then arg.rev or null else revisionOfFlakeRef arg;
      hit = localSource rev;
    in if hit != null then { outPath = hit; inherit rev; shortRev = builtins.substring 0 7 rev; }
       else (builtins.fetchTree or (throw "builtins.fetchTree needs the 'flakes' experimental feature")) arg;

  flakeSystems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
  getFlake = ref:
    let hit = localSource (if isString ref then revisionOfFlakeRef ref else null);
    in if hit != null then {
         outPath = hit;
         lib = (builtins.import hit { }).lib;
         legacyPackages = builtins.listToAttrs (map (system: { name = system; value = builtins.import hit { inherit system; }; }) flakeSystems);
       }
       else (builtins.getFlake or (throw "builtins.getFlake needs the 'flakes' experimental feature")) ref;

  findFile = path: name:
    if name == "nixpkgs" && defaultNixpkgs != null then defaultNixpkgs
    else builtins.findFile path name;

  isInRepo = p: let s = toString p; in builtins.substring 0 (builtins.stringLength repoRoot + 1) s == repoRoot + "/";

  importInScope = p:
    let
      rev = if isAttrs p then p.rev or null else null;
      hit = localSource rev;
    in
    if hit != null then builtins.import hit
    else if isInRepo p then scopedImport scope p
    else builtins.import p;

  scope = {
    builtins = builtins // { inherit fetchTarball fetchGit fetchTree getFlake; import = importInScope; };
    inherit fetchTarball fetchGit;
    import = importInScope;
    __findFile = findFile;
  };

  basePackages = if defaultNixpkgs == null then { } else
    let pkgs = builtins.import defaultNixpkgs { config = defaultConfig; }; in pkgs // { inherit pkgs; };

  # A recipe that is a function of its packages (callPackage style) gets the arguments the
  # default nixpkgs has; its own defaults cover the rest.
  instantiate = value:
    if isFunction value then value (builtins.intersectAttrs (builtins.functionArgs value) basePackages)
    else value;

  orNull = f: let r = builtins.tryEval (f null); in if r.success then r.value else null;
  stringOrNull = v: if isString v then v else null;

  # The torch a variant builds: the variant itself when it is a torch build, else the first
  # torch among its inputs.
  isTorch = d: isAttrs d && (d ? cudaCapabilities || (d.pname or "") == "torch" || (d.pname or "") == "pytorch");
  torchOf = drv:
    let
      inputs = (drv.propagatedBuildInputs or [ ]) ++ (drv.dependencies or [ ]) ++ (drv.buildInputs or [ ]);
      found = builtins.filter isTorch inputs;
    in if isTorch drv then drv else if found == [ ] then null else head found;

  envOf = drv: name: stringOrNull (drv.${name} or (drv.env or { }).${name} or null);

  facts = drv:
    let torch = torchOf drv;
        # A torch without CUDA still carries its set in passthru; it builds against none.
        cuda = if torch == null || !(torch.cudaSupport or false) then null else torch.cudaPackages or null;
    in {
      drvPath = drv.drvPath;
      # Where a build puts the default output: whether it is built already is the store's
      # answer (nix-store --check-validity), not the evaluation's. Not named outPath: toJSON
      # writes a set with an outPath as that path alone.
      outputPath = drv.outPath;
      name = drv.name or null;
      pname = drv.pname or null;
      version = drv.version or null;
      system = drv.system or null;
      # What a machine must offer to build it (Nix's system features: torch asks for
      # big-parallel).
      requiredSystemFeatures = orNull (_: builtins.filter isString (drv.requiredSystemFeatures or [ ]));
      platforms = orNull (_: builtins.filter isString (drv.meta.platforms or [ ]));
      preConfigure = orNull (_: stringOrNull (drv.preConfigure or null));
      # The hooks that run before compiling, in the order the builder runs them: where an
      # author exports flags or an arch list.
      buildScript = orNull (_: builtins.concatStringsSep "\n" (builtins.filter isString
        (map (phase: drv.${phase} or null) [ "preConfigure" "postConfigure" "preBuild" ])));
      archListSetting = orNull (_: envOf drv "TORCH_CUDA_ARCH_LIST");
      cxxFlags = orNull (_: envOf drv "CXXFLAGS");
      cFlags = orNull (_: envOf drv "CFLAGS");
      cflagsCompile = orNull (_: envOf drv "NIX_CFLAGS_COMPILE");
      pythonVersion = orNull (_: (drv.pythonModule or torch.pythonModule or { }).pythonVersion or null);
      torch = if torch == null then null else {
        name = torch.name or null;
        version = torch.version or null;
        drvPath = orNull (_: torch.drvPath);
        cudaSupport = torch.cudaSupport or null;
        cudaCapabilities = orNull (_: torch.cudaCapabilities or null);
        archListSetting = orNull (_: envOf torch "TORCH_CUDA_ARCH_LIST");
        preConfigure = orNull (_: stringOrNull (torch.preConfigure or null));
      };
      cudaVersion = orNull (_: if cuda == null then null else cuda.cudaVersion or null);
      cudnnVersion = orNull (_: if cuda == null then null else (cuda.cudnn or { }).version or null);
    };

  evaluateOne = index: path:
    builtins.trace "rg-begin ${toString index}" (
      let
        drv = instantiate (importInScope path);
        # What a build forces first: the derivation itself.
        result = builtins.seq drv.drvPath (facts drv);
      in builtins.trace ("rg-result " + builtins.toJSON ({ inherit index; } // result)) true);

  indices = builtins.genList (i: i) (builtins.length recipes);
in
builtins.foldl' (count: i: builtins.seq (evaluateOne i (builtins.elemAt recipes i)) (count + 1)) 0 indices
