#!/bin/sh
# Writes a C header with the wire constants of a Java class, so each constant is written once (in Java).
#
#   gen-protocol.sh JAVA_FILE PREFIX OUT_H
#
# Takes every `static final byte|int NAME = VALUE;` between the lines `// wire constants: begin` and
# `// wire constants: end` of JAVA_FILE (comments and blank lines aside) and writes `#define PREFIX<NAME> (VALUE)`
# to OUT_H. VALUE must be a decimal number or `N << M`, which C reads as Java does: anything else in the block
# (another declaration, a cast, a reference to another constant) fails the build instead of reaching C half-read.
# OUT_H is rewritten only when its text changes, so an unchanged protocol does not make the binaries stale.
set -eu

java=$1
prefix=$2
out=$3

tmp=$out.tmp.$$
mkdir -p "$(dirname "$out")"
if ! awk -v prefix="$prefix" -v src="${java##*/}" -v guard="$(basename "$out" | tr 'a-z.-' 'A-Z__')" '
    BEGIN { state = 0 }
    /\/\/ wire constants: begin/ { if (state != 0) exit 3; state = 1; print "/* Generated from " src " by gen-protocol.sh: do not edit (see PROTOCOL.md). */"
                                   print "#ifndef " guard; print "#define " guard; next }
    /\/\/ wire constants: end/ { if (state != 1) exit 3; state = 2; print "#endif"; next }
    state != 1 { next }
    /^[ \t]*$/ || /^[ \t]*\/\// || /^[ \t]*\/?\*/ { next }   # blank lines and comments
    {
        line = $0
        sub(/\/\/.*$/, "", line)
        if (!match(line, /static final (byte|int) [A-Z][A-Z0-9_]* = [^;]+;/)) {
            print "gen-protocol.sh: " src ": not a literal wire constant: " $0 > "/dev/stderr"; bad = 1; next
        }
        decl = substr(line, RSTART, RLENGTH)
        sub(/^static final (byte|int) /, "", decl)
        name = decl; sub(/ = .*$/, "", name)
        value = decl; sub(/^[A-Z0-9_]* = /, "", value); sub(/;$/, "", value)
        if (value !~ /^[0-9]+( << [0-9]+)?$/) {
            print "gen-protocol.sh: " src ": " name " = " value " is not a literal C reads the same way" > "/dev/stderr"
            bad = 1; next
        }
        printf "#define %s%s (%s)\n", prefix, name, value
        n++
    }
    END { if (bad || state != 2 || n == 0) exit 2 }
' "$java" > "$tmp"; then
    rm -f "$tmp"
    echo "[ERROR] sandbox-core native: cannot generate $out from $java (want one '// wire constants: begin'" \
        "... '// wire constants: end' block of literal constants)" >&2
    exit 1
fi
if [ -f "$out" ] && cmp -s "$tmp" "$out"; then
    rm -f "$tmp"
else
    mv -f "$tmp" "$out"
fi
