#!/bin/sh
# Manual check of the aarch64 builds on a real arm64 kernel, on an x86_64 Debian 12 machine (not run by Maven):
# boots Debian's arm64 installer kernel in qemu-system-aarch64 with an initramfs whose /init (vm-init.c) runs
# sbx-reaper scenarios and then loads the aarch64 seccomp program and probes syscalls under it (seccheck.c).
# qemu-user cannot do this: it does not emulate PR_SET_CHILD_SUBREAPER.
#
# Needs: apt-get install qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross cpio
#        and a build of sandbox-local (mvn -pl sandbox-local -am test-compile) for the reaper and Seccomp.
# Downloads debian-installer-12-netboot-arm64 (~130 MB) into the work dir with apt-get download, once.
#
#   sandbox-local/src/test/c/aarch64-vm/run.sh [WORK_DIR]      (prints PASS/FAIL lines; exit 0 = all passed)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
module=$(cd "$here/../../../.." && pwd)
work=${1:-/tmp/sbx-aarch64-vm}
classes=$module/../sandbox-core/target/classes
reaper=$classes/dev/sandbox4j/core/native/linux-aarch64/sbx-reaper
[ -f "$reaper" ] || { echo "no $reaper: build sandbox-core with aarch64-linux-gnu-gcc installed" >&2; exit 2; }
mkdir -p "$work/root/proc"
cd "$work"

if [ ! -f linux ]; then
    ls debian-installer-12-netboot-arm64_*.deb >/dev/null 2>&1 || apt-get download debian-installer-12-netboot-arm64
    dpkg-deb --fsys-tarfile debian-installer-12-netboot-arm64_*.deb \
        | tar -x ./usr/lib/debian-installer/images/12/arm64/text/debian-installer/arm64/linux -O > linux
fi

cat > SeccompDump.java <<'EOF'
import java.lang.reflect.Method;
public class SeccompDump {
    public static void main(String[] a) throws Exception {
        Method m = Class.forName("dev.sandbox4j.local.Seccomp").getDeclaredMethod("program", String.class);
        m.setAccessible(true);
        System.out.write((byte[]) m.invoke(null, "aarch64"));
        System.out.flush();
    }
}
EOF
java -cp "$classes" SeccompDump.java > root/filter.bin

aarch64-linux-gnu-gcc -static -O2 -Wall -Wextra -Werror -DNO_MAIN -o root/init "$here/vm-init.c" "$here/seccheck.c"
cp "$reaper" root/reaper
(cd root && find . | cpio -o -H newc 2>/dev/null | gzip > ../initramfs.gz)

timeout 600 qemu-system-aarch64 -M virt -cpu cortex-a57 -smp 1 -m 512 -kernel linux -initrd initramfs.gz \
    -append "console=ttyAMA0 panic=-1" -nographic -no-reboot > vm.log 2>&1 || true
grep -E "Linux version|PASS|FAIL|RESULT" vm.log
grep -q "RESULT aarch64 reaper in VM: [0-9]* passed, 0 failed" vm.log && grep -q "RESULT seccomp: [0-9]* passed, 0 failed" vm.log
