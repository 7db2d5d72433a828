/*
 * sbx-proc.h: the jail's one implementation of "find and signal a process subtree" through the ppid
 * links of /proc/<pid>/stat, shared by sbx-reaper (its own descendants) and sbx-agent (what was
 * re-parented to the jail's init). Included by one translation unit per program (static functions).
 */
#ifndef SBX_PROC_H
#define SBX_PROC_H
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* --- process table ------------------------------------------------------------------------------ */

struct proc {
    pid_t pid;
    pid_t ppid;
    char state;
    char mark;
};

struct table {
    struct proc *v;
    size_t n;
    size_t cap;
};

/*
 * Parses "pid (comm) S ppid ..." from /proc/<pid>/stat. comm is attacker-chosen (spaces, ')' and
 * newlines allowed, at most 15 bytes), so the fields after it are found from the LAST ')'.
 */
static int read_stat(pid_t pid, char *state, pid_t *ppid)
{
    char path[40], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int) pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    ssize_t n;
    do {
        n = read(fd, buf, sizeof buf - 1);
    } while (n < 0 && errno == EINTR);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *close_paren = NULL;
    for (ssize_t i = n - 1; i >= 0; i--) {
        if (buf[i] == ')') {
            close_paren = buf + i;
            break;
        }
    }
    if (close_paren == NULL || close_paren[1] != ' ' || close_paren[2] == '\0' || close_paren[3] != ' ')
        return -1;
    char *end;
    errno = 0;
    long pp = strtol(close_paren + 4, &end, 10);
    if (errno != 0 || end == close_paren + 4 || (*end != ' ' && *end != '\0' && *end != '\n') || pp < 0
        || pp > 0x7fffffffL)
        return -1;
    *state = close_paren[2];
    *ppid = (pid_t) pp;
    return 0;
}

static int parse_pid(const char *s, pid_t *out)
{
    long v = 0;
    if (*s == '\0')
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
        if (v > 0x7fffffffL)
            return -1;
    }
    *out = (pid_t) v;
    return 0;
}

/* Loads every process of /proc; returns -1 when /proc cannot be listed or memory runs out. */
static int load_table(struct table *t)
{
    t->n = 0;
    DIR *d = opendir("/proc");
    if (d == NULL)
        return -1;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        pid_t pid;
        if (parse_pid(e->d_name, &pid) != 0 || pid <= 0)
            continue;
        struct proc p = { pid, 0, 0, 0 };
        if (read_stat(pid, &p.state, &p.ppid) != 0)
            continue; /* vanished, or unreadable */
        if (t->n == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 512;
            struct proc *v = realloc(t->v, cap * sizeof *v);
            if (v == NULL) {
                rc = -1;
                break;
            }
            t->v = v;
            t->cap = cap;
        }
        t->v[t->n++] = p;
    }
    closedir(d);
    return rc;
}

static int by_ppid(const void *a, const void *b)
{
    pid_t x = ((const struct proc *) a)->ppid, y = ((const struct proc *) b)->ppid;
    return (x > y) - (x < y);
}

static int by_pid(const void *a, const void *b)
{
    pid_t x = ((const struct proc *) a)->pid, y = ((const struct proc *) b)->pid;
    return (x > y) - (x < y);
}

/* Index of the first entry whose ppid is >= ppid (table sorted by ppid). */
static size_t lower_bound_ppid(const struct table *t, pid_t ppid)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->v[mid].ppid < ppid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
 * Marks the descendants of root (breadth first over the ppid links), except skip and its own subtree,
 * then sorts the table by pid.
 * Returns the number of marked entries. The queue reuses a pid array; every entry is queued at most
 * once (mark), so stale or hostile data cannot make it loop.
 */
static size_t mark_descendants(struct table *t, pid_t root, pid_t skip, pid_t **queue, size_t *qcap)
{
    qsort(t->v, t->n, sizeof *t->v, by_ppid);
    if (*qcap < t->n + 1) {
        pid_t *q = realloc(*queue, (t->n + 1) * sizeof *q);
        if (q == NULL)
            return (size_t) -1;
        *queue = q;
        *qcap = t->n + 1;
    }
    pid_t *q = *queue;
    size_t head = 0, tail = 0, marked = 0;
    q[tail++] = root;
    while (head < tail) {
        pid_t parent = q[head++];
        for (size_t i = lower_bound_ppid(t, parent); i < t->n && t->v[i].ppid == parent; i++) {
            if (t->v[i].mark || t->v[i].pid == root || t->v[i].pid == skip)
                continue;
            t->v[i].mark = 1;
            marked++;
            q[tail++] = t->v[i].pid;
        }
    }
    qsort(t->v, t->n, sizeof *t->v, by_pid);
    return marked;
}

static int is_marked(const struct table *t, pid_t pid)
{
    struct proc key = { pid, 0, 0, 0 };
    const struct proc *p = bsearch(&key, t->v, t->n, sizeof *t->v, by_pid);
    return p != NULL && p->mark;
}

/*
 * Signals one descendant found by the scan. Where the kernel has pidfds, the pid is pinned first and
 * its ppid is checked again, so a pid that died and was reused by a process outside the subtree in
 * between is not signalled. Returns 1 when a live process was signalled.
 */
static int signal_one(const struct table *t, pid_t root, pid_t pid, int sig)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
    int fd = (int) syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) {
        char state;
        pid_t ppid;
        int ok = read_stat(pid, &state, &ppid) == 0 && state != 'Z' && (ppid == root || is_marked(t, ppid))
            && syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0) == 0;
        close(fd);
        return ok;
    }
    if (errno != ENOSYS)
        return 0; /* gone (ESRCH) or out of fds: the next round sees it again */
#else
    (void) t;
    (void) root;
#endif
    return kill(pid, sig) == 0;
}

/*
 * One scan of /proc: sends sig to every live descendant of root outside skip's subtree. Returns how
 * many were signalled, or -1.
 */
static long signal_descendants(struct table *t, pid_t root, pid_t skip, pid_t **queue, size_t *qcap, int sig)
{
    if (load_table(t) != 0)
        return -1;
    if (mark_descendants(t, root, skip, queue, qcap) == (size_t) -1)
        return -1;
    long count = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->v[i].mark && t->v[i].state != 'Z' && signal_one(t, root, t->v[i].pid, sig)) {
            count++;
            if (sig == SIGTERM)
                signal_one(t, root, t->v[i].pid, SIGCONT); /* a stopped process must run to act on TERM */
        }
    }
    return count;
}


#endif
