/*
 * sbx-fs.c: the file operations' failures, paths, records, stat and read (see sbx-fs.h; the operations' arguments and
 * records are in PROTOCOL.md, "File operations").
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sbx-frame.h"
#include "sbx-fs.h"

/* --- failures --------------------------------------------------------------------------------------------------- */

static volatile int pending_dir = -1;
static char pending_name[64];
static volatile int pending_tree;

void fs_pending(int dirfd, const char *name, int tree)
{
    pending_dir = -1;
    if (name != NULL) {
        snprintf(pending_name, sizeof pending_name, "%s", name);
        pending_tree = tree;
        pending_dir = dirfd;
    }
}

static void remove_pending(void)
{
    if (pending_dir >= 0) {
        if (pending_tree)
            fs_remove_tree(pending_dir, pending_name);
        else
            unlinkat(pending_dir, pending_name, 0);
        pending_dir = -1;
    }
}

/* TERM from the host (a timeout), USR1 from the agent (it is ending), HUP/INT: the temporary goes, nothing commits. */
static void on_signal(int sig)
{
    if (pending_dir >= 0 && !pending_tree)
        unlinkat(pending_dir, pending_name, 0);
    _exit(128 + sig);
}

void fs_fail(const char *kind, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    remove_pending();
    char line[4200];
    size_t n = (size_t) snprintf(line, sizeof line, "E:%s:", kind);
    for (const char *c = msg; *c && n < sizeof line - 4; c++) {
        if (*c == '\n') {
            line[n++] = '\\';
            line[n++] = 'n';
        } else {
            line[n++] = *c;
        }
    }
    line[n++] = '\n';
    for (size_t off = 0; off < n;) {
        ssize_t w = write(2, line + off, n - off);
        if (w <= 0 && errno != EINTR)
            break;
        if (w > 0)
            off += (size_t) w;
    }
    _exit(FS_FAILED);
}

static const char *shown(const char *rel)
{
    return rel[0] ? rel : ".";
}

void fs_fail_errno(int err, const char *what, const char *rel)
{
    switch (err) {
    case ENOSPC:
    case EDQUOT:
        fs_fail("NO_SPACE_LEFT", "no space left in the workspace to %s %s (its byte or file quota is used up; delete "
                "files to make room)", what, shown(rel));
    case EFBIG:
        fs_fail("TOO_LARGE", "%s: over the file size limit", shown(rel));
    case ENOENT:
        fs_fail("NOT_FOUND", "no such file or directory: %s", shown(rel));
    case ENOTDIR:
        fs_fail("NOT_A_DIRECTORY", "not a directory: %s", shown(rel));
    case EISDIR:
        fs_fail("IS_A_DIRECTORY", "is a directory: %s", shown(rel));
    case ENOTEMPTY:
    case EEXIST:
        fs_fail(err == EEXIST ? "ALREADY_EXISTS" : "DIRECTORY_NOT_EMPTY", "%s: %s", strerror(err), shown(rel));
    case EACCES:
    case EPERM:
    case EROFS:
        fs_fail("PERMISSION_DENIED", "cannot %s %s: %s", what, shown(rel), strerror(err));
    case ENAMETOOLONG:
        fs_fail("INVALID_PATH", "name too long: %s", shown(rel));
    default:
        fs_fail("IO_ERROR", "cannot %s %s: %s", what, shown(rel), strerror(err));
    }
}

long long fs_arg(const char *s)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        fs_fail("INVALID_ARGUMENT", "bad number: %.40s", s);
    return v;
}

/* --- paths ------------------------------------------------------------------------------------------------------ */

int fs_split(const char *rel, struct fs_path *p)
{
    size_t len = strlen(rel);
    p->n = 0;
    if (len > FS_MAX_PATH || rel[0] == '/')
        return -1;
    memcpy(p->buf, rel, len + 1);
    if (len == 0)
        return 0;
    char *s = p->buf;
    for (;;) {
        char *slash = strchr(s, '/');
        if (slash)
            *slash = '\0';
        if (*s == '\0' || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
            return -1;
        p->part[p->n++] = s;
        if (!slash)
            return 0;
        s = slash + 1;
    }
}

/* The path of p's first k components, for messages. */
static const char *prefix(const struct fs_path *p, size_t k, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < k && n < cap; i++)
        n += (size_t) snprintf(out + n, cap - n, i ? "/%s" : "%s", p->part[i]);
    return out;
}

