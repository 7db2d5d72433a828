/*
 * The agent's C unit tests (run by run-c-tests.sh from Maven's test phase):
 *
 *   test-agent GOLDEN_DIR AGENT_BINARY [OTHER_ARCH_AGENT_BINARY QEMU]
 *
 * They link the agent's units (sbx-frame.c, sbx-ring.c) and test the frame parser and encoders against the golden
 * frames of src/test/resources/agent-frames (which AgentFramesTest pins to AgentProtocol's codec, so both sides
 * agree on the same bytes), the bounds of string-list parsing, the output ring's arithmetic, and, through the built
 * binaries (this architecture's, and the other's under qemu-user when there is one), that the agent greets with the
 * golden READY, refuses the golden bad list, ends on a bad frame length, and reports file changes through WATCH.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "sbx-frame.h"
#include "sbx-fs.h"
#include "sbx-ring.h"

static const char *golden_dir;
static const char *agent_binary;
static const char *other_binary; /* the other architecture's agent, run under qemu: optional */
static const char *qemu;

/* The golden file NAME.bin (malloc'd), or NULL. */
static unsigned char *golden(const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.bin", golden_dir, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    unsigned char *b = malloc(1 << 16);
    *len = fread(b, 1, 1 << 16, f);
    fclose(f);
    return b;
}

/* Everything queued for the host so far, written out through flush_out (malloc'd). */
static unsigned char *sent(size_t *len)
{
    int fd = memfd_create("sent", MFD_CLOEXEC);
    if (fd < 0 || flush_out(fd) != 0) {
        perror("memfd");
        exit(3);
    }
    off_t end = lseek(fd, 0, SEEK_CUR);
    unsigned char *b = malloc((size_t) end + 1);
    *len = (size_t) pread(fd, b, (size_t) end, 0);
    close(fd);
    return b;
}

/* Checks that what was queued since the last call is exactly the golden frame NAME. */
#define CHECK_SENT_IS(name)                                                                                   \
    do {                                                                                                      \
        size_t gl_, sl_;                                                                                      \
        unsigned char *g_ = golden(name, &gl_);                                                               \
        unsigned char *s_ = sent(&sl_);                                                                       \
        CHECK(g_ != NULL);                                                                                    \
        if (g_ != NULL)                                                                                       \
            CHECK_BYTES(s_, sl_, g_, gl_);                                                                    \
        free(g_);                                                                                             \
        free(s_);                                                                                             \
    } while (0)

/* --- frames from the host: frame_split -------------------------------------------------------------------- */

struct expect {
    const char *name;
    int type;
    int32_t id;
    size_t len;
};

static const struct expect WELL_FORMED[] = {
    { "spawn", SBX_SPAWN, 7, 76 },     { "go", SBX_GO, 7, 0 },
    { "stdin", SBX_STDIN, 7, 5 },      { "stdin-close", SBX_STDIN_CLOSE, 7, 0 },
    { "signal", SBX_SIGNAL, 7, 1 },    { "watch", SBX_WATCH, 9, 30 },
    { "unwatch", SBX_UNWATCH, 9, 0 },  { "ready", SBX_READY, 0, 4 },
    { "spawned", SBX_SPAWNED, 7, 4 },  { "stdout", SBX_STDOUT, 7, 3 },
    { "stderr", SBX_STDERR, 7, 6 },    { "skipped", SBX_SKIPPED, 7, 17 },
    { "exit", SBX_EXIT, 7, 12 },       { "exit-killed", SBX_EXIT, 8, 12 },
    { "failed", SBX_FAILED, 8, 31 },   { "watching", SBX_WATCHING, 9, 4 },
    { "watch-events", SBX_WATCH_EVENTS, 9, 75 }, { "watch-overflow", SBX_WATCH_OVERFLOW, 9, 0 },
    { "spawn-bad-list", SBX_SPAWN, 10, 10 },
};

static void golden_frames_split_whole(void)
{
    for (size_t i = 0; i < sizeof WELL_FORMED / sizeof WELL_FORMED[0]; i++) {
        const struct expect *e = &WELL_FORMED[i];
        size_t n;
        unsigned char *b = golden(e->name, &n);
        CHECK_OR_STOP(b != NULL);
        struct frame f;
        if (frame_split(b, n, &f) != FRAME_WHOLE) {
            CHECK_FAIL("%s: not one whole frame", e->name);
            free(b);
            continue;
        }
        CHECK_EQ(f.size, n);
        CHECK_EQ(f.type, e->type);
        CHECK_EQ(f.id, e->id);
        CHECK_EQ(f.len, e->len);
        CHECK(f.payload == b + SBX_HEADER);
        free(b);
    }
}

static void every_prefix_of_a_frame_is_partial(void)
{
    for (size_t i = 0; i < sizeof WELL_FORMED / sizeof WELL_FORMED[0]; i++) {
        size_t n;
        unsigned char *b = golden(WELL_FORMED[i].name, &n);
        CHECK_OR_STOP(b != NULL);
        for (size_t k = 0; k < n; k++) {
            struct frame f;
            if (frame_split(b, k, &f) != FRAME_PARTIAL) {
                CHECK_FAIL("%s: %zu of %zu bytes not partial", WELL_FORMED[i].name, k, n);
                break;
            }
            /* it asks for the header first, then for exactly the whole frame */
            CHECK_EQ(f.size, k < 4 ? (size_t) SBX_HEADER : n);
        }
        free(b);
    }
}

static void two_frames_in_a_row_split_one_at_a_time(void)
{
    size_t n1, n2;
    unsigned char *a = golden("stdin", &n1), *b = golden("stdin-close", &n2);
    CHECK_OR_STOP(a != NULL && b != NULL);
    unsigned char both[64];
    memcpy(both, a, n1);
    memcpy(both + n1, b, n2);
    struct frame f;
    CHECK_EQ(frame_split(both, n1 + n2, &f), FRAME_WHOLE);
    CHECK_EQ(f.size, n1);
    CHECK_EQ(f.type, SBX_STDIN);
    CHECK_BYTES(f.payload, f.len, "data\n", 5);
    CHECK_EQ(frame_split(both + f.size, n1 + n2 - f.size, &f), FRAME_WHOLE);
    CHECK_EQ(f.type, SBX_STDIN_CLOSE);
    free(a);
    free(b);
}

