/*
 * sbx-fs-tree.c: the file operations over trees: list (and grep's walk), mkdirs, move, copy, delete, and cat (grep's
 * reads). See sbx-fs.h; arguments and records in PROTOCOL.md, "File operations".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sbx-frame.h"
#include "sbx-fs.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#endif

static struct fs_path *new_path(const char *rel, int non_root)
{
    struct fs_path *p = malloc(sizeof *p);
    if (p == NULL)
        fs_fail("IO_ERROR", "out of memory");
    if (fs_split(rel, p) != 0)
        fs_fail("INVALID_PATH", "not a clean workspace-relative path");
    if (non_root && p->n == 0)
        fs_fail("INVALID_PATH", "not allowed on the workspace root");
    return p;
}

static DIR *open_dir_at(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    DIR *d = fdopendir(fd);
    if (d == NULL)
        close(fd);
    return d;
}

/* --- list ----------------------------------------------------------------------------------------------------- */

struct level {
    DIR *d;
    size_t plen;
};

/*
 * list REL DEPTH HIDDEN DEEP GREP: an entry record per entry under REL down to DEPTH (1..256) levels, in directory
 * order; HIDDEN 0 skips dot names and their subtrees; DEEP 1: a tree deeper than 256 levels is TOO_LARGE; GREP 1:
 * unreadable files are 'u', directories the sandbox user cannot enter 'D' (not entered).
 */
int fs_list(int root, int argc, char **argv)
{
    if (argc != 6)
        fs_fail("INVALID_ARGUMENT", "list: want REL DEPTH HIDDEN DEEP GREP");
    const char *rel = argv[1];
    long long depth = fs_arg(argv[2]);
    int hidden = argv[3][0] == '1', deep = argv[4][0] == '1', grep = argv[5][0] == '1';
    if (depth < 1 || depth > FS_MAX_DEPTH)
        fs_fail("INVALID_ARGUMENT", "list: depth %lld is not in 1..%d", depth, FS_MAX_DEPTH);
    struct fs_path *p = new_path(rel, 0);
    int fd = fs_open_dirs(root, p, p->n, 0, rel);
    static struct level stack[FS_MAX_DEPTH + 2];
    static char path[FS_MAX_PATH * 2 + 1];
    size_t n = 0;
    if ((stack[0].d = fdopendir(fd)) == NULL)
        fs_fail_errno(errno, "list", rel);
    stack[n++].plen = 0;
    while (n > 0) {
        struct level *l = &stack[n - 1];
        struct dirent *e = readdir(l->d);
        if (e == NULL) {
            closedir(l->d);
            n--;
            continue;
        }
        const char *name = e->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        if ((long long) n > FS_MAX_DEPTH)
            fs_fail("TOO_LARGE", "%s is nested deeper than %d directory levels; list or search a subdirectory, or list "
                    "a smaller depth", rel[0] ? rel : "the workspace", FS_MAX_DEPTH);
        if (!hidden && name[0] == '.')
            continue;
        size_t nl = strlen(name), plen = l->plen + (l->plen ? 1 : 0) + nl;
        if (plen > FS_MAX_PATH * 2)
            fs_fail("TOO_LARGE", "a path under %s is over %d bytes", rel[0] ? rel : "the workspace", FS_MAX_PATH * 2);
        if (l->plen)
            path[l->plen] = '/';
        memcpy(path + l->plen + (l->plen ? 1 : 0), name, nl + 1);
        struct stat st;
        int dfd = dirfd(l->d);
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue; /* gone meanwhile */
        char type = fs_type(&st);
        char link[4097];
        ssize_t ll = 0;
        if (type == 'l' && (ll = readlinkat(dfd, name, link, sizeof link - 1)) < 0)
            ll = 0;
        if (grep && type == 'f' && faccessat(dfd, name, R_OK, AT_EACCESS) != 0)
            type = 'u';
        if (grep && type == 'd' && faccessat(dfd, name, R_OK | X_OK, AT_EACCESS) != 0)
            type = 'D';
        if ((long long) n <= depth)
            fs_out_entry(type, &st, link, (size_t) ll, path, plen);
        if (type == 'd' && ((long long) n < depth || (deep && n == FS_MAX_DEPTH))) {
            DIR *child = open_dir_at(dfd, name);
            if (child != NULL) {
                stack[n].d = child;
                stack[n++].plen = plen;
            }
        }
    }
    return 0;
}

