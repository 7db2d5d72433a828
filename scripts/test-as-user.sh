#!/usr/bin/env bash
# Runs sandbox-local's tests (the conformance kit included) as a NON-ROOT user on this host, with
# SANDBOX4J_REQUIRE=local (a missing bubblewrap fails instead of skipping). Needs root, to make the user.
#   scripts/test-as-user.sh                        every test, as `mvn verify` would run them
#   scripts/test-as-user.sh LocalSecurityTest contract:ShellContract 'PostureTest#.*limit.*'
#   SANDBOX4J_TESTS='ReliabilityFixesTest' scripts/test-as-user.sh
# The selection syntax is in scripts/lib/run-tests.sh. Environment:
#   SANDBOX4J_TEST_USER      the user (default sbxuser; created if missing)
#   SANDBOX4J_USER_DIR       where the world-readable payload and reports go (default /var/tmp/sandbox4j-user)
#   SANDBOX4J_USER_TIMEOUT   wall-clock bound of the test run in seconds (default 1800)
# Exits non-zero if a test failed, none ran, or the run was killed; prints a summary either way.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/payload.sh
. scripts/lib/payload.sh

user=${SANDBOX4J_TEST_USER:-sbxuser}
dir=${SANDBOX4J_USER_DIR:-/var/tmp/sandbox4j-user}
bound=${SANDBOX4J_USER_TIMEOUT:-1800}
[ "$(id -u)" = 0 ] || { echo "test-as-user.sh: run as root (it creates the user $user)" >&2; exit 2; }

started=$(date +%s)
id "$user" >/dev/null 2>&1 || useradd -m -s /bin/bash "$user"
echo "test-as-user: user $(id "$user")"
mkdir -p "$dir"
chmod 755 "$dir"
build_payload "$dir/payload"
echo "test-as-user: payload built in $(( $(date +%s) - started )) s ($(du -sh "$dir/payload" | cut -f1))"
rm -rf "$dir/reports"
install -d -o "$user" -m 755 "$dir/reports"

home=$(getent passwd "$user" | cut -d: -f6)
status=0
# A clean environment, as a service account would have; the selection goes in as arguments.
timeout --kill-after=30 "$bound" runuser -u "$user" -- env -i HOME="$home" USER="$user" LOGNAME="$user" \
    PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 SANDBOX4J_REQUIRE=local SANDBOX4J_TESTS="${SANDBOX4J_TESTS:-}" \
    SANDBOX4J_TEST_TIMEOUT="$(( bound > 60 ? bound - 30 : bound ))" \
    bash -c 'cd "$HOME" && exec bash "$0/run-tests.sh" "$1" "${@:2}"' "$dir/payload" "$dir/reports" "$@" \
    > "$dir/reports/console.log" 2>&1 || status=$?
grep -E '^(run-tests|\[ )|:: (FAILED|ABORTED)' "$dir/reports/console.log" | head -200 || true
cat "$dir/reports/summary.txt" 2>/dev/null | sed '$d' || true
[ "$status" -eq 124 ] && echo "test-as-user: KILLED after $bound s (SANDBOX4J_USER_TIMEOUT)"
echo "test-as-user: full log $dir/reports/console.log, XML in $dir/reports/"
echo "test-as-user: as $user, exit $status, $(( $(date +%s) - started )) s in all"
[ -f "$dir/reports/summary.txt" ] && tail -1 "$dir/reports/summary.txt"
exit "$status"
