#!/usr/bin/env bash
# Runs sandbox-local's tests from a payload made by scripts/lib/payload.sh, with the JUnit Platform Console
# Launcher, as whoever runs it (no Maven, no ~/.m2). Used by scripts/test-as-user.sh and inside the VM of
# scripts/vm-test.sh.
#   run-tests.sh REPORT_DIR [SELECTION...]        (or the selection in $SANDBOX4J_TESTS, whitespace-separated)
# A selection word is one of:
#   ClassName | dev.pkg.ClassName          the class's tests (nested classes included); simple names are
#                                          taken in dev.sandbox4j.local
#   ClassName#REGEX                        its tests whose method name matches REGEX
#   contract:ShellContract                 the conformance kit's ShellContract tests, run by LocalConformanceTest
#   contract:ShellContract#REGEX           those of them whose method name matches REGEX
#   -...                                   passed to the console launcher as is (e.g. --include-tag=slow)
# SANDBOX4J_TEST_JAVA_OPTS: options for the test JVM (not the sandboxes'), e.g. -XX:TieredStopAtLevel=1 in the VM.
# No selection: every test class in sandbox-local (the conformance kit included), like `mvn verify`.
# Prints the launcher's tree, then a summary from the XML report; exits non-zero if a test failed or none ran.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reports=${1:?usage: run-tests.sh REPORT_DIR [SELECTION...]}
shift
mkdir -p "$reports"
reports=$(cd "$reports" && pwd)
if [ $# -eq 0 ] && [ -n "${SANDBOX4J_TESTS:-}" ]; then
    set -f   # words, not file name patterns
    # shellcheck disable=SC2086
    set -- $SANDBOX4J_TESTS
    set +f
fi

cp="$here/test-classes"
for d in "$here"/classes/*; do cp="$cp:$d"; done
for j in "$here"/lib/*.jar; do
    case "$j" in */junit-platform-console-standalone.jar) ;; *) cp="$cp:$j" ;; esac
done

sel=()
for w in "$@"; do
    case "$w" in
        -*) sel+=("$w") ;;
        contract:*)
            c=${w#contract:}
            f="$here/contracts/${c%%#*}"
            [ -f "$f" ] || { echo "run-tests: no contract ${c%%#*}" >&2; exit 2; }
            re=".*"
            case "$c" in *#*) re=${c#*#} ;; esac
            names=$(grep -E "^($re)\$" "$f" | paste -sd'|')
            [ -n "$names" ] || { echo "run-tests: no test of ${c%%#*} matches $re" >&2; exit 2; }
            sel+=("--select-class=dev.sandbox4j.local.LocalConformanceTest"
                  "--include-methodname=^dev\\.sandbox4j\\.local\\.LocalConformanceTest#($names)\$") ;;
        *)
            cls=${w%%#*}
            case "$cls" in *.*) ;; *) cls="dev.sandbox4j.local.$cls" ;; esac
            re=".*"
            case "$w" in *#*) re="(${w#*#})" ;; esac
            clsre=${cls//./\\.}
            clsre=${clsre//\$/\\\$}
            sel+=("--select-class=$cls" "--include-methodname=^$clsre(\\$.*)?#$re\$") ;;
    esac
done
only_flags=true
for s in "${sel[@]}"; do case "$s" in --select-*) only_flags=false ;; esac; done
if $only_flags; then sel+=("--scan-class-path=$here/test-classes"); fi

export LANG=${LANG:-C.UTF-8}
export SANDBOX4J_REQUIRE=${SANDBOX4J_REQUIRE-local}
echo "run-tests: as $(id -un) (uid $(id -u)), SANDBOX4J_REQUIRE=$SANDBOX4J_REQUIRE, java $(java -version 2>&1 | head -1)"
echo "run-tests: selection: ${sel[*]}"
echo "run-tests: test JVM options: ${SANDBOX4J_TEST_JAVA_OPTS:-(none)}"
started=$(date +%s.%N)
# SANDBOX4J_TEST_TIMEOUT (seconds, 0 = none): the launcher is killed after it, and the summary is then read
# from its test feed, as far as it got.
# shellcheck disable=SC2086
timeout --kill-after=20 "${SANDBOX4J_TEST_TIMEOUT:-0}" \
java ${SANDBOX4J_TEST_JAVA_OPTS:-} -jar "$here/lib/junit-platform-console-standalone.jar" execute \
    --disable-banner --disable-ansi-colors --details=testfeed \
    --class-path="$cp" \
    --config='junit.jupiter.execution.timeout.default=120 s' \
    --reports-dir="$reports" "${sel[@]}" 2>&1 | tee "$reports/launcher.log"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && echo "run-tests: KILLED after SANDBOX4J_TEST_TIMEOUT=$SANDBOX4J_TEST_TIMEOUT s"
elapsed=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$started" "$(date +%s.%N)")
echo "run-tests: launcher exit $rc after $elapsed s"
python3 "$here/summary.py" "$reports" "$elapsed" "$reports/launcher.log" | tee "$reports/summary.txt"
src=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] && [ "$src" -eq 0 ]
