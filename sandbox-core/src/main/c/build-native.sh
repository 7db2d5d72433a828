#!/bin/sh
# Builds the jail's static native helpers for linux-x86_64 and linux-aarch64 (run by Maven, see pom.xml).
#
#   build-native.sh SRC_DIR OUT_DIR REQUIRE_ALL GEN_DIR JAVA_DIR
#
# Each program is linked from its units (the lists below). The protocols' constants are generated first
# (gen-protocol.sh) from the Java classes that define them, under JAVA_DIR (src/main/java/dev/sandbox4j/core):
# AgentProtocol.java into GEN_DIR/sbx-protocol.h (SBX_*), egress/RelayMux.java into GEN_DIR/sbx-relay-protocol.h
# (RELAY_*).
#
# The host's own architecture is built with `gcc` (CC overrides it): a missing gcc or a failed compilation
# fails the build. The other architecture needs its cross compiler (x86_64-linux-gnu-gcc or
# aarch64-linux-gnu-gcc, Debian packages gcc-<triple> + libc6-dev-<arch>-cross): when it is missing the
# build only warns, unless REQUIRE_ALL is true (release and CI builds). A binary newer than its source,
# its units, every header (the generated ones included) and these scripts is kept as it is.
set -eu

# absolute: each compiler runs in the source directory, with the units' plain names
src_dir=$(cd "$1" && pwd)
out_dir=$(mkdir -p "$2" && cd "$2" && pwd)
require_all=${3:-false}
gen_dir=$(mkdir -p "$4" && cd "$4" && pwd)
java_dir=$5
cflags="-static -O2 -Wall -Wextra -Werror -s"
programs="sbx-reaper sbx-agent sbx-relay"

# the translation units of each program
units() {
    case $1 in
        sbx-agent) echo "sbx-agent.c sbx-frame.c sbx-ring.c sbx-watch.c sbx-fs.c sbx-fs-write.c sbx-fs-tree.c sbx-listen.c sbx-pty.c sbx-net.c sbx-lease.c" ;;
        sbx-reaper) echo "sbx-reaper.c sbx-pty.c" ;;
        *) echo "$1.c" ;;
    esac
}

sh "$src_dir/gen-protocol.sh" "$java_dir/AgentProtocol.java" SBX_ "$gen_dir/sbx-protocol.h"
sh "$src_dir/gen-protocol.sh" "$java_dir/egress/RelayMux.java" RELAY_ "$gen_dir/sbx-relay-protocol.h"
headers=$(cd "$src_dir" && echo *.h)

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
        for dep in $(units "$prog") $headers; do
            if ! [ "$out" -nt "$src_dir/$dep" ]; then
                fresh=false
            fi
        done
        # the generated headers are rewritten only when the protocols' constants change
        for dep in "$gen_dir"/*.h "$0" "$src_dir/gen-protocol.sh"; do
            if ! [ "$out" -nt "$dep" ]; then
                fresh=false
            fi
        done
        if [ -f "$out" ] && [ "$fresh" = true ]; then
            continue
        fi
        echo "[INFO] sandbox-core native: $cc $cflags -> linux-$arch/$prog"
        # shellcheck disable=SC2086
        if ! (cd "$src_dir" && "$cc" $cflags -I"$gen_dir" -o "$out.tmp" $(units "$prog")); then
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
