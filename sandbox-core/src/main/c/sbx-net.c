/*
 * sbx-net.c: the `connect PORT [probe]` file operation (PROTOCOL.md, "Ports"): one TCP connection of the host's
 * opened port, made inside the sandbox's network namespace to its loopback only (127.0.0.1, then ::1), never to any
 * other address, and pumped both ways over the operation's stdin and stdout.
 *
 * Both directions are records (big-endian int n, then n bytes when n > 0):
 *   stdin (host to here):  n > 0 (at most FS_CHUNK) bytes for the socket; n == 0 the host's client half-closed
 *                          (shutdown(SHUT_WR) once what came before is written); n < 0 the host may take -n more bytes
 *   stdout (here to host): n > 0 (at most NET_READ) bytes from the socket, never more than the host's credit; n == 0
 *                          the server half-closed; n < 0 -n more bytes of the host's were written to the socket
 * So each direction has its own window and neither the agent's queues nor the host's reader thread ever hold more
 * than the windows: a client or server that stops reading stops only its own connection.
 *
 * It ends (status 0) once both directions have ended, when the host's stdin ends (the host dropped the connection),
 * or when the socket fails (reset). A failed connect is E:NOT_FOUND (nothing listens) like any operation's failure.
 * `probe` only connects and closes: waitForPort's test.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sbx-frame.h"
#include "sbx-fs.h"

/* The most the socket is read at once (one STDOUT frame's worth). */
#define NET_READ (64u << 10)
/* The largest credit one record may grant (the host's window is far below it). */
#define NET_MAX_CREDIT (16 << 20)

static void out_all(const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len > 0) {
        ssize_t w = write(1, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(0); /* the host is gone: nothing to tell it */
        p += w;
        len -= (size_t) w;
    }
}

static void out_record(int32_t n)
{
    unsigned char h[4];
    put32(h, (uint32_t) n);
    out_all(h, 4);
}

/* A connected socket to the sandbox's loopback at port, IPv4 first; fails through fs_fail. */
static int dial(int port)
{
    struct sockaddr_in v4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    struct sockaddr_in6 v6 = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t) port),
                               .sin6_addr = IN6ADDR_LOOPBACK_INIT };
    int err = 0;
    for (int i = 0; i < 2; i++) {
        int fd = socket(i == 0 ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            if (i == 0)
                err = errno;
            continue;
        }
        int rc = i == 0 ? connect(fd, (struct sockaddr *) &v4, sizeof v4)
                        : connect(fd, (struct sockaddr *) &v6, sizeof v6);
        if (rc == 0)
            return fd;
        if (i == 0)
            err = errno; /* what IPv4 said: ::1 is a second chance, and may not exist at all */
        close(fd);
    }
    if (err == ECONNREFUSED)
        fs_fail("NOT_FOUND", "nothing listens on port %d in the sandbox", port);
    fs_fail("IO_ERROR", "cannot connect to port %d in the sandbox: %s", port, strerror(err));
}

struct pump {
    int sock;
    unsigned char in[4 + FS_CHUNK]; /* stdin not yet handled */
    size_t ilen;
    size_t sent;         /* of the first record's payload, already written to the socket */
    long long credit;    /* bytes the host may still take */
    long long written;   /* host bytes written to the socket, not yet acknowledged */
    int shut;            /* the host's client half-closed (the socket's write side is shut) */
    int wdead;           /* the socket's write side failed (the server closed): host bytes are dropped */
    int blocked;         /* the socket's send buffer is full */
    int rd_eof;          /* the server half-closed (or reset) */
};

static void consume(struct pump *p, size_t n)
{
    memmove(p->in, p->in + n, p->ilen - n);
    p->ilen -= n;
}

