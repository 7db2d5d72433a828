/*
 * sbx-frame.c: the agent's frame codec and its queue of frames to the host (see sbx-frame.h, PROTOCOL.md).
 */
#define _GNU_SOURCE
#include "sbx-frame.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void say(const char *fmt, const char *arg)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "sbx-agent: ");
    if (n < 0)
        return;
    int m = snprintf(buf + n, sizeof buf - (size_t) n, fmt, arg);
    if (m < 0)
        return;
    size_t len = (size_t) n + (size_t) m;
    if (len >= sizeof buf - 1)
        len = sizeof buf - 2;
    buf[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, len);
    (void) w;
}

long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* --- frames to the host ------------------------------------------------------------------------ */

static unsigned char *out_buf;
static size_t out_head, out_len, out_cap, out_data; /* out_data: bytes of data frames pending */

static void out_room(size_t need)
{
    if (out_head > 0 && (out_head >= out_cap / 2 || out_cap - out_head - out_len < need)) {
        memmove(out_buf, out_buf + out_head, out_len);
        out_head = 0;
    }
    if (out_cap - out_len >= need)
        return;
    size_t cap = out_cap ? out_cap : 256u << 10;
    while (cap - out_len < need)
        cap *= 2;
    unsigned char *b = realloc(out_buf, cap);
    if (b == NULL) {
        say("%s", "out of memory");
        _exit(4);
    }
    out_buf = b;
    out_cap = cap;
}

static void put_header(unsigned char *p, int type, int32_t id, size_t len)
{
    put32(p, (uint32_t) (len + 5));
    p[4] = (unsigned char) type;
    put32(p + 5, (uint32_t) id);
}

void send_frame(int type, int32_t id, const void *payload, size_t len)
{
    out_room(SBX_HEADER + len);
    unsigned char *p = out_buf + out_head + out_len;
    put_header(p, type, id, len);
    if (len > 0)
        memcpy(p + SBX_HEADER, payload, len);
    out_len += SBX_HEADER + len;
}

void send_data(int type, int32_t id, const void *payload, size_t len)
{
    send_frame(type, id, payload, len);
    out_data += SBX_HEADER + len;
}

void send_int(int type, int32_t id, int32_t v)
{
    unsigned char b[4];
    put32(b, (uint32_t) v);
    send_frame(type, id, b, 4);
}

void send_failed(int32_t id, const char *what, const char *detail)
{
    char msg[1024];
    int n = snprintf(msg, sizeof msg, "%s%s", what, detail ? detail : "");
    if (n < 0)
        n = 0;
    if ((size_t) n >= sizeof msg)
        n = sizeof msg - 1;
    send_frame(SBX_FAILED, id, msg, (size_t) n);
}

void send_exit(int32_t id, int code, long long oom_kills)
{
    unsigned char b[12];
    put32(b, (uint32_t) code);
    put64(b + 4, (uint64_t) oom_kills);
    send_frame(SBX_EXIT, id, b, sizeof b);
}

void send_skipped(int32_t id, int stream, uint64_t bytes, uint64_t chars)
{
    unsigned char b[17];
    b[0] = (unsigned char) stream;
    put64(b + 1, bytes);
    put64(b + 9, chars);
    send_frame(SBX_SKIPPED, id, b, sizeof b);
}

unsigned char *out_reserve(size_t len)
{
    out_room(SBX_HEADER + len);
    return out_buf + out_head + out_len + SBX_HEADER;
}

void out_commit(int type, int32_t id, size_t len)
{
    put_header(out_buf + out_head + out_len, type, id, len);
    out_len += SBX_HEADER + len;
    out_data += SBX_HEADER + len;
}

