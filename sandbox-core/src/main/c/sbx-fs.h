/*
 * sbx-fs.h: the file operations the agent runs itself (FILE frames, PROTOCOL.md "File operations"), in a forked child
 * that never execs: nothing in the sandbox but the agent is needed (no shell, no coreutils). Every path is resolved
 * one component at a time from the workspace root's fd with O_NOFOLLOW, so a symbolic link on the way is refused,
 * never followed, whatever the sandbox swaps in meanwhile; special files are never opened for reading.
 *
 * Results are records on stdout (big-endian, as the frames); a failure is exit status 3 and one stderr line
 * "E:KIND:message" (KIND an ErrorKind name). Units: sbx-fs.c (failures, paths, records, stat, read),
 * sbx-fs-write.c (write, commit), sbx-fs-tree.c (list, mkdirs, move, copy, delete, cat).
 */
#ifndef SBX_FS_H
#define SBX_FS_H
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Directory levels a walk goes down (as the other backends); deeper is TOO_LARGE. */
#define FS_MAX_DEPTH 256
/* The exit status of an operation that failed with an E: line. */
#define FS_FAILED 3
/* The largest chunk of a write's content on stdin, and of a cat's file on stdout. */
#define FS_CHUNK (256u << 10)

/*
 * Runs one operation: argv[0] is its name, root the workspace's absolute path. Returns the exit status (0, or
 * FS_FAILED after the E: line). The gate byte has been read; stdin holds what follows it.
 */
int fs_main(int argc, char **argv, const char *root);

/* --- shared by the units, and by the C unit tests --------------------------------------------------------------- */

/* Prints "E:KIND:message" (newlines in it as "\n"), removes the pending temporary, exits FS_FAILED. */
__attribute__((noreturn, format(printf, 2, 3))) void fs_fail(const char *kind, const char *fmt, ...);
/* The failure for errno err met at path (rel, for the message) while doing what. */
__attribute__((noreturn)) void fs_fail_errno(int err, const char *what, const char *rel);

/* A relative path's checked components: no empty, ".", ".." or absolute path; at most FS_MAX_PATH bytes. */
#define FS_MAX_PATH 65536
struct fs_path {
    char buf[FS_MAX_PATH + 1];
    char *part[FS_MAX_PATH / 2 + 1];
    size_t n;
};
/* 0, or -1 when rel is not a clean relative path ("" is the root: n = 0). */
int fs_split(const char *rel, struct fs_path *p);

/*
 * Opens the directory holding p's last component, from dirfd, one component at a time with O_NOFOLLOW: a link on the
 * way is PERMISSION_DENIED, a file NOT_A_DIRECTORY, a missing one NOT_FOUND, or created when create is set. Returns
 * the directory's fd (dirfd itself, dup'ed, when p has one component); fails through fs_fail. rel names p in messages.
 * upto: components to open (p->n - 1 for the parent, p->n for p itself as a directory).
 */
int fs_open_dirs(int dirfd, const struct fs_path *p, size_t upto, int create, const char *rel);

/* Opens name in dirfd for reading, only when it is a regular file (never a FIFO, device or socket); fails through fs_fail. */
int fs_open_regular(int dirfd, const char *name, const char *rel, struct stat *st);

/* One entry record; returns its size (FS_ENTRY_FIXED + link + path). type: 'f' 'd' 'l' 'o', 'u' 'D' (unreadable). */
#define FS_ENTRY_FIXED 33
size_t fs_put_entry(unsigned char *p, char type, const struct stat *st, const char *link, size_t llen, const char *path,
                    size_t plen);
char fs_type(const struct stat *st);

/* Buffered stdout; fs_out_flush at the end (exit on a write failure: the host is gone). */
void fs_out(const void *data, size_t len);
void fs_out_flush(void);
void fs_out_entry(char type, const struct stat *st, const char *link, size_t llen, const char *path, size_t plen);

/* A temporary the failure path removes: name in dirfd (a directory tree when tree is set); dirfd -1 for none. */
void fs_pending(int dirfd, const char *name, int tree);
void fs_temp_name(char *out, size_t cap);
/* Removes name in dirfd, a whole tree when it is a directory, never following links; 0 or -1 (errno). */
int fs_remove_tree(int dirfd, const char *name);

/* The checked path of rel (INVALID_PATH otherwise), in a buffer the next call reuses. */
struct fs_path *fs_path_of(const char *rel);

/* the operations of sbx-fs-write.c and sbx-fs-tree.c */
int fs_write(int root, int argc, char **argv);
int fs_commit(int root, int argc, char **argv);
int fs_list(int root, int argc, char **argv);
int fs_mkdirs(int root, int argc, char **argv);
int fs_move(int root, int argc, char **argv, int copy);
int fs_delete(int root, int argc, char **argv);
int fs_cat(int root, int argc, char **argv);
long long fs_arg(const char *s);
/* sbx-net.c: connect PORT [probe] (PROTOCOL.md, "Ports") */
int net_connect(int argc, char **argv);
#endif