int fs_open_dirs(int dirfd, const struct fs_path *p, size_t upto, int create, const char *rel)
{
    (void) rel;
    int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        fs_fail_errno(errno, "open", "");
    for (size_t i = 0; i < upto; i++) {
        int next = openat(fd, p->part[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0 && errno == ENOENT && create) {
            if (mkdirat(fd, p->part[i], 0777) != 0 && errno != EEXIST) {
                char at[4200];
                int err = errno;
                fs_fail_errno(err, "create the directory", prefix(p, i + 1, at, sizeof at));
            }
            next = openat(fd, p->part[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (next < 0) {
            int err = errno;
            char at[4200];
            prefix(p, i + 1, at, sizeof at);
            struct stat st;
            if (fstatat(fd, p->part[i], &st, AT_SYMLINK_NOFOLLOW) == 0) {
                if (S_ISLNK(st.st_mode))
                    fs_fail("PERMISSION_DENIED", "refusing to follow the symbolic link %s", at);
                if (!S_ISDIR(st.st_mode))
                    fs_fail("NOT_A_DIRECTORY", "not a directory: %s", at);
            }
            fs_fail_errno(err, "open the directory", at);
        }
        close(fd);
        fd = next;
    }
    return fd;
}

char fs_type(const struct stat *st)
{
    return S_ISREG(st->st_mode) ? 'f' : S_ISDIR(st->st_mode) ? 'd' : S_ISLNK(st->st_mode) ? 'l' : 'o';
}

int fs_open_regular(int dirfd, const char *name, const char *rel, struct stat *st)
{
    /* what is there is checked first, and what was opened again: the sandbox may swap one for the other */
    if (fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) != 0)
        fs_fail_errno(errno == ENOENT ? ENOENT : errno, "read", rel);
    if (S_ISLNK(st->st_mode))
        fs_fail("PERMISSION_DENIED", "refusing to follow the symbolic link %s", rel);
    if (S_ISDIR(st->st_mode))
        fs_fail("IS_A_DIRECTORY", "is a directory: %s", rel);
    if (!S_ISREG(st->st_mode))
        fs_fail("PERMISSION_DENIED", "not a regular file: %s", rel);
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ELOOP)
            fs_fail("PERMISSION_DENIED", "refusing to follow the symbolic link %s", rel);
        fs_fail_errno(errno, "read", rel);
    }
    if (fstat(fd, st) != 0)
        fs_fail_errno(errno, "read", rel);
    if (!S_ISREG(st->st_mode))
        fs_fail(S_ISDIR(st->st_mode) ? "IS_A_DIRECTORY" : "PERMISSION_DENIED", "not a regular file: %s", rel);
    return fd;
}

/* --- records ---------------------------------------------------------------------------------------------------- */

size_t fs_put_entry(unsigned char *p, char type, const struct stat *st, const char *link, size_t llen, const char *path,
                    size_t plen)
{
    p[0] = (unsigned char) type;
    put64(p + 1, (uint64_t) st->st_size);
    put32(p + 9, (uint32_t) (st->st_mode & 07777));
    put64(p + 13, (uint64_t) st->st_mtim.tv_sec);
    put32(p + 21, (uint32_t) st->st_mtim.tv_nsec);
    put32(p + 25, (uint32_t) llen);
    memcpy(p + 29, link, llen);
    put32(p + 29 + llen, (uint32_t) plen);
    memcpy(p + 33 + llen, path, plen);
    return FS_ENTRY_FIXED + llen + plen;
}

static unsigned char out_buf[64u << 10];
static size_t out_len;

static void write_all(int fd, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            remove_pending();
            _exit(1); /* the host stopped reading: nothing to tell it */
        }
        p += w;
        len -= (size_t) w;
    }
}

void fs_out_flush(void)
{
    write_all(1, out_buf, out_len);
    out_len = 0;
}

