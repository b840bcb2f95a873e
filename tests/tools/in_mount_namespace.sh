#!/usr/bin/env bash
# in_mount_namespace.sh PROGRAM [ARGS…]
# Runs PROGRAM in a mount namespace of its own, for suites that mount (a small tmpfs, a
# read-only bind mount): their mounts need no real root there and vanish with the namespace.
# An unprivileged user gets it through a user namespace in which it is root (unshare
# --map-root-user); real root inside a chroot, where user namespaces are refused, gets a plain
# mount namespace.
set -euo pipefail
if unshare --user --map-root-user --mount true 2>/dev/null; then
    exec unshare --user --map-root-user --mount -- "$@"
fi
if [ "$(id -u)" -eq 0 ]; then
    exec unshare --mount -- "$@"
fi
echo "in_mount_namespace: neither a user namespace (unshare --user) nor root is available" >&2
exit 1