static void bad_lengths_are_refused_before_anything_is_buffered(void)
{
    size_t n;
    unsigned char *b = golden("bad-length-short", &n);
    CHECK_OR_STOP(b != NULL);
    struct frame f;
    CHECK_EQ(frame_split(b, n, &f), FRAME_BAD);
    CHECK_EQ(f.length, 4);
    /* known bad from its length field alone: the agent never waits for (or allocates) the rest */
    CHECK_EQ(frame_split(b, 4, &f), FRAME_BAD);
    free(b);
    b = golden("bad-length-long", &n);
    CHECK_OR_STOP(b != NULL);
    CHECK_EQ(frame_split(b, n, &f), FRAME_BAD);
    CHECK_EQ(f.length, SBX_MAX_FRAME + 1);
    free(b);
    static const uint32_t bad[] = { 0, 1, 4, (uint32_t) SBX_MAX_FRAME + 1, 0x7fffffffu, 0x80000000u, 0xffffffffu };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned char h[SBX_HEADER] = { 0 };
        put32(h, bad[i]);
        if (frame_split(h, sizeof h, &f) != FRAME_BAD)
            CHECK_FAIL("length %u accepted", bad[i]);
    }
}

static void the_smallest_and_the_largest_lengths_are_accepted(void)
{
    unsigned char h[SBX_HEADER] = { 0 };
    struct frame f;
    put32(h, 5);
    h[4] = SBX_GO;
    CHECK_EQ(frame_split(h, sizeof h, &f), FRAME_WHOLE);
    CHECK_EQ(f.len, 0);
    put32(h, SBX_MAX_FRAME);
    CHECK_EQ(frame_split(h, sizeof h, &f), FRAME_PARTIAL);
    CHECK_EQ(f.size, 4 + (size_t) SBX_MAX_FRAME);
}

/* --- frames from the host: payloads ----------------------------------------------------------------------- */

static void golden_spawn_parses(void)
{
    size_t n;
    unsigned char *b = golden("spawn", &n);
    CHECK_OR_STOP(b != NULL);
    struct frame f;
    CHECK_OR_STOP(frame_split(b, n, &f) == FRAME_WHOLE);
    struct spawn_args a;
    const char *why = NULL;
    CHECK_OR_STOP(parse_spawn(f.payload, f.len, &a, &why) == 0);
    CHECK_EQ(a.nargv, 3);
    CHECK_STR(a.argv[0], "sh");
    CHECK_STR(a.argv[1], "-c");
    CHECK_STR(a.argv[2], "echo hi");
    CHECK(a.argv[3] == NULL);
    CHECK_EQ(a.nenv, 2);
    CHECK_STR(a.env[0], "LANG=C.UTF-8");
    CHECK_STR(a.env[1], "A=1");
    CHECK_EQ(a.ncwd, 1);
    CHECK_STR(a.cwd[0], "/workspace");
    CHECK_EQ(a.keep, 4096);
    free_spawn(&a);
    CHECK(a.argv == NULL && a.env == NULL && a.cwd == NULL);
    free(b);
}

/* FILE's payload is SPAWN's: the same parser reads it (argv = the operation, no environment, [the workspace root]) */
static void golden_file_parses(void)
{
    size_t n;
    unsigned char *b = golden("file", &n);
    CHECK_OR_STOP(b != NULL);
    struct frame f;
    CHECK_OR_STOP(frame_split(b, n, &f) == FRAME_WHOLE);
    CHECK_EQ(f.type, SBX_FILE);
    CHECK_EQ(f.id, 11);
    struct spawn_args a;
    const char *why = NULL;
    CHECK_OR_STOP(parse_spawn(f.payload, f.len, &a, &why) == 0);
    CHECK_EQ(a.nargv, 2);
    CHECK_STR(a.argv[0], "stat");
    CHECK_STR(a.argv[1], "src/a.txt");
    CHECK_EQ(a.nenv, 0);
    CHECK_EQ(a.ncwd, 1);
    CHECK_STR(a.cwd[0], "/workspace");
    CHECK_EQ(a.keep, 0);
    free_spawn(&a);
    free(b);
}

static void spawn_keep_is_optional_and_bounded(void)
{
    size_t n;
    unsigned char *b = golden("spawn", &n);
    CHECK_OR_STOP(b != NULL);
    const unsigned char *p = b + SBX_HEADER;
    size_t len = n - SBX_HEADER;
    struct spawn_args a;
    const char *why = NULL;
    /* without the keep: 0, all output goes to the host */
    CHECK_OR_STOP(parse_spawn(p, len - 4, &a, &why) == 0);
    CHECK_EQ(a.keep, 0);
    free_spawn(&a);
    /* a keep over SBX_MAX_KEEP is not the agent's to hold: 0 */
    put32(b + n - 4, SBX_MAX_KEEP + 1);
    CHECK_OR_STOP(parse_spawn(p, len, &a, &why) == 0);
    CHECK_EQ(a.keep, 0);
    free_spawn(&a);
    put32(b + n - 4, SBX_MAX_KEEP);
    CHECK_OR_STOP(parse_spawn(p, len, &a, &why) == 0);
    CHECK_EQ(a.keep, SBX_MAX_KEEP);
    free_spawn(&a);
    free(b);
}

static void golden_spawn_with_a_bad_list_is_refused(void)
{
    size_t n;
    unsigned char *b = golden("spawn-bad-list", &n);
    CHECK_OR_STOP(b != NULL);
    struct frame f;
    CHECK_OR_STOP(frame_split(b, n, &f) == FRAME_WHOLE);
    struct spawn_args a;
    const char *why = NULL;
    CHECK_EQ(parse_spawn(f.payload, f.len, &a, &why), -1);
    CHECK_STR(why, "bad list length");
    CHECK(a.argv == NULL && a.env == NULL && a.cwd == NULL);
    free(b);
}

static void every_truncation_of_spawn_fails_cleanly_or_parses(void)
{
    size_t n;
    unsigned char *b = golden("spawn", &n);
    CHECK_OR_STOP(b != NULL);
    size_t lists = n - SBX_HEADER - 4; /* the three lists, without the keep */
    for (size_t k = 0; k <= n - SBX_HEADER; k++) {
        /* a copy of exactly k bytes: the sanitizers see any read past the end */
        unsigned char *p = malloc(k ? k : 1);
        memcpy(p, b + SBX_HEADER, k);
        struct spawn_args a;
        const char *why = NULL;
        int r = parse_spawn(p, k, &a, &why);
        if (k < lists && (r != -1 || why == NULL))
            CHECK_FAIL("%zu of %zu bytes parsed", k, lists);
        if (k >= lists && r != 0)
            CHECK_FAIL("%zu bytes refused: %s", k, why);
        if (r == 0)
            free_spawn(&a);
        free(p);
    }
    free(b);
}

