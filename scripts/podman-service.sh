#!/usr/bin/env bash
# Rootless Podman for the Docker backend's tests (docs/docker.md#rootless-podman). Run as root; idempotent.
#
#   scripts/podman-service.sh start    # user, subuid/subgid, the API service, the test image; prints DOCKER_HOST=…
#   scripts/podman-service.sh stop     # stops the service this script started
#   scripts/podman-service.sh status   # exit 0 and print DOCKER_HOST=… when the service answers
#
# start: creates the user $SANDBOX4J_PODMAN_USER (default sbxpod) when missing, gives it a subuid/subgid range of
# 65536 ids (the image's sandbox user is 10001), makes its XDG_RUNTIME_DIR (/run/user/<uid>, owned by it), starts
# `podman system service --time=0` as that user on unix:///run/user/<uid>/podman/podman.sock, and copies the test
# image ($SANDBOX4J_DOCKER_IMAGE, default sandbox4j/runtime:bookworm) from the root Docker engine into the user's
# store (`docker save | podman load`) unless it is there. Needs the packages podman uidmap slirp4netns
# fuse-overlayfs (Debian 12: podman 4.3) and, for the image, a Docker engine that has it
# (scripts/build-test-image.sh). Root can reach the socket; the engine itself runs as the user, without root.
set -euo pipefail

user=${SANDBOX4J_PODMAN_USER:-sbxpod}
image=${SANDBOX4J_DOCKER_IMAGE:-sandbox4j/runtime:bookworm}
cmd=${1:-start}

die() { echo "podman-service: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (it creates the user and runs the service as it)"

uid_of() { id -u "$user" 2>/dev/null; }

paths() {
    uid=$(uid_of) || die "no user $user (run: $0 start)"
    run_dir=/run/user/$uid
    sock=$run_dir/podman/podman.sock
    pidfile=$run_dir/sandbox4j-podman-service.pid
    logfile=/tmp/sandbox4j-podman-service-$uid.log
}

as_user() {
    runuser -u "$user" -- env HOME="$(getent passwd "$user" | cut -d: -f6)" XDG_RUNTIME_DIR="$run_dir" \
        PATH=/usr/local/bin:/usr/bin:/bin "$@"
}

answers() {
    [ -S "$sock" ] && curl -fsS --max-time 3 --unix-socket "$sock" http://d/_ping >/dev/null 2>&1
}

# A free subordinate id range of 65536 ids: above every range already given out.
add_range() {
    local file=$1
    grep -q "^$user:" "$file" 2>/dev/null && return 0
    local next
    next=$(awk -F: 'BEGIN { m = 100000 } { e = $2 + $3; if (e > m) m = e } END { print m }' "$file" 2>/dev/null \
        || echo 100000)
    echo "$user:$next:65536" >>"$file"
}

start() {
    command -v podman >/dev/null || die "podman is not installed (apt-get install -y podman uidmap slirp4netns fuse-overlayfs)"
    command -v newuidmap >/dev/null || die "newuidmap is missing (apt-get install -y uidmap)"
    if ! id "$user" >/dev/null 2>&1; then
        useradd --create-home --shell /bin/bash "$user"
    fi
    add_range /etc/subuid
    add_range /etc/subgid
    paths
    install -d -m 0700 -o "$user" -g "$(id -g "$user")" "$run_dir" "$run_dir/podman"
    # overlay storage: the kernel's own in a user namespace (5.13+), else fuse-overlayfs; without a storage.conf
    # Debian's podman 4.3 picks vfs, a full copy of the image for every container (1.9 s vs 1.0 s a run here).
    # Only for a user without one: switching an existing store needs `podman system reset`.
    local home conf
    home=$(getent passwd "$user" | cut -d: -f6)
    conf=$home/.config/containers/storage.conf
    if [ ! -e "$conf" ]; then
        install -d -o "$user" -g "$(id -g "$user")" "$home/.config" "$home/.config/containers"
        if [ "$(printf '%s\n' "5.13" "$(uname -r | cut -d- -f1)" | sort -V | head -1)" = "5.13" ]; then
            printf '[storage]\ndriver = "overlay"\n' >"$conf"
        else
            printf '[storage]\ndriver = "overlay"\n[storage.options.overlay]\nmount_program = "/usr/bin/fuse-overlayfs"\n' >"$conf"
        fi
        chown "$user:$(id -g "$user")" "$conf"
    fi
    if answers; then
        echo "podman-service: already answering on $sock" >&2
    else
        # the user's storage must know the new id ranges (harmless when it does already)
        as_user podman system migrate >/dev/null 2>&1 || true
        rm -f "$sock"
        # setsid + nohup: the service outlives this script; its pid is recorded for stop
        setsid nohup runuser -u "$user" -- env HOME="$(getent passwd "$user" | cut -d: -f6)" \
            XDG_RUNTIME_DIR="$run_dir" PATH=/usr/local/bin:/usr/bin:/bin \
            podman system service --time=0 "unix://$sock" >"$logfile" 2>&1 </dev/null &
        echo $! >"$pidfile"
        for _ in $(seq 1 60); do
            answers && break
            kill -0 "$(cat "$pidfile")" 2>/dev/null || break
            sleep 0.5
        done
        answers || { tail -30 "$logfile" >&2; die "the service did not answer on $sock within 30 s (log: $logfile)"; }
    fi
    if ! as_user podman image exists "$image"; then
        command -v docker >/dev/null && docker image inspect "$image" >/dev/null 2>&1 \
            || die "the root Docker engine has no $image to copy (scripts/build-test-image.sh)"
        docker save "$image" | as_user podman load >/dev/null
        as_user podman image exists "$image" || die "loading $image into $user's store failed"
    fi
    as_user podman --version >&2 || true
    as_user podman info --format 'rootless={{.Host.Security.Rootless}} cgroups={{.Host.CgroupsVersion}} manager={{.Host.CgroupManager}} storage={{.Store.GraphDriverName}}' >&2 || true
    echo "DOCKER_HOST=unix://$sock"
}

stop() {
    paths
    if [ -f "$pidfile" ]; then
        local pid
        pid=$(cat "$pidfile")
        # runuser's child is podman: end the process group setsid made, which is only ours
        kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 20); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.25
        done
        rm -f "$pidfile"
    fi
    # leave no sandbox behind in the user's store (labelled containers and volumes of sandbox4j)
    as_user podman rm -f --filter label=dev.sandbox4j=1 >/dev/null 2>&1 || true
    as_user podman volume prune -f --filter label=dev.sandbox4j=1 >/dev/null 2>&1 || true
    rm -f "$sock"
    echo "podman-service: stopped" >&2
}

status() {
    paths
    answers || { echo "podman-service: nothing answers on $sock" >&2; return 1; }
    echo "DOCKER_HOST=unix://$sock"
}

case "$cmd" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    *) die "usage: $0 start|stop|status" ;;
esac
