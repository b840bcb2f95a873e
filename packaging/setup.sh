#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine: installs what RecipeGrid needs, builds it,
# then either opens the app on the bundled demo repository (run) or runs every test (test).
# Idempotent: packages already installed and an existing build directory are reused.
#
#   packaging/setup.sh run    install, build, open the demo repository
#   packaging/setup.sh test   install, build, run the whole test suite through CTest
#   packaging/setup.sh deps   install only
set -euo pipefail

mode=${1:-run}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
build_dir=${RG_BUILD_DIR:-$top/build/dev}

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

build() {
    cmake -S "$top" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
    cmake --build "$build_dir" --parallel "$(nproc)"
}

# Nix as installed by Debian expects a nixbld group and a sandbox; tests build self-contained
# derivations as the current user, so they run single-user without either.
nix_env() {
    export NIX_CONFIG=$'build-users-group =\nsandbox = false\nsubstituters =\nexperimental-features = nix-command'
}

case "$mode" in
deps)
    install_packages
    ;;
run)
    install_packages
    build
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
        echo "setup: no display; starting under xvfb-run" >&2
        exec xvfb-run -a "$build_dir/app/recipegrid" --demo
    fi
    exec "$build_dir/app/recipegrid" --demo
    ;;
test)
    install_packages
    build
    nix_env
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
