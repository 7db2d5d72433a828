/*
 * sbx-pty.c: a command's pseudo-terminal, allocated by the agent inside the sandbox (the host's terminal is never
 * shared). See PROTOCOL.md, "Terminals".
 */
#ifndef SBX_PTY_H
#define SBX_PTY_H
#include <stddef.h>
#include <stdint.h>

/* Bounds of a terminal's size (both ends inclusive); a SPAWN or RESIZE outside them is refused or ignored. */
#define PTY_MIN 1
#define PTY_MAX 4096

/* Whether cols x rows is a size the agent accepts. */
int pty_size_ok(uint32_t cols, uint32_t rows);

/*
 * Opens a new pseudo-terminal of cols x rows: *master (close-on-exec, non-blocking) and *slave (close-on-exec, not
 * the caller's controlling terminal). 0, or -1 with errno and *what naming the step that failed.
 */
int pty_open(uint32_t cols, uint32_t rows, int *master, int *slave, const char **what);

/* TIOCSWINSZ on the master; the kernel sends SIGWINCH to the terminal's foreground process group. 0 or -1. */
int pty_resize(int master, uint32_t cols, uint32_t rows);

/* RESIZE's payload: int cols, int rows. 0, or -1 when malformed or out of bounds. */
int pty_parse_resize(const unsigned char *p, size_t len, uint32_t *cols, uint32_t *rows);

/* In the command's child (sbx-reaper --pty, after fork): a new session whose controlling terminal is fd. 0 or -1. */
int pty_make_controlling(int fd);
#endif
