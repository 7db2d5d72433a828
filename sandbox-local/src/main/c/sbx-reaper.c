/*
 * sbx-reaper: per-command supervisor run inside the jail in place of the shell gate.
 *
 *   sbx-reaper -- argv...        (fd 0/1/2 = the command's pipes)
 *
 * 1. Reads the gate line from fd 0 one byte at a time up to '\n' (nothing after it is consumed);
 *    EOF or a read error before '\n' -> exit 125, nothing run.
 * 2. Becomes a child subreaper and non-dumpable, forks; the child resets signal dispositions and the
 *    signal mask to the defaults and execvp()s argv (failure: message on stderr, exit 127 for ENOENT,
 *    126 otherwise).
 * 3. Reaps everything. When the main child ends, SIGKILLs every remaining descendant (found through the
 *    ppid links in /proc/<pid>/stat) until waitpid() reports ECHILD, then exits with the main child's
 *    status (its exit code, or 128 + signal).
 * 4. SIGTERM: forwarded (then SIGCONT) to every descendant, keeps going. SIGUSR1: SIGKILL every
 *    descendant until none are left, exit 137. SIGINT, SIGHUP: forwarded to the main child.
 * 5. After the fork the supervisor points its own fd 0/1/2 at /dev/null: it never blocks on, nor keeps
 *    open, the command's pipes. It opens nothing before the fork, so the command inherits no extra fd.
 *
 * Exit 125 also means "the supervisor failed before running anything" (bad usage, prctl or fork failed).
 * Before the gate line the handlers are not installed yet: a signal then has its default action.
 *
 * Limit: the command runs as the supervisor's uid, so it may still signal it (SIGKILL, SIGSTOP). Killed, the
 * supervisor's subtree is re-parented to the next subreaper up (or the namespace's init); the caller must then
 * fall back to its own tree kill. Non-dumpable only stops ptrace and /proc inspection.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXIT_NOT_RUN 125
#define EXIT_KILLED 137
/* Upper bound of one kill phase; only a descendant stuck in uninterruptible sleep can make it last. */
#define KILL_PHASE_NS (10LL * 1000 * 1000 * 1000)

static volatile sig_atomic_t got_chld, got_term, got_usr1, got_int, got_hup;

static void on_signal(int sig)
{
    switch (sig) {
    case SIGCHLD: got_chld = 1; break;
    case SIGTERM: got_term = 1; break;
    case SIGUSR1: got_usr1 = 1; break;
    case SIGINT: got_int = 1; break;
    case SIGHUP: got_hup = 1; break;
    default: break;
    }
}

static void say(const char *a, const char *b)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "sbx-reaper: %s%s%s\n", a, b ? ": " : "", b ? b : "");
    if (n > 0) {
        size_t len = (size_t) n < sizeof buf ? (size_t) n : sizeof buf - 1;
        ssize_t w = write(STDERR_FILENO, buf, len);
        (void) w;
    }
}

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
 * Marks the descendants of self (breadth first over the ppid links), then sorts the table by pid.
 * Returns the number of marked entries. The queue reuses a pid array; every entry is queued at most
 * once (mark), so stale or hostile data cannot make it loop.
 */
static size_t mark_descendants(struct table *t, pid_t self, pid_t **queue, size_t *qcap)
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
    q[tail++] = self;
    while (head < tail) {
        pid_t parent = q[head++];
        for (size_t i = lower_bound_ppid(t, parent); i < t->n && t->v[i].ppid == parent; i++) {
            if (t->v[i].mark || t->v[i].pid == self)
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
static int signal_one(const struct table *t, pid_t self, pid_t pid, int sig)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
    int fd = (int) syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) {
        char state;
        pid_t ppid;
        int ok = read_stat(pid, &state, &ppid) == 0 && state != 'Z' && (ppid == self || is_marked(t, ppid))
            && syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0) == 0;
        close(fd);
        return ok;
    }
    if (errno != ENOSYS)
        return 0; /* gone (ESRCH) or out of fds: the next round sees it again */
#else
    (void) t;
    (void) self;
#endif
    return kill(pid, sig) == 0;
}

/* One scan of /proc: sends sig to every live descendant. Returns how many were signalled, or -1. */
static long signal_descendants(struct table *t, pid_t self, pid_t **queue, size_t *qcap, int sig)
{
    if (load_table(t) != 0)
        return -1;
    if (mark_descendants(t, self, queue, qcap) == (size_t) -1)
        return -1;
    long count = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->v[i].mark && t->v[i].state != 'Z' && signal_one(t, self, t->v[i].pid, sig)) {
            count++;
            if (sig == SIGTERM)
                signal_one(t, self, t->v[i].pid, SIGCONT); /* a stopped process must run to act on TERM */
        }
    }
    return count;
}

/* --- supervision ------------------------------------------------------------------------------- */

static pid_t main_pid;
static int main_done;
static int main_status;

