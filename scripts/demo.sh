#!/usr/bin/env bash
# Builds sandbox4j and runs the demo on this machine's default backend (bubblewrap if installed, else Docker).
# Pass -Dsandbox4j.provider=docker (or local) to choose.
set -euo pipefail
cd "$(dirname "$0")/.."
export LANG=C.UTF-8
mvn -q -B -ntp install -DskipTests
exec mvn -q -B -ntp -pl sandbox-demo exec:java "$@"
