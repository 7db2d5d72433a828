#!/usr/bin/env bash
# Runs sandbox-local's tests inside a qemu VM of Debian 12 (systemd 252, cgroup v2, kernel 6.1), from systemd
# system services, in two settings reported separately:
#   dev   as user `dev` (uid 1000) from a service with User=dev and Delegate=yes (how an agent app is deployed)
#   root  as root from a system service
# Needs root on the host (debootstrap, mkfs.ext4 -d), qemu-system-x86, a Debian kernel in /boot, debugfs.
#   scripts/vm-test.sh                              the default selection (below), both settings
#   scripts/vm-test.sh all                          every sandbox-local test (slow under TCG)
#   scripts/vm-test.sh LocalSecurityTest contract:ShellContract     (syntax: scripts/lib/run-tests.sh)
# Environment:
#   SANDBOX4J_VM_CACHE     image cache (default /var/cache/sandbox4j/vm); the image is keyed by a hash of the
#                          package list and this recipe, so a repeat run skips debootstrap
#   SANDBOX4J_VM_MODES     settings to run, in order (default "dev dev-scope root"; dev-scope: dev without
#                          delegation, so sandboxes get systemd user scopes)
#   SANDBOX4J_VM_TIMEOUT   wall-clock bound of the VM in minutes (default 30): qemu is killed after it
#   SANDBOX4J_VM_TESTS     the selection, if no arguments are given ("all" for every test)
#   SANDBOX4J_VM_ACCEL     tcg (default) or kvm (KVM boots hung on the build machine)
#   SANDBOX4J_VM_MEM, SANDBOX4J_VM_CPUS   guest memory in MiB (default 3072) and CPUs (default 2)
#   SANDBOX4J_VM_MIRROR    Debian mirror for debootstrap (default: the host's apt source)
#   SANDBOX4J_VM_REBUILD=1 rebuild the image even if cached
#   SANDBOX4J_VM_JAVA_OPTS options of the test JVM inside (default: -XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
#   SANDBOX4J_VM_ROOT_DELEGATE  Delegate= of the root setting's unit (default yes)
#   SANDBOX4J_VM_CPU       qemu -cpu model (default max); SANDBOX4J_VM_APPEND extra kernel arguments
# Exits non-zero if a setting failed a test, ran none, or did not report (VM killed, boot failed).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# shellcheck source=lib/payload.sh
. scripts/lib/payload.sh

# The default selection, sized for software emulation (docs/test-hosts.md): limits and resource attacks
# (PostureTest, LocalSecurityTest$ResourceDos), tree kill (LocalSecurityTest$ProcessLifetime, the kit's timeout,
# signal, interrupt and kill tests), lifecycle (the kit's LifecycleContract, ReliabilityFixesTest's open/close
# and leftover tests, a locked-up workspace deleted at close), the shared agent binaries (HardeningTest), the output cap at
# its edges, the workspace quota (WorkspaceQuotaTest, the kit's WorkspaceQuotaContract), file watch
# (the kit's WatchContract, LocalWatchTest), workspace sources and volumes (the kit's contracts). Left out: the heavy concurrency and output-flood tests (300 commands, 64 sandboxes, 1 GB of
# output), which measure the emulator more than the backend; `all` runs them.
DEFAULT_TESTS='SmokeTest PostureTest LimitsTest LocalSecurityTest$ResourceDos LocalSecurityTest$ProcessLifetime contract:LimitsContract'
DEFAULT_TESTS+=' ReliabilityFixesTest#failedOpenLeavesNothing|deadOwnersLeftoversAreReaped|deadJailClosesTheSandbox|nofileLimitIsAtMostTheHardLimit|closeDeletesDirectoriesTheSandboxLockedUp'
DEFAULT_TESTS+=' contract:LifecycleContract HardeningTest#sharedAgentBinaries.*'
# the workspace quota: root's tmpfs on the host, the others' in the jail's mount namespace (issue 16)
DEFAULT_TESTS+=' WorkspaceQuotaTest contract:WorkspaceQuotaContract'
DEFAULT_TESTS+=' contract:ShellContract#run_outputAroundTheCapsEdges.*|run_killedBySignal.*|run_pastTimeout.*|run_timeout_killsDetachedChildren|start_handleClosed_killsCommand|close_sandbox_killsBackgroundCommands|run_callerInterrupted.*|start_withTimeout_endsTimedOut|close_fromSeveralThreadsAtOnce.*'
# file watch: the agent's inotify on this kernel, in each setting (a rename split over two reads was found here)
DEFAULT_TESTS+=' contract:WatchContract LocalWatchTest'
# workspaces from host directories and named volumes (issue 35): overlayfs as root on this kernel, the copy otherwise
DEFAULT_TESTS+=' contract:WorkspaceSourceContract contract:WorkspaceVolumeContract'
# pause and resume (issue 31): cgroup v2's cgroup.freeze in each setting (v1's freezer.state runs on the host)
DEFAULT_TESTS+=' contract:PauseContract'

