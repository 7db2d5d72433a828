/*
 * sbx-lease.h: a leased agent (sbx-lease.c, PROTOCOL.md "Leases and reattach") outlives its host's channel: when the
 * channel ends it kills every command, as always, but waits for a new host instead of exiting, until the lease runs
 * out. A new host reaches it through `sbx-agent --connect=127.0.0.1:PORT` (a process the engine starts in the
 * sandbox) and the TCP connector's handshake under the lease's key.
 */
#ifndef SBX_LEASE_H
#define SBX_LEASE_H

#include <stddef.h>
#include <stdint.h>

/* LEASE: long lease ms, int port, 32-byte key. Listens on 127.0.0.1:port; answers LEASED or FAILED. */
/* An agent run with --listen (a pod's) binds its lease on that address's host (":PORT": every address), not on the
 * loopback: its later hosts come over the network, as its first did. */
void lease_bind_like(const char *listen_addr);
void lease_handle(int32_t id, const unsigned char *p, size_t len);
/* The lease's listener, or -1 (no lease). */
int lease_listener(void);
/* A connection to the listener while a host is attached: closed at once, so a second host learns it is taken. */
void lease_refuse(void);
/* Waits for a host that passes the handshake (0: it is on fd 0 and 1) or the lease's end (non-zero). */
int lease_await(void);
/* `sbx-agent --connect=HOST:PORT`: copies stdin to a TCP connection and the connection to stdout until either ends. */
int lease_connect(const char *addr);

#endif
