#!/usr/bin/env bash
# Builds the user projects in examples/ against this checkout, the way users build them: each has its own pom that
# imports sandbox4j-bom (never the sandbox4j parent). Installs the modules they use into the local Maven repository
# (no tests), then runs `mvn verify` on a copy of each: their tests drive the real tool loops with scripted models
# over in-memory sandboxes (no network, no API key). plain-java's main then runs on this machine's local backend
# (bubblewrap). One line per example; the first failure stops it with Maven's output.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mvn_() { mvn -B -ntp -q -Dstyle.color=never "$@"; }

t0=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Maven 3.8's -q still writes ESC[0m (Jansi's colour reset) at start and exit unless MAVEN_OPTS has jansi.noreset
# (scripts/demo.sh); its output goes to logs anyway, shown when it fails.
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
if ! mvn_ -pl sandbox4j-bom,sandbox-memory,sandbox-local,sandbox-tools,sandbox-langchain4j,sandbox-spring-boot-starter,sandbox-testing-langchain4j,sandbox-testing-springai,sandbox-mcp \
        -am install -DskipTests >"$work/install.log" 2>&1; then
    cat "$work/install.log" >&2
    exit 1
fi
echo "examples: installed the sandbox4j modules in $(( $(date +%s) - t0 )) s"
for example in plain-java langchain4j spring-boot-ai mcp-stdio; do
    t=$(date +%s)
    cp -r "examples/$example" "$work/$example"
    rm -rf "$work/$example/target"
    if ! (cd "$work/$example" && mvn_ verify >"$work/$example.log" 2>&1); then
        cat "$work/$example.log" >&2
        echo "examples/$example: mvn verify FAILED" >&2
        exit 1
    fi
    tests=$(cat "$work/$example"/target/surefire-reports/TEST-*.xml | grep -o '<testsuite [^>]*tests="[0-9]*"' \
        | sed 's/.*tests="\([0-9]*\)"/\1/' | awk '{ n += $1 } END { print n + 0 }')
    extra=""
    if [ "$example" = plain-java ]; then
        if command -v bwrap >/dev/null 2>&1 || [[ "${SANDBOX4J_REQUIRE:-}" == *local* ]]; then
            (cd "$work/$example" && mvn_ dependency:build-classpath -Dmdep.outputFile=target/cp.txt \
                -Dmdep.includeScope=runtime >/dev/null 2>&1)
            out=$(cd "$work/$example" && java -cp "target/classes:$(cat target/cp.txt)" com.example.agent.AgentLoop)
            if ! grep -q '"stdout":"hello, world\\n"' <<<"$out"; then
                echo "$out" >&2
                echo "examples/$example: its main did not fix greet.py" >&2
                exit 1
            fi
            extra=", and its main ran in a $(sed -n 's/.* in a \([a-z]*\) sandbox/\1/p' <<<"$out") sandbox"
        else
            extra=", its main skipped (no bwrap)"
        fi
    fi
    [ "$tests" = 1 ] && noun=test || noun=tests
    echo "examples/$example: mvn verify passed, $tests $noun$extra, in $(( $(date +%s) - t )) s"
done
echo "examples: all passed in $(( $(date +%s) - t0 )) s (from $root)"
