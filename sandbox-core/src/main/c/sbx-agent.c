/*
 * sbx-agent: the jail's main process (every sandbox's first process). It speaks the host's frame protocol on fd 0
 * (frames from the host) and fd 1 (frames to the host); fd 2 is a diagnostics channel the host keeps. The protocol,
 * its frames and what the agent promises about them (the output cap, SIGNAL and the sweep, when EXIT comes, what
 * ends the agent) are in PROTOCOL.md; its numbers are generated from AgentProtocol.java into sbx-protocol.h.
 *
 *   sbx-agent [--nproc=N] [--data=BYTES] [--reaper=PATH] [--oom] [--listen=HOST:PORT [--key-env=NAME]]
 *   sbx-agent --connect=HOST:PORT   (a later host's relay to a leased agent, sbx-lease.c)
 *   sbx-agent --workspace-tmpfs=PID,BYTES,INODES[,huge]       (host side, see workspace_tmpfs)
 *
 * --oom (containers): each EXIT carries the OOM-kill count of the container's memory cgroup (else -1).
 * --listen (a pod, whose host is across the network): the frames go over the one TCP connection that passes the
 * handshake of sbx-listen.c under the key in the environment variable NAME (default SBX4J_AGENT_KEY), not fd 0/1.
 *
 * Units: this file (the poll loop, commands, the sweep), sbx-frame.c (the frame codec and the queue to the host),
 * sbx-ring.c (the output cap's ring), sbx-watch.c (file watches), sbx-fs*.c (FILE operations), sbx-listen.c (the
 * TCP connector), sbx-proc.h (process trees, shared with sbx-reaper). build-native.sh links them into one static
 * binary.
 *
 * One thread, one poll() loop. Each command runs as `sbx-reaper -- argv` with non-blocking pipes for its
 * stdin, stdout and stderr; its environment is the jail's fixed one (bwrap --clearenv --setenv) overridden
 * by the SPAWN env, nothing else; RLIMIT_NPROC = N + 2 (the agent and the jail's init; the agent has one
 * thread), N + 1 when the agent is the init itself, and RLIMIT_DATA = BYTES (soft = hard) when given. Memory is bounded: at most OUT_CAP bytes of
 * command output wait for the host (beyond that the commands' pipes are not read: backpressure), at most
 * STDIN_CAP bytes of stdin wait for commands and at most OUT_HARD bytes of frames for the host (beyond
 * either, the host's frames are not read), and one input frame is at most SBX_MAX_FRAME bytes (a bigger or
 * smaller length ends the agent: the channel cannot be trusted any more). Rings take at most RING_BUDGET bytes
 * in all; a stream that finds no room goes to the host whole.
 *
 * The sweep: after SIGNAL 9 and after every command's exit, every process whose parent is the jail's init, other
 * than this agent, is killed with its subtree (only when this agent is pid 2 under a pid 1, as bwrap starts it,
 * or is pid 1 itself, as a container's first process, where it also reaps every orphan: run elsewhere, for tests,
 * it never sweeps).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sbx-frame.h"
#include "sbx-fs.h"
#include "sbx-lease.h"
#include "sbx-listen.h"
#include "sbx-pty.h"
#include "sbx-proc.h"
#include "sbx-ring.h"
#include "sbx-watch.h"

#define READ_CHUNK (64u << 10)         /* one read of a command's output = one frame */
#define OUT_CAP (1u << 20)             /* command output waiting for the host before the pipes pause */
#define OUT_HARD (4u << 20)            /* frames of any kind waiting for the host before host input pauses */
#define STDIN_CAP (16u << 20)          /* stdin bytes queued for commands before host input pauses */
#define MAX_COMMANDS 4096
#define GRACE_NS (300LL * 1000 * 1000)
#define RING_BUDGET (32u << 20)        /* all commands' tail rings together */
#define PUMP_ROUNDS 64                 /* reads of one pipe in a row before the loop looks at the others */
#define RING_PIPE (1u << 20)           /* a pipe whose stream is past its head: fewer wake-ups of its writer */
#define RING_REST_NS (300LL * 1000)    /* a drained ring stream is not polled again for this long */

struct chunk {
    struct chunk *next;
    size_t len, off;
    unsigned char data[];
};

struct cmd {
    int32_t id;
    uint32_t keep; /* 0: all output goes to the host */
    struct keep keep_out, keep_err;
    pid_t pid;
    int in_fd, out_fd, err_fd;
    int gate_fd; /* a terminal's: the reaper's gate pipe (its stdin is the terminal); closed at GO */
    int pty;     /* a terminal's: out_fd is its master, in_fd a second fd of it; no stderr */
    struct chunk *q_head, *q_tail;
    int close_after_queue; /* STDIN_CLOSE came: close stdin once the queue is written */
    int reaped;
    int status;
    long long reaped_ns;
};

static const char *reaper_path = "/opt/sandbox4j/sbx-reaper";
static long long nproc_limit = -1, data_limit = -1;
static int sweeping; /* pid 2 under a pid 1, or pid 1: inside a fresh pid namespace */
static int report_oom; /* --oom: EXIT carries the memory cgroup's OOM-kill count */
static pid_t self_pid;

static struct cmd **cmds;
static size_t ncmds, cmds_cap;
static size_t stdin_queued;
static size_t ring_total;

/* from the host */
static unsigned char *in_buf;
static size_t in_len, in_cap;
static int host_eof;

static struct table proc_table;
static pid_t *proc_queue;
static size_t proc_qcap;

/* --- commands ------------------------------------------------------------------------------------- */

