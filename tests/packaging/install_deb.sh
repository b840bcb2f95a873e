#!/usr/bin/env bash
# install_deb.sh BUILD_DIR DEMO_REPO
# The DEB as a user gets it: made from BUILD_DIR with CPack, installed with
# `apt-get install ./recipegrid_….deb` (so apt resolves its Depends from the archive), then the
# installed /usr/bin/recipegrid is run: --version, `check` on the demo (exit 1 with the demo's
# known findings), and the window under xvfb staying up 5 s. It changes the system it runs on,
# so packaging/debian-root.sh runs it inside its disposable root, not CTest on a host.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR DEMO_REPO}
demo=${2:?usage: $0 BUILD_DIR DEMO_REPO}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
[ "$(id -u)" -eq 0 ] || fail "installs a package: run as root (inside packaging/debian-root.sh's root)"

version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$version" ] || fail "no project version in $build/CMakeCache.txt"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
chmod 755 "$out" # apt reads local packages as the _apt user

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out" >"$out/cpack.log" 2>&1 \
    || { cat "$out/cpack.log" >&2; fail "cpack -G DEB failed"; }
shopt -s nullglob
debs=("$out"/recipegrid_*.deb)
[ ${#debs[@]} -eq 1 ] || fail "expected one recipegrid_*.deb in $out, found ${#debs[@]}"
deb=${debs[0]}
depends=$(dpkg-deb -f "$deb" Depends)
echo "package: $(basename "$deb")"
echo "Depends: $depends"

# Where the build used the distribution's KF6 SyntaxHighlighting, the package depends on it and
# ships no copy of its own.
if ldd "$build/app/recipegrid" | grep -q 'libKF6SyntaxHighlighting'; then
    grep -Eq '(^|[ ,])libkf6syntaxhighlighting6([ (,]|$)' <<<"$depends" \
        || fail "built with KF6 SyntaxHighlighting, but Depends does not name libkf6syntaxhighlighting6"
    if dpkg-deb -c "$deb" | grep -q 'SyntaxHighlighting'; then
        fail "the package ships a copy of KSyntaxHighlighting: $(dpkg-deb -c "$deb" | grep SyntaxHighlighting)"
    fi
fi

# A clean install each time: an installed package of the same version would not be replaced.
if dpkg-query -W -f='${Status}' recipegrid 2>/dev/null | grep -q 'install ok installed'; then
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -q recipegrid >/dev/null
fi
(cd "$out" && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "./$(basename "$deb")") \
    || fail "apt-get install ./$(basename "$deb") failed"
trap 'DEBIAN_FRONTEND=noninteractive apt-get purge -y -q recipegrid >/dev/null 2>&1 || true; rm -rf "$out"' EXIT
[ "$(command -v recipegrid)" = /usr/bin/recipegrid ] || fail "recipegrid is not /usr/bin/recipegrid after the install"
if ldd /usr/bin/recipegrid | grep -q 'not found'; then
    fail "unresolved libraries: $(ldd /usr/bin/recipegrid | grep 'not found')"
fi

got=$(recipegrid --version 2>&1) || fail "recipegrid --version exited $?: $got"
echo "--version: $got"
[ "$got" = "RecipeGrid $version" ] || fail "--version printed '$got', expected 'RecipeGrid $version'"

# The demo is made to have findings of every kind; these are the ones it is known for.
rc=0
report=$(cd / && QT_QPA_PLATFORM=offscreen recipegrid check "$demo" 2>&1) || rc=$?
[ $rc -eq 1 ] || { echo "$report" >&2; fail "recipegrid check on the demo exited $rc, expected 1 (errors found)"; }
grep -qF "recipegrid check: $demo" <<<"$report" || { echo "$report" >&2; fail "the report does not name $demo"; }
summary=$(grep -E '^[0-9]+ errors?, [0-9]+ warnings?, [0-9]+ notes?$' <<<"$report" | tail -n 1) \
    || { echo "$report" >&2; fail "the report has no summary line"; }
echo "check (exit $rc): $summary"
expected_summary="9 errors, 29 warnings, 0 notes"
[ "$summary" = "$expected_summary" ] || { echo "$report" >&2; fail "summary '$summary', expected '$expected_summary'"; }
known=("BROKEN (5)" "REDUNDANT (1)" "UNEXPECTED (1)" "IMPOSSIBLE (1)" "MISSING (21)" "OK (12)"
    missing-overlay pin-mismatch from-scratch-pattern torch-version-mismatch gpu-arch-mismatch
    'that is sm86, but the file builds sm89')
for finding in "${known[@]}"; do
    grep -qF -- "$finding" <<<"$report" || { echo "$report" >&2; fail "the report lacks the demo's known finding '$finding'"; }
done

# The window: under its own X server, it must still be running after 5 s, then it is closed.
xvfb-run -a -s "-screen 0 1600x1000x24" bash -c '
    cd /tmp
    recipegrid --demo >"$1/window.log" 2>&1 &
    pid=$!
    sleep 5
    if ! kill -0 "$pid" 2>/dev/null; then
        wait "$pid"; echo "FAIL: the window exited with $? within 5 s:" >&2
        cat "$1/window.log" >&2
        exit 1
    fi
    kill "$pid"; wait "$pid" 2>/dev/null || true
    echo "window: up for 5 s under xvfb"
' _ "$out" || fail "the window did not stay up for 5 s"
echo "PASS"
