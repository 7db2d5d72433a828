#!/usr/bin/env bash
# What a Docker/Podman container start pays for sandbox4j's seccomp profile: runc (and crun) build a libseccomp filter
# from the profile and compile it to BPF at every start. This times exactly that, in CPU time (the load of a shared
# machine falls out), for the deny-list profile of before the allow-list, the allow-list as generated now (the
# engine's architecture only) and the same allow-list listing both architectures (as it was generated until
# 2026-11-28). Needs libseccomp-dev, gcc, python3 and a built sandbox-core (mvn -o -q -pl sandbox-core -am compile).
#   scripts/seccomp-cost.sh [ROUNDS]     (default 200; prints a Markdown table)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-200}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp="sandbox-core/target/classes:sandbox-api/target/classes"
java -cp "$cp" scripts/seccomp-cost/DumpProfile.java x86_64 > "$work/allow.json"
python3 - "$work/allow.json" "$work/allow-both.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['architectures'] = d['architectures'] + ['SCMP_ARCH_AARCH64']
json.dump(d, open(sys.argv[2], 'w'))
PY
deny=sandbox-docker/src/test/resources/dev/sandbox4j/docker/seccomp-denylist-ecc5599.json
(cd "$work" && python3 "$OLDPWD/scripts/seccomp-cost/gen.py" "deny-list (ecc5599^, x86_64+x86+x32)=$OLDPWD/$deny" \
    "allow-list, x86_64 only (now)=allow.json" "allow-list, x86_64+aarch64 (before)=allow-both.json")
gcc -O2 -o "$work/cost" scripts/seccomp-cost/cost.c "$work/profiles.c" -lseccomp
echo "libseccomp $(dpkg-query -W -f '${Version}' libseccomp2 2>/dev/null || echo '?'), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
"$work/cost" "$rounds"