void fs_out(const void *data, size_t len)
{
    if (out_len + len > sizeof out_buf) {
        fs_out_flush();
        if (len > sizeof out_buf) {
            write_all(1, data, len);
            return;
        }
    }
    memcpy(out_buf + out_len, data, len);
    out_len += len;
}

void fs_out_entry(char type, const struct stat *st, const char *link, size_t llen, const char *path, size_t plen)
{
    static unsigned char rec[FS_ENTRY_FIXED + 4096 + FS_MAX_PATH * 2];
    if (llen > 4096 || plen > FS_MAX_PATH * 2)
        fs_fail("TOO_LARGE", "a name of %zu bytes", plen);
    fs_out(rec, fs_put_entry(rec, type, st, link, llen, path, plen));
}

void fs_temp_name(char *out, size_t cap)
{
    unsigned char r[8];
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t) sizeof r) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        uint64_t v = (uint64_t) t.tv_nsec ^ ((uint64_t) getpid() << 32) ^ (uint64_t) t.tv_sec;
        memcpy(r, &v, sizeof r);
    }
    snprintf(out, cap, ".sandbox4j-%02x%02x%02x%02x%02x%02x%02x%02x.tmp", r[0], r[1], r[2], r[3], r[4], r[5], r[6],
             r[7]);
}

/* --- stat, read --------------------------------------------------------------------------------------------------- */

struct fs_path *fs_path_of(const char *rel)
{
    static struct fs_path *p;
    if (p == NULL && (p = malloc(sizeof *p)) == NULL)
        fs_fail("IO_ERROR", "out of memory");
    if (fs_split(rel, p) != 0)
        fs_fail("INVALID_PATH", "not a clean workspace-relative path");
    return p;
}

static int op_stat(int root, const char *rel)
{
    struct fs_path *p = fs_path_of(rel);
    struct stat st;
    char link[4097];
    ssize_t llen = 0;
    if (p->n == 0) {
        if (fstat(root, &st) != 0)
            fs_fail_errno(errno, "stat", rel);
    } else {
        int dir = fs_open_dirs(root, p, p->n - 1, 0, rel);
        const char *name = p->part[p->n - 1];
        if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            fs_fail_errno(errno, "stat", rel);
        if (S_ISLNK(st.st_mode) && (llen = readlinkat(dir, name, link, sizeof link - 1)) < 0)
            llen = 0;
        close(dir);
    }
    fs_out_entry(fs_type(&st), &st, link, (size_t) llen, "", 0);
    return 0;
}

static void copy_out(int fd, const char *rel, long long limit)
{
    static unsigned char buf[FS_CHUNK];
    while (limit != 0) {
        size_t want = limit < 0 || limit > (long long) sizeof buf ? sizeof buf : (size_t) limit;
        ssize_t n = read(fd, buf, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            fs_fail_errno(errno, "read", rel);
        if (n == 0) {
            if (limit > 0)
                fs_fail("IO_ERROR", "%s changed while it was read; read it again", rel);
            return;
        }
        fs_out(buf, (size_t) n);
        if (limit > 0)
            limit -= n;
    }
}

/* lines FROM TO(-1: to the end) MAX: the lines, terminators kept, at most MAX bytes of them. */
static void read_lines(int fd, const char *rel, long long from, long long to, long long max)
{
    static unsigned char buf[FS_CHUNK];
    long long line = 1, sent = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            fs_fail_errno(errno, "read", rel);
        if (n == 0)
            return;
        size_t start = 0;
        for (size_t i = 0; i < (size_t) n; i++) {
            if (buf[i] != '\n')
                continue;
            if (line >= from && (to < 0 || line <= to)) {
                fs_out(buf + start, i + 1 - start);
                sent += (long long) (i + 1 - start);
            }
            start = i + 1;
            line++;
            if (to >= 0 && line > to)
                return;
        }
        if (line >= from && start < (size_t) n) {
            fs_out(buf + start, (size_t) n - start);
            sent += (long long) ((size_t) n - start);
        }
        if (sent > max)
            fs_fail("TOO_LARGE", "lines %lld.. of %s are over the read limit of %lld bytes; read fewer", from, rel, max);
    }
}

