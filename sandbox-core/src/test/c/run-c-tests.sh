#!/bin/sh
# Compiles and runs the agent's C unit tests (test-agent: frames, codecs, the binary; test-fs: its file operations) (run by Maven's test phase, see pom.xml; -DskipTests skips them).
#
#   run-c-tests.sh MAIN_C_DIR TEST_C_DIR GEN_DIR GOLDEN_DIR BUILD_DIR NATIVE_DIR [SKIP]
#
# The tests link the agent's units from MAIN_C_DIR with the host's gcc (CC overrides it), with AddressSanitizer and
# UBSan where the compiler has them, and run against the golden frames in GOLDEN_DIR and the agent binary this build
# made for the host (NATIVE_DIR/linux-<arch>/sbx-agent), and the other architecture's under qemu-user when both are
# there. The last line of their output is "N passed, N failed"; any
# failure, or a test that does not compile, fails the build.
set -eu

main_dir=$1
test_dir=$2
gen_dir=$3
golden_dir=$4
build_dir=$5
native_dir=$6
if [ "${7:-false}" = true ]; then
    echo "[INFO] sandbox-core C unit tests: skipped"
    exit 0
fi
cc=${CC:-gcc}
case "$(uname -m)" in
    x86_64 | amd64) arch=x86_64 other=aarch64 ;;
    aarch64 | arm64) arch=aarch64 other=x86_64 ;;
    *) arch=$(uname -m) other= ;;
esac
# the other architecture's agent runs under qemu-user when the build made it and qemu is installed
cross=
if [ -n "$other" ] && [ -x "$native_dir/linux-$other/sbx-agent" ]; then
    for q in "qemu-$other-static" "qemu-$other"; do
        if command -v "$q" >/dev/null 2>&1; then
            cross="$native_dir/linux-$other/sbx-agent $(command -v "$q")"
            break
        fi
    done
fi

mkdir -p "$build_dir"
cflags="-O1 -g -Wall -Wextra -Werror -I$gen_dir -I$main_dir -I$test_dir"
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
echo 'int main(void) { return 0; }' > "$build_dir/probe.c"
# shellcheck disable=SC2086
if ! "$cc" $sanitize -o "$build_dir/probe" "$build_dir/probe.c" >/dev/null 2>&1 || ! "$build_dir/probe"; then
    echo "[WARNING] sandbox-core C unit tests: '$cc' has no AddressSanitizer/UBSan here: the tests run without them" >&2
    sanitize=
fi
# shellcheck disable=SC2086
"$cc" $cflags $sanitize -o "$build_dir/test-agent" "$test_dir/test-agent.c" "$main_dir/sbx-frame.c" "$main_dir/sbx-ring.c"
# shellcheck disable=SC2086
"$cc" $cflags $sanitize -o "$build_dir/test-fs" "$test_dir/test-fs.c" "$main_dir/sbx-fs.c" "$main_dir/sbx-fs-write.c" "$main_dir/sbx-fs-tree.c" "$main_dir/sbx-net.c" \
    "$main_dir/sbx-frame.c"
echo "[INFO] sandbox-core C unit tests: $build_dir/test-agent"
# shellcheck disable=SC2086
ASAN_OPTIONS=detect_leaks=1 "$build_dir/test-agent" "$golden_dir" "$native_dir/linux-$arch/sbx-agent" $cross
echo "[INFO] sandbox-core C unit tests: $build_dir/test-fs"
# the operations run in forked children that end with _exit (as in the agent): their buffers are not leaks
TMPDIR="$build_dir" ASAN_OPTIONS=detect_leaks=0 "$build_dir/test-fs"
# the TCP connector's HMAC (sbx-listen.c), on its own: it needs none of the frame units' state
# shellcheck disable=SC2086
"$cc" $cflags $sanitize -o "$build_dir/test-listen" "$test_dir/test-listen.c" "$main_dir/sbx-listen.c" "$main_dir/sbx-frame.c"
echo "[INFO] sandbox-core C unit tests: $build_dir/test-listen"
"$build_dir/test-listen"
# terminals (sbx-pty.c) and SPAWN's terminal fields
# shellcheck disable=SC2086
"$cc" $cflags $sanitize -o "$build_dir/test-pty" "$test_dir/test-pty.c" "$main_dir/sbx-pty.c" "$main_dir/sbx-frame.c"
echo "[INFO] sandbox-core C unit tests: $build_dir/test-pty"
"$build_dir/test-pty" "$golden_dir"
