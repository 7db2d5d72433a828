/*
 * test-fs.c: the C unit tests of the agent's file operations (sbx-fs.c, sbx-fs-tree.c), run by run-c-tests.sh.
 *
 *   test-fs
 *
 * Each operation runs as the agent runs it, in a forked child (fs_main exits on a failure), on a fresh directory under
 * $TMPDIR, with pipes for its stdin, stdout and stderr: the path walk against links (also swapped in while it runs),
 * FIFOs and sockets, names that are not UTF-8, a write whose content stops before its end mark, a listing of many
 * entries, and the record encoder byte for byte.
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
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "sbx-frame.h"
#include "sbx-fs.h"

static char ws[256];

/* What one operation did: its exit status, stdout and stderr. */
struct ran {
    int status;
    unsigned char *out;
    size_t nout;
    char err[4096];
};

static void ran_free(struct ran *r)
{
    free(r->out);
    r->out = NULL;
}

/* Runs argv on ws with stdin (len bytes, then EOF); kill_after_ms > 0 sends TERM then (a host's timeout). */
static int run_op(char **argv, int argc, const void *stdin_data, size_t len, int kill_after_ms, struct ran *r)
{
    int in[2], out[2], err[2];
    if (pipe(in) != 0 || pipe(out) != 0 || pipe(err) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        close(err[0]);
        close(err[1]);
        alarm(20); /* a FIFO opened by mistake would hang: this ends it */
        _exit(fs_main(argc, argv, ws));
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    signal(SIGPIPE, SIG_IGN);
    if (len > 0 && write(in[1], stdin_data, len) != (ssize_t) len) {
        /* the operation failed before it read its content: its status says why */
    }
    if (kill_after_ms > 0) {
        usleep((useconds_t) kill_after_ms * 1000);
        kill(pid, SIGTERM);
    }
    close(in[1]);
    size_t cap = 1 << 16;
    r->out = malloc(cap);
    r->nout = 0;
    for (;;) {
        if (r->nout == cap)
            r->out = realloc(r->out, cap *= 2);
        ssize_t n = read(out[0], r->out + r->nout, cap - r->nout);
        if (n <= 0)
            break;
        r->nout += (size_t) n;
    }
    ssize_t e = read(err[0], r->err, sizeof r->err - 1);
    r->err[e > 0 ? e : 0] = '\0';
    close(out[0]);
    close(err[0]);
    waitpid(pid, &r->status, 0);
    return 0;
}

#define OP(r, ...)                                                                                            \
    do {                                                                                                      \
        char *argv_[] = { __VA_ARGS__ };                                                                      \
        CHECK_OR_STOP(run_op(argv_, (int) (sizeof argv_ / sizeof *argv_), NULL, 0, 0, (r)) == 0);               \
    } while (0)

static int exited(const struct ran *r, int code)
{
    return WIFEXITED(r->status) && WEXITSTATUS(r->status) == code;
}

static void fresh(void)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(ws, sizeof ws, "%s/sbx-fs-test-XXXXXX", tmp);
    if (mkdtemp(ws) == NULL) {
        perror("mkdtemp");
        exit(2);
    }
}

static void sh(const char *fmt, const char *arg)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, fmt, ws, arg);
    if (system(cmd) != 0)
        fprintf(stderr, "setup failed: %s\n", cmd);
}

static void cleanup(void)
{
    sh("rm -rf %s%s", "");
}

/* Content as a write reads it: chunks (int length + bytes) and, when ended, the empty chunk. */
static size_t chunked(unsigned char *out, const char *data, size_t len, int ended)
{
    size_t n = 0;
    if (len > 0) {
        put32(out, (uint32_t) len);
        memcpy(out + 4, data, len);
        n = 4 + len;
    }
    if (ended) {
        put32(out + n, 0);
        n += 4;
    }
    return n;
}

static int temporaries_in(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", ws, dir);
    DIR *d = opendir(path);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += strncmp(e->d_name, ".sandbox4j-", 11) == 0;
    if (d)
        closedir(d);
    return n;
}

static char *file_text(const char *rel)
{
    static char buf[4096];
    char path[512];
    snprintf(path, sizeof path, "%s/%s", ws, rel);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return f ? buf : NULL;
}

/* --- tests ------------------------------------------------------------------------------------------------------- */

