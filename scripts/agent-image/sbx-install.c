/*
 * sbx-install: the only program of the sandbox4j/agent image (scripts/build-agent-image.sh), run as the init
 * container of a Kubernetes sandbox pod (docs/kubernetes.md): copies the static agent's binaries from /sandbox4j into
 * the pod's shared emptyDir (argv[1]), mode 0555, so the workload container, whatever its image, starts
 * /opt/sandbox4j/sbx-agent as its first process. No shell, no libc outside the static binary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int copy(const char *name, const char *dir)
{
    char from[256], to[4096];
    snprintf(from, sizeof from, "/sandbox4j/%s", name);
    if ((size_t) snprintf(to, sizeof to, "%s/%s", dir, name) >= sizeof to)
        return -1;
    int in = open(from, O_RDONLY | O_CLOEXEC);
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0555);
    if (in < 0 || out < 0) {
        fprintf(stderr, "sbx-install: %s: %s\n", in < 0 ? from : to, strerror(errno));
        return -1;
    }
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0) {
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t) (n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                fprintf(stderr, "sbx-install: writing %s: %s\n", to, strerror(errno));
                return -1;
            }
            off += w;
        }
    }
    if (n < 0 || fchmod(out, 0555) != 0 || fsync(out) != 0 || close(out) != 0) {
        fprintf(stderr, "sbx-install: %s: %s\n", to, strerror(errno));
        return -1;
    }
    close(in);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: sbx-install DIR\n");
        return 2;
    }
    static const char *const names[] = { "sbx-agent", "sbx-reaper", "sbx-relay" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (copy(names[i], argv[1]) != 0)
            return 1;
    return 0;
}