cache=${SANDBOX4J_VM_CACHE:-/var/cache/sandbox4j/vm}
modes=${SANDBOX4J_VM_MODES:-dev dev-scope root}
bound_min=${SANDBOX4J_VM_TIMEOUT:-30}
accel=${SANDBOX4J_VM_ACCEL:-tcg}
mem=${SANDBOX4J_VM_MEM:-3072}
cpus=${SANDBOX4J_VM_CPUS:-2}
if [ $# -gt 0 ]; then tests="$*"; else tests=${SANDBOX4J_VM_TESTS:-$DEFAULT_TESTS}; fi
[ "$tests" = all ] && tests=""

started=$(date +%s)
log() { echo "[vm +$(( $(date +%s) - started ))s] $*"; }
[ "$(id -u)" = 0 ] || { echo "vm-test.sh: run as root (debootstrap, mkfs.ext4 -d)" >&2; exit 2; }
for t in qemu-system-x86_64 debootstrap mkfs.ext4 debugfs; do
    command -v "$t" >/dev/null || { echo "vm-test.sh: $t is missing (apt-get install qemu-system-x86 debootstrap e2fsprogs)" >&2; exit 2; }
done
kernel=$(ls -1 /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -1 || true)
[ -n "$kernel" ] || { echo "vm-test.sh: no Debian kernel in /boot (apt-get install linux-image-amd64)" >&2; exit 2; }
initrd=/boot/initrd.img-${kernel#/boot/vmlinuz-}
[ -f "$initrd" ] || { echo "vm-test.sh: no $initrd" >&2; exit 2; }

# ---- the image: Debian 12 minbase with systemd, cached -------------------------------------------------------
# Packages the tests need inside: bubblewrap, java for the test JVM and the in-sandbox agent, python3 and nodejs
# for the code runner's languages, procps/util-linux/iproute2 for the commands the tests run.
PACKAGES="systemd-sysv udev dbus dbus-user-session libpam-systemd bubblewrap procps util-linux python3 openjdk-17-jre-headless iproute2 nodejs e2fsprogs"
recipe() {   # $1 = rootfs; everything that shapes the image, so that its text goes into the cache key
    local r=$1
    echo sbxvm > "$r/etc/hostname"
    echo '/dev/vda / ext4 defaults 0 1' > "$r/etc/fstab"
    mkdir -p "$r/ci"
    chroot "$r" useradd -m -u 1000 -s /bin/bash dev
    chroot "$r" passwd -d root >/dev/null
    # The boot hook: runs /ci/boot.sh from the second disk (scripts/lib/vm-boot.sh), which starts the test
    # services, writes the results to that disk and powers off. The test logic lives on that disk, not here.
    cat > "$r/etc/systemd/system/sbx-ci.service" <<'UNIT'
[Unit]
Description=sandbox4j CI hook (runs /ci/boot.sh, then powers off)
After=multi-user.target
[Service]
Type=simple
ExecStartPre=/bin/mount -o rw /dev/vdb /ci
ExecStart=/bin/bash /ci/boot.sh
StandardOutput=journal+console
StandardError=journal+console
[Install]
WantedBy=multi-user.target
UNIT
    mkdir -p "$r/etc/systemd/system/multi-user.target.wants"
    ln -sf /etc/systemd/system/sbx-ci.service "$r/etc/systemd/system/multi-user.target.wants/sbx-ci.service"
    # No log-in prompts or periodic jobs in a test VM.
    ln -sf /dev/null "$r/etc/systemd/system/serial-getty@ttyS0.service"
    ln -sf /dev/null "$r/etc/systemd/system/getty@tty1.service"
    ln -sf /dev/null "$r/etc/systemd/system/systemd-firstboot.service"   # it would prompt on the console
    ln -sf /dev/null "$r/etc/systemd/system/apt-daily.timer"
    ln -sf /dev/null "$r/etc/systemd/system/apt-daily-upgrade.timer"
    rm -f "$r/etc/machine-id"; touch "$r/etc/machine-id"
    chroot "$r" apt-get clean
}
key=$( { echo "bookworm minbase $PACKAGES"; declare -f recipe; } | sha256sum | cut -c1-16)
image=$cache/bookworm-$key.img
mkdir -p "$cache"
if [ -f "$image" ] && [ -z "${SANDBOX4J_VM_REBUILD:-}" ]; then
    log "image cached: $image"
else
    log "building the image $image (debootstrap bookworm, minbase)"
    t0=$(date +%s)
    mirror=${SANDBOX4J_VM_MIRROR:-$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)}
    [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
    rootfs=$(mktemp -d "$cache/rootfs.XXXXXX")
    trap 'rm -rf "$rootfs"' EXIT
    debootstrap --variant=minbase --include="${PACKAGES// /,}" bookworm "$rootfs" ${mirror:+"$mirror"} \
        > "$cache/debootstrap.log" 2>&1 || { tail -30 "$cache/debootstrap.log"; exit 1; }
    recipe "$rootfs"
    rm -f "$image.tmp"
    mkfs.ext4 -q -F -L sbxroot -d "$rootfs" "$image.tmp" 4G > /dev/null
    mv "$image.tmp" "$image"
    rm -rf "$rootfs"; trap - EXIT
    # Images of other recipes, unused for a week (another checkout may still use a recent one).
    find "$cache" -maxdepth 1 -name 'bookworm-*.img' ! -name "$(basename "$image")" -atime +7 -delete
    log "image built in $(( $(date +%s) - t0 )) s ($(du -h "$image" | cut -f1) used of 4G)"
fi

# ---- the run: payload on a second disk, results written back to it ------------------------------------------
work=$(mktemp -d /var/tmp/sandbox4j-vm.XXXXXX)
trap 'rm -rf "$work"' EXIT
log "building the test payload"
build_payload "$work/ci/payload"
cp scripts/lib/vm-boot.sh "$work/ci/boot.sh"
cp scripts/lib/vm-service.sh "$work/ci/service.sh"
nmodes=$(wc -w <<< "$modes")
echo "$(( (bound_min * 60 - 300) / (nmodes > 0 ? nmodes : 1) ))" > "$work/ci/mode-timeout"   # each setting's own bound
printf '%s\n' "$modes" > "$work/ci/modes"
printf '%s\n' "$tests" > "$work/ci/tests"
printf '%s\n' "${SANDBOX4J_VM_ROOT_DELEGATE:-yes}" > "$work/ci/root-delegate"
# The test JVM only (the sandboxes' own JVMs are the backend's business): C1 only, one GC thread; under TCG
# C2's compiler threads cost more than they bring in a short run.
printf '%s\n' "${SANDBOX4J_VM_JAVA_OPTS--XX:TieredStopAtLevel=1 -XX:+UseSerialGC}" > "$work/ci/java-opts"
mkdir -p "$work/ci/results"
# Room for the reports and logs the VM writes back.
mkfs.ext4 -q -F -L sbxci -d "$work/ci" "$work/ci.img" 1G > /dev/null

log "booting $(basename "$kernel") with -accel $accel, ${cpus} CPUs, ${mem} MiB; bound ${bound_min} min"
cpu=${SANDBOX4J_VM_CPU:-max}
t0=$(date +%s)
qstatus=0
timeout --kill-after=15 "$(( bound_min * 60 ))" qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -m "$mem" -smp "$cpus" \
    -nographic -no-reboot -nic none \
    -kernel "$kernel" -initrd "$initrd" \
    -drive file="$image",format=raw,if=virtio,snapshot=on \
    -drive file="$work/ci.img",format=raw,if=virtio \
    -append "root=/dev/vda rw console=ttyS0 systemd.firstboot=off panic=-1 ${SANDBOX4J_VM_APPEND:-}" \
    < /dev/null > "$work/serial.log" 2>&1 || qstatus=$?
vm_secs=$(( $(date +%s) - t0 ))
# Each run keeps its own results (runs may overlap: several engineers, one cache); latest points at the newest.
out=$cache/runs/$(date -u +%Y%m%dT%H%M%SZ)-$$
mkdir -p "$out"
ln -sfn "$out" "$cache/latest"
ls -1dt "$cache"/runs/* 2>/dev/null | tail -n +11 | xargs -r rm -rf   # keep the last ten
cp "$work/serial.log" "$out/serial.log"
if [ "$qstatus" -eq 124 ] || [ "$qstatus" -eq 137 ]; then
    log "qemu KILLED after ${bound_min} min (SANDBOX4J_VM_TIMEOUT); the serial console's tail:"
    tail -40 "$work/serial.log"
else
    log "qemu exited $qstatus after $vm_secs s"
fi

debugfs -R "rdump /results $out" "$work/ci.img" >/dev/null 2>&1 || true
res=$out/results
status=0
echo
echo "== VM facts =="
cat "$res/boot.txt" 2>/dev/null || echo "(none reported)"
for m in $modes; do
    echo
    echo "== setting $m =="
    if [ -f "$res/$m/facts.txt" ]; then cat "$res/$m/facts.txt"; fi
    if [ -f "$res/$m/summary.txt" ]; then
        cat "$res/$m/summary.txt"
        rc=$(cat "$res/$m/rc" 2>/dev/null || echo missing)
        echo "exit $rc, test run $(cat "$res/$m/seconds" 2>/dev/null || echo ?) s; log $res/$m/console.log"
        [ "$rc" = 0 ] || status=1
    else
        echo "no result (the VM did not finish this setting); log tail:"
        tail -20 "$res/$m/console.log" 2>/dev/null || true
        status=1
    fi
done
echo
log "done: VM wall time $vm_secs s, exit $status; serial log and results in $out/"
exit "$status"
