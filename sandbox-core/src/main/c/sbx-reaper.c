/*
 * sbx-reaper: per-command supervisor run inside the jail in place of the shell gate.
 *
 *   sbx-reaper -- argv...        (fd 0/1/2 = the command's pipes)
 *   sbx-reaper --pty -- argv...  (fd 0 = the gate pipe, fd 1/2 = a terminal's slave: see sbx-pty.c)
 *
 * 1. Reads the gate line from fd 0 one byte at a time up to '\n' (nothing after it is consumed);
 *    EOF or a read error before '\n' -> exit 125, nothing run.
 * 2. Becomes a child subreaper and non-dumpable, forks; the child resets signal dispositions and the
 *    signal mask to the defaults and execvp()s argv. Failure: a shell's words on stderr, naming the program
 *    and nothing of this helper (see exec_failed): "X: command not found" (127), "X: no such file or
 *    directory" (127, a path), "X: permission denied" / "X: is a directory" (126), ...
 * 3. Reaps everything. When the main child ends, SIGKILLs every remaining descendant (found through the
 *    ppid links in /proc/<pid>/stat) until waitpid() reports ECHILD, then exits with the main child's
 *    status (its exit code, or 128 + signal).
 * 4. SIGTERM: forwarded (then SIGCONT) to every descendant, keeps going. SIGUSR1: SIGKILL every
 *    descendant until none are left, exit 137. SIGINT, SIGHUP: forwarded to the main child.
 * With --pty the child first starts a session whose controlling terminal is fd 1 (setsid + TIOCSCTTY) and makes
 * that terminal its stdin too; Ctrl-C typed there signals the terminal's foreground process group, not this helper.
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sbx-pty.h"

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

/* Writes "<prefix>a[: b]\n" to stderr in one write (cut at 4 KiB). */
static void say_as(const char *prefix, const char *a, const char *b)
{
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "%s%s%s%s\n", prefix, a, b ? ": " : "", b ? b : "");
    if (n > 0) {
        size_t len = (size_t) n < sizeof buf ? (size_t) n : sizeof buf - 1;
        if (len == sizeof buf - 1)
            buf[len - 1] = '\n';
        ssize_t w = write(STDERR_FILENO, buf, len);
        (void) w;
    }
}

/* A failure of this supervisor itself (the command did not start): said in the library's name, not this helper's. */
static void say(const char *a, const char *b)
{
    say_as("sandbox4j: cannot start the command: ", a, b);
}

#include "sbx-proc.h"

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
        long signalled = signal_descendants(t, self, self, queue, qcap, SIGKILL);
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

/* strerror(err) with its first letter in lower case, as the rest of these messages ("Text file busy" -> "text ..."). */
static const char *lower_strerror(int err, char *buf, size_t size)
{
    snprintf(buf, size, "%s", strerror(err));
    if (buf[0] >= 'A' && buf[0] <= 'Z')
        buf[0] = (char) (buf[0] - 'A' + 'a');
    return buf;
}

/*
 * Where execvp() would have found `name`: itself when it has a slash, else the first entry of $PATH (glibc's
 * default when unset) that exists and is not a directory (execvp skips those). 0 when found, into buf.
 */
static int locate(const char *name, char *buf, size_t size)
{
    struct stat st;
    if (strchr(name, '/') != NULL) {
        snprintf(buf, size, "%s", name);
        return stat(buf, &st) == 0 ? 0 : -1;
    }
    if (name[0] == '\0')
        return -1;
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/bin:/usr/bin";
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t len = end != NULL ? (size_t) (end - p) : strlen(p);
        int n = len == 0 ? snprintf(buf, size, "%s", name) : snprintf(buf, size, "%.*s/%s", (int) len, p, name);
        if (n > 0 && (size_t) n < size && stat(buf, &st) == 0 && !S_ISDIR(st.st_mode))
            return 0;
        if (end == NULL)
            return -1;
        p = end;
    }
}

/*
 * execvp() failed with err: say why as a shell would (bash's words, lower case, without a shell's name), naming
 * the program as given, and exit 127 (nothing to run) or 126 (found but cannot run).
 */
static void exec_failed(const char *name, int err)
{
    char where[4096], why[128];
    struct stat st;
    if (locate(name, where, sizeof where) != 0 || stat(where, &st) != 0) {
        int missing = errno;
        if (strchr(name, '/') == NULL) {
            say_as("", name, "command not found");
            _exit(127);
        }
        if (missing == ENOENT) {
            say_as("", name, "no such file or directory");
            _exit(127);
        }
        say_as("", name, missing == EACCES ? "permission denied" : lower_strerror(missing, why, sizeof why));
        _exit(126);
    }
    if (S_ISDIR(st.st_mode)) {
        say_as("", name, "is a directory");
        _exit(126);
    }
    switch (err) {
    case ENOENT:
    case ENOTDIR:
        /* the file is there: its interpreter (#!) or its ELF loader is not */
        say_as("", name, "cannot execute: required file not found");
        _exit(127);
    case EACCES:
    case EPERM:
        say_as("", name, "permission denied");
        _exit(126);
    case ENOEXEC:
        say_as("", name, "cannot execute binary file: exec format error");
        _exit(126);
    default:
        say_as("", name, lower_strerror(err, why, sizeof why));
        _exit(126);
    }
}

static void exec_child(char **argv, int pty)
{
    if (pty && (pty_make_controlling(STDOUT_FILENO) != 0 || dup2(STDOUT_FILENO, STDIN_FILENO) < 0)) {
        say("the terminal", strerror(errno));
        _exit(EXIT_NOT_RUN);
    }
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
    exec_failed(argv[0], errno);
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
    int pty = argc > 1 && strcmp(argv[1], "--pty") == 0;
    if (argc < 3 + pty || strcmp(argv[1 + pty], "--") != 0) {
        say_as("sbx-reaper: ", "usage: sbx-reaper [--pty] -- command [arg...]", NULL); /* its usage, run by hand */
        return EXIT_NOT_RUN;
    }
    char **cmd = argv + 2 + pty;

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
        exec_child(cmd, pty);

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
            signal_descendants(&t, self, self, &queue, &qcap, SIGTERM);
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
