#!/usr/bin/env bash
# in_builder_namespace.sh PROGRAM [ARGS…]
# Runs PROGRAM where it can start remote builder hosts (tests/builds/builderhost.sh): in network,
# mount and PID namespaces of its own, with a fresh, empty Nix store on a tmpfs at /nix. The
# builders' network links, mounts and processes live inside them, so whatever happens to PROGRAM
# (a failed assertion, a crash, CTest's timeout) the kernel removes all of it when the namespace's
# first process exits: nothing is left on the machine.
# An unprivileged user gets the namespaces through a user namespace in which it is root, with its
# subordinate ids (/etc/subuid, /etc/subgid, newuidmap from the uidmap package) mapped as well:
# an SSH server changes groups at login, which a namespace mapping one id refuses. Root (also
# inside a chroot, where user namespaces are refused) gets them directly.
set -euo pipefail
if [ -z "${RG_IN_BUILDER_NAMESPACE:-}" ]; then
    export RG_IN_BUILDER_NAMESPACE=1
    # The fresh store is mounted over /nix, which must exist; Nix makes it on first use, so a
    # machine that never ran Nix has none yet.
    if [ ! -d /nix ]; then
        if [ "$(id -u)" -eq 0 ]; then
            mkdir /nix
        else
            echo "in_builder_namespace: /nix does not exist; make it as root (mkdir /nix)" >&2
            exit 1
        fi
    fi
    flags=(--net --mount --pid --fork --kill-child --mount-proc)
    if [ "$(id -u)" -eq 0 ]; then
        exec unshare "${flags[@]}" -- bash "$0" "$@"
    fi
    user=$(id -un)
    subuid=$(awk -F: -v u="$user" '$1 == u { print $2 ",1," $3; exit }' /etc/subuid 2>/dev/null || true)
    subgid=$(awk -F: -v u="$user" '$1 == u { print $2 ",1," $3; exit }' /etc/subgid 2>/dev/null || true)
    if [ -z "$subuid" ] || [ -z "$subgid" ] || ! command -v newuidmap >/dev/null; then
        echo "in_builder_namespace: $user needs subordinate ids in /etc/subuid and /etc/subgid" \
            "and newuidmap (package uidmap), or root" >&2
        exit 1
    fi
    exec unshare --user --map-root-user --map-users="$subuid" --map-groups="$subgid" \
        "${flags[@]}" -- bash "$0" "$@"
fi
# PID 1 of the namespace from here on: it reaps what the builders leave and, by exiting, ends
# every process inside.
ip link set lo up
mount -t tmpfs -o mode=0755 tmpfs /nix
"$@" &
program=$!
trap 'kill -TERM "$program" 2>/dev/null' TERM INT
rc=0
wait "$program" || rc=$?
exit $rc