static struct cmd *find_cmd(int32_t id)
{
    for (size_t i = 0; i < ncmds; i++)
        if (cmds[i]->id == id)
            return cmds[i];
    return NULL;
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

static void drop_queue(struct cmd *c)
{
    while (c->q_head) {
        struct chunk *k = c->q_head;
        c->q_head = k->next;
        stdin_queued -= k->len - k->off;
        free(k);
    }
    c->q_tail = NULL;
}

static void close_stdin(struct cmd *c)
{
    drop_queue(c);
    close_fd(&c->in_fd);
}

static void drop_ring(struct cmd *c, struct keep *k)
{
    if (k->ring != NULL) {
        free(k->ring);
        k->ring = NULL;
        ring_total -= c->keep;
    }
}

static void remove_cmd(size_t i)
{
    struct cmd *c = cmds[i];
    drop_ring(c, &c->keep_out);
    drop_ring(c, &c->keep_err);
    close_stdin(c);
    close_fd(&c->out_fd);
    close_fd(&c->err_fd);
    close_fd(&c->gate_fd);
    free(c);
    cmds[i] = cmds[--ncmds];
}

static void enqueue(struct cmd *c, const unsigned char *data, size_t len, int front)
{
    if (c->in_fd < 0 || len == 0)
        return;
    struct chunk *k = malloc(sizeof *k + len);
    if (k == NULL) {
        say("%s", "out of memory");
        _exit(4);
    }
    k->len = len;
    k->off = 0;
    memcpy(k->data, data, len);
    if (front) {
        k->next = c->q_head;
        c->q_head = k;
        if (c->q_tail == NULL)
            c->q_tail = k;
    } else {
        k->next = NULL;
        if (c->q_tail)
            c->q_tail->next = k;
        else
            c->q_head = k;
        c->q_tail = k;
    }
    stdin_queued += len;
}

static void feed(struct cmd *c)
{
    while (c->in_fd >= 0 && c->q_head) {
        struct chunk *k = c->q_head;
        ssize_t n = write(c->in_fd, k->data + k->off, k->len - k->off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) { /* EPIPE: the command stopped reading; what is queued cannot be delivered */
            close_stdin(c);
            return;
        }
        k->off += (size_t) n;
        stdin_queued -= (size_t) n;
        if (k->off == k->len) {
            c->q_head = k->next;
            if (c->q_head == NULL)
                c->q_tail = NULL;
            free(k);
        }
    }
    if (c->in_fd >= 0 && c->q_head == NULL && c->close_after_queue)
        close_fd(&c->in_fd);
}

/* One read of a command's pipe: > 0 bytes read, 0 empty for now, -1 at EOF or on an error (then closed). */
static ssize_t read_pipe(int *fd, unsigned char *into, size_t want)
{
    ssize_t n;
    do {
        n = read(*fd, into, want);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    if (n <= 0) {
        close_fd(fd);
        return -1;
    }
    return n;
}

/*
 * Reads into the stream's tail ring; what it overwrites is counted, never sent. Returns 2 when the read filled
 * what it asked for (more is likely waiting), 1 for less, 0 or -1 as pump.
 */
static int pump_ring(struct cmd *c, struct keep *k, int *fd)
{
    size_t want = c->keep - k->pos; /* up to SBX_MAX_KEEP: nothing is framed, so no READ_CHUNK bound */
    ssize_t n = read_pipe(fd, k->ring + k->pos, want);
    if (n <= 0)
        return (int) n;
    ring_took(k, c->keep, (size_t) n);
    if ((size_t) n == want)
        return 2;
    /*
     * Drained: nobody sees this stream's middle, so the writer may fill the (enlarged) pipe for a while before
     * the next read. On a 1 GiB flood this took the reader's CPU from ~400 to ~160 ms and the writers' from ~1.2
     * to ~0.9 s (fewer wake-ups on both sides), which is what a CPU-limited sandbox waits for.
     */
    k->rest_until = now_ns() + RING_REST_NS;
    return 1;
}

/*
 * Reads one chunk of a command's stdout or stderr into a frame (or, past a capped stream's first 2 × keep
 * bytes, into its ring); EOF or an error closes the pipe. Returns 2 when a ring read filled the room it asked
 * for (more is likely waiting), 1 when it read something else, 0 when the pipe is empty for now, -1 when it is
 * closed.
 */
static int pump(struct cmd *c, int *fd, int type)
{
    if (*fd < 0)
        return -1;
    struct keep *k = type == SBX_STDOUT ? &c->keep_out : &c->keep_err;
    size_t want = READ_CHUNK;
    if (c->keep > 0 && !k->whole) {
        unsigned long long head = 2ULL * c->keep;
        if (k->streamed >= head) {
            if (k->ring == NULL && ring_total + c->keep <= RING_BUDGET && (k->ring = malloc(c->keep)) != NULL) {
                ring_total += c->keep;
                /*
                 * A stream this long is a flood: a larger pipe lets its writer run longer between this loop's
                 * reads (fewer context switches). Best effort: the user's pipe-buffer allowance may say no.
                 */
                (void) fcntl(*fd, F_SETPIPE_SZ, (int) RING_PIPE);
            }
            if (k->ring != NULL)
                return pump_ring(c, k, fd);
            k->whole = 1; /* nothing skipped yet: the rest goes to the host as it comes */
        } else if (head - k->streamed < want) {
            want = (size_t) (head - k->streamed);
        }
    }
    ssize_t n = read_pipe(fd, out_reserve(want), want);
    if (n <= 0)
        return (int) n;
    out_commit(type, c->id, (size_t) n);
    k->streamed += (unsigned long long) n;
    return 1;
}

/* Whether a stream rests (see pump_ring); if so, the end of its rest becomes a deadline of the poll loop. */
static int resting(struct keep *k, long long now, long long *deadline)
{
    if (k->rest_until <= now)
        return 0;
    if (*deadline < 0 || k->rest_until < *deadline)
        *deadline = k->rest_until;
    return 1;
}

/* Before EXIT: what the ring skipped, then the ring's bytes, oldest first. */
static void flush_ring(struct cmd *c, struct keep *k, int type)
{
    ring_send(k, c->keep, type, c->id);
    drop_ring(c, k);
}

static int is_live_reaper(pid_t p)
{
    for (size_t i = 0; i < ncmds; i++)
        if (cmds[i]->pid == p && !cmds[i]->reaped)
            return 1;
    return 0;
}

/*
 * As pid 1 (a container's first process), orphans are this agent's own children, beside the live reapers:
 * kills every child that is not a live reaper, with its subtree. Returns how many it signalled, or -1.
 */
static long signal_orphans_as_init(void)
{
    if (load_table(&proc_table) != 0)
        return -1;
    size_t n = 0;
    pid_t *orphans = malloc((proc_table.n + 1) * sizeof *orphans);
    if (orphans == NULL)
        return -1;
    for (size_t i = 0; i < proc_table.n; i++) {
        struct proc *p = &proc_table.v[i];
        if (p->ppid == self_pid && p->pid != self_pid && p->state != 'Z' && !is_live_reaper(p->pid))
            orphans[n++] = p->pid;
    }
    long count = 0;
    for (size_t i = 0; i < n; i++) {
        long d = signal_descendants(&proc_table, orphans[i], 0, &proc_queue, &proc_qcap, SIGKILL);
        if (d > 0)
            count += d;
        if (kill(orphans[i], SIGKILL) == 0)
            count++;
    }
    free(orphans);
    return count;
}

/* Kills every process re-parented to the sandbox's init (other than this agent) with its subtree. */
static void sweep_orphans(void)
{
    if (!sweeping)
        return;
    for (int round = 0; round < 100; round++) {
        long n = self_pid == 1 ? signal_orphans_as_init()
                               : signal_descendants(&proc_table, 1, self_pid, &proc_queue, &proc_qcap, SIGKILL);
        if (n <= 0)
            return;
        if (self_pid == 1) {
            /* reap what was killed, so the next scan does not count zombies of ours */
            struct timespec ts = { 0, round < 10 ? 1000000L : 10000000L };
            nanosleep(&ts, NULL);
            int st;
            while (waitpid(-1, &st, WNOHANG) > 0) {
            }
            continue;
        }
        struct timespec ts = { 0, round < 10 ? 1000000L : 10000000L };
        nanosleep(&ts, NULL);
    }
}

/* The OOM-kill count of the container's memory cgroup (v2 memory.events, v1 memory.oom_control), or -1. */
static long long oom_kills(void)
{
    static const char *const files[] = { "/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control" };
    if (!report_oom)
        return -1;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        int fd = open(files[f], O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        char buf[1024];
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
            if (strncmp(line, "oom_kill ", 9) == 0)
                return strtoll(line + 9, NULL, 10);
        }
    }
    return -1;
}

static int exit_code(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return 125;
}

/* Sends EXIT for every reaped command whose output ended or whose grace passed. */
static void finish_cmds(long long now, long long *next_deadline)
{
    for (size_t i = 0; i < ncmds;) {
        struct cmd *c = cmds[i];
        if (!c->reaped) {
            i++;
            continue;
        }
        int drained = c->out_fd < 0 && c->err_fd < 0;
        if (!drained && now >= c->reaped_ns + GRACE_NS) {
            /*
             * The grace is over: take what is already in the pipes (this loop may have been busy, say
             * starting other commands, and never read them), then stop at the first empty read.
             */
            for (int r = 0; r < PUMP_ROUNDS && out_data_pending() < OUT_CAP && pump(c, &c->err_fd, SBX_STDERR) > 0; r++) {
            }
            for (int r = 0; r < PUMP_ROUNDS && out_data_pending() < OUT_CAP && pump(c, &c->out_fd, SBX_STDOUT) > 0; r++) {
            }
        }
        /* while the host is not taking output, the grace does not run out: the output is still coming */
        int paused = out_data_pending() >= OUT_CAP;
        drained = c->out_fd < 0 && c->err_fd < 0;
        if (!drained && (paused || now < c->reaped_ns + GRACE_NS)) {
            long long d = paused ? now + 10LL * 1000 * 1000 : c->reaped_ns + GRACE_NS;
            if (*next_deadline < 0 || d < *next_deadline)
                *next_deadline = d;
            i++;
            continue;
        }
        flush_ring(c, &c->keep_err, SBX_STDERR);
        flush_ring(c, &c->keep_out, SBX_STDOUT);
        send_exit(c->id, exit_code(c->status), oom_kills());
        remove_cmd(i);
    }
}

/*
 * Reaps the agent's children. When a command's reaper has ended, whatever it left re-parented to the init
 * (a reaper killed by SIGNAL 9 or from inside the sandbox) is swept at once, so its pipes reach EOF.
 */
static void reap_children(void)
{
    int ended = 0;
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, WNOHANG);
        if (p < 0 && errno == EINTR)
            continue;
        if (p <= 0)
            break;
        for (size_t i = 0; i < ncmds; i++) {
            struct cmd *c = cmds[i];
            if (c->pid == p && !c->reaped) {
                c->reaped = 1;
                c->status = st;
                c->reaped_ns = now_ns();
                close_stdin(c);
                ended = 1;
                break;
            }
        }
    }
    if (ended)
        sweep_orphans();
}

