#!/usr/bin/env bash
# One entry point for a fresh Debian machine (Debian 12 bookworm, Debian 13 trixie, and any later
# release that has the packages): installs what RecipeGrid needs, builds it, then either opens
# the app on the bundled demo repository (run) or runs every test (test).
# Idempotent: packages already installed and an existing build directory are reused.
#
#   packaging/setup.sh run    install, build, open the demo repository
#   packaging/setup.sh test   install, build, run the whole test suite through CTest
#   packaging/setup.sh deps   install only (packages, and KSyntaxHighlighting for Qt 6)
#
# RG_TEST_USER=NAME (test, run as root): the suite runs as that unprivileged user (made if
# missing), as a developer without root runs it: the build tree and Nix's single-user store are
# handed to that user first, which suits a disposable CI machine, not a workstation.
#
# Packages: packaging/debian-packages.txt, where @CLANG@ stands for the major version of the
# release's default clang (14 on Debian 12, 19 on Debian 13), so one list serves every release.
# KSyntaxHighlighting for Qt 6 comes from the distribution's KF6 package where there is one
# (libkf6syntaxhighlighting-dev, Debian 13 and later: missing there is an error); on Debian 12
# it is built once from Debian's source package into
# $RG_DEPS_DIR/ksyntaxhighlighting-qt6 (default build/deps) by packaging/ksyntaxhighlighting-qt6.sh
# and reused afterwards. The build is configured with RG_SYNTAX_HIGHLIGHTING=ON, so a missing
# highlighter fails the configure instead of silently using the built-in one; only when the
# library cannot be provided at all (its source unreachable) does setup say so in a banner and
# configure with OFF.
set -euo pipefail

mode=${1:-run}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
build_dir=${RG_BUILD_DIR:-$top/build/dev}
deps_dir=${RG_DEPS_DIR:-$top/build/deps}
ksyntax_prefix=$deps_dir/ksyntaxhighlighting-qt6
cmake_prefix_path=""
syntax_highlighting=ON

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Prints how long a step took; what a CI log needs to tell a slow mirror from a slow build.
# Not in a conditional context, so `set -e` still stops the script at a failing command inside.
timed() {
    local name=$1 t0
    shift
    t0=$(date +%s)
    "$@"
    echo "setup: $name: $(($(date +%s) - t0)) s" >&2
}

apt_updated=""
apt_update() {
    [ -n "$apt_updated" ] && return
    as_root apt-get update -q
    apt_updated=1
}

# The major version of the release's default clang (the `clang` package's version, e.g.
# 1:19.0-63 on Debian 13), for the release's own compiler-rt package.
# Sets clang_major.
find_clang_major() {
    local v
    v=$(apt-cache policy clang 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
    if [ -z "$v" ] || [ "$v" = "(none)" ]; then
        apt_update
        v=$(apt-cache policy clang 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
    fi
    v=${v#*:}
    v=${v%%.*}
    case $v in
    '' | *[!0-9]*)
        echo "setup: ERROR: cannot tell the release's clang version (apt-cache policy clang)" >&2
        exit 1
        ;;
    esac
    clang_major=$v
}

install_packages() {
    find_clang_major
    local clang=$clang_major
    mapfile -t wanted < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e "s/@CLANG@/$clang/g" "$here/debian-packages.txt")
    missing=()
    for p in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "setup: installing ${missing[*]}"
        apt_update
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
    fi
}

# Debian 13 (trixie) and later ship KF6 SyntaxHighlighting; Debian 12 and other systems may not.
release_has_kf6() {
    local id version codename
    id=$(. /etc/os-release && echo "${ID:-}")
    version=$(. /etc/os-release && echo "${VERSION_ID:-}")
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ "$id" = debian ] || return 1
    case $codename in
    trixie | forky | duke | sid) return 0 ;;
    esac
    [ -n "$version" ] && [ "${version%%.*}" -ge 13 ] 2>/dev/null
}

