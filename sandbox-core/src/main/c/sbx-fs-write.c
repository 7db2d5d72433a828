/*
 * sbx-fs-write.c: the file operations that write: write (content from stdin, chunked with an end mark) and commit (a
 * temporary the host uploaded by other means). See sbx-fs.h; arguments in PROTOCOL.md, "File operations".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx-frame.h"
#include "sbx-fs.h"

/* --- write -------------------------------------------------------------------------------------------------------- */

static unsigned char in_buf[64u << 10];
static size_t in_len, in_off;

/* n bytes of stdin (after the gate); 0 at EOF before any of them, -1 at EOF within them. */
static int read_in(unsigned char *into, size_t n)
{
    size_t got = 0;
    while (got < n) {
        if (in_off == in_len) {
            ssize_t r = read(0, in_buf, sizeof in_buf);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                return got == 0 ? 0 : -1;
            in_len = (size_t) r;
            in_off = 0;
        }
        size_t take = in_len - in_off < n - got ? in_len - in_off : n - got;
        memcpy(into + got, in_buf + in_off, take);
        in_off += take;
        got += take;
    }
    return 1;
}

/*
 * Copies the content on stdin (int length + bytes, ..., int 0) to fd; returns the bytes written. EOF before the
 * final zero-length chunk is an abort (the host failed or died mid-stream): nothing may be committed.
 */
static long long receive(int fd, const char *rel, void (*undo)(int fd, off_t at), off_t at)
{
    static unsigned char buf[FS_CHUNK];
    long long total = 0;
    for (;;) {
        unsigned char h[4];
        if (read_in(h, 4) != 1) {
            undo(fd, at);
            fs_fail("IO_ERROR", "the content of %s ended before its end mark (the writer failed); nothing written", rel);
        }
        uint32_t len = get32(h);
        if (len == 0)
            return total;
        if (len > FS_CHUNK) {
            undo(fd, at);
            fs_fail("IO_ERROR", "bad content chunk of %u bytes for %s", len, rel);
        }
        if (read_in(buf, len) != 1) {
            undo(fd, at);
            fs_fail("IO_ERROR", "the content of %s ended before its end mark (the writer failed); nothing written", rel);
        }
        for (size_t off = 0; off < len;) {
            ssize_t w = write(fd, buf + off, len - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                int err = w < 0 ? errno : ENOSPC;
                undo(fd, at);
                fs_fail_errno(err, "write", rel);
            }
            off += (size_t) w;
        }
        total += len;
    }
}

static void undo_nothing(int fd, off_t at)
{
    (void) fd;
    (void) at;
}

static void undo_append(int fd, off_t at)
{
    /* a full workspace leaves the file as it was, not half appended */
    if (ftruncate(fd, at) != 0) {
        /* nothing more to do: the failure is reported */
    }
}

static mode_t current_umask(void);

/* Whether the target of a write exists (st filled); a link, a directory or a special file there fails. */
static int write_target(int dir, const char *name, const char *rel, struct stat *st)
{
    int exists = fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) == 0;
    if (!exists && errno != ENOENT)
        fs_fail_errno(errno, "write", rel);
    if (exists && S_ISLNK(st->st_mode))
        fs_fail("PERMISSION_DENIED", "refusing to write through the symbolic link %s", rel);
    if (exists && S_ISDIR(st->st_mode))
        fs_fail("IS_A_DIRECTORY", "is a directory: %s", rel);
    if (exists && !S_ISREG(st->st_mode))
        fs_fail("PERMISSION_DENIED", "not a regular file: %s", rel);
    return exists;
}

/*
 * commit TMP REL replace|append: TMP, a file the host put directly in the root (a container engine's archive upload,
 * faster for large content than STDIN frames), becomes REL's content: renamed over it with the old file's mode, or
 * appended to it (truncated back on a failure). TMP is removed whatever happens; prints its long size.
 */
