/*
 * sbx-watch.c: the agent's file watches (inotify); the frames are in PROTOCOL.md (WATCH, UNWATCH, WATCHING,
 * WATCH_EVENTS, WATCH_OVERFLOW).
 *
 * One inotify instance per watch, so two watches of one tree never share a watch descriptor. A recursive watch
 * adds every directory below its root (never following a link) and each directory created or moved in later; what
 * a new directory already holds when it is added is reported as created. A rename inside the tree is one RENAME
 * when both halves arrive in one read, else a REMOVE and a CREATE. Bounded: MAX_WATCHES watches, MAX_WATCH_DIRS
 * directories per watch (beyond, WATCH_OVERFLOW once and the rest unwatched), one frame of events at most
 * WATCH_FRAME bytes, and watch fds are read only while the host keeps up (the kernel queues meanwhile, then
 * overflows, which the host hears as WATCH_OVERFLOW).
 */
#define _GNU_SOURCE
#include "sbx-watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx-frame.h"

#define MAX_WATCHES 64
#define MAX_WATCH_DIRS 8192
#define WATCH_FRAME (256u << 10)
#define WATCH_READ (64u << 10)

#define DIR_MASK (IN_CREATE | IN_MODIFY | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF \
                  | IN_MOVE_SELF | IN_EXCL_UNLINK | IN_ONLYDIR | IN_DONT_FOLLOW)
#define FILE_MASK (IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_DONT_FOLLOW)

struct wdir {
    int wd; /* 0: empty slot, -1: deleted */
    char *rel;
};

struct watch {
    int32_t id;
    int fd;
    int recursive;
    int overflowed; /* MAX_WATCH_DIRS reached: reported once */
    int root_dir;
    char *root;
    char *prefix;
    struct wdir *slots;
    size_t cap, used, live;
    unsigned char *batch;
    size_t batch_len, batch_cap;
    /* a MOVED_FROM that ended a read: its MOVED_TO may come in the next one (inotify(7) does not promise both
       halves in one read), so it waits up to PAIR_NS before it is reported as a REMOVE */
    char *from_rel;
    uint32_t from_cookie;
    int from_dir;
    long long from_deadline;
};

#define PAIR_NS (20LL * 1000 * 1000)

static struct watch *watches[MAX_WATCHES];
static size_t nwatches;

static struct watch *find_watch(int32_t id)
{
    for (size_t i = 0; i < nwatches; i++)
        if (watches[i]->id == id)
            return watches[i];
    return NULL;
}

int watch_exists(int32_t id)
{
    return find_watch(id) != NULL;
}

size_t watch_count(void)
{
    return nwatches;
}

int watch_fd(size_t i, int32_t *id)
{
    *id = watches[i]->id;
    return watches[i]->fd;
}

static struct wdir *wd_slot(struct watch *w, int wd)
{
    size_t mask = w->cap - 1;
    for (size_t i = (size_t) wd & mask;; i = (i + 1) & mask) {
        if (w->slots[i].wd == wd || w->slots[i].wd == 0)
            return &w->slots[i];
    }
}

static int wd_grow(struct watch *w)
{
    size_t cap = w->cap ? w->cap * 2 : 64;
    struct wdir *old = w->slots;
    size_t old_cap = w->cap;
    w->slots = calloc(cap, sizeof *w->slots);
    if (w->slots == NULL) {
        w->slots = old;
        return -1;
    }
    w->cap = cap;
    w->used = 0;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].wd > 0) {
            *wd_slot(w, old[i].wd) = old[i];
            w->used++;
        }
    }
    free(old);
    return 0;
}

/* Remembers wd -> rel (takes rel); an existing entry for wd gets the new path. */
static int wd_put(struct watch *w, int wd, char *rel)
{
    if ((w->used + 1) * 2 > w->cap && wd_grow(w) != 0) {
        free(rel);
        return -1;
    }
    struct wdir *s = wd_slot(w, wd);
    if (s->wd == wd) {
        free(s->rel);
    } else {
        s->wd = wd;
        w->used++;
        w->live++;
    }
    s->rel = rel;
    return 0;
}

static const char *wd_rel(struct watch *w, int wd)
{
    if (w->cap == 0)
        return NULL;
    struct wdir *s = wd_slot(w, wd);
    return s->wd == wd ? s->rel : NULL;
}

static void wd_drop(struct watch *w, int wd)
{
    if (w->cap == 0)
        return;
    struct wdir *s = wd_slot(w, wd);
    if (s->wd != wd)
        return;
    free(s->rel);
    s->rel = NULL;
    s->wd = -1; /* a tombstone keeps later probes going; counted in used until the next growth */
    w->live--;
}

