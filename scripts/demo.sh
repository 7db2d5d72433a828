#!/usr/bin/env bash
# Builds sandbox4j and runs the demo on this machine's default backend (bubblewrap if installed, else Docker).
# Pass -Dsandbox4j.provider=docker (or local) to choose.
set -euo pipefail
cd "$(dirname "$0")/.."
export LANG=C.UTF-8
# Maven 3.8's console library (Jansi) writes a colour reset (ESC[0m) when it starts and when it exits, even with -B
# and -q; -Dstyle.color=never does not stop it. jansi.noreset does, and only from MAVEN_OPTS (on the mvn command line
# it comes too late for the first one).
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
mvn -q -B -ntp install -DskipTests
exec mvn -q -B -ntp -pl sandbox-demo exec:java "$@"