int flush_out(int fd)
{
    while (out_len > 0) {
        ssize_t n = write(fd, out_buf + out_head, out_len);
        if (n > 0) {
            out_head += (size_t) n;
            out_len -= (size_t) n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        return -1;
    }
    if (out_len == 0) {
        out_head = 0;
        out_data = 0;
        if (out_cap > (2u << 20)) { /* a burst of control frames grew it: give the memory back */
            free(out_buf);
            out_buf = NULL;
            out_cap = 0;
        }
    } else if (out_data > out_len) {
        out_data = out_len;
    }
    return 0;
}

void out_discard(void)
{
    out_head = 0;
    out_len = 0;
    out_data = 0;
}

size_t out_pending(void)
{
    return out_len;
}

size_t out_data_pending(void)
{
    return out_data;
}

size_t put_event(unsigned char *p, int kind, int dir, uint64_t size, uint64_t mtime_ms, const char *path, size_t lp,
                 const char *from, size_t lf)
{
    p[0] = (unsigned char) kind;
    p[1] = (unsigned char) (dir ? 1 : 0);
    put64(p + 2, size);
    put64(p + 10, mtime_ms);
    put32(p + 18, (uint32_t) lp);
    memcpy(p + 22, path, lp);
    put32(p + 22 + lp, (uint32_t) lf);
    if (lf > 0)
        memcpy(p + 26 + lp, from, lf);
    return EVENT_FIXED + lp + lf;
}

/* --- frames from the host ------------------------------------------------------------------------- */

int frame_split(const unsigned char *buf, size_t n, struct frame *f)
{
    f->size = SBX_HEADER;
    if (n < 4)
        return FRAME_PARTIAL;
    f->length = get32(buf);
    if (f->length < 5 || f->length > SBX_MAX_FRAME)
        return FRAME_BAD;
    f->size = 4 + (size_t) f->length;
    if (n < f->size)
        return FRAME_PARTIAL;
    f->type = buf[4];
    f->id = (int32_t) get32(buf + 5);
    f->payload = buf + SBX_HEADER;
    f->len = f->size - SBX_HEADER;
    return FRAME_WHOLE;
}

int parse_strings(const unsigned char **pp, const unsigned char *end, char ***out, uint32_t *count, const char **why)
{
    const unsigned char *p = *pp;
    if (end - p < 4) {
        *why = "truncated list";
        return -1;
    }
    uint32_t n = get32(p);
    p += 4;
    if (n > (uint32_t) (end - p) / 4) {
        *why = "bad list length";
        return -1;
    }
    char **v = calloc((size_t) n + 1, sizeof *v);
    if (v == NULL) {
        *why = "out of memory";
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (end - p < 4) {
            *why = "truncated string";
            goto fail;
        }
        uint32_t len = get32(p);
        p += 4;
        if (len > (uint32_t) (end - p)) {
            *why = "bad string length";
            goto fail;
        }
        if (memchr(p, 0, len) != NULL) {
            *why = "invalid null character in an argument, variable or directory";
            goto fail;
        }
        v[i] = malloc((size_t) len + 1);
        if (v[i] == NULL) {
            *why = "out of memory";
            goto fail;
        }
        memcpy(v[i], p, len);
        v[i][len] = '\0';
        p += len;
    }
    *pp = p;
    *out = v;
    *count = n;
    return 0;
fail:
    for (uint32_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return -1;
}

void free_strings(char **v)
{
    if (v == NULL)
        return;
    for (char **s = v; *s; s++)
        free(*s);
    free(v);
}

int parse_spawn(const unsigned char *p, size_t len, struct spawn_args *a, const char **why)
{
    const unsigned char *end = p + len;
    memset(a, 0, sizeof *a);
    if (parse_strings(&p, end, &a->argv, &a->nargv, why) != 0 || parse_strings(&p, end, &a->env, &a->nenv, why) != 0
        || parse_strings(&p, end, &a->cwd, &a->ncwd, why) != 0) {
        free_spawn(a);
        return -1;
    }
    if (end - p >= 4) {
        a->keep = get32(p);
        if (a->keep > SBX_MAX_KEEP)
            a->keep = 0; /* a cap the agent will not hold is the host's to keep: everything goes */
        p += 4;
    }
    if (end - p >= 8) {
        /* a terminal: checked by the caller (sbx-pty.c's bounds), so a bad size is FAILED, not a silent pipe */
        a->cols = get32(p);
        a->rows = get32(p + 4);
        if (a->cols == 0 && a->rows == 0) {
            /* no terminal, said explicitly */
        } else if (a->cols == 0 || a->rows == 0) {
            *why = "bad terminal size";
            free_spawn(a);
            return -1;
        }
    }
    return 0;
}

void free_spawn(struct spawn_args *a)
{
    free_strings(a->argv);
    free_strings(a->env);
    free_strings(a->cwd);
    memset(a, 0, sizeof *a);
}