static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 2);
    if (s == NULL)
        return NULL;
    memcpy(s, a, la);
    size_t n = la;
    if (la > 0 && lb > 0)
        s[n++] = '/';
    memcpy(s + n, b, lb);
    s[n + lb] = '\0';
    return s;
}

static void flush_batch(struct watch *w)
{
    if (w->batch_len == 0)
        return;
    /* data, like command output: a flood of events pauses reading */
    send_data(SBX_WATCH_EVENTS, w->id, w->batch, w->batch_len);
    w->batch_len = 0;
    if (w->batch_cap > WATCH_FRAME * 2) {
        free(w->batch);
        w->batch = NULL;
        w->batch_cap = 0;
    }
}

/* Queues one event; rel and from are below the root ("" for the root itself). */
static void emit(struct watch *w, int kind, const char *rel, const char *from, int is_dir_hint)
{
    char *abs = join(w->root, rel);
    char *path = join(w->prefix, rel);
    char *from_path = from ? join(w->prefix, from) : NULL;
    if (abs == NULL || path == NULL || (from && from_path == NULL))
        goto out;
    struct stat st;
    int dir = is_dir_hint;
    uint64_t size = 0, mtime = 0;
    if (kind != SBX_EVENT_REMOVE && lstat(abs, &st) == 0) {
        dir = S_ISDIR(st.st_mode);
        size = S_ISREG(st.st_mode) ? (uint64_t) st.st_size : 0;
        mtime = (uint64_t) st.st_mtim.tv_sec * 1000u + (uint64_t) st.st_mtim.tv_nsec / 1000000u;
    }
    size_t lp = strlen(path), lf = from_path ? strlen(from_path) : 0;
    size_t need = EVENT_FIXED + lp + lf;
    if (w->batch_len + need > WATCH_FRAME)
        flush_batch(w);
    if (w->batch_len + need > w->batch_cap) {
        size_t cap = w->batch_cap ? w->batch_cap : 4096;
        while (cap < w->batch_len + need)
            cap *= 2;
        unsigned char *b = realloc(w->batch, cap);
        if (b == NULL)
            goto out;
        w->batch = b;
        w->batch_cap = cap;
    }
    w->batch_len += put_event(w->batch + w->batch_len, kind, dir, size, mtime, path, lp, from_path, lf);
out:
    free(abs);
    free(path);
    free(from_path);
}

static void watch_overflow(struct watch *w)
{
    flush_batch(w);
    send_frame(SBX_WATCH_OVERFLOW, w->id, NULL, 0);
}

/*
 * Watches the directory rel (below the root) and, when recursive, every directory below it; report_contents
 * reports what is found as created (a directory that appeared after the watch began).
 */
static void add_tree(struct watch *w, const char *start, int report_contents)
{
    size_t n = 0, cap = 16;
    char **stack = malloc(cap * sizeof *stack);
    char *first = stack ? strdup(start) : NULL;
    if (first == NULL) {
        free(stack);
        watch_overflow(w);
        return;
    }
    stack[n++] = first;
    while (n > 0) {
        char *rel = stack[--n];
        if (w->live >= MAX_WATCH_DIRS) {
            if (!w->overflowed) {
                w->overflowed = 1;
                watch_overflow(w);
            }
            free(rel);
            continue;
        }
        char *abs = join(w->root, rel);
        if (abs == NULL || strlen(abs) >= PATH_MAX) {
            free(abs);
            free(rel);
            watch_overflow(w);
            continue;
        }
        int wd = inotify_add_watch(w->fd, abs, DIR_MASK);
        if (wd < 0) {
            if (errno != ENOENT && errno != ENOTDIR)
                watch_overflow(w); /* ENOSPC: the user's inotify watches are used up */
            free(abs);
            free(rel);
            continue;
        }
        char *kept = strdup(rel);
        if (kept == NULL || wd_put(w, wd, kept) != 0) {
            free(abs);
            free(rel);
            watch_overflow(w);
            continue;
        }
        if (!w->recursive && !report_contents) {
            free(abs);
            free(rel);
            continue;
        }
        int dfd = open(abs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
        if (d == NULL) {
            if (dfd >= 0)
                close(dfd);
            free(abs);
            free(rel);
            continue;
        }
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *child = join(rel, e->d_name);
            if (child == NULL)
                continue;
            int is_dir = e->d_type == DT_DIR;
            if (e->d_type == DT_UNKNOWN) {
                struct stat st;
                is_dir = fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
            }
            if (report_contents)
                emit(w, SBX_EVENT_CREATE, child, NULL, is_dir);
            if (is_dir && w->recursive) {
                if (n == cap) {
                    char **s = realloc(stack, cap * 2 * sizeof *s);
                    if (s == NULL) {
                        free(child);
                        continue;
                    }
                    stack = s;
                    cap *= 2;
                }
                stack[n++] = child;
            } else {
                free(child);
            }
        }
        closedir(d);
        free(abs);
        free(rel);
    }
    free(stack);
}

