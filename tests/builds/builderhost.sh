#!/usr/bin/env bash
# builderhost.sh DIR ADDRESS SHARED
# One remote build host for the builder tests, run by BuilderHosts inside network and mount
# namespaces of its own (unshare --net --mount): an SSH server (dropbear: a server that starts no
# system service when installed) on ADDRESS:22, logging in root with DIR/authorized_keys only, and
# a Nix store of its own at /nix (DIR/nix bound there), so what it builds is in DIR/nix/store and
# nowhere else. The host's Nix reads DIR/conf/nix.conf. /mnt/rg-builder holds the host's name
# (DIR/meta/rg-builder/name) and, as shared/, the folder SHARED every host sees, where fixture
# builds write what they saw.
# Waits for the link "eth0" its parent moves into the namespace, then serves in the foreground.
set -euo pipefail
dir=$1
address=$2
shared=$3
# Root's home is private to the host: the server reads authorized keys from it, and refuses a
# home others can write to.
mount -t tmpfs -o mode=0700 tmpfs /root
mkdir -p /root/.ssh
cp "$dir/authorized_keys" /root/.ssh/authorized_keys
mount --bind "$dir/nix" /nix
mount --bind "$dir/meta" /mnt
mount --bind "$shared" /mnt/rg-builder/shared
for _ in $(seq 200); do
    ip link show eth0 >/dev/null 2>&1 && break
    sleep 0.05
done
ip link set lo up
ip addr add "$address/24" dev eth0
ip link set eth0 up
export NIX_CONF_DIR=$dir/conf
# -e: the logins get this environment (NIX_CONF_DIR); -s: keys only.
exec dropbear -F -E -e -s -p "$address:22" -r "$dir/hostkey" -P "$dir/dropbear.pid"