/* One string list parsed from bytes; returns parse_strings' result, *why and how far it moved. */
static int strings_of(const unsigned char *bytes, size_t n, uint32_t *count, const char **why, size_t *moved)
{
    unsigned char *copy = malloc(n ? n : 1);
    memcpy(copy, bytes, n);
    const unsigned char *p = copy;
    char **v = NULL;
    *why = NULL;
    int r = parse_strings(&p, copy + n, &v, count, why);
    *moved = (size_t) (p - copy);
    free_strings(v);
    free(copy);
    return r;
}

static void string_lists_stay_inside_their_bounds(void)
{
    uint32_t count = 99;
    const char *why;
    size_t moved;
    CHECK_EQ(strings_of((const unsigned char *) "", 0, &count, &why, &moved), -1);
    CHECK_STR(why, "truncated list");
    CHECK_EQ(moved, 0);
    /* an empty list */
    CHECK_EQ(strings_of((const unsigned char *) "\0\0\0\0", 4, &count, &why, &moved), 0);
    CHECK_EQ(count, 0);
    CHECK_EQ(moved, 4);
    /* a count that cannot fit: refused before anything is allocated for it */
    CHECK_EQ(strings_of((const unsigned char *) "\xff\xff\xff\xff\0\0\0\0", 8, &count, &why, &moved), -1);
    CHECK_STR(why, "bad list length");
    CHECK_EQ(moved, 0);
    CHECK_EQ(strings_of((const unsigned char *) "\0\0\0\x02\0\0\0\0", 8, &count, &why, &moved), -1);
    CHECK_STR(why, "bad list length");
    /* two strings announced, room for two lengths, the second missing */
    CHECK_EQ(strings_of((const unsigned char *) "\0\0\0\x02\0\0\0\x01" "a\0\0\0", 12, &count, &why, &moved), -1);
    CHECK_STR(why, "truncated string");
    /* a string longer than what is left, or negative as a Java int */
    CHECK_EQ(strings_of((const unsigned char *) "\0\0\0\x01\0\0\0\x05" "abcd", 12, &count, &why, &moved), -1);
    CHECK_STR(why, "bad string length");
    CHECK_EQ(strings_of((const unsigned char *) "\0\0\0\x01\xff\xff\xff\xff" "abcd", 12, &count, &why, &moved), -1);
    CHECK_STR(why, "bad string length");
    /* a NUL inside a string would cut an argument short in exec */
    CHECK_EQ(strings_of((const unsigned char *) "\0\0\0\x01\0\0\0\x03" "a\0b", 11, &count, &why, &moved), -1);
    CHECK_STR(why, "invalid null character in an argument, variable or directory");
    /* exactly at the end, and the empty string */
    CHECK_EQ(strings_of((const unsigned char *) "\0\0\0\x02\0\0\0\x02" "ab\0\0\0\0", 14, &count, &why, &moved), 0);
    CHECK_EQ(count, 2);
    CHECK_EQ(moved, 14);
}

static void golden_watch_payload_parses(void)
{
    size_t n;
    unsigned char *b = golden("watch", &n);
    CHECK_OR_STOP(b != NULL);
    struct frame f;
    CHECK_OR_STOP(frame_split(b, n, &f) == FRAME_WHOLE);
    CHECK_EQ(f.payload[0], 1); /* recursive */
    const unsigned char *p = f.payload + 1;
    char **v = NULL;
    uint32_t count = 0;
    const char *why = NULL;
    CHECK_OR_STOP(parse_strings(&p, f.payload + f.len, &v, &count, &why) == 0);
    CHECK_EQ(count, 2);
    CHECK_STR(v[0], "/workspace/src");
    CHECK_STR(v[1], "src");
    CHECK(p == f.payload + f.len);
    free_strings(v);
    free(b);
}

/* Random bytes with a plausible header, split and parsed as the agent would: the sanitizers catch any read past the
   end, and every result must be one of the three outcomes with a consistent size. */
static void random_bytes_are_split_and_parsed_within_their_bounds(void)
{
    srand(20261127);
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t) rand() % 200;
        unsigned char *b = malloc(n ? n : 1);
        for (size_t i = 0; i < n; i++)
            b[i] = (unsigned char) rand();
        if (n >= SBX_HEADER && rand() % 4 != 0) {
            put32(b, 5 + (uint32_t) rand() % (uint32_t) (n - 4)); /* mostly a length that fits */
            b[4] = rand() % 2 ? SBX_SPAWN : (unsigned char) rand();
        }
        struct frame f;
        int r = frame_split(b, n, &f);
        if (r == FRAME_WHOLE) {
            if (f.size > n || f.len + SBX_HEADER != f.size) {
                CHECK_FAIL("round %d: a whole frame of %zu bytes in %zu", round, f.size, n);
                free(b);
                break;
            }
            /* the payload alone, in a buffer of its exact size: a read past the frame is a read past the buffer */
            unsigned char *payload = malloc(f.len ? f.len : 1);
            memcpy(payload, f.payload, f.len);
            struct spawn_args a;
            const char *why = NULL;
            if (parse_spawn(payload, f.len, &a, &why) == 0)
                free_spawn(&a);
            else if (why == NULL)
                CHECK_FAIL("round %d: refused without a reason", round);
            free(payload);
        } else if (r == FRAME_PARTIAL && f.size <= n) {
            CHECK_FAIL("round %d: partial, yet the %zu bytes it needs are there", round, f.size);
        }
        free(b);
    }
}

/* --- frames to the host: the encoders against the golden frames ------------------------------------------- */