/* A watched directory moved from old to new inside the tree: its watches (and their subtrees') follow. */
static void rename_tree(struct watch *w, const char *old, const char *new_rel)
{
    size_t lo = strlen(old);
    for (size_t i = 0; i < w->cap; i++) {
        struct wdir *s = &w->slots[i];
        if (s->wd <= 0 || strncmp(s->rel, old, lo) != 0 || (s->rel[lo] != '\0' && s->rel[lo] != '/'))
            continue;
        char *r = join(new_rel, s->rel[lo] == '/' ? s->rel + lo + 1 : "");
        if (r != NULL) {
            free(s->rel);
            s->rel = r;
        }
    }
}

/* A directory left the tree (removed, or moved out): stop watching it and what was below it. */
static void drop_tree(struct watch *w, const char *rel)
{
    size_t lr = strlen(rel);
    for (size_t i = 0; i < w->cap; i++) {
        struct wdir *s = &w->slots[i];
        if (s->wd <= 0 || strncmp(s->rel, rel, lr) != 0 || (s->rel[lr] != '\0' && s->rel[lr] != '/'))
            continue;
        int wd = s->wd;
        inotify_rm_watch(w->fd, wd);
        wd_drop(w, wd);
    }
}

static void free_watch(struct watch *w)
{
    close(w->fd);
    for (size_t i = 0; i < w->cap; i++)
        free(w->slots[i].wd > 0 ? w->slots[i].rel : NULL);
    free(w->slots);
    free(w->root);
    free(w->prefix);
    free(w->batch);
    free(w->from_rel);
    free(w);
}

/* The waiting MOVED_FROM had no MOVED_TO: it left the tree. */
static void flush_pending_move(struct watch *w)
{
    if (w->from_rel == NULL)
        return;
    emit(w, SBX_EVENT_REMOVE, w->from_rel, NULL, w->from_dir);
    if (w->from_dir)
        drop_tree(w, w->from_rel);
    free(w->from_rel);
    w->from_rel = NULL;
    flush_batch(w);
}

/* Reports waiting MOVED_FROMs whose time is up; lowers *deadline to the next one's. */
void watch_timers(long long now, long long *deadline)
{
    for (size_t i = 0; i < nwatches; i++) {
        struct watch *w = watches[i];
        if (w->from_rel == NULL)
            continue;
        if (now >= w->from_deadline)
            flush_pending_move(w);
        else if (*deadline < 0 || w->from_deadline < *deadline)
            *deadline = w->from_deadline;
    }
}

void watch_start(int32_t id, const unsigned char *p, size_t len)
{
    const unsigned char *end = p + len;
    char **v = NULL;
    uint32_t nv = 0;
    const char *why = NULL;
    struct watch *w = NULL;
    if (find_watch(id) != NULL) {
        send_failed(id, "duplicate watch id", NULL);
        return;
    }
    if (nwatches >= MAX_WATCHES) {
        send_failed(id, "too many watches in this sandbox (limit reached)", NULL);
        return;
    }
    if (len < 1) {
        send_failed(id, "bad WATCH frame: empty", NULL);
        return;
    }
    int recursive = p[0] != 0;
    p++;
    if (parse_strings(&p, end, &v, &nv, &why) != 0 || nv != 2) {
        send_failed(id, "bad WATCH frame: ", why ? why : "want a path and a prefix");
        goto out;
    }
    struct stat st;
    if (lstat(v[0], &st) != 0) {
        send_failed(id, "cannot watch: ", strerror(errno));
        goto out;
    }
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
        send_failed(id, "cannot watch: not a file or directory", NULL);
        goto out;
    }
    w = calloc(1, sizeof *w);
    if (w == NULL) {
        send_failed(id, "out of memory", NULL);
        goto out;
    }
    w->id = id;
    w->recursive = recursive;
    w->root = strdup(v[0]);
    w->prefix = strdup(v[1]);
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->root == NULL || w->prefix == NULL || w->fd < 0) {
        send_failed(id, "cannot watch: ", w->fd < 0 ? strerror(errno) : "out of memory");
        if (w->fd < 0)
            w->fd = open("/dev/null", O_RDONLY | O_CLOEXEC); /* free_watch closes it */
        free_watch(w);
        goto out;
    }
    w->root_dir = S_ISDIR(st.st_mode);
    if (w->root_dir) {
        add_tree(w, "", 0);
    } else {
        int wd = inotify_add_watch(w->fd, w->root, FILE_MASK);
        char *rel = strdup("");
        if (wd < 0 || rel == NULL || wd_put(w, wd, rel) != 0) {
            send_failed(id, "cannot watch: ", wd < 0 ? strerror(errno) : "out of memory");
            free_watch(w);
            goto out;
        }
    }
    if (w->live == 0) {
        send_failed(id, "cannot watch: ", "the path vanished or the inotify watches are used up");
        free_watch(w);
        goto out;
    }
    flush_batch(w);
    watches[nwatches++] = w;
    send_int(SBX_WATCHING, id, (int32_t) w->live);
