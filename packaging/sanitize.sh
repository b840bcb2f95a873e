#!/usr/bin/env bash
# packaging/sanitize.sh: the sanitizer and fuzzing leg of CI, after packaging/setup.sh has
# installed the packages (clang and its compiler-rt, which holds libFuzzer, are in the list).
#   1. the asan preset (clang, AddressSanitizer + UndefinedBehaviorSanitizer, Debug with line
#      tables, without the window): the engine, change and CLI suites and the replay of the fuzz
#      corpus (tst_fuzzcorpus), any sanitizer report failing its suite;
#   2. the fuzz preset (clang, libFuzzer): fuzz_nix_parser for RG_FUZZ_SECONDS (default 60) from
#      tests/fuzz/corpus, new inputs going to a scratch folder, never into the corpus.
# `packaging/sanitize.sh suites` runs step 1 alone (about nine minutes on two cores), `… fuzz`
# step 2 alone (about three). The fuzz target is itself built with AddressSanitizer and UBSan,
# and it starts by running every corpus input through the parser, the fact extraction and every
# per-recipe rule, so even that short leg is a sanitizer run of the engine.
# Prints each step's time. Exit status: the first failing step's.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
seconds=${RG_FUZZ_SECONDS:-60}
case "${1:-all}" in
all) suites_too=1 fuzz_too=1 ;;
suites) suites_too=1 fuzz_too=0 ;;
fuzz) suites_too=0 fuzz_too=1 ;;
*) echo "usage: packaging/sanitize.sh [all|suites|fuzz]" >&2; exit 2 ;;
esac
jobs=$(nproc)

# timed NAME COMMAND…: runs COMMAND, prints how long it took, returns its status.
timed() { local t0=$SECONDS rc=0; "${@:2}" || rc=$?; echo "sanitize: $1: $((SECONDS - t0)) s" >&2; return $rc; }

# The suites of the engine (nix, matrix, recipes), of change sets, and of the CLI, on a build
# without the window (RG_GUI=OFF): the GUI suites, and tst_commandline's window starts, are left
# to the plain build (Qt's own allocations under LeakSanitizer are not ours to judge).
suites=(tst_nix_syntaxtree tst_nix_differential tst_evaluator tst_recipemodules
    tst_catalog tst_cpufeatureset tst_flagrepair tst_matrixspec tst_variantname tst_seedfixtures
    tst_analyzer tst_fuzzcorpus tst_mutations tst_pinalignment tst_pininventory tst_realworld
    tst_recipefacts tst_repositorysource tst_rules
    tst_changeplanner tst_changeset tst_fixpreservation tst_gitcommitter tst_pinbump
    tst_readmematrix
    tst_checkcommand tst_changecommand tst_pincommand)
regex="^($(IFS='|'; echo "${suites[*]}")|nix_store_init|recipegrid_without_window)\$"

# Allocation and free stacks of 8 frames instead of 30: a report still names where the memory
# came from, and the suites spend a tenth less time in the allocator's stack unwinding.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:malloc_context_size=8}
# QtTest's watchdog stops a test function after 5 minutes; instrumented code runs many times
# slower (tst_mutations' one function takes 2-3 minutes alone on 2 cores), so CTest's limit rules.
export QTEST_FUNCTION_TIMEOUT=${QTEST_FUNCTION_TIMEOUT:-1800000}
# UBSan only prints by default; here a report is a failure.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
if [ "$suites_too" = 1 ]; then
    # The parser's 2,000 guarded frames fit 1 MB of stack when optimised; at -O0 with ASan's
    # redzones clang's frames are many times larger, and the deepest inputs overflow the usual
    # 8 MB. 64 MB for every thread of the suites (glibc sizes new threads from this limit too).
    ulimit -s 65536 || echo "sanitize: cannot set a 64 MB stack (hard limit $(ulimit -H -s) KB)" >&2
    timed "asan configure" cmake --preset asan -DRG_SYNTAX_HIGHLIGHTING=OFF >/dev/null
    timed "asan build" cmake --build build/asan --parallel "$jobs" --target recipegrid "${suites[@]}"
    timed "asan tests" ctest --test-dir build/asan --output-on-failure --timeout 1800 -j "$jobs" \
        -R "$regex"
fi

[ "$fuzz_too" = 1 ] || exit 0
timed "fuzz configure" cmake --preset fuzz >/dev/null
timed "fuzz build" cmake --build build/fuzz --parallel "$jobs" --target fuzz_nix_parser
work=$(mktemp -d "${TMPDIR:-/tmp}/recipegrid-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
# A crash leaves its input in $work (-artifact_prefix) and fails the step; the input is printed
# so that CI's log is enough to add it to the corpus.
if ! timed "fuzz ${seconds} s" build/fuzz/tests/fuzz/fuzz_nix_parser -max_total_time="$seconds" \
    -artifact_prefix="$work/" -print_final_stats=1 "$work" tests/fuzz/corpus; then
    for found in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
        [ -e "$found" ] || continue
        echo "sanitize: $found (base64):" >&2
        base64 "$found" >&2
    done
    exit 1
fi
