/*
 * sbx-relay: the sandbox's egress relay. Listens on 127.0.0.1:PORT inside the sandbox (whose network namespace has
 * only loopback) and carries every accepted TCP connection over its own stdin/stdout to the host, where RelayMux
 * hands each one to the egress proxy (dev.sandbox4j.core.egress). Nothing else: no resolver, no other socket.
 *
 *   sbx-relay [PORT]          (PORT 0-65535, default 3128; 0 picks a free port, reported in HELLO)
 *
 * Frames, both directions: type (1 byte), connection id (4 bytes, big endian), payload length (4 bytes, big endian),
 * payload. Payloads are at most 16384 bytes. (Not the agent's frame layout: see PROTOCOL.md, "The relay's framing".)
 *   1 HELLO  relay->host, id 0, payload: version (1) + listening port (2, big endian). Sent once, first.
 *   2 OPEN   relay->host, a connection was accepted; ids start at 1 and only grow.
 *   3 DATA   both, 1-16384 bytes of that connection's stream.
 *   4 EOF    both, the sender's direction of the stream has ended (the relay then shutdown(SHUT_WR)s its socket).
 *   5 CLOSE  both, the sender is done with the id. From the host: close once what is buffered has been written.
 *   6 CREDIT both, payload: 4-byte count of DATA bytes the sender consumed, which the peer may send again.
 * Each direction of each connection starts with a 65536-byte window: DATA beyond the credit is a protocol error. So
 * the relay holds at most 64 KiB per connection (at most 256 connections), and so does the host.
 *
 * Exits 0 when stdin ends (the host is gone), 1 when stdout fails, 2 on a protocol error from the host, 3 on bad
 * usage or a failed listen. Non-dumpable, so other processes of the sandbox's uid cannot ptrace it; the host still
 * treats every byte from it as hostile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "sbx-relay-protocol.h" /* RELAY_*: the frame types and limits, generated from RelayMux.java */

#define MAXCONN 256

struct conn {
    int fd;              /* -1: slot free */
    uint32_t id;
    unsigned char *buf;  /* host -> socket bytes not yet written */
    size_t off, len;
    uint32_t credit;     /* bytes we may still send to the host */
    int rd_eof;          /* socket read side ended, EOF sent */
    int host_eof;        /* host sent EOF: shutdown(SHUT_WR) once drained */
    int host_closed;     /* host sent CLOSE: close once drained */
    int wr_shut;
    int hup;             /* poll said POLLHUP: left out of poll while there is nothing it could do */
};

static struct conn conns[MAXCONN];
static int nconns;
static uint32_t next_id;
static unsigned char inbuf[RELAY_HEADER + RELAY_MAX_PAYLOAD + 65536];
static size_t inlen;
static unsigned char frame[RELAY_HEADER + RELAY_MAX_PAYLOAD];

static void put32(unsigned char *p, uint32_t v) {
    p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

static uint32_t get32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void write_all(const unsigned char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(1, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            _exit(1);
        }
        p += w;
        n -= (size_t)w;
    }
}

static void send_frame(int type, uint32_t id, const unsigned char *payload, uint32_t len) {
    frame[0] = (unsigned char)type;
    put32(frame + 1, id);
    put32(frame + 5, len);
    if (len > 0) memcpy(frame + RELAY_HEADER, payload, len);
    write_all(frame, RELAY_HEADER + len);
}

static void free_conn(struct conn *c, int tell_host) {
    if (tell_host) send_frame(RELAY_CLOSE, c->id, NULL, 0);
    close(c->fd);
    free(c->buf);
    c->fd = -1;
    c->buf = NULL;
    nconns--;
}

static struct conn *find(uint32_t id) {
    for (int i = 0; i < MAXCONN; i++) {
        if (conns[i].fd >= 0 && conns[i].id == id) return &conns[i];
    }
    return NULL;
}