/*
 * The agent is ending: every reaper gets SIGUSR1 (it SIGKILLs its whole tree, then exits; one still at its
 * gate just dies), and the init's orphans are swept. In the jail, the init then ends the pid namespace.
 */
static void kill_everything(void)
{
    for (size_t i = 0; i < ncmds; i++)
        if (!cmds[i]->reaped)
            kill(cmds[i]->pid, SIGUSR1);
    sweep_orphans();
}

/* --- SPAWN ------------------------------------------------------------------------------------------ */

extern char **environ;

/* The jail's fixed environment, with each SPAWN variable replacing one of the same name. */
static char **merge_env(char **spawn_env, uint32_t n)
{
    size_t base = 0;
    for (char **e = environ; *e; e++)
        base++;
    char **v = calloc(base + n + 1, sizeof *v);
    if (v == NULL)
        return NULL;
    size_t k = 0;
    for (char **e = environ; *e; e++) {
        size_t name = strcspn(*e, "=");
        int replaced = 0;
        for (uint32_t i = 0; i < n && !replaced; i++)
            replaced = strncmp(spawn_env[i], *e, name) == 0 && spawn_env[i][name] == '=';
        if (!replaced)
            v[k++] = *e;
    }
    for (uint32_t i = 0; i < n; i++) {
        /* a later duplicate of the same name wins, as in a map */
        size_t name = strcspn(spawn_env[i], "=");
        int later = 0;
        for (uint32_t j = i + 1; j < n && !later; j++)
            later = strncmp(spawn_env[j], spawn_env[i], name) == 0 && spawn_env[j][name] == '=';
        if (!later)
            v[k++] = spawn_env[i];
    }
    return v;
}