/* read REL all MAX | range OFFSET LENGTH | stream | lines FROM TO MAX */
static int op_read(int root, int argc, char **argv)
{
    if (argc < 3)
        fs_fail("INVALID_ARGUMENT", "read: missing arguments");
    const char *rel = argv[1], *mode = argv[2];
    struct fs_path *p = fs_path_of(rel);
    if (p->n == 0)
        fs_fail("IS_A_DIRECTORY", "is a directory: .");
    int dir = fs_open_dirs(root, p, p->n - 1, 0, rel);
    struct stat st;
    int fd = fs_open_regular(dir, p->part[p->n - 1], rel, &st);
    close(dir);
    if (strcmp(mode, "all") == 0 && argc == 4) {
        long long max = fs_arg(argv[3]);
        if (st.st_size > max)
            fs_fail("TOO_LARGE", "%s is %lld bytes, over the read limit of %lld bytes", rel, (long long) st.st_size,
                    max);
        unsigned char size[8];
        put64(size, (uint64_t) st.st_size);
        fs_out(size, 8);
        copy_out(fd, rel, (long long) st.st_size);
    } else if (strcmp(mode, "range") == 0 && argc == 5) {
        long long off = fs_arg(argv[3]), len = fs_arg(argv[4]);
        if (off < 0 || len < 0)
            fs_fail("INVALID_ARGUMENT", "bad range");
        if (lseek(fd, (off_t) off, SEEK_SET) < 0)
            fs_fail_errno(errno, "read", rel);
        while (len > 0) {
            static unsigned char buf[FS_CHUNK];
            ssize_t n = read(fd, buf, len < (long long) sizeof buf ? (size_t) len : sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                fs_fail_errno(errno, "read", rel);
            if (n == 0)
                break;
            fs_out(buf, (size_t) n);
            len -= n;
        }
    } else if (strcmp(mode, "stream") == 0 && argc == 3) {
        copy_out(fd, rel, -1);
    } else if (strcmp(mode, "lines") == 0 && argc == 6) {
        read_lines(fd, rel, fs_arg(argv[3]), fs_arg(argv[4]), fs_arg(argv[5]));
    } else {
        fs_fail("INVALID_ARGUMENT", "read: unknown mode %.20s", mode);
    }
    close(fd);
    return 0;
}

/* --- dispatch ---------------------------------------------------------------------------------------------------- */

int fs_main(int argc, char **argv, const char *root_path)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* a host that stops reading is a failed write(), and the temporary goes */
    signal(SIGXFSZ, SIG_IGN); /* the file size limit is EFBIG: TOO_LARGE */
    if (argc < 1)
        fs_fail("INVALID_ARGUMENT", "no operation");
    if (strcmp(argv[0], "connect") == 0)
        return net_connect(argc, argv); /* sbx-net.c: no workspace involved */
    int root = open(root_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        fs_fail("IO_ERROR", "cannot open the workspace: %s", strerror(errno));
    const char *op = argv[0];
    int rc;
    if (strcmp(op, "stat") == 0 && argc == 2)
        rc = op_stat(root, argv[1]);
    else if (strcmp(op, "read") == 0)
        rc = op_read(root, argc, argv);
    else if (strcmp(op, "write") == 0)
        rc = fs_write(root, argc, argv);
    else if (strcmp(op, "commit") == 0)
        rc = fs_commit(root, argc, argv);
    else if (strcmp(op, "list") == 0)
        rc = fs_list(root, argc, argv);
    else if (strcmp(op, "mkdirs") == 0)
        rc = fs_mkdirs(root, argc, argv);
    else if (strcmp(op, "move") == 0 || strcmp(op, "copy") == 0)
        rc = fs_move(root, argc, argv, op[0] == 'c');
    else if (strcmp(op, "delete") == 0)
        rc = fs_delete(root, argc, argv);
    else if (strcmp(op, "cat") == 0)
        rc = fs_cat(root, argc, argv);
    else
        fs_fail("INVALID_ARGUMENT", "unknown file operation %.40s with %d arguments", op, argc - 1);
    fs_out_flush();
    return rc;
}