static void paths_are_split_into_clean_components(void)
{
    static struct fs_path p;
    CHECK(fs_split("", &p) == 0 && p.n == 0);
    CHECK(fs_split("a/b/c", &p) == 0 && p.n == 3);
    CHECK_STR(p.part[2], "c");
    const char *bad[] = { "/a", "a//b", "a/./b", "a/../b", "a/", "..", ".", "./a" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (fs_split(bad[i], &p) != -1)
            CHECK_FAIL("\"%s\" was accepted", bad[i]);
    char *long_path = malloc(FS_MAX_PATH + 2);
    memset(long_path, 'a', FS_MAX_PATH + 1);
    long_path[FS_MAX_PATH + 1] = '\0';
    CHECK(fs_split(long_path, &p) == -1);
    free(long_path);
}

static void an_entry_record_is_its_fields_big_endian(void)
{
    struct stat st;
    memset(&st, 0, sizeof st);
    st.st_mode = S_IFLNK | 0777;
    st.st_size = 0x0102030405LL;
    st.st_mtim.tv_sec = 1764201600;
    st.st_mtim.tv_nsec = 123456789;
    unsigned char b[64];
    size_t n = fs_put_entry(b, fs_type(&st), &st, "t", 1, "p/q", 3);
    static const unsigned char want[] = { 'l', 0, 0, 0, 1, 2, 3, 4, 5, 0, 0, 1, 0xff, 0, 0, 0, 0, 0x69, 0x27, 0x94,
                                          0x80, 0x07, 0x5b, 0xcd, 0x15, 0, 0, 0, 1, 't', 0, 0, 0, 3, 'p', '/', 'q' };
    CHECK_EQ(n, sizeof want);
    CHECK(memcmp(b, want, sizeof want) == 0);
}

static void a_link_on_the_way_or_at_the_end_is_refused_never_followed(void)
{
    fresh();
    sh("cd %s && mkdir d && echo inside > d/f && ln -s /etc etc && ln -s /etc/passwd passwd && ln -s d dl%s", "");
    struct ran r;
    const char *reads[] = { "etc/passwd", "passwd", "dl/f" };
    for (size_t i = 0; i < 3; i++) {
        OP(&r, "read", (char *) reads[i], "all", "1000");
        if (!exited(&r, FS_FAILED) || strstr(r.err, "E:PERMISSION_DENIED:refusing to follow the symbolic link") == NULL
            || r.nout != 0)
            CHECK_FAIL("read %s: status %d, stderr %s", reads[i], r.status, r.err);
        ran_free(&r);
    }
    unsigned char content[16];
    size_t n = chunked(content, "pwned", 5, 1);
    char *argv[] = { "write", "etc/pwned", "replace", "5" };
    CHECK_OR_STOP(run_op(argv, 4, content, n, 0, &r) == 0);
    CHECK(exited(&r, FS_FAILED) && strstr(r.err, "E:PERMISSION_DENIED") != NULL);
    ran_free(&r);
    OP(&r, "mkdirs", "dl/x");
    CHECK(exited(&r, FS_FAILED) && strstr(r.err, "E:PERMISSION_DENIED") != NULL);
    ran_free(&r);
    OP(&r, "list", "etc", "1", "1", "0", "0");
    CHECK(exited(&r, FS_FAILED) && strstr(r.err, "E:PERMISSION_DENIED") != NULL && r.nout == 0);
    ran_free(&r);
    OP(&r, "read", "d/f", "all", "1000");
    CHECK(exited(&r, 0) && r.nout == 8 + 7 && memcmp(r.out + 8, "inside\n", 7) == 0);
    ran_free(&r);
    cleanup();
}

/* A directory and a link to /etc trade places without pause while reads walk through that name. */
static void a_link_swapped_in_mid_walk_is_never_followed(void)
{
#ifdef SYS_renameat2
    fresh();
    sh("cd %s && mkdir real && echo 'safe content' > real/passwd && ln -s /etc swap%s", "");
    char real[300], swap[300];
    snprintf(real, sizeof real, "%s/real", ws);
    snprintf(swap, sizeof swap, "%s/swap", ws);
    pid_t swapper = fork();
    if (swapper == 0) {
        for (;;)
            syscall(SYS_renameat2, AT_FDCWD, real, AT_FDCWD, swap, 2 /* RENAME_EXCHANGE */);
    }
    int ok = 0, refused = 0, leaked = 0;
    for (int i = 0; i < 300; i++) {
        struct ran r;
        char *argv[] = { "read", i % 2 ? "real/passwd" : "swap/passwd", "all", "100000" };
        if (run_op(argv, 4, NULL, 0, 0, &r) != 0)
            break;
        if (r.nout > 8 && memmem(r.out, r.nout, "root:", 5) != NULL)
            leaked++;
        else if (exited(&r, 0))
            ok++;
        else if (strstr(r.err, "E:PERMISSION_DENIED") || strstr(r.err, "E:NOT_FOUND"))
            refused++;
        ran_free(&r);
    }
    kill(swapper, SIGKILL);
    waitpid(swapper, NULL, 0);
    CHECK_EQ(leaked, 0);
    CHECK(ok > 0 && refused > 0); /* both states were met: the race ran */
    cleanup();
#endif
}

static void fifos_and_sockets_are_never_opened_for_reading(void)
{
    fresh();
    sh("cd %s && mkfifo fifo && mkdir d%s", "");
    char sock[300];
    snprintf(sock, sizeof sock, "%s/d/sock", ws);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(sock) >= sizeof a.sun_path) {
        printf("skip the socket: %s is too long a path\n", sock);
        close(s);
        cleanup();
        return;
    }
    memcpy(a.sun_path, sock, strlen(sock) + 1);
    CHECK(bind(s, (struct sockaddr *) &a, sizeof a) == 0);
    struct ran r;
    const char *names[] = { "fifo", "d/sock" };
    for (int i = 0; i < 2; i++) {
        OP(&r, "read", (char *) names[i], "stream");
        CHECK(exited(&r, FS_FAILED) && strstr(r.err, "E:PERMISSION_DENIED:not a regular file") != NULL);
        ran_free(&r);
    }
    unsigned char content[16];
    size_t n = chunked(content, "x", 1, 1);
    char *argv[] = { "write", "fifo", "append", "1" };
    CHECK_OR_STOP(run_op(argv, 4, content, n, 0, &r) == 0);
    CHECK(exited(&r, FS_FAILED) && strstr(r.err, "E:PERMISSION_DENIED") != NULL);
    ran_free(&r);
    OP(&r, "cat", "", "6669666f"); /* "fifo": a special file, not opened */
    CHECK(exited(&r, 0) && r.nout == 1 && r.out[0] == 's');
    ran_free(&r);
    close(s);
    cleanup();
}

