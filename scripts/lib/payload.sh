# Sourced by scripts/test-as-user.sh and scripts/vm-test.sh.
# build_payload DIR: compiles sandbox-local and its tests (the upstream modules in the same reactor, no install),
# and copies into DIR, world-readable, everything needed to run its tests without Maven or ~/.m2:
#   DIR/lib/*.jar            the test class path's jars (JUnit's own come from the console launcher)
#   DIR/lib/junit-platform-console-standalone.jar   the JUnit Platform Console Launcher, JUnit's version of the pom
#   DIR/classes/<module>/    sandbox-api, sandbox-tests (the conformance kit) and sandbox-local classes
#   DIR/test-classes/        sandbox-local's test classes (what is scanned when no selection is given)
#   DIR/run-tests.sh         the runner (scripts/lib/run-tests.sh), DIR/summary.py its report reader
#   DIR/contracts/<Name>     the test method names of each conformance-kit contract (for `contract:Name` selections)

build_payload() {
    local dest=$1 repo
    repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    local junit
    junit=$(sed -n 's:.*<junit.version>\(.*\)</junit.version>.*:\1:p' "$repo/pom.xml" | head -1)
    [ -n "$junit" ] || { echo "build_payload: no junit.version in pom.xml" >&2; return 1; }

    local mvnlog
    mvnlog=$(mktemp)
    (cd "$repo" && mvn -B -ntp -q -pl sandbox-local -am test-compile dependency:build-classpath \
        -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test) > "$mvnlog" 2>&1 \
        || { cat "$mvnlog"; rm -f "$mvnlog"; return 1; }

    rm -rf "$dest"
    mkdir -p "$dest/lib" "$dest/classes" "$dest/contracts"
    local entry name
    IFS=: read -r -a entries < "$repo/sandbox-local/target/test-classpath.txt" || true   # no final newline
    for entry in "${entries[@]}" "$repo/sandbox-local/target/classes"; do
        if [ -d "$entry" ]; then
            name=$(basename "$(dirname "$(dirname "$entry")")")      # <module>/target/classes -> <module>
            cp -a "$entry" "$dest/classes/$name"
        else
            case "$entry" in
                */org/junit/*|*/org/opentest4j/*|*/org/apiguardian/*) ;;   # bundled in the console launcher
                *) cp "$entry" "$dest/lib/" ;;
            esac
        fi
    done
    cp -a "$repo/sandbox-local/target/test-classes" "$dest/test-classes"

    (cd "$repo" && mvn -B -ntp -q dependency:copy \
        -Dartifact="org.junit.platform:junit-platform-console-standalone:$junit" -DoutputDirectory="$dest/lib") \
        > "$mvnlog" 2>&1 || { cat "$mvnlog"; rm -f "$mvnlog"; return 1; }
    rm -f "$mvnlog"
    mv "$dest/lib/junit-platform-console-standalone-$junit.jar" "$dest/lib/junit-platform-console-standalone.jar"

    local c
    for c in "$repo"/sandbox-tests/src/main/java/dev/sandbox4j/testing/*Contract.java; do
        python3 - "$c" > "$dest/contracts/$(basename "$c" .java)" <<'PY'
import re, sys
src = open(sys.argv[1], encoding="utf-8").read()
# a method annotated @Test / @ParameterizedTest / @RepeatedTest / @TestFactory (other annotations may sit between)
for m in re.finditer(r"@(?:Test|ParameterizedTest|RepeatedTest|TestFactory)\b(?:\s*@\w+(?:\([^)]*\))?)*\s*"
                     r"(?:default\s+|public\s+)*[\w<>\[\], ?]+\s+(\w+)\s*\(", src):
    print(m.group(1))
PY
    done
    cp "$repo/scripts/lib/run-tests.sh" "$repo/scripts/lib/summary.py" "$dest/"
    chmod -R a+rX "$dest"
}