/* The host's side is done writing and everything it sent is out: shut down or close. Returns 1 if freed. */
static int settle(struct conn *c) {
    if (c->len > 0) return 0;
    if (c->host_closed) {
        free_conn(c, 0);
        return 1;
    }
    if (c->host_eof && !c->wr_shut) {
        shutdown(c->fd, SHUT_WR);
        c->wr_shut = 1;
    }
    if (c->host_eof && c->rd_eof) {
        free_conn(c, 1);
        return 1;
    }
    return 0;
}

static void protocol_error(const char *what) {
    fprintf(stderr, "sbx-relay: protocol error from the host: %s\n", what);
    _exit(2);
}

static void host_frame(int type, uint32_t id, const unsigned char *p, uint32_t len) {
    struct conn *c = find(id);
    if (c == NULL) return; /* already gone here: a frame that crossed our CLOSE */
    if (c->host_closed) return; /* the host aborted it; frames it had queued before may still come */
    switch (type) {
    case RELAY_DATA:
        if (len == 0 || c->host_eof) protocol_error("DATA after EOF or empty");
        if (c->len + len > RELAY_WINDOW) protocol_error("DATA beyond the window");
        if (c->off + c->len + len > RELAY_WINDOW) {
            memmove(c->buf, c->buf + c->off, c->len);
            c->off = 0;
        }
        memcpy(c->buf + c->off + c->len, p, len);
        c->len += len;
        break;
    case RELAY_EOF:
        c->host_eof = 1;
        settle(c);
        break;
    case RELAY_CLOSE:
        c->host_closed = 1;
        settle(c);
        break;
    case RELAY_CREDIT: {
        if (len != 4) protocol_error("CREDIT length");
        uint64_t credit = (uint64_t)c->credit + get32(p);
        if (credit > RELAY_WINDOW) protocol_error("CREDIT beyond the window");
        c->credit = (uint32_t)credit;
        break;
    }
    default:
        protocol_error("unknown frame type");
    }
}

static void read_host(void) {
    ssize_t n = read(0, inbuf + inlen, sizeof inbuf - inlen);
    if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) return;
        _exit(1);
    }
    if (n == 0) _exit(0);
    inlen += (size_t)n;
    size_t pos = 0;
    while (inlen - pos >= RELAY_HEADER) {
        uint32_t len = get32(inbuf + pos + 5);
        if (len > RELAY_MAX_PAYLOAD) protocol_error("frame too long");
        if (inlen - pos < RELAY_HEADER + len) break;
        host_frame(inbuf[pos], get32(inbuf + pos + 1), inbuf + pos + RELAY_HEADER, len);
        pos += RELAY_HEADER + len;
    }
    memmove(inbuf, inbuf + pos, inlen - pos);
    inlen -= pos;
}