/* The command limits every child of the agent runs under (a command's reaper and a FILE operation alike). */
static int apply_limits(void)
{
    if (nproc_limit >= 0) {
        struct rlimit r = { (rlim_t) nproc_limit, (rlim_t) nproc_limit };
        if (setrlimit(RLIMIT_NPROC, &r) != 0)
            return -1;
    }
    if (data_limit >= 0) {
        struct rlimit r = { (rlim_t) data_limit, (rlim_t) data_limit };
        if (setrlimit(RLIMIT_DATA, &r) != 0)
            return -1;
    }
    return 0;
}

static void child_exec(int in_r, int out_w, int err_w, int status_w, const char *cwd, char **argv, char **envp)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    if (dup2(in_r, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
        goto fail;
    /* whatever the agent inherited without close-on-exec (from bwrap, say) does not reach the command */
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) != 0)
#endif
    {
        for (int fd = 3; fd < 4096; fd++)
            fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    if (apply_limits() != 0)
        goto fail;
    if (chdir(cwd) != 0)
        goto fail;
    execve(reaper_path, argv, envp);
fail:;
    int err = errno;
    ssize_t w = write(status_w, &err, sizeof err);
    (void) w;
    _exit(127);
}

/*
 * A FILE command's child: the same pipes, limits and gate as a command's, but it never execs: it runs the file
 * operation in this process (sbx-fs.c), so nothing in the sandbox is needed but the agent. status_w is closed once it
 * is set up (a command's closes on exec).
 */
static void child_file(int in_r, int out_w, int err_w, int status_w, const char *root, char **argv, uint32_t argc)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (dup2(in_r, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
        goto fail;
    /* nothing of the agent's (its channel, other commands' pipes, watches) stays open in the operation: the status
     * pipe becomes fd 3, everything above it is closed */
    if (status_w != 3 && dup2(status_w, 3) < 0)
        goto fail;
    status_w = 3;
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 4u, ~0u, 0u) != 0)
#endif
    {
        for (int fd = 4; fd < 65536; fd++)
            close(fd);
    }
    if (apply_limits() != 0)
        goto fail;
    struct rlimit files;
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max && files.rlim_cur < 4096) {
        files.rlim_cur = files.rlim_max < 4096 ? files.rlim_max : 4096; /* a copy holds two fds a level */
        setrlimit(RLIMIT_NOFILE, &files);
    }
    close(status_w);
    /* the gate: GO's byte comes before any stdin */
    char gate;
    ssize_t n;
    do {
        n = read(0, &gate, 1);
    } while (n < 0 && errno == EINTR);
    if (n != 1)
        _exit(125);
    _exit(fs_main((int) argc, argv, root));
fail:;
    int err = errno;
    ssize_t w = write(status_w, &err, sizeof err);
    (void) w;
    _exit(127);
}