/* --- mkdirs, delete ---------------------------------------------------------------------------------------------- */

int fs_mkdirs(int root, int argc, char **argv)
{
    if (argc != 2)
        fs_fail("INVALID_ARGUMENT", "mkdirs: want REL");
    const char *rel = argv[1];
    struct fs_path *p = new_path(rel, 0);
    if (p->n == 0)
        return 0;
    int dir = fs_open_dirs(root, p, p->n - 1, 1, rel);
    const char *name = p->part[p->n - 1];
    if (mkdirat(dir, name, 0777) == 0)
        return 0;
    int err = errno;
    struct stat st;
    if (err == EEXIST && fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(st.st_mode))
            fs_fail("PERMISSION_DENIED", "refusing to follow the symbolic link %s", rel);
        if (S_ISDIR(st.st_mode))
            return 0;
        fs_fail("NOT_A_DIRECTORY", "exists and is not a directory: %s", rel);
    }
    fs_fail_errno(err, "create the directory", rel);
}

/* A work list of directories renamed up into the top directory, to remove after the current one. */
struct work {
    char **v;
    size_t n, cap;
};

static int push_work(struct work *w, const char *name)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        char **v = realloc(w->v, cap * sizeof *v);
        if (v == NULL)
            return -1;
        w->v = v;
        w->cap = cap;
    }
    return (w->v[w->n++] = strdup(name)) == NULL ? -1 : 0;
}

/*
 * Removes the directory name in top, bounded in fds whatever its depth: a directory met FS_MAX_DEPTH levels down is
 * renamed up into top under a temporary name and removed after this one.
 */
static int remove_dir(int top, const char *name, struct work *w)
{
    static DIR *stack[FS_MAX_DEPTH + 1];
    static char *names[FS_MAX_DEPTH + 1];
    size_t n = 0;
    if ((stack[0] = open_dir_at(top, name)) == NULL)
        return errno == ENOENT ? 0 : -1;
    names[n++] = NULL;
    int rc = 0;
    while (n > 0) {
        struct dirent *e = readdir(stack[n - 1]);
        if (e == NULL) {
            closedir(stack[n - 1]);
            n--;
            int parent = n == 0 ? top : dirfd(stack[n - 1]);
            if (unlinkat(parent, n == 0 ? name : names[n], AT_REMOVEDIR) != 0 && errno != ENOENT)
                rc = rc ? rc : -1;
            free(names[n]);
            names[n] = NULL;
            if (rc)
                break;
            continue;
        }
        const char *c = e->d_name;
        if (strcmp(c, ".") == 0 || strcmp(c, "..") == 0)
            continue;
        int fd = dirfd(stack[n - 1]);
        int is_dir = e->d_type == DT_DIR;
        if (e->d_type == DT_UNKNOWN) {
            struct stat st;
            is_dir = fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
        }
        if (!is_dir) {
            if (unlinkat(fd, c, 0) != 0 && errno != ENOENT) {
                rc = -1;
                break;
            }
        } else if (n >= FS_MAX_DEPTH) {
            char t[64];
            fs_temp_name(t, sizeof t);
            if (renameat(fd, c, top, t) != 0 || push_work(w, t) != 0) {
                rc = -1;
                break;
            }
        } else {
            DIR *child = open_dir_at(fd, c);
            if (child == NULL || (names[n] = strdup(c)) == NULL) {
                if (child)
                    closedir(child);
                rc = -1;
                break;
            }
            stack[n++] = child;
        }
    }
    int err = errno;
    while (n > 0) {
        closedir(stack[--n]);
        free(names[n]);
        names[n] = NULL;
    }
    errno = err;
    return rc;
}

