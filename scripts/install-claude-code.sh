#!/usr/bin/env bash
# Installs the Claude Code CLI (npm @anthropic-ai/claude-code, version pinned below) where sandboxes find it, for
# SubAgent and the sub_agent tool:
#   --host    /usr/local/bin/claude on this machine (the local jail binds /usr read-only, so every local sandbox
#             sees it)
#   --image   a Docker image $IMAGE-claude: the image (default sandbox4j/runtime:bookworm) plus the CLI in
#             /usr/local/bin (docker create + cp + commit: no registry, no builder)
# The package is kept in a cache directory; a second run installs from it without the network.
set -euo pipefail
VERSION=${CLAUDE_CODE_VERSION:-2.1.332}
IMAGE=${SANDBOX4J_DOCKER_IMAGE:-sandbox4j/runtime:bookworm}
CACHE=${SANDBOX4J_CACHE:-/var/cache/sandbox4j}/claude-code/$VERSION
BIN=$CACHE/node_modules/@anthropic-ai/claude-code/bin/claude.exe

if [ ! -x "$BIN" ]; then
    mkdir -p "$CACHE"
    # the platform's binary comes as an optional dependency; no install script runs
    npm install --prefix "$CACHE" --no-audit --no-fund --loglevel=error "@anthropic-ai/claude-code@$VERSION" >/dev/null
fi
"$BIN" --version

for what in "$@"; do
    case $what in
    --host)
        install -m 0755 "$BIN" /usr/local/bin/claude
        echo "installed /usr/local/bin/claude"
        ;;
    --image)
        target="$IMAGE-claude"
        if [ "$(docker image inspect -f '{{index .Config.Labels "sandbox4j.claude-code"}}' "$target" 2>/dev/null)" = "$VERSION" ]; then
            echo "$target already has Claude Code $VERSION"
            continue
        fi
        c=$(docker create "$IMAGE" /bin/true)
        trap 'docker rm -f "$c" >/dev/null 2>&1 || true' EXIT
        docker cp "$BIN" "$c:/usr/local/bin/claude"
        docker commit -c "LABEL sandbox4j.claude-code=$VERSION" "$c" "$target" >/dev/null
        docker rm -f "$c" >/dev/null
        trap - EXIT
        echo "built $target"
        ;;
    *)
        echo "usage: $0 [--host] [--image]" >&2
        exit 2
        ;;
    esac
done
