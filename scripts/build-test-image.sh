#!/usr/bin/env bash
# Builds the sandbox4j Docker runtime image (default tag sandbox4j/runtime:bookworm) from Debian
# bookworm with debootstrap, without any registry. Idempotent: exits immediately when the tag exists,
# unless --force is given.
#
# With --corpus it also builds the seccomp corpus image (tag <tag>-corpus, default
# sandbox4j/runtime:bookworm-corpus): the same rootfs plus gcc, libc6-dev, make, git, a headless JRE and strace, which
# DockerSeccompTest's workload corpus runs in (the runtime image stays small; the other tests use it).
# With --browser it builds the browser image (tag <tag>-browser) FROM the runtime image: Debian's chromium (and one
# font package) added with apt, setuid bits stripped; docs/browser.md's engine runs Chromium there.
# Requirements (fresh Debian 12): docker.io, debootstrap, root (or sudo) for debootstrap.
# Env: SANDBOX4J_DOCKER_IMAGE (tag), DEBIAN_MIRROR (defaults to the first deb.debian.org-style URI
# in /etc/apt/sources.list*, else http://deb.debian.org/debian), SANDBOX_UID (10001).
set -euo pipefail

TAG="${SANDBOX4J_DOCKER_IMAGE:-sandbox4j/runtime:bookworm}"
FORCE=0
CORPUS=0
BROWSER=0
BROWSER_PACKAGES="chromium fonts-liberation"
CORPUS_PACKAGES="gcc libc6-dev make git default-jre-headless strace"
for a in "$@"; do
  case "$a" in
    --force) FORCE=1 ;;
    --corpus) CORPUS=1 ;;
    --browser) BROWSER=1 ;;
    --tag=*) TAG="${a#--tag=}" ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "unknown argument: $a" >&2; exit 2 ;;
  esac
done

CORPUS_TAG="$TAG-corpus"
BROWSER_TAG="$TAG-browser"
have() { docker image inspect "$1" >/dev/null 2>&1; }

# The browser image, FROM the runtime image (built first when missing).
build_browser() {
  local start; start=$(date +%s)
  docker build -q -t "$BROWSER_TAG" - <<DOCKERFILE
FROM $TAG
USER root
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      $BROWSER_PACKAGES >/dev/null && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /usr/share/doc/* /usr/share/man/* \
    && (find / -xdev -type f \( -perm -4000 -o -perm -2000 \) -exec chmod ug-s {} + || true) \
    && test -x /usr/lib/chromium/chromium
USER $(docker image inspect "$TAG" --format '{{.Config.User}}')
LABEL dev.sandbox4j.image=1
DOCKERFILE
  echo "built $BROWSER_TAG in $(( $(date +%s) - start ))s"
  docker image inspect "$BROWSER_TAG" --format '{{.Id}} {{.Size}}'
}
# The rootfs images already there: only the browser image may be missing (built FROM the runtime image, no rootfs).
if [[ $BROWSER -eq 1 && $FORCE -eq 0 ]] && have "$TAG" && { [[ $CORPUS -eq 0 ]] || have "$CORPUS_TAG"; }; then
  if have "$BROWSER_TAG"; then
    echo "image $BROWSER_TAG already present (use --force to rebuild)"
  else
    build_browser
  fi
  exit 0
fi
if [[ $FORCE -eq 0 ]] && have "$TAG" && { [[ $CORPUS -eq 0 ]] || have "$CORPUS_TAG"; }; then
  echo "image $TAG$([[ $CORPUS -eq 1 ]] && echo " and $CORPUS_TAG") already present (use --force to rebuild)"
  exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

mirror_from_apt() {
  local m=""
  if compgen -G "/etc/apt/sources.list.d/*.sources" >/dev/null; then
    m=$(grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -n1 || true)
  fi
  if [[ -z "$m" && -f /etc/apt/sources.list ]]; then
    m=$(grep -E '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v security | head -n1 || true)
  fi
  echo "${m:-http://deb.debian.org/debian}"
}
MIRROR="${DEBIAN_MIRROR:-$(mirror_from_apt)}"
SANDBOX_UID="${SANDBOX_UID:-10001}"

START=$(date +%s)
WORK=$(mktemp -d /tmp/sandbox4j-rootfs.XXXXXX)
cleanup() {
  $SUDO umount "$WORK/rootfs/proc" 2>/dev/null || true
  $SUDO rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
ROOT="$WORK/rootfs"

echo "debootstrap bookworm from $MIRROR into $ROOT"
$SUDO debootstrap --variant=minbase \
  --include=python3,nodejs,bash,coreutils,procps,findutils,grep,sed,tar \
  bookworm "$ROOT" "$MIRROR"

# Sandbox user and workspace.
$SUDO chroot "$ROOT" /usr/sbin/groupadd -g "$SANDBOX_UID" sandbox
$SUDO chroot "$ROOT" /usr/sbin/useradd -u "$SANDBOX_UID" -g "$SANDBOX_UID" -d /workspace -M -s /bin/bash sandbox
$SUDO mkdir -p "$ROOT/workspace"
$SUDO chown "$SANDBOX_UID:$SANDBOX_UID" "$ROOT/workspace"
$SUDO chmod 0755 "$ROOT/workspace"

# Strip what a runtime does not need, and the setuid/setgid bits; then import the rootfs as tag $1.
strip_and_import() {
  $SUDO rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/cache/apt/* "$ROOT"/var/cache/debconf/*-old \
    "$ROOT"/usr/share/doc/* "$ROOT"/usr/share/man/* "$ROOT"/usr/share/info/* "$ROOT"/usr/share/locale/* \
    "$ROOT"/var/log/* "$ROOT"/tmp/* 2>/dev/null || true
  # No setuid/setgid binaries in the image (defence in depth; no-new-privileges blocks them anyway).
  $SUDO find "$ROOT" -xdev -type f \( -perm -4000 -o -perm -2000 \) -exec chmod ug-s {} + || true

  $SUDO tar -C "$ROOT" --numeric-owner -c . | docker import \
    --change 'WORKDIR /workspace' \
    --change "USER $SANDBOX_UID:$SANDBOX_UID" \
    --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 HOME=/workspace' \
    --change 'VOLUME /workspace' \
    --change 'CMD ["/bin/bash"]' \
    --change 'LABEL dev.sandbox4j.image=1' \
    - "$1"
  echo "built $1 in $(( $(date +%s) - START ))s"
  docker image inspect "$1" --format '{{.Id}} {{.Size}}'
}

if [[ $FORCE -eq 1 ]] || ! have "$TAG"; then
  strip_and_import "$TAG"
fi
if [[ $CORPUS -eq 1 ]]; then
  # The corpus's tools on top of the same rootfs (apt's lists were stripped: fetched again from the mirror).
  # /proc for ca-certificates-java's configure step, which runs the JRE.
  $SUDO mount -t proc proc "$ROOT/proc"
  $SUDO chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    $CORPUS_PACKAGES >/dev/null
  $SUDO umount "$ROOT/proc"
  strip_and_import "$CORPUS_TAG"
fi
if [[ $BROWSER -eq 1 ]]; then
  build_browser
fi