int fs_remove_tree(int top, const char *name)
{
    struct stat st;
    if (fstatat(top, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlinkat(top, name, 0);
    struct work w = { 0 };
    int rc = remove_dir(top, name, &w);
    while (rc == 0 && w.n > 0) {
        char *t = w.v[--w.n];
        rc = remove_dir(top, t, &w);
        free(t);
    }
    while (w.n > 0)
        free(w.v[--w.n]);
    free(w.v);
    return rc;
}

int fs_delete(int root, int argc, char **argv)
{
    if (argc != 3)
        fs_fail("INVALID_ARGUMENT", "delete: want REL RECURSIVE");
    const char *rel = argv[1];
    struct fs_path *p = new_path(rel, 1);
    int dir = fs_open_dirs(root, p, p->n - 1, 0, rel);
    const char *name = p->part[p->n - 1];
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        fs_fail_errno(errno, "delete", rel);
    if (!S_ISDIR(st.st_mode)) {
        if (unlinkat(dir, name, 0) != 0)
            fs_fail_errno(errno, "delete", rel);
    } else if (argv[2][0] != '1') {
        if (unlinkat(dir, name, AT_REMOVEDIR) != 0) {
            if (errno == ENOTEMPTY || errno == EEXIST)
                fs_fail("DIRECTORY_NOT_EMPTY", "directory not empty: %s", rel);
            fs_fail_errno(errno, "delete", rel);
        }
    } else if (fs_remove_tree(dir, name) != 0) {
        fs_fail_errno(errno, "delete", rel);
    }
    return 0;
}

/* --- move, copy --------------------------------------------------------------------------------------------------- */

static int rename_into(int sdir, const char *sname, int ddir, const char *dname, int replace)
{
#ifdef SYS_renameat2
    if (!replace) {
        if (syscall(SYS_renameat2, sdir, sname, ddir, dname, RENAME_NOREPLACE) == 0)
            return 0;
        if (errno != ENOSYS && errno != EINVAL)
            return -1;
        /* a file system without RENAME_NOREPLACE: the target was checked absent just before */
    }
#endif
    (void) replace;
    return renameat(sdir, sname, ddir, dname);
}

static void copy_file(int sdir, const char *sname, int ddir, const char *dname, const char *from)
{
    struct stat st;
    int in = fs_open_regular(sdir, sname, from, &st);
    int out = openat(ddir, dname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 0777);
    if (out < 0)
        fs_fail_errno(errno, "copy", from);
    static unsigned char buf[FS_CHUNK];
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            fs_fail_errno(errno, "copy", from);
        if (n == 0)
            break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t) (n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                fs_fail_errno(w < 0 ? errno : ENOSPC, "copy", from);
            off += w;
        }
    }
    struct timespec times[2] = { st.st_atim, st.st_mtim };
    if (fchmod(out, st.st_mode & 07777) != 0 || futimens(out, times) != 0 || close(out) != 0)
        fs_fail_errno(errno, "copy", from);
    close(in);
}

