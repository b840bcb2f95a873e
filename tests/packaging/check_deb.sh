#!/usr/bin/env bash
# check_deb.sh CPACK BUILD_DIR DEMO_REPO VERSION
# Builds the DEB of BUILD_DIR into a scratch folder of this run's own, extracts it, runs the
# installed recipegrid. The folder is removed on success and kept (and named) on failure.
set -euo pipefail
cpack=$1 build=$2 demo=$3 version=$4

# A fixed folder would let two runs (CTest from two build trees, CI beside a developer) delete
# each other's package halfway.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/recipegrid-deb.XXXXXX")
trap 'echo "scratch folder kept: $scratch" >&2' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

mkdir -p "$scratch/out" "$scratch/root"
[ -x "$build/app/recipegrid" ] || fail "$build/app/recipegrid is not built"

# -B keeps CPack's staging and the package out of the build tree; DEB only (TGZ is the same tree).
"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$scratch/out" >"$scratch/cpack.log" 2>&1 \
    || { cat "$scratch/cpack.log" >&2; fail "cpack -G DEB failed"; }
shopt -s nullglob
debs=("$scratch"/out/*.deb)
[ ${#debs[@]} -eq 1 ] || fail "expected one .deb in $scratch/out, found ${#debs[@]}"
deb=${debs[0]}
echo "package: $(basename "$deb")"
dpkg-deb --info "$deb" | sed -n 's/^ \(Package\|Version\|Depends\):/  \1:/p'

depends=$(dpkg-deb -f "$deb" Depends)
[ -n "$depends" ] || fail "the package has no Depends (dpkg-shlibdeps did not run?)"
grep -q 'libqt6core6' <<<"$depends" || fail "Depends does not name Qt 6 (libqt6core6): $depends"
# The Qt 5 build of KSyntaxHighlighting (libkf5syntaxhighlighting5) must never be pulled in.
if grep -Eq 'libkf5syntaxhighlighting5|libqt5' <<<"$depends"; then
    fail "Depends names a Qt 5 library: $depends"
fi

dpkg -x "$deb" "$scratch/root"
bin=$scratch/root/usr/bin/recipegrid
[ -x "$bin" ] || fail "the package has no usr/bin/recipegrid"

# Nothing installed may point back into a build tree, and every library the binary uses must
# resolve (a shipped one from the extracted package, the rest from the system).
while IFS= read -r -d '' elf; do
    head -c 4 "$elf" | grep -q 'ELF' || continue
    runpath=$(readelf -d "$elf" | awk -F'[][]' '/\((RUNPATH|RPATH)\)/ { print $2 }')
    echo "RUNPATH of ${elf#"$scratch/root"}: ${runpath:-(none)}"
    case ":$runpath:" in
    *"$build"*|*/build/deps/*) fail "${elf#"$scratch/root"} has a RUNPATH into a build tree: $runpath" ;;
    esac
done < <(find "$scratch/root" -type f -print0)
libs=$(env -u LD_LIBRARY_PATH ldd "$bin")
if grep -q 'not found' <<<"$libs"; then
    fail "unresolved libraries: $(grep 'not found' <<<"$libs")"
fi
if grep -q 'libQt5' <<<"$libs"; then
    fail "the installed binary loads Qt 5: $(grep libQt5 <<<"$libs")"
fi
ksh=$(grep -E 'libKF[56]SyntaxHighlighting' <<<"$libs" || true)
if [ -n "$ksh" ]; then
    echo "KSyntaxHighlighting: $ksh"
    resolved=$(readlink -f "$(awk '{ print $3 }' <<<"$ksh")")
    shipped=$(dpkg-deb -c "$deb" | grep -E 'libKF[56]SyntaxHighlighting' || true)
    case $resolved in
    "$(readlink -f "$scratch/root")/usr/lib/recipegrid/"*)
        # Our own build (Debian 12): shipped in the package.
        [ -n "$shipped" ] || fail "KSyntaxHighlighting resolves into the package but the package lists no copy"
        ;;
    /usr/lib/* | /lib/*)
        # A distribution package (Debian 13: libkf6syntaxhighlighting6): a dependency, no copy.
        owner=$(dpkg -S "$resolved" 2>/dev/null | head -n 1 | cut -d: -f1) \
            || fail "KSyntaxHighlighting resolves to $resolved, which no distribution package owns and the package does not ship"
        [ -n "$owner" ] || fail "KSyntaxHighlighting resolves to $resolved, which no distribution package owns"
        grep -Eq "(^|[ ,|])$owner([ (,|]|$)" <<<"$depends" \
            || fail "KSyntaxHighlighting comes from $owner, which Depends does not name: $depends"
        [ -z "$shipped" ] || fail "the package ships a copy of KSyntaxHighlighting beside depending on $owner: $shipped"
        echo "KSyntaxHighlighting: dependency on $owner"
        ;;
    *) fail "KSyntaxHighlighting resolves outside the package and the system: $resolved" ;;
    esac
fi

out=$(env -u LD_LIBRARY_PATH "$bin" --version 2>&1) || fail "recipegrid --version exited $?: $out"
echo "--version: $out"
grep -qx "RecipeGrid $version" <<<"$out" || fail "--version printed '$out', expected 'RecipeGrid $version'"

# The demo is made with broken recipes: `check` must report them and exit 1 (findings), not 0
# (clean) nor 2 (usage or I/O error).
rc=0
out=$(env -u LD_LIBRARY_PATH "$bin" check "$demo" 2>&1) || rc=$?
[ $rc -eq 1 ] || { echo "$out" >&2; fail "recipegrid check on the demo exited $rc, expected 1 (findings)"; }
grep -qF "recipegrid check: $demo" <<<"$out" || { echo "$out" >&2; fail "check output does not name $demo"; }
summary=$(grep -E '^[0-9]+ errors?, [0-9]+ warnings?, [0-9]+ notes?$' <<<"$out" | tail -n 1) \
    || { echo "$out" >&2; fail "check output has no summary line"; }
echo "check (exit $rc): $summary"
[ "${summary%% *}" -gt 0 ] || { echo "$out" >&2; fail "the demo's broken recipes gave no errors: $summary"; }
grep -qE 'BROKEN \([1-9][0-9]*\)' <<<"$out" || { echo "$out" >&2; fail "check lists no BROKEN recipes for the demo"; }
trap - EXIT
rm -rf "$scratch"
echo "PASS"