/* Handles the complete records in p->in until the socket's send buffer is full. */
static void handle_input(struct pump *p)
{
    p->blocked = 0;
    while (p->ilen >= 4) {
        int32_t n = (int32_t) get32(p->in);
        if (n < 0) {
            if (n < -NET_MAX_CREDIT)
                fs_fail("INVALID_ARGUMENT", "connect: a credit of %ld bytes", -(long) n);
            p->credit += -(long long) n;
            consume(p, 4);
        } else if (n == 0) {
            if (!p->shut && !p->wdead)
                shutdown(p->sock, SHUT_WR);
            p->shut = 1;
            consume(p, 4);
        } else if ((uint32_t) n > FS_CHUNK) {
            fs_fail("INVALID_ARGUMENT", "connect: a record of %d bytes", (int) n);
        } else if (p->ilen < 4 + (size_t) n) {
            return; /* the rest is still coming */
        } else if (p->shut || p->wdead) {
            p->written += n; /* nowhere to go: acknowledged, so the host is not left waiting */
            consume(p, 4 + (size_t) n);
        } else {
            ssize_t w = send(p->sock, p->in + 4 + p->sent, (size_t) n - p->sent, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
                p->blocked = 1;
                return;
            }
            if (w < 0) {
                p->wdead = 1; /* the server is gone: what the host sends is dropped */
                continue;
            }
            p->sent += (size_t) w;
            if (p->sent < (size_t) n) {
                p->blocked = 1;
                return;
            }
            p->written += n;
            p->sent = 0;
            consume(p, 4 + (size_t) n);
        }
    }
}

/* Reads the socket once, within the host's credit. */
static void handle_socket(struct pump *p)
{
    static unsigned char buf[4 + NET_READ];
    size_t want = p->credit < (long long) NET_READ ? (size_t) p->credit : NET_READ;
    ssize_t r = recv(p->sock, buf + 4, want, MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (r <= 0) {
        p->rd_eof = 1;
        if (r < 0)
            p->wdead = 1; /* a reset: neither direction goes on */
        out_record(0);
        return;
    }
    put32(buf, (uint32_t) r);
    out_all(buf, 4 + (size_t) r);
    p->credit -= r;
}

static struct pump pump;

int net_connect(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "probe") != 0))
        fs_fail("INVALID_ARGUMENT", "connect takes PORT [probe]");
    long long port = fs_arg(argv[1]);
    if (port < 1 || port > 65535)
        fs_fail("INVALID_ARGUMENT", "connect: port %.20s is not 1..65535", argv[1]);
    int fd = dial((int) port);
    if (argc == 3) {
        close(fd);
        return 0;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(1, F_SETPIPE_SZ, 1 << 20); /* fewer wake-ups of the agent and of this pump (best effort: a pipe limit) */
    struct pump *p = &pump;
    p->sock = fd;
    int in_eof = 0;
    while (!in_eof && !(p->rd_eof && (p->shut || p->wdead))) {
        struct pollfd fds[2];
        fds[0] = (struct pollfd) { 0, p->ilen < sizeof p->in ? POLLIN : 0, 0 };
        short ev = 0;
        if (p->blocked)
            ev |= POLLOUT;
        if (!p->rd_eof && p->credit > 0)
            ev |= POLLIN;
        fds[1] = (struct pollfd) { ev != 0 ? fd : -1, ev, 0 }; /* never polled idle: a HUP would spin */
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            fs_fail("IO_ERROR", "connect: poll: %s", strerror(errno));
        }
        if (fds[1].revents & (POLLIN | POLLHUP | POLLERR) && !p->rd_eof && p->credit > 0)
            handle_socket(p);
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t r = read(0, p->in + p->ilen, sizeof p->in - p->ilen);
            if (r > 0)
                p->ilen += (size_t) r;
            else if (r == 0 || (errno != EINTR && errno != EAGAIN))
                in_eof = 1; /* the host dropped the connection */
        }
        if (!p->blocked || (fds[1].revents & (POLLOUT | POLLERR | POLLHUP)))
            handle_input(p);
        if (p->written > 0) {
            long long w = p->written > NET_MAX_CREDIT ? NET_MAX_CREDIT : p->written;
            out_record((int32_t) -w);
            p->written -= w;
        }
    }
    close(fd);
    return 0;
}
