#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine: installs what RecipeGrid needs, builds it,
# then either opens the app on the bundled demo repository (run) or runs every test (test).
# Idempotent: packages already installed and an existing build directory are reused.
#
#   packaging/setup.sh run    install, build, open the demo repository
#   packaging/setup.sh test   install, build, run the whole test suite through CTest
#   packaging/setup.sh deps   install only (packages, and KSyntaxHighlighting for Qt 6)
#
# KSyntaxHighlighting for Qt 6 comes from the distribution's KF6 package where there is one
# (libkf6syntaxhighlighting-dev); on Debian 12 it is built once from Debian's source package into
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

install_packages() {
    mapfile -t wanted < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/debian-packages.txt")
    missing=()
    for p in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "setup: installing ${missing[*]}"
        as_root apt-get update -q
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
    fi
}

has_candidate() {
    local candidate
    candidate=$(apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
    [ -n "$candidate" ] && [ "$candidate" != "(none)" ]
}

# KSyntaxHighlighting built against Qt 6 (never a Qt 5 build). Sets cmake_prefix_path.
install_ksyntaxhighlighting() {
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
    install_packages
    install_ksyntaxhighlighting
}

configure() {
    cmake -S "$top" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DRG_SYNTAX_HIGHLIGHTING="$syntax_highlighting" -DCMAKE_PREFIX_PATH="$cmake_prefix_path"
}

build() {
    configure
    cmake --build "$build_dir" --parallel "$(nproc)"
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
    # Nix creates its store and database on first use; doing it here, before CTest starts
    # suites in parallel, keeps a probe from racing another suite's first build.
    nix-instantiate --eval --expr 'builtins.nixVersion' >/dev/null
    cd "$build_dir"
    # GUI tests use the offscreen platform; the screenshot test wants a real X server.
    if [ -z "${DISPLAY:-}" ]; then
        exec xvfb-run -a -s "-screen 0 1600x1000x24" ctest --output-on-failure --timeout 600 -j "$(nproc)"
    fi
    exec ctest --output-on-failure --timeout 600 -j "$(nproc)"
    ;;
*)
    echo "usage: $0 run|test|deps" >&2
    exit 2
    ;;
esac