/* Reaps every child that has ended. Returns 1 when no child is left (ECHILD). */
static int reap(void)
{
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, WNOHANG);
        if (p > 0) {
            if (p == main_pid && !main_done) {
                main_done = 1;
                main_status = st;
            }
            continue;
        }
        if (p < 0 && errno == EINTR)
            continue;
        return p < 0 && errno == ECHILD;
    }
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Waits until a signal arrives or timeout_ns passes (-1: no timeout), with the handled signals unblocked. */
static void wait_signal(const sigset_t *waitmask, long long timeout_ns)
{
    struct timespec ts, *tsp = NULL;
    if (timeout_ns >= 0) {
        ts.tv_sec = (time_t) (timeout_ns / 1000000000LL);
        ts.tv_nsec = (long) (timeout_ns % 1000000000LL);
        tsp = &ts;
    }
    ppoll(NULL, 0, tsp, waitmask);
}

/*
 * SIGKILLs every descendant, scan after scan, until no child is left; bounded by KILL_PHASE_NS. A
 * SIGKILLed process forks no more, so each scan only has to catch what was forked or re-parented
 * during the previous one, and a fork storm converges.
 */
static void kill_all(const sigset_t *waitmask, struct table *t, pid_t self, pid_t **queue, size_t *qcap)
{
    long long deadline = now_ns() + KILL_PHASE_NS;
    long long pause_ns = 200 * 1000; /* 0.2 ms, doubling up to 20 ms while something is still there */
    for (;;) {
        if (reap())
            return; /* no child left: an orphan is re-parented to us before its parent is reaped */
        long signalled = signal_descendants(t, self, queue, qcap, SIGKILL);
        if (signalled < 0 && main_pid > 0 && !main_done)
            kill(main_pid, SIGKILL); /* cannot scan: at least the main child */
        if (reap())
            return;
        if (now_ns() >= deadline)
            return;
        if (signalled != 0)
            pause_ns = 200 * 1000;
        got_chld = 0;
        wait_signal(waitmask, pause_ns);
        if (pause_ns < 20 * 1000 * 1000)
            pause_ns *= 2;
    }
}

static int exit_code(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return EXIT_NOT_RUN;
}

/* The kernel's struct sigaction on x86_64 and arm64 (both have sa_restorer); sigset_t there is 64 bits. */
struct kernel_sigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    unsigned long mask;
};

static void exec_child(char **argv)
{
    /*
     * Every disposition back to SIG_DFL, through the raw system call: libc's sigaction() refuses its reserved
     * real-time signals (32, 33), which a launcher may have left ignored. SIGKILL and SIGSTOP fail: fine.
     */
    struct kernel_sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.handler = SIG_DFL;
    for (int sig = 1; sig <= 64; sig++)
        syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof dfl.mask);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execvp(argv[0], argv);
    int err = errno;
    say(argv[0], strerror(err));
    _exit(err == ENOENT ? 127 : 126);
}

static void detach_stdio(void)
{
    int fd = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY);
    for (int i = 0; i <= 2; i++) {
        if (fd >= 0 && fd != i)
            dup2(fd, i); /* dup2 clears FD_CLOEXEC on the copy; nothing is exec'd from here anyway */
        else if (fd < 0)
            close(i);
    }
    if (fd > 2)
        close(fd);
}

int main(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[1], "--") != 0) {
        say("usage: sbx-reaper -- command [arg...]", NULL);
        return EXIT_NOT_RUN;
    }
    char **cmd = argv + 2;

    /* Same-uid processes (other commands) may neither ptrace nor read the supervisor. */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        say("prctl", strerror(errno));
        return EXIT_NOT_RUN;
    }

    /* The gate: one byte at a time, so the command's stdin after '\n' stays in the pipe. */
    for (;;) {
        char c;
        ssize_t n = read(STDIN_FILENO, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return EXIT_NOT_RUN;
        if (c == '\n')
            break;
    }

    sigset_t handled, oldmask, waitmask;
    sigemptyset(&handled);
    sigaddset(&handled, SIGCHLD);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGUSR1);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGHUP);
    sigprocmask(SIG_BLOCK, &handled, &oldmask);
    waitmask = oldmask;
    sigdelset(&waitmask, SIGCHLD);
    sigdelset(&waitmask, SIGTERM);
    sigdelset(&waitmask, SIGUSR1);
    sigdelset(&waitmask, SIGINT);
    sigdelset(&waitmask, SIGHUP);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigfillset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    int sigs[] = { SIGCHLD, SIGTERM, SIGUSR1, SIGINT, SIGHUP };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, NULL);

    main_pid = fork();
    if (main_pid < 0) {
        say("fork", strerror(errno));
        return EXIT_NOT_RUN;
    }
    if (main_pid == 0)
        exec_child(cmd);

    detach_stdio();
    pid_t self = getpid();
    struct table t = { NULL, 0, 0 };
    pid_t *queue = NULL;
    size_t qcap = 0;

    for (;;) {
        got_chld = 0;
        reap();
        if (got_usr1) {
            kill_all(&waitmask, &t, self, &queue, &qcap);
            return EXIT_KILLED;
        }
        if (main_done)
            break;
        if (got_term) {
            got_term = 0;
            signal_descendants(&t, self, &queue, &qcap, SIGTERM);
        }
        if (got_int) {
            got_int = 0;
            kill(main_pid, SIGINT);
        }
        if (got_hup) {
            got_hup = 0;
            kill(main_pid, SIGHUP);
        }
        wait_signal(&waitmask, -1); /* the handled signals are blocked everywhere else */
    }
    kill_all(&waitmask, &t, self, &queue, &qcap);
    return got_usr1 ? EXIT_KILLED : exit_code(main_status);
}