static void encoders_write_the_golden_frames(void)
{
    send_int(SBX_READY, 0, SBX_VERSION);
    CHECK_SENT_IS("ready");
    send_int(SBX_SPAWNED, 7, 42);
    CHECK_SENT_IS("spawned");
    send_frame(SBX_STDOUT, 7, "hi\n", 3);
    CHECK_SENT_IS("stdout");
    send_data(SBX_STDERR, 7, "caf\xc3\xa9\n", 6);
    CHECK_SENT_IS("stderr");
    send_skipped(7, SBX_STDOUT, 1000, 990);
    CHECK_SENT_IS("skipped");
    send_exit(7, 0, -1);
    CHECK_SENT_IS("exit");
    send_exit(8, 137, 2);
    CHECK_SENT_IS("exit-killed");
    send_failed(8, "bad SPAWN frame: ", "truncated list");
    CHECK_SENT_IS("failed");
    send_int(SBX_WATCHING, 9, 3);
    CHECK_SENT_IS("watching");
    send_frame(SBX_WATCH_OVERFLOW, 9, NULL, 0);
    CHECK_SENT_IS("watch-overflow");
}

static void output_read_straight_into_the_queue_is_the_golden_stdout(void)
{
    unsigned char *p = out_reserve(64);
    memcpy(p, "hi\n", 3);
    out_commit(SBX_STDOUT, 7, 3);
    CHECK_EQ(out_pending(), SBX_HEADER + 3);
    CHECK_EQ(out_data_pending(), SBX_HEADER + 3);
    CHECK_SENT_IS("stdout");
    CHECK_EQ(out_pending(), 0);
    CHECK_EQ(out_data_pending(), 0);
}

static void only_data_frames_count_against_the_output_cap(void)
{
    send_int(SBX_SPAWNED, 7, 42);
    CHECK_EQ(out_data_pending(), 0);
    send_data(SBX_WATCH_EVENTS, 9, "x", 1);
    CHECK_EQ(out_data_pending(), SBX_HEADER + 1);
    CHECK_EQ(out_pending(), 2 * SBX_HEADER + 4 + 1);
    size_t n;
    free(sent(&n));
    CHECK_EQ(n, 2 * SBX_HEADER + 4 + 1);
    CHECK_EQ(out_data_pending(), 0);
}

static void golden_watch_events_are_two_records(void)
{
    unsigned char batch[256];
    size_t len = put_event(batch, SBX_EVENT_CREATE, 0, 5, 1764201600123ULL, "src/a.txt", 9, "", 0);
    CHECK_EQ(len, EVENT_FIXED + 9);
    len += put_event(batch + len, SBX_EVENT_RENAME, 1, 0, 1764201600456ULL, "src/new", 7, "src/old", 7);
    send_data(SBX_WATCH_EVENTS, 9, batch, len);
    CHECK_SENT_IS("watch-events");
}

static void a_long_failure_message_is_cut_to_one_kilobyte(void)
{
    char detail[3000];
    memset(detail, 'x', sizeof detail - 1);
    detail[sizeof detail - 1] = '\0';
    send_failed(3, "why: ", detail);
    size_t n;
    unsigned char *b = sent(&n);
    struct frame f;
    CHECK_OR_STOP(frame_split(b, n, &f) == FRAME_WHOLE);
    CHECK_EQ(f.type, SBX_FAILED);
    CHECK_EQ(f.len, 1023);
    CHECK_BYTES(f.payload, 5, "why: ", 5);
    free(b);
}

static void a_burst_of_frames_all_arrive_in_order(void)
{
    /* more than the queue's first allocation (256 KiB): it grows, and flush_out gives it back */
    enum { N = 5000 };
    static unsigned char payload[100];
    for (int i = 0; i < N; i++) {
        memset(payload, (unsigned char) i, sizeof payload);
        send_frame(SBX_STDOUT, i, payload, sizeof payload);
    }
    size_t n;
    unsigned char *b = sent(&n);
    CHECK_EQ(n, (size_t) N * (SBX_HEADER + sizeof payload));
    size_t off = 0;
    for (int i = 0; i < N && off < n; i++) {
        struct frame f;
        if (frame_split(b + off, n - off, &f) != FRAME_WHOLE || f.id != i || f.payload[0] != (unsigned char) i) {
            CHECK_FAIL("frame %d out of order", i);
            break;
        }
        off += f.size;
    }
    free(b);
}

/* --- the output cap's ring ------------------------------------------------------------------------------ */

static unsigned long long naive_chars(const unsigned char *p, size_t n)
{
    unsigned long long c = 0;
    for (size_t i = 0; i < n; i++)
        c += (p[i] & 0xC0) != 0x80;
    return c;
}