static void spawn(int32_t id, const unsigned char *p, size_t len, int file)
{
    struct spawn_args a = { 0 };
    char **full = NULL, **envp = NULL;
    const char *why = NULL;
    int pipes[4][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 } };
    int master = -1, slave = -1;

    if (find_cmd(id) != NULL) {
        send_failed(id, "duplicate command id", NULL);
        return;
    }
    if (ncmds >= MAX_COMMANDS) {
        send_failed(id, "too many commands in this sandbox", NULL);
        return;
    }
    if (parse_spawn(p, len, &a, &why) != 0) {
        send_failed(id, "bad SPAWN frame: ", why);
        goto out;
    }
    if (a.nargv == 0 || a.ncwd == 0) {
        send_failed(id, a.nargv == 0 ? "empty command" : "bad SPAWN frame: no working directory", NULL);
        goto out;
    }
    if (file && (a.nenv != 0 || a.cwd[0][0] != '/')) {
        send_failed(id, "bad FILE frame: ", a.nenv != 0 ? "an environment" : "the root is not absolute");
        goto out;
    }
    for (uint32_t i = 0; i < a.nenv; i++) {
        if (strchr(a.env[i], '=') == NULL || a.env[i][0] == '=') {
            send_failed(id, "bad environment variable: ", a.env[i]);
            goto out;
        }
    }
    int pty = a.cols != 0;
    if (pty && (file || !pty_size_ok(a.cols, a.rows))) {
        send_failed(id, "bad SPAWN frame: ", file ? "a terminal for a file operation" : "bad terminal size");
        goto out;
    }
    struct stat st;
    if (stat(a.cwd[0], &st) != 0 || !S_ISDIR(st.st_mode)) {
        send_failed(id, "working directory does not exist: ", a.cwd[0]);
        goto out;
    }
    full = calloc((size_t) a.nargv + 4, sizeof *full);
    envp = file ? calloc(1, sizeof *envp) : merge_env(a.env, a.nenv);
    if (full == NULL || envp == NULL) {
        send_failed(id, "out of memory", NULL);
        goto out;
    }
    int at = 0;
    full[at++] = (char *) reaper_path;
    if (pty)
        full[at++] = "--pty";
    full[at++] = "--";
    for (uint32_t i = 0; i < a.nargv; i++)
        full[at++] = a.argv[i];
    const char *pty_step = NULL;
    if (pty && pty_open(a.cols, a.rows, &master, &slave, &pty_step) != 0) {
        send_failed(id, "cannot open a terminal: ", pty_step);
        goto out;
    }
    for (int i = 0; i < 4; i++) {
        if (pipe2(pipes[i], O_CLOEXEC) != 0) {
            send_failed(id, "cannot make pipes: ", strerror(errno));
            goto out;
        }
    }
    if (file) {
        /* a file operation moves a file's bytes: 1 MiB pipes take a fraction of the wake-ups (best effort) */
        fcntl(pipes[0][1], F_SETPIPE_SZ, 1 << 20);
        fcntl(pipes[1][1], F_SETPIPE_SZ, 1 << 20);
    }
    if (ncmds == cmds_cap) {
        size_t cap = cmds_cap ? cmds_cap * 2 : 64;
        struct cmd **v = realloc(cmds, cap * sizeof *v);
        if (v == NULL) {
            send_failed(id, "out of memory", NULL);
            goto out;
        }
        cmds = v;
        cmds_cap = cap;
    }
    struct cmd *c = calloc(1, sizeof *c);
    if (c == NULL) {
        send_failed(id, "out of memory", NULL);
        goto out;
    }
    pid_t pid = fork();
    if (pid == 0 && file)
        child_file(pipes[0][0], pipes[1][1], pipes[2][1], pipes[3][1], a.cwd[0], a.argv, a.nargv);
    if (pid == 0)
        child_exec(pipes[0][0], pty ? slave : pipes[1][1], pty ? slave : pipes[2][1], pipes[3][1], a.cwd[0], full,
                   envp);
    if (pid < 0) {
        free(c);
        send_failed(id, "cannot start the command: fork: ", strerror(errno));
        goto out;
    }
    close_fd(&pipes[3][1]);
    int err = 0;
    ssize_t n;
    do {
        n = read(pipes[3][0], &err, sizeof err);
    } while (n < 0 && errno == EINTR);
    if (n == (ssize_t) sizeof err) {
        /* the child reported why it could not exec; it exits 127 and is reaped by the loop */
        free(c);
        send_failed(id, "cannot run the command: ", strerror(err));
        goto out;
    }
    c->id = id;
    c->keep = file ? 0 : a.keep;
    c->pid = pid;
    c->gate_fd = -1;
    if (pty) {
        /* stdin and stdout are the master (two fds, so STDIN_CLOSE leaves the output open); the gate is a pipe */
        c->pty = 1;
        c->gate_fd = pipes[0][1];
        c->out_fd = master;
        c->in_fd = fcntl(master, F_DUPFD_CLOEXEC, 3);
        c->err_fd = -1;
        pipes[0][1] = master = -1;
    } else {
        c->in_fd = pipes[0][1];
        c->out_fd = pipes[1][0];
        c->err_fd = pipes[2][0];
        pipes[0][1] = pipes[1][0] = pipes[2][0] = -1;
        fcntl(c->err_fd, F_SETFL, O_NONBLOCK);
    }
    fcntl(c->in_fd, F_SETFL, O_NONBLOCK);
    fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
    cmds[ncmds++] = c;
    send_int(SBX_SPAWNED, id, (int32_t) pid);
out:
    for (int i = 0; i < 4; i++) {
        close_fd(&pipes[i][0]);
        close_fd(&pipes[i][1]);
    }
    close_fd(&master);
    close_fd(&slave);
    free(full);
    free(envp);
    free_spawn(&a);
}

/* --- frames from the host ------------------------------------------------------------------------- */

static int unknown_reported;

static void handle(int type, int32_t id, const unsigned char *p, size_t len)
{
    struct cmd *c = type == SBX_SPAWN || type == SBX_FILE || type == SBX_WATCH || type == SBX_UNWATCH ? NULL
                                                                                                  : find_cmd(id);
    switch (type) {
    case SBX_SPAWN:
    case SBX_FILE:
        if (watch_exists(id))
            send_failed(id, "duplicate command id", NULL);
        else
            spawn(id, p, len, type == SBX_FILE);
        break;
    case SBX_WATCH:
        /* one id space for commands and watches */
        if (find_cmd(id) != NULL)
            send_failed(id, "duplicate watch id", NULL);
        else
            watch_start(id, p, len);
        break;
    case SBX_UNWATCH:
        watch_stop(id);
        break;
    case SBX_GO:
        /* the gate line goes first: the host sends stdin only after GO */
        if (c && !c->reaped && c->pty) {
            /* a terminal's gate is a pipe of its own: one byte into an empty pipe, then closed */
            if (c->gate_fd >= 0) {
                ssize_t w = write(c->gate_fd, "\n", 1);
                (void) w;
            }
            close_fd(&c->gate_fd);
        } else if (c && !c->reaped) {
            enqueue(c, (const unsigned char *) "\n", 1, 1);
        }
        break;
    case SBX_STDIN:
        if (c && !c->reaped && !c->close_after_queue)
            enqueue(c, p, len, 0);
        break;
    case SBX_STDIN_CLOSE:
        if (c && c->pty && !c->close_after_queue && !c->reaped)
            enqueue(c, (const unsigned char *) "\x04", 1, 0); /* a terminal's end of input: VEOF (Ctrl-D) */
        if (c) {
            c->close_after_queue = 1;
            if (c->q_head == NULL)
                close_fd(&c->in_fd);
        }
        break;
    case SBX_LEASE:
        lease_handle(id, p, len);
        break;
    case SBX_SIGNAL:
        if (c && !c->reaped) {
            int sig = len > 0 ? p[0] : 9;
            kill(c->pid, sig == 9 ? SIGKILL : SIGTERM);
            if (sig == 9) {
                /* whatever was already re-parented goes now; the reaper's tree goes when it is reaped */
                sweep_orphans();
            }
        }
        break;
    case SBX_RESIZE: {
        uint32_t cols, rows;
        /* a malformed size, a command without a terminal or one whose terminal closed: ignored */
        if (c && c->pty && c->out_fd >= 0 && pty_parse_resize(p, len, &cols, &rows) == 0)
            pty_resize(c->out_fd, cols, rows);
        break;
    }
    default:
        if (unknown_reported++ < 10) {
            char t[16];
            snprintf(t, sizeof t, "%d", type);
            say("unknown frame type %s", t);
        }
        break;
    }
}