/* Copies sname (of stat ss) to dname, never following links; a directory level deeper than 256 is TOO_LARGE. */
static void copy_entry(int sdir, const char *sname, const struct stat *ss, int ddir, const char *dname, int level,
                       const char *from)
{
    if (S_ISLNK(ss->st_mode)) {
        char target[4097];
        ssize_t n = readlinkat(sdir, sname, target, sizeof target - 1);
        if (n < 0)
            fs_fail_errno(errno, "copy", from);
        target[n] = '\0';
        if (symlinkat(target, ddir, dname) != 0)
            fs_fail_errno(errno, "copy", from);
    } else if (S_ISREG(ss->st_mode)) {
        copy_file(sdir, sname, ddir, dname, from);
    } else if (S_ISFIFO(ss->st_mode)) {
        if (mkfifoat(ddir, dname, ss->st_mode & 0777) != 0)
            fs_fail_errno(errno, "copy", from);
    } else if (S_ISDIR(ss->st_mode)) {
        if (level > FS_MAX_DEPTH)
            fs_fail("TOO_LARGE", "%s is nested deeper than %d directory levels; copy a subdirectory", from,
                    FS_MAX_DEPTH);
        DIR *d = open_dir_at(sdir, sname);
        if (d == NULL)
            fs_fail_errno(errno == ELOOP ? EACCES : errno, "copy", from);
        if (mkdirat(ddir, dname, 0700) != 0)
            fs_fail_errno(errno, "copy", from);
        int out = openat(ddir, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (out < 0)
            fs_fail_errno(errno, "copy", from);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            struct stat cs;
            if (fstatat(dirfd(d), e->d_name, &cs, AT_SYMLINK_NOFOLLOW) != 0)
                continue; /* gone meanwhile */
            copy_entry(dirfd(d), e->d_name, &cs, out, e->d_name, level + 1, from);
        }
        closedir(d);
        struct timespec times[2] = { ss->st_atim, ss->st_mtim };
        if (fchmod(out, ss->st_mode & 07777) != 0 || futimens(out, times) != 0)
            fs_fail_errno(errno, "copy", from);
        close(out);
    }
    /* sockets and devices are not copied */
}

static int is_empty_dir(int dir, const char *name)
{
    DIR *d = open_dir_at(dir, name);
    if (d == NULL)
        return 0;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)) != NULL)
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    return empty;
}

/* move|copy FROM TO REPLACE: the target's parents are created; a copy is made beside the target, then renamed. */
int fs_move(int root, int argc, char **argv, int copy)
{
    if (argc != 4)
        fs_fail("INVALID_ARGUMENT", "move: want FROM TO REPLACE");
    const char *from = argv[1], *to = argv[2];
    int replace = argv[3][0] == '1';
    struct fs_path *ps = new_path(from, 1), *pd = new_path(to, 1);
    size_t fl = strlen(from);
    if (strncmp(to, from, fl) == 0 && (to[fl] == '\0' || to[fl] == '/'))
        fs_fail("INVALID_PATH", "cannot move or copy %s into itself", from);
    int sdir = fs_open_dirs(root, ps, ps->n - 1, 0, from);
    const char *sname = ps->part[ps->n - 1];
    struct stat ss, ds;
    if (fstatat(sdir, sname, &ss, AT_SYMLINK_NOFOLLOW) != 0)
        fs_fail_errno(errno, copy ? "copy" : "move", from);
    int ddir = fs_open_dirs(root, pd, pd->n - 1, 1, to);
    const char *dname = pd->part[pd->n - 1];
    if (fstatat(ddir, dname, &ds, AT_SYMLINK_NOFOLLOW) == 0) {
        if (!replace)
            fs_fail("ALREADY_EXISTS", "the target exists: %s", to);
        if (S_ISDIR(ds.st_mode)) {
            if (!is_empty_dir(ddir, dname))
                fs_fail("DIRECTORY_NOT_EMPTY", "the target is a non-empty directory: %s", to);
            if (!S_ISDIR(ss.st_mode))
                fs_fail("IS_A_DIRECTORY", "the target is a directory: %s", to);
        } else if (S_ISDIR(ss.st_mode)) {
            fs_fail("NOT_A_DIRECTORY", "the target is not a directory: %s", to);
        }
    }
    const char *src = sname;
    int from_dir = sdir;
    char tmp[64];
    if (copy) {
        fs_temp_name(tmp, sizeof tmp);
        fs_pending(ddir, tmp, 1);
        copy_entry(sdir, sname, &ss, ddir, tmp, 0, from);
        src = tmp;
        from_dir = ddir;
    }
    if (rename_into(from_dir, src, ddir, dname, replace) != 0) {
        int err = errno;
        if (err == EEXIST)
            fs_fail("ALREADY_EXISTS", "the target exists: %s", to);
        if (err == ENOTEMPTY)
            fs_fail("DIRECTORY_NOT_EMPTY", "the target is a non-empty directory: %s", to);
        if (err == EINVAL)
            fs_fail("INVALID_PATH", "cannot move or copy %s into itself", from);
        fs_fail_errno(err, copy ? "copy to" : "move to", to);
    }
    fs_pending(-1, NULL, 0);
    return 0;
}