static void characters_are_bytes_that_are_not_continuation_bytes(void)
{
    CHECK_EQ(count_chars((const unsigned char *) "", 0), 0);
    CHECK_EQ(count_chars((const unsigned char *) "hello", 5), 5);
    CHECK_EQ(count_chars((const unsigned char *) "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14), 8);
    /* long runs: the eight-lane counter must not overflow a lane (it folds every 255 words) */
    size_t n = 255 * 8 * 3 + 13;
    unsigned char *p = malloc(n);
    memset(p, 0x80, n);
    CHECK_EQ(count_chars(p, n), 0);
    memset(p, 'a', n);
    CHECK_EQ(count_chars(p, n), n);
    srand(20261127);
    for (int round = 0; round < 200; round++) {
        size_t len = (size_t) rand() % n;
        size_t off = (size_t) rand() % 8; /* unaligned starts */
        if (off + len > n)
            len = n - off;
        for (size_t i = 0; i < n; i++)
            p[i] = (unsigned char) rand();
        if (count_chars(p + off, len) != naive_chars(p + off, len)) {
            CHECK_FAIL("round %d: %zu bytes at %zu", round, len, off);
            break;
        }
    }
    free(p);
}

/* Feeds bytes into a ring the way pump_ring does: at most up to the ring's end per read. */
static void feed(struct keep *k, uint32_t keep, const char *bytes, size_t n)
{
    while (n > 0) {
        size_t room = keep - k->pos, take = n < room ? n : room;
        memcpy(k->ring + k->pos, bytes, take);
        ring_took(k, keep, take);
        bytes += take;
        n -= take;
    }
}

static void a_ring_that_never_filled_sends_its_bytes_and_no_skipped(void)
{
    struct keep k = { 0 };
    unsigned char ring[8];
    k.ring = ring;
    feed(&k, 8, "abcde", 5);
    CHECK_EQ(k.fill, 5);
    CHECK_EQ(k.pos, 5);
    ring_send(&k, 8, SBX_STDOUT, 4);
    size_t n;
    unsigned char *b = sent(&n);
    struct frame f;
    CHECK_OR_STOP(frame_split(b, n, &f) == FRAME_WHOLE);
    CHECK_EQ(f.type, SBX_STDOUT);
    CHECK_EQ(f.id, 4);
    CHECK_BYTES(f.payload, f.len, "abcde", 5);
    CHECK_EQ(f.size, n);
    free(b);
}

static void a_wrapped_ring_sends_skipped_then_its_tail_oldest_first(void)
{
    struct keep k = { 0 };
    unsigned char ring[8];
    k.ring = ring;
    /* 11 bytes: a 3-byte character that is overwritten (skipped), six letters, a 2-byte character (kept) */
    feed(&k, 8, "\xe2\x82\xac" "bcdefg", 9);
    feed(&k, 8, "\xc3\xa9", 2);
    CHECK_EQ(k.bytes, 11);
    CHECK_EQ(k.chars, 8);
    CHECK_EQ(k.fill, 8);
    CHECK_EQ(k.pos, 3);
    ring_send(&k, 8, SBX_STDERR, 5);
    size_t n;
    unsigned char *b = sent(&n);
    struct frame f;
    size_t off = 0;
    CHECK_OR_STOP(frame_split(b, n, &f) == FRAME_WHOLE);
    CHECK_EQ(f.type, SBX_SKIPPED);
    CHECK_EQ(f.len, 17);
    CHECK_EQ(f.payload[0], SBX_STDERR);
    CHECK_EQ(get64(f.payload + 1), 3);  /* the three bytes of the euro sign */
    CHECK_EQ(get64(f.payload + 9), 1);  /* one character */
    off += f.size;
    CHECK_OR_STOP(frame_split(b + off, n - off, &f) == FRAME_WHOLE);
    CHECK_EQ(f.type, SBX_STDERR);
    CHECK_BYTES(f.payload, f.len, "bcdef", 5); /* from pos to the ring's end */
    off += f.size;
    CHECK_OR_STOP(frame_split(b + off, n - off, &f) == FRAME_WHOLE);
    CHECK_BYTES(f.payload, f.len, "g\xc3\xa9", 3); /* then from its start to pos */
    off += f.size;
    CHECK_EQ(off, n);
    free(b);
}

static void a_ring_filled_exactly_to_its_end_sends_one_frame(void)
{
    struct keep k = { 0 };
    unsigned char ring[4];
    k.ring = ring;
    feed(&k, 4, "abcdefgh", 8);
    CHECK_EQ(k.pos, 0);
    CHECK_EQ(k.fill, 4);
    ring_send(&k, 4, SBX_STDOUT, 6);
    size_t n;
    unsigned char *b = sent(&n);
    struct frame f;
    CHECK_OR_STOP(frame_split(b, n, &f) == FRAME_WHOLE);
    CHECK_EQ(f.type, SBX_SKIPPED);
    CHECK_EQ(get64(f.payload + 1), 4);
    CHECK_EQ(get64(f.payload + 9), 4);
    size_t off = f.size;
    CHECK_OR_STOP(frame_split(b + off, n - off, &f) == FRAME_WHOLE);
    CHECK_BYTES(f.payload, f.len, "efgh", 4);
    CHECK_EQ(off + f.size, n);
    free(b);
}

static void no_ring_sends_nothing(void)
{
    struct keep k = { 0 };
    ring_send(&k, 8, SBX_STDOUT, 1);
    CHECK_EQ(out_pending(), 0);
}

/* --- the built agent, black-box ------------------------------------------------------------------------- */

struct agent {
    pid_t pid;
    int in, out, err;     /* its stdin, stdout, stderr (our ends) */
    unsigned char buf[1 << 16];
    size_t len;           /* bytes in buf */
    size_t taken;         /* of them, the frame agent_frame last returned */
};

/* Starts argv[0] with argv on three pipes; returns 0 or -1. */
static int agent_start(struct agent *a, char *const argv[])
{
    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
        return -1;
    a->pid = fork();
    if (a->pid < 0)
        return -1;
    if (a->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        execv(argv[0], argv);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    a->in = in[1];
    a->out = out[0];
    a->err = err[0];
    a->len = a->taken = 0;
    return 0;
}

static int agent_send(struct agent *a, const unsigned char *b, size_t n)
{
    return write(a->in, b, n) == (ssize_t) n ? 0 : -1;
}

static int agent_send_golden(struct agent *a, const char *name)
{
    size_t n;
    unsigned char *b = golden(name, &n);
    int r = b != NULL ? agent_send(a, b, n) : -1;
    free(b);
    return r;
}

/* The agent's next frame (its payload stays valid until the next call), within 10 s; 0 or -1. */
static int agent_frame(struct agent *a, struct frame *f)
{
    memmove(a->buf, a->buf + a->taken, a->len - a->taken);
    a->len -= a->taken;
    a->taken = 0;
    for (;;) {
        int r = frame_split(a->buf, a->len, f);
        if (r == FRAME_WHOLE) {
            a->taken = f->size;
            return 0;
        }
        if (r == FRAME_BAD || f->size > sizeof a->buf)
            return -1;
        struct pollfd p = { a->out, POLLIN, 0 };
        if (poll(&p, 1, 10000) <= 0)
            return -1;
        ssize_t n = read(a->out, a->buf + a->len, sizeof a->buf - a->len);
        if (n <= 0)
            return -1;
        a->len += (size_t) n;
    }
}

/* Waits up to 10 s for the agent to exit; returns its wait status, or -1 (then it is killed). */
static int agent_wait(struct agent *a)
{
    int status = 0;
    for (int i = 0; i < 1000; i++) {
        if (waitpid(a->pid, &status, WNOHANG) == a->pid)
            return status;
        usleep(10000);
    }
    kill(a->pid, SIGKILL);
    waitpid(a->pid, &status, 0);
    return -1;
}

static void agent_close(struct agent *a)
{
    close(a->in);
    close(a->out);
    close(a->err);
}

/* READY as the golden frame, FAILED for the golden bad list, exit 2 and the diagnostic on the golden bad length. */
static void ready_bad_list_bad_length(char *const argv[])
{
    static struct agent a;
    CHECK_OR_STOP(agent_start(&a, argv) == 0);
    struct frame f;
    size_t n;
    unsigned char *ready = golden("ready", &n);
    CHECK(ready != NULL && agent_frame(&a, &f) == 0 && f.size == n && memcmp(a.buf, ready, n) == 0);
    free(ready);

    CHECK(agent_send_golden(&a, "spawn-bad-list") == 0);
    static const char why[] = "bad SPAWN frame: bad list length";
    CHECK(agent_frame(&a, &f) == 0 && f.type == SBX_FAILED && f.id == 10 && f.len == sizeof why - 1
          && memcmp(f.payload, why, sizeof why - 1) == 0);

    CHECK(agent_send_golden(&a, "bad-length-long") == 0);
    int status = agent_wait(&a);
    CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 2);
    char diag[1024] = { 0 };
    ssize_t r = read(a.err, diag, sizeof diag - 1);
    CHECK(r > 0 && strstr(diag, "sbx-agent: bad frame length 16777217: closing") != NULL);
    agent_close(&a);
}

/* Appends a string list to b at *n. */
static void put_list(unsigned char *b, size_t *n, char **v, int count)
{
    put32(b + *n, (uint32_t) count);
    *n += 4;
    for (int i = 0; i < count; i++) {
        size_t l = strlen(v[i]);
        put32(b + *n, (uint32_t) l);
        memcpy(b + *n + 4, v[i], l);
        *n += 4 + l;
    }
}

/* Sends a FILE frame with payload p; runs it when it starts (GO, stdin, STDIN_CLOSE); returns its EXIT code or -1. */
static int agent_file(struct agent *a, int32_t id, const unsigned char *p, size_t len, const char *in, size_t inlen,
                      unsigned char *out, size_t *nout)
{
    static unsigned char frame[1 << 16];
    put32(frame, (uint32_t) (len + 5));
    frame[4] = SBX_FILE;
    put32(frame + 5, (uint32_t) id);
    memcpy(frame + 9, p, len);
    if (agent_send(a, frame, len + 9) != 0)
        return -2;
    struct frame f;
    if (agent_frame(a, &f) != 0 || f.id != id)
        return -2;
    if (f.type == SBX_FAILED)
        return -1;
    if (f.type != SBX_SPAWNED)
        return -2;
    size_t k = 0;
    put32(frame + k, 5); frame[k + 4] = SBX_GO; put32(frame + k + 5, (uint32_t) id); k += 9;
    put32(frame + k, (uint32_t) (5 + inlen)); frame[k + 4] = SBX_STDIN; put32(frame + k + 5, (uint32_t) id);
    memcpy(frame + k + 9, in, inlen); k += 9 + inlen;
    put32(frame + k, 5); frame[k + 4] = SBX_STDIN_CLOSE; put32(frame + k + 5, (uint32_t) id); k += 9;
    if (agent_send(a, frame, k) != 0)
        return -2;
    if (nout)
        *nout = 0;
    for (;;) {
        if (agent_frame(a, &f) != 0 || f.id != id)
            return -2;
        if (f.type == SBX_STDOUT && out && *nout + f.len <= 4096) {
            memcpy(out + *nout, f.payload, f.len);
            *nout += f.len;
        }
        if (f.type == SBX_EXIT)
            return (int) get32(f.payload);
    }
}

/*
 * FILE frames: a stat of the root runs in the agent's own child and answers one record; then random payloads and
 * random operations with random arguments and stdin (in a directory of their own) are refused (FAILED) or run to an
 * EXIT, the agent never stops answering, and a last stat still works.
 */
static void file_frames_run_and_garbage_in_them_is_refused_or_fails_cleanly(void)
{
    CHECK_OR_STOP(agent_binary != NULL && access(agent_binary, X_OK) == 0);
    char root[] = "/tmp/sbx-file-fuzz-XXXXXX";
    CHECK_OR_STOP(mkdtemp(root) != NULL);
    static struct agent a;
    char *argv[] = { (char *) agent_binary, NULL };
    CHECK_OR_STOP(agent_start(&a, argv) == 0);
    struct frame f;
    CHECK_OR_STOP(agent_frame(&a, &f) == 0 && f.type == SBX_READY);
    static unsigned char p[1 << 15];
    unsigned char out[4096];
    size_t n = 0, nout = 0;
    char *stat_root[] = { "stat", "" }, *cwd[] = { root };
    put_list(p, &n, stat_root, 2);
    put_list(p, &n, NULL, 0);
    put_list(p, &n, cwd, 1);
    CHECK_EQ(agent_file(&a, 1, p, n, "", 0, out, &nout), 0);
    CHECK(nout == FS_ENTRY_FIXED && out[0] == 'd');
    static const char *ops[] = { "stat", "read", "write", "list", "mkdirs", "move", "copy", "delete", "cat", "x" };
    static const char *words[] = { "", ".", "..", "a", "a/b", "/etc", "1", "0", "-1", "all", "range", "lines",
                                   "stream", "replace", "append", "99999999999999999999", "a/../b", "ff", "7" };
    unsigned int seed = 42;
    int refused = 0, ran = 0;
    for (int32_t id = 2; id < 400; id++) {
        n = 0;
        if (id % 4 == 0) { /* bytes */
            n = (size_t) (rand_r(&seed) % 64);
            for (size_t i = 0; i < n; i++)
                p[i] = (unsigned char) rand_r(&seed);
        } else {
            char *v[6];
            int argc = 1 + rand_r(&seed) % 6;
            v[0] = (char *) ops[rand_r(&seed) % 10];
            for (int i = 1; i < argc; i++)
                v[i] = (char *) words[rand_r(&seed) % (sizeof words / sizeof *words)];
            put_list(p, &n, v, argc);
            char *env[] = { "A=1" };
            put_list(p, &n, env, id % 7 == 0);
            char *bad_cwd[] = { "relative" };
            put_list(p, &n, id % 11 == 0 ? bad_cwd : cwd, 1);
        }
        char in[32];
        for (size_t i = 0; i < sizeof in; i++)
            in[i] = (char) rand_r(&seed);
        int code = agent_file(&a, id, p, n, in, (size_t) (id % 3) * 16, NULL, NULL);
        if (code == -2) {
            CHECK_FAIL("FILE %d: no answer, or a wrong one", id);
            break;
        }
        refused += code == -1;
        ran += code >= 0;
    }
    CHECK(refused > 0 && ran > 0);
    n = 0;
    put_list(p, &n, stat_root, 2);
    put_list(p, &n, NULL, 0);
    put_list(p, &n, cwd, 1);
    CHECK_EQ(agent_file(&a, 1000, p, n, "", 0, out, &nout), 0);
    close(a.in);
    int status = agent_wait(&a);
    CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    agent_close(&a);
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf %s", root);
    CHECK(system(rm) == 0);
}

static void the_agent_says_ready_answers_a_bad_list_and_ends_on_a_bad_length(void)
{
    CHECK_OR_STOP(agent_binary != NULL && access(agent_binary, X_OK) == 0);
    char *argv[] = { (char *) agent_binary, NULL };
    ready_bad_list_bad_length(argv);
}

/* The same for the other architecture's binary, under qemu-user (run only when both are there). */
static void the_other_architectures_agent_does_the_same_under_qemu(void)
{
    char *argv[] = { (char *) qemu, (char *) other_binary, NULL };
    ready_bad_list_bad_length(argv);
}

/* Appends a string list of count strings to b at *n. */
static void put_strings(unsigned char *b, size_t *n, int count, const char *const strings[])
{
    put32(b + *n, (uint32_t) count);
    *n += 4;
    for (int i = 0; i < count; i++) {
        size_t l = strlen(strings[i]);
        put32(b + *n, (uint32_t) l);
        memcpy(b + *n + 4, strings[i], l);
        *n += 4 + l;
    }
}

/* Frames the payload b[HEADER..n) as type and id in place. */
static void put_frame_header(unsigned char *b, size_t n, int type, int32_t id)
{
    put32(b, (uint32_t) n - 4);
    b[4] = (unsigned char) type;
    put32(b + 5, (uint32_t) id);
}

/* A WATCH frame (recursive) of dir, reported as "w". */
static size_t watch_frame(unsigned char *b, int32_t id, const char *dir)
{
    size_t n = SBX_HEADER;
    b[n++] = 1;
    const char *const strings[] = { dir, "w" };
    put_strings(b, &n, 2, strings);
    put_frame_header(b, n, SBX_WATCH, id);
    return n;
}

/* A SPAWN frame of argv in cwd "/", no env, no keep. */
static size_t spawn_frame(unsigned char *b, int32_t id, int argc, const char *const argv[])
{
    size_t n = SBX_HEADER;
    const char *const cwd[] = { "/" };
    put_strings(b, &n, argc, argv);
    put_strings(b, &n, 0, NULL);
    put_strings(b, &n, 1, cwd);
    put_frame_header(b, n, SBX_SPAWN, id);
    return n;
}

/* Whether f is FAILED for id with exactly message. */
static int is_failed(const struct frame *f, int32_t id, const char *message)
{
    return f->type == SBX_FAILED && f->id == id && f->len == strlen(message)
           && memcmp(f->payload, message, f->len) == 0;
}

/* The records of one WATCH_EVENTS payload as "KIND dir path<-from" lines appended to out; -1 if malformed. */
static int records(const unsigned char *p, size_t len, char *out, size_t cap)
{
    static const char *const kinds[] = { "CREATE", "WRITE", "REMOVE", "RENAME", "CHMOD" };
    size_t i = 0;
    while (i < len) {
        if (len - i < EVENT_FIXED || p[i] > SBX_EVENT_CHMOD)
            return -1;
        uint32_t lp = get32(p + i + 18);
        if (lp > len - i - EVENT_FIXED)
            return -1;
        uint32_t lf = get32(p + i + 22 + lp);
        if (lf > len - i - EVENT_FIXED - lp)
            return -1;
        size_t o = strlen(out);
        snprintf(out + o, cap - o, "%s %d %.*s<-%.*s\n", kinds[p[i]], p[i + 1], (int) lp, (const char *) p + i + 22,
                 (int) lf, (const char *) p + i + 26 + lp);
        i += EVENT_FIXED + lp + lf;
    }
    return 0;
}

/* Collects WATCH_EVENTS of watch id until want is in the text (or 10 s pass); returns whether it came. */
static int events_until(struct agent *a, int32_t id, char *text, size_t cap, const char *want)
{
    while (strstr(text, want) == NULL) {
        struct frame f;
        if (agent_frame(a, &f) != 0)
            return 0;
        if (f.type == SBX_WATCH_EVENTS && f.id == id && records(f.payload, f.len, text, cap) != 0)
            return 0;
    }
    return 1;
}

static void a_watch_reports_changes_through_the_protocol(void)
{
    CHECK_OR_STOP(agent_binary != NULL && access(agent_binary, X_OK) == 0);
    char dir[] = "/tmp/sbx-test-watch-XXXXXX";
    CHECK_OR_STOP(mkdtemp(dir) != NULL);
    static struct agent a;
    char *argv[] = { (char *) agent_binary, NULL };
    CHECK_OR_STOP(agent_start(&a, argv) == 0);
    struct frame f;
    CHECK(agent_frame(&a, &f) == 0 && f.type == SBX_READY);

    /* WATCH 9, recursive, [dir, "w"]: the golden WATCH's shape with this test's directory */
    unsigned char watch[256];
    size_t n = watch_frame(watch, 9, dir);
    CHECK(agent_send(&a, watch, n) == 0);
    CHECK(agent_frame(&a, &f) == 0 && f.type == SBX_WATCHING && f.id == 9 && f.len == 4 && get32(f.payload) == 1);

    char path[128], text[8192] = { 0 };
    snprintf(path, sizeof path, "%s/a.txt", dir);
    int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    CHECK(fd >= 0);
    close(fd);
    CHECK(events_until(&a, 9, text, sizeof text, "CREATE 0 w/a.txt<-\n"));
    snprintf(path, sizeof path, "%s/sub", dir);
    CHECK(mkdir(path, 0700) == 0);
    CHECK(events_until(&a, 9, text, sizeof text, "CREATE 1 w/sub<-\n"));
    /* the new directory is watched too (recursive) */
    snprintf(path, sizeof path, "%s/sub/b", dir);
    CHECK(mkdir(path, 0700) == 0);
    CHECK(events_until(&a, 9, text, sizeof text, "CREATE 1 w/sub/b<-\n"));
    if (check_failures_here)
        fprintf(stderr, "events seen:\n%s", text);

    /* a second WATCH with the same id is refused; UNWATCH ends it; closing stdin ends the agent with 0 */
    CHECK(agent_send(&a, watch, n) == 0);
    CHECK(agent_frame(&a, &f) == 0 && is_failed(&f, 9, "duplicate watch id"));
    size_t un;
    unsigned char *unwatch = golden("unwatch", &un);
    CHECK(unwatch != NULL && agent_send(&a, unwatch, un) == 0);
    free(unwatch);
    close(a.in);
    a.in = -1;
    int status = agent_wait(&a);
    CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    agent_close(&a);
    char rm[256];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    CHECK(system(rm) == 0);
}

static void commands_and_watches_share_one_id_space(void)
{
    CHECK_OR_STOP(agent_binary != NULL && access(agent_binary, X_OK) == 0);
    /* absolute: the agent starts the reaper after a chdir to the command's directory */
    char reaper[PATH_MAX + 32], abs[PATH_MAX];
    CHECK_OR_STOP(realpath(agent_binary, abs) != NULL);
    snprintf(reaper, sizeof reaper, "--reaper=%s", abs);
    char *slash = strrchr(reaper, '/');
    CHECK_OR_STOP(slash != NULL);
    snprintf(slash + 1, sizeof reaper - (size_t) (slash + 1 - reaper), "sbx-reaper");
    CHECK_OR_STOP(access(reaper + strlen("--reaper="), X_OK) == 0);
    static struct agent a;
    char *argv[] = { (char *) agent_binary, reaper, NULL };
    CHECK_OR_STOP(agent_start(&a, argv) == 0);
    struct frame f;
    CHECK(agent_frame(&a, &f) == 0 && f.type == SBX_READY);

    /* command 5, held at its gate; a watch may not take its id */
    unsigned char b[256];
    const char *const cmd[] = { "true" };
    CHECK(agent_send(&a, b, spawn_frame(b, 5, 1, cmd)) == 0);
    int got = agent_frame(&a, &f);
    CHECK(got == 0 && f.type == SBX_SPAWNED && f.id == 5 && f.len == 4);
    if (got == 0 && f.type != SBX_SPAWNED)
        fprintf(stderr, "got type %d id %d: %.*s\n", f.type, f.id, (int) f.len, (const char *) f.payload);
    CHECK(agent_send(&a, b, watch_frame(b, 5, "/")) == 0);
    CHECK(agent_frame(&a, &f) == 0 && is_failed(&f, 5, "duplicate watch id"));
    CHECK(agent_send(&a, b, spawn_frame(b, 5, 1, cmd)) == 0);
    CHECK(agent_frame(&a, &f) == 0 && is_failed(&f, 5, "duplicate command id"));

    /* watch 6 (not recursive would do, but the golden shape is recursive: watch a small tree) */
    char dir[] = "/tmp/sbx-test-ids-XXXXXX";
    CHECK_OR_STOP(mkdtemp(dir) != NULL);
    CHECK(agent_send(&a, b, watch_frame(b, 6, dir)) == 0);
    CHECK(agent_frame(&a, &f) == 0 && f.type == SBX_WATCHING && f.id == 6);
    CHECK(agent_send(&a, b, spawn_frame(b, 6, 1, cmd)) == 0);
    CHECK(agent_frame(&a, &f) == 0 && is_failed(&f, 6, "duplicate command id"));
    const char *const none[] = { NULL };
    CHECK(agent_send(&a, b, spawn_frame(b, 7, 0, none)) == 0);
    CHECK(agent_frame(&a, &f) == 0 && is_failed(&f, 7, "empty command"));

    /* the host goes: the held command's reaper is told to end, the agent exits 0 */
    close(a.in);
    a.in = -1;
    int status = agent_wait(&a);
    CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* the reaper, re-parented to this test (a subreaper, see check.h), ends too */
    int reaped = 0;
    for (int i = 0; i < 500 && !reaped; i++) {
        pid_t p = waitpid(-1, &status, WNOHANG);
        if (p > 0)
            reaped = 1;
        else
            usleep(10000);
    }
    CHECK(reaped);
    agent_close(&a);
    CHECK(rmdir(dir) == 0);
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: test-agent GOLDEN_DIR AGENT_BINARY [OTHER_ARCH_AGENT_BINARY QEMU]\n");
        return 2;
    }
    golden_dir = argv[1];
    agent_binary = argv[2];
    if (argc == 5) {
        other_binary = argv[3];
        qemu = argv[4];
    }
    signal(SIGPIPE, SIG_IGN);

    RUN(golden_frames_split_whole);
    RUN(every_prefix_of_a_frame_is_partial);
    RUN(two_frames_in_a_row_split_one_at_a_time);
    RUN(bad_lengths_are_refused_before_anything_is_buffered);
    RUN(the_smallest_and_the_largest_lengths_are_accepted);
    RUN(golden_spawn_parses);
    RUN(golden_file_parses);
    RUN(spawn_keep_is_optional_and_bounded);
    RUN(golden_spawn_with_a_bad_list_is_refused);
    RUN(every_truncation_of_spawn_fails_cleanly_or_parses);
    RUN(string_lists_stay_inside_their_bounds);
    RUN(random_bytes_are_split_and_parsed_within_their_bounds);
    RUN(golden_watch_payload_parses);
    RUN(encoders_write_the_golden_frames);
    RUN(output_read_straight_into_the_queue_is_the_golden_stdout);
    RUN(only_data_frames_count_against_the_output_cap);
    RUN(golden_watch_events_are_two_records);
    RUN(a_long_failure_message_is_cut_to_one_kilobyte);
    RUN(a_burst_of_frames_all_arrive_in_order);
    RUN(characters_are_bytes_that_are_not_continuation_bytes);
    RUN(a_ring_that_never_filled_sends_its_bytes_and_no_skipped);
    RUN(a_wrapped_ring_sends_skipped_then_its_tail_oldest_first);
    RUN(a_ring_filled_exactly_to_its_end_sends_one_frame);
    RUN(no_ring_sends_nothing);
    RUN(the_agent_says_ready_answers_a_bad_list_and_ends_on_a_bad_length);
    if (other_binary != NULL)
        RUN(the_other_architectures_agent_does_the_same_under_qemu);
    else
        printf("skip the_other_architectures_agent_does_the_same_under_qemu: no other-architecture binary or qemu\n");
    RUN(file_frames_run_and_garbage_in_them_is_refused_or_fails_cleanly);
    RUN(a_watch_reports_changes_through_the_protocol);
    RUN(commands_and_watches_share_one_id_space);
    return checks_done();
}
