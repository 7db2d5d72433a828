#!/bin/bash
# Inside the VM of scripts/vm-test.sh, as root, from sbx-ci.service once the system is up: records the boot
# facts, runs each setting's test service in turn (units written to /run/systemd/system), then powers off.
# /ci is the second disk: payload/ (the tests), modes, tests, mode-timeout; results/ is read by the host.
set -u
res=/ci/results
mkdir -p "$res"
{
    echo "booted in $(cut -d' ' -f1 /proc/uptime) s (uptime when the CI hook started)"
    systemd-analyze time 2>/dev/null | head -1
    echo "kernel $(uname -r), $(systemctl --version | head -1), $(nproc) CPUs, $(free -m | awk '/^Mem/ {print $2}') MiB"
    echo "/sys/fs/cgroup is $(stat -f -c %T /sys/fs/cgroup)"
    echo "root cgroup.controllers: $(cat /sys/fs/cgroup/cgroup.controllers 2>/dev/null)"
    echo "system.slice cgroup.subtree_control: $(cat /sys/fs/cgroup/system.slice/cgroup.subtree_control 2>/dev/null)"
    echo "bwrap $(bwrap --version 2>&1 | cut -d' ' -f2), java $(java -version 2>&1 | head -1 | cut -d'"' -f2), python $(python3 -V 2>&1 | cut -d' ' -f2), node $(node --version 2>&1)"
    echo "user.max_user_namespaces $(cat /proc/sys/user/max_user_namespaces)"
} > "$res/boot.txt" 2>&1
cat "$res/boot.txt"

timeout_s=$(cat /ci/mode-timeout 2>/dev/null || echo 900)
for mode in $(cat /ci/modes); do
    mkdir -p "$res/$mode"
    # root; USER (a service account with Delegate=yes); USER-scope (the same without delegation: sandboxes then
    # get transient scopes from USER's systemd user manager, which linger keeps running)
    case "$mode" in
        root) user=root; delegate=$(cat /ci/root-delegate 2>/dev/null || echo yes) ;;
        *-scope) user=${mode%-scope}; delegate=no; chown "$user:" "$res/$mode"
            loginctl enable-linger "$user"
            for _ in $(seq 60); do [ -S "/run/user/$(id -u "$user")/bus" ] && break; sleep 1; done ;;
        *) user=$mode; delegate=yes; chown "$user:" "$res/$mode" ;;
    esac
    cat > "/run/systemd/system/sbx-test-$mode.service" <<UNIT
[Unit]
Description=sandbox4j local tests as $user (Delegate=$delegate)
[Service]
Type=oneshot
User=$user
Delegate=$delegate
WorkingDirectory=~
Environment=LANG=C.UTF-8 SANDBOX4J_REQUIRE=local "SANDBOX4J_TEST_JAVA_OPTS=$(cat /ci/java-opts 2>/dev/null)"
ExecStart=/bin/bash /ci/service.sh $mode
TimeoutStartSec=$timeout_s
StandardOutput=journal+console
StandardError=journal+console
UNIT
    systemctl daemon-reload
    echo "== starting sbx-test-$mode.service (as $user, Delegate=$delegate, bound $timeout_s s) at uptime $(cut -d' ' -f1 /proc/uptime) s"
    systemctl start "sbx-test-$mode.service" || echo "sbx-test-$mode.service: $(systemctl show -p Result --value "sbx-test-$mode.service")" >> "$res/$mode/unit.txt"
    systemctl status --no-pager "sbx-test-$mode.service" >> "$res/$mode/unit.txt" 2>&1
    echo "== sbx-test-$mode.service done at uptime $(cut -d' ' -f1 /proc/uptime) s"
done
journalctl -b --no-pager > "$res/journal.txt" 2>&1
sync
echo "== CI hook done, powering off"
systemctl poweroff --no-block