/* --- cat ------------------------------------------------------------------------------------------------------------ */

static int unhex(const char *h, char *out, size_t cap)
{
    size_t n = strlen(h);
    if (n % 2 || n / 2 >= cap)
        return -1;
    for (size_t i = 0; i < n; i += 2) {
        int v = 0;
        for (int k = 0; k < 2; k++) {
            char c = h[i + k];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0)
                return -1;
            v = v * 16 + d;
        }
        if (v == 0)
            return -1;
        out[i / 2] = (char) v;
    }
    out[n / 2] = '\0';
    return 0;
}

/* One file of a cat: its status byte; for 'f', its content as chunks (int length + bytes), then int 0. */
static void cat_one(int dir, const char *hex, struct fs_path *q)
{
    static char name[FS_MAX_PATH + 1];
    unsigned char status = 'v';
    int fd = -1;
    if (unhex(hex, name, sizeof name) == 0 && fs_split(name, q) == 0 && q->n > 0) {
        int d = fcntl(dir, F_DUPFD_CLOEXEC, 0);
        for (size_t i = 0; d >= 0 && i + 1 < q->n; i++) {
            int next = openat(d, q->part[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            struct stat st;
            if (next < 0 && fstatat(d, q->part[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
                status = 'l';
            close(d);
            d = next;
        }
        struct stat st;
        const char *last = q->part[q->n - 1];
        if (d < 0 || fstatat(d, last, &st, AT_SYMLINK_NOFOLLOW) != 0)
            status = status == 'l' ? 'l' : 'v';
        else if (S_ISLNK(st.st_mode))
            status = 'l';
        else if (S_ISDIR(st.st_mode))
            status = 'd';
        else if (!S_ISREG(st.st_mode))
            status = 's';
        else if ((fd = openat(d, last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
            status = errno == EACCES || errno == EPERM ? 'u' : errno == ELOOP ? 'l' : 'v';
        else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
            status = 's';
        else
            status = 'f';
        if (d >= 0)
            close(d);
    }
    fs_out(&status, 1);
    if (status == 'f') {
        static unsigned char buf[4 + FS_CHUNK];
        for (;;) {
            ssize_t n = read(fd, buf + 4, 64u << 10);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            put32(buf, (uint32_t) n);
            fs_out(buf, 4 + (size_t) n);
        }
        put32(buf, 0);
        fs_out(buf, 4);
    }
    if (fd >= 0)
        close(fd); /* not flushed here: small files share the 64 KiB output buffer, and so the frames */
}

/* cat DIR HEXNAME...: each name (hex of its bytes, relative to DIR) as cat_one says, in order. */
int fs_cat(int root, int argc, char **argv)
{
    if (argc < 2)
        fs_fail("INVALID_ARGUMENT", "cat: want DIR NAME...");
    struct fs_path *p = new_path(argv[1], 0);
    int dir = fs_open_dirs(root, p, p->n, 0, argv[1]);
    struct fs_path *q = malloc(sizeof *q);
    if (q == NULL)
        fs_fail("IO_ERROR", "out of memory");
    for (int i = 2; i < argc; i++)
        cat_one(dir, argv[i], q);
    return 0;
}
