#!/usr/bin/env bash
# Builds a user's JUnit 5 project (scripts/user-project: JUnit Jupiter 5.11, Guava 31.1, sandbox-memory in test
# scope) against this checkout: the in-memory backend must run there without class path conflicts (issue 20).
# Installs sandbox-api and sandbox-memory (and what building it needs: the parent and sandbox-core, which memory
# shades) into the local Maven repository first.
set -euo pipefail
cd "$(dirname "$0")/.."
# Maven 3.8's -q still writes ESC[0m (Jansi's colour reset) unless MAVEN_OPTS has jansi.noreset (scripts/demo.sh)
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
mvn -B -ntp -q -pl sandbox-api,sandbox-memory -am install -DskipTests
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r scripts/user-project/. "$work/"
(cd "$work" && mvn -B -ntp -q test)
echo "user-project: a JUnit 5.11 + Guava 31.1 project ran its sandbox-memory test"
