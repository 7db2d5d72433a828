/*
 * sbx-ring.h: the output cap's arithmetic (see SPAWN's keep in PROTOCOL.md). A capped stream's first 2 × keep bytes
 * go to the host as they come; after them the agent keeps the last keep bytes in a ring and counts the rest, and
 * before EXIT sends SKIPPED (bytes and UTF-8 characters that never went to the host) and then the ring.
 */
#ifndef SBX_RING_H
#define SBX_RING_H
#include <stddef.h>
#include <stdint.h>

/* One output stream under the cap. */
struct keep {
    unsigned long long streamed; /* bytes sent to the host as they came */
    unsigned char *ring;         /* the last bytes, once 2 × keep have been streamed */
    size_t pos, fill;
    unsigned long long bytes, chars; /* everything that went into the ring */
    int whole;                   /* no room for a ring: the stream goes to the host whole */
    long long rest_until;        /* a drained ring stream is not polled before this (now_ns) */
};

/* UTF-8 characters in p[0..n), counted as the host counts them: bytes that are not continuation bytes. */
unsigned long long count_chars(const unsigned char *p, size_t n);

/* n bytes were just read into k->ring + k->pos (at most keep - k->pos): counts them and moves the ring on. */
void ring_took(struct keep *k, uint32_t keep, size_t n);

/* Before EXIT: SKIPPED for what the ring overwrote (if anything), then the ring's bytes as frames of type, oldest
   first. The ring itself stays: its owner frees it. */
void ring_send(const struct keep *k, uint32_t keep, int type, int32_t id);
#endif