static void accept_one(int lfd) {
    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    if (nconns >= MAXCONN) {
        close(fd);
        return;
    }
    struct conn *c = NULL;
    for (int i = 0; i < MAXCONN; i++) {
        if (conns[i].fd < 0) {
            c = &conns[i];
            break;
        }
    }
    unsigned char *buf = malloc(RELAY_WINDOW);
    if (c == NULL || buf == NULL) {
        free(buf);
        close(fd);
        return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    memset(c, 0, sizeof *c);
    c->fd = fd;
    c->id = ++next_id;
    c->buf = buf;
    c->credit = RELAY_WINDOW;
    nconns++;
    send_frame(RELAY_OPEN, c->id, NULL, 0);
}

static void sock_readable(struct conn *c) {
    static unsigned char tmp[RELAY_MAX_PAYLOAD];
    size_t want = c->credit < RELAY_MAX_PAYLOAD ? c->credit : RELAY_MAX_PAYLOAD;
    ssize_t n = recv(c->fd, tmp, want, 0);
    if (n > 0) {
        c->credit -= (uint32_t)n;
        send_frame(RELAY_DATA, c->id, tmp, (uint32_t)n);
    } else if (n == 0) {
        c->rd_eof = 1;
        send_frame(RELAY_EOF, c->id, NULL, 0);
        settle(c);
    } else if (errno != EINTR && errno != EAGAIN) {
        free_conn(c, 1);
    }
}

static void sock_writable(struct conn *c) {
    ssize_t n = send(c->fd, c->buf + c->off, c->len, MSG_NOSIGNAL);
    if (n > 0) {
        c->off += (size_t)n;
        c->len -= (size_t)n;
        if (c->len == 0) c->off = 0;
        unsigned char p[4];
        put32(p, (uint32_t)n);
        if (!c->host_closed) send_frame(RELAY_CREDIT, c->id, p, 4);
        settle(c);
    } else if (n < 0 && errno != EINTR && errno != EAGAIN) {
        if (c->host_closed) free_conn(c, 0);
        else free_conn(c, 1);
    }
}

int main(int argc, char **argv) {
    long port = 3128;
    if (argc > 2) {
        fprintf(stderr, "usage: sbx-relay [PORT]\n");
        return 3;
    }
    if (argc == 2) {
        char *end;
        errno = 0;
        port = strtol(argv[1], &end, 10);
        if (errno != 0 || *end != '\0' || end == argv[1] || port < 0 || port > 65535) {
            fprintf(stderr, "sbx-relay: bad port '%s'\n", argv[1]);
            return 3;
        }
    }
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    for (int i = 0; i < MAXCONN; i++) conns[i].fd = -1;

    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    socklen_t alen = sizeof addr;
    if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0
        || bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(lfd, 128) < 0
        || getsockname(lfd, (struct sockaddr *)&addr, &alen) < 0) {
        fprintf(stderr, "sbx-relay: cannot listen on 127.0.0.1:%ld: %s\n", port, strerror(errno));
        return 3;
    }
    unsigned char hello[3] = {RELAY_VERSION, (unsigned char)(ntohs(addr.sin_port) >> 8),
                              (unsigned char)(ntohs(addr.sin_port) & 0xff)};
    send_frame(RELAY_HELLO, 0, hello, 3);

    static struct pollfd pfd[2 + MAXCONN];
    static struct conn *owner[2 + MAXCONN];
    static uint32_t owner_id[2 + MAXCONN];
    for (;;) {
        int n = 0;
        pfd[n].fd = 0;
        pfd[n].events = inlen < sizeof inbuf ? POLLIN : 0;
        owner[n++] = NULL;
        pfd[n].fd = lfd;
        pfd[n].events = nconns < MAXCONN ? POLLIN : 0;
        owner[n++] = NULL;
        for (int i = 0; i < MAXCONN; i++) {
            struct conn *c = &conns[i];
            if (c->fd < 0) continue;
            short events = (short)((!c->rd_eof && c->credit > 0 ? POLLIN : 0) | (c->len > 0 ? POLLOUT : 0));
            if (events == 0 && c->hup) continue; /* POLLHUP would wake us for ever: wait for credit or data */
            pfd[n].fd = c->fd;
            pfd[n].events = events;
            owner_id[n] = c->id;
            owner[n++] = c;
        }
        if (poll(pfd, (nfds_t)n, -1) < 0) {
            if (errno == EINTR) continue;
            return 1;
        }
        if (pfd[0].revents) read_host(); /* may free connections: skip their stale entries below */
        if (pfd[1].revents & POLLIN) accept_one(lfd);
        for (int i = 2; i < n; i++) {
            struct conn *c = owner[i];
            short ev = pfd[i].revents;
#define GONE (c->fd != pfd[i].fd || c->id != owner_id[i])
            if (ev == 0 || GONE) continue;
            if (ev & POLLHUP) c->hup = 1;
            if ((ev & POLLOUT) && c->len > 0) {
                sock_writable(c);
                if (GONE) continue;
            }
            if ((ev & (POLLIN | POLLHUP | POLLERR)) && !c->rd_eof && c->credit > 0) {
                sock_readable(c);
                if (GONE) continue;
            }
            if ((ev & (POLLHUP | POLLERR)) && c->rd_eof) {
                /* the peer is gone both ways: nothing can be written to it any more */
                free_conn(c, !c->host_closed);
            } else if (ev & POLLERR) {
                free_conn(c, !c->host_closed);
            }
#undef GONE
        }
    }
}