has_candidate() {
    local candidate
    candidate=$(apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
    [ -n "$candidate" ] && [ "$candidate" != "(none)" ]
}

# KSyntaxHighlighting built against Qt 6 (never a Qt 5 build). Sets cmake_prefix_path.
install_ksyntaxhighlighting() {
    if release_has_kf6 && ! has_candidate libkf6syntaxhighlighting-dev; then
        apt_update
        if ! has_candidate libkf6syntaxhighlighting-dev; then
            echo "setup: ERROR: this release ships libkf6syntaxhighlighting-dev, but apt has no candidate for it;" >&2
            echo "setup: ERROR: check the apt sources (component main) and run apt-get update." >&2
            exit 1
        fi
    fi
    if has_candidate libkf6syntaxhighlighting-dev; then
        if ! dpkg-query -W -f='${Status}' libkf6syntaxhighlighting-dev 2>/dev/null | grep -q 'install ok installed'; then
            echo "setup: installing libkf6syntaxhighlighting-dev"
            as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends libkf6syntaxhighlighting-dev
        fi
        return
    fi
    # One builder at a time per deps directory; a second run finds the stamp and returns at once.
    mkdir -p "$deps_dir"
    (
        flock 9 && \
        "$here/ksyntaxhighlighting-qt6.sh" "$ksyntax_prefix"
    ) 9>"$deps_dir/.lock" || {
        # Said loudly, and the build is configured with the built-in highlighter explicitly
        # (OFF, not AUTO), so About and the configure line name what is really used.
        echo "setup: ########################################################################" >&2
        echo "setup: WARNING: KSyntaxHighlighting for Qt 6 could not be provided (see above)." >&2
        echo "setup: WARNING: building with RecipeGrid's built-in Nix highlighter instead." >&2
        echo "setup: ########################################################################" >&2
        syntax_highlighting=OFF
        return
    }
    cmake_prefix_path=$ksyntax_prefix
}

install_deps() {
    timed "packages" install_packages
    timed "KSyntaxHighlighting" install_ksyntaxhighlighting
}

# Optimised as the dev preset (-O2, asserts off) but without debug information, which costs a
# third of the compile time and most of the link time on a 2-core machine; who debugs uses
# `cmake --preset dev`. A unity build (eight sources of a library per compile): parsing Qt's and
# the standard library's headers is most of each source's compile time, and a batch parses them
# once, which cuts a clean build by a third to a half on 2 cores. Incremental work is quicker
# file by file, which is why the dev preset is not a unity build.
configure() {
    cmake -S "$top" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_UNITY_BUILD=ON \
        -DRG_SYNTAX_HIGHLIGHTING="$syntax_highlighting" -DCMAKE_PREFIX_PATH="$cmake_prefix_path"
}

build() {
    timed "configure" configure
    timed "build" cmake --build "$build_dir" --parallel "$(nproc)"
}

# Nix as installed by Debian expects a nixbld group and a sandbox; tests build self-contained
# derivations as the current user, so they run single-user without either.
nix_env() {
    export NIX_CONFIG=$'build-users-group =\nsandbox = false\nsubstituters =\nexperimental-features = nix-command'
}

case "$mode" in
deps)
    install_deps
    ;;
run)
    install_deps
    build
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
        echo "setup: no display; starting under xvfb-run" >&2
        exec xvfb-run -a "$build_dir/app/recipegrid" --demo
    fi
    exec "$build_dir/app/recipegrid" --demo
    ;;
test)
    install_deps
    build
    nix_env
    as_user=()
    if [ -n "${RG_TEST_USER:-}" ]; then
        [ "$(id -u)" -eq 0 ] || { echo "setup: RG_TEST_USER needs root (to hand over the build)" >&2; exit 1; }
        id "$RG_TEST_USER" >/dev/null 2>&1 || useradd -m "$RG_TEST_USER"
        # Subordinate ids: the builder suites start SSH servers in a user namespace, which
        # needs more than the user's own id (useradd gives a range where /etc/subuid exists).
        grep -q "^$RG_TEST_USER:" /etc/subuid 2>/dev/null ||
            usermod --add-subuids 300000-365535 "$RG_TEST_USER"
        grep -q "^$RG_TEST_USER:" /etc/subgid 2>/dev/null ||
            usermod --add-subgids 300000-365535 "$RG_TEST_USER"
        # The user writes CTest's logs and screenshots into the build tree, and is Nix's
        # single user: the store and its database are its own.
        chown -R "$RG_TEST_USER": "$build_dir"
        # The suites read the fixtures in the source tree: every directory above it must let
        # the user pass (a clone under /root would not). Passing only, never listing.
        dir=$top
        while [ "$dir" != / ]; do
            runuser -u "$RG_TEST_USER" -- test -x "$dir" || { chmod o+x "$dir"; echo "setup: o+x on $dir for $RG_TEST_USER" >&2; }
            dir=$(dirname "$dir")
        done
        mkdir -p /nix/store /nix/var/nix
        chown -R "$RG_TEST_USER": /nix
        home=$(getent passwd "$RG_TEST_USER" | cut -d: -f6)
        as_user=(runuser -u "$RG_TEST_USER" -- env HOME="$home" USER="$RG_TEST_USER" LOGNAME="$RG_TEST_USER")
        echo "setup: running the tests as $RG_TEST_USER (uid $(id -u "$RG_TEST_USER"))" >&2
    fi
    # Nix creates its store and database on first use; doing it here, before CTest starts
    # suites in parallel, keeps a probe from racing another suite's first build.
    "${as_user[@]}" nix-instantiate --eval --expr 'builtins.nixVersion' >/dev/null
    cd "$build_dir"
    # GUI tests use the offscreen platform; the X11 screenshot test starts an X server of its
    # own, and the outer one is for anything else that wants a display.
    runner=("${as_user[@]}" ctest --output-on-failure --timeout 600 -j "$(nproc)")
    [ -n "${DISPLAY:-}" ] || runner=("${as_user[@]}" xvfb-run -a -s "-screen 0 1600x1000x24" "${runner[@]:${#as_user[@]}}")
    t0=$(date +%s)
    rc=0
    "${runner[@]}" || rc=$?
    echo "setup: ctest: $(($(date +%s) - t0)) s (exit $rc)" >&2
    exit $rc
    ;;
*)
    echo "usage: $0 run|test|deps" >&2
    exit 2
    ;;
esac
