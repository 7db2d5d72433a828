/*
 * sbx-frame.h: the agent's side of the frame protocol (PROTOCOL.md): big-endian helpers, the queue of frames to the
 * host, splitting the host's bytes into frames, and the payload codecs every unit of sbx-agent shares. The
 * protocol's numbers (SBX_*) come from sbx-protocol.h, which the build generates from AgentProtocol.java.
 */
#ifndef SBX_FRAME_H
#define SBX_FRAME_H
#include <stddef.h>
#include <stdint.h>

#include "sbx-protocol.h"

static inline void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char) (v >> 24);
    p[1] = (unsigned char) (v >> 16);
    p[2] = (unsigned char) (v >> 8);
    p[3] = (unsigned char) v;
}

static inline void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t) (v >> 32));
    put32(p + 4, (uint32_t) v);
}

static inline uint32_t get32(const unsigned char *p)
{
    return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) | ((uint32_t) p[2] << 8) | (uint32_t) p[3];
}

static inline uint64_t get64(const unsigned char *p)
{
    return ((uint64_t) get32(p) << 32) | get32(p + 4);
}

/* --- diagnostics and time, for every unit of the agent ------------------------------------------------ */

/* One line "sbx-agent: <fmt with arg>" on fd 2, the host's diagnostics channel. */
void say(const char *fmt, const char *arg);
long long now_ns(void);

/* --- frames to the host -------------------------------------------------------------------------------- */

/*
 * Frames wait in one growing buffer until flush_out writes them. Frames that carry command output or watch
 * events (send_data, out_commit) are also counted as data: the agent stops reading commands' pipes and watches
 * while that count is at its cap (backpressure), so only those count.
 */
void send_frame(int type, int32_t id, const void *payload, size_t len);
void send_data(int type, int32_t id, const void *payload, size_t len);
void send_int(int type, int32_t id, int32_t v);
/* FAILED with what + detail (detail may be NULL), cut to 1023 bytes */
void send_failed(int32_t id, const char *what, const char *detail);
/* EXIT: int code (128 + signal when signalled), long OOM kills (-1 unknown) */
void send_exit(int32_t id, int code, long long oom_kills);
/* SKIPPED: byte stream (SBX_STDOUT or SBX_STDERR), long bytes, long characters */
void send_skipped(int32_t id, int stream, uint64_t bytes, uint64_t chars);
/* Room for a frame of up to len payload bytes: returns where its payload goes; out_commit then sends it as data. */
unsigned char *out_reserve(size_t len);
void out_commit(int type, int32_t id, size_t len);
/* Writes what fd takes now; returns -1 when the host's end is gone. */
int flush_out(int fd);
/* Drops every frame waiting (their host is gone: a leased agent's detach). */
void out_discard(void);
/* Bytes of frames waiting, and how many of them are data. */
size_t out_pending(void);
size_t out_data_pending(void);

/* One WATCH_EVENTS record (PROTOCOL.md): EVENT_FIXED + lp + lf bytes at p; returns that size. */
#define EVENT_FIXED 26
size_t put_event(unsigned char *p, int kind, int dir, uint64_t size, uint64_t mtime_ms, const char *path, size_t lp,
                 const char *from, size_t lf);

/* --- frames from the host ------------------------------------------------------------------------------ */

enum { FRAME_BAD = -1, FRAME_PARTIAL = 0, FRAME_WHOLE = 1 };

struct frame {
    uint32_t length;                /* the frame's length field */
    int type;
    int32_t id;
    const unsigned char *payload;
    size_t len;                     /* payload bytes */
    size_t size;                    /* bytes the whole frame takes (FRAME_WHOLE), or needs before it is whole */
};

/*
 * The first frame of buf[0..n): FRAME_WHOLE (f filled; the frame is buf[0..f->size)), FRAME_PARTIAL (f->size
 * bytes are needed to go on), or FRAME_BAD (f->length is outside 5..SBX_MAX_FRAME: the channel cannot be trusted
 * any more, and the agent ends).
 */
int frame_split(const unsigned char *buf, size_t n, struct frame *f);

/*
 * Parses one string list (int count, then int length + bytes each) at *pp, before end, into NUL-terminated copies
 * (a NULL-terminated array); moves *pp past it. On a malformed list (a count or length past end, a NUL in a
 * string) returns -1 with *why set and nothing allocated.
 */
int parse_strings(const unsigned char **pp, const unsigned char *end, char ***out, uint32_t *count, const char **why);
void free_strings(char **v);

/* SPAWN's payload: string lists argv, env, cwd, then an optional int keep (0 when over SBX_MAX_KEEP). */
struct spawn_args {
    char **argv, **env, **cwd;
    uint32_t nargv, nenv, ncwd;
    uint32_t keep;
    uint32_t cols, rows; /* a terminal of this size (both > 0: PROTOCOL.md, "Terminals"), else 0 */
};

/* Returns -1 with *why on a malformed list (nothing allocated), else 0; free_spawn frees what it made. */
int parse_spawn(const unsigned char *p, size_t len, struct spawn_args *a, const char **why);
void free_spawn(struct spawn_args *a);
#endif