static void names_that_are_not_utf8_are_listed_and_read_as_bytes(void)
{
    fresh();
    sh("cd %s && printf 'x\\n' > \"$(printf 'bad\\377name')\"%s", "");
    struct ran r;
    OP(&r, "list", "", "1", "1", "0", "0");
    CHECK_OR_STOP(exited(&r, 0) && r.nout == FS_ENTRY_FIXED + 8);
    CHECK(r.out[0] == 'f' && memcmp(r.out + FS_ENTRY_FIXED, "bad\377name", 8) == 0);
    ran_free(&r);
    OP(&r, "cat", "", "626164ff6e616d65");
    CHECK(exited(&r, 0) && r.nout == 1 + 4 + 2 + 4 && r.out[0] == 'f' && memcmp(r.out + 5, "x\n", 2) == 0);
    ran_free(&r);
    cleanup();
}

static void a_write_without_its_end_mark_commits_nothing(void)
{
    fresh();
    sh("cd %s && mkdir d && echo old > d/f%s", "");
    struct ran r;
    unsigned char content[64];
    size_t n = chunked(content, "new content", 11, 0); /* the host failed mid-stream: no end mark */
    char *argv[] = { "write", "d/f", "replace", "-1" };
    CHECK_OR_STOP(run_op(argv, 4, content, n, 0, &r) == 0);
    CHECK(exited(&r, FS_FAILED) && strstr(r.err, "E:IO_ERROR:the content of d/f ended before its end mark") != NULL);
    ran_free(&r);
    CHECK_STR(file_text("d/f"), "old\n");
    CHECK_EQ(temporaries_in("d"), 0);
    /* the same content cut inside a chunk, and appended */
    char *app[] = { "write", "d/f", "append", "-1" };
    CHECK_OR_STOP(run_op(app, 4, content, n - 3, 0, &r) == 0);
    CHECK(exited(&r, FS_FAILED));
    ran_free(&r);
    CHECK_STR(file_text("d/f"), "old\n");
    /* a host that goes quiet and then times the operation out (TERM): the temporary goes too */
    char *slow[] = { "write", "d/g", "replace", "-1" };
    CHECK_OR_STOP(run_op(slow, 4, content, n, 300, &r) == 0);
    CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 128 + SIGTERM);
    ran_free(&r);
    CHECK(file_text("d/g") == NULL);
    CHECK_EQ(temporaries_in("d"), 0);
    /* with its end mark, it lands whole, keeping the old file's mode */
    sh("chmod 640 %s/d/f%s", "");
    n = chunked(content, "new content", 11, 1);
    CHECK_OR_STOP(run_op(argv, 4, content, n, 0, &r) == 0);
    CHECK(exited(&r, 0) && r.nout == 8 && get64(r.out) == 11);
    ran_free(&r);
    CHECK_STR(file_text("d/f"), "new content");
    struct stat st;
    char path[300];
    snprintf(path, sizeof path, "%s/d/f", ws);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640);
    CHECK_EQ(temporaries_in("d"), 0);
    cleanup();
}

