/*
 * sbx-listen.c: the agent's TCP connector (see sbx-listen.h and PROTOCOL.md, "TCP connector").
 *
 * Handshake, before any frame, on each accepted connection (all sizes fixed, so a peer cannot make the agent buffer
 * more than 64 bytes or wait longer than AUTH_MS):
 *
 *   agent -> host  "SBXAUTH1" + nonce_a (32 random bytes)
 *   host  -> agent HMAC(K, "sandbox4j host v1" + nonce_a) + nonce_h (32 bytes)
 *   agent -> host  HMAC(K, "sandbox4j agent v1" + nonce_h)
 *
 * Handshakes run side by side, sixteen at most (a new one replaces the oldest when all are taken), so a peer that
 * connects and stays silent cannot hold the host back.
 *
 * K is the pool's key. The host proves it holds K for this connection only (nonce_a is fresh, so a recorded answer
 * is worth nothing), the agent proves the same to the host (a pod that took over the IP cannot pose as the agent),
 * and K itself never crosses the wire. A connection that fails is closed without a word and the agent listens on;
 * the first that succeeds is the host's, the listener is closed, and when that connection ends the agent ends as it
 * does when its stdin ends. The frames that follow are not encrypted (see docs/kubernetes.md, "Transport").
 */
#define _GNU_SOURCE
#include "sbx-listen.h"
#include "sbx-frame.h"
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <time.h>
#include <unistd.h>

#define KEY_LEN 32
#define AUTH_MS 5000

/* ---------------------------------------------------------------- SHA-256 (FIPS 180-4) */

struct sha256 {
    uint32_t h[8];
    unsigned char buf[64];
    size_t len;
    uint64_t total;
};

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(struct sha256 *s, const unsigned char *p)
{
    uint32_t w[64], a, b, c, d, e, f, g, h;
    for (int i = 0; i < 16; i++)
        w[i] = get32(p + 4 * i);
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
    s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

static void sha256_init(struct sha256 *s)
{
    static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c,
                                    0x1f83d9ab, 0x5be0cd19 };
    memcpy(s->h, iv, sizeof iv);
    s->len = 0;
    s->total = 0;
}

static void sha256_update(struct sha256 *s, const unsigned char *p, size_t n)
{
    s->total += n;
    while (n > 0) {
        size_t take = 64 - s->len < n ? 64 - s->len : n;
        memcpy(s->buf + s->len, p, take);
        s->len += take;
        p += take;
        n -= take;
        if (s->len == 64) {
            sha256_block(s, s->buf);
            s->len = 0;
        }
    }
}

static void sha256_final(struct sha256 *s, unsigned char out[32])
{
    uint64_t bits = s->total * 8;
    unsigned char pad = 0x80, zero = 0, len[8];
    sha256_update(s, &pad, 1);
    while (s->len != 56)
        sha256_update(s, &zero, 1);
    put64(len, bits);
    sha256_update(s, len, 8);
    for (int i = 0; i < 8; i++)
        put32(out + 4 * i, s->h[i]);
}

void sbx_hmac_sha256(const unsigned char *key, size_t key_len, const unsigned char *a, size_t a_len,
                     const unsigned char *b, size_t b_len, unsigned char out[32])
{
    unsigned char k[64] = { 0 }, pad[64], inner[32];
    struct sha256 s;
    if (key_len > 64) {
        sha256_init(&s);
        sha256_update(&s, key, key_len);
        sha256_final(&s, k);
    } else {
        memcpy(k, key, key_len);
    }
    for (int i = 0; i < 64; i++)
        pad[i] = k[i] ^ 0x36;
    sha256_init(&s);
    sha256_update(&s, pad, 64);
    sha256_update(&s, a, a_len);
    sha256_update(&s, b, b_len);
    sha256_final(&s, inner);
    for (int i = 0; i < 64; i++)
        pad[i] = k[i] ^ 0x5c;
    sha256_init(&s);
    sha256_update(&s, pad, 64);
    sha256_update(&s, inner, 32);
    sha256_final(&s, out);
    memset(k, 0, sizeof k);
    memset(pad, 0, sizeof pad);
}

/* ---------------------------------------------------------------- the connector */

