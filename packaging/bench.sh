#!/usr/bin/env bash
# packaging/bench.sh [BUILD_DIR]   (default build/dev, built with its tests)
# Runs every benchmark in full and prints each of the README's speed targets beside the figure
# measured for it. A benchmark that stops with an error, or a target with no figure, makes the
# script exit 1; a missed target is printed as MISSED and makes it exit 3, so a slow shared
# machine is told apart from a broken benchmark. CTest runs the same benchmarks once each as
# smoke tests (label bench-smoke), untimed.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$top/build/dev}" && pwd) || exit 1
out=$(mktemp -d "${TMPDIR:-/tmp}/recipegrid-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
export NIX_CONFIG=$'build-users-group =\nsandbox = false\nsubstituters =\nexperimental-features = nix-command'

broken=0
for name in bench_nix_parser bench_matrix bench_analyzer bench_changes bench_pins bench_gui \
    bench_logpane bench_reviewdialog bench_eval bench_remotebuilds; do
    exe=$(find "$build/tests" -type f -name "$name" -perm -u+x | head -n 1)
    if [ -z "$exe" ]; then
        echo "bench: $name is not built in $build" >&2
        broken=1
        continue
    fi
    echo "bench: ==> $name" >&2
    t0=$(date +%s)
    # The remote builder hosts live in namespaces of the benchmark's own.
    launcher=()
    [ "$name" = bench_remotebuilds ] && launcher=(bash "$top/tests/tools/in_builder_namespace.sh")
    "${launcher[@]}" "$exe" --benchmark_out="$out/$name.json" --benchmark_out_format=json >&2 \
        || { echo "bench: $name exited $?" >&2; broken=1; }
    echo "bench: <== $name: $(($(date +%s) - t0)) s" >&2
done

python3 - "$out" <<'PY'
import json, re, sys
from pathlib import Path

# (benchmark executable, benchmark name (regex, from the start), figure, "<=" or ">=",
#  limit, unit of the limit, the README's words)
TARGETS = [
    ("bench_nix_parser", r"BM_ParseRecipes", "bytes_per_second", ">=", 100, "MB/s",
     "parsing recipes, one core"),
    ("bench_analyzer", r"BM_CheckProcess/2000/", "real_time", "<=", 300, "ms",
     "recipegrid check, 2,000 recipes"),
    ("bench_analyzer", r"BM_CheckProcess/20000/", "real_time", "<=", 3000, "ms",
     "recipegrid check, 20,000 recipes"),
    ("bench_analyzer", r"BM_CheckProcess/20000/", "peak_rss_MB", "<=", 500, "MB",
     "recipegrid check, 20,000 recipes, peak memory"),
    ("bench_changes", r"BM_Apply250", "real_time", "<=", 1000, "ms",
     "applying a 250-file change set"),
    ("bench_changes", r"BM_PlanCreate1000", "real_time", "<=", 1000, "ms",
     "planning and re-analysing 1,000 created recipes"),
    ("bench_changes", r"BM_PlanFixCudaSet", "real_time", "<=", 1000, "ms",
     "fixing 1,000 recipes in place"),
    ("bench_changes", r"BM_PlanFixOne", "real_time", "<=", 100, "ms",
     "fixing one recipe among 1,100"),
    ("bench_changes", r"BM_MergeRegenerated", "real_time", "<=", 1, "ms",
     "merging one regenerated recipe"),
    ("bench_pins", r"BM_PlanPinBump2000", "real_time", "<=", 500, "ms",
     "planning a pin bump over 2,000 recipes"),
    ("bench_pins", r"BM_Alignment10x250/distinct:0", "real_time", "<=", 1000, "ms",
     "pin alignment of 10 branches x 250 recipes"),
    ("bench_pins", r"BM_Alignment10x250/distinct:1", "real_time", "<=", 1000, "ms",
     "pin alignment, every file different on every branch"),
    ("bench_gui", r"BM_OpenToFirstPaintedGrid/250/", "real_time", "<=", 1000, "ms",
     "opening 250 recipes to the first painted grid"),
    ("bench_gui", r"BM_RescanAfterOneFileChanged/250/", "real_time", "<=", 50, "ms",
     "re-scan after one file changed (250 recipes)"),
    ("bench_gui", r"BM_RescanAfterOneFileChanged/2000/", "real_time", "<=", 50, "ms",
     "re-scan after one file changed (2,000 recipes)"),
    ("bench_gui", r"BM_FullGridRepaint/2000/0/", "real_time", "<=", 16, "ms",
     "full repaint of the grid, 2,000 recipes"),
    ("bench_remotebuilds", r"BM_TwelveOverThreeBuilders/12", "ratio_to_ideal", "<=", 1.5, "x",
     "12 variants of 2 s over 3 builders x 2 slots, against the ideal 4 s"),
    ("bench_reviewdialog", r"BM_ReviewDialogOpen/250", "real_time", "<=", 1000, "ms",
     "opening the review of a 250-file change set"),
    ("bench_eval", r"BM_Batched/250/", "real_time", "<=", 3000, "ms",
     "evaluating 250 recipes on one pin with Nix (stand-in nixpkgs)"),
    ("bench_eval", r"BM_UnchangedBranchAgain/250", "real_time", "<=", 100, "ms",
     "evaluating an unchanged branch again (250 recipes, cache)"),
]
TO_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}

out = Path(sys.argv[1])
missing = missed = 0
print(f"{'target':<55} {'limit':>12} {'measured':>12}")
for exe, pattern, figure, op, limit, unit, words in TARGETS:
    runs = []
    path = out / f"{exe}.json"
    if path.exists():
        runs = [b for b in json.loads(path.read_text()).get("benchmarks", [])
                if re.match(pattern, b["name"]) and b.get("run_type", "iteration") == "iteration"
                and not b.get("error_occurred")]
    if not runs or figure not in runs[0]:
        print(f"{words:<55} {op + ' ' + str(limit) + ' ' + unit:>12} {'no figure':>12}  BROKEN")
        missing += 1
        continue
    run = runs[0]
    value = run[figure]
    if figure == "real_time":
        value *= TO_MS[run.get("time_unit", "ns")]
    elif figure == "bytes_per_second":
        value /= 1e6
    ok = value <= limit if op == "<=" else value >= limit
    missed += not ok
    print(f"{words:<55} {op + ' ' + str(limit) + ' ' + unit:>12} {value:>9.2f} {unit:<4}"
          f"{'' if ok else ' MISSED'}")
print(f"bench: {len(TARGETS) - missing - missed} met, {missed} missed, {missing} without a figure")
sys.exit(1 if missing else 3 if missed else 0)
PY
rc=$?
[ $broken -eq 0 ] || exit 1
exit $rc
