/*
 * sbx-pty.c: pseudo-terminals for commands spawned with a size (PROTOCOL.md, "Terminals").
 *
 * The agent opens the pair (posix_openpt on the sandbox's own /dev/ptmx: bwrap's --dev and a container's /dev
 * each mount a private devpts), keeps the master and gives the slave to the command's sbx-reaper as its fd 1 and
 * 2; the reaper's child makes it its controlling terminal (setsid + TIOCSCTTY) and its stdin, stdout and stderr.
 * The master is then the command's stdout (one stream: a terminal merges stdout and stderr) and its stdin.
 * TIOCSTI stays refused by the seccomp filter; nothing here needs it.
 */
#define _GNU_SOURCE
#include "sbx-pty.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

int pty_size_ok(uint32_t cols, uint32_t rows)
{
    return cols >= PTY_MIN && cols <= PTY_MAX && rows >= PTY_MIN && rows <= PTY_MAX;
}

int pty_open(uint32_t cols, uint32_t rows, int *master, int *slave, const char **what)
{
    *master = *slave = -1;
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m < 0) {
        *what = "posix_openpt";
        return -1;
    }
    /* grantpt is a no-op on devpts (the slave is made with the caller's uid and mode 0620) */
    if (unlockpt(m) != 0) {
        *what = "unlockpt";
        goto fail;
    }
    int s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (s < 0) {
        /* before Linux 4.13: by name (the name is the sandbox's own devpts') */
        char name[64];
        if (ptsname_r(m, name, sizeof name) != 0) {
            *what = "ptsname";
            goto fail;
        }
        s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (s < 0) {
            *what = "open the terminal's slave";
            goto fail;
        }
    }
    if (pty_resize(m, cols, rows) != 0 || fcntl(m, F_SETFL, O_NONBLOCK) != 0) {
        int e = errno;
        close(s);
        errno = e;
        *what = "set the terminal's size";
        goto fail;
    }
    *master = m;
    *slave = s;
    return 0;
fail:;
    int e = errno;
    close(m);
    errno = e;
    return -1;
}

int pty_resize(int master, uint32_t cols, uint32_t rows)
{
    if (!pty_size_ok(cols, rows)) {
        errno = EINVAL;
        return -1;
    }
    struct winsize ws = { (unsigned short) rows, (unsigned short) cols, 0, 0 };
    return ioctl(master, TIOCSWINSZ, &ws);
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | (uint32_t) p[3];
}

int pty_parse_resize(const unsigned char *p, size_t len, uint32_t *cols, uint32_t *rows)
{
    if (len != 8)
        return -1;
    *cols = get32(p);
    *rows = get32(p + 4);
    return pty_size_ok(*cols, *rows) ? 0 : -1;
}

int pty_make_controlling(int fd)
{
    if (setsid() < 0 || ioctl(fd, TIOCSCTTY, 0) != 0)
        return -1;
    return 0;
}