static const char HOST_LABEL[] = "sandbox4j host v1";
static const char AGENT_LABEL[] = "sandbox4j agent v1";

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Takes the key out of the environment: decoded into key, its text wiped where /proc/self/environ shows it. */
static int take_key(const char *name, unsigned char key[KEY_LEN])
{
    char *v = getenv(name);
    if (v == NULL) {
        say("no key: the environment variable %s is not set", name);
        return 2;
    }
    size_t n = strlen(v);
    int ok = n == 2 * KEY_LEN;
    for (size_t i = 0; ok && i < KEY_LEN; i++) {
        int hi = hex_digit(v[2 * i]), lo = hex_digit(v[2 * i + 1]);
        ok = hi >= 0 && lo >= 0;
        key[i] = (unsigned char) (hi << 4 | lo);
    }
    memset(v, 0, n); /* in place: the process's original environment block */
    unsetenv(name);
    if (!ok) {
        memset(key, 0, KEY_LEN);
        say("bad key in %s: want 64 hexadecimal digits", name);
        return 2;
    }
    return 0;
}

static long long ms_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long) t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int write_full(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t r = write(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t) r;
    }
    return 0;
}

static int same(const unsigned char *a, const unsigned char *b, size_t n)
{
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++)
        d |= a[i] ^ b[i];
    return d == 0;
}

/*
 * Handshakes in flight. They run side by side (non-blocking, one poll): a peer that connects and stays silent holds
 * one slot for AUTH_MS, never the host's turn. When every slot is taken, a new connection replaces the one closest to
 * its deadline, so silent peers cannot keep the host out either.
 */
#define PENDING 16

struct pending {
    int fd;                   /* -1: free */
    long long deadline;
    size_t got;
    unsigned char nonce[32];
    unsigned char answer[64];
};

static void drop(struct pending *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
}

/* Takes a new connection into a slot and sends it the challenge; a peer that cannot take 40 bytes is dropped. */
static void admit(int c, struct pending *slots)
{
    struct pending *slot = NULL;
    for (int i = 0; i < PENDING; i++) {
        if (slots[i].fd < 0) {
            slot = &slots[i];
            break;
        }
        if (slot == NULL || slots[i].deadline < slot->deadline)
            slot = &slots[i];
    }
    drop(slot);
    unsigned char hello[8 + 32];
    memcpy(hello, "SBXAUTH1", 8);
    if (getrandom(hello + 8, 32, 0) != 32 || write(c, hello, sizeof hello) != (ssize_t) sizeof hello) {
        close(c);
        return;
    }
    slot->fd = c;
    slot->deadline = ms_now() + AUTH_MS;
    slot->got = 0;
    memcpy(slot->nonce, hello + 8, 32);
}

