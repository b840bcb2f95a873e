#!/usr/bin/env bash
# Runs the README's commands in a Debian RELEASE root (debootstrap, minbase) on a Debian host:
# how CI proves RecipeGrid where most users are (newer Qt, g++, Nix, and KF6 SyntaxHighlighting
# from the archive) on a machine that runs an older release.
#
#   packaging/debian-root.sh RELEASE run    install, build, open the demo inside the root
#   packaging/debian-root.sh RELEASE test   install, build, run every test inside the root, then
#                                           install the built DEB there with apt and run it
#   packaging/debian-root.sh RELEASE prepare  only make the root and install the packages, so
#                                           CI can do it while another leg builds
#   packaging/debian-root.sh RELEASE unmount  only take down the mounts a killed run left (every
#                                           other mode does this first)
#
# The root lives in $RG_DEBIAN_ROOT (default build/debian-RELEASE) and is reused when it is
# complete; the checkout is copied into it on every run, and it builds in its own build directory
# inside the root, never the host's build/dev. /proc, /sys, /dev, /dev/pts (Nix builds need a
# pseudoterminal) and a tmpfs /tmp are mounted for the run and unmounted by a trap whatever
# happens, so a failed run leaves no mount behind.
#
# Host needs: root, a Debian host, and the package debootstrap (installed here when missing).
# Everything else is installed inside the root by packaging/setup.sh from its package list.
set -euo pipefail

release=${1:-}
mode=${2:-}
if [ -z "$release" ] || ! [[ $mode =~ ^(run|test|prepare|unmount)$ ]]; then
    echo "usage: $0 RELEASE run|test|prepare|unmount" >&2
    exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
