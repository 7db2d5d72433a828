/* Manual check (run.sh): /init (pid 1) of an arm64 VM runs sbx-reaper scenarios, then the seccomp check. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int passed, failed;

static void check(const char *name, int ok, long got)
{
    printf("%s %s (got %ld)\n", ok ? "PASS" : "FAIL", name, got);
    fflush(stdout);
    if (ok) passed++; else failed++;
}

static void msleep(int ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static int helper(int argc, char **argv)
{
    const char *mode = argv[1];
    if (!strcmp(mode, "exit")) return atoi(argv[2]);
    if (!strcmp(mode, "sig")) { kill(getpid(), atoi(argv[2])); pause(); return 99; }
    if (!strcmp(mode, "cat")) {
        char b[256]; ssize_t n;
        while ((n = read(0, b, sizeof b)) > 0) if (write(1, b, n) != n) return 3;
        return 0;
    }
    if (!strcmp(mode, "detach") || !strcmp(mode, "detach-stay")) {
        int fd = 3;
        pid_t p = fork();
        if (p == 0) {
            setsid();
            if (fork() == 0) {
                signal(SIGTERM, SIG_IGN); signal(SIGHUP, SIG_IGN); clearenv();
                char buf[32]; int n = snprintf(buf, sizeof buf, "%d\n", getpid());
                if (write(fd, buf, n) != n) _exit(1);
                close(fd);
                for (;;) pause();
            }
            _exit(0);
        }
        waitpid(p, NULL, 0);
        close(fd);
        if (!strcmp(mode, "detach")) return 5;
        signal(SIGTERM, SIG_IGN);
        for (;;) pause();
    }
    (void) argc;
    return 100;
}

static void on_term(int s) { (void) s; _exit(42); }

/* Starts argv with stdin/stdout pipes and fd 3 = the write end of *pidpipe (if given). */
static pid_t start(char **argv, int *in, int *out, int *pidpipe)
{
    int i[2], o[2];
    if (pipe(i) || pipe(o)) return -1;
    pid_t p = fork();
    if (p == 0) {
        dup2(i[0], 0); dup2(o[1], 1);
        if (pidpipe) { int w = fcntl(pidpipe[1], F_DUPFD, 10); close(pidpipe[0]); close(pidpipe[1]); dup2(w, 3); close(w); }
        close(i[0]); close(i[1]); close(o[0]); close(o[1]);
        execv(argv[0], argv);
        _exit(126);
    }
    close(i[0]); close(o[1]);
    if (pidpipe) close(pidpipe[1]);
    *in = i[1]; *out = o[0];
    return p;
}

static int finish(pid_t p)
{
    int st;
    while (waitpid(p, &st, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int simple(char **argv, const char *input, size_t len)
{
    int in, out;
    pid_t p = start(argv, &in, &out, NULL);
    if (len && write(in, input, len) != (ssize_t) len) return -1;
    close(in);
    close(out);
    return finish(p);
}

static long read_pid(int fd)
{
    char b[32] = {0};
    ssize_t n = read(fd, b, sizeof b - 1);
    return n > 0 ? atol(b) : -1;
}

static int gone(long pid)
{
    return kill((pid_t) pid, 0) != 0 && errno == ESRCH;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        if (!strcmp(argv[1], "term42")) {
            signal(SIGTERM, on_term);
            if (write(1, "r", 1) != 1) return 2;
            for (;;) pause();
        }
        return helper(argc, argv);
    }
    mount("proc", "/proc", "proc", 0, NULL);
    signal(SIGCHLD, SIG_DFL);
    char *R = "/reaper", *H = "/init";

    char *a1[] = { R, "--", H, "exit", "7", NULL };
    check("exit 7 passes through", simple(a1, "go\n", 3) == 7, simple(a1, "go\n", 3));
    char *a2[] = { R, "--", H, "sig", "9", NULL };
    int rc = simple(a2, "go\n", 3);
    check("SIGKILL -> 137", rc == 137, rc);
    rc = simple(a1, "", 0);
    check("gate EOF -> 125", rc == 125, rc);
    char *a3[] = { R, "--", "/nope", NULL };
    rc = simple(a3, "go\n", 3);
    check("exec ENOENT -> 127", rc == 127, rc);

    char *a4[] = { R, "--", H, "cat", NULL };
    int in, out;
    pid_t p = start(a4, &in, &out, NULL);
    if (write(in, "go\nhello\n", 9) != 9) return 1;
    close(in);
    char buf[64] = {0};
    ssize_t n = read(out, buf, sizeof buf - 1);
    close(out);
    rc = finish(p);
    check("stdin after the gate line reaches cat", rc == 0 && n == 6 && !memcmp(buf, "hello\n", 6), n);

    /* control: without the reaper the detached grandchild survives */
    int pp[2];
    if (pipe(pp)) return 1;
    char *c1[] = { H, "detach", NULL };
    p = start(c1, &in, &out, pp);
    close(in); close(out);
    rc = finish(p);
    long g = read_pid(pp[0]);
    close(pp[0]);
    check("control: leftover survives without the reaper", rc == 5 && g > 0 && !gone(g), g);
    if (g > 0) { kill((pid_t) g, SIGKILL); msleep(50); while (waitpid(-1, NULL, WNOHANG) > 0) {} }

    if (pipe(pp)) return 1;
    char *a5[] = { R, "--", H, "detach", NULL };
    p = start(a5, &in, &out, pp);
    if (write(in, "go\n", 3) != 3) return 1;
    close(in); close(out);
    rc = finish(p);
    g = read_pid(pp[0]);
    close(pp[0]);
    check("setsid+double-fork leftover (TERM/HUP ignored, env cleared) gone, exit 5", rc == 5 && g > 0 && gone(g), g);

    if (pipe(pp)) return 1;
    char *a6[] = { R, "--", H, "detach-stay", NULL };
    p = start(a6, &in, &out, pp);
    if (write(in, "go\n", 3) != 3) return 1;
    close(in); close(out);
    g = read_pid(pp[0]);
    close(pp[0]);
    kill(p, SIGTERM);
    msleep(300);
    int alive = waitpid(p, NULL, WNOHANG) == 0 && !gone(g);
    check("TERM forwarded and ignored: tree keeps running", alive, g);
    kill(p, SIGUSR1);
    rc = finish(p);
    check("USR1 -> 137 and the re-parented TERM-ignoring leftover gone", rc == 137 && gone(g), rc);

    char *a7[] = { R, "--", H, "term42", NULL };
    p = start(a7, &in, &out, NULL);
    if (write(in, "go\n", 3) != 3) return 1;
    n = read(out, buf, 1);
    kill(p, SIGTERM);
    rc = finish(p);
    close(in); close(out);
    check("TERM forwarded, handler exits 42", rc == 42, rc);

    printf("RESULT aarch64 reaper in VM: %d passed, %d failed\n", passed, failed);
    fflush(stdout);
    pid_t sc = fork();
    if (sc == 0) {
        extern int seccheck(const char *);
        fflush(stdout);
        _exit(seccheck("/filter.bin"));
    }
    printf("seccomp check exit %d\n", finish(sc));
    fflush(stdout);
    sync();
    reboot(RB_POWER_OFF);
    return 0;
}
