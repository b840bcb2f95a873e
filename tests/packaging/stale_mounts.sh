#!/usr/bin/env bash
# stale_mounts.sh DEBIAN_ROOT_SCRIPT
# What a Debian root run killed outright (SIGKILL: no trap runs) leaves behind: its mounts below
# the root and below a half-made root. packaging/debian-root.sh takes them down before anything
# else, refuses while a process still runs inside the root, and touches no mount elsewhere, also
# when the root does not exist yet. Runs in a mount namespace of its own
# (tests/tools/in_mount_namespace.sh): nothing mounted here reaches the machine.
set -euo pipefail
script=$1
work=$(mktemp -d)
root=$work/root
below() { awk -v r="$1" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts; }
cleanup() {
    pkill -KILL -f "$root/bin/busybox" 2>/dev/null || true
    for m in $(below "$work" | sort -r); do umount -l "$m"; done
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
mount -t tmpfs tmpfs "$work" # /tmp may not take mounts below it in every namespace
mkdir -p "$root/proc" "$root/tmp" "$root/bin" "$root.partial/sys" "$work/elsewhere"
cp /bin/busybox "$root/bin/busybox"
mount --bind "$root" "$root"
mount -t tmpfs tmpfs "$root/tmp"
mount -t tmpfs tmpfs "$root.partial/sys"
mount -t tmpfs tmpfs "$work/elsewhere"
run() { RG_DEBIAN_ROOT=$1 bash "$script" trixie unmount >"$work/out" 2>&1; }

# A root that does not exist has nothing below it: every mount stays.
run "$work/none/root" || fail "exit $? for a root that does not exist: $(cat "$work/out")"
[ "$(below "$work" | wc -l)" -eq 5 ] || fail "mounts went with a root that does not exist"

# Something still runs inside: another run holds the root, and its mounts stay.
chroot "$root" /bin/busybox sleep 60 &
sleeper=$!
for _ in $(seq 100); do
    [ "$(readlink "/proc/$sleeper/root" 2>/dev/null)" = "$(readlink -f "$root")" ] && break
    sleep 0.05
done
if run "$root"; then fail "unmounted while a process ran inside: $(cat "$work/out")"; fi
grep -q "another run is using $root" "$work/out" || fail "no reason given: $(cat "$work/out")"
[ -n "$(below "$root")" ] || fail "the mounts of a root in use were taken down"

# Once it ends, the mounts are a killed run's: all below the root and the half-made root go,
# and the one elsewhere stays.
kill -KILL "$sleeper"
wait "$sleeper" 2>/dev/null || true
run "$root" || fail "exit $?: $(cat "$work/out")"
grep -q "unmounting what a killed run left below $root" "$work/out" || fail "$(cat "$work/out")"
[ -z "$(below "$root")" ] || fail "left below the root: $(below "$root")"
[ -z "$(below "$root.partial")" ] || fail "left below the half-made root: $(below "$root.partial")"
[ "$(below "$work/elsewhere")" = "$work/elsewhere" ] || fail "a mount elsewhere went too"
echo "PASS: stale mounts of a killed run are taken down, and only they"
