#!/bin/bash
# Inside the VM, the body of sbx-test-MODE.service (scripts/lib/vm-boot.sh writes the unit): prints what this
# service sees of cgroup v2 and its delegation, then runs the tests from /ci/payload.
set -u
mode=$1
res=/ci/results/$mode
cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
d=/sys/fs/cgroup$cg
{
    echo "user: $(id)"
    echo "env: HOME=${HOME:-} SANDBOX4J_REQUIRE=${SANDBOX4J_REQUIRE:-} LANG=${LANG:-} PATH=$PATH"
    echo "/sys/fs/cgroup is $(stat -f -c %T /sys/fs/cgroup)"
    echo "/proc/self/cgroup: $(tr '\n' ' ' < /proc/self/cgroup)"
    echo "own cgroup $d: owner $(stat -c %U:%G "$d"), cgroup.procs owner $(stat -c %U "$d/cgroup.procs"), cgroup.subtree_control owner $(stat -c %U "$d/cgroup.subtree_control")"
    echo "own cgroup.controllers: $(cat "$d/cgroup.controllers")"
    echo "own cgroup.subtree_control: $(cat "$d/cgroup.subtree_control")"
    echo "parent cgroup.subtree_control: $(cat "$(dirname "$d")/cgroup.subtree_control")"
    echo "own memory.max $(cat "$d/memory.max" 2>&1), pids.max $(cat "$d/pids.max" 2>&1), cgroup.kill $( [ -e "$d/cgroup.kill" ] && echo present || echo absent)"
    if mkdir "$d/sbx-probe" 2>/dev/null; then
        echo "mkdir of a child cgroup: works (owner $(stat -c %U "$d/sbx-probe"))"; rmdir "$d/sbx-probe"
    else
        echo "mkdir of a child cgroup: FAILS"
    fi
    if bwrap --unshare-all --die-with-parent --ro-bind / / /bin/true 2>/dev/null; then
        echo "bwrap --unshare-all: works"; else echo "bwrap --unshare-all: FAILS"; fi
} > "$res/facts.txt" 2>&1
cat "$res/facts.txt"
t0=$(date +%s)
# The launcher's test feed goes to the serial console too (live progress), and to console.log.
# The launcher's own bound, a minute under the unit's, so that a slow setting still reports how far it got.
export SANDBOX4J_TEST_TIMEOUT=$(( $(cat /ci/mode-timeout 2>/dev/null || echo 960) - 60 ))
set -f   # the selection's words are patterns for JUnit, not for the shell
# shellcheck disable=SC2046
bash /ci/payload/run-tests.sh "$res/reports" $(cat /ci/tests) 2>&1 | tee "$res/console.log"
rc=${PIPESTATUS[0]}
echo "$(( $(date +%s) - t0 ))" > "$res/seconds"
cp "$res/reports/summary.txt" "$res/summary.txt" 2>/dev/null
echo "$rc" > "$res/rc"
cat "$res/summary.txt" 2>/dev/null || tail -20 "$res/console.log"
echo "setting $mode: exit $rc after $(cat "$res/seconds") s"
exit 0
