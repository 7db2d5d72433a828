/*
 * sbx-lease.c: leases and reattach (see sbx-lease.h and PROTOCOL.md "Leases and reattach").
 *
 * The key comes in the LEASE frame over the channel of the host that opened the sandbox, so it is in no container
 * configuration, label or environment; it stays in this non-dumpable process's memory only. The listener is bound
 * when LEASE comes, before any command of the sandbox runs, and stays bound for the agent's life, so no command can
 * take its port. A command can connect to it (same network namespace): without the key it gets nothing (the
 * handshake of sbx-listen.c), and while a host is attached it gets a closed connection.
 */
#define _GNU_SOURCE
#include "sbx-lease.h"
#include "sbx-frame.h"
#include "sbx-listen.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define LEASE_PAYLOAD (8 + 4 + 32)

static int lease_fd = -1;
static long long lease_ms;
static unsigned char lease_key[32];
/* Where a later host connects: the loopback (a container's relay), or the --listen address's host (a pod's). */
static char lease_host[64] = "127.0.0.1";

void lease_bind_like(const char *listen_addr)
{
    const char *colon = strrchr(listen_addr, ':');
    size_t n = colon == NULL ? 0 : (size_t) (colon - listen_addr);
    if (colon != NULL && n < sizeof lease_host) {
        memcpy(lease_host, listen_addr, n);
        lease_host[n] = '\0';
    }
}

void lease_handle(int32_t id, const unsigned char *p, size_t len)
{
    if (len != LEASE_PAYLOAD) {
        send_failed(id, "bad LEASE frame", NULL);
        return;
    }
    if (lease_fd >= 0) {
        send_failed(id, "the sandbox is leased already", NULL);
        return;
    }
    long long ms = (long long) get64(p);
    uint32_t port = get32(p + 8);
    if (ms <= 0 || port == 0 || port > 65535) {
        send_failed(id, "bad LEASE frame: a lease of at least 1 ms and a port 1..65535", NULL);
        return;
    }
    char addr[80];
    snprintf(addr, sizeof addr, "%s:%u", lease_host, port);
    int fd = sbx_open_listener(addr);
    if (fd < 0) {
        send_failed(id, "cannot listen for a later host on ", addr);
        return;
    }
    memcpy(lease_key, p + 12, sizeof lease_key);
    lease_ms = ms;
    lease_fd = fd;
    send_frame(SBX_LEASED, id, NULL, 0);
}

int lease_listener(void)
{
    return lease_fd;
}

void lease_refuse(void)
{
    int c = accept4(lease_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (c >= 0)
        close(c);
}

int lease_await(void)
{
    return sbx_await_host(lease_fd, lease_key, sbx_ms_now() + lease_ms);
}

/* Writes all of buf to fd (blocking); -1 when fd is gone. */
static int put_all(int fd, const char *buf, ssize_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, (size_t) n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        n -= w;
    }
    return 0;
}

int lease_connect(const char *addr)
{
    /* same-uid commands may not ptrace the relay: the frames it carries are the host's */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    const char *colon = strrchr(addr, ':');
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    char host[64];
    size_t hl = colon == NULL ? 0 : (size_t) (colon - addr);
    if (colon == NULL || hl == 0 || hl >= sizeof host) {
        say("bad --connect=%s (want an IPv4 address and a port)", addr);
        return 2;
    }
    memcpy(host, addr, hl);
    host[hl] = '\0';
    int port = atoi(colon + 1);
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1 || port <= 0 || port > 65535) {
        say("bad --connect=%s (want an IPv4 address and a port)", addr);
        return 2;
    }
    sa.sin_port = htons((uint16_t) port);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0 || connect(s, (struct sockaddr *) &sa, sizeof sa) != 0) {
        say("connecting to the sandbox's agent: %s", strerror(errno));
        return 3;
    }
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char buf[65536];
    struct pollfd fds[2] = { { STDIN_FILENO, POLLIN, 0 }, { s, POLLIN, 0 } };
    for (;;) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return 3;
        }
        if (fds[0].revents) {
            ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0 || put_all(s, buf, n) != 0)
                return 0; /* the host's end closed: closing the connection detaches it */
        }
        if (fds[1].revents) {
            ssize_t n = read(s, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0 || put_all(STDOUT_FILENO, buf, n) != 0)
                return 0;
        }
    }
}
