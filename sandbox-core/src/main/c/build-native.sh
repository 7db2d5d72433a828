#!/bin/sh
# Builds the jail's static native helpers for linux-x86_64 and linux-aarch64 (run by Maven, see pom.xml).
#
#   build-native.sh SRC_DIR OUT_DIR REQUIRE_ALL
#
# The host's own architecture is built with `gcc` (CC overrides it): a missing gcc or a failed compilation
# fails the build. The other architecture needs its cross compiler (x86_64-linux-gnu-gcc or
# aarch64-linux-gnu-gcc, Debian packages gcc-<triple> + libc6-dev-<arch>-cross): when it is missing the
# build only warns, unless REQUIRE_ALL is true (release and CI builds). A binary newer than its source,
# its headers and this script is kept as it is.
set -eu

src_dir=$1
out_dir=$2
require_all=${3:-false}
cflags="-static -O2 -Wall -Wextra -Werror -s"
programs="sbx-reaper sbx-agent sbx-relay"

case "$(uname -m)" in
    x86_64 | amd64) host=x86_64 ;;
    aarch64 | arm64) host=aarch64 ;;
    *) host=$(uname -m) ;;
esac

status=0
for arch in x86_64 aarch64; do
    if [ "$arch" = "$host" ]; then
        cc=${CC:-gcc}
    else
        cc=$arch-linux-gnu-gcc
    fi
    if ! command -v "$cc" >/dev/null 2>&1; then
        if [ "$arch" = "$host" ] || [ "$require_all" = true ]; then
            echo "[ERROR] sandbox-core native: C compiler '$cc' for linux-$arch not found" >&2
            exit 1
        fi
        echo "[WARNING] sandbox-core native: '$cc' not found: no linux-$arch binaries in this build" \
            "(apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)" >&2
        continue
    fi
    mkdir -p "$out_dir/linux-$arch"
    for prog in $programs; do
        out=$out_dir/linux-$arch/$prog
        fresh=true
        for dep in "$src_dir/$prog.c" "$src_dir"/*.h "$0"; do
            if [ -f "$dep" ] && ! [ "$out" -nt "$dep" ]; then
                fresh=false
            fi
        done
        if [ -f "$out" ] && [ "$fresh" = true ]; then
            continue
        fi
        echo "[INFO] sandbox-core native: $cc $cflags -> linux-$arch/$prog"
        # shellcheck disable=SC2086
        if ! "$cc" $cflags -o "$out.tmp" "$src_dir/$prog.c"; then
            rm -f "$out.tmp"
            echo "[ERROR] sandbox-core native: compiling $prog for linux-$arch failed (the compiler said why above; -static needs libc6-dev)" >&2
            status=1
            continue
        fi
        mv -f "$out.tmp" "$out"
    done
    # the checksums the loader checks (AgentBinary): always rewritten, so they match what the jar ships
    (cd "$out_dir/linux-$arch" && sha256sum $programs > SHA256SUMS.tmp && mv -f SHA256SUMS.tmp SHA256SUMS)
done
exit $status
