/*
 * sbx-ring.c: the output cap's tail ring and its counts (see sbx-ring.h).
 */
#include "sbx-ring.h"

#include <string.h>

#include "sbx-frame.h"

unsigned long long count_chars(const unsigned char *p, size_t n)
{
    unsigned long long continuation = 0;
    size_t i = 0;
    while (n - i >= 8) {
        /* eight byte-wide counters, each at most 255: a continuation byte (10xxxxxx) adds 1 to its lane */
        size_t words = (n - i) / 8 > 255 ? 255 : (n - i) / 8;
        uint64_t lanes = 0;
        for (size_t w = 0; w < words; w++, i += 8) {
            uint64_t x;
            memcpy(&x, p + i, 8);
            lanes += ((x & ~(x << 1)) >> 7) & 0x0101010101010101ULL;
        }
        lanes = (lanes & 0x00FF00FF00FF00FFULL) + ((lanes >> 8) & 0x00FF00FF00FF00FFULL);
        continuation += (lanes * 0x0001000100010001ULL) >> 48;
    }
    for (; i < n; i++)
        continuation += (p[i] & 0xC0) == 0x80;
    return n - continuation;
}

void ring_took(struct keep *k, uint32_t keep, size_t n)
{
    k->chars += count_chars(k->ring + k->pos, n);
    k->bytes += (unsigned long long) n;
    k->pos += n;
    if (k->pos == keep)
        k->pos = 0;
    k->fill = k->fill + n > keep ? keep : k->fill + n;
}

void ring_send(const struct keep *k, uint32_t keep, int type, int32_t id)
{
    if (k->ring == NULL)
        return;
    unsigned long long kept_chars = count_chars(k->ring, k->fill);
    unsigned long long skipped = k->bytes - k->fill;
    if (skipped > 0)
        send_skipped(id, type, skipped, k->chars - kept_chars);
    if (k->fill < keep) {
        send_frame(type, id, k->ring, k->fill);
    } else {
        send_frame(type, id, k->ring + k->pos, keep - k->pos);
        if (k->pos > 0)
            send_frame(type, id, k->ring, k->pos);
    }
}