/* Reads what the host sent and handles every whole frame; returns -1 on a bad frame. */
static int read_host(void)
{
    for (;;) {
        struct frame f;
        int split = frame_split(in_buf, in_len, &f);
        if (split == FRAME_BAD) {
            char b[16];
            snprintf(b, sizeof b, "%u", f.length);
            say("bad frame length %s: closing", b);
            return -1;
        }
        size_t want = f.size;
        if (split == FRAME_WHOLE) {
            handle(f.type, f.id, f.payload, f.len);
            memmove(in_buf, in_buf + want, in_len - want);
            in_len -= want;
            if (in_cap > (1u << 20) && in_len < (64u << 10)) { /* one big frame passed: shrink back */
                unsigned char *b = realloc(in_buf, 64u << 10);
                if (b) {
                    in_buf = b;
                    in_cap = 64u << 10;
                }
            }
            return 0; /* one frame per wake-up: the loop rechecks the budgets */
        }
        if (in_cap < want) {
            size_t cap = want < (64u << 10) ? (64u << 10) : want;
            unsigned char *b = realloc(in_buf, cap);
            if (b == NULL) {
                say("%s", "out of memory");
                return -1;
            }
            in_buf = b;
            in_cap = cap;
        }
        ssize_t n = read(STDIN_FILENO, in_buf + in_len, in_cap - in_len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0) {
            host_eof = 1;
            return 0;
        }
        in_len += (size_t) n;
    }
}

/* A whole frame is already buffered. */
static int frame_buffered(void)
{
    struct frame f;
    return in_len >= SBX_HEADER && frame_split(in_buf, in_len, &f) != FRAME_PARTIAL;
}

static int parse_flag(const char *arg, const char *name, long long *out)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(arg + n, &end, 10);
    if (errno != 0 || end == arg + n || *end != '\0' || v < 0) {
        say("bad option %s", arg);
        exit(2);
    }
    *out = v;
    return 1;
}

/*
 * Host side, for a jail of a JVM that is not root (issue 16): sbx-agent --workspace-tmpfs=PID,BYTES,INODES[,huge]
 *
 * Puts a tmpfs of BYTES (0: tmpfs's default) and INODES (0: tmpfs's default), with huge=within_size when asked
 * (the host has transparent huge pages for tmpfs), over /workspace in the mount namespace
 * of the jail process PID. No host privilege: the JVM's user owns the jail's user namespace, so this process has
 * every capability in it once it joins it. The tmpfs is mounted in a mount namespace of this process's own (a copy
 * of the host's, owned by the jail's user namespace); only its directory w is cloned onto the jail's /workspace.
 * Its root, with the file API's staging directory s, stays this process's working directory, reachable by the JVM
 * as /proc/<this pid>/cwd and by nothing in the jail. Prints "ready" and holds the tmpfs until stdin ends (the JVM
 * closed the sandbox, or died); the jail's mount keeps the memory alive until the jail is gone too.
 */
#ifndef NS_GET_USERNS
#define NS_GET_USERNS _IO(0xb7, 0x1)
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#define SBX_OPEN_TREE_CLONE 1
#define SBX_MOVE_MOUNT_F_EMPTY_PATH 0x4

static int tmpfs_fail(const char *what)
{
    char buf[256];
    snprintf(buf, sizeof buf, "workspace tmpfs: %s: %s", what, strerror(errno));
    say("%s", buf);
    return 4;
}

