/*
 * test-pty.c: the agent's terminal unit (sbx-pty.c) and SPAWN's terminal fields (sbx-frame.c) against the golden
 * pty-* frames: sizes parsed and bounded, a real pseudo-terminal opened with its size, resized, made a child's
 * controlling terminal. Run by run-c-tests.sh: test-pty GOLDEN_DIR.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "check.h"
#include "sbx-frame.h"
#include "sbx-protocol.h"
#include "sbx-pty.h"

static const char *golden_dir;

static unsigned char *golden(const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.bin", golden_dir, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    unsigned char *b = malloc(1 << 16);
    *len = fread(b, 1, 1 << 16, f);
    fclose(f);
    return b;
}

static void golden_pty_spawn_parses_with_its_size(void)
{
    size_t n;
    unsigned char *b = golden("pty-spawn", &n);
    CHECK_OR_STOP(b != NULL);
    struct frame f;
    CHECK_OR_STOP(frame_split(b, n, &f) == FRAME_WHOLE);
    CHECK_EQ(f.type, SBX_SPAWN);
    CHECK_EQ(f.id, 12);
    struct spawn_args a;
    const char *why = NULL;
    CHECK_OR_STOP(parse_spawn(f.payload, f.len, &a, &why) == 0);
    CHECK_EQ(a.nargv, 2);
    CHECK_STR(a.argv[0], "bash");
    CHECK_STR(a.env[0], "TERM=xterm-256color");
    CHECK_EQ(a.keep, 0);
    CHECK_EQ(a.cols, 80);
    CHECK_EQ(a.rows, 24);
    free_spawn(&a);
    /* one of the two zero: refused, never a command on pipes the host thinks has a terminal */
    put32(b + n - 4, 0);
    CHECK_EQ(parse_spawn(f.payload, f.len, &a, &why), -1);
    CHECK_STR(why, "bad terminal size");
    /* both zero: no terminal */
    put32(b + n - 8, 0);
    CHECK_OR_STOP(parse_spawn(f.payload, f.len, &a, &why) == 0);
    CHECK_EQ(a.cols, 0);
    free_spawn(&a);
    /* a SPAWN without the fields (an older host's): no terminal */
    CHECK_OR_STOP(parse_spawn(f.payload, f.len - 8, &a, &why) == 0);
    CHECK_EQ(a.cols, 0);
    CHECK_EQ(a.rows, 0);
    free_spawn(&a);
    free(b);
}

static void golden_resize_parses_and_bad_sizes_are_refused(void)
{
    size_t n;
    unsigned char *b = golden("pty-resize", &n);
    CHECK_OR_STOP(b != NULL);
    struct frame f;
    CHECK_OR_STOP(frame_split(b, n, &f) == FRAME_WHOLE);
    CHECK_EQ(f.type, SBX_RESIZE);
    CHECK_EQ(f.id, 12);
    uint32_t cols = 0, rows = 0;
    CHECK_EQ(pty_parse_resize(f.payload, f.len, &cols, &rows), 0);
    CHECK_EQ(cols, 132);
    CHECK_EQ(rows, 43);
    CHECK_EQ(pty_parse_resize(f.payload, f.len - 1, &cols, &rows), -1);
    unsigned char bad[8];
    uint32_t sizes[][2] = { { 0, 24 }, { 80, 0 }, { PTY_MAX + 1, 24 }, { 80, 0xffffffffu } };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        put32(bad, sizes[i][0]);
        put32(bad + 4, sizes[i][1]);
        CHECK_EQ(pty_parse_resize(bad, 8, &cols, &rows), -1);
    }
    put32(bad, PTY_MAX);
    put32(bad + 4, PTY_MIN);
    CHECK_EQ(pty_parse_resize(bad, 8, &cols, &rows), 0);
    free(b);
}

static void a_terminal_opens_with_its_size_and_resizes(void)
{
    int m, s;
    const char *what = NULL;
    CHECK_OR_STOP(pty_open(80, 24, &m, &s, &what) == 0);
    CHECK(isatty(s));
    CHECK((fcntl(m, F_GETFL) & O_NONBLOCK) != 0);
    CHECK((fcntl(m, F_GETFD) & FD_CLOEXEC) != 0);
    CHECK((fcntl(s, F_GETFD) & FD_CLOEXEC) != 0);
    struct winsize ws;
    CHECK_OR_STOP(ioctl(s, TIOCGWINSZ, &ws) == 0);
    CHECK_EQ(ws.ws_col, 80);
    CHECK_EQ(ws.ws_row, 24);
    CHECK_EQ(pty_resize(m, 132, 43), 0);
    CHECK_OR_STOP(ioctl(s, TIOCGWINSZ, &ws) == 0);
    CHECK_EQ(ws.ws_col, 132);
    CHECK_EQ(ws.ws_row, 43);
    errno = 0;
    CHECK_EQ(pty_resize(m, 0, 43), -1);
    CHECK_EQ(errno, EINVAL);
    /* what the slave writes, the master reads (the line discipline makes \n \r\n) */
    CHECK_EQ(write(s, "hi\n", 3), 3);
    char buf[16];
    ssize_t r = -1;
    for (int i = 0; i < 100 && r < 0; i++) {
        r = read(m, buf, sizeof buf);
        if (r < 0)
            usleep(1000);
    }
    CHECK_EQ(r, 4);
    CHECK(r == 4 && memcmp(buf, "hi\r\n", 4) == 0);
    /* once every slave fd is closed the master reads EIO: the agent's end of the command's output */
    close(s);
    r = read(m, buf, sizeof buf);
    CHECK(r < 0 && errno == EIO);
    close(m);
}

static void the_child_gets_it_as_its_controlling_terminal(void)
{
    int m, s;
    const char *what = NULL;
    CHECK_OR_STOP(pty_open(80, 24, &m, &s, &what) == 0);
    pid_t p = fork();
    if (p == 0) {
        if (pty_make_controlling(s) != 0)
            _exit(1);
        /* the session's leader is the terminal's foreground process group: Ctrl-C reaches it, not the parent */
        _exit(tcgetpgrp(s) == getpid() && tcgetsid(s) == getpid() ? 0 : 2);
    }
    CHECK_OR_STOP(p > 0);
    int st;
    CHECK_EQ(waitpid(p, &st, 0), p);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(s);
    close(m);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test-pty GOLDEN_DIR\n");
        return 2;
    }
    golden_dir = argv[1];
    RUN(golden_pty_spawn_parses_with_its_size);
    RUN(golden_resize_parses_and_bad_sizes_are_refused);
    RUN(a_terminal_opens_with_its_size_and_resizes);
    RUN(the_child_gets_it_as_its_controlling_terminal);
    return checks_done();
}