static void a_listing_of_many_entries_streams_every_record(void)
{
    fresh();
    sh("cd %s && mkdir many && cd many && seq 1 20000 | xargs touch%s", "");
    struct ran r;
    OP(&r, "list", "many", "1", "1", "0", "0");
    CHECK_OR_STOP(exited(&r, 0));
    size_t count = 0, at = 0;
    while (at + FS_ENTRY_FIXED <= r.nout) {
        uint32_t llen = get32(r.out + at + 25);
        uint32_t plen = get32(r.out + at + 29 + llen);
        at += FS_ENTRY_FIXED + llen + plen;
        count++;
    }
    CHECK_EQ(at, r.nout);
    CHECK_EQ(count, 20000);
    ran_free(&r);
    cleanup();
}

static void a_tree_deeper_than_the_walks_is_refused_by_them_and_deleted_whole(void)
{
    fresh();
    /* 300 levels, made relative to each new level (a path of them would pass PATH_MAX on some systems) */
    char path[300];
    snprintf(path, sizeof path, "%s", ws);
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    for (int i = 0; i < 300; i++) {
        mkdirat(fd, "d", 0700);
        int next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
        close(fd);
        fd = next;
    }
    close(fd);
    struct ran r;
    OP(&r, "list", "", "256", "1", "1", "0");
    CHECK(exited(&r, FS_FAILED) && strstr(r.err, "E:TOO_LARGE:the workspace is nested deeper than 256") != NULL);
    ran_free(&r);
    OP(&r, "copy", "d", "copy", "0");
    CHECK(exited(&r, FS_FAILED) && strstr(r.err, "E:TOO_LARGE") != NULL);
    ran_free(&r);
    CHECK_EQ(temporaries_in(""), 0);
    OP(&r, "delete", "d", "1");
    CHECK(exited(&r, 0));
    ran_free(&r);
    OP(&r, "list", "", "1", "1", "0", "0");
    CHECK(exited(&r, 0) && r.nout == 0);
    ran_free(&r);
    cleanup();
}


/* --- connect (sbx-net.c) ------------------------------------------------------------------------------------------ */

/* A listening socket on 127.0.0.1 (an ephemeral port); its port in *port. */
static int listener(int *port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    if (s < 0 || bind(s, (struct sockaddr *) &a, sizeof a) != 0 || listen(s, 4) != 0
        || getsockname(s, (struct sockaddr *) &a, &len) != 0)
        return -1;
    *port = ntohs(a.sin_port);
    return s;
}

/* A server child: accepts one connection, sends greeting, reads to EOF, answers "got:" + what it read, closes. */
static pid_t serve_once(int s, const char *greeting)
{
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20);
        int c = accept(s, NULL, NULL);
        if (greeting[0] != '\0' && write(c, greeting, strlen(greeting)) < 0)
            _exit(1);
        char buf[256] = "got:";
        size_t n = 4;
        for (ssize_t r; n < sizeof buf && (r = read(c, buf + n, sizeof buf - n)) > 0; )
            n += (size_t) r;
        if (write(c, buf, n) < 0)
            _exit(1);
        close(c);
        _exit(0);
    }
    return pid;
}

