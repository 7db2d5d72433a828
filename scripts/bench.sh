#!/usr/bin/env bash
# Runs the sandbox4j benchmark suite (module benchmarks, JMH) and writes docs/benchmarks.md.
#   scripts/bench.sh            full suite, ~14 minutes on 2 cores
#   scripts/bench.sh --quick    short iterations, ~3.5 minutes, for iteration
# Other arguments go to the driver: --only REGEX (groups: RoundTrip, OpenClose, FileTransfer, Flood, Throughput,
# InMemory, Grep), --out FILE, --sandboxes 16,64. Needs bubblewrap and/or a Docker engine with the image
# sandbox4j/runtime:bookworm (scripts/build-test-image.sh); unavailable backends are left out.
# Set BENCH_SKIP_BUILD=1 to reuse benchmarks/target/benchmarks.jar.
set -euo pipefail
cd "$(dirname "$0")/.."
export LANG=C.UTF-8
# Testcontainers (the execInContainer baseline) without its reaper container or startup checks.
export TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_CHECKS_DISABLE=true
export TESTCONTAINERS_HOST_OVERRIDE="${TESTCONTAINERS_HOST_OVERRIDE:-localhost}"
tc_props="$HOME/.testcontainers.properties"
tc_props_existed=0; [[ -e "$tc_props" ]] && tc_props_existed=1

if [[ "${BENCH_SKIP_BUILD:-0}" != 1 ]]; then
  mvn -q -B -ntp -Pbench install -DskipTests
fi
status=0
java -jar benchmarks/target/benchmarks.jar "$@" 2>&1 | tee benchmarks/target/bench.log || status=$?
# Testcontainers records its docker strategy in ~/.testcontainers.properties; leave no trace if it was not there.
if [[ $tc_props_existed -eq 0 ]]; then rm -f "$tc_props"; fi
exit $status
