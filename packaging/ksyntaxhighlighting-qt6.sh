#!/usr/bin/env bash
# KSyntaxHighlighting built against Qt 6, for Debian 12 (which ships it only for Qt 5, and a
# Qt 5 build must never be linked: two Qt majors in one process).
#
#   packaging/ksyntaxhighlighting-qt6.sh PREFIX
#
# Fetches Debian's own source package `ksyntax-highlighting` for the running suite with
# `apt-get source` through a PRIVATE apt configuration (a temporary deb-src entry derived from
# the system's configured mirror and keyring, private lists; the system's apt sources are only
# read), builds it with -DQT_MAJOR_VERSION=6 and installs it into PREFIX, which then holds
# KF5SyntaxHighlighting linked to Qt 6 only. Reuses PREFIX when its stamp and config file exist.
# Its build dependencies (packaging/ksyntaxhighlighting-build-deps.txt) are installed once the
# source was fetched. Fails with a message naming the step; setup.sh decides what follows.
set -euo pipefail

prefix=${1:?usage: $0 PREFIX}
source_package=ksyntax-highlighting
stamp=$prefix/.recipegrid-ksyntaxhighlighting-qt6

die() {
    echo "setup: ERROR: $*" >&2
    exit 1
}

installed_config() {
    compgen -G "$prefix/lib*/cmake/KF5SyntaxHighlighting/KF5SyntaxHighlightingConfig.cmake" \
        || compgen -G "$prefix/lib/*/cmake/KF5SyntaxHighlighting/KF5SyntaxHighlightingConfig.cmake"
}

reusable() {
    [ -f "$stamp" ] && installed_config >/dev/null
}

if reusable; then
    echo "setup: KSyntaxHighlighting for Qt 6: reusing $prefix ($(cat "$stamp"))"
    exit 0
fi