/* Runs `connect` with stdin, keeping stdin open until want bytes of stdout came (or it ended), then closing it. */
static int run_connect(char **argv, int argc, const void *in_data, size_t len, size_t want, struct ran *r)
{
    int in[2], out[2], err[2];
    if (pipe(in) != 0 || pipe(out) != 0 || pipe(err) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(in[1]);
        close(out[0]);
        close(err[0]);
        alarm(20);
        _exit(fs_main(argc, argv, ws));
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    if (len > 0 && write(in[1], in_data, len) != (ssize_t) len)
        return -1;
    r->out = malloc(1 << 16);
    r->nout = 0;
    while (r->nout < want) {
        ssize_t n = read(out[0], r->out + r->nout, (1 << 16) - r->nout);
        if (n <= 0)
            break;
        r->nout += (size_t) n;
    }
    close(in[1]);
    for (ssize_t n; (n = read(out[0], r->out + r->nout, (1 << 16) - r->nout)) > 0; )
        r->nout += (size_t) n;
    ssize_t e = read(err[0], r->err, sizeof r->err - 1);
    r->err[e > 0 ? e : 0] = '\0';
    close(out[0]);
    close(err[0]);
    waitpid(pid, &r->status, 0);
    return 0;
}

static size_t put_record(unsigned char *p, int32_t n, const char *data)
{
    put32(p, (uint32_t) n);
    if (n > 0)
        memcpy(p + 4, data, (size_t) n);
    return 4 + (n > 0 ? (size_t) n : 0);
}

/* The records of a connect's stdout: acknowledged bytes, the data (into data, NUL-ended), end records seen. */
static void records(const struct ran *r, long *acked, char *data, size_t cap, int *ends)
{
    size_t d = 0;
    *acked = 0;
    *ends = 0;
    for (size_t i = 0; i + 4 <= r->nout; ) {
        int32_t n = (int32_t) get32(r->out + i);
        i += 4;
        if (n < 0) {
            *acked += -(long) n;
        } else if (n == 0) {
            (*ends)++;
        } else {
            for (int32_t k = 0; k < n && i < r->nout; k++, i++)
                if (d + 1 < cap)
                    data[d++] = (char) r->out[i];
        }
    }
    data[d] = '\0';
}

static void connect_carries_both_ways_within_the_credit_and_half_closes(void)
{
    fresh();
    int port;
    int s = listener(&port);
    CHECK_OR_STOP(s >= 0);
    char p[16];
    snprintf(p, sizeof p, "%d", port);
    /* the server half-closes after its greeting; the host sends "ping" and half-closes; credit: 4 bytes at first */
    pid_t server = serve_once(s, "hello");
    unsigned char in[64];
    size_t n = put_record(in, -4, NULL);
    n += put_record(in + n, 4, "ping");
    n += put_record(in + n, 0, NULL);
    char *argv[] = { "connect", p };
    struct ran r;
    /* ack of 4 (4), "hell" (8): the rest waits for credit, which never comes; then stdin ends */
    CHECK_OR_STOP(run_connect(argv, 2, in, n, 12, &r) == 0);
    long acked;
    int ends;
    char data[256];
    CHECK(exited(&r, 0));
    records(&r, &acked, data, sizeof data, &ends);
    CHECK_EQ(acked, 4);
    CHECK_STR(data, "hell");
    CHECK_EQ(ends, 0);
    ran_free(&r);
    waitpid(server, NULL, 0);
    /* with credit enough: the server answers after the host's half-close, then closes */
    server = serve_once(s, "");
    n = put_record(in, -1000, NULL);
    n += put_record(in + n, 4, "ping");
    n += put_record(in + n, 0, NULL);
    CHECK_OR_STOP(run_connect(argv, 2, in, n, 4 + 12 + 4, &r) == 0);
    CHECK(exited(&r, 0));
    records(&r, &acked, data, sizeof data, &ends);
    CHECK_EQ(acked, 4);
    CHECK_STR(data, "got:ping");
    CHECK_EQ(ends, 1);
    ran_free(&r);
    waitpid(server, NULL, 0);
    /* probe: connects and closes */
    char *probe[] = { "connect", p, "probe" };
    CHECK_OR_STOP(run_op(probe, 3, NULL, 0, 0, &r) == 0);
    CHECK(exited(&r, 0) && r.nout == 0);
    ran_free(&r);
    close(s);
    /* nothing listens there now: NOT_FOUND; bad ports and records: INVALID_ARGUMENT */
    CHECK_OR_STOP(run_op(argv, 2, NULL, 0, 0, &r) == 0);
    CHECK(exited(&r, FS_FAILED) && strstr(r.err, "E:NOT_FOUND:nothing listens on port") != NULL);
    ran_free(&r);
    char *bad[] = { "connect", "0" };
    CHECK_OR_STOP(run_op(bad, 2, NULL, 0, 0, &r) == 0);
    CHECK(exited(&r, FS_FAILED) && strstr(r.err, "E:INVALID_ARGUMENT:") != NULL);
    ran_free(&r);
    cleanup();
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    RUN(paths_are_split_into_clean_components);
    RUN(an_entry_record_is_its_fields_big_endian);
    RUN(a_link_on_the_way_or_at_the_end_is_refused_never_followed);
    RUN(a_link_swapped_in_mid_walk_is_never_followed);
    RUN(fifos_and_sockets_are_never_opened_for_reading);
    RUN(names_that_are_not_utf8_are_listed_and_read_as_bytes);
    RUN(a_write_without_its_end_mark_commits_nothing);
    RUN(a_listing_of_many_entries_streams_every_record);
    RUN(a_tree_deeper_than_the_walks_is_refused_by_them_and_deleted_whole);
    RUN(connect_carries_both_ways_within_the_credit_and_half_closes);
    return checks_done();
}