root=${RG_DEBIAN_ROOT:-$top/build/debian-$release}
mirror=${RG_DEBIAN_MIRROR:-http://deb.debian.org/debian}
stamp=$root/.recipegrid-root
# Inside the root.
src=/recipegrid/src
build=/recipegrid/build

[ "$(id -u)" -eq 0 ] || { echo "debian-root: must run as root (debootstrap, mount, chroot)" >&2; exit 1; }

started=$(date +%s)
mounted=0
current_step=""
step_started=0
# Not in a conditional context, so `set -e` still stops at a failing command inside a step; the
# EXIT trap then names the step and its time.
step() {
    current_step=$1
    shift
    step_started=$(date +%s)
    echo "debian-root: ==> $current_step"
    "$@"
    echo "debian-root: <== $current_step: $(($(date +%s) - step_started)) s"
    current_step=""
}

# Every mount point below the root (or below DIR), deepest first, as the kernel sees them now.
mounts_below() {
    local r
    r=$(readlink -f "${1:-$root}") || return 0
    # A directory not made yet has nothing below it; "" or "/" would take in every mount.
    [ -d "$r" ] && [ "$r" != / ] || return 0
    awk -v r="$r" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | sort -r
}

# The processes whose root directory is the root (or DIR).
processes_in() {
    local pid r
    r=$(readlink -f "${1:-$root}") || return 0
    [ -d "$r" ] && [ "$r" != / ] || return 0
    for pid in /proc/[0-9]*; do
        pid=${pid#/proc/}
        [ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$r" ] && echo "$pid"
    done
    return 0
}

# A run killed outright (SIGKILL, a closed session) runs no trap and leaves its mounts: /dev
# among them is the host's own, which a later `rm -rf build` would empty. With nothing running
# inside, they are that run's and are taken down before anything else; with something running,
# another run holds the root.
stale_mounts() {
    local dir m
    for dir in "$root" "$root.partial"; do
        [ -n "$(mounts_below "$dir")" ] || continue
        if [ -n "$(processes_in "$dir")" ]; then
            echo "debian-root: another run is using $dir (processes $(processes_in "$dir" | tr '\n' ' '))" >&2
            return 1
        fi
        echo "debian-root: unmounting what a killed run left below $dir"
        for m in $(mounts_below "$dir"); do
            umount "$m" 2>/dev/null || umount -l "$m"
        done
    done
}

cleanup() {
    local rc=$? pid m
    trap - EXIT INT TERM HUP
    set +e # cleaning up goes on past any failure
    [ -z "$current_step" ] || echo "debian-root: <== $current_step: FAILED (exit $rc) after $(($(date +%s) - step_started)) s" >&2
    # Only what this run mounted and started: before that, the mounts may be another run's.
    if [ "$mounted" = 1 ]; then
        # Whatever the run left inside the root (an X server, a build) would keep a mount busy.
        for pid in $(processes_in); do
            kill -KILL "$pid" 2>/dev/null
        done
        for m in $(mounts_below); do
            umount "$m" 2>/dev/null || umount -l "$m" || echo "debian-root: cannot unmount $m" >&2
        done
    fi
    if [ "$mounted" = 1 ] && [ -n "$(mounts_below)" ]; then
        echo "debian-root: ERROR: mounts left below $root:" >&2
        mounts_below >&2
        rc=1
    fi
    echo "debian-root: total $(($(date +%s) - started)) s (exit $rc)"
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

host_debootstrap() {
    command -v debootstrap >/dev/null && return
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap
}

# Built beside its final place and moved there only when complete, so an interrupted run is
# not mistaken for a reusable root.
make_root() {
    if [ -f "$stamp" ]; then
        echo "debian-root: reusing $root ($(cat "$stamp"))"
        return
    fi
    local partial=$root.partial
    rm -rf "$partial" "$root"
    mkdir -p "$(dirname "$root")"
    debootstrap --variant=minbase "$release" "$partial" "$mirror"
    mv "$partial" "$root"
    echo "$release minbase from $mirror, $(date -u +%FT%TZ)" >"$stamp"
}

mount_all() {
    mounted=1
    # The root bound onto itself, private: inside the chroot "/" is then a mount point of its
    # own, so a suite can take a mount namespace there (unshare --mount makes "/" private, which
    # fails on a directory that is not a mount point) and nothing it mounts reaches the host.
    mount --bind "$root" "$root"
    mount --make-private "$root"
    mount -t proc proc "$root/proc"
    mount -t sysfs sysfs "$root/sys"
    # Slaves: on a host whose mounts are shared (systemd), a mount below the bind must not
    # propagate back onto the host's /dev.
    mount --bind /dev "$root/dev"
    mount --make-slave "$root/dev"
    mount --bind /dev/pts "$root/dev/pts"
    mount --make-slave "$root/dev/pts"
    mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
    cp -L /etc/resolv.conf "$root/etc/resolv.conf"
}

# The checkout as it is (uncommitted changes included), without the host's build tree; file
# times are kept so the build inside the root is incremental across runs.
copy_checkout() {
    rm -rf "$root$src"
    mkdir -p "$root$src"
    tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -C "$root$src" -xf -
}

# In the background and waited for: bash runs a trap only once its foreground command ends, so a
# TERM to this script would otherwise wait for a whole build before the cleanup.
in_root() {
    chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" CI="${CI:-}" \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        RG_BUILD_DIR="$build" RG_DEPS_DIR=/recipegrid/deps "$@" &
    wait $!
}

step "no mount left by a killed run" stale_mounts
[ "$mode" != unmount ] || exit 0
step "host: debootstrap available" host_debootstrap
step "debootstrap $release (minbase) into $root" make_root
step "mount the root, /proc /sys /dev /dev/pts /tmp" mount_all
step "copy the checkout to $src" copy_checkout
case "$mode" in
prepare)
    step "packaging/setup.sh deps" in_root bash "$src/packaging/setup.sh" deps
    ;;
run)
    step "packaging/setup.sh run" in_root bash "$src/packaging/setup.sh" run
    ;;
test)
    step "packaging/setup.sh test" in_root bash "$src/packaging/setup.sh" test
    step "install the DEB with apt and run it" \
        in_root bash "$src/tests/packaging/install_deb.sh" "$build" "$src/resources/demo/repository"
    ;;
esac