int fs_commit(int root, int argc, char **argv)
{
    if (argc != 4)
        fs_fail("INVALID_ARGUMENT", "commit: want TMP REL MODE");
    const char *tmp = argv[1], *rel = argv[2];
    size_t tl = strlen(tmp);
    if (strchr(tmp, '/') != NULL || strncmp(tmp, ".sandbox4j-", 11) != 0 || tl < 15 || strcmp(tmp + tl - 4, ".tmp") != 0)
        fs_fail("INVALID_ARGUMENT", "commit: not a temporary's name");
    fs_pending(root, tmp, 0);
    int in = openat(root, tmp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat ts, st;
    if (in < 0 || fstat(in, &ts) != 0 || !S_ISREG(ts.st_mode))
        fs_fail("IO_ERROR", "the uploaded content of %s is gone; retry", rel);
    struct fs_path *p = fs_path_of(rel);
    if (p->n == 0)
        fs_fail("INVALID_PATH", "cannot write the workspace root");
    int dir = fs_open_dirs(root, p, p->n - 1, 1, rel);
    const char *name = p->part[p->n - 1];
    int exists = write_target(dir, name, rel, &st);
    if (strcmp(argv[3], "append") == 0 && exists) {
        int out = openat(dir, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (out < 0)
            fs_fail_errno(errno == ELOOP ? EACCES : errno, "append to", rel);
        if (fstat(out, &st) != 0 || !S_ISREG(st.st_mode))
            fs_fail("PERMISSION_DENIED", "not a regular file: %s", rel);
        static unsigned char buf[FS_CHUNK];
        for (;;) {
            ssize_t n = read(in, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            for (ssize_t off = 0; off < n;) {
                ssize_t w = write(out, buf + off, (size_t) (n - off));
                if (w < 0 && errno == EINTR)
                    continue;
                if (w <= 0) {
                    int err = w < 0 ? errno : ENOSPC;
                    undo_append(out, st.st_size);
                    fs_fail_errno(err, "append to", rel);
                }
                off += w;
            }
        }
        if (close(out) != 0)
            fs_fail_errno(errno, "append to", rel);
        unlinkat(root, tmp, 0);
    } else {
        if (fchmod(in, exists ? st.st_mode & 0777 : 0666 & ~current_umask()) != 0)
            fs_fail_errno(errno, "write", rel);
        if (renameat(root, tmp, dir, name) != 0)
            fs_fail_errno(errno, "write", rel);
    }
    fs_pending(-1, NULL, 0);
    close(in);
    unsigned char n[8];
    put64(n, (uint64_t) ts.st_size);
    fs_out(n, 8);
    return 0;
}

static mode_t current_umask(void)
{
    mode_t m = umask(022);
    umask(m);
    return m;
}

/*
 * write REL replace|append EXPECTED(-1: unknown) [SIZE MTIME_NS]: content on stdin; prints the long count received.
 * With SIZE and MTIME_NS (an edit's), the target must still have them when the content is renamed over it: CONFLICT.
 */
int fs_write(int root, int argc, char **argv)
{
    if (argc != 4 && argc != 6)
        fs_fail("INVALID_ARGUMENT", "write: want REL MODE EXPECTED [SIZE MTIME_NS]");
    const char *rel = argv[1];
    int append = strcmp(argv[2], "append") == 0;
    long long expected = fs_arg(argv[3]);
    struct fs_path *p = fs_path_of(rel);
    if (p->n == 0)
        fs_fail("INVALID_PATH", "cannot write the workspace root");
    int dir = fs_open_dirs(root, p, p->n - 1, 1, rel);
    const char *name = p->part[p->n - 1];
    struct stat st;
    int exists = write_target(dir, name, rel, &st);
    long long got;
    if (append && exists) {
        int fd = openat(dir, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
            fs_fail_errno(errno == ELOOP ? EACCES : errno, "append to", rel);
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
            fs_fail("PERMISSION_DENIED", "not a regular file: %s", rel);
        got = receive(fd, rel, undo_append, st.st_size);
        if (expected >= 0 && got != expected) {
            undo_append(fd, st.st_size);
            fs_fail("IO_ERROR", "received %lld bytes of %lld for %s (content lost on the way); retry", got, expected,
                    rel);
        }
        if (close(fd) != 0)
            fs_fail_errno(errno, "append to", rel);
    } else {
        char tmp[64];
        fs_temp_name(tmp, sizeof tmp);
        int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0)
            fs_fail_errno(errno, "write", rel);
        fs_pending(dir, tmp, 0);
        got = receive(fd, rel, undo_nothing, 0);
        if (expected >= 0 && got != expected)
            fs_fail("IO_ERROR", "received %lld bytes of %lld for %s (content lost on the way); retry", got, expected,
                    rel);
        if (exists && fchmod(fd, st.st_mode & 0777) != 0)
            fs_fail_errno(errno, "write", rel);
        if (close(fd) != 0)
            fs_fail_errno(errno, "write", rel);
        if (argc == 6) {
            struct stat now;
            long long size = fs_arg(argv[4]), mtime = fs_arg(argv[5]);
            if (fstatat(dir, name, &now, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(now.st_mode) || now.st_size != size
                || (long long) now.st_mtim.tv_sec * 1000000000LL + now.st_mtim.tv_nsec != mtime)
                fs_fail("CONFLICT", "%s changed while it was being edited; read it and edit it again", rel);
        }
        if (renameat(dir, tmp, dir, name) != 0)
            fs_fail_errno(errno, "write", rel);
        fs_pending(-1, NULL, 0);
    }
    close(dir);
    unsigned char n[8];
    put64(n, (uint64_t) got);
    fs_out(n, 8);
    return 0;
}

