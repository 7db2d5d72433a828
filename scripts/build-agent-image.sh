#!/bin/sh
# Builds the image sandbox4j/agent:TAG from scratch (no base image, no registry): the static agent's binaries of
# sandbox-core (target/classes, for the engine's architecture, checked against their SHA256SUMS) in /sandbox4j, and
# the static /sbx-install (scripts/agent-image/sbx-install.c) that a pod's init container runs to copy them into a
# shared emptyDir (docs/kubernetes.md, docs/kubernetes/pool.yaml). Push it to your registry under the name the
# template uses.
#
#   scripts/build-agent-image.sh [TAG]      (after a build of sandbox-core: mvn -pl sandbox-core package)
set -eu
tag=${1:-0.1.0}
root=$(cd "$(dirname "$0")/.." && pwd)
case "$(docker version -f '{{.Server.Arch}}')" in
    amd64 | x86_64) arch=x86_64 cc=${CC:-gcc} ;;
    arm64 | aarch64) arch=aarch64 cc=${CC:-aarch64-linux-gnu-gcc} ;;
    *) echo "unsupported engine architecture" >&2; exit 1 ;;
esac
native=$root/sandbox-core/target/classes/dev/sandbox4j/core/native/linux-$arch
[ -x "$native/sbx-agent" ] || { echo "no $native/sbx-agent: build sandbox-core first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root/sandbox4j"
(cd "$native" && sha256sum -c --quiet SHA256SUMS)
cp "$native/sbx-agent" "$native/sbx-reaper" "$native/sbx-relay" "$work/root/sandbox4j/"
"$cc" -static -O2 -Wall -Wextra -Werror -s -o "$work/root/sbx-install" "$root/scripts/agent-image/sbx-install.c"
chmod 0555 "$work/root/sbx-install" "$work/root/sandbox4j/"*
tar -C "$work/root" --owner=0 --group=0 --numeric-owner -cf - . \
    | docker import --change 'ENTRYPOINT ["/sbx-install"]' --change 'USER 10001:10001' - "sandbox4j/agent:$tag" >/dev/null
echo "sandbox4j/agent:$tag"