/* Reads what a pending peer sent; 1 once it proved it holds the key (our proof sent), 0 to wait, -1 to drop it. */
static int advance(struct pending *p, const unsigned char key[KEY_LEN])
{
    ssize_t r = read(p->fd, p->answer + p->got, sizeof p->answer - p->got);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (r <= 0)
        return -1;
    p->got += (size_t) r;
    if (p->got < sizeof p->answer)
        return 0;
    unsigned char want[32], proof[32];
    sbx_hmac_sha256(key, KEY_LEN, (const unsigned char *) HOST_LABEL, sizeof HOST_LABEL - 1, p->nonce, 32, want);
    if (!same(want, p->answer, 32))
        return -1;
    sbx_hmac_sha256(key, KEY_LEN, (const unsigned char *) AGENT_LABEL, sizeof AGENT_LABEL - 1, p->answer + 32, 32,
                    proof);
    int flags = fcntl(p->fd, F_GETFL);
    if (flags < 0 || fcntl(p->fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
        return -1;
    return write_full(p->fd, proof, sizeof proof) == 0 ? 1 : -1;
}

/*
 * Serves handshakes until one succeeds; its fd, or -1 after saying why the listener failed, or -2 once deadline
 * (ms_now's clock; -1: none) passed.
 */
static int handshakes(int lfd, const unsigned char key[KEY_LEN], long long deadline)
{
    struct pending slots[PENDING];
    for (int i = 0; i < PENDING; i++)
        slots[i].fd = -1;
    for (;;) {
        struct pollfd pfd[PENDING + 1];
        int idx[PENDING + 1];
        int n = 0;
        long long now = ms_now(), wait = -1;
        if (deadline >= 0) {
            if (now >= deadline) {
                for (int i = 0; i < PENDING; i++)
                    drop(&slots[i]);
                return -2;
            }
            wait = deadline - now;
        }
        pfd[n].fd = lfd;
        pfd[n].events = POLLIN;
        idx[n++] = -1;
        for (int i = 0; i < PENDING; i++) {
            if (slots[i].fd < 0)
                continue;
            if (slots[i].deadline <= now) {
                drop(&slots[i]);
                continue;
            }
            long long left = slots[i].deadline - now;
            if (wait < 0 || left < wait)
                wait = left;
            pfd[n].fd = slots[i].fd;
            pfd[n].events = POLLIN;
            idx[n++] = i;
        }
        if (poll(pfd, (nfds_t) n, (int) wait) < 0) {
            if (errno == EINTR)
                continue;
            say("poll: %s", strerror(errno));
            return -1;
        }
        for (int k = 1; k < n; k++) {
            if (pfd[k].revents == 0)
                continue;
            struct pending *p = &slots[idx[k]];
            int r = advance(p, key);
            if (r < 0)
                drop(p);
            if (r > 0) {
                int won = p->fd;
                p->fd = -1;
                for (int i = 0; i < PENDING; i++)
                    drop(&slots[i]);
                return won;
            }
        }
        if (pfd[0].revents & POLLIN) {
            int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (c >= 0) {
                admit(c, slots);
            } else if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED && errno != EMFILE
                       && errno != ENFILE) {
                say("accept: %s", strerror(errno));
                return -1;
            }
        }
    }
}

static int open_listener(const char *addr)
{
    const char *colon = strrchr(addr, ':');
    if (colon == NULL || colon[1] == '\0') {
        say("bad --listen=%s (want HOST:PORT or :PORT)", addr);
        return -1;
    }
    char host[256];
    size_t hl = (size_t) (colon - addr);
    if (hl >= sizeof host) {
        say("bad --listen=%s: host too long", addr);
        return -1;
    }
    memcpy(host, addr, hl);
    host[hl] = '\0';
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') { /* [::]:7070 */
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    char *end;
    errno = 0;
    long port = strtol(colon + 1, &end, 10);
    struct sockaddr_storage sa;
    socklen_t sl;
    memset(&sa, 0, sizeof sa);
    struct sockaddr_in *v4 = (struct sockaddr_in *) &sa;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *) &sa;
    /* numeric only (no resolver: a static binary has none): an IPv4 or IPv6 address, or none for every IPv6+IPv4 */
    if (host[0] != '\0' && inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t) port);
        sl = sizeof *v4;
    } else if (host[0] == '\0' || inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t) port);
        if (host[0] == '\0')
            v6->sin6_addr = in6addr_any;
        sl = sizeof *v6;
    } else {
        port = -1;
        sl = 0;
    }
    if (errno != 0 || *end != '\0' || port <= 0 || port > 65535) {
        say("bad --listen=%s: want a numeric address and a port", addr);
        return -1;
    }
    int fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1, zero = 0;
    if (fd >= 0 && sa.ss_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero); /* ":PORT" takes IPv4 too */
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0
            || bind(fd, (struct sockaddr *) &sa, sl) != 0 || listen(fd, 4) != 0) {
        say("listening on %s failed", addr);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* Makes an authenticated connection the host's: fd 0 and fd 1. */
static int take_host(int c)
{
    int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* keepalive: a host that vanished without a FIN (its node died) ends the agent within minutes */
    setsockopt(c, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    int idle = 30, intvl = 10, cnt = 6;
    setsockopt(c, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    setsockopt(c, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
    setsockopt(c, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
    if (dup2(c, 0) < 0 || dup2(c, 1) < 0) {
        say("dup2: %s", strerror(errno));
        close(c);
        return 3;
    }
    close(c);
    return 0;
}

int listen_for_host(const char *addr, const char *key_env)
{
    unsigned char key[KEY_LEN];
    int status = take_key(key_env, key);
    if (status != 0)
        return status;
    int lfd = open_listener(addr);
    if (lfd < 0) {
        memset(key, 0, sizeof key);
        return 2;
    }
    int c = handshakes(lfd, key, -1);
    memset(key, 0, sizeof key);
    close(lfd);
    if (c < 0)
        return 3;
    return take_host(c);
}

int sbx_open_listener(const char *addr)
{
    return open_listener(addr);
}

int sbx_await_host(int lfd, const unsigned char key[32], long long deadline_ms)
{
    int c = handshakes(lfd, key, deadline_ms);
    if (c == -2)
        return 1;
    if (c < 0)
        return -1;
    return take_host(c) == 0 ? 0 : -1;
}

long long sbx_ms_now(void)
{
    return ms_now();
}