out:
    free_strings(v);
}

void watch_stop(int32_t id)
{
    for (size_t i = 0; i < nwatches; i++) {
        if (watches[i]->id == id) {
            free_watch(watches[i]);
            watches[i] = watches[--nwatches];
            return;
        }
    }
}

/* A rename inside the tree: one RENAME; a watched directory's watches follow it. */
static void moved(struct watch *w, const char *from, const char *to_base, const char *to_name, int is_dir)
{
    char *to_rel = join(to_base, to_name);
    if (to_rel == NULL)
        return;
    if (is_dir)
        rename_tree(w, from, to_rel);
    emit(w, SBX_EVENT_RENAME, to_rel, from, is_dir);
    free(to_rel);
}

/* Reads one watch's queued events and turns them into records; returns -1 once the fd is drained. */
static int read_events(struct watch *w)
{
    static union {
        struct inotify_event ev;
        unsigned char bytes[WATCH_READ];
    } buf;
    ssize_t n = read(w->fd, buf.bytes, sizeof buf.bytes);
    if (n <= 0)
        return -1;
    for (ssize_t off = 0; off + (ssize_t) sizeof(struct inotify_event) <= n;) {
        struct inotify_event *e = (struct inotify_event *) (buf.bytes + off);
        off += (ssize_t) sizeof *e + e->len;
        if (w->from_rel != NULL && !((e->mask & IN_MOVED_TO) && e->cookie == w->from_cookie))
            flush_pending_move(w);
        if (e->mask & IN_Q_OVERFLOW) {
            watch_overflow(w);
            continue;
        }
        if (e->mask & IN_IGNORED) {
            wd_drop(w, e->wd);
            continue;
        }
        const char *base = wd_rel(w, e->wd);
        if (base == NULL)
            continue;
        char *rel = join(base, e->len > 0 ? e->name : "");
        if (rel == NULL)
            continue;
        int is_dir = (e->mask & IN_ISDIR) != 0;
        if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
            if (rel[0] == '\0' && strcmp(base, "") == 0) {
                emit(w, SBX_EVENT_REMOVE, "", NULL, w->root_dir); /* the root itself went: nothing more to record */
                drop_tree(w, "");
            }
        } else if (e->mask & IN_CREATE) {
            emit(w, SBX_EVENT_CREATE, rel, NULL, is_dir);
            if (is_dir && w->recursive)
                add_tree(w, rel, 1);
        } else if (e->mask & IN_MODIFY) {
            emit(w, SBX_EVENT_WRITE, rel, NULL, is_dir);
        } else if (e->mask & IN_ATTRIB) {
            emit(w, SBX_EVENT_CHMOD, rel, NULL, is_dir);
        } else if (e->mask & IN_DELETE) {
            emit(w, SBX_EVENT_REMOVE, rel, NULL, is_dir);
            if (is_dir)
                drop_tree(w, rel);
        } else if (e->mask & IN_MOVED_FROM) {
            struct inotify_event *to = (struct inotify_event *) (buf.bytes + off);
            if (off + (ssize_t) sizeof *to > n) {
                /* the last event of this read: its other half may be the next read's first */
                flush_pending_move(w);
                w->from_rel = rel;
                w->from_cookie = e->cookie;
                w->from_dir = is_dir;
                w->from_deadline = now_ns() + PAIR_NS;
                continue;
            }
            const char *to_base = (to->mask & IN_MOVED_TO) && to->cookie == e->cookie ? wd_rel(w, to->wd) : NULL;
            if (to_base != NULL) {
                off += (ssize_t) sizeof *to + to->len;
                moved(w, rel, to_base, to->len > 0 ? to->name : "", is_dir);
            } else {
                emit(w, SBX_EVENT_REMOVE, rel, NULL, is_dir);
                if (is_dir)
                    drop_tree(w, rel);
            }
        } else if (e->mask & IN_MOVED_TO) {
            if (w->from_rel != NULL && w->from_cookie == e->cookie) {
                char *from = w->from_rel;
                w->from_rel = NULL;
                moved(w, from, base, e->len > 0 ? e->name : "", is_dir);
                free(from);
            } else {
                emit(w, SBX_EVENT_CREATE, rel, NULL, is_dir);
                if (is_dir && w->recursive)
                    add_tree(w, rel, 1);
            }
        }
        free(rel);
    }
    flush_batch(w);
    return 0;
}

int watch_read(int32_t id)
{
    struct watch *w = find_watch(id);
    return w == NULL ? -1 : read_events(w);
}
