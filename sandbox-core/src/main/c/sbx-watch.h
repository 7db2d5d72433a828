/*
 * sbx-watch.h: the agent's file watches (inotify, sbx-watch.c). Watches share the command ids' space: the agent
 * checks an id against its commands before watch_start, and against watch_exists before it spawns.
 */
#ifndef SBX_WATCH_H
#define SBX_WATCH_H
#include <stddef.h>
#include <stdint.h>

/* WATCH: answers WATCHING or FAILED (a malformed payload, a duplicate id, too many watches, a path it cannot watch). */
void watch_start(int32_t id, const unsigned char *payload, size_t len);
/* UNWATCH: the watch ends at once; an unknown id is ignored. */
void watch_stop(int32_t id);
int watch_exists(int32_t id);

/* The poll loop's view: watch i's inotify fd (and its id), for i below watch_count(). */
size_t watch_count(void);
int watch_fd(size_t i, int32_t *id);
/* Reads the watch's queued events into WATCH_EVENTS frames; returns -1 when there is no such watch or nothing
   was read. */
int watch_read(int32_t id);
/* Reports renames whose second half did not come in time; lowers *deadline (-1: none) to the next one's. */
void watch_timers(long long now, long long *deadline);
#endif