# deb822 stanza "Types: deb-src" for `codename`'s main component, from the first enabled
# `deb` entry of the system for exactly that suite (its URI and Signed-By are kept).
system_deb_src_stanza() {
    local codename=$1 sl="" sp="" f
    eval "$(apt-config shell sl Dir::Etc::sourcelist/f sp Dir::Etc::sourceparts/d)"
    local files=()
    [ -n "$sl" ] && [ -f "$sl" ] && files+=("$sl")
    if [ -n "$sp" ] && [ -d "$sp" ]; then
        for f in "$sp"/*.list "$sp"/*.sources; do
            [ -f "$f" ] && files+=("$f")
        done
    fi
    for f in "${files[@]}"; do
        case $f in
        *.sources)
            awk -v want="$codename" '
                function flush() {
                    if (!found && types ~ /(^| )deb( |$)/ && enabled != "no" &&
                        (" " suites " ") ~ (" " want " ") && (" " comps " ") ~ / main /) {
                        split(uris, u, " ")
                        print "Types: deb-src"; print "URIs: " u[1]; print "Suites: " want
                        print "Components: main"
                        if (signed != "") print "Signed-By:" signed
                        found = 1
                    }
                    types = uris = suites = comps = signed = enabled = field = ""
                }
                /^#/ { next }
                /^[ \t]*$/ { flush(); next }
                /^[ \t]/ { if (field == "signed-by") signed = signed "\n" $0; next }
                {
                    i = index($0, ":"); key = tolower(substr($0, 1, i - 1)); raw = substr($0, i + 1)
                    v = raw; gsub(/[ \t]+/, " ", v); sub(/^ /, "", v); sub(/ $/, "", v)
                    field = key
                    if (key == "types") types = v
                    else if (key == "uris") uris = v
                    else if (key == "suites") suites = v
                    else if (key == "components") comps = v
                    else if (key == "enabled") enabled = tolower(v)
                    else if (key == "signed-by") signed = raw
                }
                END { flush(); exit !found }' "$f" && return 0
            ;;
        *)
            awk -v want="$codename" '
                /^[ \t]*#/ || NF == 0 { next }
                $1 == "deb" {
                    i = 2; signed = ""
                    if ($2 ~ /^\[/) {
                        opts = ""
                        while (i <= NF) { opts = opts " " $i; if ($i ~ /\]$/) { i++; break }; i++ }
                        n = split(opts, o, /[][ \t]+/)
                        for (k = 1; k <= n; k++) if (o[k] ~ /^signed-by=/) signed = substr(o[k], 11)
                    }
                    comps = ""
                    for (k = i + 2; k <= NF; k++) comps = comps " " $k
                    if ($(i + 1) == want && (comps " ") ~ / main /) {
                        print "Types: deb-src"; print "URIs: " $i; print "Suites: " want
                        print "Components: main"
                        if (signed != "") print "Signed-By: " signed
                        found = 1; exit
                    }
                }
                END { exit !found }' "$f" && return 0
            ;;
        esac
    done
    return 1
}

mkdir -p "$(dirname "$prefix")"
work=$prefix.work
rm -rf "$work" "$prefix"
mkdir -p "$work/src"
apt_dir=$(mktemp -d)
trap 'rm -rf "$apt_dir"' EXIT
chmod 755 "$apt_dir" # apt downloads as the _apt user

codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release; cannot choose the suite for $source_package"
system_deb_src_stanza "$codename" >"$apt_dir/recipegrid-src.sources" \
    || die "no enabled 'deb' entry for suite '$codename' (component main) in the system's apt sources; cannot derive a deb-src entry for $source_package"
mkdir -p "$apt_dir/lists/partial"
apt_private=(
    -o "Dir::Etc::SourceList=$apt_dir/recipegrid-src.sources"
    -o "Dir::Etc::SourceParts=-"
    -o "Dir::State::Lists=$apt_dir/lists"
    -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
)
echo "setup: KSyntaxHighlighting for Qt 6: fetching Debian's source package $source_package with a private deb-src entry:"
sed 's/^/setup:   /' "$apt_dir/recipegrid-src.sources" | grep -v '^setup:   [ .]' || true
apt-get -q "${apt_private[@]}" update \
    || die "apt-get update with the private deb-src entry failed (see above)"
chmod 777 "$work/src"
(cd "$work/src" && apt-get -q "${apt_private[@]}" source --only-source "$source_package") \
    || die "apt-get source $source_package failed (see above)"
src=$(find "$work/src" -mindepth 1 -maxdepth 1 -type d -name "$source_package-*" | head -n 1)
[ -n "$src" ] || die "apt-get source $source_package unpacked nothing in $work/src (is dpkg-dev installed?)"
version=$(cd "$work/src" && ls "$source_package"_*.dsc | sed -e "s/^${source_package}_//" -e 's/\.dsc$//')

# Its build dependencies, only now that there is something to build.
mapfile -t build_deps < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$(dirname "$0")/ksyntaxhighlighting-build-deps.txt")
missing=()
for p in "${build_deps[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing the build dependencies of $source_package: ${missing[*]}"
    as_root=()
    [ "$(id -u)" -eq 0 ] || as_root=(sudo)
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        "${missing[@]}" || die "installing the build dependencies of $source_package failed"
fi

echo "setup: KSyntaxHighlighting for Qt 6: building $source_package $version against Qt 6 into $prefix"
cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DQT_MAJOR_VERSION=6 -DBUILD_TESTING=OFF -DBUILD_QCH=OFF -DCMAKE_SKIP_INSTALL_RPATH=ON \
    -DCMAKE_INSTALL_PREFIX="$prefix" \
    || die "configuring $source_package $version against Qt 6 failed (see above; build dependencies are in packaging/ksyntaxhighlighting-build-deps.txt)"
cmake --build "$work/build" --parallel "$(nproc)" || die "building $source_package $version against Qt 6 failed (see above)"
cmake --install "$work/build" >/dev/null || die "installing $source_package $version into $prefix failed"

config=$(installed_config | head -n 1) || die "$prefix has no KF5SyntaxHighlightingConfig.cmake after the build"
library=$(find "$prefix" -name 'libKF5SyntaxHighlighting.so.*' -type f | head -n 1)
[ -n "$library" ] || die "$prefix has no libKF5SyntaxHighlighting.so.* after the build"
needed=$(objdump -p "$library" | awk '$1 == "NEEDED" { print $2 }')
if grep -q '^libQt5' <<<"$needed" || ! grep -q '^libQt6' <<<"$needed"; then
    die "$library is not a Qt 6 only build (NEEDED: $(tr '\n' ' ' <<<"$needed"))"
fi
echo "$source_package $version, Qt 6" >"$stamp"
rm -rf "$work"
echo "setup: KSyntaxHighlighting for Qt 6: installed $source_package $version ($config)"