static int workspace_tmpfs(const char *spec)
{
    long long pid, bytes, inodes;
    int end = 0;
    if (sscanf(spec, "%lld,%lld,%lld%n", &pid, &bytes, &inodes, &end) != 3 || pid <= 0 || bytes < 0
            || inodes < 0 || (spec[end] != '\0' && strcmp(spec + end, ",huge") != 0)) {
        say("bad --workspace-tmpfs=%s (want PID,BYTES,INODES[,huge])", spec);
        return 2;
    }
    int huge = spec[end] != '\0';
    char path[64];
    snprintf(path, sizeof path, "/proc/%lld/ns/mnt", pid);
    int jail_mnt = open(path, O_RDONLY | O_CLOEXEC);
    if (jail_mnt < 0)
        return tmpfs_fail("open the jail's mount namespace");
    /* the user namespace that owns the jail's mounts (bwrap's outer one: --disable-userns nests another) */
    int owner = ioctl(jail_mnt, NS_GET_USERNS);
    if (owner < 0)
        return tmpfs_fail("find the user namespace owning the jail's mounts");
    if (setns(owner, CLONE_NEWUSER) != 0)
        return tmpfs_fail("join the jail's user namespace");
    close(owner);
    if (unshare(CLONE_NEWNS) != 0)
        return tmpfs_fail("make a mount namespace");
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return tmpfs_fail("make the mounts private");
    char opts[128];
    int n = snprintf(opts, sizeof opts, huge ? "mode=0700,huge=within_size" : "mode=0700");
    if (bytes > 0)
        n += snprintf(opts + n, sizeof opts - (size_t) n, ",size=%lld", bytes);
    if (inodes > 0) /* its root, w and s are inodes too */
        snprintf(opts + n, sizeof opts - (size_t) n, ",nr_inodes=%lld", inodes + 3);
    if (mount("sandbox4j-workspace", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0)
        return tmpfs_fail("mount the tmpfs");
    if (chdir("/tmp") != 0 || mkdir("w", 0700) != 0 || mkdir("s", 0700) != 0)
        return tmpfs_fail("make the workspace and staging directories");
    int own_mnt = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
    if (own_mnt < 0)
        return tmpfs_fail("open this mount namespace");
    int tree = (int) syscall(SYS_open_tree, AT_FDCWD, "/tmp/w", SBX_OPEN_TREE_CLONE | O_CLOEXEC);
    if (tree < 0)
        return tmpfs_fail("clone the workspace directory's mount (open_tree, Linux 5.2)");
    if (setns(jail_mnt, CLONE_NEWNS) != 0)
        return tmpfs_fail("join the jail's mount namespace");
    if (syscall(SYS_move_mount, tree, "", AT_FDCWD, "/workspace", SBX_MOVE_MOUNT_F_EMPTY_PATH) != 0)
        return tmpfs_fail("mount it on the jail's /workspace (move_mount)");
    if (setns(own_mnt, CLONE_NEWNS) != 0 || chdir("/tmp") != 0)
        return tmpfs_fail("return to the tmpfs");
    close(tree);
    close(own_mnt);
    close(jail_mnt);
    static const char ready[] = "ready\n";
    if (write(STDOUT_FILENO, ready, sizeof ready - 1) != (ssize_t) (sizeof ready - 1))
        return tmpfs_fail("write to the JVM");
    char buf[64];
    for (;;) {
        ssize_t r = read(STDIN_FILENO, buf, sizeof buf);
        if (r == 0 || (r < 0 && errno != EINTR))
            return 0;
    }
}

/*
 * A leased agent's host is gone (its channel ended): every command is killed as when the agent ends, their state and
 * the watches are dropped with the frames meant for that host, and the agent waits for a new host (PROTOCOL.md
 * "Leases and reattach"). Returns 0 once one is on fd 0 and 1 and has had READY, else 1: the lease ran out.
 */
static int detach_host(void)
{
    kill_everything();
    long long hard = now_ns() + 5LL * 1000 * 1000 * 1000;
    while (ncmds > 0) {
        reap_children();
        for (size_t i = 0; i < ncmds;) {
            if (cmds[i]->reaped)
                remove_cmd(i);
            else
                i++;
        }
        if (ncmds > 0 && now_ns() > hard) {
            for (size_t i = 0; i < ncmds; i++)
                kill(cmds[i]->pid, SIGKILL); /* a reaper that did not end on SIGUSR1 */
            hard = now_ns() + 1000LL * 1000 * 1000;
        }
        if (ncmds > 0)
            usleep(5000);
    }
    for (int32_t wid; watch_count() > 0;) {
        watch_fd(0, &wid);
        watch_stop(wid);
    }
    out_discard();
    in_len = 0;
    host_eof = 0;
    if (lease_await() != 0)
        return 1;
    reap_children(); /* what the sweep killed while no host was there */
    fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
    fcntl(STDOUT_FILENO, F_SETFL, fcntl(STDOUT_FILENO, F_GETFL) | O_NONBLOCK);
    send_int(SBX_READY, 0, SBX_VERSION);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strncmp(argv[1], "--workspace-tmpfs=", 18) == 0)
        return workspace_tmpfs(argv[1] + 18);
    if (argc == 2 && strncmp(argv[1], "--connect=", 10) == 0)
        return lease_connect(argv[1] + 10);
    long long nproc = -1;
    const char *listen_addr = NULL, *key_env = "SBX4J_AGENT_KEY";
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--listen=", 9) == 0 && argv[i][9] != '\0') {
            listen_addr = argv[i] + 9;
            continue;
        }
        if (strncmp(argv[i], "--key-env=", 10) == 0 && argv[i][10] != '\0') {
            key_env = argv[i] + 10;
            continue;
        }
        if (parse_flag(argv[i], "--nproc=", &nproc) || parse_flag(argv[i], "--data=", &data_limit))
            continue;
        if (strcmp(argv[i], "--oom") == 0) {
            report_oom = 1;
            continue;
        }
        if (strncmp(argv[i], "--reaper=", 9) == 0 && argv[i][9] != '\0') {
            reaper_path = argv[i] + 9;
            continue;
        }
        say("unknown option %s (usage: sbx-agent [--nproc=N] [--data=BYTES] [--reaper=PATH] [--oom] "
            "[--listen=HOST:PORT [--key-env=NAME]]; or sbx-agent --connect=HOST:PORT)", argv[i]);
        return 2;
    }
    if (nproc > 0)
        /* this agent (one thread) and, unless this agent is the init itself, the jail's init; per the jail's userns */
        nproc_limit = nproc + (getpid() == 1 ? 1 : 2);
    if (data_limit == 0)
        data_limit = -1;

    /* same-uid commands may neither ptrace this agent nor open its /proc/<pid>/fd to forge frames */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (listen_addr != NULL) {
        lease_bind_like(listen_addr);
        int status = listen_for_host(listen_addr, key_env);
        if (status != 0)
            return status;
    }
    self_pid = getpid();
    sweeping = (self_pid == 2 && getppid() == 1) || self_pid == 1;

    signal(SIGPIPE, SIG_IGN);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sfd < 0) {
        say("signalfd: %s", strerror(errno));
        return 3;
    }
    fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
    fcntl(STDOUT_FILENO, F_SETFL, fcntl(STDOUT_FILENO, F_GETFL) | O_NONBLOCK);

    send_int(SBX_READY, 0, SBX_VERSION);
    struct pollfd *fds = NULL;
    struct cmd **owner = NULL;
    int *kind = NULL;
    int32_t *wid = NULL;
    size_t fds_cap = 0;
    for (;;) {
        reap_children();
        long long deadline = -1;
        finish_cmds(now_ns(), &deadline);
        watch_timers(now_ns(), &deadline);
        if (flush_out(STDOUT_FILENO) != 0) {
            if (lease_listener() < 0)
                return 3; /* the host is gone */
            host_eof = 1;
        }
        if (host_eof) {
            if (lease_listener() < 0) {
                kill_everything();
                return 0;
            }
            if (detach_host() != 0)
                return 0; /* the lease ran out with no host */
            continue;
        }
        int host_paused = stdin_queued >= STDIN_CAP || out_pending() >= OUT_HARD;
        if (!host_paused && frame_buffered()) {
            if (read_host() != 0) {
                kill_everything();
                return 2;
            }
            continue;
        }
        size_t need = 4 + 3 * ncmds + watch_count();
        if (need > fds_cap) {
            fds_cap = need * 2;
            fds = realloc(fds, fds_cap * sizeof *fds);
            owner = realloc(owner, fds_cap * sizeof *owner);
            kind = realloc(kind, fds_cap * sizeof *kind);
            wid = realloc(wid, fds_cap * sizeof *wid);
            if (fds == NULL || owner == NULL || kind == NULL || wid == NULL) {
                say("%s", "out of memory");
                return 4;
            }
        }
        size_t nf = 0;
        fds[nf] = (struct pollfd) { sfd, POLLIN, 0 };
        kind[nf++] = 0;
        if (!host_paused) {
            fds[nf] = (struct pollfd) { STDIN_FILENO, POLLIN, 0 };
            kind[nf++] = 1;
        }
        if (out_pending() > 0) {
            fds[nf] = (struct pollfd) { STDOUT_FILENO, POLLOUT, 0 };
            kind[nf++] = 2;
        }
        if (lease_listener() >= 0) {
            fds[nf] = (struct pollfd) { lease_listener(), POLLIN, 0 };
            kind[nf++] = 7;
        }
        int take_output = out_data_pending() < OUT_CAP;
        long long now = now_ns();
        for (size_t i = 0; i < ncmds; i++) {
            struct cmd *c = cmds[i];
            if (take_output && c->out_fd >= 0 && !resting(&c->keep_out, now, &deadline)) {
                fds[nf] = (struct pollfd) { c->out_fd, POLLIN, 0 };
                owner[nf] = c;
                kind[nf++] = 3;
            }
            if (take_output && c->err_fd >= 0 && !resting(&c->keep_err, now, &deadline)) {
                fds[nf] = (struct pollfd) { c->err_fd, POLLIN, 0 };
                owner[nf] = c;
                kind[nf++] = 4;
            }
            if (c->in_fd >= 0 && c->q_head) {
                fds[nf] = (struct pollfd) { c->in_fd, POLLOUT, 0 };
                owner[nf] = c;
                kind[nf++] = 5;
            }
        }
        for (size_t i = 0; take_output && i < watch_count(); i++) {
            fds[nf] = (struct pollfd) { watch_fd(i, &wid[nf]), POLLIN, 0 };
            kind[nf++] = 6;
        }
        struct timespec timeout, *wait = NULL;
        if (deadline >= 0) {
            long long ns = deadline - now_ns();
            if (ns < 0)
                ns = 0;
            timeout.tv_sec = (time_t) (ns / 1000000000LL);
            timeout.tv_nsec = (long) (ns % 1000000000LL);
            wait = &timeout;
        }
        int r = ppoll(fds, (nfds_t) nf, wait, NULL);
        if (r < 0 && errno != EINTR) {
            say("poll: %s", strerror(errno));
            kill_everything();
            return 3;
        }
        if (r <= 0)
            continue;
        for (size_t i = 0; i < nf; i++) {
            if (fds[i].revents == 0)
                continue;
            switch (kind[i]) {
            case 0: {
                struct signalfd_siginfo si;
                while (read(sfd, &si, sizeof si) > 0) {
                }
                break; /* reaped at the top of the loop */
            }
            case 1:
                if (read_host() != 0) {
                    kill_everything();
                    return 2;
                }
                break;
            case 2:
                break; /* flushed at the top of the loop */
            case 3:
                /*
                 * stderr first: what a command wrote to stderr before this stdout is already in its pipe, and
                 * the host must see it first (a code context's status line on stdout ends its run's stderr)
                 */
                for (int r = 0; r < PUMP_ROUNDS && out_data_pending() < OUT_CAP
                                && pump(owner[i], &owner[i]->err_fd, SBX_STDERR) > 0; r++) {
                }
                /* a stream past its head goes into its ring, not to the host: read on while it is full */
                for (int r = 0; r < PUMP_ROUNDS && out_data_pending() < OUT_CAP
                                && pump(owner[i], &owner[i]->out_fd, SBX_STDOUT) == 2; r++) {
                }
                break;
            case 4:
                for (int r = 0; r < PUMP_ROUNDS && out_data_pending() < OUT_CAP
                                && pump(owner[i], &owner[i]->err_fd, SBX_STDERR) == 2; r++) {
                }
                break;
            case 5:
                feed(owner[i]);
                break;
            case 7:
                lease_refuse();
                break;
            case 6: {
                /* by id: a WATCH/UNWATCH handled above in this round may have changed the table */
                if (out_data_pending() < OUT_CAP)
                    (void) watch_read(wid[i]);
                break;
            }
            default:
                break;
            }
        }
    }
}
